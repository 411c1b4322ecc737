// ibccquery and ibccconfig: the congestion control class (0x21, IBA annex
// A10).  ibccquery reads ClassPortInfo, CongestionInfo, CongestionKeyInfo,
// CongestionLog, SwitchCongestionSetting, SwitchPortCongestionSetting,
// CACongestionSetting, CongestionControlTable and TimeStamp and prints them
// in the reference's "Label:....value" layouts; ibccconfig sets the
// writable ones from command line values.  Every CC MAD carries the CC_Key
// given with -c.  The path to the target comes from an SA PathRecord
// (core/rpc/gmppath.h); SwitchPortCongestionSetting first asks the node's
// NodeInfo with an SMP (is it a switch, how many ports).
//
// Blocks of SwitchPortCongestionSetting hold 32 ports each (A10.4.3.6) and
// are addressed so; the reference's own arithmetic uses 48 a block, which
// only differs on switches with more than 32 ports.
#include <strings.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/out/print.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/rpc/gmppath.h"
#include "core/rpc/rpc.h"
#include "iba/cc.h"
#include "iba/introspect.h"
#include "iba/refprint.h"
#include "iba/smp.h"
#include "core/out/log.h"

namespace {

using ibcore::IBPath;
namespace ref = iba::ref;

// --- formats of the reference's CC dumps -----------------------------------------

// Hex zero padded to the field's width in whole bytes (a 4 bit field: 0x0d).
std::string hexb(uint64_t v, const iba::FieldRef& r, const uint8_t*) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%0*llx", int((r.width() + 7) / 8 * 2), static_cast<unsigned long long>(v));
  return b;
}
// The field's bytes as hex digits, no prefix (masks, GIDs in ClassPortInfo).
std::string rawhex(uint64_t, const iba::FieldRef& r, const uint8_t* buf) {
  return iba::hex_bytes(std::span<const uint8_t>(buf + r.bit_off / 8, r.width() / 8));
}

