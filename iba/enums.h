// Named enumerations of the IBA: value <-> name tables for management
// classes, methods, node types, port and physical states, link widths and
// speeds, MTUs, rates, capability mask bits, SM states, trap numbers and MAD
// status codes.  Names are the IBA's (python-rdma spelling); the reference
// tools' display strings live in iba/refprint_smp.cpp.
#pragma once

#include <charconv>
#include <cstddef>
#include <iterator>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace iba::enums {

struct Named {
  uint32_t value;
  const char* name;
};

// Name of v in table, or nullptr.
const char* name_of(std::span<const Named> table, uint32_t v);
// Value of a name (case-insensitive), or nullopt.
std::optional<uint32_t> value_of(std::span<const Named> table, std::string_view name);
// For bit-mask tables (values are single bits): the names of the set bits
// joined by sep; unknown bits are shown as 0x.. .
std::string mask_names(std::span<const Named> table, uint64_t mask, std::string_view sep = ",");
// The pieces mask_names joins, handed to put(std::string_view) one by one
// (lowest bit first, the unknown bits last as one 0x..), for a writer that
// joins them itself without a string in between.
template <class Put>
void each_mask_name(std::span<const Named> table, uint64_t mask, Put&& put) {
  uint64_t unknown = 0;
  for (uint64_t rest = mask; rest; rest &= rest - 1) {
    const uint64_t bit = rest & (~rest + 1);  // the lowest set bit
    const char* n = bit <= 0xffffffffu ? name_of(table, uint32_t(bit)) : nullptr;
    if (n)
      put(std::string_view(n));
    else
      unknown |= bit;
  }
  if (unknown) {
    char b[24] = {'0', 'x'};
    auto r = std::to_chars(b + 2, b + sizeof b, unknown, 16);
    put(std::string_view(b, size_t(r.ptr - b)));
  }
}

std::span<const Named> mgmt_classes();       // SubnMgmt(1), SubnAdm(3), ...
std::span<const Named> methods();            // generic IBA method names (MAD_METHOD_GET, ...)
// NodeInfo:NodeType (IBA 14.2.5.3), named by node_types().
enum class NodeTypeCode : uint8_t { CA = 1, SWITCH = 2, ROUTER = 3 };
std::span<const Named> node_types();         // CA=1, Switch=2, Router=3
std::span<const Named> port_states();        // Down=1 .. ActiveDefer=5
std::span<const Named> phys_states();        // Sleep=1 .. PhyTest=7
std::span<const Named> link_widths();        // bits: 1x=1, 4x=2, 8x=4, 12x=8, 2x=16
std::span<const Named> link_speeds();        // bits: SDR=1, DDR=2, QDR=4
std::span<const Named> link_speeds_ext();    // extended speeds as one set (iba::ext_speeds): FDR=1, EDR=2,
                                             // HDR=4, NDR=8, XDR=32 (LinkSpeedExt*2 bit 0 << 5)
std::span<const Named> link_speeds_ext2();   // LinkSpeedExt*2 fields: XDR=1
std::span<const Named> mlnx_link_speeds();   // bits: FDR10=1
std::span<const Named> mtus();               // 1=256 .. 5=4096
std::span<const Named> rates();              // PathRecord rate codes: 2=2.5 Gb/s ...
std::span<const Named> capability_mask();    // PortInfo.capabilityMask bits
std::span<const Named> capability_mask2();   // PortInfo.capabilityMask2 bits
std::span<const Named> sm_states();          // NotActive=0 .. Master=3
std::span<const Named> traps();              // generic trap numbers
std::span<const Named> sa_status();          // SA class specific status codes
std::span<const Named> dm_status();          // DevMgt class specific status bits
std::span<const Named> mad_status_codes();   // invalid-field codes (status bits 2-4)

// The names of an enumerated field's values (iba/struct.h: the field's
// declaration names one of these last): one value (a state, a type) or a
// set of bits (the widths and speeds a port supports).
struct Enumeration {
  std::span<const Named> (*table)();
  bool mask = false;
  // A value's name, or its number when it has none; a set's names joined
  // by ',' (unknown bits as 0x..), "" when empty.
  std::string name(uint64_t raw) const;
};
inline constexpr Enumeration NODE_TYPE{node_types}, PORT_STATE{port_states}, PHYS_STATE{phys_states},
    LINK_WIDTH{link_widths, true}, LINK_SPEED{link_speeds, true}, LINK_SPEED_EXT{link_speeds_ext, true},
    LINK_SPEED_EXT2{link_speeds_ext2, true}, MTU{mtus}, SM_STATE{sm_states};
