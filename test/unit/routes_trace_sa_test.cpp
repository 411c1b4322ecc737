// ibtracert's route walk (core/fabric/routes.h Tracer) through the SA (--sa)
// against a fake transport that plays an SA: not one SMP may leave, the
// port each hop enters by comes from the LinkRecords (the NodeRecord of a
// switch names the port the SM came in by, which the fake makes differ),
// an LFT block the SA has no record of is unrouted, and the multicast walk
// follows the MFT records.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core_fake_transport.h"
#include "core/base/config.h"
#include "core/fabric/routes.h"
#include "core/rpc/satransactor.h"
#include "iba/sa.h"
#include "sa_test_helpers.h"

namespace {

using coretest::be16;
using coretest::be64;
using coretest::cm;
using coretest::FakeTransport;
using coretest::Sent;

// H1 (CA, lid 1, port 1; we are here) -- port 1 of switch A (lid 2);
// A port 4 -- port 6 of switch B (lid 3); B port 2 -- port 2 of H2 (CA,
// lid 5, two ports; port 1 down).  MLID 0xc001 spans H1, A, B and H2.
struct TraceSA {
  struct NodeDef {
    uint8_t type, nports, sm_port;  // sm_port: the NodeRecord's localPortNum
    uint64_t guid, port_guid;
    const char* desc;
    std::map<unsigned, uint8_t> lft;            // LID -> port (block 0 only)
    std::map<unsigned, uint16_t> mft;           // MLID -> port mask (position 0)
  };
  std::map<uint16_t, NodeDef> nodes{
      {1, {1, 2, 1, 0x100, 0x101, "H1", {}, {}}},
      {2, {2, 8, 7, 0xa00, 0xa00, "A", {{1, 1}, {2, 0}, {3, 4}, {5, 4}, {6, 4}}, {{0xc001, 0x12}}}},
      {3, {2, 8, 7, 0xb00, 0xb00, "B", {{1, 6}, {2, 6}, {3, 0}, {5, 2}, {6, 2}}, {{0xc001, 0x44}}}},
      {5, {1, 2, 2, 0x500, 0x502, "H2", {}, {}}},
  };
  // (from LID, from port) -> (to LID, to port)
  std::map<std::pair<uint16_t, uint8_t>, std::pair<uint16_t, uint8_t>> links{
      {{1, 1}, {2, 1}}, {{2, 1}, {1, 1}}, {{2, 4}, {3, 6}}, {{3, 6}, {2, 4}}, {{3, 2}, {5, 2}}, {{5, 2}, {3, 2}},
  };
  int smps = 0, queries = 0;

  void reply(FakeTransport& t, const Sent& s, const uint8_t* rec, size_t size) {
    t.inbox.push_back(coretest::sa_reply(s.mad, rec, size));
  }

