#include "iba/enums.h"

#include <cctype>
#include <cstdio>

#include "iba/introspect.h"
#include "iba/mad.h"

namespace iba::enums {

namespace {

bool ieq(std::string_view a, std::string_view b) { return iequals(a, b); }

constexpr Named MGMT_CLASSES[] = {
    {0x01, "SubnMgmt"},   {0x81, "SubnMgmtDirected"}, {0x03, "SubnAdm"}, {0x04, "PerfMgt"},
    {0x05, "BootMgt"},    {0x06, "DevMgt"},           {0x07, "ComMgt"},  {0x08, "SNMP"},
    {0x09, "Vendor09"},   {0x0a, "Vendor0A"},         {0x0b, "Vendor0B"}, {0x0c, "Vendor0C"},
    {0x0d, "Vendor0D"},   {0x0e, "Vendor0E"},         {0x0f, "Vendor0F"}, {0x10, "Application"},
    {0x21, "CongestionMgt"}, {0x30, "VendorOUI30"},   {0x31, "VendorOUI31"}, {0x32, "VendorOUI32"},
};

constexpr Named METHODS[] = {
    {0x01, "MAD_METHOD_GET"},          {0x02, "MAD_METHOD_SET"},
    {0x03, "MAD_METHOD_SEND"},         {0x05, "MAD_METHOD_TRAP"},
    {0x06, "MAD_METHOD_REPORT"},       {0x07, "MAD_METHOD_TRAP_REPRESS"},
    {0x12, "MAD_METHOD_GET_TABLE"},    {0x13, "MAD_METHOD_GET_TRACE_TABLE"},
    {0x14, "MAD_METHOD_GET_MULTI"},    {0x15, "MAD_METHOD_DELETE"},
    {0x81, "MAD_METHOD_GET_RESP"},     {0x86, "MAD_METHOD_REPORT_RESP"},
    {0x92, "MAD_METHOD_GET_TABLE_RESP"}, {0x94, "MAD_METHOD_GET_MULTI_RESP"},
    {0x95, "MAD_METHOD_DELETE_RESP"},
};

constexpr Named NODE_TYPES[] = {{uint32_t(NodeTypeCode::CA), "CA"},
                                 {uint32_t(NodeTypeCode::SWITCH), "Switch"},
                                 {uint32_t(NodeTypeCode::ROUTER), "Router"}};

constexpr Named PORT_STATES[] = {{0, "NoStateChange"}, {1, "Down"},   {2, "Init"},
                                 {3, "Armed"},         {4, "Active"}, {5, "ActiveDefer"}};

constexpr Named PHYS_STATES[] = {{0, "NoStateChange"}, {1, "Sleep"},    {2, "Polling"},
                                 {3, "Disabled"},      {4, "PortConfigurationTraining"},
                                 {5, "LinkUp"},        {6, "LinkErrorRecovery"}, {7, "PhyTest"}};

constexpr Named LINK_WIDTHS[] = {{1, "1x"}, {2, "4x"}, {4, "8x"}, {8, "12x"}, {16, "2x"}};
constexpr Named LINK_SPEEDS[] = {{1, "SDR"}, {2, "DDR"}, {4, "QDR"}};
constexpr Named LINK_SPEEDS_EXT[] = {{1, "FDR"}, {2, "EDR"}, {4, "HDR"}, {8, "NDR"}, {32, "XDR"}};
constexpr Named LINK_SPEEDS_EXT2[] = {{1, "XDR"}};
constexpr Named MLNX_LINK_SPEEDS[] = {{1, "FDR10"}};

constexpr Named MTUS[] = {{1, "256"}, {2, "512"}, {3, "1024"}, {4, "2048"}, {5, "4096"}};

struct Rate {
  uint32_t code, x10;
  const char* name;
};
constexpr Rate RATES_X[] = {
    {2, 25, "2.5 Gb/s"},    {3, 100, "10 Gb/s"},    {4, 300, "30 Gb/s"},    {5, 50, "5 Gb/s"},
    {6, 200, "20 Gb/s"},    {7, 400, "40 Gb/s"},    {8, 600, "60 Gb/s"},    {9, 800, "80 Gb/s"},
    {10, 1200, "120 Gb/s"}, {11, 140, "14 Gb/s"},   {12, 560, "56 Gb/s"},   {13, 1120, "112 Gb/s"},
    {14, 1680, "168 Gb/s"}, {15, 250, "25 Gb/s"},   {16, 1000, "100 Gb/s"}, {17, 2000, "200 Gb/s"},
    {18, 3000, "300 Gb/s"}, {19, 280, "28 Gb/s"},   {20, 500, "50 Gb/s"},   {21, 4000, "400 Gb/s"},
    {22, 6000, "600 Gb/s"}, {23, 8000, "800 Gb/s"}, {24, 12000, "1200 Gb/s"},
};
constexpr Named RATES[] = {
    {2, "2.5 Gb/s"},   {3, "10 Gb/s"},   {4, "30 Gb/s"},   {5, "5 Gb/s"},    {6, "20 Gb/s"},
    {7, "40 Gb/s"},    {8, "60 Gb/s"},   {9, "80 Gb/s"},   {10, "120 Gb/s"}, {11, "14 Gb/s"},
    {12, "56 Gb/s"},   {13, "112 Gb/s"}, {14, "168 Gb/s"}, {15, "25 Gb/s"},  {16, "100 Gb/s"},
    {17, "200 Gb/s"},  {18, "300 Gb/s"}, {19, "28 Gb/s"},  {20, "50 Gb/s"},  {21, "400 Gb/s"},
    {22, "600 Gb/s"},  {23, "800 Gb/s"}, {24, "1200 Gb/s"},
};

constexpr Named CAP_MASK[] = {
    {1u << 1, "IsSM"},
    {1u << 2, "IsNoticeSupported"},
    {1u << 3, "IsTrapSupported"},
    {1u << 4, "IsOptionalIPDSupported"},
    {1u << 5, "IsAutomaticMigrationSupported"},
    {1u << 6, "IsSLMappingSupported"},
    {1u << 7, "IsMKeyNVRAM"},
    {1u << 8, "IsPKeyNVRAM"},
    {1u << 9, "IsLEDInfoSupported"},
    {CAP_IS_SM_DISABLED, "IsSMDisabled"},
    {1u << 11, "IsSystemImageGUIDSupported"},
    {1u << 12, "IsPKeySwitchExternalPortTrapSupported"},
    {CAP_IS_EXTENDED_SPEEDS, "IsExtendedSpeedsSupported"},
    {CAP_IS_CAPABILITY_MASK2, "IsCapabilityMask2Supported"},
    {1u << 16, "IsCommunicationManagementSupported"},
    {1u << 17, "IsSNMPTunnelingSupported"},
    {1u << 18, "IsReinitSupported"},
    {1u << 19, "IsDeviceManagementSupported"},
    {1u << 20, "IsVendorClassSupported"},
    {1u << 21, "IsDRNoticeSupported"},
    {1u << 22, "IsCapabilityMaskNoticeSupported"},
    {1u << 23, "IsBootManagementSupported"},
    {1u << 24, "IsLinkRoundTripLatencySupported"},
    {1u << 25, "IsClientReregistrationSupported"},
    {1u << 26, "IsOtherLocalChangesNoticeSupported"},
    {1u << 27, "IsLinkSpeedWidthPairsTableSupported"},
    {1u << 28, "IsVendorSpecificMadsTableSupported"},
    {1u << 29, "IsMcastPkeyTrapSuppressionSupported"},
    {1u << 30, "IsMulticastFDBTopSupported"},
    {1u << 31, "IsHierarchyInfoSupported"},
};

constexpr Named CAP_MASK2[] = {
    {1u << 0, "IsSetNodeDescriptionSupported"},
    {1u << 1, "IsPortInfoExtendedSupported"},
    {1u << 2, "IsVirtualizationSupported"},
    {1u << 3, "IsSwitchPortStateTableSupported"},
    {1u << 4, "IsLinkWidth2xSupported"},
    {1u << 5, "IsLinkSpeedHDRSupported"},
    {1u << 6, "IsMKeyProtectBitsExtSupported"},
    {1u << 7, "IsEnhancedTrap128Supported"},
    {1u << 8, "IsPartitionTopSupported"},
    {1u << 9, "IsEnhancedQoSArbiterSupported"},
    {1u << 10, "IsLinkSpeedNDRSupported"},
    {CAP2_IS_EXT_SPEEDS2, "IsExtSpeeds2Supported"},
    {CAP2_IS_LINK_SPEED_XDR, "IsLinkSpeedXDRSupported"},
};

constexpr Named SM_STATES[] = {{0, "NotActive"}, {1, "Discovering"}, {2, "Standby"}, {3, "Master"}};

constexpr Named TRAPS[] = {
    {64, "GIDInService"},
    {65, "GIDOutOfService"},
    {66, "MulticastGroupCreated"},
    {67, "MulticastGroupDeleted"},
    {68, "UnpathRecordCreated"},
    {69, "RepathRecordCreated"},
    {128, "LinkStateChange"},
    {129, "LocalLinkIntegrityThreshold"},
    {130, "ExcessiveBufferOverrunThreshold"},
    {131, "FlowControlUpdateWatchdog"},
    {144, "CapabilityMaskChange"},
    {145, "SystemImageGUIDChange"},
    {256, "BadMKey"},
    {257, "BadPKey"},
    {258, "BadQKey"},
    {259, "BadPKeySwitchExternalPort"},
};

constexpr Named SA_STATUS[] = {
    {1, "ERR_NO_RESOURCES"},      {2, "ERR_REQ_INVALID"},
    {3, "ERR_NO_RECORDS"},        {4, "ERR_TOO_MANY_RECORDS"},
    {5, "ERR_REQ_INVALID_GID"},   {6, "ERR_REQ_INSUFFICIENT_COMPONENTS"},
    {7, "ERR_REQ_DENIED"},
};

// DevMgt class specific status bits (IBA 16.3.1.1).
constexpr Named DM_STATUS[] = {
    {0x0100, "IOC_NO_RESPONSE"},
    {0x0200, "NO_SERVICE_ENTRIES"},
    {0x8000, "IOC_GENERAL_FAILURE"},
};

constexpr Named MAD_STATUS_CODES[] = {
    {1, "ERR_BAD_VERSION"},
    {2, "ERR_METHOD_UNSUPPORTED"},
    {3, "ERR_METHOD_ATTR_UNSUPPORTED"},
    {7, "ERR_INVALID_ATTR_OR_MODIFIER"},
};

// Per class family: the RPC name prefix and which methods it has.
struct Family {
  const char* prefix;
  bool table;  // has GetTable & co (SA)
};

const Family* family_of(uint8_t c) {
  static constexpr Family SUBN{"Subn", false}, SUBN_ADM{"SubnAdm", true}, PERF{"Performance", false},
      BM{"BM", false}, DEV{"DevMgt", false}, COM{"ComMgt", false}, SNMP{"SNMP", false}, VEND{"Vend", true},
      CC{"CC", false};
  switch (c) {
    case mgmt::SUBN_LID_ROUTED:
    case mgmt::SUBN_DIRECTED_ROUTE:
      return &SUBN;
    case mgmt::SUBN_ADM:
      return &SUBN_ADM;
    case mgmt::PERF:
      return &PERF;
    case mgmt::BM:
      return &BM;
    case mgmt::DEV_MGT:
      return &DEV;
    case mgmt::COM_MGT:
      return &COM;
    case mgmt::SNMP:
      return &SNMP;
    case mgmt::CC:
      return &CC;
    default:
      if ((c >= mgmt::VENDOR_MIN && c <= mgmt::VENDOR_MAX) || (c >= mgmt::VENDOR_OUI_MIN && c <= mgmt::VENDOR_OUI_MAX))
        return &VEND;
      return nullptr;
  }
}

}  // namespace

const char* name_of(std::span<const Named> table, uint32_t v) {
  for (const auto& n : table)
    if (n.value == v) return n.name;
  return nullptr;
}

std::optional<uint32_t> value_of(std::span<const Named> table, std::string_view name) {
  for (const auto& n : table)
    if (ieq(n.name, name)) return n.value;
  return std::nullopt;
}

const Enumeration* enumeration_by_id(uint8_t id) {
  return id >= 1 && id <= std::size(FIELD_ENUMERATIONS) ? FIELD_ENUMERATIONS[id - 1] : nullptr;
}

const Validity* validity_by_id(uint8_t id) {
  return id >= 1 && id <= std::size(FIELD_VALIDITIES) ? FIELD_VALIDITIES[id - 1] : nullptr;
}

std::string Enumeration::name(uint64_t raw) const {
  if (mask) return raw ? mask_names(table(), raw) : std::string();
  const char* n = name_of(table(), uint32_t(raw));
  return n ? std::string(n) : std::to_string(raw);
}

std::string mask_names(std::span<const Named> table, uint64_t mask, std::string_view sep) {
  std::string out;
  each_mask_name(table, mask, [&](std::string_view n) {
    if (!out.empty()) out += sep;
    out += n;
  });
  return out;
}

std::span<const Named> mgmt_classes() { return MGMT_CLASSES; }
std::span<const Named> methods() { return METHODS; }
std::span<const Named> node_types() { return NODE_TYPES; }
std::span<const Named> port_states() { return PORT_STATES; }
std::span<const Named> phys_states() { return PHYS_STATES; }
std::span<const Named> link_widths() { return LINK_WIDTHS; }
std::span<const Named> link_speeds() { return LINK_SPEEDS; }
std::span<const Named> link_speeds_ext() { return LINK_SPEEDS_EXT; }
std::span<const Named> link_speeds_ext2() { return LINK_SPEEDS_EXT2; }
std::span<const Named> mlnx_link_speeds() { return MLNX_LINK_SPEEDS; }
std::span<const Named> mtus() { return MTUS; }
std::span<const Named> rates() { return RATES; }
std::span<const Named> capability_mask() { return CAP_MASK; }
std::span<const Named> capability_mask2() { return CAP_MASK2; }
std::span<const Named> sm_states() { return SM_STATES; }
std::span<const Named> traps() { return TRAPS; }
std::span<const Named> sa_status() { return SA_STATUS; }
std::span<const Named> dm_status() { return DM_STATUS; }
std::span<const Named> mad_status_codes() { return MAD_STATUS_CODES; }

uint32_t mtu_bytes(uint32_t code) { return code >= 1 && code <= 5 ? 128u << code : 0; }

uint32_t rate_x10(uint32_t code) {
  for (const auto& r : RATES_X)
    if (r.code == code) return r.x10;
  return 0;
}

const char* rpc_name(uint8_t mgmt_class, uint8_t m) {
  const Family* f = family_of(mgmt_class);
  if (!f) return nullptr;
  static thread_local std::string buf;
  const char* suffix = nullptr;
  switch (m) {
    case method::GET: suffix = "Get"; break;
    case method::SET: suffix = "Set"; break;
    case method::SEND: suffix = "Send"; break;
    case method::TRAP: suffix = "Trap"; break;
    case method::REPORT: suffix = "Report"; break;
    case method::TRAP_REPRESS: suffix = "TrapRepress"; break;
    case method::GET_RESP: suffix = "GetResp"; break;
    case method::REPORT_RESP: suffix = "ReportResp"; break;
    case method::GET_TABLE: suffix = f->table ? "GetTable" : nullptr; break;
    case method::GET_TRACE_TABLE: suffix = f->table ? "GetTraceTable" : nullptr; break;
    case method::GET_MULTI: suffix = f->table ? "GetMulti" : nullptr; break;
    case method::DELETE: suffix = f->table ? "Delete" : nullptr; break;
    case method::GET_TABLE_RESP: suffix = f->table ? "GetTableResp" : nullptr; break;
    case method::GET_MULTI_RESP: suffix = f->table ? "GetMultiResp" : nullptr; break;
    case method::DELETE_RESP: suffix = f->table ? "DeleteResp" : nullptr; break;
    default: break;
  }
  if (!suffix) return nullptr;
  buf = std::string(f->prefix) + suffix;
  return buf.c_str();
}

}  // namespace iba::enums

