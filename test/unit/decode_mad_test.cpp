// MAD decoding: every registered class and attribute decodes (and the
// decode parses back to the same bytes), method/status names, text input
// forms, bad input, and the decode_mad command itself.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <random>

#include "iba/cc.h"
#include "iba/decode.h"
#include "iba/enums.h"
#include "iba/attr_names.h"
#include "iba/introspect.h"
#include "iba/mad.h"
#include "iba/smp.h"
#include "iba/vendor.h"

using namespace iba;

namespace {

std::mt19937 rng(7);

// A MAD of class c carrying attribute a, payload random within the
// attribute's size (the rest of the data area zero).
std::vector<uint8_t> build(const ClassDesc& c, const AttrDesc& a, uint8_t method) {
  std::vector<uint8_t> m(MAD_SIZE, 0);
  MADHeader h;
  h.set_baseVersion(1).set_mgmtClass(c.mgmt_class).set_classVersion(c.class_version).set_method(method);
  h.set_transactionID(0x1234567890abcdefull).set_attributeID(a.id).set_attributeModifier(rng());
  h.store(m);
  uint32_t n = std::min(a.desc->size, c.data_size);
  for (uint32_t i = 0; i < n; ++i) m[c.data_off + i] = uint8_t(rng());
  return m;
}

uint8_t first_method(uint32_t methods) {
  for (uint8_t k = 1; k < 32; ++k)
    if (methods & mbit(k)) return k;
  return method::GET;
}

}  // namespace

TEST(DecodeMad, EveryRegisteredAttributeDecodesAndParsesBack) {
  size_t n = 0;
  for (const ClassDesc* c : all_classes()) {
    for (const AttrDesc& a : c->attrs) {
      SCOPED_TRACE(std::string(c->name) + " " + a.desc->name);
      auto mad = build(*c, a, first_method(a.methods));
      MadInfo info = identify_mad(mad);
      ASSERT_EQ(info.cls, c);
      ASSERT_TRUE(info.attr);
      ASSERT_EQ(info.attr->id, a.id);  // (the payload may choose a variant of the attribute)
      const AttrDesc& shown = *info.attr;
      std::string out = decode_mad(mad);
      EXPECT_NE(out.find(std::string(" ") + shown.desc->name + "(" + std::to_string(a.id) + ")"), std::string::npos)
          << out;
      EXPECT_NE(out.find(std::string(c->name) + "("), std::string::npos) << out;
      EXPECT_NE(out.find(std::string("+ ")), std::string::npos) << out;  // the payload is nested
      EXPECT_EQ(out.find(" is unknown"), std::string::npos) << out;
      // Every non-reserved field of the attribute that fits in the MAD's
      // data area shows up by name.
      for (const auto& l : leaves(*shown.desc)) {
        if (l.bit_off + l.width() > c->data_size * 8) continue;
        std::string leaf = l.path.substr(l.path.rfind('.') + 1);
        EXPECT_TRUE(out.find(leaf + "=") != std::string::npos || out.find(leaf + "[0]=") != std::string::npos ||
                    out.find("+ " + leaf + "[0] ") != std::string::npos)
            << leaf;
      }
      // The dump is an input form of decode_mad: it gives the same bytes.
      std::string err;
      auto back = parse_mad_text(out, &err);
      ASSERT_TRUE(back) << err;
      EXPECT_EQ(*back, mad) << out;
      ++n;
    }
  }
  EXPECT_GE(n, 18u);  // the SMP attributes at least
}

