// saquery's record layouts (learned by running the reference saquery against
// OpenSM on a simulated fabric; the rows in test/conformance/rows/saquery.rows
// compare every one of them).
#include "iba/refprint_sa.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "iba/refprint_smp.h"

namespace iba::ref {

namespace {

using ull = unsigned long long;

std::string pf(const char* fmt, ull v) {
  char b[64];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

// The field's value in a printf format.
template <const char* F>
std::string val(uint64_t v, const FieldRef&, const uint8_t*) {
  return pf(F, v);
}
// The byte the field starts in (the reference prints selector and value
// together: MTU, rate, packet lifetime).
template <const char* F>
std::string byte_of(uint64_t, const FieldRef& r, const uint8_t* buf) {
  return pf(F, buf[r.bit_off / 8]);
}
// The 32-bit word the field starts in (TC/SL/FL, HL/QP and similar words).
template <const char* F>
std::string word_of(uint64_t, const FieldRef& r, const uint8_t* buf) {
  return pf(F, get_bits(buf, r.bit_off / 32 * 32, 32));
}

constexpr char X[] = "0x%llX";
constexpr char x[] = "0x%llx";
constexpr char X02[] = "0x%02llX";
constexpr char X04[] = "0x%04llX";
constexpr char X08[] = "0x%08llX";
constexpr char X012[] = "0x%012llX";
constexpr char x06[] = "0x%06llx";

// Reserved bits the reference prints (introspection does not name reserved
// fields): OFF and W in bits from the record's start, the row's field only
// anchors the line.
template <uint32_t OFF, uint32_t W, const char* F>
std::string bits(uint64_t, const FieldRef&, const uint8_t* buf) {
  return pf(F, get_bits(buf, OFF, W));
}


// OpenSM fills a P_KeyTableRecord's BlockNum in host (little endian) order
// and the reference prints the field without converting it, so on x86 the
// two cancel out: print the 16 bits byte-swapped to show what it shows.
std::string swapped16(uint64_t v, const FieldRef&, const uint8_t*) {
  return std::to_string(((v & 0xff) << 8) | ((v >> 8) & 0xff));
}

std::string zero_guid(uint64_t, const FieldRef& r, const uint8_t* b) { return guid(0, r, b); }

// 64 bits from the field's start (PathRecord's ServiceID halves).
std::string guid64(uint64_t, const FieldRef& r, const uint8_t* buf) {
  return pf("0x%016llx", get_bits(buf, r.bit_off, 64));
}

std::string key_bytes(uint64_t, const FieldRef& r, const uint8_t* buf) {
  std::string s = "0x";
  for (uint32_t i = 0; i < r.width() / 8; ++i) s += pf("%02llx", buf[r.bit_off / 8 + i]);
  return s;
}

uint64_t field_of(const StructDesc& d, const uint8_t* buf, const char* name) {
  auto f = find_field(d, name);
  if (!f) throw std::logic_error(std::string("no field ") + name + " in " + d.name);
  return get_uint(*f, buf);
}

// --- tables and nested dumps (rows with no label) ---------------------------------

std::string port_info(const FieldRef& r, const uint8_t* buf, bool keys, Compat compat) {
  SmpPrintOptions o;
  o.show_keys = keys;
  o.compat = compat;
  std::string s = smp_print(SMPPortInfo::DESC, {buf + r.bit_off / 8, r.width() / 8}, o);
  // Each dotted line indented twice; the capability mask's continuation
  // lines already start with tabs.
  std::string out;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t nl = s.find('\n', pos);
    if (nl == std::string::npos) nl = s.size();
    if (s[pos] != '\t') out += "\t\t";
    out.append(s, pos, nl - pos);
    out += '\n';
    pos = nl + 1;
  }
  return out;
}
template <bool KEYS, Compat COMPAT>
std::string port_info_dump(uint64_t, const FieldRef& r, const uint8_t* buf) {
  return port_info(r, buf, KEYS, COMPAT);
}

std::string sl2vl_table(uint64_t, const FieldRef& r, const uint8_t* buf) {
  std::string s = "\t\tSL: 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14|15|\n\t\tVL:";
  for (uint32_t i = 0; i < 16; ++i) s += pf("%2llu|", get_bits(buf, r.bit_off + 4 * i, 4));
  return s + "\n";
}

std::string vlarb_table(uint64_t, const FieldRef& r, const uint8_t* buf) {
  const uint8_t* b = buf + r.bit_off / 8;
  std::string s;
  for (int row = 0; row < 2; ++row) {
    s += "\t\tVL    :";
    for (int i = 0; i < 16; ++i) s += pf("%2llu|", b[(row * 16 + i) * 2] & 0xf);
    s += "\n\t\tWeight:";
    for (int i = 0; i < 16; ++i) s += pf("%2llu|", b[(row * 16 + i) * 2 + 1]);
    s += "\n";
  }
  return s;
}

std::string lft_table(uint64_t, const FieldRef& r, const uint8_t* buf) {
  uint64_t block = field_of(SALinearForwardingTableRecord::DESC, buf, "blockNum");
  std::string s = "\t\tLFT:\n\t\tLID\tPort Number\n";
  for (uint32_t i = 0; i < 64; ++i)
    s += pf("\t\t%llu", block * 64 + i) + pf("\t%llu\n", buf[r.bit_off / 8 + i]);
  return s + "\n";
}

std::string mft_table(uint64_t, const FieldRef& r, const uint8_t* buf) {
  uint64_t block = field_of(SAMulticastForwardingTableRecord::DESC, buf, "blockNum");
  std::string s = "\t\tMFT:\n\t\tMLID\tPort Mask\n";
  for (uint32_t i = 0; i < 32; ++i)
    s += pf("\t\t0x%llx", 0xc000 + block * 32 + i) + pf("\t0x%llx\n", get_bits(buf, r.bit_off + 16 * i, 16));
  return s;
}

std::string pkey_table(uint64_t, const FieldRef& r, const uint8_t* buf) {
  std::string s = "\t\tPKey Table:\n";
  for (uint32_t i = 0; i < 32; ++i) {
    s += pf(i % 8 == 0 ? "\t\t0x%04llx" : " 0x%04llx", get_bits(buf, r.bit_off + 16 * i, 16));
    if (i % 8 == 7) s += "\n";
  }
  return s + "\n";
}

// --- the layouts -------------------------------------------------------------------

constexpr Line NODE_RECORD[] = {
    {"lid", "LID", dec},
    {"reserved", "LID", bits<16, 16, X>},
    {"base_version", "nodeInfo.baseVersion", val<X>},
    {"class_version", "nodeInfo.classVersion", val<X>},
    {"node_type", "nodeInfo.nodeType", [](uint64_t v, const FieldRef&, const uint8_t*) { return fmt_node_type(v); }},
    {"num_ports", "nodeInfo.numPorts", dec},
    {"sys_guid", "nodeInfo.systemImageGUID", guid},
    {"node_guid", "nodeInfo.nodeGUID", guid},
    {"port_guid", "nodeInfo.portGUID", guid},
    {"partition_cap", "nodeInfo.partitionCap", val<X>},
    {"device_id", "nodeInfo.deviceID", val<X>},
    {"revision", "nodeInfo.revision", val<X>},
    {"port_num", "nodeInfo.localPortNum", dec},
    {"vendor_id", "nodeInfo.vendorID", val<X>},
    {"NodeDescription", "nodeDescription", str},
};

#define PIR_LINES(PORTINFO)              \
  {"\tRID", nullptr, nullptr},           \
  {"EndPortLid", "endportLID", dec},     \
  {"PortNum", "portNum", dec},           \
  {"Options", "options", val<X>},        \
  {"\tPortInfo dump:", nullptr, nullptr}, \
  {nullptr, "portInfo", PORTINFO},
constexpr Line PORT_INFO_RECORD[] = {PIR_LINES((port_info_dump<true, Compat::Diags44>))};
constexpr Line PORT_INFO_RECORD_NO_KEYS[] = {PIR_LINES((port_info_dump<false, Compat::Diags44>))};
constexpr Line PORT_INFO_RECORD_CURRENT[] = {PIR_LINES((port_info_dump<true, Compat::Current>))};
constexpr Line PORT_INFO_RECORD_CURRENT_NO_KEYS[] = {PIR_LINES((port_info_dump<false, Compat::Current>))};

constexpr Line SL2VL_RECORD[] = {
    {"LID", "LID", dec},
    {"InPort", "inputPortNum", dec},
    {"OutPort", "outputPortNum", dec},
    {nullptr, "SLToVLMappingTable", sl2vl_table},
};

constexpr Line VLARB_RECORD[] = {
    {"LID", "LID", dec},
    {"Port", "outputPortNum", dec},
    {"Block", "blockNum", dec},
    {nullptr, "VLArbitrationTable", vlarb_table},
};

constexpr Line LINK_RECORD[] = {
    {"FromLID", "fromLID", dec},
    {"FromPort", "fromPort", dec},
    {"ToPort", "toPort", dec},
    {"ToLID", "toLID", dec},
};

constexpr Line PATH_RECORD[] = {
    {"service_id", "serviceIDMSB", guid64},
    {"dgid", "DGID", gid},
    {"sgid", "SGID", gid},
    {"dlid", "DLID", dec},
    {"slid", "SLID", dec},
    {"hop_flow_raw", "rawTraffic", word_of<X>},
    {"tclass", "TClass", val<X>},
    {"num_path_revers", "reversible", byte_of<X>},
    {"pkey", "PKey", val<X>},
    {"qos_class", "QOSClass", val<X>},
    {"sl", "SL", val<X>},
    {"mtu", "MTUSelector", byte_of<X>},
    {"rate", "rateSelector", byte_of<X>},
    {"pkt_life", "packetLifeTimeSelector", byte_of<X>},
    {"preference", "preference", val<X>},
    {"resv2", "preference", bits<464, 48, X012>},
};

constexpr Line MCMEMBER_RECORD[] = {
    {"MGID", "MGID", gid},
    {"PortGid", "portGID", gid},
    {"qkey", "QKey", val<x>},
    {"mlid", "MLID", val<x>},
    {"mtu", "MTUSelector", byte_of<x>},
    {"TClass", "TClass", val<x>},
    {"pkey", "PKey", val<x>},
    {"rate", "rateSelector", byte_of<x>},
    {"pkt_life", "packetLifeTimeSelector", byte_of<x>},
    {"SL", "SL", val<x>},
    {"FlowLabel", "flowLabel", val<x>},
    {"HopLimit", "hopLimit", val<x>},
    {"Scope", "scope", val<x>},
    {"JoinState", "joinState", val<x>},
    {"ProxyJoin", "proxyJoin", val<x>},
};

constexpr Line LFT_RECORD[] = {
    {"LID", "LID", dec},
    {"Block", "blockNum", dec},
    {nullptr, "linearForwardingTable", lft_table},
};

constexpr Line MFT_RECORD[] = {
    {"LID", "LID", dec},
    {"Position", "position", dec},
    {"Block", "blockNum", dec},
    {nullptr, "multicastForwardingTable", mft_table},
};

constexpr Line GUIDINFO_RECORD[] = {
    {"LID", "LID", dec},
    {"Block", "blockNum", dec},
    {"GUID 0", "GUIDInfo.GUID0", guid},
    {"GUID 1", "GUIDInfo.GUID1", guid},
    {"GUID 2", "GUIDInfo.GUID2", guid},
    {"GUID 3", "GUIDInfo.GUID3", guid},
    {"GUID 4", "GUIDInfo.GUID4", guid},
    {"GUID 5", "GUIDInfo.GUID5", guid},
    {"GUID 6", "GUIDInfo.GUID6", guid},
    {"GUID 7", "GUIDInfo.GUID7", guid},
};

constexpr Line SWITCHINFO_RECORD[] = {
    {"\t\tRID", nullptr, nullptr},
    {"LID", "LID", dec},
    {"\t\tSwitchInfo dump:", nullptr, nullptr},
    {"LinearFDBCap", "switchInfo.linearFDBCap", val<X>},
    {"RandomFDBCap", "switchInfo.randomFDBCap", val<X>},
    {"MulticastFDBCap", "switchInfo.multicastFDBCap", val<X>},
    {"LinearFDBTop", "switchInfo.linearFDBTop", val<X>},
    {"DefaultPort", "switchInfo.defaultPort", dec},
    {"DefaultMulticastPrimaryPort", "switchInfo.defaultMulticastPrimaryPort", dec},
    {"DefaultMulticastNotPrimaryPort", "switchInfo.defaultMulticastNotPrimaryPort", dec},
    {"LifeTimeValue/PortStateChange/OpSL2VL", "switchInfo.lifeTimeValue", byte_of<X>},
    {"LIDsPerPort", "switchInfo.LIDsPerPort", val<X>},
    {"PartitionEnforcementCap", "switchInfo.partitionEnforcementCap", val<X>},
    {"flags", "switchInfo.inboundEnforcementCap", byte_of<X>},
    {"MulticastFDBTop", "switchInfo.multicastFDBTop", val<X>},
};

#define SMIR_LINES(KEYFMT)                     \
  {"\t\tRID", nullptr, nullptr},               \
  {"LID", "LID", dec},                         \
  {"\t\tSMInfo dump:", nullptr, nullptr},      \
  {"GUID", "SMInfo.GUID", guid},               \
  {"SM_Key", "SMInfo.SMKey", KEYFMT},          \
  {"ActCount", "SMInfo.actCount", dec},        \
  {"Priority", "SMInfo.priority", dec},        \
  {"SMState", "SMInfo.SMState", dec},
constexpr Line SMINFO_RECORD[] = {SMIR_LINES(guid)};
constexpr Line SMINFO_RECORD_NO_KEYS[] = {SMIR_LINES(zero_guid)};

constexpr Line CLASS_PORT_INFO[] = {
    {"Base version", "baseVersion", dec},
    {"Class version", "classVersion", dec},
    {"Capability mask", "capabilityMask", val<X04>},
    {"Capability mask 2", "capabilityMask2", val<X08>},
    {"Response time value", "respTimeValue", val<X02>},
    {"Redirect GID", "redirectGID", gid},
    {"Redirect TC/SL/FL", "redirectTC", word_of<X08>},
    {"Redirect LID", "redirectLID", dec},
    {"Redirect PKey", "redirectPKey", val<X04>},
    {"Redirect QP", "redirectQP", word_of<X08>},
    {"Redirect QKey", "redirectQKey", val<X08>},
    {"Trap GID", "trapGID", gid},
    {"Trap TC/SL/FL", "trapTC", word_of<X08>},
    {"Trap LID", "trapLID", dec},
    {"Trap PKey", "trapPKey", val<X04>},
    {"Trap HL/QP", "trapHL", word_of<X08>},
    {"Trap QKey", "trapQKey", val<X08>},
};

constexpr Line SERVICE_RECORD[] = {
    {"ServiceID", "serviceID", guid},
    {"ServiceGID", "serviceGID", gid},
    {"ServiceP_Key", "servicePKey", val<x>},
    {"ServiceLease", "serviceLease", val<x>},
    {"ServiceKey", "serviceKey", key_bytes},
    {"ServiceName", "serviceName", str},
};

constexpr Line INFORMINFO_RECORD[] = {
    {"\t\tRID", nullptr, nullptr},
    {"SubscriberGID", "subscriberGID", gid},
    {"SubscriberEnum", "enumeration", val<x>},
    {"\t\tInformInfo dump:", nullptr, nullptr},
    {"subscriber_gid", "informInfo.GID", gid},
    {"lid_range_begin", "informInfo.LIDRangeBegin", dec},
    {"lid_range_end", "informInfo.LIDRangeEnd", dec},
    {"is_generic", "informInfo.isGeneric", val<x>},
    {"subscribe", "informInfo.subscribe", val<x>},
    {"trap_type", "informInfo.type", val<x>},
    {"trap_num", "informInfo.trapNumber", dec},
    {"qpn", "informInfo.QPN", val<x06>},
    {"resp_time_val", "informInfo.respTimeValue", val<x>},
    {"producer_type", "informInfo.producerType", val<x06>},
};

constexpr Line PKEY_RECORD[] = {
    {"LID", "LID", dec},
    {"Port", "portNum", dec},
    {"Block", "blockNum", swapped16},
    {nullptr, "PKeyTable", pkey_table},
};

constexpr Line ISSM[] = {
    {"EndPortLid", "endportLID", dec},
    {"PortNum", "portNum", dec},
    {"base_lid", "portInfo.LID", dec},
    {"master_sm_base_lid", "portInfo.masterSMLID", dec},
    {"capability_mask", "portInfo.capabilityMask", val<X>},
};

constexpr Line MC_GROUP[] = {
    {"MGID", "MGID", gid},
    {"Mlid", "MLID", val<X>},
    {"Mtu", "MTUSelector", byte_of<X>},
    {"pkey", "PKey", val<X>},
    {"Rate", "rateSelector", byte_of<X>},
    {"SL", "SL", val<X>},
};

constexpr Line MC_MEMBER[] = {
    {"MGID", "MGID", gid},
    {"Mlid", "MLID", val<X>},
    {"PortGid", "portGID", gid},
    {"ScopeState", "scope", byte_of<X>},
    {"ProxyJoin", "proxyJoin", val<X>},
};

struct Entry {
  const StructDesc* desc;
  SaLayout layout;
  SaLayout no_keys;  // header null: same as layout
  // At Compat::Current (header null: the same as at 44's level).
  SaLayout current = {};
  SaLayout current_no_keys = {};
};

const Entry kLayouts[] = {
    {&SANodeRecord::DESC, {"NodeRecord dump:", 24, NODE_RECORD}, {}},
    {&SAPortInfoRecord::DESC,
     {"PortInfoRecord dump:", 24, PORT_INFO_RECORD},
     {"PortInfoRecord dump:", 24, PORT_INFO_RECORD_NO_KEYS},
     {"PortInfoRecord dump:", 24, PORT_INFO_RECORD_CURRENT},
     {"PortInfoRecord dump:", 24, PORT_INFO_RECORD_CURRENT_NO_KEYS}},
    {&SASLToVLMappingTableRecord::DESC, {"SL2VLTableRecord dump:", 27, SL2VL_RECORD}, {}},
    {&SAVLArbitrationTableRecord::DESC, {"VLArbTableRecord dump:", 27, VLARB_RECORD}, {}},
    {&SALinkRecord::DESC, {"LinkRecord dump:", 27, LINK_RECORD}, {}},
    {&SAPathRecord::DESC, {"PathRecord dump:", 24, PATH_RECORD}, {}},
    {&SAMCMemberRecord::DESC, {"MCMember Record dump:", 24, MCMEMBER_RECORD}, {}},
    {&SALinearForwardingTableRecord::DESC, {"LFT Record dump:", 27, LFT_RECORD}, {}},
    {&SAMulticastForwardingTableRecord::DESC, {"MFT Record dump:", 27, MFT_RECORD}, {}},
    {&SAGUIDInfoRecord::DESC, {"GUIDInfo Record dump:", 27, GUIDINFO_RECORD}, {}},
    {&SASwitchInfoRecord::DESC, {"SwitchInfoRecord dump:", 40, SWITCHINFO_RECORD}, {}},
    {&SASMInfoRecord::DESC,
     {"SMInfoRecord dump:", 22, SMINFO_RECORD},
     {"SMInfoRecord dump:", 22, SMINFO_RECORD_NO_KEYS}},
    {&MADClassPortInfo::DESC, {"SA ClassPortInfo:", 25, CLASS_PORT_INFO}, {}},
    {&SAServiceRecord::DESC, {"ServiceRecord dump:", 24, SERVICE_RECORD}, {}},
    {&SAInformInfoRecord::DESC, {"InformInfoRecord dump:", 24, INFORMINFO_RECORD}, {}},
    {&SAPKeyTableRecord::DESC, {"PKeyTableRecord dump:", 27, PKEY_RECORD}, {}},
};

}  // namespace

const SaLayout SA_ISSM{"PortInfoRecord dump:", 24, ISSM};
const SaLayout SA_MC_GROUP{"MCMemberRecord group dump:", 24, MC_GROUP};
const SaLayout SA_MC_MEMBER{"MCMemberRecord member dump:", 24, MC_MEMBER};

const SaLayout* sa_layout(const StructDesc& desc, const SaPrintOptions& opt) {
  for (const auto& e : kLayouts)
    if (e.desc == &desc) {
      bool current = opt.compat == Compat::Current && e.current.header;
      const SaLayout& with_keys = current ? e.current : e.layout;
      const SaLayout& no_keys = current ? e.current_no_keys : e.no_keys;
      return !opt.show_keys && no_keys.header ? &no_keys : &with_keys;
    }
  return nullptr;
}

std::string sa_dotted(std::string_view label, size_t width, std::string_view value) {
  std::string out = "\t\t";
  out += label;
  if (label.size() < width) out.append(width - label.size(), '.');
  out += value;
  out += '\n';
  return out;
}

std::string sa_dump(const StructDesc& desc, const uint8_t* buf, const SaLayout& layout) {
  std::string out = std::string(layout.header) + "\n";
  for (const Line& l : layout.lines) {
    if (!l.field) {
      out += l.label;
      out += '\n';
      continue;
    }
    std::string err;
    auto r = find_field(desc, l.field, &err);
    if (!r) throw std::logic_error("saquery layout of " + std::string(desc.name) + ": " + err);
    uint64_t v = r->width() <= 64 ? get_uint(*r, buf) : 0;
    std::string s = l.fmt(v, *r, buf);
    out += l.label ? sa_dotted(l.label, layout.width, s) : s;
  }
  return out;
}

std::string sa_print(const StructDesc& desc, std::span<const uint8_t> data, const SaPrintOptions& opt) {
  const SaLayout* l = sa_layout(desc, opt);
  if (!l) throw std::invalid_argument(std::string("no saquery layout for ") + desc.name);
  std::vector<uint8_t> buf(desc.size, 0);
  std::memcpy(buf.data(), data.data(), std::min(data.size(), buf.size()));
  return sa_dump(desc, buf.data(), *l);
}

}  // namespace iba::ref
