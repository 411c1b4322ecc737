// ibping and ibsysstat end to end on ibsim, in all four directions: the
// reference client against the reference server (what to expect), the
// reference client against ibtool's server, ibtool's client against the
// reference server, and ibtool against itself.
//
// Two simulator facts shape the setup (see the ibsim and umad2sim sources):
//  * ibsim hands an unsolicited request for QP1 of a node only to a client
//    attached there as the node's SM ("zero qp - only issm clients may get
//    requests"; otherwise "no one to handle pkt: class 0x32").  So every
//    server runs with umad2sim's own switch SIM_SET_ISSM=1, which attaches
//    it as the node's SM client.  Neither server, ours or the reference's,
//    would open the SM device on real hardware; the switch changes only
//    the simulator's routing.
//  * Being an SM client sets IsSM in the port's capability mask; OpenSM
//    then polls that port with SMInfo (class 0x81).  umad2sim delivers
//    every MAD by its class to the agent registered for it and, for a
//    class nobody registered, dereferences a null queue: the server process
//    dies with SIGSEGV (the reference server as much as ours).  OpenSM runs
//    with ignore_other_sm, so it does not poll.
//  * A request reaching a server before it has registered its agent kills
//    it the same way, so a server is probed only once it waits for MADs.
// A server is stopped with SIGTERM.  ibtool's server exits cleanly then
// (its simulator client detaches, checked below); the reference's dies on
// the signal and leaves ibsim believing its node still has an SM client,
// so each reference server gets a node of its own.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "test/integration/gmp_server.h"
#include "test/integration/ibtool_bin.h"
#include "test/integration/sim_ports.h"
#include "test/testbed/fabric.h"

namespace {

using ittest::IBTOOL;

// Round trip times, durations and clock rates differ between any two runs.
std::string norm(const std::string& s) {
  static const std::regex t("[0-9]+\\.[0-9]{3}"), ms("time [0-9]+ ms"), mhz("MHZ +[0-9.]+");
  return std::regex_replace(std::regex_replace(std::regex_replace(s, t, "T"), ms, "time N ms"), mhz, "MHZ N");
}

using gmpserver::ClientRun;
using gmpserver::ServerRun;

class OfaE2E : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    // The SM's node first (clients attach there by default), then the
    // client's node and a node for every server run.
    testbed::FabricOptions o;
    o.tag = "ofa";
    o.opensm_conf = {"ignore_other_sm TRUE"};
    fab_ = std::make_unique<testbed::Fabric>(
        simports::one_switch({"Sm", "Client", "PingRef", "PingOurs", "StatRef", "StatOurs", "Idle", "PKey"}), o);
  }
  static void TearDownTestSuite() { fab_.reset(); }

  static std::string lid_of(const std::string& host) { return simports::lid(*fab_, host); }
  static std::string guid_of(const std::string& host) { return simports::guid(*fab_, host); }

  // `server` on node `host` for the client lines, run from node Client
  // (test/integration/gmp_server.h).
  static ServerRun with_server(const std::string& host, const std::string& server, const std::string& probe,
                               const std::vector<std::string>& clients) {
    return gmpserver::with_server(*fab_, host, server, probe, clients);
  }

  static inline std::unique_ptr<testbed::Fabric> fab_;
};