TEST(DecodeMad, SmpDirectedRoute) {
  SMPFormatDirected d;
  d.set_baseVersion(1).set_mgmtClass(0x81).set_classVersion(1).set_method(0x81).set_D(1);
  d.set_hopPointer(2).set_hopCount(2).set_attributeID(0x11).set_drSLID(0xffff).set_drDLID(0xffff);
  d.set_initialPath(1, 1).set_initialPath(2, 3);
  SMPNodeInfo ni;
  ni.set_nodeType(2).set_numPorts(8).set_nodeGUID(0x0017777ffffe2ca4ull);
  std::memcpy(d.raw() + 64, ni.raw(), ni.SIZE);
  std::string out = decode_mad(d.bytes());
  EXPECT_EQ(out.substr(0, out.find('\n')), "SubnGetResp(129) SMPFormatDirected(129.1) SMPNodeInfo(17)");
  EXPECT_NE(out.find("status 0x8000: success"), std::string::npos) << out;  // only the D bit
  EXPECT_NE(out.find("D=1,status=0x0000,hopPointer=2,hopCount=2"), std::string::npos) << out;
  EXPECT_NE(out.find("+ data SMPNodeInfo"), std::string::npos) << out;
  EXPECT_NE(out.find("nodeType=2,numPorts=8"), std::string::npos) << out;
  EXPECT_NE(out.find("nodeGUID=0017:777f:fffe:2ca4"), std::string::npos) << out;
  EXPECT_NE(out.find("initialPath[0]=0,initialPath[1]=1,initialPath[2]=3,initialPath[3]=0"), std::string::npos) << out;
}

TEST(DecodeMad, NoticeShowsTrapDetails) {
  SMPFormat f;
  f.set_hdr(MADHeader().set_baseVersion(1).set_mgmtClass(1).set_classVersion(1).set_method(method::TRAP)
                .set_attributeID(0x0002));
  MADNotice n;
  n.set_isGeneric(1).set_type(1).set_producerType(2).set_trapNumber(128).set_issuerLID(7);
  NoticeTrap128 t;
  t.set_LIDADDR(0x42);
  std::memcpy(n.raw() + 10, t.raw(), t.SIZE);
  std::memcpy(f.raw() + 64, n.raw(), 64);
  std::string out = decode_mad(f.bytes());
  EXPECT_NE(out.find("SubnTrap(5) SMPFormat(1.1) MADNotice(2)"), std::string::npos) << out;
  EXPECT_NE(out.find("+ dataDetails NoticeTrap128"), std::string::npos) << out;
  EXPECT_NE(out.find("LIDADDR=66"), std::string::npos) << out;
  EXPECT_EQ(out.find("issuerGID"), std::string::npos) << out;  // not in an SMP's 64 bytes
}

TEST(DecodeMad, UnknownAttributeAndClass) {
  SMPFormat f;
  f.set_hdr(MADHeader().set_baseVersion(1).set_mgmtClass(1).set_classVersion(1).set_method(1).set_attributeID(0x1234));
  f.raw()[64] = 0xab;
  std::string out = decode_mad(f.bytes());
  EXPECT_NE(out.find("SubnGet(1) SMPFormat(1.1) Attribute(0x1234)"), std::string::npos) << out;
  EXPECT_NE(out.find("attribute 0x1234 is unknown to SMPFormat"), std::string::npos) << out;
  EXPECT_NE(out.find(" 64 AB000000"), std::string::npos) << out;
  EXPECT_NE(out.find(" 68 00000000"), std::string::npos) << out;  // raw payload: zero words too

  std::vector<uint8_t> m(40, 0);
  m[0] = 1, m[1] = 0x2a, m[2] = 1, m[3] = 1, m[30] = 0x5a;
  out = decode_mad(m);
  EXPECT_NE(out.find("management class 42 is unknown"), std::string::npos) << out;
  EXPECT_NE(out.find(" 28 00005A00"), std::string::npos) << out;
}