const ref::Line CPI_LINES[] = {
    {"BaseVersion", "baseVersion", ref::dec},     {"ClassVersion", "classVersion", ref::dec},
    {"CapabilityMask", "capabilityMask", hexb},   {"CapabilityMask2", "capabilityMask2", hexb},
    {"RespTimeVal", "respTimeValue", ref::dec},   {"RedirectGID", "redirectGID", rawhex},
    {"RedirectTC", "redirectTC", hexb},           {"RedirectSL", "redirectSL", ref::dec},
    {"RedirectFL", "redirectFL", hexb},           {"RedirectLID", "redirectLID", ref::dec},
    {"RedirectPKey", "redirectPKey", hexb},       {"RedirectQP", "redirectQP", hexb},
    {"RedirectQKey", "redirectQKey", hexb},       {"TrapGID", "trapGID", rawhex},
    {"TrapTC", "trapTC", hexb},                   {"TrapSL", "trapSL", ref::dec},
    {"TrapFL", "trapFL", hexb},                   {"TrapLID", "trapLID", ref::dec},
    {"TrapPKey", "trapPKey", hexb},               {"TrapHL", "trapHL", ref::dec},
    {"TrapQP", "trapQP", hexb},                   {"TrapQKey", "trapQKey", hexb},
};
const ref::Line CI_LINES[] = {
    {"CongestionInfo", "congestionInfo", hexb},
    {"ControlTableCap", "controlTableCap", ref::dec},
};
const ref::Line CK_LINES[] = {
    {"CC_Key", "CCKey", hexb},
    {"CC_KeyProtectBit", "CCKeyProtectBit", ref::dec},
    {"CC_KeyLeasePeriod", "CCKeyLeasePeriod", ref::dec},
    {"CC_KeyViolations", "CCKeyViolations", ref::dec},
};
const ref::Line LOG_LINES[] = {
    {"LogType", "logType", ref::dec},
    {"CongestionFlags", "congestionFlags", hexb},
};
const ref::Line LOG_SW_LINES[] = {
    {"LogEventsCounter", "logEventsCounter", ref::dec},
    {"CurrentTimeStamp", "currentTimeStamp", ref::dec},
    {"PortMap", "portMap", rawhex},
};
const ref::Line LOG_SW_ENTRY_LINES[] = {
    {"SLID", "SLID", ref::dec},
    {"DLID", "DLID", ref::dec},
    {"SL", "SL", ref::dec},
    {"Timestamp", "timestamp", ref::dec},
};
const ref::Line LOG_CA_LINES[] = {
    {"ThresholdEventCounter", "thresholdEventCounter", ref::dec},
    {"ThresholdCongestionEventMap", "thresholdCongestionEventMap", hexb},
    {"CurrentTimeStamp", "currentTimeStamp", ref::dec},
};
const ref::Line LOG_CA_ENTRY_LINES[] = {
    {"Local_QP_CN_Entry", "localQPCNEntry", ref::dec},
    {"SL_CN_Entry", "SLCNEntry", ref::dec},
    {"Service_Type_CN_Entry", "serviceTypeCNEntry", hexb},
    {"Remote_QP_Number_CN_Entry", "remoteQPNumberCNEntry", ref::dec},
    {"Local_LID_CN", "localLIDCN", ref::dec},
    {"Remote_LID_CN_Entry", "remoteLIDCNEntry", ref::dec},
    {"Timestamp_CN_Entry", "timestampCNEntry", ref::dec},
};
const ref::Line SS_LINES[] = {
    {"Control_Map", "controlMap", hexb},         {"Victim_Mask", "victimMask", rawhex},
    {"Credit_Mask", "creditMask", rawhex},       {"Threshold", "threshold", hexb},
    {"Packet_Size", "packetSize", ref::dec},     {"CS_Threshold", "CSThreshold", hexb},
    {"CS_ReturnDelay", "CSReturnDelay", hexb},   {"Marking_Rate", "markingRate", ref::dec},
};
const ref::Line SP_ELEM_LINES[] = {
    {"Valid", "valid", ref::dec},
    {"Control_Type", "controlType", ref::dec},
    {"Threshold", "threshold", hexb},
    {"Packet_Size", "packetSize", ref::dec},
    {"Cong_Parm_Marking_Rate", "congParmMarkingRate", ref::dec},
};
const ref::Line CS_LINES[] = {
    {"Port_Control", "portControl", hexb},
    {"Control_Map", "controlMap", hexb},
};
const ref::Line CS_ENTRY_LINES[] = {
    {"CCTI_Timer", "CCTITimer", ref::dec},
    {"CCTI_Increase", "CCTIIncrease", ref::dec},
    {"Trigger_Threshold", "triggerThreshold", ref::dec},
    {"CCTI_Min", "CCTIMin", ref::dec},
};
const ref::Line CT_LINES[] = {{"CCTI_Limit", "CCTILimit", ref::dec}};
const ref::Line CT_ENTRY_LINES[] = {
    {"CCT_Shift", "CCTShift", ref::dec},
    {"CCT_Multiplier", "CCTMultiplier", ref::dec},
};
const ref::Line TS_LINES[] = {{"Timestamp", "timestamp", ref::dec}};

// A structure's layout over bytes that may be shorter than the structure
// (zero padded, as the reference's fixed buffers are).
std::string dump_at(const iba::StructDesc& d, const std::vector<uint8_t>& data, size_t off,
                    std::span<const ref::Line> lines) {
  std::vector<uint8_t> b(d.size, 0);
  if (off < data.size()) std::memcpy(b.data(), data.data() + off, std::min(b.size(), data.size() - off));
  return ref::dump(d, b.data(), lines);
}

// --- the work shared by both commands --------------------------------------------

struct Ctx {
  ibcore::MadTransactor& mad;
  IBPath target;                   // as parsed
  IBPath path;                     // the GMP path (PathRecord)
  std::exception_ptr path_error;   // set when the PathRecord failed (LID targets)
  uint64_t cckey = 0;
  std::vector<std::string> params;
  std::string where;               // "Lid N"
  ibcore::Printer* p = nullptr;    // the op's output (ibccquery: text, or the --json document)
  std::string op;                  // as given on the command line

  // An op's failure: "operation <op>: <msg>", the reference's iberror exit.
  [[noreturn]] void fail(const std::string& msg) const { throw ibtool::RefFail{"operation " + op + ": " + msg}; }

