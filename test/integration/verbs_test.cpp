// The verbs half on the simulated fabric, through the fake provider
// (test/fakeverbs, first in LD_LIBRARY_PATH): core/transport/verbs' own checks
// (fakeverbs_check), GMPs over VMAD against umad, SMPs and MAD servers
// refused over verbs, rdma_bw between two hosts (each a node of the
// fabric) with the server checking the bytes it received, and every verbs
// path on a machine with no device.
#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <string>

#include "test/integration/ibtool_bin.h"
#include "test/testbed/fabric.h"

namespace {

using ittest::IBTOOL;
const testbed::Env FAKE = {{"LD_LIBRARY_PATH", FAKEVERBS_DIR}};

std::vector<std::string> plus(std::vector<std::string> a, const std::string& x, const std::string& y) {
  a.push_back(x);
  a.push_back(y);
  return a;
}

class Verbs : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    // Two hosts on a switch: the SM's node, and a second for the other end;
    // "Lonely" has its port 1 unconnected (Down) and port 2 up, which
    // umad2sim does not show: a client sees its node's port 1 only.
    std::string topo =
        "Hca 1 \"Server\"\n[1] \"Switch1\"[1]\n\n"
        "Hca 1 \"Client\"\n[1] \"Switch1\"[2]\n\n"
        "Hca 1 \"Third\"\n[1] \"Switch1\"[3]\n\n"
        "Hca 2 \"Lonely\"\n[2] \"Switch1\"[4]\n\n"
        "Switch 8 \"Switch1\"\n[1] \"Server\"[1]\n[2] \"Client\"[1]\n[3] \"Third\"[1]\n[4] \"Lonely\"[2]\n";
    testbed::FabricOptions o;
    o.tag = "verbs";
    fab_ = std::make_unique<testbed::Fabric>(topo, o);
  }
  static void TearDownTestSuite() { fab_.reset(); }
  static inline std::unique_ptr<testbed::Fabric> fab_;

  static testbed::Result ibtool(const std::vector<std::string>& args, const testbed::Env& env = FAKE,
                                double timeout = 60) {
    std::vector<std::string> a = {IBTOOL};
    a.insert(a.end(), args.begin(), args.end());
    return fab_->run(a, env, timeout);
  }
};

TEST_F(Verbs, CoreVerbsOnTheFakeProvider) {
  auto r = fab_->run({FAKEVERBS_CHECK}, FAKE, 240);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("[  PASSED  ]"), std::string::npos) << r.out;
}

TEST_F(Verbs, GmpsOverVerbsAnswerAsOverUmad) {
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"perfquery"}, {"perfquery", "-x", "3", "1"}, {"saquery"}, {"saquery", "-p"}, {"saquery", "NR", "3"},
           {"saquery", "-s"}, {"sminfo", "--sa"}}) {
    auto um = ibtool(plus(args, "--transport", "umad"));
    auto vb = ibtool(plus(args, "--transport", "verbs"));
    std::string what = args[0] + (args.size() > 1 ? " " + args[1] : "");
    EXPECT_EQ(um.status, vb.status) << what << "\n" << vb.err;
    // Counters move with every query (these MADs are traffic too).
    std::regex counter("(Port[A-Za-z]+:\\.+)[0-9]+");
    um.out = std::regex_replace(um.out, counter, "$1N");
    vb.out = std::regex_replace(vb.out, counter, "$1N");
    // Records past the end of an SA reply are the SA's stale bytes: compare
    // only what the row of every record says up to its reserved fields.
    std::regex stale("\\t\\tresv2\\.*0x[0-9A-F]+\\n|\\t\\tpreference\\.*0x[0-9A-F]+\\n|\\t\\tpkt_life\\.*0x[0-9A-F]+\\n");
    EXPECT_EQ(std::regex_replace(um.out, stale, ""), std::regex_replace(vb.out, stale, "")) << what;
  }
}

