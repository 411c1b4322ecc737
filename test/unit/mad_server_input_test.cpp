// MadServer under bad and unexpected input: MADs of other classes, other
// class versions, other OUIs, short MADs, random bytes, responses and
// headers with GRH fields.  None may crash the server; requests it does
// not serve are dropped or answered with an error status, never with a
// payload of the served class.
#include <gtest/gtest.h>

#include <random>

#include "core/base/error.h"
#include "core/rpc/server.h"
#include "iba/vendor.h"
#include "test/unit/core_fake_transport.h"

namespace {

using coretest::FakeTransport;

// Feed one received MAD through the loop the ibping/ibsysstat servers run,
// the server answering a request it accepts with a payload of 'x' bytes.
// Returns the MADs the server sent back.
std::vector<coretest::Sent> serve(const std::array<uint8_t, 256>& mad, size_t len, bool grh = false) {
  FakeTransport t;
  ibcore::MadServer srv(t, iba::OFA_PING_CLASS, 1, iba::M_GET, iba::OFA_OUI);
  ibcore::RecvMad r;
  r.data = mad;
  r.len = len;
  r.addr.lid = 5;
  r.addr.qpn = 1;
  r.addr.grh_present = grh;
  t.inbox.push_back(r);
  ibcore::IncomingMad in;
  if (!srv.recv(in, 0)) return {};
  std::vector<uint8_t> payload(216, 'x');
  try {
    auto req = srv.parse_request(in);
    srv.send_reply(req, payload);
  } catch (const ibcore::MADError& e) {
    if (e.reply_status) srv.send_error_reply(in, e.reply_status);
  }
  return t.sent;
}

size_t serve_one(const std::array<uint8_t, 256>& mad, size_t len, bool grh = false) {
  return serve(mad, len, grh).size();
}

std::array<uint8_t, 256> ping_request() {
  std::array<uint8_t, 256> m{};
  m[0] = 1;
  m[1] = iba::OFA_PING_CLASS;
  m[2] = 1;
  m[3] = 0x01;
  m[37] = 0x00;
  m[38] = 0x14;
  m[39] = 0x05;
  return m;
}

TEST(MadServerInput, ServesItsOwnClass) {
  FakeTransport t;
  EXPECT_EQ(serve_one(ping_request(), 256), 1u);
}

TEST(MadServerInput, OtherClassesAreNotAnsweredWithOurPayload) {
  // An SMP, an SA query, a PM query, a sysstat request, a Mellanox vendor
  // MAD: the ping server must not answer them as pings.
  for (uint8_t cls : {uint8_t(0x01), uint8_t(0x81), uint8_t(0x03), uint8_t(0x04), uint8_t(0x33), uint8_t(0x0a),
                      uint8_t(0x21), uint8_t(0x7f), uint8_t(0xff)}) {
    auto m = ping_request();
    m[1] = cls;
    m[2] = cls == 0x03 || cls == 0x21 ? 2 : 1;
    m[17] = 0x11;  // NodeInfo / CongestionInfo ...
    FakeTransport t;
    ibcore::MadServer srv(t, iba::OFA_PING_CLASS, 1, iba::M_GET, iba::OFA_OUI);
    ibcore::RecvMad r;
    r.data = m;
    r.len = 256;
    r.addr.lid = 5;
    t.inbox.push_back(r);
    ibcore::IncomingMad in;
    ASSERT_TRUE(srv.recv(in, 0));
    bool threw = false;
    try {
      srv.parse_request(in);
    } catch (const ibcore::MADError&) {
      threw = true;
    }
    EXPECT_TRUE(threw) << "class " << int(cls);
  }
}

TEST(MadServerInput, WrongOuiOrVersionIsRefused) {
  auto m = ping_request();
  m[39] = 0x06;
  EXPECT_LE(serve_one(m, 256), 1u);
  auto v = ping_request();
  v[2] = 9;
  EXPECT_LE(serve_one(v, 256), 1u);
  auto b = ping_request();
  b[0] = 2;
  EXPECT_LE(serve_one(b, 256), 1u);
}

// Random MADs of every length: whatever the server sends back, a MAD that is
// not a whole ping request (class, version 1, Get, the OFA OUI, a full MAD)
// must never be answered with the ping payload.  (Crashes are the fuzz
// target's job; this checks what the server answers.)
TEST(MadServerInput, RandomInputIsNeverAnsweredWithOurPayload) {
  std::mt19937 rng(7);
  size_t answered = 0;
  for (int i = 0; i < 20000; ++i) {
    std::array<uint8_t, 256> m = ping_request();
    size_t len = 256;
    if (i % 5 != 0) {  // one in five stays a valid request
      for (auto& b : m) b = uint8_t(rng());
      if (i % 2) {
        m[0] = 1;
        m[3] &= 0x7f;
      }
      if (i % 4 == 1) m[1] = iba::OFA_PING_CLASS;
      len = 24 + rng() % 233;
    }
    bool grh = i % 3 == 0;
    auto replies = serve(m, len, grh);
    ASSERT_LE(replies.size(), 1u);
    bool valid = len == 256 && m[0] == 1 && m[1] == iba::OFA_PING_CLASS && m[2] == 1 && m[3] == iba::method::GET &&
                 m[37] == 0x00 && m[38] == 0x14 && m[39] == 0x05;
    bool payload = !replies.empty() && replies[0].mad[40] == 'x' && replies[0].mad[255] == 'x';
    if (payload) ++answered;
    if (!valid) EXPECT_FALSE(payload) << "input " << i << " len " << len;
    else EXPECT_TRUE(payload) << "valid request " << i << " not answered";
  }
  EXPECT_GE(answered, 4000u);
}

}  // namespace
