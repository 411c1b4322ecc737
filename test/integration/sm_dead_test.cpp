// With the SM dead (issue 36 item 1): every GMP to a LID works without the
// SA, as the reference's do.  OpenSM is killed (ibsim keeps running, LIDs
// stay), then perfquery (umad and verbs), ibping and ibsysstat against
// servers, vendstat and ibccquery, the health family and the exporter's PM
// reads run against the reference where it has the command, and the SA is
// asked at most once per process (its -d trace).
//
// And where ibtool and the reference parted ways on the commands
// themselves (item 4), on a fabric whose SM is alive: ibping to a LID no
// port has, smpquery given a node GUID, smpdump's output into decode_mad.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <filesystem>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "test/integration/gmp_server.h"
#include "test/integration/ibtool_bin.h"
#include "test/integration/mad_trace.h"
#include "test/integration/sim_ports.h"
#include "test/testbed/fabric.h"

namespace fs = std::filesystem;

namespace {

using ittest::IBTOOL;

// What differs between two runs of the reference itself: data and packet
// counters, ping times.
std::string norm_counters(const std::string& s) {
  static const std::regex counters(R"(((?:Xmit|Rcv)(?:Data|Pkts):\.*)\d+)"), t("[0-9]+\\.[0-9]{3}"),
      ms("time [0-9]+ ms");
  return std::regex_replace(std::regex_replace(std::regex_replace(s, counters, "$1N"), t, "T"), ms, "time N ms");
}

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = 0; (p = s.find(what, p)) != std::string::npos; p += what.size()) ++n;
  return n;
}

struct Cmd {
  std::string out, err;
  int status = -1;
  double seconds = 0;
};

class SmDead : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    testbed::FabricOptions o;
    o.tag = "smdead";
    o.opensm_conf = {"ignore_other_sm TRUE"};
    fab_ = std::make_unique<testbed::Fabric>(
        simports::one_switch({"Sm", "Client", "Idle", "PingOurs", "PingRef", "StatOurs", "Other"}), o);
    for (const char* h : {"Idle", "PingOurs", "PingRef", "StatOurs", "Other"}) lids_[h] = simports::lid(*fab_, h);
    fab_->kill_opensm();
  }
  static void TearDownTestSuite() { fab_.reset(); }

  // Run a shell line from node Client.
  static Cmd sh(const std::string& line, double timeout = 120) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = fab_->sh(line, {{"SIM_HOST", "Client"}}, timeout);
    Cmd out{r.out, r.err, r.status, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
    return out;
  }

  // `server` on node `host` for the client lines, run from node Client
  // (test/integration/gmp_server.h; OpenSM is dead: no probe is needed to
  // keep its polls away).
  static std::vector<gmpserver::ClientRun> with_server(const std::string& host, const std::string& server,
                                                       const std::vector<std::string>& clients) {
    auto r = gmpserver::with_server(*fab_, host, server, "", clients);
    EXPECT_TRUE(r.ready) << r.server_err;
    return r.clients;
  }

  static inline std::unique_ptr<testbed::Fabric> fab_;
  static inline std::map<std::string, std::string> lids_;
};

TEST_F(SmDead, PerfqueryReadsTheCountersAsTheReferenceDoes) {
  const std::string lid = lids_["Idle"];
  ASSERT_FALSE(lid.empty());
  Cmd ref = sh("perfquery " + lid + " 1");
  ASSERT_EQ(ref.status, 0) << ref.err;  // the reference asks no SA for a LID
  ASSERT_NE(ref.out.find("# Port counters: Lid " + lid + " port 1"), std::string::npos) << ref.out;
  Cmd ours = sh(IBTOOL + " perfquery -v " + lid + " 1");
  EXPECT_EQ(ours.status, 0) << ours.err;
  EXPECT_EQ(norm_counters(ours.out), norm_counters(ref.out)) << ours.err;
  // One -v line says why the path is the plain one; no E: line.
  EXPECT_EQ(count(ours.err, "does not answer: GMPs to LIDs go on plain LID paths"), 1) << ours.err;
  EXPECT_EQ(count(ours.err, "E: "), 0) << ours.err;
  // Without -v nothing on stderr.
  Cmd quiet = sh(IBTOOL + " perfquery " + lid + " 1");
  EXPECT_EQ(quiet.status, 0);
  EXPECT_EQ(quiet.err, "");
  // The SA was asked within the short bound: the query and one resend.
  Cmd traced = sh(IBTOOL + " perfquery -d " + lid + " 1");
  EXPECT_EQ(traced.status, 0);
  EXPECT_LE(madtrace::rpcs(traced.err, "SubnAdmGet("), 2) << traced.err;
}