TEST_F(OfaE2E, PingAllDirections) {
  std::string ref_lid = lid_of("PingRef"), our_lid = lid_of("PingOurs"), idle = lid_of("Idle");
  ASSERT_FALSE(ref_lid.empty());
  ASSERT_FALSE(our_lid.empty());
  ASSERT_FALSE(idle.empty());
  std::string ref_guid = guid_of("PingRef");
  ASSERT_FALSE(ref_guid.empty());

  // Reference server: the reference client (expected) and ours.
  auto probe = [](const std::string& lid) { return "ibping -c 1 -t 200 " + lid + " | grep -q ', 1 received'"; };
  auto r = with_server("PingRef", "ibping -S", probe(ref_lid),
                       {"ibping -c 2 " + ref_lid, IBTOOL + " ibping -c 2 " + ref_lid,
                        "ibping -f -c 3 " + ref_lid, IBTOOL + " ibping -f -c 3 " + ref_lid,
                        "ibping -c 1 -G " + ref_guid, IBTOOL + " ibping -c 1 -G " + ref_guid});
  ASSERT_TRUE(r.ready) << r.server_err;
  const auto& expect = r.clients[0];
  ASSERT_NE(expect.out.find("2 packets transmitted, 2 received"), std::string::npos) << expect.out << expect.err;
  EXPECT_EQ(norm(r.clients[1].out), norm(expect.out)) << r.clients[1].err;
  EXPECT_EQ(r.clients[1].status, expect.status);
  EXPECT_NE(r.clients[2].out.find("3 packets transmitted, 3 received"), std::string::npos) << r.clients[2].out;
  EXPECT_EQ(norm(r.clients[3].out), norm(r.clients[2].out)) << r.clients[3].err;
  EXPECT_EQ(r.clients[3].status, r.clients[2].status);
  EXPECT_NE(r.clients[4].out.find("1 received"), std::string::npos) << r.clients[4].out;
  EXPECT_EQ(norm(r.clients[5].out), norm(r.clients[4].out)) << r.clients[5].err;

  // ibtool's server: the reference client, ours, and a client of another
  // OUI, which the server must not answer.
  auto o = with_server("PingOurs", IBTOOL + " ibping -S", probe(our_lid),
                       {"ibping -c 2 " + our_lid, IBTOOL + " ibping -c 2 " + our_lid,
                        "ibping -f -c 3 " + our_lid, IBTOOL + " ibping -c 1 -t 200 -o 0x1234 " + our_lid,
                        IBTOOL + " ibping -c 2 --json " + our_lid,
                        IBTOOL + " ibping -c 1 -t 200 -o 0x1234 -j " + our_lid});
  ASSERT_TRUE(o.ready) << o.server_err;
  // The same host answers, so the same lines but for the LID.
  auto with_lid = [&](std::string s) { return std::regex_replace(s, std::regex("Lid " + ref_lid), "Lid " + our_lid); };
  EXPECT_EQ(norm(o.clients[0].out), norm(with_lid(expect.out))) << o.clients[0].err << o.server_err;
  EXPECT_EQ(o.clients[0].status, expect.status);
  EXPECT_EQ(norm(o.clients[1].out), norm(with_lid(expect.out))) << o.clients[1].err;
  EXPECT_EQ(norm(o.clients[2].out), norm(with_lid(r.clients[2].out))) << o.clients[2].err;
  EXPECT_NE(o.clients[3].out.find("1 packets transmitted, 0 received, 100% packet loss"), std::string::npos)
      << o.clients[3].out;
  // --json: the same pings as one document (issue 15).
  {
    auto j = nlohmann::json::parse(o.clients[4].out);
    EXPECT_EQ(j["LID"], std::stoul(our_lid, nullptr, 0));
    EXPECT_EQ(j["transmitted"], 2);
    EXPECT_EQ(j["received"], 2);
    EXPECT_EQ(j["lossPercent"], 0);
    ASSERT_EQ(j["pings"].size(), 2u);
    // The host the text names in "Pong from <host> (Lid N)".
    std::smatch m;
    ASSERT_TRUE(std::regex_search(o.clients[1].out, m, std::regex("Pong from (.*) \\(Lid")));
    EXPECT_EQ(j["host"], m[1].str());
    EXPECT_EQ(j["pings"][1]["seq"], 2);
    EXPECT_EQ(j["pings"][1]["host"], m[1].str());
    EXPECT_LE(j["rttMinUs"].get<uint64_t>(), j["rttMaxUs"].get<uint64_t>());
    auto lost = nlohmann::json::parse(o.clients[5].out);
    EXPECT_EQ(lost["received"], 0);
    EXPECT_EQ(lost["lossPercent"], 100);
    EXPECT_EQ(lost["pings"][0]["lost"], true);
  }
  // SIGTERM ends ibtool's server cleanly: status 0, and its simulator
  // client detached, so a new server can be the node's SM client again
  // (after a reference server died on the signal, ibsim refuses that:
  // "SM already exists").
  EXPECT_EQ(o.server_status, 0) << o.server_err;
  auto again = with_server("PingOurs", IBTOOL + " ibping -S", probe(our_lid), {"ibping -c 1 " + our_lid});
  EXPECT_TRUE(again.ready) << again.server_err;
  EXPECT_NE(again.clients[0].out.find("1 packets transmitted, 1 received"), std::string::npos)
      << again.clients[0].out << again.clients[0].err;

  // Without a server the same client output is something else entirely:
  // the comparisons above can fail.
  auto none = fab_->run({"ibping", "-c", "2", "-t", "200", idle}, {{"SIM_HOST", "Client"}});
  EXPECT_NE(norm(with_lid(none.out)), norm(with_lid(expect.out)));
  EXPECT_NE(none.out.find("0 received"), std::string::npos) << none.out;
}

