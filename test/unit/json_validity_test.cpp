// Never print what was not read (issue 36 item 2): a field whose
// declaration names the capability that makes it valid (iba/struct.h,
// iba/enums.h Validity) is null in --json where that capability is known
// to be absent, whatever bytes the agent left there.  Checked on the
// declarations (iba::field_valid, iba::own_capabilities) and through the
// JSON writer (core/out/json) with the attributes as a PMA of CapMask 0x1200
// (PortCountersExtended without CapabilityMask2's additional counters, no
// QP1Dropped) answers them: the bytes past what it filled are noise.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "core/fabric/json_net.h"
#include "core/out/json.h"
#include "core/out/print.h"
#include "core/rpc/portcaps.h"
#include "iba/introspect.h"
#include "iba/pm.h"
#include "iba/sa.h"
#include "iba/smp.h"

namespace {

using nlohmann::json;

template <class F>
json document(F body) {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  {
    ibcore::TextOut o(f);
    ibcore::JsonOut j(o, false);
    j.obj();
    body(j);
    j.end().finish();
  }
  std::fclose(f);
  std::string s(buf, len);
  std::free(buf);
  return json::parse(s);
}

// Every byte of w set to noise, as the bytes a PMA did not fill may be.
template <class T>
void noise(T& w) {
  for (size_t i = 0; i < w.buf.size(); ++i) w.buf[i] = uint8_t(0xa5 ^ (i * 37));
}

iba::Capabilities pma(uint32_t cap, uint32_t cap2) {
  iba::Capabilities c;
  c.pm_cap = cap;
  c.pm_cap2 = cap2;
  return c;
}

TEST(JsonValidity, DeclarationsNameTheCapabilities) {
  auto valid = [](const iba::StructDesc& d, const char* name, const iba::Capabilities& c) {
    return iba::field_valid(*iba::field_named(d, name).field, c);
  };
  const auto& pc = iba::PMPortCounters::DESC;
  const auto& pce = iba::PMPortCountersExtended::DESC;
  EXPECT_EQ(valid(pc, "portXmitWait", pma(0x1200, 0)), true);
  EXPECT_EQ(valid(pc, "portXmitWait", pma(0x0200, 0)), false);
  EXPECT_EQ(valid(pc, "QP1Dropped", pma(0x1200, 0)), false);
  EXPECT_EQ(valid(pc, "QP1Dropped", pma(0x9200, 0)), true);
  EXPECT_EQ(valid(pc, "symbolErrorCounter", pma(0, 0)), true) << "a mandatory counter";
  EXPECT_EQ(valid(pc, "portXmitWait", {}), std::nullopt) << "no ClassPortInfo known";
  EXPECT_EQ(valid(pce, "portXmitData", pma(0x0400, 0)), true) << "NoIETF: the data counters";
  EXPECT_EQ(valid(pce, "portUnicastXmitPkts", pma(0x0400, 0)), false) << "NoIETF: not the IETF ones";
  EXPECT_EQ(valid(pce, "portUnicastXmitPkts", pma(0x0200, 0)), true);
  EXPECT_EQ(valid(pce, "symbolErrorCounter", pma(0x1200, 0)), false);
  EXPECT_EQ(valid(pce, "symbolErrorCounter", pma(0x1200, 2)), true);
  EXPECT_EQ(valid(pce, "portXmitWait", pma(0x1200, 0)), false);
  EXPECT_EQ(valid(pce, "portXmitWait", pma(0x1200, 2)), true);
  EXPECT_EQ(valid(pce, "portXmitWait", pma(0x0200, 2)), false) << "also its own CapabilityMask bit";
  EXPECT_EQ(valid(pce, "QP1Dropped", pma(0x1200, 2)), false);
  EXPECT_EQ(valid(pce, "QP1Dropped", pma(0x9200, 2)), true);
}

// perfquery -x -j on a PMA of CapMask 0x1200, CapMask2 0: the data
// counters and the IETF ones, nothing past them.
TEST(JsonValidity, CountersThePmaDoesNotAnnounceAreNull) {
  iba::PMPortCountersExtended x;
  noise(x);
  x.set_portXmitData(123456789012345ull);
  json d = document([&](ibcore::JsonOut& j) {
    j.key("PortCountersExtended").obj().fields(x.DESC, x.raw(), {}, pma(0x1200, 0)).end();
  });
  const json& a = d["PortCountersExtended"];
  EXPECT_EQ(a["portXmitData"], 123456789012345ull);
  for (const char* k : {"portRcvData", "portXmitPkts", "portRcvPkts", "portUnicastXmitPkts", "portMulticastRcvPkts"})
    EXPECT_TRUE(a[k].is_number_unsigned()) << k << ": " << a[k];
  for (const char* k : {"symbolErrorCounter", "linkDownedCounter", "VL15Dropped", "portXmitWait", "QP1Dropped"}) {
    ASSERT_TRUE(a.contains(k)) << k;
    EXPECT_TRUE(a[k].is_null()) << k << " is " << a[k] << ": bytes the PMA did not fill";
  }
  // With the additional counters announced they are numbers again (QP1Dropped
  // still needs its own bit).
  d = document([&](ibcore::JsonOut& j) { j.key("x").obj().fields(x.DESC, x.raw(), {}, pma(0x1200, 2)).end(); });
  EXPECT_TRUE(d["x"]["symbolErrorCounter"].is_number_unsigned());
  EXPECT_TRUE(d["x"]["portXmitWait"].is_number_unsigned());
  EXPECT_TRUE(d["x"]["QP1Dropped"].is_null());

  iba::PMPortCounters pc;
  noise(pc);
  d = document([&](ibcore::JsonOut& j) { j.key("pc").obj().fields(pc.DESC, pc.raw(), {}, pma(0x0200, 0)).end(); });
  EXPECT_TRUE(d["pc"]["portXmitWait"].is_null());
  EXPECT_TRUE(d["pc"]["QP1Dropped"].is_null());
  EXPECT_TRUE(d["pc"]["symbolErrorCounter"].is_number_unsigned());
}

// Through the output layer as perfquery describes it (Printer::attribute).
TEST(JsonValidity, PrinterAttributeTakesTheCapabilities) {
  iba::PMPortCountersExtended x;
  noise(x);
  json d = document([&](ibcore::JsonOut& j) {
    ibcore::Printer p(j);
    p.attribute("PortCountersExtended", x.DESC, x.raw(), [] { return std::string(); }, {}, pma(0x1200, 0));
  });
  EXPECT_TRUE(d["PortCountersExtended"]["portXmitWait"].is_null()) << d;
  EXPECT_TRUE(d["PortCountersExtended"]["QP1Dropped"].is_null()) << d;
}

// A PortInfo carries its own capability masks: its extended speeds (and
// CapabilityMask2) are null where they do not announce them; a zero
// CapabilityMask (reserved on a switch's external ports) says nothing.
TEST(JsonValidity, PortInfoFieldsFollowItsCapabilityMasks) {
  iba::SMPPortInfo pi;
  noise(pi);
  pi.set_capabilityMask(0x02000000 /* no ext speeds, no CapabilityMask2 */);
  json d = document([&](ibcore::JsonOut& j) { j.key("pi").obj().fields(pi.DESC, pi.raw()).end(); });
  for (const char* k : {"linkSpeedExtActive", "linkSpeedExtSupported", "linkSpeedExtEnabled", "linkSpeedExtActive2",
                        "capabilityMask2"}) {
    EXPECT_TRUE(d["pi"][k].is_null()) << k << " is " << d["pi"][k];
    EXPECT_FALSE(d["pi"].contains(std::string(k) + "Raw")) << k;
  }
  EXPECT_TRUE(d["pi"]["linkWidthActive"].is_string());
  pi.set_capabilityMask(iba::enums::CAP_IS_EXTENDED_SPEEDS | iba::enums::CAP_IS_CAPABILITY_MASK2);
  pi.set_capabilityMask2(0);
  pi.set_linkSpeedExtActive(2);
  d = document([&](ibcore::JsonOut& j) { j.key("pi").obj().fields(pi.DESC, pi.raw()).end(); });
  EXPECT_EQ(d["pi"]["linkSpeedExtActiveRaw"], 2);
  EXPECT_EQ(d["pi"]["capabilityMask2"], 0);
  EXPECT_TRUE(d["pi"]["linkSpeedExtActive2"].is_null()) << "CapabilityMask2 lacks IsExtSpeeds2Supported";
  // A switch's external port: its own mask reserved (0), port 0's given.
  pi.set_capabilityMask(0);
  d = document([&](ibcore::JsonOut& j) { j.key("pi").obj().fields(pi.DESC, pi.raw()).end(); });
  EXPECT_EQ(d["pi"]["linkSpeedExtActiveRaw"], 2) << "unknown: shown as read";
  iba::Capabilities port0;
  port0.port_cap = 0x02000000;
  port0.port_cap2 = 0;
  d = document([&](ibcore::JsonOut& j) { j.key("pi").obj().fields(pi.DESC, pi.raw(), {}, port0).end(); });
  EXPECT_TRUE(d["pi"]["linkSpeedExtActive"].is_null());
}

// PortInfoExtended's FEC fields are valid by its own CapabilityMask
// (IsFECModeSupported); there a zero mask is an answer, not "unknown".
TEST(JsonValidity, PortInfoExtendedFecFieldsFollowItsOwnMask) {
  iba::SMPPortInfoExtended pie;
  noise(pie);
  pie.set_capabilityMask(0);
  json d = document([&](ibcore::JsonOut& j) { j.key("pie").obj().fields(pie.DESC, pie.raw()).end(); });
  EXPECT_EQ(d["pie"]["capabilityMask"], 0);
  for (const char* k : {"FECModeActive", "FDRFECModeSupported", "EDRFECModeEnabled", "HDRFECModeSupported",
                        "NDRFECModeEnabled"})
    EXPECT_TRUE(d["pie"][k].is_null()) << k << " is " << d["pie"][k];
  pie.set_capabilityMask(iba::enums::PORT_EXT_CAP_IS_FEC_MODE);
  pie.set_FECModeActive(2);
  d = document([&](ibcore::JsonOut& j) { j.key("pie").obj().fields(pie.DESC, pie.raw()).end(); });
  EXPECT_EQ(d["pie"]["FECModeActive"], 2);
  EXPECT_TRUE(d["pie"]["NDRFECModeSupported"].is_number_unsigned());
}

// SwitchInfo.MulticastFDBTop is valid where the switch's port 0 announces
// IsMulticastFDBTopSupported; the switch's masks come from outside it.
TEST(JsonValidity, SwitchInfoMulticastTopFollowsPortZero) {
  iba::SMPSwitchInfo si;
  noise(si);
  auto masks = [](uint32_t cap) {
    iba::Capabilities c;
    c.port_cap = cap;
    return c;
  };
  json d = document([&](ibcore::JsonOut& j) { j.key("si").obj().fields(si.DESC, si.raw(), {}, masks(0x02000000)).end(); });
  EXPECT_TRUE(d["si"]["multicastFDBTop"].is_null()) << d["si"]["multicastFDBTop"];
  EXPECT_TRUE(d["si"]["linearFDBCap"].is_number_unsigned());
  d = document([&](ibcore::JsonOut& j) {
    j.key("si").obj().fields(si.DESC, si.raw(), {}, masks(iba::enums::CAP_IS_MCAST_FDB_TOP)).end();
  });
  EXPECT_EQ(d["si"]["multicastFDBTop"], si.multicastFDBTop());
}

// The RS-FEC form of PortExtendedSpeedsCounters: its counters only where
// the PMA announces IsRSFECCountersSupported (lanes as a whole array).
TEST(JsonValidity, RsFecCountersFollowThePma) {
  iba::PMPortExtendedSpeedsCountersRSFEC r;
  noise(r);
  json d = document([&](ibcore::JsonOut& j) { j.key("r").obj().fields(r.DESC, r.raw(), {}, pma(0x1200, 0)).end(); });
  EXPECT_TRUE(d["r"]["FECCorrectableSymbolCounterLane"].is_null());
  EXPECT_TRUE(d["r"]["portFECCorrectedSymbolCounter"].is_null());
  EXPECT_TRUE(d["r"]["portSelect"].is_number_unsigned());
  d = document([&](ibcore::JsonOut& j) {
    j.key("r").obj().fields(r.DESC, r.raw(), {}, pma(0x1200 | iba::enums::PM_CAP_RSFEC, 0)).end();
  });
  ASSERT_TRUE(d["r"]["FECCorrectableSymbolCounterLane"].is_array());
  EXPECT_EQ(d["r"]["FECCorrectableSymbolCounterLane"].size(), 12u);
  EXPECT_TRUE(d["r"]["portFECCorrectedSymbolCounter"].is_number_unsigned());
}

// A capability that costs a query is asked only for the JSON.
TEST(JsonValidity, PrinterAsksLazyCapabilitiesOnlyForJson) {
  iba::SMPSwitchInfo si;
  noise(si);
  int asked = 0;
  auto caps = [&] {
    ++asked;
    iba::Capabilities c;
    c.port_cap = 0x02000000;
    return c;
  };
  {
    FILE* devnull = std::fopen("/dev/null", "w");
    ASSERT_NE(devnull, nullptr);
    {
      ibcore::Printer text(devnull);
      text.attribute("SwitchInfo", si.DESC, si.raw(), [] { return std::string("t\n"); }, {}, caps);
    }
    std::fclose(devnull);
  }
  EXPECT_EQ(asked, 0) << "the text needs no capabilities";
  json d = document([&](ibcore::JsonOut& j) {
    ibcore::Printer p(j);
    p.attribute("SwitchInfo", si.DESC, si.raw(), [] { return std::string(); }, {}, caps);
  });
  EXPECT_EQ(asked, 1);
  EXPECT_TRUE(d["SwitchInfo"]["multicastFDBTop"].is_null()) << d;
}

// The SA's PortInfoRecords: a switch's external port (its own masks
// reserved) is judged by its port 0's record in the same table; a port
// whose port 0 the table lacks stays unknown.
TEST(JsonValidity, PortInfoRecordsOfASwitchFollowItsPortZero) {
  auto rec = [](uint16_t lid, uint8_t port, uint32_t cap) {
    iba::SAPortInfoRecord r;
    noise(r);
    r.set_endportLID(lid).set_portNum(port);
    iba::SMPPortInfo pi = r.portInfo();
    pi.set_capabilityMask(cap);
    pi.set_linkSpeedExtActive(2);
    r.set_portInfo(pi);
    return std::vector<uint8_t>(r.buf.begin(), r.buf.end());
  };
  const std::vector<std::vector<uint8_t>> recs = {rec(5, 1, 0), rec(5, 0, 0x02000000), rec(9, 3, 0)};
  auto caps = ibcore::record_capabilities(iba::SAPortInfoRecord::DESC, recs);
  ASSERT_EQ(caps.size(), 3u);
  EXPECT_EQ(caps[0].port_cap, 0x02000000u);
  EXPECT_FALSE(caps[1].port_cap) << "port 0 has its own";
  EXPECT_FALSE(caps[2].port_cap) << "no port 0 in the table";
  json d = document([&](ibcore::JsonOut& j) {
    j.key("r").obj().fields(iba::SAPortInfoRecord::DESC, recs[0].data(), {}, caps[0]).end();
  });
  EXPECT_TRUE(d["r"]["portInfo"]["linkSpeedExtActive"].is_null()) << d;
  d = document([&](ibcore::JsonOut& j) {
    j.key("r").obj().fields(iba::SAPortInfoRecord::DESC, recs[2].data(), {}, caps[2]).end();
  });
  EXPECT_EQ(d["r"]["portInfo"]["linkSpeedExtActiveRaw"], 2) << "unknown: shown as read";
  EXPECT_EQ(ibcore::record_capabilities(iba::SANodeRecord::DESC, recs).size(), 3u);
}

}  // namespace
