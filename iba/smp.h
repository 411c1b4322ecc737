// Subnet management attributes (IBA 14.2.5) and the common Notice attribute
// (IBA 13.4.8.2), plus the vendor SMP attributes the reference tools use.
// Field names follow python-rdma's camelCase spelling of the IBA names.
// Reserved space is declared (kind Rsv) wherever the IBA tables list it:
// SA records embed these structures and count reserved fields as
// components.
#pragma once

#include "iba/enums.h"
#include "iba/mad.h"

namespace iba {

// --- NodeDescription (0x0010) -------------------------------------------------
#define IBA_FIELDS_SMPNodeDescription(F, A, S, SA) F(nodeString, 0, 512, Str)
IBA_STRUCT(SMPNodeDescription, 64, IBA_FIELDS_SMPNodeDescription);
IBA_ATTR_ID(SMPNodeDescription, 0x0010);

// --- NodeInfo (0x0011) --------------------------------------------------------
#define IBA_FIELDS_SMPNodeInfo(F, A, S, SA) \
  F(baseVersion, 0, 8, Uint)                \
  F(classVersion, 8, 8, Uint)               \
  F(nodeType, 16, 8, Uint, NODE_TYPE)       \
  F(numPorts, 24, 8, Uint)                  \
  F(systemImageGUID, 32, 64, Guid)          \
  F(nodeGUID, 96, 64, Guid)                 \
  F(portGUID, 160, 64, Guid)                \
  F(partitionCap, 224, 16, Uint)            \
  F(deviceID, 240, 16, Hex)                 \
  F(revision, 256, 32, Hex)                 \
  F(localPortNum, 288, 8, Uint)             \
  F(vendorID, 296, 24, Hex)
IBA_STRUCT(SMPNodeInfo, 40, IBA_FIELDS_SMPNodeInfo);
IBA_ATTR_ID(SMPNodeInfo, 0x0011);

// --- SwitchInfo (0x0012) ------------------------------------------------------
#define IBA_FIELDS_SMPSwitchInfo(F, A, S, SA)      \
  F(linearFDBCap, 0, 16, Uint)                     \
  F(randomFDBCap, 16, 16, Uint)                    \
  F(multicastFDBCap, 32, 16, Uint)                 \
  F(linearFDBTop, 48, 16, Uint)                    \
  F(defaultPort, 64, 8, Uint)                      \
  F(defaultMulticastPrimaryPort, 72, 8, Uint)      \
  F(defaultMulticastNotPrimaryPort, 80, 8, Uint)   \
  F(lifeTimeValue, 88, 5, Uint)                    \
  F(portStateChange, 93, 1, Uint)                  \
  F(optimizedSLtoVLMappingProgramming, 94, 2, Uint) \
  F(LIDsPerPort, 96, 16, Uint)                     \
  F(partitionEnforcementCap, 112, 16, Uint)        \
  F(inboundEnforcementCap, 128, 1, Uint)           \
  F(outboundEnforcementCap, 129, 1, Uint)          \
  F(filterRawInboundCap, 130, 1, Uint)             \
  F(filterRawOutboundCap, 131, 1, Uint)            \
  F(enhancedPort0, 132, 1, Uint)                   \
  F(reserved133, 133, 11, Rsv)                     \
  F(multicastFDBTop, 144, 16, Hex, IF_PORT_MCAST_FDB_TOP)
IBA_STRUCT(SMPSwitchInfo, 20, IBA_FIELDS_SMPSwitchInfo);
IBA_ATTR_ID(SMPSwitchInfo, 0x0012);

// The LID space (IBA 4.1.2): unicast LIDs 0x0001..0xbfff, multicast LIDs
// from 0xc000 (entry 0 of a multicast forwarding table).
constexpr unsigned UNICAST_LID_LAST = 0xbfff;
constexpr unsigned MLID_BASE = 0xc000;

// The last LID a switch's linear forwarding table holds: its LinearFDBTop,
// at most the last unicast LID.
inline unsigned lft_last_lid(const SMPSwitchInfo& si) {
  unsigned top = unsigned(si.linearFDBTop());
  return top > UNICAST_LID_LAST ? UNICAST_LID_LAST : top;
}

// How many entries of a switch's multicast forwarding table, from
// MLID_BASE, can hold anything: MulticastFDBCap, cut at MulticastFDBTop
// when that is set; none when the top is set below MLID_BASE (nothing is
// programmed).
inline unsigned mft_entries(const SMPSwitchInfo& si) {
  unsigned cap = unsigned(si.multicastFDBCap()), top = unsigned(si.multicastFDBTop());
  if (top && top < MLID_BASE) return 0;
  if (top >= MLID_BASE && top - MLID_BASE + 1 < cap) return top - MLID_BASE + 1;
  return cap;
}

// The part of [start, end] a switch's tables hold, as the dump commands
// show them (end 0: to the table's end).  Unicast: up to LinearFDBTop as the
// switch gives it (the reference's dumps do not cut it at the last unicast
// LID as lft_last_lid does for reading).
// Multicast: MLID_BASE up to MLID_BASE + MulticastFDBCap - 1 (the capacity,
// not the top: the reference shows every entry the switch has room for).
struct LidRange {
  unsigned first, last;
};
inline LidRange lft_range(const SMPSwitchInfo& si, unsigned start, unsigned end) {
  unsigned top = unsigned(si.linearFDBTop());
  return {start, !end || end > top ? top : end};
}
inline LidRange mft_range(const SMPSwitchInfo& si, unsigned start, unsigned end) {
  unsigned cap = unsigned(si.multicastFDBCap());
  unsigned max = MLID_BASE + (cap ? cap - 1 : 0);
  return {start < MLID_BASE ? MLID_BASE : start, !end || end > max ? max : end};
}

// --- GUIDInfo (0x0014): 8 GUIDs, block number in the attribute modifier -----
// Eight separate fields, not one array: each GUID of the block is an SA
// component of its own in GUIDInfoRecord (GID0..GID7).  guid_at() gives
// indexed access.
#define IBA_FIELDS_SMPGUIDInfo(F, A, S, SA) \
  F(GUID0, 0, 64, Guid)                     \
  F(GUID1, 64, 64, Guid)                    \
  F(GUID2, 128, 64, Guid)                   \
  F(GUID3, 192, 64, Guid)                   \
  F(GUID4, 256, 64, Guid)                   \
  F(GUID5, 320, 64, Guid)                   \
  F(GUID6, 384, 64, Guid)                   \
  F(GUID7, 448, 64, Guid)
IBA_STRUCT(SMPGUIDInfo, 64, IBA_FIELDS_SMPGUIDInfo);
IBA_ATTR_ID(SMPGUIDInfo, 0x0014);
constexpr size_t GUIDINFO_BLOCK = std::size(SMPGUIDInfo::FIELDS);
// GUID i (0..7) of the block, located by the field table.
inline uint64_t guid_at(const SMPGUIDInfo& t, size_t i) {
  return get_bits(t.raw(), SMPGUIDInfo::FIELDS[i].bit_off, 64);
}
inline void set_guid_at(SMPGUIDInfo& t, size_t i, uint64_t v) {
  set_bits(t.raw(), SMPGUIDInfo::FIELDS[i].bit_off, 64, v);
}

// --- PortInfo (0x0015) --------------------------------------------------------
// CapabilityMask2 is valid with IsCapabilityMask2Supported, LinkSpeedExt*
// with IsExtendedSpeedsSupported, LinkSpeedExt*2 with CapabilityMask2's
// IsExtSpeeds2Supported (the capability masks of the port, a switch's
// port 0's for its other ports; iba/enums.h Validity).
// The XDR fields (LinkSpeedExt*2, IBA 1.7; bit places as upstream libibmad
// has them since rdma-core v50) lie in what earlier versions reserve at bit
// 448: declared inside reserved448, they share its SA component (struct.h).
#define IBA_FIELDS_SMPPortInfo(F, A, S, SA)               \
  F(MKey, 0, 64, Hex)                                     \
  F(GIDPrefix, 64, 64, Hex)                               \
  F(LID, 128, 16, Lid)                                    \
  F(masterSMLID, 144, 16, Lid)                            \
  F(capabilityMask, 160, 32, Hex)                         \
  F(diagCode, 192, 16, Hex)                               \
  F(MKeyLeasePeriod, 208, 16, Uint)                       \
  F(localPortNum, 224, 8, Uint)                           \
  F(linkWidthEnabled, 232, 8, Uint, LINK_WIDTH)           \
  F(linkWidthSupported, 240, 8, Uint, LINK_WIDTH)         \
  F(linkWidthActive, 248, 8, Uint, LINK_WIDTH)            \
  F(linkSpeedSupported, 256, 4, Uint, LINK_SPEED)         \
  F(portState, 260, 4, Uint, PORT_STATE)                  \
  F(portPhysicalState, 264, 4, Uint, PHYS_STATE)          \
  F(linkDownDefaultState, 268, 4, Uint, PHYS_STATE)       \
  F(MKeyProtectBits, 272, 2, Uint)                        \
  F(reserved274, 274, 3, Rsv)                             \
  F(LMC, 277, 3, Uint)                                    \
  F(linkSpeedActive, 280, 4, Uint, LINK_SPEED)            \
  F(linkSpeedEnabled, 284, 4, Uint, LINK_SPEED)           \
  F(neighborMTU, 288, 4, Uint, MTU)                       \
  F(masterSMSL, 292, 4, Uint)                             \
  F(VLCap, 296, 4, Uint)                                  \
  F(initType, 300, 4, Hex)                                \
  F(VLHighLimit, 304, 8, Uint)                            \
  F(VLArbitrationHighCap, 312, 8, Uint)                   \
  F(VLArbitrationLowCap, 320, 8, Uint)                    \
  F(initTypeReply, 328, 4, Hex)                           \
  F(MTUCap, 332, 4, Uint, MTU)                            \
  F(VLStallCount, 336, 3, Uint)                           \
  F(HOQLife, 339, 5, Uint)                                \
  F(operationalVLs, 344, 4, Uint)                         \
  F(partitionEnforcementInbound, 348, 1, Uint)            \
  F(partitionEnforcementOutbound, 349, 1, Uint)           \
  F(filterRawInbound, 350, 1, Uint)                       \
  F(filterRawOutbound, 351, 1, Uint)                      \
  F(MKeyViolations, 352, 16, Uint)                        \
  F(PKeyViolations, 368, 16, Uint)                        \
  F(QKeyViolations, 384, 16, Uint)                        \
  F(GUIDCap, 400, 8, Uint)                                \
  F(clientReregister, 408, 1, Uint)                       \
  F(multicastPKeyTrapSuppressionEnabled, 409, 2, Uint)    \
  F(subnetTimeOut, 411, 5, Uint)                          \
  F(reserved416, 416, 3, Rsv)                             \
  F(respTimeValue, 419, 5, Uint)                          \
  F(localPhyErrors, 424, 4, Uint)                         \
  F(overrunErrors, 428, 4, Uint)                          \
  F(maxCreditHint, 432, 16, Uint)                         \
  F(reserved448, 448, 8, Rsv)                             \
  F(linkSpeedExtActive2, 449, 2, Uint, LINK_SPEED_EXT2, IF_PORT_EXT_SPEEDS2)       \
  F(linkSpeedExtSupported2, 451, 2, Uint, LINK_SPEED_EXT2, IF_PORT_EXT_SPEEDS2)    \
  F(linkSpeedExtEnabled2, 453, 3, Uint, LINK_SPEED_EXT2, IF_PORT_EXT_SPEEDS2)      \
  F(linkRoundTripLatency, 456, 24, Uint)                  \
  F(capabilityMask2, 480, 16, Hex, IF_PORT_CAP2)                                   \
  F(linkSpeedExtActive, 496, 4, Uint, LINK_SPEED_EXT, IF_PORT_EXT_SPEEDS)          \
  F(linkSpeedExtSupported, 500, 4, Uint, LINK_SPEED_EXT, IF_PORT_EXT_SPEEDS)       \
  F(reserved504, 504, 3, Rsv)                             \
  F(linkSpeedExtEnabled, 507, 5, Uint, LINK_SPEED_EXT, IF_PORT_EXT_SPEEDS)
IBA_STRUCT(SMPPortInfo, 64, IBA_FIELDS_SMPPortInfo);
IBA_ATTR_ID(SMPPortInfo, 0x0015);

// A port's extended link speeds as one bit set, the way upstream's tools
// show them since XDR (libibnetdisc's "aggregate" speeds, rdma-core v50):
// LinkSpeedExt* in bits 0-3 (FDR, EDR, HDR, NDR), LinkSpeedExt*2 shifted
// up by EXT_SPEED2_SHIFT (XDR = 32); names in enums::link_speeds_ext().
// The fields count only where `capability` (the PortInfo whose capability
// masks apply: a switch's port 0, else the port itself) says they are
// valid.  Active is one speed (XDR when LinkSpeedExtActive2 has one);
// Supported and Enabled are sets (LinkSpeedExtEnabled 30 means "extended
// speeds disabled": none).
enum class SpeedOf { Active, Supported, Enabled };
constexpr unsigned EXT_SPEED2_SHIFT = 5;
// Whether a PortInfo's capability masks announce LinkSpeedExt*2 (XDR):
// CapabilityMask2 is valid (IsCapabilityMask2Supported) and has
// IsExtSpeeds2Supported.
inline bool announces_ext_speeds2(const SMPPortInfo& capability) {
  return (uint32_t(capability.capabilityMask()) & enums::CAP_IS_CAPABILITY_MASK2) &&
         (capability.capabilityMask2() & enums::CAP2_IS_EXT_SPEEDS2);
}
inline uint32_t ext_speeds(const SMPPortInfo& pi, const SMPPortInfo& capability, SpeedOf which) {
  uint32_t cap = uint32_t(capability.capabilityMask());
  if (!(cap & enums::CAP_IS_EXTENDED_SPEEDS)) return 0;
  uint32_t e = 0, e2 = 0;
  switch (which) {
    case SpeedOf::Active: e = uint32_t(pi.linkSpeedExtActive()); break;
    case SpeedOf::Supported: e = uint32_t(pi.linkSpeedExtSupported()); break;
    case SpeedOf::Enabled: e = uint32_t(pi.linkSpeedExtEnabled()); break;
  }
  if (which == SpeedOf::Enabled && e == 30) e = 0;
  if (announces_ext_speeds2(capability)) {
    switch (which) {
      case SpeedOf::Active: e2 = uint32_t(pi.linkSpeedExtActive2()); break;
      case SpeedOf::Supported: e2 = uint32_t(pi.linkSpeedExtSupported2()); break;
      case SpeedOf::Enabled: e2 = uint32_t(pi.linkSpeedExtEnabled2()); break;
    }
  }
  e2 <<= EXT_SPEED2_SHIFT;
  if (which == SpeedOf::Active) return e2 ? e2 : e;
  return e | e2;
}

// --- P_KeyTable (0x0016): 32 P_Keys, block number in the modifier -----------
#define IBA_FIELDS_SMPPKeyTable(F, A, S, SA) A(PKeyBlock, 0, 16, Hex, 32)
IBA_STRUCT(SMPPKeyTable, 64, IBA_FIELDS_SMPPKeyTable);
IBA_ATTR_ID(SMPPKeyTable, 0x0016);

// --- SLtoVLMappingTable (0x0017) ----------------------------------------------
#define IBA_FIELDS_SMPSLToVLMappingTable(F, A, S, SA) A(SLtoVL, 0, 4, Uint, 16)
IBA_STRUCT(SMPSLToVLMappingTable, 8, IBA_FIELDS_SMPSLToVLMappingTable);
IBA_ATTR_ID(SMPSLToVLMappingTable, 0x0017);

// --- VLArbitrationTable (0x0018): 32 (VL, weight) entries --------------------
#define IBA_FIELDS_SMPVLArbitrationEntry(F, A, S, SA) \
  F(reserved0, 0, 4, Rsv)                             \
  F(VL, 4, 4, Uint)                                   \
  F(weight, 8, 8, Uint)
IBA_STRUCT(SMPVLArbitrationEntry, 2, IBA_FIELDS_SMPVLArbitrationEntry);
#define IBA_FIELDS_SMPVLArbitrationTable(F, A, S, SA) SA(VLWeightBlock, 0, SMPVLArbitrationEntry, 32)
IBA_STRUCT(SMPVLArbitrationTable, 64, IBA_FIELDS_SMPVLArbitrationTable);
IBA_ATTR_ID(SMPVLArbitrationTable, 0x0018);

// --- LinearForwardingTable (0x0019): 64 ports, block of LIDs in the modifier --
#define IBA_FIELDS_SMPLinearForwardingTable(F, A, S, SA) A(portBlock, 0, 8, Uint, 64)
IBA_STRUCT(SMPLinearForwardingTable, 64, IBA_FIELDS_SMPLinearForwardingTable);
IBA_ATTR_ID(SMPLinearForwardingTable, 0x0019);

// --- RandomForwardingTable (0x001A): 16 (LID, valid, LMC, port) entries -------
#define IBA_FIELDS_SMPRandomForwardingEntry(F, A, S, SA) \
  F(LID, 0, 16, Lid)                                     \
  F(valid, 16, 1, Uint)                                  \
  F(LMC, 17, 3, Uint)                                    \
  F(reserved20, 20, 4, Rsv)                              \
  F(port, 24, 8, Uint)
IBA_STRUCT(SMPRandomForwardingEntry, 4, IBA_FIELDS_SMPRandomForwardingEntry);
#define IBA_FIELDS_SMPRandomForwardingTable(F, A, S, SA) SA(LIDPortBlock, 0, SMPRandomForwardingEntry, 16)
IBA_STRUCT(SMPRandomForwardingTable, 64, IBA_FIELDS_SMPRandomForwardingTable);
IBA_ATTR_ID(SMPRandomForwardingTable, 0x001A);

// --- MulticastForwardingTable (0x001B): 32 port masks ------------------------
#define IBA_FIELDS_SMPMulticastForwardingTable(F, A, S, SA) A(portMaskBlock, 0, 16, Hex, 32)
IBA_STRUCT(SMPMulticastForwardingTable, 64, IBA_FIELDS_SMPMulticastForwardingTable);
IBA_ATTR_ID(SMPMulticastForwardingTable, 0x001B);

// --- LinkSpeedWidthPairsTable (0x001C) -------------------------------------------
// Which link width and speed pairs the ports in portMask (a bit per port)
// support; the attribute modifier selects the table (numTables of them).
#define IBA_FIELDS_SMPLinkSpeedWidthPairsTable(F, A, S, SA) \
  F(numTables, 0, 8, Uint)                                  \
  F(portMask, 8, 256, Bytes)                                \
  F(speedTwoFive, 264, 8, Hex)                              \
  F(speedFive, 272, 8, Hex)                                 \
  F(speedTen, 280, 8, Hex)                                  \
  F(reserved288, 288, 224, Rsv)
IBA_STRUCT(SMPLinkSpeedWidthPairsTable, 64, IBA_FIELDS_SMPLinkSpeedWidthPairsTable);
IBA_ATTR_ID(SMPLinkSpeedWidthPairsTable, 0x001C);

// --- VendorSpecificMadsTable (0x001D) ------------------------------------------
// Which vendor specific MAD classes a port supports.  No header or source at
// hand (libibmad, OpenSM, ibis, wireshark) lays its fields out, only its ID:
// declared as its 64 opaque bytes, so that it is named and dumped.
#define IBA_FIELDS_SMPVendorSpecificMadsTable(F, A, S, SA) F(table, 0, 512, Bytes)
IBA_STRUCT(SMPVendorSpecificMadsTable, 64, IBA_FIELDS_SMPVendorSpecificMadsTable);
IBA_ATTR_ID(SMPVendorSpecificMadsTable, 0x001D);

// --- HierarchyInfo (0x001E) ------------------------------------------------------
// A port's place in the physical hierarchy (cabinet, chassis, slot ...),
// levelData[i] encoded as the template templateGUID defines; the attribute
// modifier holds the hierarchy index and the port.
#define IBA_FIELDS_SMPHierarchyInfo(F, A, S, SA) \
  F(templateGUID, 0, 64, Guid)                   \
  F(maxSupportedIndex, 64, 8, Uint)              \
  F(maxActiveIndex, 72, 8, Uint)                 \
  F(activeLevels, 80, 4, Uint)                   \
  F(reserved84, 84, 12, Rsv)                     \
  A(levelData, 96, 32, Hex, 13)
IBA_STRUCT(SMPHierarchyInfo, 64, IBA_FIELDS_SMPHierarchyInfo);
IBA_ATTR_ID(SMPHierarchyInfo, 0x001E);

// --- SMInfo (0x0020) ----------------------------------------------------------
#define IBA_FIELDS_SMPSMInfo(F, A, S, SA) \
  F(GUID, 0, 64, Guid)                    \
  F(SMKey, 64, 64, Hex)                   \
  F(actCount, 128, 32, Uint)              \
  F(priority, 160, 4, Uint)               \
  F(SMState, 164, 4, Uint, SM_STATE)
IBA_STRUCT(SMPSMInfo, 21, IBA_FIELDS_SMPSMInfo);
IBA_ATTR_ID(SMPSMInfo, 0x0020);

// --- VendorDiag (0x0030) ------------------------------------------------------
#define IBA_FIELDS_SMPVendorDiag(F, A, S, SA) \
  F(nextIndex, 0, 16, Uint)                   \
  F(reserved16, 16, 16, Rsv)                  \
  F(diagData, 32, 480, Bytes)
IBA_STRUCT(SMPVendorDiag, 64, IBA_FIELDS_SMPVendorDiag);
IBA_ATTR_ID(SMPVendorDiag, 0x0030);

// --- LedInfo (0x0031) ---------------------------------------------------------
#define IBA_FIELDS_SMPLedInfo(F, A, S, SA) \
  F(ledMask, 0, 1, Uint)                   \
  F(reserved1, 1, 31, Rsv)
IBA_STRUCT(SMPLedInfo, 4, IBA_FIELDS_SMPLedInfo);
IBA_ATTR_ID(SMPLedInfo, 0x0031);

// --- CableInfo (0x0032): raw module EEPROM bytes; the modifier selects the
// address, length and page --------------------------------------------------
#define IBA_FIELDS_SMPCableInfo(F, A, S, SA) F(data, 0, 512, Bytes)
IBA_STRUCT(SMPCableInfo, 64, IBA_FIELDS_SMPCableInfo);
IBA_ATTR_ID(SMPCableInfo, 0x0032);

// --- PortInfoExtended (0x0033) ------------------------------------------------
#define IBA_FIELDS_SMPPortInfoExtended(F, A, S, SA) \
  F(capabilityMask, 0, 32, Hex)                     \
  F(FECModeActive, 32, 16, Hex, IF_PORT_EXT_FEC)                     \
  F(FDRFECModeSupported, 48, 16, Hex, IF_PORT_EXT_FEC)               \
  F(FDRFECModeEnabled, 64, 16, Hex, IF_PORT_EXT_FEC)                 \
  F(EDRFECModeSupported, 80, 16, Hex, IF_PORT_EXT_FEC)               \
  F(EDRFECModeEnabled, 96, 16, Hex, IF_PORT_EXT_FEC)                 \
  F(HDRFECModeSupported, 112, 16, Hex, IF_PORT_EXT_FEC)              \
  F(HDRFECModeEnabled, 128, 16, Hex, IF_PORT_EXT_FEC)                \
  F(NDRFECModeSupported, 144, 16, Hex, IF_PORT_EXT_FEC)              \
  F(NDRFECModeEnabled, 160, 16, Hex, IF_PORT_EXT_FEC)                \
  F(reserved176, 176, 336, Rsv)
IBA_STRUCT(SMPPortInfoExtended, 64, IBA_FIELDS_SMPPortInfoExtended);
IBA_ATTR_ID(SMPPortInfoExtended, 0x0033);

// --- Mellanox ExtendedPortInfo (0xFF90, vendor range) ------------------------
#define IBA_FIELDS_SMPMlnxExtPortInfo(F, A, S, SA) \
  F(reserved0, 0, 24, Rsv)                         \
  F(stateChangeEnable, 24, 8, Hex)                 \
  F(reserved32, 32, 24, Rsv)                       \
  F(linkSpeedSupported, 56, 8, Hex)                \
  F(reserved64, 64, 24, Rsv)                       \
  F(linkSpeedEnabled, 88, 8, Hex)                  \
  F(reserved96, 96, 24, Rsv)                       \
  F(linkSpeedActive, 120, 8, Hex)                  \
  F(reserved128, 128, 384, Rsv)
IBA_STRUCT(SMPMlnxExtPortInfo, 64, IBA_FIELDS_SMPMlnxExtPortInfo);
IBA_ATTR_ID(SMPMlnxExtPortInfo, 0xFF90);

// --- Notice (0x0002), common to all classes (IBA 13.4.8.2) -------------------
// For a generic notice producerType/trapNumber apply, for a vendor notice the
// same bits are vendorID/deviceID.  dataDetails is one of the trap detail
// forms below (NoticeTrap*).  SMPs carry the first 64 bytes (no issuerGID).
#define IBA_FIELDS_MADNotice(F, A, S, SA) \
  F(isGeneric, 0, 1, Uint)                \
  F(type, 1, 7, Uint)                     \
  F(producerType, 8, 24, Hex)             \
  F(trapNumber, 32, 16, Uint)             \
  F(issuerLID, 48, 16, Lid)               \
  F(noticeToggle, 64, 1, Uint)            \
  F(noticeCount, 65, 15, Uint)            \
  F(dataDetails, 80, 432, Bytes)          \
  F(issuerGID, 512, 128, Gid)
IBA_STRUCT(MADNotice, 80, IBA_FIELDS_MADNotice);
IBA_ATTR_ID(MADNotice, 0x0002);

// Trap data details (54 bytes each), by trap number.
#define IBA_FIELDS_NoticeTrap64(F, A, S, SA) /* 64-67: GID in/out of service, mcast group */ \
  F(reserved0, 0, 48, Rsv)                                                                    \
  F(GIDADDR, 48, 128, Gid)                                                                     \
  F(reserved176, 176, 256, Rsv)
IBA_STRUCT(NoticeTrap64, 54, IBA_FIELDS_NoticeTrap64);

#define IBA_FIELDS_NoticeTrap128(F, A, S, SA) /* 128: link state change */ \
  F(LIDADDR, 0, 16, Lid)                                                    \
  F(reserved16, 16, 416, Rsv)
IBA_STRUCT(NoticeTrap128, 54, IBA_FIELDS_NoticeTrap128);

#define IBA_FIELDS_NoticeTrap129(F, A, S, SA) /* 129-131: port errors */ \
  F(reserved0, 0, 16, Rsv)                                                \
  F(LIDADDR, 16, 16, Lid)                                                 \
  F(PORTNO, 32, 8, Uint)                                                  \
  F(reserved40, 40, 392, Rsv)
IBA_STRUCT(NoticeTrap129, 54, IBA_FIELDS_NoticeTrap129);

#define IBA_FIELDS_NoticeTrap144(F, A, S, SA) /* 144: capability mask change */ \
  F(reserved0, 0, 16, Rsv)                                                       \
  F(LIDADDR, 16, 16, Lid)                                                        \
  F(reserved32, 32, 15, Rsv)                                                     \
  F(localChanges, 47, 1, Uint)                                                   \
  F(capabilityMask, 48, 32, Hex)                                                 \
  F(reserved80, 80, 10, Rsv)                                                     \
  F(changeFlags, 90, 6, Hex)                                                     \
  F(capabilityMask2, 96, 16, Hex)                                                \
  F(reserved112, 112, 320, Rsv)
IBA_STRUCT(NoticeTrap144, 54, IBA_FIELDS_NoticeTrap144);

#define IBA_FIELDS_NoticeTrap145(F, A, S, SA) /* 145: system image GUID change */ \
  F(reserved0, 0, 16, Rsv)                                                         \
  F(LIDADDR, 16, 16, Lid)                                                          \
  F(reserved32, 32, 16, Rsv)                                                       \
  F(systemImageGUID, 48, 64, Guid)                                                 \
  F(reserved112, 112, 320, Rsv)
IBA_STRUCT(NoticeTrap145, 54, IBA_FIELDS_NoticeTrap145);

#define IBA_FIELDS_NoticeTrap256(F, A, S, SA) /* 256: bad M_Key */ \
  F(reserved0, 0, 16, Rsv)                                          \
  F(LIDADDR, 16, 16, Lid)                                           \
  F(DRSLID, 32, 16, Lid)                                            \
  F(method, 48, 8, Hex)                                             \
  F(reserved56, 56, 8, Rsv)                                         \
  F(attributeID, 64, 16, Hex)                                       \
  F(attributeModifier, 80, 32, Hex)                                 \
  F(MKey, 112, 64, Hex)                                             \
  F(reserved176, 176, 8, Rsv)                                       \
  F(DRNotice, 184, 1, Uint)                                         \
  F(DRPathTruncated, 185, 1, Uint)                                  \
  F(DRHopCount, 186, 6, Uint)                                       \
  A(DRNoticeReturnPath, 192, 8, Uint, 30)
IBA_STRUCT(NoticeTrap256, 54, IBA_FIELDS_NoticeTrap256);

#define IBA_FIELDS_NoticeTrap257(F, A, S, SA) /* 257/258: bad P_Key/Q_Key */ \
  F(reserved0, 0, 16, Rsv)                                                    \
  F(LID1, 16, 16, Lid)                                                        \
  F(LID2, 32, 16, Lid)                                                        \
  F(key, 48, 32, Hex)                                                         \
  F(SL, 80, 4, Uint)                                                          \
  F(reserved84, 84, 4, Rsv)                                                   \
  F(QP1, 88, 24, Hex)                                                         \
  F(reserved112, 112, 8, Rsv)                                                 \
  F(QP2, 120, 24, Hex)                                                        \
  F(GID1, 144, 128, Gid)                                                      \
  F(GID2, 272, 128, Gid)                                                      \
  F(reserved400, 400, 32, Rsv)
IBA_STRUCT(NoticeTrap257, 54, IBA_FIELDS_NoticeTrap257);

#define IBA_FIELDS_NoticeTrap259(F, A, S, SA) /* 259: bad P_Key at a switch port */ \
  F(dataValid, 0, 16, Hex)                                                           \
  F(LID1, 16, 16, Lid)                                                               \
  F(LID2, 32, 16, Lid)                                                               \
  F(PKey, 48, 16, Hex)                                                               \
  F(SL, 64, 4, Uint)                                                                 \
  F(reserved68, 68, 4, Rsv)                                                          \
  F(QP1, 72, 24, Hex)                                                                \
  F(reserved96, 96, 8, Rsv)                                                          \
  F(QP2, 104, 24, Hex)                                                               \
  F(GID1, 128, 128, Gid)                                                             \
  F(GID2, 256, 128, Gid)                                                             \
  F(SWLIDADDR, 384, 16, Lid)                                                         \
  F(PORTNO, 400, 8, Uint)                                                            \
  F(reserved408, 408, 24, Rsv)
IBA_STRUCT(NoticeTrap259, 54, IBA_FIELDS_NoticeTrap259);

// The detail form of a generic trap number, nullptr if it has none declared.
const StructDesc* notice_details_desc(uint16_t trap_number);

}  // namespace iba