// Every enumeration a field may name, numbered from 1 in this order: a
// field stores the number (iba/struct.h: no pointer in the field tables).
inline constexpr const Enumeration* FIELD_ENUMERATIONS[] = {
    &NODE_TYPE, &PORT_STATE, &PHYS_STATE, &LINK_WIDTH, &LINK_SPEED, &LINK_SPEED_EXT, &LINK_SPEED_EXT2, &MTU, &SM_STATE};
// The number of e in that list (a compile error if it is not there).
consteval uint8_t enumeration_id(const Enumeration* e) {
  for (size_t i = 0; i < std::size(FIELD_ENUMERATIONS); ++i)
    if (FIELD_ENUMERATIONS[i] == e) return uint8_t(i + 1);
  throw "an enumeration a field names must be in FIELD_ENUMERATIONS";
}

// The PortInfo capability bits the code tests (named in
// capability_mask() / capability_mask2()).
constexpr uint32_t CAP_IS_SM_DISABLED = 1u << 10;       // CapabilityMask (a planarized HCA's GSI device)
constexpr uint32_t CAP_IS_CM = 1u << 16;                // CapabilityMask: IsCommunicationManagementSupported
constexpr uint32_t CAP2_IS_PORT_INFO_EXTENDED = 1u << 1;  // CapabilityMask2
constexpr uint32_t CAP_IS_EXTENDED_SPEEDS = 1u << 14;   // CapabilityMask
constexpr uint32_t CAP_IS_CAPABILITY_MASK2 = 1u << 15;  // CapabilityMask
constexpr uint32_t CAP2_IS_EXT_SPEEDS2 = 1u << 11;      // CapabilityMask2
constexpr uint32_t CAP2_IS_LINK_SPEED_XDR = 1u << 12;   // CapabilityMask2
constexpr uint32_t CAP_IS_MCAST_FDB_TOP = 1u << 30;     // CapabilityMask: SwitchInfo.MulticastFDBTop is valid
// PortInfoExtended's own CapabilityMask: IsFECModeSupported (its FEC fields).
constexpr uint32_t PORT_EXT_CAP_IS_FEC_MODE = 1u << 0;

// The PM class's ClassPortInfo capability bits a field's validity names
// (iba/pm.h's pm_cap / pm_cap2 give them to the code that asks a PMA).
constexpr uint32_t PM_CAP_EXT_WIDTH = 1u << 9;          // IsExtendedWidthSupported
constexpr uint32_t PM_CAP_EXT_WIDTH_NOIETF = 1u << 10;  // IsExtendedWidthSupportedNoIETF
constexpr uint32_t PM_CAP_XMIT_WAIT = 1u << 12;         // IsPortXmitWaitSupported
constexpr uint32_t PM_CAP_RSFEC = 1u << 14;             // IsRSFECCountersSupported
constexpr uint32_t PM_CAP_QP1_DROPPED = 1u << 15;       // IsQP1DroppedSupported
constexpr uint32_t PM_CAP2_ADDL_PORT_COUNTERS_EXT = 1u << 1;  // IsAdditionalPortCountersExtendedSupported

