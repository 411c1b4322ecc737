// Discovery under faults injected through ibsim's console (issue 6, "Done
// when"):
//   - ports dropping 10% of the MADs: discovery completes through resends
//     with exactly the result of the fault-free run;
//   - a link that vanishes after its port said LinkUp (the probe through it
//     is never answered): a clear warning naming the failed probe and the
//     correct partial result (the fabric without that link), in bounded time;
//   - a link removed by `Unlink` while a discovery runs: the run ends in
//     bounded time with the full result, the result without the link, or a
//     clear warning; never a hang or a crash.
// Every run has a hard time limit (the process group is killed after it), so
// a hang fails the test instead of stalling it.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <map>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "test/integration/ibtool_bin.h"
#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"
#include "test/topology_text.h"

namespace {

using Clock = std::chrono::steady_clock;

using ittest::ib;

// How many MADs a discovery resent, from its -v line on stderr
// ("I: discovery: N MADs sent for Q queries (R resent), T s"); -1 if absent.
long resent(const std::string& err) {
  const std::string key = "I: discovery: ";
  size_t p = err.find(key);
  if (p == std::string::npos) return -1;
  size_t q = err.find(" resent)", p);
  size_t o = err.rfind('(', q);
  if (q == std::string::npos || o == std::string::npos || o < p) return -1;
  return std::stol(err.substr(o + 1, q - o - 1));
}

struct Timed {
  testbed::Result r;
  double seconds = 0;
};

// A run with a hard limit: a hang is killed after limit seconds and fails.
Timed run_timed(const testbed::Fabric& f, const std::vector<std::string>& argv, double limit) {
  auto t0 = Clock::now();
  Timed t;
  t.r = f.run(argv, {}, limit);
  t.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return t;
}

// A fat tree (k=4: 16 hosts, 20 switches) shared by the tests of the suite;
// every test restores the faults it sets.  Clients attach to "host p0 e0 h0".
class DiscoveryFaults : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    testbed::FabricOptions o;
    o.tag = "discfaults";
    fabric_ = new testbed::Fabric(testbed::generate("fattree 4"), o);
    auto r = fabric_->run(ib({"ibnetdiscover", "-v"}));
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(resent(r.err), 0) << r.err;
    baseline_ = new std::string(testtext::without_time(r.out));
  }
  static void TearDownTestSuite() {
    delete fabric_;
    fabric_ = nullptr;
    delete baseline_;
    baseline_ = nullptr;
  }
  void SetUp() override { ASSERT_NE(fabric_, nullptr); }

  static testbed::Fabric* fabric_;
  static std::string* baseline_;  // fault-free ibnetdiscover, stripped
};
testbed::Fabric* DiscoveryFaults::fabric_ = nullptr;
std::string* DiscoveryFaults::baseline_ = nullptr;

// 10% of the MADs entering these ports are lost: switch ports on the way to
// two pods (so many requests and replies cross them) and a host port.  The
// engine resends a lost MAD (ibsim reports the loss at once, as a kernel
// reports a send that timed out), so the run is as fast as a clean one and
// its result identical; only the MAD count (resends included) grows.
TEST_F(DiscoveryFaults, LossyPortsGiveTheSameResultThroughResends) {
  auto& f = *fabric_;
  const std::vector<std::string> ports = {"\"agg p1 a0\"[1]", "\"edge p2 e1\"[3]", "\"core c1\"[4]",
                                          "\"host p3 e0 h1\"[1]"};
  for (auto& p : ports) ASSERT_EQ(f.console("Error " + p + " 10").find('#'), std::string::npos) << p;
  std::vector<Timed> runs;
  for (int i = 0; i < 3; ++i) runs.push_back(run_timed(f, ib({"ibnetdiscover", "-v"}), 60));
  for (auto& p : ports) f.console("Error " + p + " 0");
  long extra = 0;
  for (auto& t : runs) {
    ASSERT_FALSE(t.r.timed_out) << "discovery hung under 10% loss\n" << t.r.err;
    EXPECT_EQ(t.r.status, 0) << t.r.err;
    EXPECT_EQ(t.r.err.find("W: discovery"), std::string::npos) << t.r.err;
    long r = resent(t.r.err);
    EXPECT_GE(r, 0) << t.r.err;
    extra += r;
    EXPECT_EQ(testtext::without_time(t.r.out), *baseline_);
    EXPECT_LT(t.seconds, 30) << "a lossy discovery took " << t.seconds << " s";
  }
  std::cout << "[ INFO     ] " << extra << " MADs resent in 3 lossy discoveries\n";
  // Three runs of a few hundred MADs, a good share crossing a lossy port:
  // some were lost and resent (the faults were in effect).
  EXPECT_GT(extra, 0) << "no MAD was resent: were the faults applied?";
}

