// Congestion control (IBA Annex A10): the CC MAD format and its attributes.
#pragma once

#include "iba/sa.h"

namespace iba {

// CC MAD (A10.4.1): header, CC_Key, 32 bytes that only CongestionLog uses
// (its payload starts at CC_LOG_DATA_OFF), then 192 bytes of data.
#define IBA_FIELDS_CCFormat(F, A, S, SA) \
  S(hdr, 0, MADHeader)                   \
  F(CCKey, 192, 64, Hex)                 \
  F(reserved256, 256, 256, Rsv)          \
  F(data, 512, 1536, Bytes)
IBA_STRUCT(CCFormat, 256, IBA_FIELDS_CCFormat);
constexpr uint32_t CC_DATA_OFF = 64;      // bytes, every attribute but CongestionLog
constexpr uint32_t CC_LOG_DATA_OFF = 32;  // bytes, CongestionLog (224 bytes)

// The CC MAD as a CongestionLog uses it: its 224 bytes of data start right
// after the CC_Key.
#define IBA_FIELDS_CCLogFormat(F, A, S, SA) \
  S(hdr, 0, MADHeader)                      \
  F(CCKey, 192, 64, Hex)                    \
  F(data, 256, 1792, Bytes)
IBA_STRUCT(CCLogFormat, 256, IBA_FIELDS_CCLogFormat);

#define IBA_FIELDS_CCCongestionInfo(F, A, S, SA) \
  F(congestionInfo, 0, 16, Hex)                  \
  F(controlTableCap, 16, 8, Uint)                \
  F(reserved24, 24, 8, Rsv)
IBA_STRUCT(CCCongestionInfo, 4, IBA_FIELDS_CCCongestionInfo);
IBA_ATTR_ID(CCCongestionInfo, 0x0011);

#define IBA_FIELDS_CCCongestionKeyInfo(F, A, S, SA) \
  F(CCKey, 0, 64, Hex)                              \
  F(CCKeyProtectBit, 64, 1, Uint)                   \
  F(reserved65, 65, 15, Rsv)                        \
  F(CCKeyLeasePeriod, 80, 16, Uint)                 \
  F(CCKeyViolations, 96, 16, Uint)                  \
  F(reserved112, 112, 16, Rsv)
IBA_STRUCT(CCCongestionKeyInfo, 16, IBA_FIELDS_CCCongestionKeyInfo);
IBA_ATTR_ID(CCCongestionKeyInfo, 0x0012);

// CongestionLog, switch form (logType 1).
#define IBA_FIELDS_CCCongestionEntrySwitch(F, A, S, SA) \
  F(SLID, 0, 16, Lid)                                   \
  F(DLID, 16, 16, Lid)                                  \
  F(SL, 32, 4, Uint)                                    \
  F(reserved36, 36, 28, Rsv)                            \
  F(timestamp, 64, 32, Uint)
IBA_STRUCT(CCCongestionEntrySwitch, 12, IBA_FIELDS_CCCongestionEntrySwitch);
#define IBA_FIELDS_CCCongestionLogSwitch(F, A, S, SA) \
  F(logType, 0, 8, Uint)                              \
  F(congestionFlags, 8, 8, Hex)                       \
  F(logEventsCounter, 16, 16, Uint)                   \
  F(currentTimeStamp, 32, 32, Uint)                   \
  F(portMap, 64, 256, Bytes)                          \
  SA(congestionEntryList, 320, CCCongestionEntrySwitch, 15)
IBA_STRUCT(CCCongestionLogSwitch, 220, IBA_FIELDS_CCCongestionLogSwitch);
IBA_ATTR_ID(CCCongestionLogSwitch, 0x0013);

// CongestionLog, CA form (logType 2).
#define IBA_FIELDS_CCCongestionEntryCA(F, A, S, SA) \
  F(localQPCNEntry, 0, 24, Hex)                     \
  F(SLCNEntry, 24, 4, Uint)                         \
  F(serviceTypeCNEntry, 28, 4, Uint)                \
  F(remoteQPNumberCNEntry, 32, 24, Hex)             \
  F(reserved56, 56, 8, Rsv)                         \
  F(localLIDCN, 64, 16, Lid)                        \
  F(remoteLIDCNEntry, 80, 16, Lid)                  \
  F(timestampCNEntry, 96, 32, Uint)
IBA_STRUCT(CCCongestionEntryCA, 16, IBA_FIELDS_CCCongestionEntryCA);
#define IBA_FIELDS_CCCongestionLogCA(F, A, S, SA) \
  F(logType, 0, 8, Uint)                          \
  F(congestionFlags, 8, 8, Hex)                   \
  F(thresholdEventCounter, 16, 16, Uint)          \
  F(thresholdCongestionEventMap, 32, 16, Hex)     \
  F(reserved48, 48, 16, Rsv)                      \
  F(currentTimeStamp, 64, 32, Uint)               \
  SA(congestionEntryList, 96, CCCongestionEntryCA, 13)
IBA_STRUCT(CCCongestionLogCA, 220, IBA_FIELDS_CCCongestionLogCA);
IBA_ATTR_ID(CCCongestionLogCA, 0x0013);

#define IBA_FIELDS_CCSwitchCongestionSetting(F, A, S, SA) \
  F(controlMap, 0, 32, Hex)                               \
  F(victimMask, 32, 256, Bytes)                           \
  F(creditMask, 288, 256, Bytes)                          \
  F(threshold, 544, 4, Uint)                              \
  F(reserved548, 548, 4, Rsv)                             \
  F(packetSize, 552, 8, Uint)                             \
  F(CSThreshold, 560, 4, Uint)                            \
  F(reserved564, 564, 12, Rsv)                            \
  F(CSReturnDelay, 576, 16, Hex)                          \
  F(markingRate, 592, 16, Uint)
IBA_STRUCT(CCSwitchCongestionSetting, 76, IBA_FIELDS_CCSwitchCongestionSetting);
IBA_ATTR_ID(CCSwitchCongestionSetting, 0x0014);

#define IBA_FIELDS_CCSwitchPortCongestionSettingElement(F, A, S, SA) \
  F(valid, 0, 1, Uint)                                               \
  F(controlType, 1, 1, Uint)                                         \
  F(reserved2, 2, 2, Rsv)                                            \
  F(threshold, 4, 4, Uint)                                           \
  F(packetSize, 8, 8, Uint)                                          \
  F(congParmMarkingRate, 16, 16, Uint)
IBA_STRUCT(CCSwitchPortCongestionSettingElement, 4, IBA_FIELDS_CCSwitchPortCongestionSettingElement);
#define IBA_FIELDS_CCSwitchPortCongestionSetting(F, A, S, SA) \
  SA(block, 0, CCSwitchPortCongestionSettingElement, 32)
IBA_STRUCT(CCSwitchPortCongestionSetting, 128, IBA_FIELDS_CCSwitchPortCongestionSetting);
IBA_ATTR_ID(CCSwitchPortCongestionSetting, 0x0015);

#define IBA_FIELDS_CCCACongestionEntry(F, A, S, SA) \
  F(CCTITimer, 0, 16, Uint)                         \
  F(CCTIIncrease, 16, 8, Uint)                      \
  F(triggerThreshold, 24, 8, Uint)                  \
  F(CCTIMin, 32, 8, Uint)                           \
  F(reserved40, 40, 24, Rsv)
IBA_STRUCT(CCCACongestionEntry, 8, IBA_FIELDS_CCCACongestionEntry);
#define IBA_FIELDS_CCCACongestionSetting(F, A, S, SA) \
  F(portControl, 0, 16, Hex)                          \
  F(controlMap, 16, 16, Hex)                          \
  SA(block, 32, CCCACongestionEntry, 16)
IBA_STRUCT(CCCACongestionSetting, 132, IBA_FIELDS_CCCACongestionSetting);
IBA_ATTR_ID(CCCACongestionSetting, 0x0016);

#define IBA_FIELDS_CCCongestionControlTableEntry(F, A, S, SA) \
  F(CCTShift, 0, 2, Uint)                                     \
  F(CCTMultiplier, 2, 14, Uint)
IBA_STRUCT(CCCongestionControlTableEntry, 2, IBA_FIELDS_CCCongestionControlTableEntry);
#define IBA_FIELDS_CCCongestionControlTable(F, A, S, SA) \
  F(CCTILimit, 0, 16, Uint)                              \
  F(reserved16, 16, 16, Rsv)                             \
  SA(block, 32, CCCongestionControlTableEntry, 64)
IBA_STRUCT(CCCongestionControlTable, 132, IBA_FIELDS_CCCongestionControlTable);
IBA_ATTR_ID(CCCongestionControlTable, 0x0017);

#define IBA_FIELDS_CCTimeStamp(F, A, S, SA) F(timestamp, 0, 32, Uint)
IBA_STRUCT(CCTimeStamp, 4, IBA_FIELDS_CCTimeStamp);
IBA_ATTR_ID(CCTimeStamp, 0x0018);

}  // namespace iba