  // A structure at off of a reply's data, zero padded as dump_at pads.
  static std::vector<uint8_t> padded(const iba::StructDesc& d, const std::vector<uint8_t>& data, size_t off = 0) {
    std::vector<uint8_t> b(d.size, 0);
    if (off < data.size()) std::memcpy(b.data(), data.data() + off, std::min(b.size(), data.size() - off));
    return b;
  }
  // An attribute: {key: its fields}, or text(), the reference's lines.
  template <class F>
  void emit(const char* key, const iba::StructDesc& d, const std::vector<uint8_t>& data, F text) {
    p->attribute(key, d, padded(d, data).data(), text);
  }
  // An element of a table: {"<index_key>": i, its fields}, or text().
  template <class F>
  void element(const char* index_key, unsigned i, const iba::StructDesc& d, const std::vector<uint8_t>& data,
               size_t off, F text) {
    p->open_object().uint(ibcore::PRINT_JSON, index_key, nullptr, i).fields(d, padded(d, data, off).data());
    p->close_object().text_raw(text());
  }

  // One CC MAD; returns the reply's data area (from the attribute's data
  // offset to the end of the MAD).  Throws MADError.
  std::vector<uint8_t> call(uint8_t method, uint16_t attr, uint32_t amod, std::span<const uint8_t> payload = {}) {
    if (path_error) std::rethrow_exception(path_error);
    ibcore::MadRequest r;
    r.cls = iba::find_class(iba::mgmt::CC);
    r.method = method;
    r.attr_id = attr;
    r.amod = amod;
    r.payload = payload;
    ibcore::PendingMad p;
    p.path = &path;
    p.req_len = ibcore::build_mad(p.req.data(), r, path, 0);
    // Every CC MAD carries the CC_Key (A10.4.1).
    iba::CCFormat::set_CCKey_at(p.req.data(), cckey);
    mad.engine().submit(p);
    mad.engine().wait(p);
    auto rep = ibcore::check_reply(p);
    size_t off = attr == iba::AttrId<iba::CCCongestionLogSwitch>::value ? iba::CC_LOG_DATA_OFF : iba::CC_DATA_OFF;
    if (rep.size() < off) return {};
    return std::vector<uint8_t>(rep.begin() + off, rep.end());
  }
  std::vector<uint8_t> get(uint16_t attr, uint32_t amod, const char* what) {
    try {
      return call(iba::method::GET, attr, amod);
    } catch (const ibcore::MADError& e) {
      ibcore::report(e);
      fail(what);
    }
  }
  void set(uint16_t attr, uint32_t amod, std::span<const uint8_t> payload, const char* what) {
    try {
      call(iba::method::SET, attr, amod, payload);
    } catch (const ibcore::MADError& e) {
      ibcore::report(e);
      fail(what);
    }
  }
  // NodeInfo of the target by SMP (SwitchPortCongestionSetting).
  iba::SMPNodeInfo node_info(const char* what) {
    IBPath sp;
    if (target.is_dr()) {
      sp = target;
    } else {
      sp.DLID = path.DLID;
    }
    try {
      return mad.SubnGet<iba::SMPNodeInfo>(sp);
    } catch (const ibcore::MADError& e) {
      ibcore::report(e);
      fail(what);
    }
  }
  std::string header(const char* name) const { return std::string("# ") + name + ": " + where + "\n"; }
};

template <class T>
constexpr uint16_t attr_of() {
  return iba::AttrId<T>::value;
}

// --- ibccquery ----------------------------------------------------------------------

