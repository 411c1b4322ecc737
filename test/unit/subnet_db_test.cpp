// The subnet database: building, lookups (GUID, LID with LMC, DR path) and
// the replay of the reference's discovery order.
#include <gtest/gtest.h>

#include "core/fabric/reforder.h"
#include "core/fabric/netprint.h"
#include "core/fabric/subnet.h"
#include "test/unit/subnet_test_fabric.h"
#include "test/topology_text.h"

using namespace ibcore;

TEST(SubnetDb, BuildAndLookups) {
  TestFabric f = TestFabric::two_switches();
  const Subnet& db = f.db;
  ASSERT_EQ(db.node_count(), 4u);
  uint32_t s1 = db.node_by_guid(0x200000);
  uint32_t h2 = db.node_by_guid(0x100003);
  ASSERT_NE(s1, NO_INDEX);
  ASSERT_NE(h2, NO_INDEX);
  EXPECT_EQ(db.node_by_guid(0xdead), NO_INDEX);
  EXPECT_TRUE(db.node(s1).is_switch());
  EXPECT_EQ(db.node(s1).smalid, 1);
  // Switch ports carry the port 0 LID.
  EXPECT_EQ(db.port(db.node(s1), 3).base_lid, 1);
  // Port GUID lookups: switch -> port 0, CA -> that port.
  EXPECT_EQ(db.port_by_guid(0x200000), db.port_index(s1, 0));
  EXPECT_EQ(db.port_by_guid(0x100005), db.port_index(h2, 2));
  // LIDs: the CA port 2 has LMC 1, so LIDs 6 and 7 are its.
  EXPECT_EQ(db.port_by_lid(6), db.port_index(h2, 2));
  EXPECT_EQ(db.port_by_lid(7), db.port_index(h2, 2));
  EXPECT_EQ(db.port_by_lid(1), db.port_index(s1, 0));
  EXPECT_EQ(db.port_by_lid(99), NO_INDEX);
  // DR: from the start switch out of port 3 to switch 2, then port 2 to Hca2.
  std::vector<uint8_t> hops{3, 2};
  EXPECT_EQ(db.port_by_dr(hops), db.port_index(h2, 2));
  std::vector<uint8_t> nowhere{7};
  EXPECT_EQ(db.port_by_dr(nowhere), NO_INDEX);
  // Links are symmetric.
  const Port& p = db.port(db.node(s1), 3);
  ASSERT_NE(db.peer(p), nullptr);
  EXPECT_EQ(db.peer(*db.peer(p)), &p);
}

TEST(SubnetDb, ReferenceOrderIsReverseOfTheReplayedQueue) {
  TestFabric f = TestFabric::two_switches();
  Subnet& db = f.db;
  db.set_reference(replay_reference(db, true));
  // The reference creates Switch1, Hca1, Switch2, Hca2 and lists each type
  // newest first.
  auto sw = db.reference_order(NodeType::Switch);
  ASSERT_EQ(sw.size(), 2u);
  EXPECT_EQ(db.node(sw[0]).guid, 0x200001u);
  EXPECT_EQ(db.node(sw[1]).guid, 0x200000u);
  auto ca = db.reference_order(NodeType::CA);
  ASSERT_EQ(ca.size(), 2u);
  EXPECT_EQ(db.node(ca[0]).guid, 0x100003u);
  EXPECT_EQ(db.node(ca[1]).guid, 0x100000u);
  auto all = db.reference_order();
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(db.node(all[0]).guid, 0x100003u);
  EXPECT_EQ(db.node(all[3]).guid, 0x200000u);
  EXPECT_EQ(db.reference().max_hops, 2u);
  // The progress lines of -s, in the reference's order.
  ASSERT_FALSE(db.reference().progress.empty());
  EXPECT_EQ(db.reference().progress[0],
            "DR path slid 0; dlid 0; 0 -> new Switch {0000000000200000} portnum 0 lid 0-0 \"\"");
  EXPECT_EQ(db.reference().progress[1],
            "DR path slid 0; dlid 0; 0,1 -> new Channel Adapter {0000000000100000} portnum 1 lid 0-0 \"\"");
}