// Heavy loss (issue 16): 30% and 50% of the MADs entering a whole switch,
// then a CA's port, are lost.  ibnetdiscover, iblinkinfo, ibqueryerrors and
// dump_fts give exactly their clean-fabric output: every lost MAD is sent
// again (with enough --retries for the loss rate), and -v
// counts the resends.  The time of each run is printed.  ibsim counts the
// packets it drops as PortRcvErrors of the lossy ports, so ibqueryerrors
// rightly reports those ports, and only those (its counters are cleared
// after each round).
TEST_F(DiscoveryFaults, HeavyLossOnASwitchOrACaGivesTheCleanResult) {
  auto& f = *fabric_;
  const std::vector<std::string> cmds = {"ibnetdiscover", "iblinkinfo", "ibqueryerrors", "dump_fts"};
  std::map<std::string, std::string> clean;
  // Earlier tests' losses left error counts behind.
  ASSERT_EQ(f.run(ib({"ibclearerrors"}), {}, 60).status, 0);
  for (const auto& c : cmds) {
    auto r = f.run(ib({c}), {}, 60);
    ASSERT_EQ(r.status, 0) << c << ": " << r.err;
    clean[c] = testtext::without_time(r.out);
  }
  for (const std::string target : {"\"agg p1 a0\"", "\"host p3 e0 h1\"[1]"}) {
    std::string node = target.substr(1, target.find('"', 1) - 1);
    for (int rate : {30, 50}) {
      ASSERT_EQ(f.console("Error " + target + " " + std::to_string(rate)).find('#'), std::string::npos);
      // A MAD that crosses the switch twice (request, reply) gets through
      // one try in four at 50%: 40 resends leave it a 1e-5 chance to fail.
      std::string retries = rate >= 50 ? "40" : "20";
      long resends = 0;
      for (const auto& c : cmds) {
        Timed t = run_timed(f, ib({c, "-v", "--retries", retries}), 120);
        std::cout << "[ INFO     ] " << c << " with " << rate << "% loss at " << target << ": " << t.seconds
                  << " s, " << resent(t.r.err) << " MADs resent\n";
        EXPECT_FALSE(t.r.timed_out) << c << " hung";
        if (c == "ibqueryerrors") {
          // Errors only where the loss is; the rest as on the clean fabric.
          std::istringstream in(t.r.out);
          std::string line;
          int blocks = 0;
          while (std::getline(in, line))
            if (line.rfind("Errors for ", 0) == 0) {
              ++blocks;
              EXPECT_NE(line.find("\"" + node + "\""), std::string::npos) << line;
            }
          EXPECT_LE(blocks, 1) << t.r.out;
          EXPECT_EQ(t.r.status, blocks ? 1 : 0) << t.r.err;
          EXPECT_NE(t.r.out.find("## Summary: 36 nodes checked, " + std::to_string(blocks) + " bad nodes found"),
                    std::string::npos)
              << t.r.out;
        } else {
          EXPECT_EQ(t.r.status, 0) << c << ": " << t.r.err;
          EXPECT_EQ(testtext::without_time(t.r.out), clean[c]) << c << " with " << rate << "% loss at " << target;
        }
        long r = resent(t.r.err);
        EXPECT_GE(r, 0) << c << " -v does not count its resends: " << t.r.err;
        resends += std::max(r, 0L);
      }
      f.console("Error " + target + " 0");
      auto cl = f.run(ib({"ibclearerrors"}), {}, 60);
      EXPECT_EQ(cl.status, 0) << cl.err;
      EXPECT_GT(resends, 0) << "nothing was resent at " << rate << "% loss: were the faults applied?";
    }
  }
}

// The probe through a LinkUp port is never answered (every NodeInfo reaching
// the host's port is dropped): what discovery sees when a link goes away
// between reading a switch's PortInfo and probing through it.  Expected: a
// warning naming the failed probe, exit status 0, and exactly the topology
// ibnetdiscover prints once that link is really removed.
TEST_F(DiscoveryFaults, ProbeThroughVanishedLinkGivesWarningAndPartialResult) {
  auto& f = *fabric_;
  const std::string host = "\"host p3 e1 h0\"";
  ASSERT_EQ(f.console("Error " + host + "[1] 100 17").find('#'), std::string::npos);
  Timed t = run_timed(f, ib({"ibnetdiscover"}), 60);
  f.console("Error " + host + "[1] 0");
  ASSERT_FALSE(t.r.timed_out) << "discovery hung on an unanswered probe\n" << t.r.err;
  EXPECT_LT(t.seconds, 30);
  EXPECT_EQ(t.r.status, 0) << t.r.err;
  // The reference's line for the failed probe (ibtool's own, naming the
  // node, comes with -v).
  EXPECT_NE(t.r.err.find("./libibnetdisc/query_smp.c:186; umad (DR path slid 0; dlid 0; "), std::string::npos)
      << t.r.err;
  EXPECT_NE(t.r.err.find(" Attr 0x11:0) bad status 110; Connection timed out"), std::string::npos) << t.r.err;
  EXPECT_EQ(t.r.out.find("host p3 e1 h0"), std::string::npos) << "the unreachable host was listed";

  // The same fabric with that link removed: the expected partial result.
  f.console("Unlink " + host + "[1]");
  auto unlinked = f.run(ib({"ibnetdiscover"}), {}, 60);
  f.console("ReLink " + host + "[1]");
  ASSERT_EQ(unlinked.status, 0) << unlinked.err;
  EXPECT_EQ(testtext::without_time(t.r.out), testtext::without_time(unlinked.out));
  EXPECT_NE(testtext::without_time(unlinked.out), testtext::without_time(*baseline_));
  // And the fabric is whole again.
  auto again = f.run(ib({"ibnetdiscover"}), {}, 60);
  EXPECT_EQ(testtext::without_time(again.out), *baseline_);
}

