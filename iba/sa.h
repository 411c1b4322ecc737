// Subnet administration (IBA 15.2) and the attributes common to every GS
// class (IBA 13.4.8: ClassPortInfo, InformInfo; Notice is in iba/smp.h).
//
// SA records embed the SMP structures of iba/smp.h.  Reserved space is
// declared exactly where the IBA tables have it: the SA numbers every
// component of a record, reserved ones included, and iba::component_mask()
// computes the bits from these declarations.  Where the IBA (and OpenSM)
// give every element of a short table its own component (ServiceRecord
// data, PathRecord ServiceID halves) the elements are declared as separate
// fields.
#pragma once

#include "iba/mad.h"
#include "iba/smp.h"

namespace iba {

// --- common GS attributes ------------------------------------------------------
// ClassPortInfo (IBA 13.4.8.1), attribute 0x0001 of every GS class.
#define IBA_FIELDS_MADClassPortInfo(F, A, S, SA) \
  F(baseVersion, 0, 8, Uint)                     \
  F(classVersion, 8, 8, Uint)                    \
  F(capabilityMask, 16, 16, Hex)                 \
  F(capabilityMask2, 32, 27, Hex)                \
  F(respTimeValue, 59, 5, Uint)                  \
  F(redirectGID, 64, 128, Gid)                   \
  F(redirectTC, 192, 8, Uint)                    \
  F(redirectSL, 200, 4, Uint)                    \
  F(redirectFL, 204, 20, Hex)                    \
  F(redirectLID, 224, 16, Lid)                   \
  F(redirectPKey, 240, 16, Hex)                  \
  F(reserved256, 256, 8, Rsv)                    \
  F(redirectQP, 264, 24, Hex)                    \
  F(redirectQKey, 288, 32, Hex)                  \
  F(trapGID, 320, 128, Gid)                      \
  F(trapTC, 448, 8, Uint)                        \
  F(trapSL, 456, 4, Uint)                        \
  F(trapFL, 460, 20, Hex)                        \
  F(trapLID, 480, 16, Lid)                       \
  F(trapPKey, 496, 16, Hex)                      \
  F(trapHL, 512, 8, Uint)                        \
  F(trapQP, 520, 24, Hex)                        \
  F(trapQKey, 544, 32, Hex)
IBA_STRUCT(MADClassPortInfo, 72, IBA_FIELDS_MADClassPortInfo);
IBA_ATTR_ID(MADClassPortInfo, 0x0001);

// InformInfo (IBA 13.4.8.3).  For a vendor subscription trapNumber is the
// deviceID and producerType the vendorID.
#define IBA_FIELDS_MADInformInfo(F, A, S, SA) \
  F(GID, 0, 128, Gid)                         \
  F(LIDRangeBegin, 128, 16, Lid)              \
  F(LIDRangeEnd, 144, 16, Lid)                \
  F(reserved160, 160, 16, Rsv)                \
  F(isGeneric, 176, 8, Uint)                  \
  F(subscribe, 184, 8, Uint)                  \
  F(type, 192, 16, Uint)                      \
  F(trapNumber, 208, 16, Uint)                \
  F(QPN, 224, 24, Hex)                        \
  F(reserved248, 248, 3, Rsv)                 \
  F(respTimeValue, 251, 5, Uint)              \
  F(reserved256, 256, 8, Rsv)                 \
  F(producerType, 264, 24, Hex)
IBA_STRUCT(MADInformInfo, 36, IBA_FIELDS_MADInformInfo);
IBA_ATTR_ID(MADInformInfo, 0x0003);

// --- SA records (IBA 15.2.5) -----------------------------------------------------
#define IBA_FIELDS_SANodeRecord(F, A, S, SA) \
  F(LID, 0, 16, Lid)                         \
  F(reserved16, 16, 16, Rsv)                 \
  S(nodeInfo, 32, SMPNodeInfo)               \
  S(nodeDescription, 352, SMPNodeDescription)
IBA_STRUCT(SANodeRecord, 108, IBA_FIELDS_SANodeRecord);
IBA_ATTR_ID(SANodeRecord, 0x0011);

#define IBA_FIELDS_SAPortInfoRecord(F, A, S, SA) \
  F(endportLID, 0, 16, Lid)                      \
  F(portNum, 16, 8, Uint)                        \
  F(options, 24, 8, Hex)                         \
  S(portInfo, 32, SMPPortInfo)
IBA_STRUCT(SAPortInfoRecord, 68, IBA_FIELDS_SAPortInfoRecord);
IBA_ATTR_ID(SAPortInfoRecord, 0x0012);

#define IBA_FIELDS_SASLToVLMappingTableRecord(F, A, S, SA) \
  F(LID, 0, 16, Lid)                                       \
  F(inputPortNum, 16, 8, Uint)                             \
  F(outputPortNum, 24, 8, Uint)                            \
  F(reserved32, 32, 32, Rsv)                               \
  S(SLToVLMappingTable, 64, SMPSLToVLMappingTable)
IBA_STRUCT(SASLToVLMappingTableRecord, 16, IBA_FIELDS_SASLToVLMappingTableRecord);
IBA_ATTR_ID(SASLToVLMappingTableRecord, 0x0013);

#define IBA_FIELDS_SASwitchInfoRecord(F, A, S, SA) \
  F(LID, 0, 16, Lid)                               \
  F(reserved16, 16, 16, Rsv)                       \
  S(switchInfo, 32, SMPSwitchInfo)
IBA_STRUCT(SASwitchInfoRecord, 24, IBA_FIELDS_SASwitchInfoRecord);
IBA_ATTR_ID(SASwitchInfoRecord, 0x0014);

#define IBA_FIELDS_SALinearForwardingTableRecord(F, A, S, SA) \
  F(LID, 0, 16, Lid)                                          \
  F(blockNum, 16, 16, Uint)                                   \
  F(reserved32, 32, 32, Rsv)                                  \
  S(linearForwardingTable, 64, SMPLinearForwardingTable)
IBA_STRUCT(SALinearForwardingTableRecord, 72, IBA_FIELDS_SALinearForwardingTableRecord);
IBA_ATTR_ID(SALinearForwardingTableRecord, 0x0015);

#define IBA_FIELDS_SARandomForwardingTableRecord(F, A, S, SA) \
  F(LID, 0, 16, Lid)                                          \
  F(blockNum, 16, 16, Uint)                                   \
  F(reserved32, 32, 32, Rsv)                                  \
  S(randomForwardingTable, 64, SMPRandomForwardingTable)
IBA_STRUCT(SARandomForwardingTableRecord, 72, IBA_FIELDS_SARandomForwardingTableRecord);
IBA_ATTR_ID(SARandomForwardingTableRecord, 0x0016);

#define IBA_FIELDS_SAMulticastForwardingTableRecord(F, A, S, SA) \
  F(LID, 0, 16, Lid)                                             \
  F(position, 16, 4, Uint)                                       \
  F(reserved20, 20, 3, Rsv)                                      \
  F(blockNum, 23, 9, Uint)                                       \
  F(reserved32, 32, 32, Rsv)                                     \
  S(multicastForwardingTable, 64, SMPMulticastForwardingTable)
IBA_STRUCT(SAMulticastForwardingTableRecord, 72, IBA_FIELDS_SAMulticastForwardingTableRecord);
IBA_ATTR_ID(SAMulticastForwardingTableRecord, 0x0017);

#define IBA_FIELDS_SASMInfoRecord(F, A, S, SA) \
  F(LID, 0, 16, Lid)                           \
  F(reserved16, 16, 16, Rsv)                   \
  S(SMInfo, 32, SMPSMInfo)
IBA_STRUCT(SASMInfoRecord, 25, IBA_FIELDS_SASMInfoRecord);
IBA_ATTR_ID(SASMInfoRecord, 0x0018);

#define IBA_FIELDS_SALinkRecord(F, A, S, SA) \
  F(fromLID, 0, 16, Lid)                     \
  F(fromPort, 16, 8, Uint)                   \
  F(toPort, 24, 8, Uint)                     \
  F(toLID, 32, 16, Lid)
IBA_STRUCT(SALinkRecord, 6, IBA_FIELDS_SALinkRecord);
IBA_ATTR_ID(SALinkRecord, 0x0020);

#define IBA_FIELDS_SAGUIDInfoRecord(F, A, S, SA) \
  F(LID, 0, 16, Lid)                             \
  F(blockNum, 16, 8, Uint)                       \
  F(reserved24, 24, 8, Rsv)                      \
  F(reserved32, 32, 32, Rsv)                     \
  S(GUIDInfo, 64, SMPGUIDInfo)
IBA_STRUCT(SAGUIDInfoRecord, 72, IBA_FIELDS_SAGUIDInfoRecord);
IBA_ATTR_ID(SAGUIDInfoRecord, 0x0030);

// ServiceRecord: each ServiceData element is a component of its own.
#define IBA_SR_DATA8(F, n) F(serviceData8_##n, 896 + 8 * n, 8, Hex)
#define IBA_SR_DATA16(F, n) F(serviceData16_##n, 1024 + 16 * n, 16, Hex)
#define IBA_SR_DATA32(F, n) F(serviceData32_##n, 1152 + 32 * n, 32, Hex)
#define IBA_SR_DATA64(F, n) F(serviceData64_##n, 1280 + 64 * n, 64, Hex)
#define IBA_FIELDS_SAServiceRecord(F, A, S, SA)                                                      \
  F(serviceID, 0, 64, Hex)                                                                           \
  F(serviceGID, 64, 128, Gid)                                                                        \
  F(servicePKey, 192, 16, Hex)                                                                       \
  F(reserved208, 208, 16, Rsv)                                                                       \
  F(serviceLease, 224, 32, Uint)                                                                     \
  F(serviceKey, 256, 128, Bytes)                                                                     \
  F(serviceName, 384, 512, Str)                                                                      \
  IBA_SR_DATA8(F, 0) IBA_SR_DATA8(F, 1) IBA_SR_DATA8(F, 2) IBA_SR_DATA8(F, 3) IBA_SR_DATA8(F, 4)      \
  IBA_SR_DATA8(F, 5) IBA_SR_DATA8(F, 6) IBA_SR_DATA8(F, 7) IBA_SR_DATA8(F, 8) IBA_SR_DATA8(F, 9)      \
  IBA_SR_DATA8(F, 10) IBA_SR_DATA8(F, 11) IBA_SR_DATA8(F, 12) IBA_SR_DATA8(F, 13)                    \
  IBA_SR_DATA8(F, 14) IBA_SR_DATA8(F, 15)                                                            \
  IBA_SR_DATA16(F, 0) IBA_SR_DATA16(F, 1) IBA_SR_DATA16(F, 2) IBA_SR_DATA16(F, 3)                    \
  IBA_SR_DATA16(F, 4) IBA_SR_DATA16(F, 5) IBA_SR_DATA16(F, 6) IBA_SR_DATA16(F, 7)                    \
  IBA_SR_DATA32(F, 0) IBA_SR_DATA32(F, 1) IBA_SR_DATA32(F, 2) IBA_SR_DATA32(F, 3)                    \
  IBA_SR_DATA64(F, 0) IBA_SR_DATA64(F, 1)
IBA_STRUCT(SAServiceRecord, 176, IBA_FIELDS_SAServiceRecord);
IBA_ATTR_ID(SAServiceRecord, 0x0031);

#define IBA_FIELDS_SAPKeyTableRecord(F, A, S, SA) \
  F(LID, 0, 16, Lid)                              \
  F(blockNum, 16, 16, Uint)                       \
  F(portNum, 32, 8, Uint)                         \
  F(reserved40, 40, 24, Rsv)                      \
  S(PKeyTable, 64, SMPPKeyTable)
IBA_STRUCT(SAPKeyTableRecord, 72, IBA_FIELDS_SAPKeyTableRecord);
IBA_ATTR_ID(SAPKeyTableRecord, 0x0033);

// PathRecord: the ServiceID occupies the two components of what were two
// reserved words, so its halves are separate fields (see sa_service_id()).
#define IBA_FIELDS_SAPathRecord(F, A, S, SA) \
  F(serviceIDMSB, 0, 32, Hex)                \
  F(serviceIDLSB, 32, 32, Hex)               \
  F(DGID, 64, 128, Gid)                      \
  F(SGID, 192, 128, Gid)                     \
  F(DLID, 320, 16, Lid)                      \
  F(SLID, 336, 16, Lid)                      \
  F(rawTraffic, 352, 1, Uint)                \
  F(reserved353, 353, 3, Rsv)                \
  F(flowLabel, 356, 20, Hex)                 \
  F(hopLimit, 376, 8, Uint)                  \
  F(TClass, 384, 8, Uint)                    \
  F(reversible, 392, 1, Uint)                \
  F(numbPath, 393, 7, Uint)                  \
  F(PKey, 400, 16, Hex)                      \
  F(QOSClass, 416, 12, Uint)                 \
  F(SL, 428, 4, Uint)                        \
  F(MTUSelector, 432, 2, Uint)               \
  F(MTU, 434, 6, Uint)                       \
  F(rateSelector, 440, 2, Uint)              \
  F(rate, 442, 6, Uint)                      \
  F(packetLifeTimeSelector, 448, 2, Uint)    \
  F(packetLifeTime, 450, 6, Uint)            \
  F(preference, 456, 8, Uint)                \
  F(reserved464, 464, 48, Rsv)
IBA_STRUCT(SAPathRecord, 64, IBA_FIELDS_SAPathRecord);
IBA_ATTR_ID(SAPathRecord, 0x0035);

inline uint64_t sa_service_id(const SAPathRecord& pr) { return (pr.serviceIDMSB() << 32) | pr.serviceIDLSB(); }
inline void sa_set_service_id(SAPathRecord& pr, uint64_t id) {
  pr.set_serviceIDMSB(id >> 32).set_serviceIDLSB(id & 0xffffffffu);
}

#define IBA_FIELDS_SAVLArbitrationTableRecord(F, A, S, SA) \
  F(LID, 0, 16, Lid)                                       \
  F(outputPortNum, 16, 8, Uint)                            \
  F(blockNum, 24, 8, Uint)                                 \
  F(reserved32, 32, 32, Rsv)                               \
  S(VLArbitrationTable, 64, SMPVLArbitrationTable)
IBA_STRUCT(SAVLArbitrationTableRecord, 72, IBA_FIELDS_SAVLArbitrationTableRecord);
IBA_ATTR_ID(SAVLArbitrationTableRecord, 0x0036);

#define IBA_FIELDS_SAMCMemberRecord(F, A, S, SA) \
  F(MGID, 0, 128, Gid)                           \
  F(portGID, 128, 128, Gid)                      \
  F(QKey, 256, 32, Hex)                          \
  F(MLID, 288, 16, Lid)                          \
  F(MTUSelector, 304, 2, Uint)                   \
  F(MTU, 306, 6, Uint)                           \
  F(TClass, 312, 8, Uint)                        \
  F(PKey, 320, 16, Hex)                          \
  F(rateSelector, 336, 2, Uint)                  \
  F(rate, 338, 6, Uint)                          \
  F(packetLifeTimeSelector, 344, 2, Uint)        \
  F(packetLifeTime, 346, 6, Uint)                \
  F(SL, 352, 4, Uint)                            \
  F(flowLabel, 356, 20, Hex)                     \
  F(hopLimit, 376, 8, Uint)                      \
  F(scope, 384, 4, Uint)                         \
  F(joinState, 388, 4, Hex)                      \
  F(proxyJoin, 392, 1, Uint)                     \
  F(reserved393, 393, 23, Rsv)
IBA_STRUCT(SAMCMemberRecord, 52, IBA_FIELDS_SAMCMemberRecord);
IBA_ATTR_ID(SAMCMemberRecord, 0x0038);

#define IBA_FIELDS_SATraceRecord(F, A, S, SA) \
  F(GIDPrefix, 0, 64, Hex)                    \
  F(IDGeneration, 64, 16, Hex)                \
  F(reserved80, 80, 8, Rsv)                   \
  F(nodeType, 88, 8, Uint)                    \
  F(nodeID, 96, 64, Guid)                     \
  F(chassisID, 160, 64, Guid)                 \
  F(entryPortID, 224, 64, Guid)               \
  F(exitPortID, 288, 64, Guid)                \
  F(entryPort, 352, 8, Uint)                  \
  F(exitPort, 360, 8, Uint)
IBA_STRUCT(SATraceRecord, 46, IBA_FIELDS_SATraceRecord);
IBA_ATTR_ID(SATraceRecord, 0x0039);

// MultiPathRecord: SGIDCount source GIDs then DGIDCount destination GIDs
// in SDGID (as many as fit in one SA MAD).
#define IBA_FIELDS_SAMultiPathRecord(F, A, S, SA) \
  F(rawTraffic, 0, 1, Uint)                       \
  F(reserved1, 1, 3, Rsv)                         \
  F(flowLabel, 4, 20, Hex)                        \
  F(hopLimit, 24, 8, Uint)                        \
  F(TClass, 32, 8, Uint)                          \
  F(reversible, 40, 1, Uint)                      \
  F(numbPath, 41, 7, Uint)                        \
  F(PKey, 48, 16, Hex)                            \
  F(QOSClass, 64, 12, Uint)                       \
  F(SL, 76, 4, Uint)                              \
  F(MTUSelector, 80, 2, Uint)                     \
  F(MTU, 82, 6, Uint)                             \
  F(rateSelector, 88, 2, Uint)                    \
  F(rate, 90, 6, Uint)                            \
  F(packetLifeTimeSelector, 96, 2, Uint)          \
  F(packetLifeTime, 98, 6, Uint)                  \
  F(serviceID8MSB, 104, 8, Hex)                   \
  F(independenceSelector, 112, 2, Uint)           \
  F(reserved114, 114, 6, Rsv)                     \
  F(SGIDCount, 120, 8, Uint)                      \
  F(DGIDCount, 128, 8, Uint)                      \
  F(serviceID56LSB, 136, 56, Hex)                 \
  A(SDGID, 192, 128, Gid, 11)
IBA_STRUCT(SAMultiPathRecord, 200, IBA_FIELDS_SAMultiPathRecord);
IBA_ATTR_ID(SAMultiPathRecord, 0x003A);

#define IBA_FIELDS_SAServiceAssociationRecord(F, A, S, SA) \
  F(serviceKey, 0, 128, Bytes)                             \
  F(serviceName, 128, 512, Str)
IBA_STRUCT(SAServiceAssociationRecord, 80, IBA_FIELDS_SAServiceAssociationRecord);
IBA_ATTR_ID(SAServiceAssociationRecord, 0x003B);

#define IBA_FIELDS_SAInformInfoRecord(F, A, S, SA) \
  F(subscriberGID, 0, 128, Gid)                    \
  F(enumeration, 128, 16, Uint)                    \
  F(reserved144, 144, 48, Rsv)                     \
  S(informInfo, 192, MADInformInfo)
IBA_STRUCT(SAInformInfoRecord, 60, IBA_FIELDS_SAInformInfoRecord);
IBA_ATTR_ID(SAInformInfoRecord, 0x00F3);

// PortInfoExtendedRecord (IBA 1.3 15.2.5.x; OpenSM's ib_portinfoext_record_t).
#define IBA_FIELDS_SAPortInfoExtendedRecord(F, A, S, SA) \
  F(endportLID, 0, 16, Lid)                              \
  F(portNum, 16, 8, Uint)                                \
  F(options, 24, 8, Hex)                                 \
  S(portInfoExtended, 32, SMPPortInfoExtended)
IBA_STRUCT(SAPortInfoExtendedRecord, 68, IBA_FIELDS_SAPortInfoExtendedRecord);
IBA_ATTR_ID(SAPortInfoExtendedRecord, 0x003E);

// SA records are laid out in SA MADs and RMPP payloads on 8-byte
// boundaries (IBA 15.2.1.1 AttributeOffset).
template <class T>
constexpr size_t sa_record_stride() {
  return (T::SIZE + 7) / 8 * 8;
}

}  // namespace iba
