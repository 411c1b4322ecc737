// The replay of the reference's partial scans (core/fabric/partialscan.h) on the
// hand-built two-switch fabric: hop limits counted from the start, the
// start switch probing every port, a DR route not extended through a CA,
// and nodes listed in the reference's creation order.
#include <gtest/gtest.h>

#include "core/fabric/reforder.h"
#include "subnet_test_fabric.h"
#include "core/base/error.h"
#include "core/fabric/partialscan.h"

namespace {

using ibcore::NO_INDEX;

const ibcore::Port* peer_of(const ibcore::Subnet& s, uint64_t guid, unsigned port) {
  uint32_t n = s.node_by_guid(guid);
  if (n == NO_INDEX) return nullptr;
  return s.peer(s.port(s.node(n), port));
}

std::vector<uint64_t> newest_first(const ibcore::Subnet& s) {
  std::vector<uint64_t> v;
  for (uint32_t i : s.reference_order()) v.push_back(s.node(i).guid);
  return v;
}

constexpr uint64_t S1 = 0x200000, S2 = 0x200001, H1 = 0x100000, H2 = 0x100003;

TEST(PartialScan, WithoutLimitItIsTheWholeFabricInTheReferenceOrder) {
  TestFabric f = TestFabric::two_switches();
  f.db.set_reference(ibcore::replay_reference(f.db));
  ibcore::Subnet p = ibcore::replay_partial_scan(f.db, {});
  EXPECT_EQ(newest_first(p), newest_first(f.db));
  ASSERT_NE(peer_of(p, S2, 2), nullptr);
  EXPECT_EQ(p.reference().max_hops, 2u);
}

TEST(PartialScan, OneHopStopsOnceTheHopCountPassedTheLimit) {
  TestFabric f = TestFabric::two_switches();
  ibcore::PartialScan ps;
  ps.max_hops = 1;
  ibcore::Subnet p = ibcore::replay_partial_scan(f.db, ps);
  // Switch2's port 1 is probed while the largest hop count is still 1; its
  // answer makes it 2, so port 2 is not probed.
  EXPECT_EQ(p.node_count(), 4u);
  ASSERT_NE(peer_of(p, S2, 1), nullptr);
  EXPECT_EQ(peer_of(p, S2, 2), nullptr);
  EXPECT_TRUE(p.port(p.node(p.node_by_guid(S2)), 2).has_info);  // its PortInfo was read
  EXPECT_EQ(newest_first(p), (std::vector<uint64_t>{H2, S2, H1, S1}));
}

TEST(PartialScan, ADirectedStartProbesItsEntryPortToo) {
  TestFabric f = TestFabric::two_switches();
  ibcore::PartialScan ps;
  ps.start_hops = {3};
  ps.max_hops = 1;
  ibcore::Subnet p = ibcore::replay_partial_scan(f.db, ps);
  EXPECT_EQ(p.node(p.from_node).guid, S2);
  // Switch1 is found through Switch2's port 3 (entered by its port 3), and
  // Switch1's port 1 is the one probe past the limit.
  const ibcore::Port* r = peer_of(p, S2, 3);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->num, 3u);
  ASSERT_NE(peer_of(p, S1, 1), nullptr);
  EXPECT_EQ(peer_of(p, S1, 2), nullptr);
  ASSERT_NE(peer_of(p, S1, 5), nullptr);  // found from Switch2's side
  EXPECT_EQ(newest_first(p), (std::vector<uint64_t>{H1, S1, H2, S2}));
}

TEST(PartialScan, ACaStartOneHopAwayGetsNoAnswerThroughItself) {
  TestFabric f = TestFabric::two_switches();
  ibcore::PartialScan ps;
  ps.start_hops = {1};
  ibcore::Subnet p = ibcore::replay_partial_scan(f.db, ps);
  EXPECT_EQ(p.node_count(), 1u);
  EXPECT_EQ(p.node(p.from_node).guid, H1);
  EXPECT_EQ(peer_of(p, H1, 1), nullptr);
}

TEST(PartialScan, ACaStartFurtherAwayStepsBackEachTimeItIsMet) {
  TestFabric f = TestFabric::two_switches();
  ibcore::PartialScan ps;
  ps.start_hops = {3, 1};  // Hca2 through Switch2's port 1
  ps.max_hops = 1;
  ibcore::Subnet p = ibcore::replay_partial_scan(f.db, ps);
  // The step back links Hca2:1 to the port the route entered Switch2 by
  // (3); Switch2's probe of port 1 meets Hca2 again, which steps back again
  // (the last link wins) and passes the hop limit, so Switch1 probes nothing.
  const ibcore::Port* r = peer_of(p, H2, 1);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->num, 3u);
  EXPECT_EQ(peer_of(p, S2, 1), nullptr);
  ASSERT_NE(peer_of(p, S2, 5), nullptr);
  EXPECT_EQ(peer_of(p, S1, 1), nullptr);
  EXPECT_EQ(newest_first(p), (std::vector<uint64_t>{S1, S2, H2}));
}

TEST(PartialScan, ALidRoutedCaStartStaysAlone) {
  TestFabric f = TestFabric::two_switches();
  ibcore::PartialScan ps;
  ps.start_port = f.db.port_by_guid(0x100004);  // Hca2 port 1
  ASSERT_NE(ps.start_port, NO_INDEX);
  ibcore::Subnet p = ibcore::replay_partial_scan(f.db, ps);
  EXPECT_EQ(p.node_count(), 1u);
  EXPECT_TRUE(p.port(p.node(p.from_node), 1).has_info);
}

TEST(PartialScan, ARouteLeavingTheFabricIsAnError) {
  TestFabric f = TestFabric::two_switches();
  ibcore::PartialScan ps;
  ps.start_hops = {4};  // a down port
  EXPECT_THROW(ibcore::replay_partial_scan(f.db, ps), ibcore::Error);
}

}  // namespace