TEST_F(SmDead, PerfqueryOverVerbsToo) {
  const std::string lid = lids_["Idle"];
  const std::string fake = fs::path(IBTOOL).parent_path().string() + "/test/fakeverbs";
  ASSERT_TRUE(fs::exists(fake + "/libibverbs.so.1")) << fake;
  Cmd ref = sh("perfquery " + lid + " 1");
  Cmd ours = sh("LD_LIBRARY_PATH=" + fake + " " + IBTOOL + " perfquery --transport verbs " + lid + " 1");
  EXPECT_EQ(ours.status, 0) << ours.err;
  EXPECT_EQ(norm_counters(ours.out), norm_counters(ref.out)) << ours.err;
}

TEST_F(SmDead, IbpingAndIbsysstatReachTheirServers) {
  const std::string ping = lids_["PingOurs"], ping_ref = lids_["PingRef"], stat = lids_["StatOurs"];
  auto ours = with_server("PingOurs", IBTOOL + " ibping -S",
                          {"ibping -c 2 " + ping, IBTOOL + " ibping -c 2 " + ping});
  EXPECT_NE(ours[0].out.find("2 packets transmitted, 2 received"), std::string::npos) << ours[0].out << ours[0].err;
  EXPECT_EQ(norm_counters(ours[1].out), norm_counters(ours[0].out)) << ours[1].err;
  EXPECT_EQ(ours[1].status, ours[0].status);
  auto ref = with_server("PingRef", "ibping -S", {"ibping -c 1 " + ping_ref, IBTOOL + " ibping -c 1 " + ping_ref});
  EXPECT_NE(ref[0].out.find("1 received"), std::string::npos) << ref[0].out << ref[0].err;
  EXPECT_EQ(norm_counters(ref[1].out), norm_counters(ref[0].out)) << ref[1].err;
  auto st = with_server("StatOurs", IBTOOL + " ibsysstat -S",
                        {"ibsysstat " + stat + " host", IBTOOL + " ibsysstat " + stat + " host"});
  EXPECT_EQ(st[0].status, 0) << st[0].err;
  EXPECT_FALSE(st[0].out.empty());
  EXPECT_EQ(st[1].out, st[0].out) << st[1].err;
  EXPECT_EQ(st[1].status, 0);
}

TEST_F(SmDead, VendstatAndIbccqueryAsTheReference) {
  // ibsim has no vendor agent: both tools' requests time out, and ibtool's
  // failure is that, as the reference's is, not a missing PathRecord;
  // ibccquery reads the CongestionInfo.
  const std::string lid = lids_["Other"];
  for (const std::string& cmd : {"vendstat -N -t 200 " + lid, "ibccquery -t 200 CI " + lid}) {
    SCOPED_TRACE(cmd);
    Cmd ref = sh(cmd);
    Cmd ours = sh(IBTOOL + " " + cmd);
    EXPECT_EQ(ours.out, ref.out) << ours.err;
    EXPECT_EQ(ours.status, ref.status);
    EXPECT_EQ(ours.err.find("path record"), std::string::npos) << ours.err;
  }
}

TEST_F(SmDead, TheHealthFamilyReadsEveryPortAskingTheSaOnce) {
  // ibqueryerrors: the path table query (bounded, sent once), then every
  // port on its plain path: no per-port SA timeout.
  Cmd q = sh(IBTOOL + " ibqueryerrors -d");
  EXPECT_LE(q.status, 1) << q.err.substr(0, 4000);
  EXPECT_LE(madtrace::rpcs(q.err, "SubnAdm"), 2);
  EXPECT_EQ(q.err.find("path record"), std::string::npos);
  EXPECT_GE(madtrace::rpcs(q.err, "PerformanceGet("), 8);
  // (Its status says what it found: the SA MADs ibsim could not deliver
  // count as a switch port's errors.)
  Cmd c = sh(IBTOOL + " ibcheckerrors -v");
  EXPECT_LE(c.status, 1) << c.out << c.err;
  EXPECT_NE(c.out.find("ports checked"), std::string::npos) << c.out;
  EXPECT_EQ(c.out.find("query failed"), std::string::npos) << c.out;
  EXPECT_LE(count(c.err, "GMPs to LIDs go on plain LID paths"), 1) << c.err;
  // The exporter's scrape: every port's counters read.
  Cmd e = sh(IBTOOL + " exporter --once");
  EXPECT_EQ(e.status, 0) << e.err;
  EXPECT_NE(e.out.find("ib_scrape_ports_unread 0"), std::string::npos) << e.err;
  EXPECT_EQ(e.out.find("ib_port_scrape_ok{") == std::string::npos, false);
  EXPECT_EQ(std::regex_search(e.out, std::regex("ib_port_scrape_ok\\{[^}]*\\} 0")), false) << e.out;
}

