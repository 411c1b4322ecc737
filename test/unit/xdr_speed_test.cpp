// XDR and the extended speeds as one set (issue 13): the LinkSpeedExt*2
// fields where upstream libibmad places them (rdma-core v50+, fields.c:
// bits 449, 451, 453 of PortInfo), their SA component, iba::ext_speeds
// (upstream libibnetdisc's aggregate speeds: XDR = 32), and the names and
// lines the commands print from them.
#include <gtest/gtest.h>

#include "core/health/checks.h"
#include "core/fabric/netprint.h"
#include "core/fabric/subnet.h"
#include "iba/enums.h"
#include "iba/introspect.h"
#include "iba/refprint.h"
#include "iba/refprint_sa.h"
#include "iba/refprint_smp.h"
#include "iba/sa.h"
#include "iba/smp.h"
#include "test/unit/subnet_test_fabric.h"

namespace {

using iba::SpeedOf;
using iba::SMPPortInfo;

// A port's PortInfo with the capability masks that make both extended
// speed field sets valid.
SMPPortInfo capable(SMPPortInfo p, bool ext2 = true) {
  p.set_capabilityMask(iba::enums::CAP_IS_EXTENDED_SPEEDS | iba::enums::CAP_IS_CAPABILITY_MASK2);
  p.set_capabilityMask2(ext2 ? iba::enums::CAP2_IS_EXT_SPEEDS2 | iba::enums::CAP2_IS_LINK_SPEED_XDR : 0);
  return p;
}

TEST(XdrSpeeds, FieldsLieInReserved448WhereUpstreamPutsThem) {
  SMPPortInfo p;
  p.set_linkSpeedExtActive2(1).set_linkSpeedExtSupported2(1).set_linkSpeedExtEnabled2(1);
  // Byte 56 is bits 448-455: 0 | Active2 (2) | Supported2 (2) | Enabled2 (3).
  EXPECT_EQ(p.raw()[56], 0x29);
  p = SMPPortInfo();
  p.set_linkSpeedExtEnabled2(7);
  EXPECT_EQ(p.raw()[56], 0x07);
  EXPECT_EQ(p.raw()[57], 0);  // LinkRoundTripLatency untouched
  // query / decode_mad find them by name.
  EXPECT_EQ(iba::field_named(SMPPortInfo::DESC, "LinkSpeedExtActive2").bit_off, 449u);
}

TEST(XdrSpeeds, SaComponentsStayTheOnesOpenSMNumbers) {
  const auto& D = iba::SAPortInfoRecord::DESC;
  // OpenSM's ib_types.h: IB_PIR_COMPMASK_RESV5 (the reserved byte at 448)
  // is bit 51, LINKRTLAT 52, CAPMASK2 53, LINKSPDEXTENAB 57.
  for (const char* f : {"portInfo.linkSpeedExtActive2", "portInfo.linkSpeedExtSupported2",
                        "portInfo.linkSpeedExtEnabled2"})
    EXPECT_EQ(iba::component_mask(D, f), uint64_t(1) << 51) << f;
  EXPECT_EQ(iba::component_mask(D, "portInfo.linkRoundTripLatency"), uint64_t(1) << 52);
  EXPECT_EQ(iba::component_mask(D, "portInfo.capabilityMask2"), uint64_t(1) << 53);
  EXPECT_EQ(iba::component_mask(D, "portInfo.linkSpeedExtEnabled"), uint64_t(1) << 57);
}

TEST(XdrSpeeds, ExtSpeedsCountOnlyWhatTheCapabilityMasksAnnounce) {
  SMPPortInfo p;
  p.set_linkSpeedExtActive(8).set_linkSpeedExtSupported(0xf).set_linkSpeedExtEnabled(0xf);
  p.set_linkSpeedExtActive2(1).set_linkSpeedExtSupported2(1).set_linkSpeedExtEnabled2(1);
  SMPPortInfo none;  // no IsExtendedSpeedsSupported: no extended speeds at all
  EXPECT_EQ(iba::ext_speeds(p, none, SpeedOf::Active), 0u);
  // Extended speeds but no IsExtSpeeds2Supported: the *2 fields are
  // reserved bits.
  EXPECT_EQ(iba::ext_speeds(p, capable(p, false), SpeedOf::Active), 8u);
  EXPECT_EQ(iba::ext_speeds(p, capable(p, false), SpeedOf::Supported), 0xfu);
  // Both: XDR is 32 in the set, and the active speed when set.
  EXPECT_EQ(iba::ext_speeds(p, capable(p), SpeedOf::Active), 32u);
  EXPECT_EQ(iba::ext_speeds(p, capable(p), SpeedOf::Supported), 0x2fu);
  EXPECT_EQ(iba::ext_speeds(p, capable(p), SpeedOf::Enabled), 0x2fu);
  p.set_linkSpeedExtActive2(0);
  EXPECT_EQ(iba::ext_speeds(p, capable(p), SpeedOf::Active), 8u);
  // LinkSpeedExtEnabled 30: extended speeds disabled, XDR's field still counts.
  p.set_linkSpeedExtEnabled(30);
  EXPECT_EQ(iba::ext_speeds(p, capable(p), SpeedOf::Enabled), 32u);
}

// Golden lines from upstream's formatting rules (rdma-core v50 libibmad
// dump.c mad_dump_linkspeedext2 / dump_linkspeedext2, libibnetdisc's
// ibnd_dump_agg_linkspeedext, ibnetdiscover's dump_linkspeedext_compat).
TEST(XdrSpeeds, NamesAndLinesAsUpstreamPrintsThem) {
  EXPECT_EQ(iba::ref::fmt_link_speed_ext(32), "212.5 Gbps");
  EXPECT_EQ(iba::ref::fmt_link_speed_ext(8), "106.25 Gbps");
  EXPECT_EQ(iba::ref::fmt_link_speed_ext(16), "undefined (16)");
  EXPECT_EQ(iba::ref::dotted("LinkSpeedExtActive2", iba::ref::fmt_link_speed_ext2(1)),
            "LinkSpeedExtActive2:.............212.5 Gbps\n");
  EXPECT_EQ(iba::ref::fmt_link_speed_ext2(0), "No Extended Speed 2");
  EXPECT_EQ(iba::ref::fmt_link_speed_ext2(2), "undefined (2)");
  EXPECT_EQ(iba::ref::dotted("LinkSpeedExtSupported2", iba::ref::fmt_link_speed_ext2_set(1)),
            "LinkSpeedExtSupported2:..........212.5 Gbps\n");
  EXPECT_EQ(iba::ref::fmt_link_speed_ext2_set(0), "0");
  EXPECT_EQ(iba::ref::fmt_link_speed_ext2_set(3), " undefined (3)");
  EXPECT_STREQ(iba::enums::name_of(iba::enums::link_speeds_ext(), 32), "XDR");
  EXPECT_EQ(iba::enums::name_of(iba::enums::link_speeds_ext(), 16), nullptr);
  EXPECT_EQ(iba::enums::mask_names(iba::enums::capability_mask2(), 0x1800),
            "IsExtSpeeds2Supported,IsLinkSpeedXDRSupported");
}

// smpquery portinfo and saquery PortInfoRecord (issue 27): XDR's three
// lines, as upstream's dump_portinfo ends, on a port that announces
// extended speeds 2; nothing new on one that does not (44's output); and
// always at compat = current, as upstream prints them on every port.
TEST(XdrSpeeds, PortInfoDumpsEndWithTheXdrLinesWhereAnnouncedOrAtCurrent) {
  const std::string xdr_lines =
      "LinkSpeedExtActive2:.............212.5 Gbps\n"
      "LinkSpeedExtSupported2:..........212.5 Gbps\n"
      "LinkSpeedExtEnabled2:............212.5 Gbps\n";
  const std::string none_lines =
      "LinkSpeedExtActive2:.............No Extended Speed 2\n"
      "LinkSpeedExtSupported2:..........0\n"
      "LinkSpeedExtEnabled2:............0\n";
  SMPPortInfo xdr;
  xdr.set_linkSpeedExtActive2(1);
  xdr.set_linkSpeedExtSupported2(1);
  xdr.set_linkSpeedExtEnabled2(1);
  auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  iba::ref::SmpPrintOptions at44, current;
  current.compat = iba::ref::Compat::Current;
  // Announced: the lines at both levels, with or without -K.
  for (bool keys : {false, true}) {
    at44.show_keys = current.show_keys = keys;
    EXPECT_TRUE(ends_with(iba::ref::smp_print(capable(xdr), at44), xdr_lines));
    EXPECT_TRUE(ends_with(iba::ref::smp_print(capable(xdr), current), xdr_lines));
  }
  // Not announced (CapabilityMask2 without the bit, or no CapabilityMask2):
  // 44's dump, which ends with LinkSpeedExtEnabled; upstream's lines at
  // compat = current.
  for (SMPPortInfo quiet : {capable(xdr, false), xdr}) {
    std::string s44 = iba::ref::smp_print(quiet, at44);
    EXPECT_EQ(s44.find("Active2"), std::string::npos) << s44;
    EXPECT_TRUE(ends_with(s44, "LinkSpeedExtEnabled:.............0\n")) << s44;
    EXPECT_EQ(iba::ref::smp_print(quiet, current), s44 + xdr_lines);
  }
  EXPECT_EQ(iba::ref::smp_print(SMPPortInfo{}, current), iba::ref::smp_print(SMPPortInfo{}, at44) + none_lines);
  // A switch's external port (no masks of its own): port 0's masks say.
  SMPPortInfo port0 = capable(SMPPortInfo{});
  at44.capability = &port0;
  EXPECT_TRUE(ends_with(iba::ref::smp_print(xdr, at44), xdr_lines));
  SMPPortInfo quiet0 = capable(SMPPortInfo{}, false);
  at44.capability = &quiet0;
  EXPECT_EQ(iba::ref::smp_print(capable(xdr), at44).find("Active2"), std::string::npos);
  at44.capability = nullptr;
  // saquery PortInfoRecord: the same lines, indented as its PortInfo dump.
  iba::SAPortInfoRecord pir;
  pir.set_portInfo(xdr);
  iba::ref::SaPrintOptions sa44, sacur;
  sacur.compat = iba::ref::Compat::Current;
  std::string indented = "\t\tLinkSpeedExtActive2:.............212.5 Gbps\n"
                         "\t\tLinkSpeedExtSupported2:..........212.5 Gbps\n"
                         "\t\tLinkSpeedExtEnabled2:............212.5 Gbps\n";
  EXPECT_EQ(iba::ref::sa_print(pir, sa44).find("Active2"), std::string::npos);
  EXPECT_EQ(iba::ref::sa_print(pir, sacur), iba::ref::sa_print(pir, sa44) + indented);
  sacur.show_keys = true;
  EXPECT_TRUE(ends_with(iba::ref::sa_print(pir, sacur), indented));
  pir.set_portInfo(capable(xdr));
  EXPECT_TRUE(ends_with(iba::ref::sa_print(pir, sa44), indented));
}

// The database's view: ibnetdiscover's speed word, the active speed, and
// the health family's speed check, on a link between XDR ports.
TEST(XdrSpeeds, SubnetSpeedWordsAndTheSpeedCheck) {
  TestFabric f = TestFabric::two_switches();
  auto& db = f.db;
  const uint32_t s1 = 0, h1 = 2;
  SMPPortInfo sw0 = capable(TestFabric::pi(1, 0, true));
  db.set_port_info(s1, 0, sw0.bytes());
  auto xdr = [&](uint32_t node, unsigned port, uint16_t lid, bool active_xdr) {
    SMPPortInfo p = TestFabric::pi(lid, 0, true);
    p.set_linkWidthSupported(3).set_linkSpeedActive(1).set_linkSpeedExtActive(8).set_linkSpeedExtSupported(0xf).set_linkSpeedExtEnabled(0xf);
    p.set_linkSpeedExtActive2(active_xdr ? 1 : 0).set_linkSpeedExtSupported2(1).set_linkSpeedExtEnabled2(1);
    if (!db.node(node).is_switch()) p = capable(p);
    db.set_port_info(node, port, p.bytes());
  };
  xdr(s1, 1, 0, true);
  xdr(h1, 1, 2, true);
  const auto& sp = db.port(db.node(s1), 1);
  EXPECT_EQ(ibcore::ext_speed_active(db, sp), 32u);
  EXPECT_STREQ(ibcore::port_speed_compat(db, sp), "XDR");
  EXPECT_TRUE(ibcore::health::check_port_speed(db, h1, 1).empty());

  // The HCA's port runs at NDR while both ends have XDR enabled.
  xdr(h1, 1, 2, false);
  EXPECT_STREQ(ibcore::port_speed_compat(db, db.port(db.node(h1), 1)), "NDR");
  auto found = ibcore::health::check_port_speed(db, h1, 1);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].what, "link speed 106.25 Gbps (NDR), both ends have 212.5 Gbps (XDR) enabled");

  // iblinkinfo's and ibqueryerrors' link columns.
  const auto& hp = db.port(db.node(h1), 1);
  EXPECT_EQ(ibcore::active_speed_text(db, sp), "212.5 Gbps");
  EXPECT_EQ(ibcore::active_speed_text(db, hp), "106.25 Gbps");
  std::string wmsg, smsg;
  ibcore::could_be(db, hp, sp, wmsg, smsg);
  EXPECT_EQ(smsg, "Could be 212.5 Gbps");
  EXPECT_EQ(wmsg, "");

  // Without IsExtSpeeds2Supported on the HCA the *2 bits mean nothing.
  SMPPortInfo p = db.port(db.node(h1), 1).port_info();
  db.set_port_info(h1, 1, capable(p, false).bytes());
  EXPECT_EQ(ibcore::ext_speed_active(db, db.port(db.node(h1), 1)), 8u);
}

}  // namespace