TEST_F(Verbs, SmpsAndServersAreRefusedClearly) {
  auto smp = ibtool({"smpquery", "--transport", "verbs", "nodeinfo", "1"});
  EXPECT_NE(smp.status, 0);
  EXPECT_EQ(smp.out, "");
  EXPECT_NE(smp.err.find("SMPs cannot be sent over verbs"), std::string::npos) << smp.err;
  auto srv = ibtool({"ibping", "--transport", "verbs", "-S"});
  EXPECT_NE(srv.status, 0);
  EXPECT_NE(srv.err.find("cannot run over verbs"), std::string::npos) << srv.err;
  auto bad = ibtool({"perfquery", "--transport", "rdma"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("umad, verbs, auto"), std::string::npos) << bad.err;
}

// rdma_bw: the server on the node "Server", the client on "Client".
struct BwRun {
  testbed::Result server, client;
};
BwRun bw(testbed::Fabric& f, const std::string& port, const std::string& server_args,
         const std::string& client_args) {
  std::string cmd = "LD_LIBRARY_PATH=" + std::string(FAKEVERBS_DIR) + " SIM_HOST=Server " + IBTOOL +
                    " rdma_bw -p " + port + " " + server_args + " >srv-" + port + ".out 2>srv-" + port +
                    ".err & spid=$!; sleep 0.5; LD_LIBRARY_PATH=" + FAKEVERBS_DIR + " SIM_HOST=Client " + IBTOOL +
                    " rdma_bw -p " + port + " " + client_args + " localhost; c=$?; wait $spid; s=$?; " +
                    "echo \"client=$c server=$s\" >&2; cat srv-" + port + ".out >&2; exit $c";
  BwRun r;
  r.client = f.sh(cmd, {}, 120);
  return r;
}

TEST_F(Verbs, RdmaBwMovesBytesTheServerChecks) {
  auto r = bw(*fab_, "19501", "-s 70000 -n 300", "-s 70000 -n 300");
  EXPECT_EQ(r.client.status, 0) << r.client.out << r.client.err;
  EXPECT_NE(r.client.err.find("client=0 server=0"), std::string::npos) << r.client.err;
  EXPECT_NE(r.client.err.find("Received 70000 bytes from the peer: all as written"), std::string::npos)
      << r.client.err;
  EXPECT_NE(r.client.out.find("Sent 300 RDMA WRITEs of 70000 bytes (21000000 bytes)"), std::string::npos)
      << r.client.out;
  EXPECT_TRUE(std::regex_search(r.client.out, std::regex("Bandwidth average: [0-9]+\\.[0-9]{2} MB/sec\n")))
      << r.client.out;
  // The path to the peer came from the SA: the SM's MTU and rate, both LIDs.
  EXPECT_TRUE(std::regex_search(r.client.out, std::regex("Path to the peer: IBPath\\(SLID=[0-9]+,DLID=[0-9]+,.*MTU=")))
      << r.client.out;
}

// A port that is not Active carries no RC traffic: one line naming the
// device, the port and its state, and a non-zero exit before any TCP
// exchange (no listening server, no connection attempt).  Without -i (and
// -P), the port is the first Active one, named in the output.
TEST_F(Verbs, RdmaBwRefusesAPortThatIsNotActive) {
  testbed::Env lonely = FAKE;
  lonely["SIM_HOST"] = "Lonely";
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"rdma_bw", "-p", "19505"}, {"rdma_bw", "-p", "19505", "localhost"}}) {
    std::string what = args.size() > 3 ? "client" : "server";
    auto r = ibtool(args, lonely, 20);
    EXPECT_EQ(r.status, 1) << what << ": " << r.err;
    EXPECT_EQ(r.out, "") << what;
    EXPECT_EQ(r.err, "E: rdma_bw: no Active port (ibsim0 port 1, the first, is Down); name one with -d/-i\n") << what;
    args.insert(args.begin() + 1, {"-i", "1"});
    r = ibtool(args, lonely, 20);
    EXPECT_EQ(r.status, 1) << what << " -i 1: " << r.err;
    EXPECT_EQ(r.err, "E: rdma_bw: ibsim0 port 1 is Down, not Active\n") << what;
    args[1] = "-d";
    args[2] = "ibsim0";
    r = ibtool(args, lonely, 20);
    EXPECT_EQ(r.err, "E: rdma_bw: no Active port (ibsim0 port 1, the first, is Down); name one with -d/-i\n") << what;
    args[1] = "-C";
    args[2] = "ibsim0/1";
    r = ibtool(args, lonely, 20);
    EXPECT_EQ(r.err, "E: rdma_bw: ibsim0 port 1 is Down, not Active\n") << what;
  }
}

TEST_F(Verbs, RdmaBwNamesTheActivePortItUses) {
  auto r = bw(*fab_, "19506", "-s 4096 -n 10", "-s 4096 -n 10");
  EXPECT_EQ(r.client.status, 0) << r.client.out << r.client.err;
  // Both ends, each on its node's Active port 1 (the server's lines are in
  // the err stream of the run).
  std::regex named("^Local port: ibsim0 port 1, LID 0x[0-9a-f]{4}\n");
  EXPECT_TRUE(std::regex_search(r.client.out, named)) << r.client.out;
  EXPECT_NE(r.client.err.find("\nLocal port: ibsim0 port 1, LID 0x"), std::string::npos) << r.client.err;
  auto j = bw(*fab_, "19507", "-s 4096 -n 10", "-s 4096 -n 10 --json");
  EXPECT_EQ(j.client.status, 0) << j.client.out << j.client.err;
  EXPECT_NE(j.client.out.find("{\"role\":\"client\",\"device\":\"ibsim0\",\"port\":1,"), std::string::npos)
      << j.client.out;
}

