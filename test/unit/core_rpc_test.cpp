// MAD construction, the engine (TIDs, retries, stale replies, BUSY), the
// typed sync RPCs, RMPP reassembly and SA record splitting, error text --
// all against a fake transport, no fabric.
#include <gtest/gtest.h>

#include <set>

#include "core/base/config.h"
#include "core/base/error.h"
#include "core/rpc/rpc.h"
#include "core_fake_transport.h"
#include "iba/cc.h"
#include "iba/pm.h"
#include "iba/sa.h"
#include "iba/smp.h"

using namespace ibcore;
using coretest::FakeTransport;
using coretest::Sent;

namespace {


iba::SMPNodeInfo node_info_for(uint64_t guid) {
  iba::SMPNodeInfo ni;
  ni.set_baseVersion(1).set_classVersion(1).set_nodeType(1).set_numPorts(2).set_nodeGUID(guid).set_portGUID(guid + 1);
  return ni;
}

}  // namespace

TEST(CoreRpc, BuildLidRoutedSmp) {
  MadRequest r = make_request<iba::SMPPortInfo>(iba::mgmt::SUBN_LID_ROUTED, iba::mgmt::SUBN_LID_ROUTED,
                                                iba::method::GET, nullptr, 3);
  IBPath p = IBPath::from_string("5");
  p.mkey = 0x0102030405060708ull;
  std::array<uint8_t, 256> m{};
  EXPECT_EQ(build_mad(m.data(), r, p, 0x1122334455667788ull), 256u);
  EXPECT_EQ(m[0], 1);
  EXPECT_EQ(m[1], 0x01);
  EXPECT_EQ(m[2], 1);
  EXPECT_EQ(m[3], 0x01);
  EXPECT_EQ(m[8], 0x11);
  EXPECT_EQ(m[15], 0x88);
  EXPECT_EQ(m[16], 0x00);
  EXPECT_EQ(m[17], 0x15);
  EXPECT_EQ(m[23], 3);
  EXPECT_EQ(m[24], 1);
  EXPECT_EQ(m[31], 8);
  EXPECT_EQ(describe_mad(m.data(), 256), "SubnGet(1) SMPFormat(1.1) SMPPortInfo(21)");
}

TEST(CoreRpc, BuildDirectedRouteSmp) {
  MadRequest r = make_request<iba::SMPNodeInfo>(iba::mgmt::SUBN_LID_ROUTED, iba::mgmt::SUBN_LID_ROUTED,
                                                iba::method::GET, nullptr, 0);
  IBPath p = IBPath::from_string("0,1,4");
  std::array<uint8_t, 256> m{};
  build_mad(m.data(), r, p, 1);
  iba::SMPFormatDirected d;
  d.load(m);
  EXPECT_EQ(d.mgmtClass(), 0x81u);
  EXPECT_EQ(d.D(), 0u);
  EXPECT_EQ(d.hopPointer(), 0u);
  EXPECT_EQ(d.hopCount(), 2u);
  EXPECT_EQ(d.initialPath(0), 0u);
  EXPECT_EQ(d.initialPath(1), 1u);
  EXPECT_EQ(d.initialPath(2), 4u);
  EXPECT_EQ(d.drSLID(), 0xffffu);
  EXPECT_EQ(d.drDLID(), 0xffffu);
  EXPECT_EQ(describe_mad(m.data(), 256), "SubnGet(1) SMPFormatDirected(129.1) SMPNodeInfo(17)");
}

TEST(CoreRpc, MethodCheckedAgainstRegistry) {
  IBPath p = IBPath::from_string("5");
  std::array<uint8_t, 256> m{};
  // NodeInfo is get-only.
  MadRequest r = make_request<iba::SMPNodeInfo>(iba::mgmt::SUBN_LID_ROUTED, iba::mgmt::SUBN_LID_ROUTED,
                                                iba::method::SET, nullptr, 0);
  EXPECT_THROW(build_mad(m.data(), r, p, 1), MADError);
  // SA GMPs cannot go along a DR path.
  MadRequest sa = make_request<iba::SANodeRecord>(iba::mgmt::SUBN_ADM, iba::mgmt::SUBN_ADM, iba::method::GET,
                                                  nullptr, 0);
  EXPECT_THROW(build_mad(m.data(), sa, IBPath::from_string("0,1"), 1), MADError);
}