void q_cpi(Ctx& c) {
  auto d = c.get(attr_of<iba::MADClassPortInfo>(), 0, "class port info query failed");
  c.emit("ClassPortInfo", iba::MADClassPortInfo::DESC, d,
         [&] { return c.header("ClassPortInfo") + dump_at(iba::MADClassPortInfo::DESC, d, 0, CPI_LINES); });
}
void q_ci(Ctx& c) {
  auto d = c.get(attr_of<iba::CCCongestionInfo>(), 0, "congestion info query failed");
  c.emit("CongestionInfo", iba::CCCongestionInfo::DESC, d,
         [&] { return c.header("CongestionInfo") + dump_at(iba::CCCongestionInfo::DESC, d, 0, CI_LINES); });
}
void q_ck(Ctx& c) {
  auto d = c.get(attr_of<iba::CCCongestionKeyInfo>(), 0, "congestion key info query failed");
  c.emit("CongestionKeyInfo", iba::CCCongestionKeyInfo::DESC, d,
         [&] { return c.header("CongestionKeyInfo") + dump_at(iba::CCCongestionKeyInfo::DESC, d, 0, CK_LINES); });
}
void q_cl(Ctx& c) {
  auto d = c.get(attr_of<iba::CCCongestionLogSwitch>(), 0, "congestion log query failed");
  unsigned type = d.empty() ? 0 : d[0];
  if (type != 1 && type != 2) c.fail("unrecognized log type");
  c.emit("CongestionLog", type == 1 ? iba::CCCongestionLogSwitch::DESC : iba::CCCongestionLogCA::DESC, d, [&] {
    std::string out = c.header("CongestionLog") + dump_at(iba::CCCongestionLogSwitch::DESC, d, 0, LOG_LINES);
    auto nonzero = [&](size_t off, size_t n) {
      for (size_t i = off; i < off + n && i < d.size(); ++i)
        if (d[i]) return true;
      return false;
    };
    if (type == 1) {
      out += dump_at(iba::CCCongestionLogSwitch::DESC, d, 0, LOG_SW_LINES) + "\n";
      const auto& ed = iba::CCCongestionEntrySwitch::DESC;
      size_t first = iba::find_field(iba::CCCongestionLogSwitch::DESC, "congestionEntryList")->bit_off / 8;
      for (size_t i = 0; i < 15; ++i)
        if (nonzero(first + i * ed.size, ed.size)) out += dump_at(ed, d, first + i * ed.size, LOG_SW_ENTRY_LINES) + "\n";
    } else {
      out += dump_at(iba::CCCongestionLogCA::DESC, d, 0, LOG_CA_LINES) + "\n";
      const auto& ed = iba::CCCongestionEntryCA::DESC;
      size_t first = iba::find_field(iba::CCCongestionLogCA::DESC, "congestionEntryList")->bit_off / 8;
      for (size_t i = 0; i < 13; ++i)
        if (nonzero(first + i * ed.size, ed.size)) out += dump_at(ed, d, first + i * ed.size, LOG_CA_ENTRY_LINES) + "\n";
    }
    return out;
  });
}
void q_ss(Ctx& c) {
  auto d = c.get(attr_of<iba::CCSwitchCongestionSetting>(), 0, "switch congestion setting query failed");
  c.emit("SwitchCongestionSetting", iba::CCSwitchCongestionSetting::DESC, d, [&] {
    return c.header("SwitchCongestionSetting") + dump_at(iba::CCSwitchCongestionSetting::DESC, d, 0, SS_LINES);
  });
}

constexpr unsigned SP_PER_BLOCK = 32;  // A10.4.3.6

