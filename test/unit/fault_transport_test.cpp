// What a misbehaving fabric or SA can hand the RPC layer (issue 16),
// through the scripted fake transport: a reply delivered twice, a reply cut
// short below the MAD header, a reply with the right TID from another LID
// or for another attribute, and SA GetTable replies whose attribute offset or payload length lies.
// (BUSY, stale TIDs, timeouts and RMPP reassembly: core_rpc_test.cpp.)
#include <gtest/gtest.h>

#include "core/base/config.h"
#include "core/base/error.h"
#include "core/out/log.h"
#include "core/rpc/rpc.h"
#include "core_fake_transport.h"
#include "iba/sa.h"
#include "iba/smp.h"

using namespace ibcore;
using coretest::FakeTransport;
using coretest::Sent;

namespace {


iba::SMPNodeInfo node_info(uint64_t guid) {
  iba::SMPNodeInfo ni;
  ni.set_baseVersion(1).set_classVersion(1).set_nodeType(1).set_numPorts(1).set_nodeGUID(guid);
  return ni;
}

// A GetTableResp to s: attribute offset `words`, `bytes` of record data
// (record i filled with i + 1), one MAD, RMPP active with PayloadLength
// paylen (the SA header's 20 bytes + the data it claims).
void table_reply(FakeTransport& f, const Sent& s, unsigned words, size_t bytes, uint32_t paylen) {
  RecvMad r;
  r.data = s.mad;
  r.data[3] = 0x80 | iba::method::GET_TABLE;
  r.data[24] = 1;
  r.data[25] = 1;
  r.data[26] = 0x1 | 0x2 | 0x4;  // active, first, last
  for (int i = 0; i < 4; ++i) r.data[32 + i] = uint8_t(paylen >> (24 - 8 * i));
  r.data[44] = uint8_t(words >> 8);
  r.data[45] = uint8_t(words);
  size_t stride = words * 8;
  for (size_t i = 0; i < bytes && 56 + i < r.data.size(); ++i) r.data[56 + i] = uint8_t(stride ? i / stride + 1 : 1);
  r.len = 256;
  f.inbox.push_back(r);
}

}  // namespace

TEST(FaultTransport, AReplyDeliveredTwiceAnswersOnlyItsRequest) {
  FakeTransport t;
  uint64_t guid = 0x10;
  t.responder = [&](FakeTransport& f, const Sent& s) {
    auto ni = node_info(guid++);
    f.reply(s, 0, ni.raw(), ni.SIZE);
    f.reply(s, 0, ni.raw(), ni.SIZE);  // the duplicate
  };
  MadTransactor mad(t);
  EXPECT_EQ(mad.SubnGet<iba::SMPNodeInfo>(IBPath::from_string("3")).nodeGUID(), 0x10u);
  // The next call gets its own reply, not the first one's duplicate.
  EXPECT_EQ(mad.SubnGet<iba::SMPNodeInfo>(IBPath::from_string("4")).nodeGUID(), 0x11u);
  EXPECT_GE(mad.engine().stale(), 1u);
}

TEST(FaultTransport, AReplyShorterThanTheMadHeaderIsDropped) {
  FakeTransport t;
  t.settings().timeout_ms = 20;
  t.settings().retries = 1;
  int n = 0;
  t.responder = [&](FakeTransport& f, const Sent& s) {
    auto ni = node_info(0x77);
    f.reply(s, 0, ni.raw(), ni.SIZE);
    if (++n == 1) f.inbox.back().len = 20;  // the first answer cut inside the header
  };
  MadTransactor mad(t);
  EXPECT_EQ(mad.SubnGet<iba::SMPNodeInfo>(IBPath::from_string("3")).nodeGUID(), 0x77u);
  EXPECT_EQ(t.sent.size(), 2u);  // the cut reply did not count: the retry's did
  EXPECT_EQ(mad.engine().stale(), 1u);
}

TEST(FaultTransport, EveryReplyCutShortEndsInAClearTimeout) {
  FakeTransport t;
  t.settings().timeout_ms = 20;
  t.settings().retries = 2;
  t.responder = [&](FakeTransport& f, const Sent& s) {
    f.reply(s);
    f.inbox.back().len = 10;
  };
  MadTransactor mad(t);
  EXPECT_THROW(mad.SubnGet<iba::SMPNodeInfo>(IBPath::from_string("3")), MADTimeoutError);
  EXPECT_EQ(t.sent.size(), 3u);
}