// Every NodeDescription to one switch is lost: its other queries succeed, so
// the node stays in the result; the warning names what failed.
TEST_F(DiscoveryFaults, LostQueriesOfAKnownNodeAreReported) {
  auto& f = *fabric_;
  const std::string sw = "\"edge p2 e0\"";
  // Every port of the switch: a query is dropped where it enters.
  ASSERT_EQ(f.console("Error " + sw + " 100 16").find('#'), std::string::npos);
  Timed t = run_timed(f, ib({"ibnetdiscover"}), 60);
  f.console("Error " + sw + " 0");
  ASSERT_FALSE(t.r.timed_out) << t.r.err;
  EXPECT_EQ(t.r.status, 0) << t.r.err;
  EXPECT_NE(t.r.err.find(" Attr 0x10:0) bad status 110; Connection timed out"), std::string::npos) << t.r.err;
  // Everything else is there: the same number of nodes and links.
  auto count = [](const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(t.r.out, "\nSwitch\t"), count(*baseline_, "\nSwitch\t"));
  EXPECT_EQ(count(t.r.out, "\nCa\t"), count(*baseline_, "\nCa\t"));
  EXPECT_EQ(count(t.r.out, "\n["), count(*baseline_, "\n["));
}

// A link removed while a discovery runs: the discovery is slowed to one MAD
// in flight and the link (an edge switch's uplink in the last pod) is cut
// once ibsim lists the new client, after 0..5 more console round trips, so
// the cut falls at different points of the walk.  Depending on how far the
// walk got, the result is the whole fabric, the fabric without the link,
// or a partial result with a warning whose every line is true of one of
// the two (nothing made up); never a hang or a crash.  The expected results
// come from the reference ibnetdiscover (directed route only, so the SM's
// routing after each change does not matter to it).
TEST_F(DiscoveryFaults, LinkRemovedMidRunNeverHangs) {
  auto& f = *fabric_;
  const std::string cut = "\"edge p3 e1\"[3]";
  f.console("Unlink " + cut);
  auto unlinked = f.run({"ibnetdiscover"}, {}, 60);
  f.console("ReLink " + cut);
  auto whole = f.run({"ibnetdiscover"}, {}, 60);
  ASSERT_EQ(unlinked.status, 0) << unlinked.err;
  ASSERT_EQ(whole.status, 0) << whole.err;
  const std::string w = testtext::without_time(whole.out), u = testtext::without_time(unlinked.out);
  ASSERT_NE(w, u);
  ASSERT_EQ(testtext::without_time(fabric_->run(ib({"ibnetdiscover"}), {}, 60).out), w) << "ibtool and the reference differ";

  auto attached = [&] {
    std::string a = f.console("Attached");
    size_t n = 0;
    for (size_t p = a.find("Client "); p != std::string::npos; p = a.find("Client ", p + 1)) ++n;
    return n;
  };
  size_t before = attached();
  for (int delay = 0; delay < 6; ++delay) {
    // (-v: ibtool's own warning lines, which name the node of each failed
    // query, besides the reference's lines, which name only the path.)
    auto fut =
        std::async(std::launch::async, [&] { return run_timed(f, ib({"ibnetdiscover", "-o", "1", "-v"}), 60); });
    // Bounded waits: the console answers at once, and the discovery's own
    // time limit ends the loop too.
    auto deadline = Clock::now() + std::chrono::seconds(30);
    while (attached() <= before && Clock::now() < deadline &&
           fut.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready) {
    }
    for (int i = 0; i < delay; ++i) f.console("# a console round trip");
    f.console("Unlink " + cut);
    Timed t = fut.get();
    f.console("ReLink " + cut);

    ASSERT_FALSE(t.r.timed_out) << "discovery hung after a link was removed\n" << t.r.err;
    EXPECT_LT(t.seconds, 30);
    ASSERT_LT(t.r.status, 128) << "crashed\n" << t.r.err;
    std::string out = testtext::without_time(t.r.out);
    bool full = out == w, without = out == u;
    bool warned = t.r.err.find("W: discovery:") != std::string::npos ||
                  t.r.err.find("libibnetdisc/query_smp.c") != std::string::npos;
    std::cout << "[ INFO     ] cut after " << delay << " round trips: "
              << (full ? "whole fabric" : without ? "fabric without the link" : "partial")
              << (warned ? ", with warnings" : "") << ", " << t.seconds << " s\n";
    EXPECT_TRUE(full || without || warned) << "an unexplained result:\n" << out << "\nstderr:\n" << t.r.err;
    if (!full && !without) {
      // A line not in either result is only allowed for a port whose own
      // PortInfo was lost (a warning says so): its width and speed print
      // as unknown ("?????"), the link itself was found from its other end;
      // or in the block of a node a warning names, or naming that node (a
      // query of that node failed when the cut fell between its queries: a
      // switch whose PortInfo 0 was lost prints LID 0 and its ports' speeds
      // unknown, and its peers' lines show that LID 0).
      std::set<std::string> warned_nodes;  // "0000000000200007"
      for (size_t p = t.r.err.find("of node 0x"); p != std::string::npos; p = t.r.err.find("of node 0x", p + 1))
        warned_nodes.insert(t.r.err.substr(p + 10, 16));
      std::istringstream in(out);
      std::string line, block;  // block: the GUID of the node whose lines these are
      while (std::getline(in, line)) {
        if (line.empty()) {
          block.clear();
          continue;
        }
        if (line[0] == '#') continue;
        size_t q = line.find("\"S-");
        if (q == std::string::npos) q = line.find("\"H-");
        if (q == std::string::npos) q = line.find("\"R-");
        if (q != std::string::npos && line[0] != '[') block = line.substr(q + 3, 16);
        bool unknown_speed = line.size() > 5 && line.compare(line.size() - 5, 5, "?????") == 0 && warned;
        bool warned_block = !block.empty() && warned_nodes.count(block);
        for (const auto& g : warned_nodes) warned_block |= line.find("-" + g + "\"") != std::string::npos;
        EXPECT_TRUE(w.find(line + "\n") != std::string::npos || u.find(line + "\n") != std::string::npos ||
                    unknown_speed || warned_block)
            << "not in the fabric: " << line;
      }
      if (HasFailure()) std::cout << "this run:\n" << t.r.out << "\n" << t.r.err;
    }
  }
}

