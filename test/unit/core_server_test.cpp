// Server side: parse_request accepts what the class registry allows and
// rejects the rest with the right reply status; replies echo the request.
#include <gtest/gtest.h>

#include "core/rpc/rpc.h"
#include "core/out/log.h"
#include "core/rpc/server.h"
#include "core/transport/transport.h"
#include "core_fake_transport.h"
#include "iba/smp.h"

using namespace ibcore;
using coretest::FakeTransport;

namespace {
IncomingMad request(uint8_t method, uint16_t attr) {
  IncomingMad in;
  auto& m = in.raw.data;
  m.fill(0);
  m[0] = 1;
  m[1] = 0x01;
  m[2] = 1;
  m[3] = method;
  m[8] = 0xab;  // TID
  m[16] = uint8_t(attr >> 8);
  m[17] = uint8_t(attr);
  m[23] = 2;
  in.raw.len = 256;
  in.raw.addr.lid = 9;
  in.raw.addr.qpn = 0;
  return in;
}
}  // namespace

TEST(CoreServer, ParseReplyAndErrors) {
  FakeTransport t;
  MadServer srv(t, 0x01, 1, iba::M_GET);
  IncomingMad in = request(iba::method::GET, 0x0011);
  t.inbox.push_back(in.raw);
  IncomingMad got;
  ASSERT_TRUE(srv.recv(got, 0));
  ParsedRequest r = srv.parse_request(got);
  EXPECT_EQ(r.attr->desc, &iba::SMPNodeInfo::DESC);
  EXPECT_EQ(r.amod, 2u);
  EXPECT_EQ(r.reply_path.DLID, 9);
  iba::SMPNodeInfo ni;
  ni.set_nodeGUID(0x55);
  srv.send_reply(r, ni.bytes());
  ASSERT_EQ(t.sent.size(), 1u);
  EXPECT_EQ(t.sent[0].mad[3], iba::method::GET_RESP);
  EXPECT_EQ(t.sent[0].mad[8], 0xab);
  EXPECT_EQ(t.sent[0].path.DLID, 9);
  EXPECT_EQ(MadTransactor::decode<iba::SMPNodeInfo>(t.sent[0].mad).nodeGUID(), 0x55u);

  // NodeInfo cannot be set; an unknown attribute is unsupported.
  for (auto bad : {request(iba::method::SET, 0x0011), request(iba::method::GET, 0x7777)}) {
    try {
      srv.parse_request(bad);
      FAIL();
    } catch (const MADError& e) {
      EXPECT_EQ(e.reply_status, mad_status::UNSUP_METHOD_ATTR);
      srv.send_error_reply(bad, e.reply_status);
    }
  }
  ASSERT_EQ(t.sent.size(), 3u);
  EXPECT_EQ(t.sent[2].mad[5], mad_status::UNSUP_METHOD_ATTR);
  EXPECT_EQ(t.sent[2].mad[3], iba::method::GET_RESP);
  // Responses are not requests: recv skips them.
  IncomingMad resp = request(iba::method::GET_RESP, 0x0011);
  t.inbox.push_back(resp.raw);
  EXPECT_FALSE(srv.recv(got, 0));
}

// A reply leaves with the P_Key index its request arrived with (issue 13),
// and the -d trace shows both (the fabric test cannot: the simulator
// delivers every MAD with index 0).
TEST(CoreServer, ReplyKeepsTheRequestsPKeyIndexAndTracesIt) {
  FakeTransport t;
  t.settings().pkey_index = 9;  // the server's own -Y
  MadServer srv(t, iba::mgmt::PERF, 1, iba::M_GET);
  srv.set_trace(1);
  IncomingMad in = request(iba::method::GET, 0x0012);  // PortCounters
  iba::MADHeader::set_mgmtClass_at(in.raw.data.data(), iba::mgmt::PERF);
  in.raw.addr.pkey_index = 4;
  t.inbox.push_back(in.raw);
  testing::internal::CaptureStderr();
  IncomingMad got;
  ASSERT_TRUE(srv.recv(got, 0));
  srv.send_reply(srv.parse_request(got), {});
  ibcore::log::flush();
  std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(t.sent.size(), 1u);
  EXPECT_EQ(ibcore::pkey_index_of(t.sent[0].path, iba::mgmt::PERF, 9), 4);
  EXPECT_EQ(err.rfind("D: recv PerformanceGet(1) PMFormat(4.1) PMPortCounters(18) from lid 9 pkey_index 4\n", 0), 0u)
      << err;
  EXPECT_NE(err.find("D: send PerformanceGet(1) PMFormat(4.1) PMPortCounters(18) to lid 9 pkey_index 4\n"),
            std::string::npos)
      << err;
  // Without tracing, nothing is written.
  srv.set_trace(0);
  t.inbox.push_back(in.raw);
  testing::internal::CaptureStderr();
  ASSERT_TRUE(srv.recv(got, 0));
  srv.send_reply(srv.parse_request(got), {});
  ibcore::log::flush();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}