void q_sp(Ctx& c) {
  long port = c.params.empty() ? 0 : std::strtol(c.params[0].c_str(), nullptr, 0);
  auto ni = c.node_info("node info query failed");
  if (ni.nodeType() != 2) c.fail("destination not a switch");
  unsigned nports = unsigned(ni.numPorts());
  // {"SwitchPortCongestionSetting": [{"port", its fields}]}; the text: the
  // header at once, then the ports a block at a time.
  c.p->text("%s", c.header("SwitchPortCongestionSetting").c_str());
  std::fflush(stdout);
  const auto& ed = iba::CCSwitchPortCongestionSettingElement::DESC;
  c.p->open_array("SwitchPortCongestionSetting");
  if (port) {
    if (port < 0 || unsigned(port) > nports) c.fail("invalid port number specified");
    auto d = c.get(attr_of<iba::CCSwitchPortCongestionSetting>(), unsigned(port) / SP_PER_BLOCK,
                   "switch port congestion setting query failed");
    size_t off = (unsigned(port) % SP_PER_BLOCK) * ed.size;
    c.element("port", unsigned(port), ed, d, off, [&] { return dump_at(ed, d, off, SP_ELEM_LINES); });
    c.p->close_array();
    return;
  }
  for (unsigned block = 0; block <= nports / SP_PER_BLOCK; ++block) {
    auto d = c.get(attr_of<iba::CCSwitchPortCongestionSetting>(), block,
                   "switch port congestion setting query failed");
    for (unsigned j = 0; j < SP_PER_BLOCK && block * SP_PER_BLOCK + j <= nports; ++j) {
      unsigned n = block * SP_PER_BLOCK + j;
      c.element("port", n, ed, d, j * ed.size, [&] {
        return ref::dotted("Port", std::to_string(n)) + dump_at(ed, d, j * ed.size, SP_ELEM_LINES) + "\n";
      });
    }
    std::fflush(stdout);
  }
  c.p->close_array();
}
void q_cs(Ctx& c) {
  auto d = c.get(attr_of<iba::CCCACongestionSetting>(), 0, "ca congestion setting query failed");
  c.emit("CACongestionSetting", iba::CCCACongestionSetting::DESC, d, [&] {
    std::string out = c.header("CACongestionSetting") + dump_at(iba::CCCACongestionSetting::DESC, d, 0, CS_LINES) + "\n";
    const auto& ed = iba::CCCACongestionEntry::DESC;
    size_t first = iba::find_field(iba::CCCACongestionSetting::DESC, "block")->bit_off / 8;
    for (unsigned sl = 0; sl < 16; ++sl) {
      out += ref::dotted("SL", std::to_string(sl));
      out += dump_at(ed, d, first + sl * ed.size, CS_ENTRY_LINES) + "\n";
    }
    return out;
  });
}
void q_ct(Ctx& c) {
  const char* what = "congestion control table query failed";
  auto d = c.get(attr_of<iba::CCCongestionControlTable>(), 0, what);
  const auto& td = iba::CCCongestionControlTable::DESC;
  std::vector<uint8_t> first_block(td.size, 0);
  std::memcpy(first_block.data(), d.data(), std::min(d.size(), first_block.size()));
  iba::CCCongestionControlTable t;
  t.load(first_block);
  unsigned limit = unsigned(t.CCTILimit());
  // --json: {"CongestionControlTable": {"CCTILimit", "entries": [{"entry",
  // its fields}] (entries 0 to CCTILimit; none when it is 0)}}
  c.p->open_object("CongestionControlTable").uint(ibcore::PRINT_JSON, "CCTILimit", nullptr, limit);
  c.p->text("%s%s\n", c.header("CongestionControlTable").c_str(), dump_at(td, d, 0, CT_LINES).c_str());
  std::fflush(stdout);
  c.p->open_array("entries");
  const auto& ed = iba::CCCongestionControlTableEntry::DESC;
  size_t first = iba::find_field(td, "block")->bit_off / 8;
  const unsigned per_block = 64;
  for (unsigned block = 0; limit && block <= limit / per_block; ++block) {
    if (block) d = c.get(attr_of<iba::CCCongestionControlTable>(), block, what);
    for (unsigned j = 0; j < per_block && block * per_block + j <= limit; ++j) {
      unsigned n = block * per_block + j;
      size_t off = first + j * ed.size;
      c.element("entry", n, ed, d, off, [&] {
        return ref::dotted("Entry", std::to_string(n)) + dump_at(ed, d, off, CT_ENTRY_LINES) + "\n";
      });
    }
    std::fflush(stdout);
  }
  c.p->close_array().close_object();
}
void q_ti(Ctx& c) {
  auto d = c.get(attr_of<iba::CCTimeStamp>(), 0, "timestamp query failed");
  c.emit("Timestamp", iba::CCTimeStamp::DESC, d,
         [&] { return c.header("Timestamp") + dump_at(iba::CCTimeStamp::DESC, d, 0, TS_LINES); });
}

// --- ibccconfig ---------------------------------------------------------------------

// The reference's number parsing: base 0 (hex digits only for mask bytes),
// the whole argument must be a number, range errors named.
uint64_t num64(const Ctx& c, const std::string& s) {
  errno = 0;
  char* end = nullptr;
  uint64_t v = std::strtoull(s.c_str(), &end, 0);
  if ((end && *end) || errno) c.fail(errno == ERANGE ? "value out of range" : "invalid integer input");
  return v;
}
uint32_t num32(const Ctx& c, const std::string& s) {
  errno = 0;
  char* end = nullptr;
  unsigned long v = std::strtoul(s.c_str(), &end, 0);
  if ((end && *end) || errno) c.fail(errno == ERANGE ? "value out of range" : "invalid integer input");
  return uint32_t(v);  // the reference keeps the low 32 bits
}
// A 256 bit mask given as hex digits (optional 0x), right aligned.
std::vector<uint8_t> mask256(const Ctx& c, const std::string& arg) {
  std::string s = arg;
  if (s.rfind("0x", 0) == 0 || s.rfind("0X", 0) == 0) s = s.substr(2);
  for (char ch : s)
    if (!isxdigit(static_cast<unsigned char>(ch))) c.fail("invalid hex digit read");
  if (s.size() > 64) c.fail("hex code too long");
  std::vector<uint8_t> out(32, 0);
  if (s.size() % 2) s = "0" + s;
  size_t start = 32 - s.size() / 2;
  for (size_t i = 0; i < s.size() / 2; ++i) out[start + i] = uint8_t(std::strtoul(s.substr(2 * i, 2).c_str(), nullptr, 16));
  return out;
}
// "shift:multiplier"
std::pair<uint32_t, uint32_t> cct_entry(const Ctx& c, const std::string& s) {
  auto colon = s.find(':');
  if (colon == std::string::npos) c.fail("ccts are formatted shift:multiplier");
  return {num32(c, s.substr(0, colon)), num32(c, s.substr(colon + 1))};
}

