// ibping / ibsysstat: the OpenFabrics vendor classes 0x32 / 0x33.
//
// 1. What the servers answer (cpu lines from a /proc/cpuinfo text, reply
//    text cut to the data area) and the wire format both sides use, through
//    an in-memory transport: the request is VendGet of attribute 0 (ping)
//    or 0x10..0x12 (sysstat) in the range 2 vendor format, OUI 00:14:05 in
//    bytes 37..39, the reply text at byte 40.
// 2. What the server drops and refuses.
// End to end on ibsim, against the reference tools in all four directions:
// test/integration/ofa_e2e_test.cpp.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "core/rpc/ofavendor.h"
#include "core/rpc/rpc.h"
#include "core/rpc/server.h"
#include "core_fake_transport.h"
#include "iba/vendor.h"

using coretest::FakeTransport;

TEST(OfaVendor, CpuLinesFromCpuinfo) {
  std::string in(
      "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel\t\t: 85\nmodel name\t: Xeon A\ncpu MHz\t\t: 2700.000\n\n"
      "processor\t: 1\nmodel name\t: Xeon B\ncpu MHz\t\t: 1200.5\n");
  EXPECT_EQ(ibcore::ofa::cpu_lines(in),
            "cpu 0: model  Xeon A MHZ  2700.000\n"
            "cpu 1: model  Xeon B MHZ  1200.5\n");
  std::string none;
  EXPECT_EQ(ibcore::ofa::cpu_lines(none), "");
}

TEST(OfaVendor, ReplyTextIsCutToTheDataArea) {
  auto p = ibcore::ofa::payload_of_text(std::string(300, 'x'), 216);
  ASSERT_EQ(p.size(), 216u);
  EXPECT_EQ(p[214], 'x');
  EXPECT_EQ(p[215], 0);
  EXPECT_EQ(ibcore::ofa::text_of(p).size(), 215u);
}

namespace {
// A client request as ibping / ibsysstat build it.
std::array<uint8_t, 256> client_request(uint8_t cls, uint16_t attr, uint32_t oui) {
  std::vector<uint8_t> pl(216, 0);
  ibcore::MadRequest req;
  req.cls = iba::find_class(cls);
  req.method = iba::method::GET;
  req.attr_id = attr;
  req.oui = oui;
  req.payload = pl;
  std::array<uint8_t, 256> mad{};
  ibcore::IBPath path;
  path.DLID = 4;
  ibcore::build_mad(mad.data(), req, path, 0x1234);
  return mad;
}
}  // namespace

TEST(OfaVendor, WireFormatAndLoopback) {
  struct Case {
    uint8_t cls;
    uint16_t attr;
  };
  for (Case c : {Case{iba::OFA_PING_CLASS, 0x0000}, Case{iba::OFA_SYSSTAT_CLASS, 0x0010},
                 Case{iba::OFA_SYSSTAT_CLASS, 0x0011}, Case{iba::OFA_SYSSTAT_CLASS, 0x0012}}) {
    auto mad = client_request(c.cls, c.attr, iba::OFA_OUI);
    EXPECT_EQ(mad[0], 1);       // base version
    EXPECT_EQ(mad[1], c.cls);   // management class
    EXPECT_EQ(mad[2], 1);       // class version
    EXPECT_EQ(mad[3], 0x01);    // Get
    EXPECT_EQ(mad[16] << 8 | mad[17], c.attr);
    EXPECT_EQ(mad[37], 0x00);
    EXPECT_EQ(mad[38], 0x14);
    EXPECT_EQ(mad[39], 0x05);

    // The server side: registered for the class, it parses the request
    // and answers with text at byte 40.
    FakeTransport t;
    ibcore::MadServer srv(t, c.cls, 1, iba::M_GET, iba::OFA_OUI);
    ibcore::RecvMad r;
    r.data = mad;
    r.len = 256;
    r.addr.lid = 1;
    r.addr.qpn = 1;
    t.inbox.push_back(r);
    ibcore::IncomingMad in;
    ASSERT_TRUE(srv.recv(in, 0));
    auto req = srv.parse_request(in);
    EXPECT_EQ(req.attr_id, c.attr);
    srv.send_reply(req, ibcore::ofa::payload_of_text("host.(none)", 216));
    ASSERT_EQ(t.sent.size(), 1u);
    const auto& rep = t.sent[0].mad;
    EXPECT_EQ(rep[3], 0x81);  // GetResp
    EXPECT_EQ(rep[1], c.cls);
    EXPECT_EQ(rep[37] << 16 | rep[38] << 8 | rep[39], int(iba::OFA_OUI));
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(rep.data() + 40)), "host.(none)");
    EXPECT_EQ(ibcore::ofa::text_of(ibcore::MadTransactor::payload_of(rep)), "host.(none)");
    EXPECT_EQ(t.sent[0].path.DLID, 1);
  }
  // An attribute the class does not have is refused with the generic status.
  auto bad = client_request(iba::OFA_SYSSTAT_CLASS, 0x0010, iba::OFA_OUI);
  bad[17] = 0x20;
  FakeTransport t;
  ibcore::MadServer srv(t, iba::OFA_SYSSTAT_CLASS, 1, iba::M_GET, iba::OFA_OUI);
  ibcore::IncomingMad in;
  in.raw.data = bad;
  in.raw.len = 256;
  EXPECT_THROW(srv.parse_request(in), ibcore::MADError);
}

// A request of another OUI or another class is dropped (reply_status 0:
// no answer), as the kernel would not deliver it; a wrong class version is
// refused with BAD_VERSION.
TEST(OfaVendor, OtherOuiOrClassIsDroppedNotAnswered) {
  FakeTransport t;
  ibcore::MadServer srv(t, iba::OFA_PING_CLASS, 1, iba::M_GET, iba::OFA_OUI);
  auto parse = [&](const std::array<uint8_t, 256>& mad) -> uint16_t {
    ibcore::IncomingMad in;
    in.raw.data = mad;
    in.raw.len = 256;
    try {
      srv.parse_request(in);
    } catch (const ibcore::MADError& e) {
      return e.reply_status;
    }
    return 0xffff;  // accepted
  };
  EXPECT_EQ(parse(client_request(iba::OFA_PING_CLASS, 0, iba::OFA_OUI)), 0xffff);
  EXPECT_EQ(parse(client_request(iba::OFA_PING_CLASS, 0, 0x001234)), 0);
  EXPECT_EQ(parse(client_request(iba::OFA_SYSSTAT_CLASS, 0x11, iba::OFA_OUI)), 0);
  auto v2 = client_request(iba::OFA_PING_CLASS, 0, iba::OFA_OUI);
  v2[2] = 2;
  EXPECT_EQ(parse(v2), ibcore::mad_status::BAD_VERSION);
}
