// The discovery tools whose behaviour comes from python-rdma (the reference
// no longer ships them), tested for what they mean on simulated fabrics:
//  - subnet_diff (ibdiscover.pl): the end ports, nodes, links, link rates and
//    LIDs that differ between two caches or a cache and the live fabric,
//    each difference made with ibsim's console (Unlink, Guid, Baselid) or by
//    a topology with a narrower link; nothing for identical subnets;
//  - ibprintca / ibprintswitch / ibprintrt: a node's block is the block the
//    reference ibnetdiscover prints for it; a missing node is an error;
//  - ibfindnodesusing: the LIDs routed over a link in each direction are the
//    ones the reference ibroute shows the two switches forwarding to it.
#include <gtest/gtest.h>
#include <signal.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test/integration/ibtool_bin.h"
#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

using Lines = std::vector<std::string>;

using ittest::ib;

Lines lines(const std::string& s) {
  Lines v;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l)) v.push_back(l);
  return v;
}

// net.2sw2path4hca as the testbed lays it out: Hca1 (0x100000) lid 1,
// Switch1 (0x200000) lid 2, Switch2 (0x200001) lid 3, Hca2 (0x100003, port
// GUID 0x100004) lid 4, Hca3 (0x100006, port 0x100007) lid 5, Hca4
// (0x100009, port 0x10000a) lid 6.
class Example : public ::testing::Test {
protected:
  void SetUp() override { f_ = std::make_unique<testbed::Fabric>(testbed::generate("example net.2sw2path4hca")); }
  std::unique_ptr<testbed::Fabric> f_;
};

TEST_F(Example, SubnetDiffIdenticalSubnetsReportNothing) {
  auto& f = *f_;
  ASSERT_EQ(f.run({"ibnetdiscover", "--cache", "ref.cache"}).status, 0);
  ASSERT_EQ(f.run(ib({"ibnetdiscover", "--cache", "ibtool.cache"})).status, 0);
  for (std::vector<std::string> a : {std::vector<std::string>{"subnet_diff", "ref.cache"},
                                     {"subnet_diff", "ibtool.cache"},
                                     {"subnet_diff", "ref.cache", "ibtool.cache"},
                                     {"ibdiscover.pl", "ibtool.cache", "ref.cache"}}) {
    auto r = f.run(ib(a));
    EXPECT_EQ(r.status, 0) << a[1] << " " << r.out << r.err;
    EXPECT_EQ(r.out, "") << a[1];
  }
  // Errors: a missing or foreign file is status 2 with one message.
  auto r = f.run(ib({"subnet_diff", "nonexistent.cache"}));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("nonexistent.cache"), std::string::npos) << r.err;
  ASSERT_EQ(f.sh("echo hello > junk").status, 0);
  r = f.run(ib({"subnet_diff", "ref.cache", "junk"}));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
}