TEST(CoreRpc, VariantLayoutsFindTheirClass) {
  // A typed request of a variant layout (same attribute ID, other layout)
  // must be sent in the class the variant is declared in.
  const iba::ClassDesc* cc = ibcore::class_for(iba::CCCongestionLogCA::DESC, 0x21, 0x21);
  ASSERT_NE(cc, nullptr);
  EXPECT_EQ(cc->mgmt_class, 0x21);
  const iba::ClassDesc* pm = ibcore::class_for(iba::PMPortExtendedSpeedsCountersRSFEC::DESC, 0x04, 0x04);
  ASSERT_NE(pm, nullptr);
  EXPECT_EQ(pm->mgmt_class, 0x04);
  EXPECT_EQ(ibcore::class_for(iba::CCCongestionLogCA::DESC, 0x04, 0x04), nullptr);
}

TEST(CoreRpc, UnknownAttributeSentRaw) {
  // An attribute ID the registry does not define goes out as given, with
  // the payload as raw data (smpdump and vendstat send such IDs).
  IBPath p = IBPath::from_string("5");
  std::array<uint8_t, 256> m{};
  std::array<uint8_t, 4> raw{0xde, 0xad, 0xbe, 0xef};
  MadRequest u;
  u.cls = iba::find_class(iba::mgmt::SUBN_LID_ROUTED);
  u.method = iba::method::GET;
  u.attr_id = 0xff77;
  u.amod = 0x01020304;
  u.payload = raw;
  ASSERT_NE(u.cls, nullptr);
  ASSERT_EQ(iba::find_attr(*u.cls, u.attr_id), nullptr);
  EXPECT_EQ(build_mad(m.data(), u, p, 1), 256u);
  EXPECT_EQ(m[1], 0x01);
  EXPECT_EQ(m[3], iba::method::GET);
  EXPECT_EQ(m[16], 0xff);
  EXPECT_EQ(m[17], 0x77);
  EXPECT_EQ(m[20], 0x01);
  EXPECT_EQ(m[23], 0x04);
  EXPECT_EQ(m[64], 0xde);  // SMP data
  EXPECT_EQ(m[67], 0xef);
  EXPECT_EQ(m[68], 0x00);
  EXPECT_EQ(describe_mad(m.data(), 256), "SubnGet(1) SMPFormat(1.1) Attribute(65399)");
  // The same ID along a DR path switches to the directed route format.
  build_mad(m.data(), u, IBPath::from_string("0,1"), 1);
  EXPECT_EQ(m[1], 0x81);
  EXPECT_EQ(m[16], 0xff);
  EXPECT_EQ(m[17], 0x77);
  // The methods of a known attribute are still checked.
  u.attr_id = iba::AttrId<iba::SMPNodeInfo>::value;
  u.method = iba::method::SET;
  EXPECT_THROW(build_mad(m.data(), u, p, 1), MADError);
}

TEST(CoreRpc, SyncSubnGetAndTidsUnique) {
  FakeTransport t;
  t.responder = [](FakeTransport& f, const Sent& s) {
    auto ni = node_info_for(0x1000 + s.path.DLID);
    f.reply(s, 0, ni.raw(), ni.SIZE);
  };
  MadTransactor mad(t);
  std::set<uint32_t> tids;
  for (uint16_t lid = 1; lid <= 50; ++lid) {
    IBPath p;
    p.DLID = lid;
    auto ni = mad.SubnGet<iba::SMPNodeInfo>(p);
    EXPECT_EQ(ni.nodeGUID(), 0x1000u + lid);
    tids.insert(coretest::tid_low(t.sent.back()));
  }
  EXPECT_EQ(tids.size(), 50u);
  // DR reply with the D bit set is not an error.
  auto ni = mad.SubnGet<iba::SMPNodeInfo>(IBPath::from_string("0,2"));
  EXPECT_EQ(ni.nodeGUID(), 0x1000u);
}

TEST(CoreRpc, TimeoutRetriesThenClearError) {
  FakeTransport t;  // never answers
  t.settings().timeout_ms = 20;
  t.settings().retries = 2;
  MadTransactor mad(t);
  IBPath p = IBPath::from_string("0,1,4");
  auto t0 = Clock::now();
  try {
    mad.SubnGet<iba::SMPPortInfo>(p, 1);
    FAIL() << "no timeout";
  } catch (const MADTimeoutError& e) {
    EXPECT_STREQ(e.what(), "RPC SubnGet(1) SMPFormatDirected(129.1) SMPPortInfo(21) timed out to DR path 0,1,4");
    EXPECT_EQ(e.req.size(), 256u);
  }
  EXPECT_EQ(t.sent.size(), 3u);  // 1 + 2 retries
  // Each try has its own TID, so a late reply to an old try is stale.
  EXPECT_NE(coretest::tid_low(t.sent[0]), coretest::tid_low(t.sent[1]));
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
}

