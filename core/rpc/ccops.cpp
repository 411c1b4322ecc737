#include "core/rpc/ccops.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>

#include "core/out/log.h"
#include "iba/cc.h"
#include "iba/introspect.h"
#include "iba/refprint.h"

namespace ibcore::cc {

namespace {

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
  c.p->open_object("CongestionControlTable").uint(PRINT_JSON, "CCTILimit", nullptr, limit);
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

}  // namespace

const Op QUERY_OPS[9] = {
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
const Op CONFIG_OPS[5] = {
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

std::string op_list(std::span<const Op> ops) {
  std::string s = "Supported ops (and aliases, case insensitive):\n";
  for (const Op& o : ops) s += "  " + std::string(o.name) + " (" + o.alias + ") <lid|guid>" + o.params + "\n";
  return s;
}

}  // namespace ibcore::cc