TEST(DecodeMad, NamesAndStatus) {
  EXPECT_EQ(method_name(mgmt::SUBN_LID_ROUTED, method::GET), "SubnGet(1)");
  EXPECT_EQ(method_name(mgmt::SUBN_DIRECTED_ROUTE, method::SET), "SubnSet(2)");
  EXPECT_EQ(method_name(mgmt::SUBN_ADM, method::GET_TABLE), "SubnAdmGetTable(18)");
  EXPECT_EQ(method_name(mgmt::SUBN_ADM, method::GET_TABLE_RESP), "SubnAdmGetTableResp(146)");
  EXPECT_EQ(method_name(mgmt::PERF, method::GET), "PerformanceGet(1)");
  EXPECT_EQ(method_name(mgmt::CC, method::SET), "CCSet(2)");
  EXPECT_EQ(method_name(0x09, method::GET), "VendGet(1)");
  EXPECT_EQ(method_name(mgmt::PERF, method::GET_TABLE), "MAD_METHOD_GET_TABLE(18)");
  EXPECT_EQ(method_name(0x77, 0x55), "Method(85)");
  EXPECT_EQ(status_text(mgmt::SUBN_ADM, 0x0300), "class specific error 3 (ERR_NO_RECORDS)");
  EXPECT_EQ(status_text(mgmt::SUBN_ADM, 0x0000), "success");
  EXPECT_EQ(status_text(mgmt::SUBN_LID_ROUTED, 0x001c), "MAD status error 7 (ERR_INVALID_ATTR_OR_MODIFIER)");
  EXPECT_EQ(status_text(mgmt::SUBN_DIRECTED_ROUTE, 0x8008), "MAD status error 2 (ERR_METHOD_UNSUPPORTED)");
  EXPECT_EQ(status_text(mgmt::PERF, 0x0001), "busy");
  EXPECT_EQ(status_text(mgmt::DEV_MGT, 0x8200), "class specific NO_SERVICE_ENTRIES,IOC_GENERAL_FAILURE");
  EXPECT_EQ(status_text(mgmt::DEV_MGT, 0x0101), "busy, class specific IOC_NO_RESPONSE");
  EXPECT_EQ(enums::mtu_bytes(4), 2048u);
  EXPECT_EQ(enums::rate_x10(2), 25u);
  EXPECT_STREQ(enums::name_of(enums::port_states(), 4), "Active");
  EXPECT_EQ(enums::value_of(enums::link_speeds_ext(), "edr"), 2u);
  EXPECT_EQ(enums::mask_names(enums::capability_mask(), 0x2000 | 0x2), "IsSM,0x2000");
}

TEST(DecodeMad, TextInputForms) {
  std::string err;
  auto a = parse_mad_text("01 01 01 81\n00:00:00:00 0x1122,0x33", &err);
  ASSERT_TRUE(a) << err;
  EXPECT_EQ(*a, (std::vector<uint8_t>{1, 1, 1, 0x81, 0, 0, 0, 0, 0x11, 0x22, 0x33}));
  // smpdump's output, status line included.
  auto s = parse_mad_text("0101 0102 0000 0000\n0010 0000 0000 0000\nSMP status: 0x8000\n", &err);
  ASSERT_TRUE(s) << err;
  EXPECT_EQ(s->size(), 16u);
  EXPECT_EQ((*s)[3], 2);
  // A -dd dump (tracer prefix allowed), words placed at their offsets.
  auto d = parse_mad_text(
      "D: Reply SubnGetResp(129) SMPFormat(1.1) SMPNodeInfo(17)\n"
      "  0 01010181 baseVersion=1,mgmtClass=0x01\n"
      "    + data SMPNodeInfo\n"
      "     64 01010202 baseVersion=1,classVersion=1,nodeType=2,numPorts=2\n",
      &err);
  ASSERT_TRUE(d) << err;
  ASSERT_EQ(d->size(), MAD_SIZE);
  EXPECT_EQ((*d)[3], 0x81);
  EXPECT_EQ((*d)[66], 2);
  EXPECT_FALSE(parse_mad_text("01 02 zz", &err));
  EXPECT_NE(err.find("'zz'"), std::string::npos) << err;
  EXPECT_FALSE(parse_mad_text("01 0", &err));
  EXPECT_NE(err.find("pairs"), std::string::npos) << err;
  EXPECT_EQ(check_mad_size(23).substr(0, 14), "MAD too short:");
  EXPECT_EQ(check_mad_size(257).substr(0, 13), "MAD too long:");
  EXPECT_EQ(check_mad_size(24), "");
  EXPECT_EQ(check_mad_size(256), "");
}

