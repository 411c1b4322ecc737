// The SA transactor (core/rpc/satransactor.h) and GMP path resolution
// (core/rpc/gmppath.h) against a fake transport that plays an SA: with --sa
// not one SMP may leave, DR paths are resolved through LinkRecords, and
// every record query carries the component mask its fields need.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "core_fake_transport.h"
#include "core/base/config.h"
#include "core/rpc/gmppath.h"
#include "core/rpc/satransactor.h"
#include "iba/introspect.h"
#include "iba/sa.h"
#include "sa_test_helpers.h"

namespace {

using coretest::FakeTransport;
using coretest::Sent;

using coretest::be16;
using coretest::be64;
using coretest::cm;

// A fabric of three nodes seen through the SA: CA lid 1 (us, port 1) --
// switch lid 2 port 1; switch port 3 -- CA lid 5 port 2.
struct FakeSA {
  int smps = 0;
  std::vector<std::pair<uint16_t, uint64_t>> queries;  // (attr, comp mask)

  void answer(FakeTransport& t, const Sent& s) {
    const uint8_t* m = s.mad.data();
    if (m[1] == 0x01 || m[1] == 0x81) {  // an SMP: count it, answer NodeInfo
      ++smps;
      iba::SMPNodeInfo ni;
      ni.set_nodeType(1).set_localPortNum(2).set_numPorts(2);
      t.reply(s, 0, ni.raw(), ni.SIZE, 64);
      return;
    }
    ASSERT_EQ(m[1], 0x03);
    uint16_t attr = be16(m + 16);
    uint64_t mask = be64(m + 48);
    queries.push_back({attr, mask});
    const uint8_t* q = m + 56;
    std::vector<std::vector<uint8_t>> recs;
    size_t size = 0;
    if (attr == 0x0020) {  // LinkRecord
      iba::SALinkRecord in;
      in.load({q, in.SIZE});
      size = in.SIZE;
      struct L { uint16_t fl; uint8_t fp, tp; uint16_t tl; };
      for (L l : {L{1, 1, 1, 2}, L{2, 1, 1, 1}, L{2, 3, 2, 5}, L{5, 2, 3, 2}}) {
        if ((mask & cm(in.DESC, "fromLID")) && in.fromLID() != l.fl) continue;
        if ((mask & cm(in.DESC, "fromPort")) && in.fromPort() != l.fp) continue;
        iba::SALinkRecord r;
        r.set_fromLID(l.fl).set_fromPort(l.fp).set_toPort(l.tp).set_toLID(l.tl);
        recs.emplace_back(r.buf.begin(), r.buf.end());
      }
    } else if (attr == 0x0011) {  // NodeRecord
      iba::SANodeRecord in;
      in.load({q, in.SIZE});
      size = in.SIZE;
      uint16_t lid = uint16_t(in.LID());
      iba::SANodeRecord r;
      r.set_LID(lid);
      auto ni = r.nodeInfo();
      ni.set_nodeType(lid == 2 ? 2 : 1).set_numPorts(lid == 2 ? 8 : 2).set_localPortNum(lid == 5 ? 2 : lid == 2 ? 0 : 1);
      ni.set_nodeGUID(0x1000 + lid);
      r.set_nodeInfo(ni);
      iba::SMPNodeDescription nd;
      nd.set_nodeString("node" + std::to_string(lid));
      r.set_nodeDescription(nd);
      recs.emplace_back(r.buf.begin(), r.buf.end());
    } else if (attr == 0x0012) {  // PortInfoRecord
      iba::SAPortInfoRecord in;
      in.load({q, in.SIZE});
      size = in.SIZE;
      if (!(mask & cm(in.DESC, "portNum"))) {
        t.reply(s, 0x0200);  // ERR_REQ_INVALID: the SA wants a port number
        return;
      }
      iba::SAPortInfoRecord r = in;
      auto pi = r.portInfo();
      pi.set_LID(in.endportLID()).set_localPortNum(in.portNum());
      r.set_portInfo(pi);
      recs.emplace_back(r.buf.begin(), r.buf.end());
    } else if (attr == 0x0035) {  // PathRecord
      iba::SAPathRecord in;
      in.load({q, in.SIZE});
      size = in.SIZE;
      iba::SAPathRecord r = in;
      r.set_SL(5).set_PKey(0x8001).set_MTU(4).set_rate(6).set_packetLifeTime(18).set_hopLimit(0);
      recs.emplace_back(r.buf.begin(), r.buf.end());
    }
    ibcore::RecvMad rm;
    rm.data = s.mad;
    rm.data[3] |= 0x80;
    size_t stride = (size + 7) / 8 * 8;
    rm.data[44] = uint8_t(stride / 8 >> 8);
    rm.data[45] = uint8_t(stride / 8);
    std::memset(rm.data.data() + 56, 0, 200);
    size_t off = 56;
    for (auto& r : recs) {
      if (off + stride > 256) break;
      std::memcpy(rm.data.data() + off, r.data(), r.size());
      off += stride;
    }
    if (m[3] == 0x01 && recs.empty()) {
      rm.data[4] = 0x03;  // ERR_NO_RECORDS
    }
    rm.len = m[3] == 0x12 ? off : 256;
    t.inbox.push_back(rm);
  }
};

struct SATransactorTest : ::testing::Test {
  FakeTransport t;
  FakeSA sa;
  void SetUp() override {
    t.responder = [this](FakeTransport& tr, const Sent& s) { sa.answer(tr, s); };
  }
};

struct LocalFake : FakeTransport {
  uint16_t local_lid() const override { return 1; }
};

TEST_F(SATransactorTest, NodeInfoThroughTheSASendsNoSMP) {
  ibcore::MadTransactor mad(t);
  ibcore::SmpSource src(mad, true);
  ibcore::IBPath p;
  p.DLID = 5;
  auto ni = src.SubnGet<iba::SMPNodeInfo>(p);
  EXPECT_EQ(ni.nodeGUID(), 0x1005u);
  EXPECT_EQ(sa.smps, 0);
  ASSERT_EQ(sa.queries.size(), 1u);
  EXPECT_EQ(sa.queries[0].first, 0x0011);
  EXPECT_EQ(sa.queries[0].second, cm(iba::SANodeRecord::DESC, "LID"));
  auto nd = src.SubnGet<iba::SMPNodeDescription>(p);
  EXPECT_EQ(nd.nodeString(), "node5");
  EXPECT_EQ(sa.smps, 0);
}

TEST_F(SATransactorTest, WithoutSaTheSameCallIsAnSMP) {
  // The counter above can fail: the SMP path does send SMPs.
  ibcore::MadTransactor mad(t);
  ibcore::SmpSource src(mad, false);
  ibcore::IBPath p;
  p.DLID = 5;
  (void)src.SubnGet<iba::SMPNodeInfo>(p);
  EXPECT_EQ(sa.smps, 1);
}

TEST_F(SATransactorTest, ConfigSelectsTheSA) {
  t.settings().use_sa = true;
  ibcore::MadTransactor mad(t);
  ibcore::SmpSource src(mad);
  EXPECT_TRUE(src.uses_sa());
  t.settings().use_sa = false;
  ibcore::SmpSource src2(mad);
  EXPECT_FALSE(src2.uses_sa());
}

TEST(SATransactorStatic, DRPathResolvedThroughLinkRecordsAndPortZeroOnACA) {
  LocalFake t;
  FakeSA sa;
  t.settings().use_sa = true;
  t.responder = [&](FakeTransport& tr, const Sent& s) { sa.answer(tr, s); };
  ibcore::MadTransactor mad(t);
  ibcore::SmpSource src(mad);
  ibcore::IBDRPath dr({1, 3});
  // PortInfo port 0 on a CA: the SA is asked for the port at that LID.
  auto pi = src.SubnGet<iba::SMPPortInfo>(dr, 0);
  EXPECT_EQ(pi.LID(), 5u);
  EXPECT_EQ(pi.localPortNum(), 2u);
  EXPECT_EQ(sa.smps, 0);
  // The LinkRecord of lid 1 port 1, the NodeRecord of lid 2 (a switch, so
  // the route may go on through it), the LinkRecord of lid 2 port 3, the
  // NodeRecord of lid 5, its PortInfoRecord.
  ASSERT_EQ(sa.queries.size(), 5u);
  const auto& L = iba::SALinkRecord::DESC;
  EXPECT_EQ(sa.queries[0], std::make_pair(uint16_t(0x20), cm(L, "fromLID") | cm(L, "fromPort")));
  EXPECT_EQ(sa.queries[1], std::make_pair(uint16_t(0x11), cm(iba::SANodeRecord::DESC, "LID")));
  EXPECT_EQ(sa.queries[2].first, 0x20);
  EXPECT_EQ(sa.queries[3].first, 0x11);
  const auto& P = iba::SAPortInfoRecord::DESC;
  EXPECT_EQ(sa.queries[4], std::make_pair(uint16_t(0x12), cm(P, "endportLID") | cm(P, "portNum")));
  // The DR path's LID and the NodeRecord are cached: a second read asks
  // only for the PortInfoRecord, a NodeInfo read for nothing.
  (void)src.SubnGet<iba::SMPPortInfo>(dr, 0);
  EXPECT_EQ(sa.queries.size(), 6u);
  auto ni = src.SubnGet<iba::SMPNodeInfo>(dr);
  EXPECT_EQ(sa.queries.size(), 6u);
  // NodeInfo along a DR path says the port the route enters by (the last
  // LinkRecord's toPort), as an SMP's would.
  EXPECT_EQ(ni.localPortNum(), 2u);
  // Only switches forward a directed route: one that goes on past the CA at
  // lid 5 fails there, as its SMP would, though a LinkRecord leaves that CA.
  ibcore::IBDRPath past({1, 3, 2});
  try {
    (void)src.SubnGet<iba::SMPNodeInfo>(past);
    ADD_FAILURE() << "a route through a CA resolved";
  } catch (const ibcore::MADError& e) {
    EXPECT_NE(e.dump_str().find("The node at hop 2 of DR path 0,1,3,2 (lid 5) is not a switch"), std::string::npos)
        << e.dump_str();
  }
  EXPECT_EQ(sa.smps, 0);
}

TEST(SATransactorStatic, QueryMasksFollowTheAttributeModifier) {
  std::vector<uint8_t> rec;
  // VLArb: block 2 of output port 3.
  auto* m = ibcore::sa_mapping(0x0018);
  ASSERT_NE(m, nullptr);
  uint64_t mask = ibcore::SATransactor::make_query(*m, 7, (2u << 16) | 3u, true, rec);
  const auto& V = iba::SAVLArbitrationTableRecord::DESC;
  EXPECT_EQ(mask, cm(V, "LID") | cm(V, "outputPortNum") | cm(V, "blockNum"));
  iba::SAVLArbitrationTableRecord r;
  r.load(rec);
  EXPECT_EQ(r.LID(), 7u);
  EXPECT_EQ(r.outputPortNum(), 3u);
  EXPECT_EQ(r.blockNum(), 2u);
  // SL2VL: input port 4, output port 6.
  mask = ibcore::SATransactor::make_query(*ibcore::sa_mapping(0x0017), 9, 0x0406, true, rec);
  iba::SASLToVLMappingTableRecord s;
  s.load(rec);
  EXPECT_EQ(s.inputPortNum(), 4u);
  EXPECT_EQ(s.outputPortNum(), 6u);
  // MFT: position 1, block 5.
  ibcore::SATransactor::make_query(*ibcore::sa_mapping(0x001B), 9, (1u << 28) | 5u, true, rec);
  iba::SAMulticastForwardingTableRecord f;
  f.load(rec);
  EXPECT_EQ(f.position(), 1u);
  EXPECT_EQ(f.blockNum(), 5u);
  // No SA record for an SMP-only attribute.
  EXPECT_EQ(ibcore::sa_mapping(0x0032), nullptr);
}

TEST(GmpPath, PathRecordGivesTheSLAndPKey) {
  LocalFake t;
  FakeSA sa;
  t.responder = [&](FakeTransport& tr, const Sent& s) { sa.answer(tr, s); };
  ibcore::MadTransactor mad(t);
  ibcore::GmpPathResolver res(mad);
  ibcore::IBPath p = res.resolve(ibcore::IBPath::from_string("5"));
  EXPECT_EQ(p.DLID, 5);
  EXPECT_EQ(p.SLID, 1);
  EXPECT_EQ(p.SL, 5);
  EXPECT_EQ(p.pkey, 0x8001);
  EXPECT_EQ(p.dqpn, 1u);
  EXPECT_EQ(p.qkey, ibcore::GSI_QKEY);
  ASSERT_EQ(sa.queries.size(), 1u);
  const auto& D = iba::SAPathRecord::DESC;
  EXPECT_EQ(sa.queries[0].second, cm(D, "DLID") | cm(D, "SLID") | cm(D, "numbPath"));
  // Cached.
  (void)res.resolve(ibcore::IBPath::from_string("5"));
  EXPECT_EQ(sa.queries.size(), 1u);
}

TEST(GmpPath, FailureStacksThePathRecordLayer) {
  LocalFake t;  // no responder: every MAD is lost
  t.settings().timeout_ms = 5;
  t.settings().retries = 0;
  ibcore::MadTransactor mad(t);
  ibcore::GmpPathResolver res(mad);
  // (A LID would go on its plain path without the SA: a GUID needs it.)
  try {
    res.resolve(ibcore::IBPath::from_string("0x0000000000000009", ibcore::IBPath::Form::GUID));
    FAIL() << "no error";
  } catch (const ibcore::MADError& e) {
    ASSERT_GE(e.layers().size(), 2u);
    EXPECT_EQ(e.layers()[0], "Failed getting path record for end port fe80::9.");
  }
}

TEST(GmpPath, SaPathOption) {
  LocalFake t;
  ibcore::MadTransactor mad(t);
  t.settings().sa_path = "7";
  ibcore::IBPath p = ibcore::sa_path_from_config(mad);
  EXPECT_EQ(p.DLID, 7);
  EXPECT_EQ(p.dqpn, 1u);
  t.settings().sa_path.clear();
  EXPECT_EQ(ibcore::sa_path_from_config(mad).DLID, 1);  // the SM LID
}

}  // namespace