TEST(SubnetDb, OrderDoesNotDependOnInsertionOrder) {
  // The same fabric built in another order prints the same topology.
  TestFabric a = TestFabric::two_switches(false);
  TestFabric b = TestFabric::two_switches(true);
  a.db.set_reference(replay_reference(a.db));
  b.db.set_reference(replay_reference(b.db));
  NodeNameMap m;
  std::string ta = topology_text(a.db, m), tb = topology_text(b.db, m);
  EXPECT_EQ(testtext::without_time(ta), testtext::without_time(tb));
  EXPECT_NE(ta.find("Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 lid 3 lmc 0\n"), std::string::npos);
}

TEST(SubnetDb, FormatHelpers) {
  EXPECT_STREQ(width_compat(2), "4x");
  EXPECT_STREQ(width_compat(3), "??");
  EXPECT_STREQ(speed_compat(4), "QDR");
  EXPECT_STREQ(speed_compat(0), "???");
}

TEST(NodeNameMap, ReferenceSyntax) {
  NodeNameMap m;
  ASSERT_TRUE(m.parse("# comment\n"
                      "0x0002c90000000001 \"quoted name\" # trailing\n"
                      "  0x10 plain name#c\n"
                      "17\t\"first\"\n"
                      "0x11 \"second wins not\"\n"
                      "\n"));
  EXPECT_EQ(m.remap(0x0002c90000000001ull, "x"), "quoted name");
  EXPECT_EQ(m.remap(0x10, "x"), "plain name");
  EXPECT_EQ(m.remap(17, "x"), "first");
  EXPECT_EQ(m.remap(0x99, std::string("a\tb\0c", 5)), "a b");
  std::string bad;
  NodeNameMap m2;
  EXPECT_FALSE(m2.parse("0x1zz name\n", &bad));
  EXPECT_EQ(bad, "0x1zz name");
}

TEST(SubnetDb, ReferenceDrPathsFollowParentLinks) {
  TestFabric f = TestFabric::two_switches();
  Subnet& db = f.db;
  uint32_t s1 = db.node_by_guid(0x200000), s2 = db.node_by_guid(0x200001), h2 = db.node_by_guid(0x100003);
  // Before the replay nothing is known.
  EXPECT_FALSE(db.ref_dr(s2).has_value());
  EXPECT_EQ(db.ref_dr_string(s2), "");
  db.set_reference(replay_reference(db, false));  // no progress text needed
  ASSERT_TRUE(db.ref_dr(s1).has_value());
  EXPECT_TRUE(db.ref_dr(s1)->empty());
  EXPECT_EQ(db.ref_dr_string(s1), "0");
  EXPECT_EQ(db.ref_dr_string(s2), "0,3");
  EXPECT_EQ(db.reference().parent[s2], db.port_index(s1, 3));
  // Hca2 is first reached through Switch2's port 1 (its PortInfo 1 is
  // handled before PortInfo 2).
  EXPECT_EQ(db.ref_dr_string(h2), "0,3,1");
  EXPECT_EQ(*db.ref_dr(h2), (std::vector<uint8_t>{3, 1}));
  // The same paths the progress lines name.
  db.set_reference(replay_reference(db, true));
  for (const std::string& l : db.reference().progress) {
    if (l.find(" -> new ") == std::string::npos) continue;
    uint64_t guid = std::stoull(l.substr(l.find('{') + 1, 16), nullptr, 16);
    std::string path = l.substr(std::string("DR path slid 0; dlid 0; ").size());
    path = path.substr(0, path.find(' '));
    EXPECT_EQ(db.ref_dr_string(db.node_by_guid(guid)), path) << l;
  }
}