TEST_F(Verbs, RdmaBwBidirectional) {
  auto r = bw(*fab_, "19502", "-b -s 5000 -n 200 -t 16", "-b -s 5000 -n 200 -t 16");
  EXPECT_EQ(r.client.status, 0) << r.client.out << r.client.err;
  EXPECT_NE(r.client.err.find("client=0 server=0"), std::string::npos) << r.client.err;
  // Both ends received and checked, both sent.
  EXPECT_NE(r.client.out.find("Received 5000 bytes from the peer: all as written"), std::string::npos);
  EXPECT_NE(r.client.err.find("Received 5000 bytes from the peer: all as written"), std::string::npos);
  EXPECT_NE(r.client.err.find("Bandwidth average"), std::string::npos);
}

TEST_F(Verbs, RdmaBwWriteBeyondTheServersBufferFailsClearly) {
  auto r = bw(*fab_, "19503", "-s 4096 -n 10", "-s 65536 -n 10");
  EXPECT_NE(r.client.status, 0);
  EXPECT_NE(r.client.err.find("remote access error"), std::string::npos) << r.client.err;
  EXPECT_EQ(r.client.err.find("client=0"), std::string::npos) << r.client.err;
}

TEST_F(Verbs, RdmaBwBadArgumentsAndNoServer) {
  auto r = ibtool({"rdma_bw", "-s", "0", "localhost"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("size"), std::string::npos) << r.err;
  auto c = ibtool({"rdma_bw", "-p", "19504", "localhost"});
  EXPECT_NE(c.status, 0);
  EXPECT_NE(c.err.find("Cannot connect to rdma_bw server localhost port 19504"), std::string::npos) << c.err;
}

TEST_F(Verbs, IbstatShowsTheEffectiveSpeedWhereVerbsHasIt) {
  // The fake has upstream's ibv_query_port_speed (the port's rate, in
  // 100 Mb/s); the system libibverbs (44) does not, and its output stays 44's.
  auto with_fake = ibtool({"ibstat"});
  auto plain = ibtool({"ibstat"}, {});
  ASSERT_EQ(with_fake.status, 0) << with_fake.err;
  ASSERT_EQ(plain.status, 0) << plain.err;
  std::smatch rate;
  ASSERT_TRUE(std::regex_search(plain.out, rate, std::regex("\t\tRate: ([0-9]+)\n")));
  EXPECT_EQ(plain.out.find("Effective speed"), std::string::npos);
  std::string line = "\t\tRate: " + rate[1].str() + "\n\t\tEffective speed: " + rate[1].str() + "\n";
  EXPECT_NE(with_fake.out.find(line), std::string::npos) << with_fake.out;
  EXPECT_EQ(std::regex_replace(with_fake.out, std::regex("\t\tEffective speed: [0-9.]+\n"), ""), plain.out);
}

TEST_F(Verbs, IbvDevicesAndIbstatJsonHaveTheTextsValues) {
  auto t = ibtool({"ibv_devices"});
  auto j = ibtool({"ibv_devices", "--json"});
  ASSERT_EQ(t.status, 0) << t.err;
  ASSERT_EQ(j.status, 0) << j.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(t.out, m, std::regex("\n    (\\S+) *\t([0-9a-f]{16})\n")));
  EXPECT_EQ(j.out, "{\"devices\":[{\"name\":\"" + m[1].str() + "\",\"nodeGUID\":\"0x" + m[2].str() + "\"}]}\n");
  auto s = ibtool({"ibstat", "--json"});
  auto st = ibtool({"ibstat"});
  std::smatch rate;
  ASSERT_TRUE(std::regex_search(st.out, rate, std::regex("Effective speed: ([0-9]+)\n")));
  EXPECT_NE(s.out.find("\"effectiveSpeedMbps\":" + rate[1].str() + "000"), std::string::npos) << s.out;
}

TEST(VerbsNoDevice, EveryVerbsPathSaysSo) {
  // No umad2sim: the fake lists what libibumad finds on this machine's
  // sysfs (nothing here), and the system libibverbs (when present) likewise.
  for (const testbed::Env& env : {FAKE, testbed::Env{}}) {
    for (std::vector<std::string> args :
         std::vector<std::vector<std::string>>{{"rdma_bw"}, {"rdma_bw", "peer"}, {"ibv_devices"},
                                               {"perfquery", "--transport", "verbs"}}) {
      std::vector<std::string> a = {IBTOOL};
      a.insert(a.end(), args.begin(), args.end());
      testbed::Env e = env;
      e["LD_PRELOAD"] = "";
      e["IBSIM_SOCKNAME"] = "";
      auto r = testbed::run_process(a, e, "/", 30);
      std::string what = args[0] + (env.empty() ? " (system libibverbs)" : " (fake)");
      if (args[0] == "ibv_devices" && r.status == 0) continue;  // an empty list is a list
      EXPECT_NE(r.status, 0) << what;
      EXPECT_FALSE(r.status > 128 && r.status < 160) << what << " died of a signal: " << r.err;
      EXPECT_FALSE(r.err.empty()) << what;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
    }
  }
}

}  // namespace