void set_bytes(const iba::StructDesc& d, uint8_t* buf, const char* field, const std::vector<uint8_t>& v) {
  auto r = iba::find_field(d, field);
  std::memcpy(buf + r->bit_off / 8, v.data(), std::min<size_t>(v.size(), r->width() / 8));
}

void c_ck(Ctx& c) {
  auto& p = c.params;
  if (p.size() != 4) c.fail("invalid number of parameters for CongestionKeyInfo");
  uint64_t key = num64(c, p[0]);
  uint32_t protect = num32(c, p[1]), lease = num32(c, p[2]), viol = num32(c, p[3]);
  if (protect > 1) c.fail("invalid cc_keyprotectbit value");
  if (lease > USHRT_MAX) c.fail("invalid cc_keyleaseperiod value");
  if (viol > USHRT_MAX) c.fail("invalid cc_keyviolations value");
  iba::CCCongestionKeyInfo k;
  k.set_CCKey(key);
  k.set_CCKeyProtectBit(protect);
  k.set_CCKeyLeasePeriod(lease);
  // Violations: IBA says a non-zero value leaves the counter unchanged.
  k.set_CCKeyViolations(viol);
  c.set(attr_of<iba::CCCongestionKeyInfo>(), 0, k.bytes(), "congestion key info config failed");
}
void c_ss(Ctx& c) {
  auto& p = c.params;
  if (p.size() != 8) c.fail("invalid number of parameters for SwitchCongestionSetting");
  uint32_t control_map = num32(c, p[0]);
  auto victim = mask256(c, p[1]);
  auto credit = mask256(c, p[2]);
  uint32_t threshold = num32(c, p[3]), packet_size = num32(c, p[4]), cs_threshold = num32(c, p[5]);
  auto [shift, mult] = cct_entry(c, p[6]);
  uint32_t marking = num32(c, p[7]);
  iba::CCSwitchCongestionSetting s;
  s.set_controlMap(control_map);
  set_bytes(iba::CCSwitchCongestionSetting::DESC, s.raw(), "victimMask", victim);
  set_bytes(iba::CCSwitchCongestionSetting::DESC, s.raw(), "creditMask", credit);
  s.set_threshold(threshold & 0xf);
  s.set_packetSize(packet_size & 0xff);
  s.set_CSThreshold(cs_threshold & 0xf);
  // CS_ReturnDelay: shift in the top 2 bits, multiplier in the low 14.
  s.set_CSReturnDelay(((shift << 14) | mult) & 0xffff);
  s.set_markingRate(marking & 0xffff);
  c.set(attr_of<iba::CCSwitchCongestionSetting>(), 0, s.bytes(), "switch congestion setting config failed");
}
void c_sp(Ctx& c) {
  auto& p = c.params;
  if (p.size() != 6) c.fail("invalid number of parameters for SwitchPortCongestion");
  uint32_t port = num32(c, p[0]), valid = num32(c, p[1]), type = num32(c, p[2]), threshold = num32(c, p[3]),
           packet_size = num32(c, p[4]), marking = num32(c, p[5]);
  auto ni = c.node_info("node info config failed");
  if (ni.nodeType() != 2) c.fail("destination not a switch");
  if (port > ni.numPorts()) c.fail("invalid port number specified");
  // Only one port changes: read its block, change its element, write back.
  uint32_t block = port / SP_PER_BLOCK;
  auto d = c.get(attr_of<iba::CCSwitchPortCongestionSetting>(), block, "switch port congestion setting query failed");
  d.resize(std::max<size_t>(d.size(), iba::CCSwitchPortCongestionSetting::DESC.size), 0);
  iba::CCSwitchPortCongestionSetting s;
  s.load(std::span<const uint8_t>(d.data(), iba::CCSwitchPortCongestionSetting::DESC.size));
  auto e = s.block(port % SP_PER_BLOCK);
  e.set_valid(valid & 1);
  e.set_controlType(type & 1);
  e.set_threshold(threshold & 0xf);
  e.set_packetSize(packet_size & 0xff);
  e.set_congParmMarkingRate(marking & 0xffff);
  s.set_block(port % SP_PER_BLOCK, e);
  c.set(attr_of<iba::CCSwitchPortCongestionSetting>(), block, s.bytes(),
        "switch port congestion setting config failed");
}
void c_cs(Ctx& c) {
  auto& p = c.params;
  if (p.size() != 6) c.fail("invalid number of parameters for CACongestionSetting");
  uint32_t port_control = num32(c, p[0]), control_map = num32(c, p[1]), timer = num32(c, p[2]), increase = num32(c, p[3]),
           trigger = num32(c, p[4]), min = num32(c, p[5]);
  iba::CCCACongestionSetting s;
  s.set_portControl(port_control & 0xffff);
  s.set_controlMap(control_map & 0xffff);
  // The entry values go to every SL whose control map bit is set.
  for (unsigned sl = 0; sl < 16; ++sl) {
    if (!(control_map & (1u << sl))) continue;
    iba::CCCACongestionEntry e;
    e.set_CCTITimer(timer & 0xffff);
    e.set_CCTIIncrease(increase & 0xff);
    e.set_triggerThreshold(trigger & 0xff);
    e.set_CCTIMin(min & 0xff);
    s.set_block(sl, e);
  }
  c.set(attr_of<iba::CCCACongestionSetting>(), 0, s.bytes(), "ca congestion setting config failed");
}
void c_ct(Ctx& c) {
  auto& p = c.params;
  if (p.size() < 2 || p.size() > 66) c.fail("invalid number of parameters for CongestionControlTable");
  uint32_t limit = num32(c, p[0]), index = num32(c, p[1]);
  size_t n = p.size() - 2;
  if (limit && uint64_t(limit) + 1 != uint64_t(index) * 64 + n)
    c.fail("invalid number of cct entries input given ccti_limit and index");
  iba::CCCongestionControlTable t;
  t.set_CCTILimit(limit & 0xffff);
  for (size_t i = 0; i < n; ++i) {
    auto [shift, mult] = cct_entry(c, p[2 + i]);
    iba::CCCongestionControlTableEntry e;
    e.set_CCTShift(shift & 3);
    e.set_CCTMultiplier(mult & 0x3fff);
    t.set_block(i, e);
  }
  c.set(attr_of<iba::CCCongestionControlTable>(), index, t.bytes(), "congestion control table config failed");
}