// Replies are matched by TID (the kernel's rule too; and by class and
// attribute, below): one that carries the request's TID answers it
// whichever LID it comes from.
TEST(FaultTransport, AReplyIsMatchedByTidNotBySourceLid) {
  FakeTransport t;
  t.responder = [&](FakeTransport& f, const Sent& s) {
    auto ni = node_info(0x99);
    f.reply(s, 0, ni.raw(), ni.SIZE);
    f.inbox.back().addr.lid = 77;
  };
  MadTransactor mad(t);
  IBPath p;
  p.DLID = 5;
  EXPECT_EQ(mad.SubnGet<iba::SMPNodeInfo>(p).nodeGUID(), 0x99u);
}

// A response carries its request's TID, class and AttributeID.  A reply
// with the request's TID naming another attribute (a stale reply reusing
// the TID after the 16-bit sequence wrapped, a faulty agent) is not the
// answer: the MAD stays pending, times out, is resent and takes the right
// reply.  -d says what was ignored.
TEST(FaultTransport, AReplyForAnotherAttributeDoesNotAnswer) {
  FakeTransport t;
  t.settings().timeout_ms = 20;
  t.settings().retries = 2;
  t.settings().debug = 1;
  int n = 0;
  t.responder = [&](FakeTransport& f, const Sent& s) {
    auto ni = node_info(++n == 1 ? 0xbad : 0x55);
    if (n == 2) {
      // Before the resend's answer, another stray with the first send's
      // TID: not that send's late answer either.
      f.reply(f.sent[0], 0, ni.raw(), ni.SIZE);
      iba::MADHeader::set_attributeID_at(f.inbox.back().data.data(), iba::attr_id<iba::SMPPortInfo>);
    }
    f.reply(s, 0, ni.raw(), ni.SIZE);
    if (n == 1) iba::MADHeader::set_attributeID_at(f.inbox.back().data.data(), iba::attr_id<iba::SMPPortInfo>);
  };
  MadTransactor mad(t);
  testing::internal::CaptureStderr();
  const uint64_t guid = mad.SubnGet<iba::SMPNodeInfo>(IBPath::from_string("0,3")).nodeGUID();
  log::flush();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(guid, 0x55u);
  ASSERT_EQ(t.sent.size(), 2u);  // the first try timed out; the resend was answered
  EXPECT_NE(coretest::tid_low(t.sent[0]), coretest::tid_low(t.sent[1]));
  EXPECT_EQ(mad.engine().stale(), 2u);
  EXPECT_EQ(mad.engine().resent(), 1u);
  EXPECT_EQ(mad.engine().flow_stats().late, 0u);  // (1 before the late branch checked it too)
  EXPECT_NE(err.find("D: RPC SubnGet(1) SMPFormatDirected(129.1) SMPNodeInfo(17) to DR path 0,3: ignored a reply with "
                     "its TID for another attribute: SubnGet(1) SMPFormatDirected(129.1) SMPPortInfo(21)\n"),
            std::string::npos)
      << err;
}

TEST(FaultTransport, AnSaAttributeOffsetSmallerThanTheRecordIsAnError) {
  FakeTransport t;
  // NodeRecords are 108 bytes (14 words); the SA says 8.
  t.responder = [&](FakeTransport& f, const Sent& s) { table_reply(f, s, 8, 192, 20 + 192); };
  MadTransactor mad(t);
  try {
    mad.SubnAdmGetTable(iba::SANodeRecord(), 0);
    FAIL() << "a lying attribute offset was accepted";
  } catch (const MADError& e) {
    EXPECT_NE(std::string(e.what()).find("attribute offset"), std::string::npos) << e.what();
  }
}

TEST(FaultTransport, AnSaPayloadLengthPromisingMoreGivesTheWholeRecordsAndSaysSo) {
  FakeTransport t;
  // PathRecords (64 bytes, 8 words): 3 whole ones in the MAD, the header
  // claims 10.
  t.responder = [&](FakeTransport& f, const Sent& s) { table_reply(f, s, 8, 192, 20 + 640); };
  MadTransactor mad(t);
  auto tab = mad.SubnAdmGetTable(iba::SAPathRecord(), 0);
  ASSERT_EQ(tab.records.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(tab.records[i].raw()[0], i + 1);
  EXPECT_TRUE(tab.truncated);
}

TEST(FaultTransport, AnSaPayloadLengthPromisingLessKeepsOnlyWhatItCovers) {
  FakeTransport t;
  t.responder = [&](FakeTransport& f, const Sent& s) { table_reply(f, s, 8, 192, 20 + 64); };
  MadTransactor mad(t);
  auto tab = mad.SubnAdmGetTable(iba::SAPathRecord(), 0);
  ASSERT_EQ(tab.records.size(), 1u);
  EXPECT_FALSE(tab.truncated);
}