  void answer(FakeTransport& t, const Sent& s) {
    const uint8_t* m = s.mad.data();
    if (m[1] != 0x03) {
      ++smps;
      return;  // an SMP is never answered: it must not be sent
    }
    ++queries;
    uint16_t attr = be16(m + 16);
    uint64_t mask = be64(m + 48);
    const uint8_t* q = m + 56;
    if (attr == 0x0020) {  // LinkRecord (a GetTable)
      iba::SALinkRecord in;
      in.load({q, in.SIZE});
      EXPECT_EQ(mask, cm(in.DESC, "fromLID") | cm(in.DESC, "fromPort"));
      auto it = links.find({uint16_t(in.fromLID()), uint8_t(in.fromPort())});
      if (it == links.end()) return reply(t, s, nullptr, in.SIZE);
      in.set_toLID(it->second.first).set_toPort(it->second.second);
      return reply(t, s, in.raw(), in.SIZE);
    }
    if (attr == 0x0011) {  // NodeRecord
      iba::SANodeRecord in;
      in.load({q, in.SIZE});
      auto it = nodes.find(uint16_t(in.LID()));
      if (it == nodes.end()) return reply(t, s, nullptr, in.SIZE);
      const NodeDef& n = it->second;
      iba::SMPNodeInfo ni;
      ni.set_nodeType(n.type).set_numPorts(n.nports).set_localPortNum(n.sm_port);
      ni.set_nodeGUID(n.guid).set_portGUID(n.port_guid);
      iba::SMPNodeDescription nd;
      nd.set_nodeString(n.desc);
      in.set_nodeInfo(ni).set_nodeDescription(nd);
      return reply(t, s, in.raw(), in.SIZE);
    }
    if (attr == 0x0012) {  // PortInfoRecord
      iba::SAPortInfoRecord in;
      in.load({q, in.SIZE});
      EXPECT_TRUE(mask & cm(in.DESC, "portNum"));
      iba::SMPPortInfo pi;
      pi.set_LID(in.endportLID()).set_LMC(in.endportLID() == 5 ? 1 : 0).set_localPortNum(in.portNum());
      in.set_portInfo(pi);
      return reply(t, s, in.raw(), in.SIZE);
    }
    if (attr == 0x0015) {  // LFT record: block 0 of a switch only
      iba::SALinearForwardingTableRecord in;
      in.load({q, in.SIZE});
      auto it = nodes.find(uint16_t(in.LID()));
      if (it == nodes.end() || it->second.type != 2 || in.blockNum() != 0) return reply(t, s, nullptr, in.SIZE);
      iba::SMPLinearForwardingTable l;
      for (size_t i = 0; i < 64; ++i) l.set_portBlock(i, uint64_t(ibcore::LFT_NO_ROUTE));
      for (auto [lid, port] : it->second.lft) l.set_portBlock(lid, port);
      in.set_linearForwardingTable(l);
      return reply(t, s, in.raw(), in.SIZE);
    }
    if (attr == 0x0017) {  // MFT record: only blocks a group uses
      iba::SAMulticastForwardingTableRecord in;
      in.load({q, in.SIZE});
      auto it = nodes.find(uint16_t(in.LID()));
      if (it == nodes.end() || it->second.mft.empty() || in.blockNum() != 0 || in.position() != 0)
        return reply(t, s, nullptr, in.SIZE);
      iba::SMPMulticastForwardingTable f;
      for (auto [mlid, mask_] : it->second.mft) f.set_portMaskBlock(mlid - ibcore::MLID_BASE, mask_);
      in.set_multicastForwardingTable(f);
      return reply(t, s, in.raw(), in.SIZE);
    }
    reply(t, s, nullptr, 8);
  }
};

struct Local : FakeTransport {
  uint16_t local_lid() const override { return 1; }
};

struct TraceThroughSA : ::testing::Test {
  Local t;
  TraceSA sa;
  void SetUp() override {
    t.settings().timeout_ms = 5;
    t.settings().retries = 0;
    t.responder = [this](FakeTransport& tr, const Sent& s) { sa.answer(tr, s); };
  }
  // (node GUID, port entered by, port left by) of each hop.
  static std::vector<std::tuple<uint64_t, unsigned, unsigned>> hops(const ibcore::TraceResult& r) {
    std::vector<std::tuple<uint64_t, unsigned, unsigned>> v;
    for (const auto& n : r.nodes) v.emplace_back(uint64_t(n.ni.nodeGUID()), n.inport, n.outport);
    return v;
  }
};

using Hops = std::vector<std::tuple<uint64_t, unsigned, unsigned>>;

TEST_F(TraceThroughSA, UnicastEntersByTheLinkRecordsPortsAndSendsNoSMP) {
  ibcore::MadTransactor mad(t);
  ibcore::SmpSource src(mad, true);
  ibcore::Tracer tr(src);
  ibcore::TraceNode local = tr.node_at({0});
  EXPECT_EQ(local.inport, 1u);
  EXPECT_EQ(local.lid, 1u);
  ibcore::TraceResult r = tr.unicast(local, 6);  // in H2's LMC range (5-6)
  ASSERT_EQ(r.status, ibcore::TraceStatus::Found) << r.detail;
  // The switches' NodeRecords say port 7: the route enters them by 1 and 6.
  EXPECT_EQ(hops(r), (Hops{{0x100, 1, 1}, {0xa00, 1, 4}, {0xb00, 6, 2}, {0x500, 2, 0}}));
  EXPECT_EQ(r.nodes[1].lid, 2u);
  EXPECT_EQ(r.nodes[2].desc, "B");
  EXPECT_EQ(r.nodes[3].lid, 5u);
  EXPECT_EQ(r.nodes[3].lmc, 1u);
  EXPECT_EQ(uint64_t(r.nodes[3].ni.portGUID()), 0x502u);
  EXPECT_EQ(sa.smps, 0);

  // Back from H2: it leaves by the port it was entered by.
  ibcore::TraceNode h2 = r.nodes.back();
  ibcore::TraceResult back = tr.unicast(h2, 1);
  ASSERT_EQ(back.status, ibcore::TraceStatus::Found) << back.detail;
  EXPECT_EQ(hops(back), (Hops{{0x500, 2, 2}, {0xb00, 2, 6}, {0xa00, 4, 1}, {0x100, 1, 0}}));
  EXPECT_EQ(sa.smps, 0);
}

TEST_F(TraceThroughSA, NoRecordOfTheBlockIsNoRoute) {
  ibcore::MadTransactor mad(t);
  ibcore::SmpSource src(mad, true);
  ibcore::Tracer tr(src);
  ibcore::TraceNode local = tr.node_at({0});
  // LID 70 lies in block 1, past the switches' tables: the SA has no
  // record, the SMP would read 0xff.  LID 9 is in block 0 but unrouted.
  for (unsigned lid : {70u, 9u}) {
    ibcore::TraceResult r = tr.unicast(local, lid);
    EXPECT_EQ(r.status, ibcore::TraceStatus::BadEntry) << lid << ": " << r.detail;
    ASSERT_EQ(r.nodes.size(), 2u);
    EXPECT_EQ(uint64_t(r.nodes[1].ni.nodeGUID()), 0xa00u);
    EXPECT_NE(r.detail.find("lid entry " + std::to_string(lid) + " is 255"), std::string::npos) << r.detail;
  }
  EXPECT_EQ(sa.smps, 0);
}

TEST_F(TraceThroughSA, ALinkTheSAHasNoRecordOfIsUnreachable) {
  sa.links.erase(std::make_pair(uint16_t(3), uint8_t(2)));
  ibcore::MadTransactor mad(t);
  ibcore::SmpSource src(mad, true);
  ibcore::Tracer tr(src);
  ibcore::TraceResult r = tr.unicast(tr.node_at({0}), 5);
  EXPECT_EQ(r.status, ibcore::TraceStatus::Unreachable);
  EXPECT_EQ(r.nodes.size(), 3u);
  EXPECT_NE(r.detail.find("0,1,4,2"), std::string::npos) << r.detail;
  EXPECT_EQ(sa.smps, 0);
}

TEST_F(TraceThroughSA, MulticastFollowsTheMFTRecords) {
  ibcore::MadTransactor mad(t);
  ibcore::SmpSource src(mad, true);
  ibcore::Tracer tr(src);
  ibcore::TraceResult r = tr.multicast(tr.node_at({0}), 0x500, 0xc001);
  ASSERT_EQ(r.status, ibcore::TraceStatus::Found) << r.detail;
  EXPECT_EQ(hops(r), (Hops{{0x100, 1, 1}, {0xa00, 1, 4}, {0xb00, 6, 2}, {0x500, 2, 0}}));
  // No group on 0xc002: no route.
  EXPECT_EQ(tr.multicast(tr.node_at({0}), 0x500, 0xc002).status, ibcore::TraceStatus::Unreachable);
  EXPECT_EQ(sa.smps, 0);
}

TEST_F(TraceThroughSA, WithoutSaTheWalkSendsSMPs) {
  // The counters above can fail: the same walk without --sa sends SMPs
  // (which this fake never answers).
  ibcore::MadTransactor mad(t);
  ibcore::SmpSource src(mad, false);
  ibcore::Tracer tr(src);
  EXPECT_THROW(tr.node_at({0}), ibcore::MADError);
  EXPECT_GT(sa.smps, 0);
  EXPECT_EQ(sa.queries, 0);
}

}  // namespace