// --- the commands ---------------------------------------------------------------------

struct Op {
  const char* name;
  const char* alias;
  void (*fn)(Ctx&);
  const char* params;  // after <lid|guid> in the usage
};

const Op QUERY_OPS[] = {
    {"ClassPortInfo", "CP", q_cpi, ""},
    {"CongestionInfo", "CI", q_ci, ""},
    {"CongestionKeyInfo", "CK", q_ck, ""},
    {"CongestionLog", "CL", q_cl, ""},
    {"SwitchCongestionSetting", "SS", q_ss, ""},
    {"SwitchPortCongestionSetting", "SP", q_sp, " [<portnum>]"},
    {"CACongestionSetting", "CS", q_cs, ""},
    {"CongestionControlTable", "CT", q_ct, ""},
    {"Timestamp", "TI", q_ti, ""},
};
const Op CONFIG_OPS[] = {
    {"CongestionKeyInfo", "CK", c_ck, " <cckey> <cckeyprotectbit> <cckeyleaseperiod> <cckeyviolations>"},
    {"SwitchCongestionSetting", "SS", c_ss,
     " <controlmap> <victimmask> <creditmask> <threshold> <packetsize> <csthreshold> <csreturndelay> "
     "<markingrate>"},
    {"SwitchPortCongestionSetting", "SP", c_sp,
     " <portnum> <valid> <control_type> <threshold> <packet_size> <cong_parm_marking_rate>"},
    {"CACongestionSetting", "CS", c_cs,
     " <port_control> <control_map> <ccti_timer> <ccti_increase> <trigger_threshold> <ccti_min>"},
    {"CongestionControlTable", "CT", c_ct, " <cctilimit> <index> <cctentry> <cctentry> ..."},
};

template <size_t N>
std::string op_list(const Op (&ops)[N]) {
  std::string s = "Supported ops (and aliases, case insensitive):\n";
  for (const Op& o : ops) s += "  " + std::string(o.name) + " (" + o.alias + ") <lid|guid>" + o.params + "\n";
  return s;
}

class CcCommand : public ibtool::Command {
public:
  CcCommand(std::span<const Op> ops) : ops_(ops) {}

