// The reference printers and value formatters of the SMP attributes against
// libibmad's dumpers (linked into unit_tests only), on random payloads.  The
// field layouts themselves are checked in ibmad_fields_test.cpp.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "iba/hdr.h"
#include "iba/introspect.h"
#include "iba/mad.h"
#include "iba/refprint_smp.h"
#include "iba/smp.h"

#include <infiniband/mad.h>

using namespace iba;

namespace {

std::mt19937_64 rng(12345);

// libibmad warns on stderr about values it finds odd (random payloads have
// plenty): keep the test output readable.
struct QuietStderr {
  int saved = dup(2);
  QuietStderr() {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    close(null);
  }
  ~QuietStderr() {
    dup2(saved, 2);
    close(saved);
  }
};

using DumpFn = void (*)(char*, int, void*, int);
std::string ibmad_dump(DumpFn fn, const uint8_t* d, int n) {
  static char b[16384];
  b[0] = 0;
  fn(b, sizeof b, const_cast<uint8_t*>(d), n);
  return b;
}
std::string ibmad_val(DumpFn fn, uint32_t v) {
  char b[2048];
  b[0] = 0;
  fn(b, sizeof b, &v, sizeof v);
  return b;
}
}  // namespace

TEST(IbmadSmpCheck, ValueFormattersMatchLibibmad) {
  QuietStderr quiet;
  for (uint32_t v = 0; v < 256; ++v) {
    SCOPED_TRACE(v);
    if (v == 0 || v == 1 || v == 2 || v == 4 || v == 8 || v == 16 || v == 3) {  // libibmad warns on bad values
      EXPECT_EQ(ref::fmt_link_width(v), ibmad_val(mad_dump_linkwidth, v));
    }
    EXPECT_EQ(ref::fmt_link_width_enabled(v), ibmad_val(mad_dump_linkwidthen, v));
    EXPECT_EQ(ref::fmt_link_width_supported(v), ibmad_val(mad_dump_linkwidthsup, v));
    if (v < 16) {
      EXPECT_EQ(ref::fmt_link_speed(v), ibmad_val(mad_dump_linkspeed, v));
      EXPECT_EQ(ref::fmt_link_speed_supported(v), ibmad_val(mad_dump_linkspeedsup, v));
      EXPECT_EQ(ref::fmt_link_speed_enabled(v), ibmad_val(mad_dump_linkspeeden, v));
      EXPECT_EQ(ref::fmt_port_state(v), ibmad_val(mad_dump_portstate, v));
      EXPECT_EQ(ref::fmt_phys_state(v), ibmad_val(mad_dump_physportstate, v));
      EXPECT_EQ(ref::fmt_link_down_def_state(v), ibmad_val(mad_dump_linkdowndefstate, v));
      EXPECT_EQ(ref::fmt_mtu(v), ibmad_val(mad_dump_mtu, v));
      EXPECT_EQ(ref::fmt_vl_cap(v), ibmad_val(mad_dump_vlcap, v));
      EXPECT_EQ(ref::fmt_oper_vls(v), ibmad_val(mad_dump_opervls, v));
      EXPECT_EQ(ref::fmt_link_speed_ext_supported(v), ibmad_val(mad_dump_linkspeedextsup, v));
    }
    if (v < 32) {
      EXPECT_EQ(ref::fmt_link_speed_ext(v), ibmad_val(mad_dump_linkspeedext, v));
      EXPECT_EQ(ref::fmt_link_speed_ext_enabled(v), ibmad_val(mad_dump_linkspeedexten, v));
    }
    EXPECT_EQ(ref::fmt_node_type(v), ibmad_val(mad_dump_node_type, v));
  }
  for (int b = 0; b < 32; ++b) {
    EXPECT_EQ(ref::fmt_cap_mask(1u << b), ibmad_val(mad_dump_portcapmask, 1u << b));
    if (b < 16) {
      EXPECT_EQ(ref::fmt_cap_mask2(1u << b), ibmad_val(mad_dump_portcapmask2, 1u << b));
    }
  }
  for (int k = 0; k < 50; ++k) {
    uint32_t v = uint32_t(rng());
    EXPECT_EQ(ref::fmt_cap_mask(v), ibmad_val(mad_dump_portcapmask, v));
    EXPECT_EQ(ref::fmt_cap_mask2(v & 0xffff), ibmad_val(mad_dump_portcapmask2, v & 0xffff));
  }
}

TEST(IbmadSmpCheck, RefPrintMatchesLibibmad) {
  QuietStderr quiet;
  ref::SmpPrintOptions keys{.show_keys = true};
  for (int k = 0; k < 300; ++k) {
    uint8_t d[64];
    for (auto& c : d) c = uint8_t(rng());
    if (k % 3 == 0) {  // keep the enumerated fields in range part of the time
      d[29] = uint8_t(1u << (rng() % 5));
      d[31] = uint8_t(1u << (rng() % 5));
    }
    EXPECT_EQ(ref::smp_print(SMPNodeInfo::DESC, {d, 40}), ibmad_dump(mad_dump_nodeinfo, d, 64));
    {
      // libibmad 44's dump; a port announcing extended speeds 2 (XDR, which
      // 44 cannot describe) gets upstream's three lines after it.
      std::string ours = ref::smp_print(SMPPortInfo::DESC, {d, 64}, keys), want = ibmad_dump(mad_dump_portinfo, d, 64);
      SMPPortInfo pi;
      pi.load({d, 64});
      if (iba::announces_ext_speeds2(pi)) {
        ASSERT_EQ(ours.substr(0, want.size()), want);
        std::string tail = ours.substr(want.size());
        EXPECT_TRUE(tail.starts_with("LinkSpeedExtActive2:") && tail.find("\nLinkSpeedExtSupported2:") != std::string::npos &&
                    tail.find("\nLinkSpeedExtEnabled2:") != std::string::npos &&
                    std::count(tail.begin(), tail.end(), '\n') == 3)
            << tail;
      } else {
        EXPECT_EQ(ours, want);
      }
    }
    EXPECT_EQ(ref::smp_print(SMPSwitchInfo::DESC, {d, 20}), ibmad_dump(mad_dump_switchinfo, d, 64));
    EXPECT_EQ(ref::smp_print(SMPPortInfoExtended::DESC, {d, 64}), ibmad_dump(mad_dump_portinfo_ext, d, 64));
    EXPECT_EQ(ref::smp_print(SMPMlnxExtPortInfo::DESC, {d, 64}), ibmad_dump(mad_dump_mlnx_ext_port_info, d, 64));
    SMPSLToVLMappingTable sl;
    sl.load({d, 8});
    EXPECT_EQ(ref::sl2vl_row(sl), ibmad_dump(mad_dump_sltovl, d, 8));
    SMPVLArbitrationTable va;
    va.load({d, 64});
    size_t n = 1 + rng() % 32;
    EXPECT_EQ("\n" + ref::vlarb_print(va, n), ibmad_dump(mad_dump_vlarbitration, d, int(n * 2)));
  }
}

