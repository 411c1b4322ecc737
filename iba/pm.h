// Performance management (IBA 16.1): the PM MAD format and the
// PerformanceGet/Set attributes, including the extended and congestion
// counters of later IBA releases and annexes.
#pragma once

#include "iba/sa.h"

namespace iba {

// PM MAD (IBA 16.1.1): the common header, 40 reserved bytes, 192 bytes of data.
#define IBA_FIELDS_PMFormat(F, A, S, SA) \
  S(hdr, 0, MADHeader)                   \
  F(reserved192, 192, 320, Rsv)          \
  F(data, 512, 1536, Bytes)
IBA_STRUCT(PMFormat, 256, IBA_FIELDS_PMFormat);

// The PM class's ClassPortInfo CapabilityMask bits (IBA 16.1.2 and the
// annexes) and CapabilityMask2 bits: what a PMA answers beyond PortCounters.
namespace pm_cap {
constexpr uint16_t ALL_PORT_SELECT = 1 << 8;                           // IsAllPortSelectSupported: port 0xff sums every port
constexpr uint16_t EXT_WIDTH = enums::PM_CAP_EXT_WIDTH;                // IsExtendedWidthSupported: PortCountersExtended
constexpr uint16_t EXT_WIDTH_NOIETF = enums::PM_CAP_EXT_WIDTH_NOIETF;  // IsExtendedWidthSupportedNoIETF: its data counters only
constexpr uint16_t XMIT_WAIT = enums::PM_CAP_XMIT_WAIT;                // IsPortXmitWaitSupported
constexpr uint16_t QP1_DROPPED = enums::PM_CAP_QP1_DROPPED;            // IsQP1DroppedSupported
}  // namespace pm_cap
namespace pm_cap2 {
constexpr uint32_t PM_KEY = 1 << 0;                                                  // IsPMKeySupported
constexpr uint32_t ADDL_PORT_COUNTERS_EXT = enums::PM_CAP2_ADDL_PORT_COUNTERS_EXT;  // IsAdditionalPortCountersExtendedSupported
}  // namespace pm_cap2

// PortSamplesControl (IBA 16.1.3.2).
#define IBA_FIELDS_PMPortSamplesControl(F, A, S, SA) \
  F(opCode, 0, 8, Uint)                              \
  F(portSelect, 8, 8, Uint)                          \
  F(tick, 16, 8, Uint)                               \
  F(reserved24, 24, 5, Rsv)                          \
  F(counterWidth, 29, 3, Uint)                       \
  F(reserved32, 32, 2, Rsv)                          \
  F(counterMask0, 34, 3, Hex)                        \
  F(counterMasks1to9, 37, 27, Hex)                   \
  F(reserved64, 64, 1, Rsv)                          \
  F(counterMasks10to14, 65, 15, Hex)                 \
  F(sampleMechanisms, 80, 8, Uint)                   \
  F(reserved88, 88, 6, Rsv)                          \
  F(sampleStatus, 94, 2, Uint)                       \
  F(optionMask, 96, 64, Hex)                         \
  F(vendorMask, 160, 64, Hex)                        \
  F(sampleStart, 224, 32, Uint)                      \
  F(sampleInterval, 256, 32, Uint)                   \
  F(tag, 288, 16, Hex)                               \
  A(counterSelect, 304, 16, Hex, 15)                 \
  F(reserved544, 544, 32, Rsv)                       \
  F(samplesOnlyOptionMask, 576, 64, Hex)             \
  F(reserved640, 640, 896, Rsv)
IBA_STRUCT(PMPortSamplesControl, 192, IBA_FIELDS_PMPortSamplesControl);
IBA_ATTR_ID(PMPortSamplesControl, 0x0010);

// PortSamplesResult (IBA 16.1.3.3).
#define IBA_FIELDS_PMPortSamplesResult(F, A, S, SA) \
  F(tag, 0, 16, Hex)                                \
  F(reserved16, 16, 14, Rsv)                        \
  F(sampleStatus, 30, 2, Uint)                      \
  A(counter, 32, 32, Uint, 15)
IBA_STRUCT(PMPortSamplesResult, 64, IBA_FIELDS_PMPortSamplesResult);
IBA_ATTR_ID(PMPortSamplesResult, 0x0011);

// PortCounters (IBA 16.1.3.5); PortXmitWait and QP1Dropped are valid where
// the PMA's ClassPortInfo.CapabilityMask announces them.
#define IBA_FIELDS_PMPortCounters(F, A, S, SA)    \
  F(reserved0, 0, 8, Rsv)                         \
  F(portSelect, 8, 8, Uint)                       \
  F(counterSelect, 16, 16, Hex)                   \
  F(symbolErrorCounter, 32, 16, Uint)             \
  F(linkErrorRecoveryCounter, 48, 8, Uint)        \
  F(linkDownedCounter, 56, 8, Uint)               \
  F(portRcvErrors, 64, 16, Uint)                  \
  F(portRcvRemotePhysicalErrors, 80, 16, Uint)    \
  F(portRcvSwitchRelayErrors, 96, 16, Uint)       \
  F(portXmitDiscards, 112, 16, Uint)              \
  F(portXmitConstraintErrors, 128, 8, Uint)       \
  F(portRcvConstraintErrors, 136, 8, Uint)        \
  F(counterSelect2, 144, 8, Hex)                  \
  F(localLinkIntegrityErrors, 152, 4, Uint)       \
  F(excessiveBufferOverrunErrors, 156, 4, Uint)   \
  F(QP1Dropped, 160, 16, Uint, IF_PM_QP1_DROPPED) \
  F(VL15Dropped, 176, 16, Uint)                   \
  F(portXmitData, 192, 32, Uint)                  \
  F(portRcvData, 224, 32, Uint)                   \
  F(portXmitPkts, 256, 32, Uint)                  \
  F(portRcvPkts, 288, 32, Uint)                   \
  F(portXmitWait, 320, 32, Uint, IF_PM_XMIT_WAIT)
IBA_STRUCT(PMPortCounters, 44, IBA_FIELDS_PMPortCounters);
IBA_ATTR_ID(PMPortCounters, 0x0012);

// PortRcvErrorDetails (IBA 16.1.4.1).
#define IBA_FIELDS_PMPortRcvErrorDetails(F, A, S, SA) \
  F(reserved0, 0, 8, Rsv)                             \
  F(portSelect, 8, 8, Uint)                           \
  F(counterSelect, 16, 16, Hex)                       \
  F(portLocalPhysicalErrors, 32, 16, Uint)            \
  F(portMalformedPacketErrors, 48, 16, Uint)          \
  F(portBufferOverrunErrors, 64, 16, Uint)            \
  F(portDLIDMappingErrors, 80, 16, Uint)              \
  F(portVLMappingErrors, 96, 16, Uint)                \
  F(portLoopingErrors, 112, 16, Uint)
IBA_STRUCT(PMPortRcvErrorDetails, 16, IBA_FIELDS_PMPortRcvErrorDetails);
IBA_ATTR_ID(PMPortRcvErrorDetails, 0x0015);

// PortXmitDiscardDetails (IBA 16.1.4.2).
#define IBA_FIELDS_PMPortXmitDiscardDetails(F, A, S, SA) \
  F(reserved0, 0, 8, Rsv)                                \
  F(portSelect, 8, 8, Uint)                              \
  F(counterSelect, 16, 16, Hex)                          \
  F(portInactiveDiscards, 32, 16, Uint)                  \
  F(portNeighborMTUDiscards, 48, 16, Uint)               \
  F(portSwLifetimeLimitDiscards, 64, 16, Uint)           \
  F(portSwHOQLifetimeLimitDiscards, 80, 16, Uint)
IBA_STRUCT(PMPortXmitDiscardDetails, 12, IBA_FIELDS_PMPortXmitDiscardDetails);
IBA_ATTR_ID(PMPortXmitDiscardDetails, 0x0016);

// PortOpRcvCounters (IBA 16.1.4.3).
#define IBA_FIELDS_PMPortOpRcvCounters(F, A, S, SA) \
  F(opCode, 0, 8, Uint)                             \
  F(portSelect, 8, 8, Uint)                         \
  F(counterSelect, 16, 16, Hex)                     \
  F(portOpRcvPkts, 32, 32, Uint)                    \
  F(portOpRcvData, 64, 32, Uint)
IBA_STRUCT(PMPortOpRcvCounters, 12, IBA_FIELDS_PMPortOpRcvCounters);
IBA_ATTR_ID(PMPortOpRcvCounters, 0x0017);

// PortFlowCtlCounters (IBA 16.1.4.4).
#define IBA_FIELDS_PMPortFlowCtlCounters(F, A, S, SA) \
  F(reserved0, 0, 8, Rsv)                             \
  F(portSelect, 8, 8, Uint)                           \
  F(counterSelect, 16, 16, Hex)                       \
  F(portXmitFlowPkts, 32, 32, Uint)                   \
  F(portRcvFlowPkts, 64, 32, Uint)
IBA_STRUCT(PMPortFlowCtlCounters, 12, IBA_FIELDS_PMPortFlowCtlCounters);
IBA_ATTR_ID(PMPortFlowCtlCounters, 0x0018);

// PortVLOpPackets (IBA 16.1.4.5).
#define IBA_FIELDS_PMPortVLOpPackets(F, A, S, SA) \
  F(opCode, 0, 8, Uint)                           \
  F(portSelect, 8, 8, Uint)                       \
  F(counterSelect, 16, 16, Hex)                   \
  A(portVLOpPackets, 32, 16, Uint, 16)
IBA_STRUCT(PMPortVLOpPackets, 36, IBA_FIELDS_PMPortVLOpPackets);
IBA_ATTR_ID(PMPortVLOpPackets, 0x0019);

// PortVLOpData (IBA 16.1.4.6).
#define IBA_FIELDS_PMPortVLOpData(F, A, S, SA) \
  F(opCode, 0, 8, Uint)                        \
  F(portSelect, 8, 8, Uint)                    \
  F(counterSelect, 16, 16, Hex)                \
  A(portVLOpData, 32, 32, Uint, 16)
IBA_STRUCT(PMPortVLOpData, 68, IBA_FIELDS_PMPortVLOpData);
IBA_ATTR_ID(PMPortVLOpData, 0x001A);

// PortVLXmitFlowCtlUpdateErrors (IBA 16.1.4.7).
#define IBA_FIELDS_PMPortVLXmitFlowCtlUpdateErrors(F, A, S, SA) \
  F(reserved0, 0, 8, Rsv)                                       \
  F(portSelect, 8, 8, Uint)                                     \
  F(counterSelect, 16, 16, Hex)                                 \
  A(portVLXmitFlowCtlUpdateErrors, 32, 2, Uint, 16)
IBA_STRUCT(PMPortVLXmitFlowCtlUpdateErrors, 8, IBA_FIELDS_PMPortVLXmitFlowCtlUpdateErrors);
IBA_ATTR_ID(PMPortVLXmitFlowCtlUpdateErrors, 0x001B);

// PortVLXmitWaitCounters (IBA 16.1.4.8).
#define IBA_FIELDS_PMPortVLXmitWaitCounters(F, A, S, SA) \
  F(reserved0, 0, 8, Rsv)                                \
  F(portSelect, 8, 8, Uint)                              \
  F(counterSelect, 16, 16, Hex)                          \
  A(portVLXmitWait, 32, 16, Uint, 16)
IBA_STRUCT(PMPortVLXmitWaitCounters, 36, IBA_FIELDS_PMPortVLXmitWaitCounters);
IBA_ATTR_ID(PMPortVLXmitWaitCounters, 0x001C);

// PortCountersExtended (IBA 16.1.4.11): the data counters are valid with
// IsExtendedWidthSupported or its NoIETF form, the unicast and multicast
// packet counters with the first only; the error counters from bit 576 on
// when ClassPortInfo.CapabilityMask2 announces them (PortXmitWait and
// QP1Dropped also need their own CapabilityMask bits, as in PortCounters).
#define IBA_FIELDS_PMPortCountersExtended(F, A, S, SA) \
  F(reserved0, 0, 8, Rsv)                              \
  F(portSelect, 8, 8, Uint)                            \
  F(counterSelect, 16, 16, Hex)                        \
  F(counterSelect2, 32, 32, Hex)                       \
  F(portXmitData, 64, 64, Uint, IF_PM_EXT_DATA)              \
  F(portRcvData, 128, 64, Uint, IF_PM_EXT_DATA)              \
  F(portXmitPkts, 192, 64, Uint, IF_PM_EXT_DATA)             \
  F(portRcvPkts, 256, 64, Uint, IF_PM_EXT_DATA)              \
  F(portUnicastXmitPkts, 320, 64, Uint, IF_PM_EXT_WIDTH)     \
  F(portUnicastRcvPkts, 384, 64, Uint, IF_PM_EXT_WIDTH)      \
  F(portMulticastXmitPkts, 448, 64, Uint, IF_PM_EXT_WIDTH)   \
  F(portMulticastRcvPkts, 512, 64, Uint, IF_PM_EXT_WIDTH)    \
  F(symbolErrorCounter, 576, 64, Uint, IF_PM_ADDL_EXT)       \
  F(linkErrorRecoveryCounter, 640, 64, Uint, IF_PM_ADDL_EXT) \
  F(linkDownedCounter, 704, 64, Uint, IF_PM_ADDL_EXT)        \
  F(portRcvErrors, 768, 64, Uint, IF_PM_ADDL_EXT)            \
  F(portRcvRemotePhysicalErrors, 832, 64, Uint, IF_PM_ADDL_EXT) \
  F(portRcvSwitchRelayErrors, 896, 64, Uint, IF_PM_ADDL_EXT) \
  F(portXmitDiscards, 960, 64, Uint, IF_PM_ADDL_EXT)         \
  F(portXmitConstraintErrors, 1024, 64, Uint, IF_PM_ADDL_EXT) \
  F(portRcvConstraintErrors, 1088, 64, Uint, IF_PM_ADDL_EXT) \
  F(localLinkIntegrityErrors, 1152, 64, Uint, IF_PM_ADDL_EXT) \
  F(excessiveBufferOverrunErrors, 1216, 64, Uint, IF_PM_ADDL_EXT) \
  F(VL15Dropped, 1280, 64, Uint, IF_PM_ADDL_EXT)             \
  F(portXmitWait, 1344, 64, Uint, IF_PM_ADDL_EXT_XMIT_WAIT)  \
  F(QP1Dropped, 1408, 64, Uint, IF_PM_ADDL_EXT_QP1_DROPPED)
IBA_STRUCT(PMPortCountersExtended, 184, IBA_FIELDS_PMPortCountersExtended);
IBA_ATTR_ID(PMPortCountersExtended, 0x001D);

// PortSamplesResultExtended (IBA 16.1.4.10).
#define IBA_FIELDS_PMPortSamplesResultExtended(F, A, S, SA) \
  F(tag, 0, 16, Hex)                                        \
  F(reserved16, 16, 14, Rsv)                                \
  F(sampleStatus, 30, 2, Uint)                              \
  F(extendedWidth, 32, 2, Uint)                             \
  F(reserved34, 34, 30, Rsv)                                \
  A(counter, 64, 64, Uint, 15)
IBA_STRUCT(PMPortSamplesResultExtended, 128, IBA_FIELDS_PMPortSamplesResultExtended);
IBA_ATTR_ID(PMPortSamplesResultExtended, 0x001E);

// PortExtendedSpeedsCounters (IBA 16.1.4.13, FDR/EDR lanes).
#define IBA_FIELDS_PMPortExtendedSpeedsCounters(F, A, S, SA) \
  F(reserved0, 0, 8, Rsv)                                    \
  F(portSelect, 8, 8, Uint)                                  \
  F(reserved16, 16, 48, Rsv)                                 \
  F(counterSelect, 64, 64, Hex)                              \
  F(syncHeaderErrorCounter, 128, 16, Uint)                   \
  F(unknownBlockCounter, 144, 16, Uint)                      \
  A(errorDetectionCounterLane, 160, 16, Uint, 12)            \
  A(FECCorrectableBlockCounterLane, 352, 32, Uint, 12)       \
  A(FECUncorrectableBlockCounterLane, 736, 32, Uint, 12)     \
  F(portFECCorrectableBlockCounter, 1120, 32, Uint)          \
  F(portFECUncorrectableBlockCounter, 1152, 32, Uint)        \
  F(portFECCorrectedSymbolCounter, 1184, 32, Uint)
IBA_STRUCT(PMPortExtendedSpeedsCounters, 152, IBA_FIELDS_PMPortExtendedSpeedsCounters);
IBA_ATTR_ID(PMPortExtendedSpeedsCounters, 0x001F);

// The RS-FEC form of PortExtendedSpeedsCounters (same attribute ID, used
// when PortInfo reports RS-FEC active): per-lane corrected symbols instead
// of FEC blocks.
#define IBA_FIELDS_PMPortExtendedSpeedsCountersRSFEC(F, A, S, SA) \
  F(reserved0, 0, 8, Rsv)                                         \
  F(portSelect, 8, 8, Uint)                                       \
  F(reserved16, 16, 48, Rsv)                                      \
  F(counterSelect, 64, 64, Hex)                                   \
  F(syncHeaderErrorCounter, 128, 16, Uint, IF_PM_RSFEC)                        \
  F(unknownBlockCounter, 144, 16, Uint, IF_PM_RSFEC)                           \
  F(reserved160, 160, 192, Rsv)                                   \
  A(FECCorrectableSymbolCounterLane, 352, 32, Uint, 12, IF_PM_RSFEC)           \
  F(reserved736, 736, 384, Rsv)                                   \
  F(portFECCorrectableBlockCounter, 1120, 32, Uint, IF_PM_RSFEC)               \
  F(portFECUncorrectableBlockCounter, 1152, 32, Uint, IF_PM_RSFEC)             \
  F(portFECCorrectedSymbolCounter, 1184, 32, Uint, IF_PM_RSFEC)
IBA_STRUCT(PMPortExtendedSpeedsCountersRSFEC, 152, IBA_FIELDS_PMPortExtendedSpeedsCountersRSFEC);
IBA_ATTR_ID(PMPortExtendedSpeedsCountersRSFEC, 0x001F);

// Congestion control annex counters (IBA A10.2).
#define IBA_FIELDS_PMSwPortVLCongestion(F, A, S, SA) \
  F(reserved0, 0, 8, Rsv)                            \
  F(portSelect, 8, 8, Uint)                          \
  F(counterSelect, 16, 16, Hex)                      \
  A(swPortVLCongestion, 32, 16, Uint, 16)
IBA_STRUCT(PMSwPortVLCongestion, 36, IBA_FIELDS_PMSwPortVLCongestion);
IBA_ATTR_ID(PMSwPortVLCongestion, 0x0030);

#define IBA_FIELDS_PMPortRcvConCtrl(F, A, S, SA) \
  F(reserved0, 0, 8, Rsv)                        \
  F(portSelect, 8, 8, Uint)                      \
  F(counterSelect, 16, 16, Hex)                  \
  F(portPktRcvFECN, 32, 32, Uint)                \
  F(portPktRcvBECN, 64, 32, Uint)
IBA_STRUCT(PMPortRcvConCtrl, 12, IBA_FIELDS_PMPortRcvConCtrl);
IBA_ATTR_ID(PMPortRcvConCtrl, 0x0031);

#define IBA_FIELDS_PMPortSLRcvFECN(F, A, S, SA) \
  F(reserved0, 0, 8, Rsv)                       \
  F(portSelect, 8, 8, Uint)                     \
  F(counterSelect, 16, 16, Hex)                 \
  A(portSLRcvFECN, 32, 32, Uint, 16)
IBA_STRUCT(PMPortSLRcvFECN, 68, IBA_FIELDS_PMPortSLRcvFECN);
IBA_ATTR_ID(PMPortSLRcvFECN, 0x0032);

#define IBA_FIELDS_PMPortSLRcvBECN(F, A, S, SA) \
  F(reserved0, 0, 8, Rsv)                       \
  F(portSelect, 8, 8, Uint)                     \
  F(counterSelect, 16, 16, Hex)                 \
  A(portSLRcvBECN, 32, 32, Uint, 16)
IBA_STRUCT(PMPortSLRcvBECN, 68, IBA_FIELDS_PMPortSLRcvBECN);
IBA_ATTR_ID(PMPortSLRcvBECN, 0x0033);

#define IBA_FIELDS_PMPortXmitConCtrl(F, A, S, SA) \
  F(reserved0, 0, 8, Rsv)                         \
  F(portSelect, 8, 8, Uint)                       \
  F(counterSelect, 16, 16, Hex)                   \
  F(portXmitTimeCong, 32, 32, Uint)
IBA_STRUCT(PMPortXmitConCtrl, 8, IBA_FIELDS_PMPortXmitConCtrl);
IBA_ATTR_ID(PMPortXmitConCtrl, 0x0034);

#define IBA_FIELDS_PMPortVLXmitTimeCong(F, A, S, SA) \
  F(reserved0, 0, 8, Rsv)                            \
  F(portSelect, 8, 8, Uint)                          \
  F(counterSelect, 16, 16, Hex)                      \
  A(portVLXmitTimeCong, 32, 32, Uint, 15)
IBA_STRUCT(PMPortVLXmitTimeCong, 64, IBA_FIELDS_PMPortVLXmitTimeCong);
IBA_ATTR_ID(PMPortVLXmitTimeCong, 0x0035);

// Per-SL data counters (PortXmitDataSL / PortRcvDataSL, IBA A13).
#define IBA_FIELDS_PMPortXmitDataSL(F, A, S, SA) \
  F(reserved0, 0, 8, Rsv)                        \
  F(portSelect, 8, 8, Uint)                      \
  F(counterSelect, 16, 16, Hex)                  \
  A(portXmitDataSL, 32, 32, Uint, 16)
IBA_STRUCT(PMPortXmitDataSL, 68, IBA_FIELDS_PMPortXmitDataSL);
IBA_ATTR_ID(PMPortXmitDataSL, 0x0036);

#define IBA_FIELDS_PMPortRcvDataSL(F, A, S, SA) \
  F(reserved0, 0, 8, Rsv)                       \
  F(portSelect, 8, 8, Uint)                     \
  F(counterSelect, 16, 16, Hex)                 \
  A(portRcvDataSL, 32, 32, Uint, 16)
IBA_STRUCT(PMPortRcvDataSL, 68, IBA_FIELDS_PMPortRcvDataSL);
IBA_ATTR_ID(PMPortRcvDataSL, 0x0037);

}  // namespace iba