// --- the command -----------------------------------------------------------------
namespace {

// The binary under test: the build passes its path (unit_tests depends on
// the ibtool target, so it is always there); IBTOOL= overrides it.
std::string ibtool_path() {
  if (const char* e = std::getenv("IBTOOL")) return e;
  return IBTOOL_PATH;
}

struct CliRun {
  int status;
  std::string out, err;
};

CliRun run(const std::string& args, const std::string& input) {
  auto dir = std::filesystem::temp_directory_path() / ("decode_mad_test." + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "in") << input;
  std::string cmd = ibtool_path() + " decode_mad " + args + " <" + (dir / "in").string() + " >" +
                    (dir / "out").string() + " 2>" + (dir / "err").string();
  int st = std::system(cmd.c_str());
  auto slurp = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  CliRun r{WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurp(dir / "out"), slurp(dir / "err")};
  std::filesystem::remove_all(dir);
  return r;
}

}  // namespace

TEST(DecodeMadCli, GoodAndBadInput) {
  ASSERT_TRUE(std::filesystem::exists(ibtool_path())) << ibtool_path();
  SMPFormat f;
  f.set_hdr(MADHeader().set_baseVersion(1).set_mgmtClass(1).set_classVersion(1).set_method(0x81).set_attributeID(0x15));
  std::string hex;
  for (uint8_t b : f.bytes()) {
    char x[4];
    std::snprintf(x, sizeof x, "%02x ", b);
    hex += x;
  }
  CliRun ok = run("", hex);
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(ok.out.substr(0, ok.out.find('\n')), "SubnGetResp(129) SMPFormat(1.1) SMPPortInfo(21)");
  EXPECT_EQ(ok.err, "");
  CliRun bin = run("--binary", std::string(reinterpret_cast<const char*>(f.raw()), 256));
  EXPECT_EQ(bin.status, 0) << bin.err;
  EXPECT_EQ(bin.out, ok.out);

  CliRun shortm = run("", "01 01 01 81");
  EXPECT_NE(shortm.status, 0);
  EXPECT_EQ(shortm.err.substr(0, 17), "E: MAD too short:") << shortm.err;
  EXPECT_EQ(std::count(shortm.err.begin(), shortm.err.end(), '\n'), 1) << shortm.err;
  EXPECT_EQ(shortm.out, "");

  CliRun longm = run("--binary", std::string(300, '\x01'));
  EXPECT_NE(longm.status, 0);
  EXPECT_EQ(longm.err.substr(0, 16), "E: MAD too long:") << longm.err;

  CliRun bad = run("", "01 02 hello");
  EXPECT_NE(bad.status, 0);
  EXPECT_EQ(bad.err, "E: bad input: not hex: 'hello'\n");

  CliRun missing = run("/nonexistent/file", "");
  EXPECT_NE(missing.status, 0);
  EXPECT_EQ(missing.err, "E: cannot open /nonexistent/file\n");

  CliRun payload = run("--attr SMPNodeInfo", "0101 0202 0000 0000\nSMP status: 0x0000\n");
  EXPECT_EQ(payload.status, 0) << payload.err;
  EXPECT_NE(payload.out.find("nodeType=2,numPorts=2"), std::string::npos) << payload.out;
  CliRun noattr = run("--attr NoSuchThing", "00");
  EXPECT_NE(noattr.status, 0);
  EXPECT_EQ(noattr.err, "E: unknown attribute 'NoSuchThing'\n");
}