TEST(CoreRpc, StaleRepliesDroppedLateAnswerAccepted) {
  FakeTransport t;
  t.settings().timeout_ms = 20;
  t.settings().retries = 3;
  int n = 0;
  t.responder = [&](FakeTransport& f, const Sent& s) {
    if (++n < 3) return;  // lose the first two tries
    // First a duplicate answer to the lost first try, then the real one.
    Sent old = f.sent[0];
    auto bogus = node_info_for(0xdead);
    f.reply(old, 0, bogus.raw(), bogus.SIZE);
    auto ni = node_info_for(0x42);
    f.reply(s, 0, ni.raw(), ni.SIZE);
  };
  MadTransactor mad(t);
  auto ni = mad.SubnGet<iba::SMPNodeInfo>(IBPath::from_string("3"));
  EXPECT_EQ(ni.nodeGUID(), 0x42u);
  EXPECT_EQ(mad.engine().stale(), 1u);
}

TEST(CoreRpc, BusyIsBackedOffAndResent) {
  FakeTransport t;
  int n = 0;
  t.responder = [&](FakeTransport& f, const Sent& s) {
    if (++n <= 2) {
      f.reply(s, 0x0001);  // BUSY
      return;
    }
    auto ni = node_info_for(7);
    f.reply(s, 0, ni.raw(), ni.SIZE);
  };
  MadTransactor mad(t);
  EXPECT_EQ(mad.SubnGet<iba::SMPNodeInfo>(IBPath::from_string("3")).nodeGUID(), 7u);
  EXPECT_EQ(t.sent.size(), 3u);
}

TEST(CoreRpc, ClassErrorDecoded) {
  FakeTransport t;
  t.responder = [](FakeTransport& f, const Sent& s) { f.reply(s, 3 << 8, nullptr, 0, 56); };
  MadTransactor mad(t);
  iba::SAPathRecord q;
  try {
    mad.SubnAdmGet(q, 0);
    FAIL();
  } catch (const MADClassError& e) {
    EXPECT_EQ(e.class_code(), 3u);
    EXPECT_EQ(e.status, 0x0300);
    std::string w = e.what();
    EXPECT_EQ(w.rfind("RPC SubnAdmGet(1) SAFormat(3.2) SAPathRecord(53) got class specific error 3", 0), 0u) << w;
    EXPECT_EQ(e.rep.size(), 256u);
  }
  // Sent to the SA: QP1 at the SM LID with the GSI Q_Key.
  EXPECT_EQ(t.sent[0].path.DLID, 1);
  EXPECT_EQ(t.sent[0].path.dqpn, 1u);
  EXPECT_EQ(t.sent[0].path.qkey, GSI_QKEY);
}

TEST(CoreRpc, EachPortCarriesItsOwnSettings) {
  // Two end ports in one process (issue 17: no process-wide settings): each
  // engine reads its own transport's timeout, retries and keys.
  FakeTransport a, b;  // never answer
  a.settings().timeout_ms = b.settings().timeout_ms = 5;
  a.settings().retries = 0;
  b.settings().retries = 2;
  b.settings().smkey = 0x1122334455667788ull;
  // (An SA path given, so that a timeout does not go looking for a new SM.)
  a.settings().sa_path = b.settings().sa_path = "1";
  MadTransactor ma(a), mb(b);
  iba::SANodeRecord q;
  EXPECT_THROW(ma.SubnAdmGet(q, 0), MADTimeoutError);
  EXPECT_THROW(mb.SubnAdmGet(q, 0), MADTimeoutError);
  ASSERT_EQ(a.sent.size(), 1u);
  ASSERT_EQ(b.sent.size(), 3u);  // 1 + 2 retries
  EXPECT_EQ(iba::SAFormat::SMKey_at(a.sent[0].mad.data()), 0u);
  EXPECT_EQ(iba::SAFormat::SMKey_at(b.sent[0].mad.data()), 0x1122334455667788ull);
  // A path's own key wins over the port's.
  IBPath p = mb.sa_path();
  p.smkey = 7;
  b.sent.clear();
  EXPECT_THROW(mb.SubnAdmGet(q, 0, p), MADTimeoutError);
  ASSERT_FALSE(b.sent.empty());
  EXPECT_EQ(iba::SAFormat::SMKey_at(b.sent[0].mad.data()), 7u);
}

