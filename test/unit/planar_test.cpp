// Planarized HCAs (issue 13): one IB port shown as an SMI device and a GSI
// device (upstream libibumad since rdma-core v55): the pairing from the
// device list, SMPs through one device and GMPs through the other
// (SplitTransport, over two fake transports), and directed routes built
// from the forwarding tables where LID-routed SMPs are not valid
// (dr_path_to_lid, upstream's build_dr_path_to_lid), on an in-memory
// fabric of SMAs.
#include <gtest/gtest.h>

#include "core/transport/devices.h"
#include "core/rpc/rpc.h"
#include "core/rpc/target.h"
#include "core/transport/umad.h"
#include "iba/enums.h"
#include "iba/pm.h"
#include "iba/sa.h"
#include "test/unit/fake_smp_fabric.h"

namespace {

using coretest::FakeSmpFabric;
using coretest::FakeTransport;
using ibcore::Device;
using ibcore::EndPort;

Device device(const std::string& name, uint64_t port_guid, uint32_t capmask) {
  Device d;
  d.name = name;
  d.numports = 1;
  EndPort e;
  e.ca = name;
  e.port = 1;
  e.port_guid = port_guid;
  e.capmask = capmask;
  e.state = 4;
  d.ports.push_back(e);
  return d;
}

TEST(Planarized, TheDeviceListPairsSmiAndGsiByPortGuid) {
  const uint32_t sm_disabled = iba::enums::CAP_IS_SM_DISABLED;
  std::vector<Device> devs = {device("mlx5_0", 0x10, 0x2510868), device("mlx5_1", 0x10, 0x2510868 | sm_disabled),
                              device("mlx5_2", 0x20, 0x2510868)};
  for (int i : {0, 1}) {
    auto pair = ibcore::smi_gsi_pair(devs, devs[size_t(i)].ports[0]);
    ASSERT_TRUE(pair.split()) << i;
    EXPECT_EQ(pair.smi->ca, "mlx5_0");
    EXPECT_EQ(pair.gsi->ca, "mlx5_1");
  }
  auto plain = ibcore::smi_gsi_pair(devs, devs[2].ports[0]);
  EXPECT_FALSE(plain.split());
  EXPECT_EQ(plain.smi, &devs[2].ports[0]);
  // The same GUID twice without the SMI/GSI split: used as it is.
  std::vector<Device> odd = {device("a", 0x30, 0), device("b", 0x30, 0)};
  EXPECT_FALSE(ibcore::smi_gsi_pair(odd, odd[1].ports[0]).split());
}

// A fake device that answers every Get with an empty GetResp.
struct Echo : FakeTransport {
  explicit Echo(int agent) : agent_(agent) {
    responder = [](FakeTransport& t, const coretest::Sent& s) { t.reply(s); };
  }
  int client_agent(uint8_t, uint8_t) override { return agent_; }
  int agent_;
};

TEST(Planarized, SmpsGoThroughTheSmiDeviceGmpsThroughTheGsiDevice) {
  auto smi = std::make_unique<Echo>(0), gsi = std::make_unique<Echo>(0);  // both number their agents from 0
  Echo *s = smi.get(), *g = gsi.get();
  ibcore::SplitTransport t(std::move(smi), std::move(gsi));
  EXPECT_FALSE(t.lid_routed_smps());
  EXPECT_NE(t.client_agent(iba::mgmt::SUBN_LID_ROUTED, 1), t.client_agent(iba::mgmt::SUBN_ADM, 2));
  ibcore::MadTransactor mad(t);
  ibcore::IBPath p;
  p.DLID = 5;
  mad.SubnGet<iba::SMPNodeInfo>(p);
  ibcore::IBPath dr;
  dr.drPath = {0, 1};
  mad.SubnGet<iba::SMPNodeInfo>(dr);
  mad.SubnAdmGet<iba::SANodeRecord>(iba::SANodeRecord(), 0, &p);
  mad.PerformanceGet<iba::PMPortCounters>(p);
  ASSERT_EQ(s->sent.size(), 2u);
  ASSERT_EQ(g->sent.size(), 2u);
  for (auto& m : s->sent) EXPECT_TRUE(m.mad[1] == 0x01 || m.mad[1] == 0x81);
  EXPECT_EQ(g->sent[0].mad[1], iba::mgmt::SUBN_ADM);
  EXPECT_EQ(g->sent[1].mad[1], iba::mgmt::PERF);
}

// CA(local) -1- sw1 -3- sw2 -2- CA2, sw1 -4- CA3.
struct Line {
  FakeSmpFabric f;
  int ca, sw1, sw2, ca2, ca3;
  FakeTransport t;
  Line() {
    ca = f.add_ca("local", {10});
    sw1 = f.add_switch("sw1", 8, 1);
    sw2 = f.add_switch("sw2", 8, 2);
    ca2 = f.add_ca("ca2", {20});
    ca3 = f.add_ca("ca3", {30});
    f.link(ca, 1, sw1, 1);
    f.link(sw1, 3, sw2, 5);
    f.link(sw2, 2, ca2, 1);
    f.link(sw1, 4, ca3, 1);
    f.local = ca;
    t.responder = [this](FakeTransport& tt, const coretest::Sent& s) { f.answer(tt, s); };
  }
};

TEST(Planarized, DirectedRoutesToALidFollowTheForwardingTables) {
  Line l;
  ibcore::MadTransactor mad(l.t);
  EXPECT_EQ(ibcore::dr_path_to_lid(mad, 20).drPath, (std::vector<uint8_t>{0, 1, 3, 2}));
  EXPECT_EQ(ibcore::dr_path_to_lid(mad, 30).drPath, (std::vector<uint8_t>{0, 1, 4}));
  EXPECT_EQ(ibcore::dr_path_to_lid(mad, 2).drPath, (std::vector<uint8_t>{0, 1, 3}));
  EXPECT_EQ(ibcore::dr_path_to_lid(mad, 10).drPath, (std::vector<uint8_t>{0}));
  EXPECT_EQ(ibcore::dr_path_to_lid(mad, 20).drSLID, ibcore::LID_PERMISSIVE);
  // No switch has a route to LID 99: the error names the hop.
  try {
    ibcore::dr_path_to_lid(mad, 99);
    FAIL() << "no route expected";
  } catch (const ibcore::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no directed route to LID 99"), std::string::npos) << e.what();
  }
  // Every SMP of the walks was directed-route.
  for (auto& s : l.t.sent) EXPECT_EQ(s.mad[1], 0x81);
}

TEST(Planarized, ASplitPortResolvesLidTargetsToDirectedRoutes) {
  Line l;
  auto smi = std::make_unique<FakeTransport>();
  smi->responder = [&l](FakeTransport& t, const coretest::Sent& s) { l.f.answer(t, s); };
  ibcore::SplitTransport t(std::move(smi), std::make_unique<FakeTransport>());
  ibcore::MadTransactor mad(t);
  ibcore::IBPath target;
  target.DLID = 20;
  ibcore::IBPath r = ibcore::resolve_for_smp(mad, target);
  EXPECT_TRUE(r.is_dr());
  EXPECT_EQ(r.drPath, (std::vector<uint8_t>{0, 1, 3, 2}));
  auto ni = mad.SubnGet<iba::SMPNodeInfo>(r);
  EXPECT_EQ(ni.nodeGUID(), l.f.nodes[size_t(l.ca2)].guid);
}

}  // namespace