// A GetTable reply carries records attributeOffset 8-byte words apart: each
// one is decoded.
TEST(DecodeMad, TableReplyRecords) {
  const ClassDesc* sa = find_class(mgmt::SUBN_ADM);
  ASSERT_NE(sa, nullptr) << "no SA class registered";
  const AttrDesc* small = nullptr;
  for (const auto& a : sa->attrs)
    if ((a.methods & M_GET_TABLE) && (!small || a.desc->size < small->desc->size)) small = &a;
  ASSERT_TRUE(small);
  uint32_t stride = (small->desc->size + 7) / 8 * 8;
  ASSERT_GE(sa->data_size / stride, 2u) << small->desc->name;
  auto mad = build(*sa, *small, method::GET_TABLE_RESP);
  auto off = find_field(*sa->format, "attributeOffset");
  ASSERT_TRUE(off);
  set_bits(mad.data(), off->bit_off, off->width(), stride / 8);
  std::string out = decode_mad(mad);
  std::string name = small->desc->name;
  EXPECT_NE(out.find("+ data[0] " + name), std::string::npos) << out;
  EXPECT_NE(out.find("+ data[1] " + name), std::string::npos) << out;
  std::string err;
  auto back = parse_mad_text(out, &err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(*back, mad);
}

// Each management class decodes with its own format: the class-specific
// header fields by name, the attribute payload nested under the format's
// data field.
namespace {

struct ClassCase {
  uint8_t mgmt_class;
  uint16_t attr;
  const char* format;     // the format structure shown
  const char* hdr_field;  // a class-specific field of the format (nullptr: none)
};

}  // namespace

TEST(DecodeMad, EachClassDecodes) {
  const ClassCase cases[] = {
      {mgmt::SUBN_LID_ROUTED, 0x0015, "SMPFormat", "MKey"},
      {mgmt::SUBN_DIRECTED_ROUTE, 0x0011, "SMPFormatDirected", "drSLID"},
      {mgmt::SUBN_ADM, 0x0011, "SAFormat", "SMKey"},
      {mgmt::PERF, 0x0012, "PMFormat", nullptr},
      {mgmt::CC, 0x0016, "CCFormat", "CCKey"},
      {MLX_VENDOR_CLASS, 0x0050, "VendorFormat", nullptr},
      {OFA_PING_CLASS, 0x0000, "VendOUIFormat", "OUI"},
      {OFA_SYSSTAT_CLASS, 0x0011, "VendOUIFormat", "OUI"},
      {mgmt::DEV_MGT, 0x0010, "DevMgtFormat", nullptr},
      {mgmt::BM, 0x0010, "BMFormat", "BKey"},
      {mgmt::SNMP, 0x0010, "SNMPFormat", "RAddress"},
      {mgmt::COM_MGT, 0x0010, "CMFormat", nullptr},
  };
  for (const auto& k : cases) {
    SCOPED_TRACE(k.format + std::string(" class ") + std::to_string(k.mgmt_class));
    const ClassDesc* c = find_class(k.mgmt_class);
    ASSERT_TRUE(c);
    EXPECT_STREQ(c->name, k.format);
    const AttrDesc* a = find_attr(*c, k.attr);
    ASSERT_TRUE(a);
    auto mad = build(*c, *a, method::GET_RESP);
    std::string out = decode_mad(mad);
    std::string first = out.substr(0, out.find('\n'));
    EXPECT_NE(first.find(std::string(" ") + k.format + "(" + std::to_string(k.mgmt_class) + "."), std::string::npos)
        << first;
    EXPECT_NE(first.find(std::string(" ") + a->desc->name + "(" + std::to_string(k.attr) + ")"), std::string::npos)
        << first;
    if (k.hdr_field) {
      EXPECT_NE(out.find(std::string(k.hdr_field) + "="), std::string::npos) << out;
    }
    EXPECT_NE(out.find(std::string("+ data ") + a->desc->name), std::string::npos) << out;
    EXPECT_EQ(out.find(" is unknown"), std::string::npos) << out;
  }
}

// An attribute with two layouts decodes in the one its payload is in.
TEST(DecodeMad, PayloadChoosesTheLayout) {
  const ClassDesc* cc = find_class(mgmt::CC);
  ASSERT_TRUE(cc);
  const AttrDesc* log = find_attr(*cc, uint16_t(0x13));
  ASSERT_TRUE(log);
  auto mad = build(*cc, *log, method::GET_RESP);
  mad[CC_LOG_DATA_OFF] = 2;  // logType: CA
  EXPECT_STREQ(identify_mad(mad).attr->desc->name, "CCCongestionLogCA");
  std::string text = decode_mad(mad);
  EXPECT_NE(text.find(" CCCongestionLogCA(19)"), std::string::npos) << text;
  // The log starts right after the CC_Key, not at the usual CC data offset.
  EXPECT_NE(text.find("+ data CCCongestionLogCA"), std::string::npos) << text;
  EXPECT_NE(text.find("logType=2,"), std::string::npos) << text;
  mad[CC_LOG_DATA_OFF] = 1;  // switch
  EXPECT_STREQ(identify_mad(mad).attr->desc->name, "CCCongestionLogSwitch");

  const ClassDesc* mlx = find_class(MLX_VENDOR_CLASS);
  ASSERT_TRUE(mlx);
  const AttrDesc* gi = find_attr(*mlx, AttrId<MLXGeneralInfo>::value);
  ASSERT_TRUE(gi);
  auto v = build(*mlx, *gi, method::GET_RESP);
  MLXGeneralInfoIS3 is3;
  is3.load({v.data() + mlx->data_off, MLXGeneralInfoIS3::SIZE});
  is3.set_hwDeviceID(0xb924).set_swMajor(3).set_swMinor(2).set_swSubMinor(1);
  is3.store({v.data() + mlx->data_off, MLXGeneralInfoIS3::SIZE});
  std::string out = decode_mad(v);
  EXPECT_NE(out.find("+ data MLXGeneralInfoIS3"), std::string::npos) << out;
  EXPECT_NE(out.find("swMajor=3,swMinor=2,swSubMinor=1"), std::string::npos) << out;
  MLXGeneralInfo ext;
  ext.load({v.data() + mlx->data_off, MLXGeneralInfo::SIZE});
  ext.set_hwDeviceID(0xcb20);
  ext.store({v.data() + mlx->data_off, MLXGeneralInfo::SIZE});
  EXPECT_NE(decode_mad(v).find("+ data MLXGeneralInfo\n"), std::string::npos);
}

TEST(DecodeMadCli, MoreBadInput) {
  ASSERT_TRUE(std::filesystem::exists(ibtool_path())) << ibtool_path();
  CliRun empty = run("", "");
  EXPECT_NE(empty.status, 0);
  EXPECT_EQ(empty.err.substr(0, 17), "E: MAD too short:") << empty.err;
  EXPECT_EQ(empty.out, "");
  CliRun blank = run("", " \n\t\n");
  EXPECT_NE(blank.status, 0);
  EXPECT_EQ(blank.err.substr(0, 17), "E: MAD too short:") << blank.err;
  CliRun shortbin = run("--binary", std::string(23, '\x01'));
  EXPECT_NE(shortbin.status, 0);
  EXPECT_EQ(shortbin.err.substr(0, 17), "E: MAD too short:") << shortbin.err;
  std::string hex257;
  for (int i = 0; i < 257; ++i) hex257 += "ab ";
  CliRun longhex = run("", hex257);
  EXPECT_NE(longhex.status, 0);
  EXPECT_EQ(longhex.err.substr(0, 16), "E: MAD too long:") << longhex.err;
  CliRun odd = run("", "0 1 2");
  EXPECT_NE(odd.status, 0);
  EXPECT_NE(odd.err.find("pairs"), std::string::npos) << odd.err;
  EXPECT_EQ(std::count(odd.err.begin(), odd.err.end(), '\n'), 1) << odd.err;
  std::string hex300;
  for (int i = 0; i < 300; ++i) hex300 += "00 ";
  CliRun payload_long = run("--attr SMPNodeInfo", hex300);
  EXPECT_NE(payload_long.status, 0);
  EXPECT_EQ(payload_long.err.substr(0, 16), "E: MAD too long:") << payload_long.err;
  CliRun payload_empty = run("--attr SMPNodeInfo", "");
  EXPECT_NE(payload_empty.status, 0);
  EXPECT_EQ(payload_empty.err, "E: no payload bytes\n");
  CliRun badopt = run("--no-such-option", "");
  EXPECT_NE(badopt.status, 0);
  EXPECT_EQ(badopt.out, "");
  EXPECT_FALSE(badopt.err.empty());
}

// One attribute name table for query and decode_mad --attr (issue 36): the
// structure name, the name without its class prefix, a variant's full
// name, an attribute ID, within a range of classes.
TEST(DecodeMad, AttributeNamesAsQueryTakesThem) {
  auto named = [](std::string_view n, uint8_t lo = 0, uint8_t hi = 0xff) {
    const AttrDesc* a = find_attr_named(n, lo, hi).second;
    return a ? std::string(a->desc->name) : std::string("(none)");
  };
  EXPECT_EQ(named("PortInfo"), "SMPPortInfo");
  EXPECT_EQ(named("portinfo"), "SMPPortInfo");
  EXPECT_EQ(named("SMPPortInfo"), "SMPPortInfo");
  EXPECT_EQ(named("NodeRecord"), "SANodeRecord");
  EXPECT_EQ(named("PortCounters"), "PMPortCounters");
  EXPECT_EQ(named("0x15", mgmt::SUBN_LID_ROUTED, mgmt::SUBN_LID_ROUTED), "SMPPortInfo");
  EXPECT_EQ(named("0x11", mgmt::SUBN_ADM, mgmt::SUBN_ADM), "SANodeRecord");
  EXPECT_EQ(named("PortInfo", mgmt::SUBN_ADM, mgmt::SUBN_ADM), "MADClassPortInfo");  // by suffix, in that class
  EXPECT_EQ(named("NodeInfo", mgmt::SUBN_ADM, mgmt::SUBN_ADM), "(none)");
  EXPECT_EQ(named("NoSuchThing"), "(none)");
}

// smpdump's output (the reference's and ibtool's: the 64 data bytes, then
// the status when not zero) decodes with --attr naming its attribute as
// query does, and without --attr is recognized, not decoded as a MAD.
TEST(DecodeMadCli, SmpdumpOutput) {
  const std::string dump =
      "0000 0000 0000 0000 fe80 0000 0000 0000\n"
      "0002 0001 0000 c048 0000 0ff9 0002 1f02\n"
      "7452 0011 1040 0008 0803 0040 0000 0000\n"
      "0000 011f 0800 0000 0000 0000 0030 0000\n";
  CliRun by_name = run("--attr PortInfo", dump);
  EXPECT_EQ(by_name.status, 0) << by_name.err;
  EXPECT_EQ(by_name.out.substr(0, by_name.out.find('\n')), "SMPPortInfo(21) payload");
  EXPECT_NE(by_name.out.find(" LID=2,masterSMLID=1\n"), std::string::npos) << by_name.out;
  for (const char* a : {"--attr portinfo", "--attr SMPPortInfo", "--attr 0x15", "--attr 21"}) {
    CliRun r = run(a, dump + "SMP status: 0x8000\n");
    EXPECT_EQ(r.status, 0) << a << r.err;
    EXPECT_EQ(r.out, by_name.out) << a;
  }
  for (const std::string& in : {dump, dump + "SMP status: 0x8000\n"}) {
    CliRun bare = run("", in);
    EXPECT_EQ(bare.status, 1);
    EXPECT_EQ(bare.out, "");
    EXPECT_EQ(bare.err.rfind("E: this is smpdump's output", 0), 0u) << bare.err;
    EXPECT_NE(bare.err.find("--attr 0x15 or --attr PortInfo"), std::string::npos) << bare.err;
    EXPECT_EQ(std::count(bare.err.begin(), bare.err.end(), '\n'), 1) << bare.err;
  }
}