TEST_F(Example, SubnetDiffAgainstTheLiveFabric) {
  auto& f = *f_;
  ASSERT_EQ(f.run({"ibnetdiscover", "--cache", "before.cache"}).status, 0);
  // A link gone: the node behind it, its end port and LID, the link.
  const Lines gone{"- node Ca 0x0000000000100009 \"Hca4\"",
                   "- end port 0x000000000010000a 0x0000000000100009 \"Hca4\"[1]",
                   "- LID 6 0x000000000010000a 0x0000000000100009 \"Hca4\"[1]",
                   "- link 0x0000000000100009 \"Hca4\"[1] <-> 0x0000000000200001 \"Switch2\"[2]"};
  f.console("Unlink \"Hca4\"[1]");
  auto r = f.run(ib({"subnet_diff", "before.cache"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_EQ(lines(r.out), gone) << r.out;
  // Save the new state; the two caches differ the same way, reversed when
  // given the other way round.
  ASSERT_EQ(f.run({"ibnetdiscover", "--cache", "after.cache"}).status, 0);
  r = f.run(ib({"ibdiscover.pl", "before.cache", "after.cache"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_EQ(lines(r.out), gone) << r.out;
  r = f.run(ib({"subnet_diff", "after.cache", "before.cache"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  Lines back;
  for (auto l : gone) back.push_back("+" + l.substr(1));
  EXPECT_EQ(lines(r.out), back) << r.out;
  f.console("Link \"Hca4\"[1] \"Switch2\"[2]");

  // OpenSM would put back the LIDs changed below (and give new GUIDs new
  // LIDs) at its next sweep: stop it, and discover by DR paths, which do
  // not depend on the LIDs.
  ASSERT_EQ(::kill(f.opensm_pid(), SIGKILL), 0);
  auto diff = [&] { return f.run(ib({"subnet_diff", "--discovery", "DR", "before.cache"})); };
  r = diff();
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "");

  // A LID changed: the old LID gone, the new one come, both the same port's.
  f.console("Baselid \"Hca2\"[1] 40");
  r = diff();
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_EQ(lines(r.out), (Lines{"- LID 4 0x0000000000100004 0x0000000000100003 \"Hca2\"[1]",
                                 "+ LID 40 0x0000000000100004 0x0000000000100003 \"Hca2\"[1]"}))
      << r.out;
  // LIDs swapped between two ports.
  f.console("Baselid \"Hca2\"[1] 5 0");
  f.console("Baselid \"Hca3\"[1] 4 0");
  r = diff();
  EXPECT_EQ(lines(r.out),
            (Lines{"~ LID 4 0x0000000000100004 0x0000000000100003 \"Hca2\"[1] -> 0x0000000000100007 0x0000000000100006 "
                   "\"Hca3\"[1]",
                   "~ LID 5 0x0000000000100007 0x0000000000100006 \"Hca3\"[1] -> 0x0000000000100004 0x0000000000100003 "
                   "\"Hca2\"[1]"}))
      << r.out;
  f.console("Baselid \"Hca2\"[1] 4 0");
  f.console("Baselid \"Hca3\"[1] 5 0");
  r = diff();
  EXPECT_EQ(r.out, "");

  // A node with other GUIDs: a node, its end port and its link gone and
  // come; its LID now another port GUID's.
  f.console("Guid \"Hca3\" 0x100030");
  r = diff();
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_EQ(lines(r.out),
            (Lines{"- node Ca 0x0000000000100006 \"Hca3\"", "+ node Ca 0x0000000000100030 \"Hca3\"",
                   "- end port 0x0000000000100007 0x0000000000100006 \"Hca3\"[1]",
                   "+ end port 0x0000000000100031 0x0000000000100030 \"Hca3\"[1]",
                   "~ LID 5 0x0000000000100007 0x0000000000100006 \"Hca3\"[1] -> 0x0000000000100031 0x0000000000100030 "
                   "\"Hca3\"[1]",
                   "- link 0x0000000000100006 \"Hca3\"[1] <-> 0x0000000000200000 \"Switch1\"[2]",
                   "+ link 0x0000000000100030 \"Hca3\"[1] <-> 0x0000000000200000 \"Switch1\"[2]"}))
      << r.out;
  f.console("Guid \"Hca3\" 0x100006");
  r = diff();
  EXPECT_EQ(r.out, "");

  // With an LMC every LID of the range counts.  (Last: ibsim's console
  // cannot set the LMC back to 0.)
  f.console("Baselid \"Hca2\"[1] 40 2");
  r = diff();
  EXPECT_EQ(lines(r.out), (Lines{"- LID 4 0x0000000000100004 0x0000000000100003 \"Hca2\"[1]",
                                 "+ LID 40 0x0000000000100004 0x0000000000100003 \"Hca2\"[1]",
                                 "+ LID 41 0x0000000000100004 0x0000000000100003 \"Hca2\"[1]",
                                 "+ LID 42 0x0000000000100004 0x0000000000100003 \"Hca2\"[1]",
                                 "+ LID 43 0x0000000000100004 0x0000000000100003 \"Hca2\"[1]"}))
      << r.out;
}

TEST(SubnetDiff, LinkRatesBetweenTwoCaches) {
  // The same fabric but for one link at 1X: its rate differs, nothing else.
  std::string wide_cache, narrow_cache;
  {
    testbed::Fabric w(testbed::generate("irregular-wide"));
    ASSERT_EQ(w.run({"ibnetdiscover", "--cache", "wide.cache"}).status, 0);
    wide_cache = w.dir() + "/wide.cache";
    testbed::Fabric n(testbed::generate("irregular"));
    ASSERT_EQ(n.run({"ibnetdiscover", "--cache", "narrow.cache"}).status, 0);
    ASSERT_EQ(n.sh("cp " + wide_cache + " wide.cache").status, 0);
    auto r = n.run(ib({"subnet_diff", "wide.cache", "narrow.cache"}));
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    auto l = lines(r.out);
    ASSERT_EQ(l.size(), 1u) << r.out;
    EXPECT_TRUE(std::regex_match(l[0], std::regex("~ rate 0x[0-9a-f]{16} \"(narrow link host|leaf switch with spare "
                                                  "ports)\"\\[[13]\\] <-> 0x[0-9a-f]{16} \"(narrow link host|leaf "
                                                  "switch with spare ports)\"\\[[13]\\] 4X 2.5 Gbps -> 1X 2.5 Gbps")))
        << l[0];
    // Live against the wide cache: the same line.
    r = n.run(ib({"subnet_diff", "wide.cache"}));
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_EQ(lines(r.out), l);
  }
}

// The block of one node in the reference ibnetdiscover output.
std::string ref_block(const std::string& topo, const std::string& header_id) {
  // Blocks are separated by blank lines; the one with the header line.
  std::istringstream in(topo);
  std::string l, cur;
  while (std::getline(in, l)) {
    if (l.empty()) {
      if (cur.find("\"" + header_id + "\"\t") != std::string::npos) return cur;
      cur.clear();
      continue;
    }
    if (l[0] == '#') continue;
    cur += l + "\n";
  }
  return cur.find("\"" + header_id + "\"\t") != std::string::npos ? cur : "";
}

TEST_F(Example, PrintBlocksAreTheReferenceTopologyBlocks) {
  auto& f = *f_;
  auto topo = f.run({"ibnetdiscover"});
  ASSERT_EQ(topo.status, 0);
  struct Case {
    std::vector<std::string> args;
    std::string id;
  };
  for (const Case& c : std::vector<Case>{{{"ibprintca", "Hca2"}, "H-0000000000100003"},
                                         {{"ibprintca", "0x100003"}, "H-0000000000100003"},
                                         {{"ibprintca.pl", "0x0000000000100004"}, "H-0000000000100003"},
                                         {{"ibprintca", "Hca1"}, "H-0000000000100000"},
                                         {{"ibprintswitch", "Switch2"}, "S-0000000000200001"},
                                         {{"ibprintswitch.pl", "0x200000"}, "S-0000000000200000"},
                                         {{"ibprintca", "4"}, "H-0000000000100003"},
                                         {{"ibprintswitch", "0,1"}, "S-0000000000200000"}}) {
    auto r = f.run(ib(c.args));
    std::string want = ref_block(topo.out, c.id);
    ASSERT_NE(want, "") << c.id;
    EXPECT_EQ(r.status, 0) << c.args[1] << r.err;
    EXPECT_EQ(r.out, want) << c.args[0] << " " << c.args[1];
  }
  // Lists: the reference ibnetdiscover -H / -S lines.
  auto r = f.run(ib({"ibprintca", "-l"}));
  EXPECT_EQ(r.out, f.run({"ibnetdiscover", "-H"}).out);
  r = f.run(ib({"ibprintswitch", "-l"}));
  EXPECT_EQ(r.out, f.run({"ibnetdiscover", "-S"}).out);
  r = f.run(ib({"ibprintrt", "-l"}));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "");
  // Missing nodes and nodes of another type: an error, nothing on stdout.
  for (std::vector<std::string> a : {std::vector<std::string>{"ibprintca", "0xdeadbeef"},
                                     {"ibprintca", "NoSuchHost"},
                                     {"ibprintca", "Switch1"},
                                     {"ibprintswitch", "Hca2"},
                                     {"ibprintrt", "Hca2"},
                                     {"ibprintrt", "0x100003"}}) {
    r = f.run(ib(a));
    EXPECT_EQ(r.status, 1) << a[0] << " " << a[1];
    EXPECT_EQ(r.out, "") << a[0] << " " << a[1];
    EXPECT_NE(r.err.find(a[1] + " not found"), std::string::npos) << r.err;
  }
}

// LIDs the reference ibroute shows a switch forwarding out of port.
std::set<int> lft_lids(const testbed::Fabric& f, const std::string& switch_lid, int port) {
  auto r = f.run({"ibroute", switch_lid});
  std::set<int> s;
  std::regex re("^0x([0-9a-f]{4}) ([0-9]{3}) :");
  for (const auto& l : lines(r.out)) {
    std::smatch m;
    if (std::regex_search(l, m, re) && std::stoi(m[2]) == port) s.insert(std::stoi(m[1], nullptr, 16));
  }
  return s;
}

// The "  lid N" lines of each block of an ibfindnodesusing output.
std::vector<std::set<int>> found_lids(const std::string& out) {
  std::vector<std::set<int>> v;
  std::regex re("^  lid ([0-9]+) ");
  for (const auto& l : lines(out)) {
    if (l.rfind("Switch ", 0) == 0) v.emplace_back();
    std::smatch m;
    if (!v.empty() && std::regex_search(l, m, re)) v.back().insert(std::stoi(m[1]));
  }
  return v;
}

TEST_F(Example, FindNodesUsingFollowsTheForwardingTables) {
  auto& f = *f_;
  // Each inter-switch link, in both directions, against the LFTs.
  for (int port : {3, 5}) {
    auto r = f.run(ib({"ibfindnodesusing", "Switch1", std::to_string(port)}));
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_EQ(r.out.find("Switch 0x0000000000200000 \"Switch1\" port " + std::to_string(port) +
                         " -> 0x0000000000200001 \"Switch2\" port " + std::to_string(port) + ":\n"),
              0u)
        << r.out;
    auto blocks = found_lids(r.out);
    ASSERT_EQ(blocks.size(), 2u) << r.out;
    EXPECT_EQ(blocks[0], lft_lids(f, "2", port)) << r.out;
    EXPECT_EQ(blocks[1], lft_lids(f, "3", port)) << r.out;
    // Together the two links carry every LID across, each one way once.
    EXPECT_FALSE(blocks[0].empty() && blocks[1].empty());
  }
  auto a = found_lids(f.run(ib({"ibfindnodesusing", "Switch1", "3"})).out);
  auto b = found_lids(f.run(ib({"ibfindnodesusing", "Switch1", "5"})).out);
  std::set<int> to_switch2, to_switch1;
  to_switch2.insert(a[0].begin(), a[0].end());
  to_switch2.insert(b[0].begin(), b[0].end());
  to_switch1.insert(a[1].begin(), a[1].end());
  to_switch1.insert(b[1].begin(), b[1].end());
  EXPECT_EQ(to_switch2, (std::set<int>{3, 4, 6}));  // Switch2, Hca2, Hca4
  EXPECT_EQ(to_switch1, (std::set<int>{1, 2, 5}));  // Hca1, Switch1, Hca3
  // The switch by LID or DR path, as any target.
  auto by_name = f.run(ib({"ibfindnodesusing", "Switch1", "3"}));
  EXPECT_EQ(f.run(ib({"ibfindnodesusing", "2", "3"})).out, by_name.out);
  EXPECT_EQ(f.run(ib({"ibfindnodesusing.pl", "0,1", "3"})).out, by_name.out);
  // A link to a CA: one direction only, the CA's LID.
  auto r = f.run(ib({"ibfindnodesusing", "0x200001", "1"}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto blocks = found_lids(r.out);
  ASSERT_EQ(blocks.size(), 1u) << r.out;
  EXPECT_EQ(blocks[0], (std::set<int>{4}));
  EXPECT_NE(r.out.find("  lid 4 0x0000000000100004 \"Hca2\" port 1\n"), std::string::npos) << r.out;
  // Errors.
  for (std::vector<std::string> e : {std::vector<std::string>{"ibfindnodesusing", "NoSuchSwitch", "1"},
                                     {"ibfindnodesusing", "Hca2", "1"},
                                     {"ibfindnodesusing", "Switch1", "9"},
                                     {"ibfindnodesusing", "Switch1", "0"}}) {
    r = f.run(ib(e));
    EXPECT_EQ(r.status, 1) << e[1] << " " << e[2];
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err, "");
  }
}

}  // namespace