// --- item 4, the SM alive -------------------------------------------------------

class SmAlive : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    testbed::FabricOptions o;
    o.tag = "smalive";
    fab_ = std::make_unique<testbed::Fabric>(simports::one_switch({"Sm", "Client", "Node"}), o);
  }
  static void TearDownTestSuite() { fab_.reset(); }
  static Cmd sh(const std::string& line) {
    auto r = fab_->sh(line, {{"SIM_HOST", "Client"}});
    return {r.out, r.err, r.status};
  }
  static inline std::unique_ptr<testbed::Fabric> fab_;
};

TEST_F(SmAlive, IbpingToALidNoPortHasCountsTheLostPings) {
  Cmd ref = sh("ibping -c 2 -t 200 50");
  ASSERT_EQ(ref.status, 0) << ref.err;
  ASSERT_NE(ref.out.find("2 packets transmitted, 0 received, 100% packet loss"), std::string::npos) << ref.out;
  Cmd ours = sh(IBTOOL + " ibping -c 2 -t 200 50");
  EXPECT_EQ(norm_counters(ours.out), norm_counters(ref.out)) << ours.err;
  EXPECT_EQ(ours.status, 0);
  Cmd strict = sh(IBTOOL + " ibping --strict -c 1 -t 200 50");
  EXPECT_NE(strict.status, 0);
  EXPECT_NE(strict.out.find("1 packets transmitted, 0 received"), std::string::npos) << strict.out;
}

TEST_F(SmAlive, ANodeGuidHintNamesThePortGuid) {
  // ibsim: a CA's node GUID, then its port's GUID one higher.
  const std::string port_guid = simports::guid(*fab_, "Node");
  ASSERT_FALSE(port_guid.empty());
  char node_guid[32];
  std::snprintf(node_guid, sizeof node_guid, "0x%016llx", std::stoull(port_guid, nullptr, 16) - 1);
  Cmd ni = sh("smpquery -G nodeinfo " + port_guid);
  ASSERT_EQ(ni.status, 0) << ni.err;
  ASSERT_NE(ni.out.find(std::string("\nGuid:............................") + node_guid), std::string::npos) << ni.out;

  for (const std::string& args : {std::string("nodeinfo ") + node_guid, std::string("-G nodeinfo ") + node_guid}) {
    SCOPED_TRACE(args);
    Cmd bad = sh(IBTOOL + " smpquery " + args);
    EXPECT_EQ(bad.status, 255);
    // The reference's last line, and a hint that names the port GUID.
    EXPECT_EQ(bad.out, std::string("smpquery: iberror: failed: can't resolve destination port ") + node_guid + "\n");
    EXPECT_NE(bad.err.find("is the node GUID of \"Node\", not a port GUID: for its port give -G " + port_guid),
              std::string::npos)
        << bad.err;
  }
  // Following the hint works, as the reference's -G does.
  Cmd follow = sh(IBTOOL + " smpquery -G nodeinfo " + port_guid);
  EXPECT_EQ(follow.status, 0) << follow.err;
  EXPECT_EQ(follow.out, ni.out);
}

TEST_F(SmAlive, SmpdumpOutputDecodes) {
  const std::string lid = simports::lid(*fab_, "Node");
  for (const std::string& dump : {std::string("smpdump"), IBTOOL + " smpdump"}) {
    SCOPED_TRACE(dump);
    for (const char* attr : {"PortInfo", "portinfo", "SMPPortInfo", "0x15"}) {
      Cmd r = sh(dump + " " + lid + " 0x15 | " + IBTOOL + " decode_mad --attr " + std::string(attr));
      EXPECT_EQ(r.status, 0) << r.err;
      EXPECT_NE(r.out.find("SMPPortInfo(21) payload"), std::string::npos) << r.out;
      EXPECT_TRUE(std::regex_search(r.out, std::regex("\\bLID=" + lid + "\\b|LID[.:]+ *" + lid + "\\b"))) << r.out;
    }
    // Without the attribute: smpdump's output is recognized and the
    // attribute asked for, not decoded as a MAD.
    Cmd r = sh(dump + " " + lid + " 0x15 | " + IBTOOL + " decode_mad");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("smpdump's output"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--attr"), std::string::npos) << r.err;
  }
}

}  // namespace