namespace iba {

std::string method_name(uint8_t mgmt_class, uint8_t m) {
  const char* n = enums::rpc_name(mgmt_class, m);
  if (!n) n = enums::name_of(enums::methods(), m);
  return std::string(n ? n : "Method") + "(" + std::to_string(m) + ")";
}

std::string status_text(uint8_t mgmt_class, uint16_t status) {
  // Directed route SMPs use the top bit of the status word as the D bit.
  if (mgmt_class == mgmt::SUBN_DIRECTED_ROUTE) status &= 0x7fff;
  if (status == 0) return "success";
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : ", ") + s; };
  if (status & 0x1) add("busy");
  if (status & 0x2) add("redirect");
  if (uint32_t code = (status >> 2) & 0x7) {
    const char* n = enums::name_of(enums::mad_status_codes(), code);
    add("MAD status error " + std::to_string(code) + (n ? " (" + std::string(n) + ")" : ""));
  }
  if (mgmt_class == mgmt::DEV_MGT) {
    // DevMgt's class specific status is a set of flags.
    if (uint16_t f = status & 0xff00) add("class specific " + enums::mask_names(enums::dm_status(), f));
    status &= 0x00ff;
  }
  if (uint32_t cs = (status >> 8) & 0x7f) {
    const char* n = mgmt_class == mgmt::SUBN_ADM ? enums::name_of(enums::sa_status(), cs) : nullptr;
    add("class specific error " + std::to_string(cs) + (n ? " (" + std::string(n) + ")" : ""));
  }
  if (status & 0x8000) add("status bit 15");
  if (status & 0xe0) {
    char b[32];
    std::snprintf(b, sizeof b, "reserved status bits 0x%02x", status & 0xe0);
    add(b);
  }
  return out;
}

}  // namespace iba
