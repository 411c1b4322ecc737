// Layouts and value formatters reproducing the reference smpquery output
// (learned by running smpquery and libibmad's dumpers on a simulated fabric
// and on crafted payloads; see test/data/README).
#include "iba/refprint_smp.h"

#include <bit>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace iba::ref {

namespace {

std::string printf_str(const char* fmt, unsigned long long v) {
  char b[64];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

std::string undefined(uint64_t v) { return "undefined (" + std::to_string(v) + ")"; }
std::string unknown_q(uint64_t v) { return "?(" + std::to_string(v) + ")"; }

// "A or B or C" over the known bits, then "undefined (v)" if any other bit
// (or no bit) is set.
std::string bit_list(uint64_t v, const char* const* names, unsigned nbits) {
  std::string out;
  for (unsigned b = 0; b < nbits; ++b)
    if (v & (uint64_t(1) << b)) out += (out.empty() ? "" : " or ") + std::string(names[b]);
  if (v == 0 || (v >> nbits)) out += (out.empty() ? "" : " or ") + undefined(v);
  return out;
}

constexpr const char* WIDTHS[] = {"1X", "4X", "8X", "12X", "2X"};
constexpr const char* SPEEDS[] = {"2.5 Gbps", "5.0 Gbps", "10.0 Gbps"};
// The lane rates of the extended speeds, by bit of iba::ext_speeds()'s set
// (bit 4 is unused; bit 5 is LinkSpeedExt*2's XDR).
constexpr const char* EXT_SPEEDS[] = {"14.0625 Gbps", "25.78125 Gbps", "53.125 Gbps", "106.25 Gbps", nullptr,
                                      "212.5 Gbps"};
constexpr const char* XDR_LANE = EXT_SPEEDS[EXT_SPEED2_SHIFT];

// The reference's capability mask bit names (its spelling).
constexpr const char* CAP_NAMES[32] = {
    nullptr,
    "IsSM",
    "IsNoticeSupported",
    "IsTrapSupported",
    "IsOptionalIPDSupported",
    "IsAutomaticMigrationSupported",
    "IsSLMappingSupported",
    "IsMKeyNVRAM",
    "IsPKeyNVRAM",
    "IsLedInfoSupported",
    "IsSMdisabled",
    "IsSystemImageGUIDsupported",
    "IsPkeySwitchExternalPortTrapSupported",
    nullptr,
    "IsExtendedSpeedsSupported",
    "IsCapabilityMask2Supported",
    "IsCommunicatonManagementSupported",
    "IsSNMPTunnelingSupported",
    "IsReinitSupported",
    "IsDeviceManagementSupported",
    "IsVendorClassSupported",
    "IsDRNoticeSupported",
    "IsCapabilityMaskNoticeSupported",
    "IsBootManagementSupported",
    "IsLinkRoundTripLatencySupported",
    "IsClientRegistrationSupported",
    "IsOtherLocalChangesNoticeSupported",
    "IsLinkSpeedWidthPairsTableSupported",
    "IsVendorSpecificMadsTableSupported",
    "IsMcastPkeyTrapSuppressionSupported",
    "IsMulticastFDBTopSupported",
    "IsHierarchyInfoSupported",
};
constexpr const char* CAP2_NAMES[16] = {
    "IsSetNodeDescriptionSupported",
    "IsPortInfoExtendedSupported",
    "IsVirtualizationSupported",
    "IsSwitchPortStateTableSupported",
    "IsLinkWidth2xSupported",
    "IsLinkSpeedHDRSupported",
    "IsMKeyProtectBitsExtSupported",
    "IsEnhancedTrap128Supported",
    "IsPartitionTopSupported",
    "IsEnhancedQoSArbiterSupported",
    "IsLinkSpeedNDRSupported",
    nullptr, nullptr, nullptr, nullptr, nullptr,
};

std::string mask_lines(uint64_t v, const char* const* names, unsigned nbits) {
  std::string out = printf_str("0x%llx", v);
  for (unsigned b = 0; b < nbits; ++b)
    if ((v >> b) & 1 && names[b]) out += std::string("\n\t\t\t\t") + names[b];
  return out;
}

// Hex zero padded to whole bytes of the field (libibmad's hex dumper).
std::string hexb(uint64_t v, const FieldRef& r, const uint8_t*) { return hex_padded(v, int((r.width() + 7) / 8 * 2)); }

#define WRAP(fn) \
  [](uint64_t v, const FieldRef&, const uint8_t*) { return fn(v); }

constexpr Line NODE_INFO[] = {
    {"BaseVers", "baseVersion", dec},
    {"ClassVers", "classVersion", dec},
    {"NodeType", "nodeType", WRAP(fmt_node_type)},
    {"NumPorts", "numPorts", dec},
    {"SystemGuid", "systemImageGUID", guid},
    {"Guid", "nodeGUID", guid},
    {"PortGuid", "portGUID", guid},
    {"PartCap", "partitionCap", dec},
    {"DevId", "deviceID", hexb},
    {"Revision", "revision", hexb},
    {"LocalPort", "localPortNum", dec},
    {"VendorId", "vendorID", hexb},
};

std::string mkey_hidden(uint64_t, const FieldRef&, const uint8_t*) { return "<not displayed>"; }

#define PORT_INFO_LINES(MKEYFMT)                                                  \
  {"Mkey", "MKey", MKEYFMT},                                                      \
  {"GidPrefix", "GIDPrefix", guid},                                               \
  {"Lid", "LID", dec},                                                            \
  {"SMLid", "masterSMLID", dec},                                                  \
  {"CapMask", "capabilityMask", WRAP(fmt_cap_mask)},                              \
  {"DiagCode", "diagCode", hexb},                                                 \
  {"MkeyLeasePeriod", "MKeyLeasePeriod", dec},                                    \
  {"LocalPort", "localPortNum", dec},                                             \
  {"LinkWidthEnabled", "linkWidthEnabled", WRAP(fmt_link_width_enabled)},         \
  {"LinkWidthSupported", "linkWidthSupported", WRAP(fmt_link_width_supported)},   \
  {"LinkWidthActive", "linkWidthActive", WRAP(fmt_link_width)},                   \
  {"LinkSpeedSupported", "linkSpeedSupported", WRAP(fmt_link_speed_supported)},   \
  {"LinkState", "portState", WRAP(fmt_port_state)},                               \
  {"PhysLinkState", "portPhysicalState", WRAP(fmt_phys_state)},                   \
  {"LinkDownDefState", "linkDownDefaultState", WRAP(fmt_link_down_def_state)},    \
  {"ProtectBits", "MKeyProtectBits", dec},                                        \
  {"LMC", "LMC", dec},                                                            \
  {"LinkSpeedActive", "linkSpeedActive", WRAP(fmt_link_speed)},                   \
  {"LinkSpeedEnabled", "linkSpeedEnabled", WRAP(fmt_link_speed_enabled)},         \
  {"NeighborMTU", "neighborMTU", WRAP(fmt_mtu)},                                  \
  {"SMSL", "masterSMSL", dec},                                                    \
  {"VLCap", "VLCap", WRAP(fmt_vl_cap)},                                           \
  {"InitType", "initType", hexb},                                                 \
  {"VLHighLimit", "VLHighLimit", dec},                                            \
  {"VLArbHighCap", "VLArbitrationHighCap", dec},                                  \
  {"VLArbLowCap", "VLArbitrationLowCap", dec},                                    \
  {"InitReply", "initTypeReply", hexb},                                           \
  {"MtuCap", "MTUCap", WRAP(fmt_mtu)},                                            \
  {"VLStallCount", "VLStallCount", dec},                                          \
  {"HoqLife", "HOQLife", dec},                                                    \
  {"OperVLs", "operationalVLs", WRAP(fmt_oper_vls)},                              \
  {"PartEnforceInb", "partitionEnforcementInbound", dec},                         \
  {"PartEnforceOutb", "partitionEnforcementOutbound", dec},                       \
  {"FilterRawInb", "filterRawInbound", dec},                                      \
  {"FilterRawOutb", "filterRawOutbound", dec},                                    \
  {"MkeyViolations", "MKeyViolations", dec},                                      \
  {"PkeyViolations", "PKeyViolations", dec},                                      \
  {"QkeyViolations", "QKeyViolations", dec},                                      \
  {"GuidCap", "GUIDCap", dec},                                                    \
  {"ClientReregister", "clientReregister", dec},                                  \
  {"McastPkeyTrapSuppressionEnabled", "multicastPKeyTrapSuppressionEnabled", dec}, \
  {"SubnetTimeout", "subnetTimeOut", dec},                                        \
  {"RespTimeVal", "respTimeValue", dec},                                          \
  {"LocalPhysErr", "localPhyErrors", dec},                                        \
  {"OverrunErr", "overrunErrors", dec},                                           \
  {"MaxCreditHint", "maxCreditHint", dec},                                        \
  {"RoundTrip", "linkRoundTripLatency", dec},                                     \
  {"CapabilityMask2", "capabilityMask2", WRAP(fmt_cap_mask2)},                    \
  {"LinkSpeedExtActive", "linkSpeedExtActive", WRAP(fmt_link_speed_ext)},         \
  {"LinkSpeedExtSupported", "linkSpeedExtSupported", WRAP(fmt_link_speed_ext_supported)}, \
  {"LinkSpeedExtEnabled", "linkSpeedExtEnabled", WRAP(fmt_link_speed_ext_enabled)}, \
  {"LinkSpeedExtActive2", "linkSpeedExtActive2", WRAP(fmt_link_speed_ext2)},      \
  {"LinkSpeedExtSupported2", "linkSpeedExtSupported2", WRAP(fmt_link_speed_ext2_set)}, \
  {"LinkSpeedExtEnabled2", "linkSpeedExtEnabled2", WRAP(fmt_link_speed_ext2_set)},

// The whole layout is upstream's current one (rdma-core v50 added the last
// PORT_INFO_EXT2_ROWS rows, XDR's); 44's ends before them.
constexpr Line PORT_INFO[] = {PORT_INFO_LINES(guid)};
constexpr Line PORT_INFO_NO_KEYS[] = {PORT_INFO_LINES(mkey_hidden)};
constexpr size_t PORT_INFO_EXT2_ROWS = 3;

constexpr Line SWITCH_INFO[] = {
    {"LinearFdbCap", "linearFDBCap", dec},
    {"RandomFdbCap", "randomFDBCap", dec},
    {"McastFdbCap", "multicastFDBCap", dec},
    {"LinearFdbTop", "linearFDBTop", dec},
    {"DefPort", "defaultPort", dec},
    {"DefMcastPrimPort", "defaultMulticastPrimaryPort", dec},
    {"DefMcastNotPrimPort", "defaultMulticastNotPrimaryPort", dec},
    {"LifeTime", "lifeTimeValue", dec},
    {"StateChange", "portStateChange", dec},
    {"OptSLtoVLMapping", "optimizedSLtoVLMappingProgramming", dec},
    {"LidsPerPort", "LIDsPerPort", dec},
    {"PartEnforceCap", "partitionEnforcementCap", dec},
    {"InboundPartEnf", "inboundEnforcementCap", dec},
    {"OutboundPartEnf", "outboundEnforcementCap", dec},
    {"FilterRawInbound", "filterRawInboundCap", dec},
    {"FilterRawOutbound", "filterRawOutboundCap", dec},
    {"EnhancedPort0", "enhancedPort0", dec},
    {"MulticastFDBTop", "multicastFDBTop", hexb},
};

// The reference reads some PortInfoExtended fields at offsets of its own
// (HDR/NDR FEC fields); these formatters read the bits where it does, so the
// output matches it byte for byte.
template <uint32_t OFF>
std::string ref_hex16(uint64_t, const FieldRef&, const uint8_t* buf) {
  return printf_str("0x%04llx", get_bits(buf, OFF, 16));
}

constexpr Line PORT_INFO_EXT[] = {
    {"CapMask", "capabilityMask", hexb},
    {"FECModeActive", "FECModeActive", dec},
    {"FDRFECModeSupported", "FDRFECModeSupported", hexb},
    {"FDRFECModeEnabled", "FDRFECModeEnabled", hexb},
    {"EDRFECModeSupported", "EDRFECModeSupported", hexb},
    {"EDRFECModeEnabled", "EDRFECModeEnabled", hexb},
    {"HDRFECModeSupported", "HDRFECModeSupported", ref_hex16<96>},
    {"HDRFECModeEnabled", "HDRFECModeEnabled", ref_hex16<144>},
    {"NDRFECModeSupported", "NDRFECModeSupported", ref_hex16<128>},
    {"NDRFECModeEnabled", "NDRFECModeEnabled", ref_hex16<176>},
};

constexpr Line MLNX_EXT_PORT_INFO[] = {
    {"StateChangeEnable", "stateChangeEnable", hexb},
    {"LinkSpeedSupported", "linkSpeedSupported", hexb},
    {"LinkSpeedEnabled", "linkSpeedEnabled", hexb},
    {"LinkSpeedActive", "linkSpeedActive", hexb},
};

}  // namespace

std::string fmt_link_width(uint64_t v) {
  switch (v) {
    case 1: return "1X";
    case 2: return "4X";
    case 4: return "8X";
    case 8: return "12X";
    case 16: return "2X";
    default: return undefined(v);
  }
}

std::string fmt_link_width_enabled(uint64_t v) { return bit_list(v, WIDTHS, 5); }

std::string fmt_link_width_supported(uint64_t v) {
  std::string s = bit_list(v, WIDTHS, 5);
  // Sets other than the IBA's classic ones (1X, 1X|4X, 1X|4X|8X, ... with 2X)
  // carry the reference's "(IBA extension)" note.
  if (v < 32 && (!(v & 1) || (!(v & 2) && (v & 0xc)))) s += " (IBA extension)";
  return s;
}

std::string fmt_link_speed(uint64_t v) {
  if (v == 0) return "Extended speed";
  if (std::has_single_bit(v) && v < (1u << std::size(SPEEDS))) return SPEEDS[std::countr_zero(v)];
  return undefined(v);
}

static std::string speed_set(uint64_t v) {
  std::string s = bit_list(v, SPEEDS, 3);
  if (v < 8 && !(v & 1)) s += " (IBA extension)";
  return s;
}
std::string fmt_link_speed_supported(uint64_t v) { return speed_set(v); }
std::string fmt_link_speed_enabled(uint64_t v) { return speed_set(v); }

std::string fmt_link_speed_ext(uint64_t v) {
  if (v == 0) return "No Extended Speed";
  for (unsigned b = 0; b < std::size(EXT_SPEEDS); ++b)
    if (v == (1u << b) && EXT_SPEEDS[b]) return EXT_SPEEDS[b];
  return undefined(v);
}

// LinkSpeedExt*2 (upstream ibportstate's lines, rdma-core v50): one speed,
// XDR.  A set with any other bit prints as upstream's does, " undefined (v)"
// alone (its formatter writes that over the speed).
std::string fmt_link_speed_ext2(uint64_t v) {
  if (v == 0) return "No Extended Speed 2";
  return v == 1 ? XDR_LANE : undefined(v);
}
std::string fmt_link_speed_ext2_set(uint64_t v) {
  if (v == 0) return "0";
  return v == 1 ? std::string(XDR_LANE) : " " + undefined(v);
}

std::string fmt_link_speed_ext_supported(uint64_t v) { return v == 0 ? "0" : bit_list(v, EXT_SPEEDS, 4); }

std::string fmt_link_speed_ext_enabled(uint64_t v) {
  if (v == 30) return "Extended link speeds disabled";
  return v == 0 ? "0" : bit_list(v, EXT_SPEEDS, 4);
}

namespace {
constexpr const char* PORT_STATE_WORDS[] = {"NoChange", "Down", "Initialize", "Armed", "Active"};
constexpr const char* PHYS_STATE_WORDS[] = {"NoChange", "Sleep", "Polling", "Disabled",
                                            "PortConfigurationTraining", "LinkUp", "LinkErrorRecovery", "PhyTest"};
}  // namespace

const char* port_state_word(uint64_t v) { return v < 5 ? PORT_STATE_WORDS[v] : "???"; }
const char* phys_state_word(uint64_t v) { return v < 8 ? PHYS_STATE_WORDS[v] : "???"; }

const char* ibstat_port_state(uint64_t v) {
  constexpr const char* N[] = {"???", "Down", "Initializing", "Armed", "Active"};
  return v < 5 ? N[v] : "???";
}

const char* ibstat_phys_state(uint64_t v) {
  return v == 0 ? "No state change" : v < 8 ? PHYS_STATE_WORDS[v] : "???";
}

std::string fmt_port_state(uint64_t v) { return v < 5 ? PORT_STATE_WORDS[v] : unknown_q(v); }

std::string fmt_phys_state(uint64_t v) { return v < 8 ? PHYS_STATE_WORDS[v] : unknown_q(v); }

std::string fmt_link_down_def_state(uint64_t v) {
  constexpr const char* N[] = {"NoChange", "Sleep", "Polling"};
  return v < 3 ? N[v] : unknown_q(v);
}

std::string fmt_mtu(uint64_t v) { return v >= 1 && v <= 5 ? std::to_string(128u << v) : unknown_q(v); }

static std::string vls(uint64_t v) {
  constexpr const char* N[] = {"", "VL0", "VL0-1", "VL0-3", "VL0-7", "VL0-14"};
  return v >= 1 && v <= 5 ? N[v] : unknown_q(v);
}
std::string fmt_vl_cap(uint64_t v) { return vls(v); }
std::string fmt_oper_vls(uint64_t v) { return v == 0 ? "No change" : vls(v); }

std::string fmt_node_type(uint64_t v) {
  switch (v) {
    case 1: return "Channel Adapter";
    case 2: return "Switch";
    case 3: return "Router";
    default: return "?(" + std::to_string(v) + ")?";
  }
}

std::string fmt_cap_mask(uint64_t v) { return mask_lines(v, CAP_NAMES, 32); }
std::string fmt_cap_mask2(uint64_t v) { return mask_lines(v, CAP2_NAMES, 16); }

std::span<const Line> smp_layout(const StructDesc& d) {
  if (&d == &SMPNodeInfo::DESC) return NODE_INFO;
  if (&d == &SMPPortInfo::DESC) return PORT_INFO;
  if (&d == &SMPSwitchInfo::DESC) return SWITCH_INFO;
  if (&d == &SMPPortInfoExtended::DESC) return PORT_INFO_EXT;
  if (&d == &SMPMlnxExtPortInfo::DESC) return MLNX_EXT_PORT_INFO;
  return {};
}

bool port_info_ext2_lines(const SMPPortInfo& capability, Compat compat) {
  return compat == Compat::Current || announces_ext_speeds2(capability);
}

std::string smp_print(const StructDesc& d, std::span<const uint8_t> data, const SmpPrintOptions& opt) {
  std::vector<uint8_t> buf(d.size, 0);
  if (!data.empty()) std::memcpy(buf.data(), data.data(), data.size() < buf.size() ? data.size() : buf.size());
  if (&d == &SMPNodeDescription::DESC) {
    std::string s = get_str(buf.data(), 0, 512);
    return "Node Description:" + std::string(30, '.') + s + "\n";
  }
  if (&d == &SMPPortInfo::DESC) {
    std::span<const Line> layout = opt.show_keys ? PORT_INFO : PORT_INFO_NO_KEYS;
    SMPPortInfo pi;
    std::memcpy(pi.buf.data(), buf.data(), pi.buf.size());
    if (!port_info_ext2_lines(opt.capability ? *opt.capability : pi, opt.compat)) layout = layout.first(layout.size() - PORT_INFO_EXT2_ROWS);
    return dump(d, buf.data(), layout);
  }
  auto layout = smp_layout(d);
  if (layout.empty()) throw std::invalid_argument(std::string("no reference layout for ") + d.name);
  return dump(d, buf.data(), layout);
}

std::string pkeys_print(std::span<const uint16_t> pkeys, size_t capacity) {
  std::string out;
  char b[32];
  for (size_t i = 0; i < capacity; i += 8) {
    std::snprintf(b, sizeof b, "%4zu:", i);
    out += b;
    for (size_t k = i; k < i + 8; ++k) {
      std::snprintf(b, sizeof b, " 0x%04x", k < pkeys.size() ? unsigned(pkeys[k]) : 0u);
      out += b;
    }
    out += "\n";
  }
  return out + std::to_string(capacity) + " pkeys capacity for this port\n";
}

std::string guids_print(std::span<const uint64_t> guids, size_t capacity) {
  std::string out;
  char b[48];
  for (size_t i = 0; i < capacity; i += 2) {
    std::snprintf(b, sizeof b, "%4zu:", i);
    out += b;
    for (size_t k = i; k < i + 2; ++k) {
      std::snprintf(b, sizeof b, " 0x%016llx", static_cast<unsigned long long>(k < guids.size() ? guids[k] : 0));
      out += b;
    }
    out += "\n";
  }
  return out + std::to_string(capacity) + " guids capacity for this port\n";
}

std::string sminfo_print(uint32_t sm_lid, const SMPSMInfo& si) {
  constexpr const char* STATES[] = {"SMINFO_NOTACT", "SMINFO_DISCOVER", "SMINFO_STANDBY", "SMINFO_MASTER"};
  char b[160];
  std::snprintf(b, sizeof b, "sminfo: sm lid %u sm guid 0x%llx, activity count %u priority %u state %u %s\n", sm_lid,
                static_cast<unsigned long long>(si.GUID()), unsigned(si.actCount()), unsigned(si.priority()),
                unsigned(si.SMState()), si.SMState() < 4 ? STATES[si.SMState()] : "SMINFO_STATE_UNKNOWN");
  return b;
}

std::string sl2vl_header() { return "#                 SL: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14|15|\n"; }

std::string sl2vl_row(const SMPSLToVLMappingTable& t) {
  std::string out = "|";
  char b[8];
  for (size_t i = 0; i < 16; ++i) {
    std::snprintf(b, sizeof b, "%2u|", unsigned(t.SLtoVL(i)));
    out += b;
  }
  return out + "\n";
}

std::string vlarb_print(const SMPVLArbitrationTable& t, size_t n) {
  if (n > 32) n = 32;
  std::string vl = "VL    : |", w = "WEIGHT: |";
  char b[16];
  for (size_t i = 0; i < n; ++i) {
    auto e = t.VLWeightBlock(i);
    std::snprintf(b, sizeof b, "0x%-2X|", unsigned(e.VL()));
    vl += b;
    std::snprintf(b, sizeof b, "0x%-2X|", unsigned(e.weight()));
    w += b;
  }
  return vl + "\n" + w + "\n";
}

}  // namespace iba::ref