// --- the scheduler's source (AsyncSmpSource) and the table reads on it ------------

namespace {

ibcore::Task<> read_node(ibcore::AsyncSmpSource& src, ibcore::IBPath p, iba::SMPNodeInfo& out) {
  out = co_await src.SubnGet<iba::SMPNodeInfo>(std::move(p));
}

TEST_F(TraceThroughSA, SchedulerSourceReadsTablesAndNodesThroughTheSA) {
  ibcore::Scheduler sched(t, 4);
  ibcore::AsyncSmpSource src(sched, true);
  ibcore::IBPath a = ibcore::IBDRPath({1});     // switch A, entered by port 1
  ibcore::IBPath b = ibcore::IBDRPath({1, 4});  // switch B, entered by port 6
  iba::SMPNodeInfo na, nb;
  sched.spawn(read_node(src, a, na));
  sched.spawn(read_node(src, b, nb));
  ibcore::LftRead la;
  ibcore::MftRead mb;
  ibcore::TableReads reads;
  reads.add_lft(b, 0, 6, la);
  // Blocks 0 and 1 of B's MFT: the SA has a record of block 0 only (block 1
  // is empty, not an error).
  reads.add_mft(b, ibcore::MLID_BASE, ibcore::MLID_BASE + 40, 8, mb);
  reads.spawn(src);
  sched.run();
  EXPECT_EQ(sa.smps, 0);
  EXPECT_EQ(uint64_t(na.nodeGUID()), 0xa00u);
  EXPECT_EQ(na.localPortNum(), 1u);  // not the NodeRecord's 7
  EXPECT_EQ(uint64_t(nb.nodeGUID()), 0xb00u);
  EXPECT_EQ(nb.localPortNum(), 6u);
  EXPECT_FALSE(la.error);
  EXPECT_EQ(la.lft, (std::vector<uint8_t>{0xff, 6, 6, 0, 0xff, 2, 2}));
  EXPECT_FALSE(mb.error);
  ASSERT_EQ(mb.masks.size(), 41u);
  EXPECT_EQ(mb.masks[1][0], 0x44u);
  EXPECT_EQ(mb.masks[33][0], 0u);
}

TEST_F(TraceThroughSA, SchedulerSourceWithoutSaSendsSMPs) {
  ibcore::Scheduler sched(t, 4);
  ibcore::AsyncSmpSource src(sched, false);
  iba::SMPNodeInfo n;
  sched.spawn(read_node(src, ibcore::IBDRPath({1}), n));
  EXPECT_THROW(sched.run(), ibcore::MADError);
  EXPECT_EQ(sa.smps, 1);
  EXPECT_EQ(sa.queries, 0);
}

}  // namespace