  void options(CLI::App& app) override {
    ibtool::bind_ref_help(app, help_);
    app.add_option("-c,--cckey", cckey_str_, "CC key")->option_text("<key>");
    flags_.bind(app, ibtool::tflag::Lid | ibtool::tflag::Guid | ibtool::tflag::SmPort);
    ibtool::add_common_options(app, config(), ibtool::opt::Gmp | ibtool::opt::MKey |
                                        (ops_.data() == QUERY_OPS ? ibtool::opt::Json : 0u));
    app.add_option("args", args_, "<op> <lid|guid> [op params]");
  }

  bool reports_errors() const override { return true; }

  int run() override {
    if (help_ || args_.size() < 2) return ibtool::ref_help_exit(app());
    const Op* op = nullptr;
    for (const Op& o : ops_)
      if (!strcasecmp(args_[0].c_str(), o.name) || !strcasecmp(args_[0].c_str(), o.alias)) op = &o;
    if (!op) {
      ibcore::log::error("E: unknown operation '%s' (see --help for the list)\n", args_[0].c_str());
      throw ibtool::RefFail{"operation '" + args_[0] + "' not supported"};
    }
    // The reference reads the key with strtoull and no checks.
    uint64_t cckey = cckey_str_.empty() ? 0 : std::strtoull(cckey_str_.c_str(), nullptr, 0);
    // A LID is addressed directly by the reference: without a PathRecord
    // its first MAD fails instead.
    auto t = ibtool::open_gmp_target(config(), flags_, args_, 1, {.noun = "destination"});
    Ctx c{t.mad(), t.target, t.path, t.path_error, cckey, {args_.begin() + 2, args_.end()}, {}, nullptr, args_[0]};
    c.where = "Lid " + std::to_string(c.path.DLID);
    // --json: {"destination", the op's attribute}, written once the op
    // succeeded (a failure leaves stdout empty).
    ibcore::Printer p(stdout, ibcore::Printer::Doc::Whole);
    p.open_object().json_value("destination", [&](ibcore::JsonOut& j) { c.path.json(j); });
    c.p = &p;
    op->fn(c);
    p.close_object().finish();
    std::fflush(stdout);
    return 0;
  }

private:
  std::span<const Op> ops_;
  ibtool::TargetFlags flags_;
  bool help_ = false;
  std::string cckey_str_;
  std::vector<std::string> args_;
};

}  // namespace

IBTOOL_COMMAND({.name = "ibccquery",
                .aliases = {},
                .summary = "query congestion control settings and information of a port",
                .description = [] { return "Reads one congestion control attribute (class 0x21) of the destination "
                               "and prints it in the reference's layout.  -c gives the CC_Key the "
                               "MADs carry (default 0).  --json (-j; --pretty indents): {\"destination\", "
                               "\"<op name>\": the attribute's fields as iba/ names them; "
                               "SwitchPortCongestionSetting a list of {\"port\", fields}, "
                               "CongestionControlTable {\"CCTILimit\", \"entries\": [{\"entry\", fields}]}}.\n\n" +
                               op_list(QUERY_OPS); },
                .usage = "[options] [-c key] <op> <lid|guid> [portnum]",
                .examples = "  ibccquery CongestionInfo 3                  # Congestion Info by lid\n"
                            "  ibccquery SwitchPortCongestionSetting 3     # every port of a switch\n"
                            "  ibccquery SwitchPortCongestionSetting 3 1   # port 1 only",
                .make = [] { return std::make_unique<CcCommand>(QUERY_OPS); }});

IBTOOL_COMMAND({.name = "ibccconfig",
                .aliases = {},
                .summary = "configure congestion control settings of a switch or CA",
                .description = [] { return "Sets one congestion control attribute (class 0x21) of the destination "
                               "from the values given after it; nothing is printed on success.  -c "
                               "gives the CC_Key the MADs carry (default 0).  WARNING: misuse can "
                               "break a fabric.\n\n" +
                               op_list(CONFIG_OPS); },
                .usage = "[options] [-c key] <op> <lid|guid> [op params]",
                .examples = "  ibccconfig SwitchCongestionSetting 2 0x1F 0x1FFFFFFFFF 0x0 0xF 8 0 0:0 1\n"
                            "  ibccconfig CACongestionSetting 1 0 0x3 150 1 0 0\n"
                            "  ibccconfig CongestionControlTable 1 63 0 0:0 0:1 ...",
                .make = [] { return std::make_unique<CcCommand>(CONFIG_OPS); }});