TEST(CoreRpc, SaPathHonoursConfig) {
  // --sa-path (the port's settings().sa_path) is where every SA RPC
  // without an explicit path goes: a LID nobody answers times out naming
  // that LID.
  FakeTransport t;  // answers nothing; its SM LID is 1
  MadTransactor mad(t);
  t.settings().sa_path = "0x77";
  t.settings().timeout_ms = 5;
  t.settings().retries = 0;
  EXPECT_EQ(mad.sa_path().DLID, 0x77);
  EXPECT_EQ(mad.sa_path().dqpn, 1u);
  EXPECT_EQ(mad.sa_path().qkey, GSI_QKEY);
  iba::SANodeRecord q;
  try {
    mad.SubnAdmGet(q, 0);
    FAIL() << "no timeout";
  } catch (const MADTimeoutError& e) {
    EXPECT_NE(std::string(e.what()).find("timed out to lid 119"), std::string::npos) << e.what();
  }
  ASSERT_EQ(t.sent.size(), 1u);
  EXPECT_EQ(t.sent[0].path.DLID, 0x77);
  EXPECT_EQ(t.sent[0].path.dqpn, 1u);
  // A path spec keeps its own fields.
  t.settings().sa_path = "IBPath(DLID=9,SL=3)";
  EXPECT_EQ(mad.sa_path().DLID, 9);
  EXPECT_EQ(mad.sa_path().SL, 3);
  // Not given: the SM LID the port knows.
  t.settings().sa_path.clear();
  EXPECT_EQ(mad.sa_path().DLID, 1);
  // SA MADs cannot follow a DR path; junk is refused with the option named.
  t.settings().sa_path = "0,1";
  EXPECT_THROW(mad.sa_path(), Error);
  t.settings().sa_path = "no-such-path";
  try {
    mad.sa_path();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--sa-path: ", 0), 0u) << e.what();
  }
}

TEST(CoreRpc, ErrorDumpLayers) {
  MADError e("RPC SubnAdmGet(1) SAFormat(3.2) SAPathRecord(53) got class specific error 3 (ERR_NO_RECORDS)");
  e.annotate("Failed getting path record for end port fe80::10:1.");
  EXPECT_EQ(e.dump_str(0),
            "E: Failed getting path record for end port fe80::10:1.\n"
            "E: +RPC SubnAdmGet(1) SAFormat(3.2) SAPathRecord(53) got class specific error 3 (ERR_NO_RECORDS)\n");
  EXPECT_STREQ(e.what(), "Failed getting path record for end port fe80::10:1.");
  e.path = "IBPath(DLID=1)";
  std::array<uint8_t, 256> m{};
  build_mad(m.data(),
            make_request<iba::SMPNodeInfo>(iba::mgmt::SUBN_LID_ROUTED, iba::mgmt::SUBN_LID_ROUTED,
                                           iba::method::GET, nullptr, 0),
            IBPath::from_string("1"), 5);
  e.req.assign(m.begin(), m.end());
  std::string l1 = e.dump_str(1);
  EXPECT_NE(l1.find("E:   path IBPath(DLID=1)"), std::string::npos) << l1;
  EXPECT_NE(l1.find("E:   request SubnGet(1)"), std::string::npos) << l1;
  std::string l2 = e.dump_str(2);
  EXPECT_NE(l2.find("nodeGUID"), std::string::npos) << l2;
  EXPECT_GT(l2.size(), l1.size());
  // Timeouts and system errors exit like the reference (255).
  EXPECT_EQ(exit_status(e), 255);
  SysError se(2, "umad_open_port", "Cannot open end port mlx4_0/1");
  EXPECT_NE(std::string(se.what()).find("umad_open_port"), std::string::npos);
  EXPECT_EQ(se.err(), 2);
}

