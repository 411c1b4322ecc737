// Chassis grouping (ibnetdiscover -g) on an incomplete fabric: a node whose
// port has no peer (issue 13; upstream fixed a crash on it in rdma-core
// v63, "libibnetdisc: guard against NULL remoteport in chassis grouping").
#include <gtest/gtest.h>

#include "core/fabric/reforder.h"
#include "core/fabric/netprint.h"
#include "test/unit/subnet_test_fabric.h"

namespace {

using namespace ibcore;

// Node n's NodeInfo with another vendor and system image GUID.
void set_ids(Subnet& db, uint32_t n, uint32_t vendor, uint64_t sys) {
  auto& info = db.node(n).info;
  iba::SMPNodeInfo::set_vendorID_at(info.data(), vendor);
  iba::SMPNodeInfo::set_systemImageGUID_at(info.data(), sys);
}

TEST(ChassisGrouping, PortsWithoutPeersAreGroupedNotFollowed) {
  TestFabric f = TestFabric::two_switches();
  Subnet& db = f.db;
  // Two Xsigo CAs: their chassis is named by the leaf switch their port 1
  // leads to, and their port 1 has no link at all.
  uint32_t x1 = f.add(1, 2, 0x0013970200000010, 0x0013970200000011, "xsigo a");
  uint32_t x2 = f.add(1, 2, 0x0013970200000020, 0x0013970200000021, "xsigo b");
  for (uint32_t x : {x1, x2}) {
    set_ids(db, x, 0x1397, 0x0013970200000001);
    db.touch_port(x, 1, db.node(x).guid + 1);
    db.set_port_info(x, 1, TestFabric::pi(0, 0, false).bytes());
  }
  // Two switches of one chassis (same system image GUID), one of them with
  // a port whose peer is gone.
  set_ids(db, 0, 0x2c9, 0x0002c90000000aaa);
  set_ids(db, 1, 0x2c9, 0x0002c90000000aaa);
  db.node(x1).dr = {7};
  db.node(x2).dr = {8};
  db.set_reference(replay_reference(db));
  ChassisGrouping g = group_chassis(db);
  ASSERT_EQ(g.chassis_of.size(), db.node_count());
  EXPECT_NE(g.chassis_of[0], 0u);
  EXPECT_EQ(g.chassis_of[0], g.chassis_of[1]);
  // Without a peer the Xsigo CAs keep their own system GUID: one chassis.
  EXPECT_NE(g.chassis_of[x1], 0u);
  EXPECT_EQ(g.chassis_of[x1], g.chassis_of[x2]);
  NodeNameMap m;
  std::string t = topology_text(db, m);
  EXPECT_NE(t.find("xsigo a"), std::string::npos);
}

}  // namespace