TEST_F(OfaE2E, SysStatAllDirections) {
  std::string ref_lid = lid_of("StatRef"), our_lid = lid_of("StatOurs");
  ASSERT_FALSE(ref_lid.empty());
  ASSERT_FALSE(our_lid.empty());
  const std::vector<std::string> ops = {"", "ping", "host", "cpu"};
  auto clients = [&](const std::string& lid) {
    std::vector<std::string> c;
    for (const auto& op : ops) {
      c.push_back("ibsysstat " + lid + " " + op);
      c.push_back(IBTOOL + " ibsysstat " + lid + " " + op);
    }
    return c;
  };
  auto probe = [](const std::string& lid) { return "ibsysstat -t 200 " + lid; };
  std::vector<std::string> ref_clients = clients(ref_lid);
  for (const auto& op : ops) ref_clients.push_back(IBTOOL + " ibsysstat --json " + ref_lid + " " + op);
  auto r = with_server("StatRef", "ibsysstat -S", probe(ref_lid), ref_clients);
  ASSERT_TRUE(r.ready) << r.server_err;
  auto o = with_server("StatOurs", IBTOOL + " ibsysstat -S", probe(our_lid), clients(our_lid));
  ASSERT_TRUE(o.ready) << o.server_err;
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto& expect = r.clients[2 * i];  // reference against reference
    SCOPED_TRACE("op '" + ops[i] + "'");
    EXPECT_EQ(expect.status, 0) << expect.err;
    EXPECT_FALSE(expect.out.empty());
    // Our client, reference server.
    EXPECT_EQ(norm(r.clients[2 * i + 1].out), norm(expect.out)) << r.clients[2 * i + 1].err;
    EXPECT_EQ(r.clients[2 * i + 1].status, expect.status);
    // Reference client, our server; our client, our server.
    EXPECT_EQ(norm(o.clients[2 * i].out), norm(expect.out)) << o.clients[2 * i].err << o.server_err;
    EXPECT_EQ(o.clients[2 * i].status, expect.status);
    EXPECT_EQ(norm(o.clients[2 * i + 1].out), norm(expect.out)) << o.clients[2 * i + 1].err;
    EXPECT_EQ(o.clients[2 * i + 1].status, expect.status);
  }
  EXPECT_NE(r.clients[4].out.find('.'), std::string::npos);  // host.domain
  EXPECT_EQ(o.server_status, 0) << o.server_err;
  // --json (issue 15): the op and the server's text as the text run shows it.
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto& c = r.clients[2 * ops.size() + i];
    SCOPED_TRACE("--json op '" + ops[i] + "'");
    ASSERT_EQ(c.status, 0) << c.err;
    auto j = nlohmann::json::parse(c.out);
    EXPECT_EQ(j["LID"], std::stoul(ref_lid, nullptr, 0));
    EXPECT_EQ(j["op"], ops[i].empty() ? "ping" : ops[i]);
    if (i >= 2) EXPECT_EQ(j["reply"].get<std::string>() + "\n", r.clients[2 * i].out);
    else EXPECT_FALSE(j.contains("reply"));
  }
}

// -Y/--pkey-idx at the server (issue 13): ibping -S and ibsysstat -S answer
// on the path of the request, so a reply leaves with the P_Key index the
// request arrived with, whatever -Y the server itself was started with.
// The servers' -d trace shows both: "D: recv ... pkey_index N" and the
// "D: send ... pkey_index N" of its answer.  umad2sim hands every received
// MAD to the server with index 0 (a client's -Y 3 does not reach it), so on
// the simulator N is 0 against a server started with -Y 5; a request that
// arrives with another index is core_server_test's (a fake transport).
std::vector<std::pair<std::string, unsigned>> server_trace(const std::string& err) {
  std::vector<std::pair<std::string, unsigned>> v;
  std::regex line("^D: (recv|send) .* (from|to) lid \\d+ pkey_index (\\d+)$");
  std::istringstream in(err);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_match(l, m, line)) v.emplace_back(m[1].str(), unsigned(std::stoul(m[3])));
  }
  return v;
}

TEST_F(OfaE2E, ServersAnswerWithTheRequestsPKeyIndex) {
  std::string lid = lid_of("PKey");
  ASSERT_FALSE(lid.empty());
  struct Case {
    std::string server, probe, client;
  } cases[] = {
      {IBTOOL + " ibping -S -d -Y 5", "ibping -c 1 -t 200 " + lid + " | grep -q ', 1 received'",
       IBTOOL + " ibping -dd -c 2 -Y 3 " + lid},
      {IBTOOL + " ibsysstat -S -d --pkey-idx 5", "ibsysstat -t 200 " + lid, IBTOOL + " ibsysstat -dd -Y 3 " + lid + " host"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.server);
    auto r = with_server("PKey", c.server, c.probe, {c.client});
    ASSERT_TRUE(r.ready) << r.server_err;
    EXPECT_EQ(r.clients[0].status, 0) << r.clients[0].err;
    // The client sent with index 3 (its own -dd trace).
    EXPECT_NE(r.clients[0].err.find(" pkey_index 3\n"), std::string::npos) << r.clients[0].err;
    // Every request the server got was answered with the index it came with.
    auto t = server_trace(r.server_err);
    ASSERT_GE(t.size(), 4u) << r.server_err;  // the probe and the client, at least
    for (size_t i = 0; i + 1 < t.size(); i += 2) {
      EXPECT_EQ(t[i].first, "recv") << r.server_err;
      EXPECT_EQ(t[i + 1].first, "send") << r.server_err;
      EXPECT_EQ(t[i + 1].second, t[i].second) << r.server_err;
      EXPECT_NE(t[i + 1].second, 5u) << r.server_err;  // not the server's own -Y
    }
    EXPECT_EQ(r.server_status, 0) << r.server_err;
  }
}

}  // namespace