namespace {

// An SA GetTable reply split into RMPP segments of 200 data bytes each
// (data starts at byte 56 in every segment).
std::vector<std::array<uint8_t, 256>> make_segments(size_t nrec, size_t rec_size) {
  std::vector<uint8_t> data(nrec * rec_size);
  for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i / rec_size + 1);
  size_t nseg = std::max<size_t>(1, (data.size() + 199) / 200);
  std::vector<std::array<uint8_t, 256>> segs(nseg);
  for (size_t s = 0; s < nseg; ++s) {
    auto& m = segs[s];
    m.fill(0);
    m[0] = 1;
    m[1] = 3;
    m[2] = 2;
    m[3] = 0x92;
    m[24] = 1;       // RMPP version
    m[25] = 1;       // DATA
    m[26] = uint8_t(0x1 | (s == 0 ? 0x2 : 0) | (s == nseg - 1 ? 0x4 : 0));
    m[31] = uint8_t(s + 1);  // segment number
    uint32_t paylen = s == 0 ? uint32_t(data.size() + nseg * 20) : s == nseg - 1 ? uint32_t(data.size() - s * 200 + 20) : 0;
    m[32] = uint8_t(paylen >> 24);
    m[33] = uint8_t(paylen >> 16);
    m[34] = uint8_t(paylen >> 8);
    m[35] = uint8_t(paylen);
    m[44] = 0;
    m[45] = uint8_t(rec_size / 8);
    size_t from = s * 200, n = std::min<size_t>(200, data.size() - from);
    if (n) std::memcpy(m.data() + 56, data.data() + from, n);
  }
  return segs;
}

}  // namespace

TEST(CoreRpc, RmppReassembly) {
  const size_t rec = 72;  // e.g. an LFT record
  auto segs = make_segments(10, rec);  // 720 bytes -> 4 segments
  ASSERT_EQ(segs.size(), 4u);
  std::vector<std::span<const uint8_t>> v;
  for (auto& s : segs) v.emplace_back(s.data(), s.size());
  Reassembled r = rmpp_reassemble(v);
  EXPECT_FALSE(r.truncated);
  EXPECT_EQ(r.mad.size(), 56u + 720u);
  SARecords recs = sa_split_records(r.mad);
  EXPECT_FALSE(recs.truncated);
  ASSERT_EQ(recs.records.size(), 10u);
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(recs.records[i].size(), rec);
    EXPECT_EQ(recs.records[i][0], i + 1);
    EXPECT_EQ(recs.records[i][rec - 1], i + 1);
  }
  // Only the first segment (what umad2sim delivers): truncated, with the
  // whole records it holds.
  SARecords first = sa_split_records(std::span<const uint8_t>(segs[0].data(), 256));
  EXPECT_TRUE(first.truncated);
  EXPECT_EQ(first.records.size(), 200u / rec);
  // Missing the last segment, or a gap.
  Reassembled t3 = rmpp_reassemble(std::span(v).first(3));
  EXPECT_TRUE(t3.truncated);
  std::vector<std::span<const uint8_t>> gap{v[0], v[2], v[3]};
  EXPECT_TRUE(rmpp_reassemble(gap).truncated);
  // A single-segment table: PayloadLength says how many records are real.
  auto one = make_segments(2, rec);
  ASSERT_EQ(one.size(), 1u);
  SARecords s1 = sa_split_records(std::span<const uint8_t>(one[0].data(), 256));
  EXPECT_FALSE(s1.truncated);
  EXPECT_EQ(s1.records.size(), 2u);
  // An empty table.
  auto none = make_segments(0, rec);
  EXPECT_EQ(sa_split_records(std::span<const uint8_t>(none[0].data(), 256)).records.size(), 0u);
}

TEST(CoreRpc, SubnAdmGetTableTruncatedFlag) {
  FakeTransport t;
  auto segs = make_segments(5, 112);  // NodeRecords: 108 bytes padded to 14 words; 560 bytes, 3 segments
  t.responder = [&](FakeTransport& f, const Sent& s) {
    ibcore::RecvMad r;
    r.data = segs[0];
    // As an SA answers: the request's TID and AttributeID.
    std::memcpy(r.data.data() + 8, s.mad.data() + 8, 8);
    iba::MADHeader::set_attributeID_at(r.data.data(), iba::MADHeader::attributeID_at(s.mad.data()));
    r.len = 256;
    f.inbox.push_back(r);
  };
  MadTransactor mad(t);
  iba::SANodeRecord q;
  auto tab = mad.SubnAdmGetTable(q, 0);
  EXPECT_TRUE(tab.truncated);
  ASSERT_EQ(tab.records.size(), 1u);
  EXPECT_EQ(tab.records[0].raw()[0], 1);
  EXPECT_EQ(t.sent[0].mad[3], iba::method::GET_TABLE);
}