// What makes an optional field valid: the IBA defines some fields only
// where a capability says the agent implements them (PortXmitWait where
// the PMA's ClassPortInfo has IsPortXmitWaitSupported, LinkSpeedExt*
// where PortInfo.CapabilityMask has IsExtendedSpeedsSupported, ...).
// Without it the bytes are reserved: zero, or whatever the agent left
// there.  A field's declaration names its validity after its enumeration
// (iba/struct.h), and whatever shows fields generically (the JSON writer)
// shows such a field only where its capability is known to be there
// (iba::field_valid, iba/introspect.h).
enum class CapSource : uint8_t {
  PmCap,     // the PMA's ClassPortInfo.CapabilityMask
  PmCap2,    // its CapabilityMask2
  PortCap,   // the port's PortInfo.CapabilityMask (a switch: its port 0's)
  PortCap2,  // PortInfo.CapabilityMask2 (valid itself only with IsCapabilityMask2Supported)
  PortExtCap,  // PortInfoExtended's own CapabilityMask
};
struct Validity {
  CapSource source;
  uint32_t any;      // valid when one of these bits is set
  uint8_t also = 0;  // and (its number in FIELD_VALIDITIES, 0: nothing more) this one holds too
};
inline constexpr Validity IF_PM_EXT_WIDTH{CapSource::PmCap, PM_CAP_EXT_WIDTH},
    IF_PM_EXT_DATA{CapSource::PmCap, PM_CAP_EXT_WIDTH | PM_CAP_EXT_WIDTH_NOIETF},
    IF_PM_XMIT_WAIT{CapSource::PmCap, PM_CAP_XMIT_WAIT}, IF_PM_QP1_DROPPED{CapSource::PmCap, PM_CAP_QP1_DROPPED},
    IF_PM_ADDL_EXT{CapSource::PmCap2, PM_CAP2_ADDL_PORT_COUNTERS_EXT},
    IF_PM_ADDL_EXT_XMIT_WAIT{CapSource::PmCap2, PM_CAP2_ADDL_PORT_COUNTERS_EXT, 3},
    IF_PM_ADDL_EXT_QP1_DROPPED{CapSource::PmCap2, PM_CAP2_ADDL_PORT_COUNTERS_EXT, 4},
    IF_PORT_CAP2{CapSource::PortCap, CAP_IS_CAPABILITY_MASK2},
    IF_PORT_EXT_SPEEDS{CapSource::PortCap, CAP_IS_EXTENDED_SPEEDS},
    IF_PORT_EXT_SPEEDS2{CapSource::PortCap2, CAP2_IS_EXT_SPEEDS2, 8},
    IF_PORT_MCAST_FDB_TOP{CapSource::PortCap, CAP_IS_MCAST_FDB_TOP},
    IF_PORT_EXT_FEC{CapSource::PortExtCap, PORT_EXT_CAP_IS_FEC_MODE}, IF_PM_RSFEC{CapSource::PmCap, PM_CAP_RSFEC};
// Every validity a field may name, numbered from 1 in this order (the
// `also` numbers above count in it).
inline constexpr const Validity* FIELD_VALIDITIES[] = {
    &IF_PM_EXT_WIDTH, &IF_PM_EXT_DATA, &IF_PM_XMIT_WAIT, &IF_PM_QP1_DROPPED, &IF_PM_ADDL_EXT,
    &IF_PM_ADDL_EXT_XMIT_WAIT, &IF_PM_ADDL_EXT_QP1_DROPPED, &IF_PORT_CAP2, &IF_PORT_EXT_SPEEDS,
    &IF_PORT_EXT_SPEEDS2, &IF_PORT_MCAST_FDB_TOP, &IF_PORT_EXT_FEC, &IF_PM_RSFEC};
static_assert(FIELD_VALIDITIES[3 - 1] == &IF_PM_XMIT_WAIT && FIELD_VALIDITIES[4 - 1] == &IF_PM_QP1_DROPPED &&
              FIELD_VALIDITIES[8 - 1] == &IF_PORT_CAP2);
consteval uint8_t validity_id(const Validity* v) {
  for (size_t i = 0; i < std::size(FIELD_VALIDITIES); ++i)
    if (FIELD_VALIDITIES[i] == v) return uint8_t(i + 1);
  throw "a validity a field names must be in FIELD_VALIDITIES";
}
// What a declaration's last arguments name: an enumeration, a validity,
// or both (in that order), as the two numbers a field stores.
struct FieldTail {
  uint8_t enumeration = 0;
  uint8_t validity = 0;
};
consteval FieldTail field_tail(const Enumeration* e) { return {enumeration_id(e), 0}; }
consteval FieldTail field_tail(const Validity* v) { return {0, validity_id(v)}; }
consteval FieldTail field_tail(const Enumeration* e, const Validity* v) { return {enumeration_id(e), validity_id(v)}; }

// MTU code -> bytes (0 if not a valid code), and back.
uint32_t mtu_bytes(uint32_t code);
// Rate code -> data rate in Gb/s * 10 (2.5 Gb/s = 25), 0 if unknown.
uint32_t rate_x10(uint32_t code);

// The RPC name of a method in a class, python-rdma style: SubnGet,
// SubnAdmGetTable, PerformanceGet, VendSet, ... (nullptr if none).
const char* rpc_name(uint8_t mgmt_class, uint8_t method);

}  // namespace iba::enums
