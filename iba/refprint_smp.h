// SMP attributes printed exactly as the reference smpquery prints them
// (libibmad's "Label:.....value" dumps with its value formatters), plus the
// table formats smpquery builds from several attributes (P_Keys, GUIDs,
// SL2VL rows, VL arbitration tables).
//
//   std::string s = iba::ref::smp_print(SMPNodeInfo::DESC, bytes);
//   std::string s = iba::ref::smp_print(portinfo);           // any IBA_STRUCT
//
// The caller prints smpquery's header line ("# Node info: Lid 1") itself.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "iba/compat.h"
#include "iba/refprint.h"
#include "iba/smp.h"

namespace iba::ref {

struct SmpPrintOptions {
  bool show_keys = false;  // smpquery -K: print M_Key instead of <not displayed>
  Compat compat = Compat::Diags44;
  // PortInfo: the PortInfo whose capability masks apply, when not the
  // printed one's own (a switch's external port: port 0's; IBA reserves
  // the masks of the other ports).
  const SMPPortInfo* capability = nullptr;
};

// Whether PortInfo's dump ends with XDR's three lines (LinkSpeedExtActive2,
// LinkSpeedExtSupported2, LinkSpeedExtEnabled2, as upstream's dump_portinfo
// prints them since rdma-core v50): always at Compat::Current, as upstream
// prints them on every port; at 44's level only when the port announces
// extended speeds 2 (announces_ext_speeds2 of `capability`: the port's own
// PortInfo, or a switch's port 0), so 44's output stays byte for byte on
// every port 44 can describe.
bool port_info_ext2_lines(const SMPPortInfo& capability, Compat compat);

// The layout table of an SMP attribute, empty if it has none.  Layouts exist
// for SMPNodeInfo, SMPPortInfo (all of upstream's rows, XDR's included;
// smp_print leaves those out as port_info_ext2_lines says), SMPSwitchInfo,
// SMPPortInfoExtended, SMPMlnxExtPortInfo, SMPSMInfo.
std::span<const Line> smp_layout(const StructDesc& desc);

// The attribute in smpquery's format.  NodeDescription gives smpquery's
// single "Node Description:....text" line.  Throws std::invalid_argument for
// a structure with no reference layout.
std::string smp_print(const StructDesc& desc, std::span<const uint8_t> data, const SmpPrintOptions& opt = {});
template <class T>
std::string smp_print(const T& v, const SmpPrintOptions& opt = {}) {
  return smp_print(T::DESC, v.bytes(), opt);
}

// smpquery pkeys: "   0: 0xffff 0x0000 ..." lines of 8 (index of the first)
// until `capacity` is covered (whole lines, entries past the span are 0),
// then "<capacity> pkeys capacity for this port".
std::string pkeys_print(std::span<const uint16_t> pkeys, size_t capacity);
// smpquery guids: the same with 2 GUIDs a line.
std::string guids_print(std::span<const uint64_t> guids, size_t capacity);
// One SL2VL row body as libibmad prints it: "| 0| 1|...|15|\n".
std::string sl2vl_row(const SMPSLToVLMappingTable& t);
// smpquery sl2vl header line under "# SL2VL table: ...".
std::string sl2vl_header();
// The "VL    : |..|" and "WEIGHT: |..|" lines for the first n entries of a
// VL arbitration block (n <= 32).
std::string vlarb_print(const SMPVLArbitrationTable& t, size_t n);

// sminfo's line: "sminfo: sm lid 1 sm guid 0x100001, activity count 575
// priority 0 state 3 SMINFO_MASTER" (with the newline).
std::string sminfo_print(uint32_t sm_lid, const SMPSMInfo& si);

// libibmad's value formatters, usable by other printers.
std::string fmt_link_width(uint64_t v);            // LinkWidthActive: 4X
std::string fmt_link_width_enabled(uint64_t v);    // 1X or 4X
std::string fmt_link_width_supported(uint64_t v);  // ... (IBA extension)
std::string fmt_link_speed(uint64_t v);            // 2.5 Gbps / Extended speed
std::string fmt_link_speed_supported(uint64_t v);
std::string fmt_link_speed_enabled(uint64_t v);
std::string fmt_link_speed_ext(uint64_t v);        // 14.0625 Gbps / No Extended Speed (iba::ext_speeds' bits)
std::string fmt_link_speed_ext2(uint64_t v);       // LinkSpeedExtActive2: 212.5 Gbps / No Extended Speed 2
std::string fmt_link_speed_ext2_set(uint64_t v);   // LinkSpeedExtSupported2/Enabled2
std::string fmt_link_speed_ext_supported(uint64_t v);
std::string fmt_link_speed_ext_enabled(uint64_t v);
std::string fmt_port_state(uint64_t v);            // Active
// The same names as C strings, "???" past the table (the health checks'
// findings, ibqueryerrors' link lines).
const char* port_state_word(uint64_t v);           // Initialize
const char* phys_state_word(uint64_t v);           // LinkUp
// ibstat's own words for them (libibumad's view through sysfs).
const char* ibstat_port_state(uint64_t v);         // Initializing
const char* ibstat_phys_state(uint64_t v);         // No state change
std::string fmt_phys_state(uint64_t v);            // LinkUp
std::string fmt_link_down_def_state(uint64_t v);   // Polling
std::string fmt_mtu(uint64_t v);                   // 2048
std::string fmt_vl_cap(uint64_t v);                // VL0-7
std::string fmt_oper_vls(uint64_t v);              // VL0-7 / No change
std::string fmt_node_type(uint64_t v);             // Channel Adapter
std::string fmt_cap_mask(uint64_t v);              // 0x50c04a + one tabbed line a bit
std::string fmt_cap_mask2(uint64_t v);

}  // namespace iba::ref