// Issue 38's fallback on the test bed: ibsim drops every SMP with DrSLID
// set ("dr[ds]lids are used (not supported)" in its log), so the trials of
// the hybrid form (each asking again a node the walk knows) get no answer:
// they time out, or the walk ends first and abandons them.  The run
// completes by directed routes, says so with -v, reports no failure, and
// prints what the reference prints.
TEST(HybridFallback, FirstHybridProbesFailAndTheWalkEndsByDirectedRoutes) {
  testbed::FabricOptions o;
  o.tag = "hybridfb";
  testbed::Fabric f(testbed::generate("fattree 8"), o);
  testbed::Result ours = f.run({IBTOOL_PATH, "ibnetdiscover", "-v"}, {}, 120);
  ASSERT_FALSE(ours.timed_out) << ours.err;
  ASSERT_EQ(ours.status, 0) << ours.err;
  EXPECT_TRUE(ours.err.find("I: discovery: routes: directed routes (hybrid routes: the first 3 timed out)") !=
                  std::string::npos ||
              ours.err.find("I: discovery: routes: directed routes (hybrid routes: no trial answered before the walk "
                            "ended)") != std::string::npos)
      << ours.err;
  EXPECT_EQ(ours.err.find("W: discovery"), std::string::npos) << ours.err;
  testbed::Result ref = f.run({"ibnetdiscover"}, {}, 120);
  ASSERT_EQ(ref.status, 0) << ref.err;
  EXPECT_EQ(testtext::without_time(ours.out), testtext::without_time(ref.out));
  // The same fabric by directed routes only (--discovery DR): no trial.
  testbed::Result dr = f.run({IBTOOL_PATH, "ibnetdiscover", "-v", "--discovery", "DR"}, {}, 120);
  ASSERT_EQ(dr.status, 0) << dr.err;
  EXPECT_NE(dr.err.find("routes: directed routes (hybrid routes: --discovery DR)"), std::string::npos) << dr.err;
  EXPECT_EQ(testtext::without_time(dr.out), testtext::without_time(ref.out));
}

}  // namespace
