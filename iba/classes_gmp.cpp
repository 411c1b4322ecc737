// The GMP classes and their attribute tables (SA, PM, CC, vendor, DevMgt,
// BM, SNMP, CM), with the request methods the IBA allows for each.
#include "iba/bm.h"
#include "iba/cc.h"
#include "iba/cm.h"
#include "iba/devmgt.h"
#include "iba/mad.h"
#include "iba/pm.h"
#include "iba/sa.h"
#include "iba/snmp.h"
#include "iba/vendor.h"

namespace iba {

namespace {

// Record queries: Get/GetTable always, Set/Delete where the SA allows
// changing the record (IBA 15.2.5 Table 202).
constexpr uint32_t M_REC = M_GET | M_GET_TABLE;

constexpr AttrDesc SA_ATTRS[] = {
    IBA_ATTR(MADClassPortInfo, M_GET),
    IBA_ATTR(MADNotice, M_REPORT),
    IBA_ATTR(MADInformInfo, M_SET),
    IBA_ATTR(SANodeRecord, M_REC),
    IBA_ATTR(SAPortInfoRecord, M_REC),
    IBA_ATTR(SASLToVLMappingTableRecord, M_REC),
    IBA_ATTR(SASwitchInfoRecord, M_REC),
    IBA_ATTR(SALinearForwardingTableRecord, M_REC),
    IBA_ATTR(SARandomForwardingTableRecord, M_REC),
    IBA_ATTR(SAMulticastForwardingTableRecord, M_REC),
    IBA_ATTR(SASMInfoRecord, M_REC),
    IBA_ATTR(SALinkRecord, M_REC),
    IBA_ATTR(SAGUIDInfoRecord, M_REC | M_SET | M_DELETE),
    IBA_ATTR(SAServiceRecord, M_REC | M_SET | M_DELETE),
    IBA_ATTR(SAPKeyTableRecord, M_REC),
    IBA_ATTR(SAPathRecord, M_REC),
    IBA_ATTR(SAVLArbitrationTableRecord, M_REC),
    IBA_ATTR(SAMCMemberRecord, M_REC | M_SET | M_DELETE),
    IBA_ATTR(SATraceRecord, M_GET_TRACE_TABLE),
    IBA_ATTR(SAMultiPathRecord, M_GET_MULTI),
    IBA_ATTR(SAServiceAssociationRecord, M_REC),
    IBA_ATTR(SAInformInfoRecord, M_REC),
    IBA_ATTR(SAPortInfoExtendedRecord, M_REC),
};

constexpr AttrDesc PM_ATTRS[] = {
    IBA_ATTR(MADClassPortInfo, M_GET),
    IBA_ATTR(PMPortSamplesControl, M_GET | M_SET),
    IBA_ATTR(PMPortSamplesResult, M_GET),
    IBA_ATTR(PMPortCounters, M_GET | M_SET),
    IBA_ATTR(PMPortRcvErrorDetails, M_GET | M_SET),
    IBA_ATTR(PMPortXmitDiscardDetails, M_GET | M_SET),
    IBA_ATTR(PMPortOpRcvCounters, M_GET | M_SET),
    IBA_ATTR(PMPortFlowCtlCounters, M_GET | M_SET),
    IBA_ATTR(PMPortVLOpPackets, M_GET | M_SET),
    IBA_ATTR(PMPortVLOpData, M_GET | M_SET),
    IBA_ATTR(PMPortVLXmitFlowCtlUpdateErrors, M_GET | M_SET),
    IBA_ATTR(PMPortVLXmitWaitCounters, M_GET | M_SET),
    IBA_ATTR(PMPortCountersExtended, M_GET | M_SET),
    IBA_ATTR(PMPortSamplesResultExtended, M_GET),
    IBA_ATTR(PMPortExtendedSpeedsCounters, M_GET | M_SET),
    IBA_ATTR(PMSwPortVLCongestion, M_GET | M_SET),
    IBA_ATTR(PMPortRcvConCtrl, M_GET | M_SET),
    IBA_ATTR(PMPortSLRcvFECN, M_GET | M_SET),
    IBA_ATTR(PMPortSLRcvBECN, M_GET | M_SET),
    IBA_ATTR(PMPortXmitConCtrl, M_GET | M_SET),
    IBA_ATTR(PMPortVLXmitTimeCong, M_GET | M_SET),
    IBA_ATTR(PMPortXmitDataSL, M_GET | M_SET),
    IBA_ATTR(PMPortRcvDataSL, M_GET | M_SET),
};

// PortExtendedSpeedsCounters has an RS-FEC form (IBA 16.1.4.13, libibmad's
// IB_PESC_RSFEC_*): same ID, used when the port runs RS-FEC, which only
// the port's PortInfo tells, not the payload.
constexpr AttrDesc PM_VARIANTS[] = {
    IBA_VARIANT(PMPortExtendedSpeedsCountersRSFEC, M_GET | M_SET, nullptr),
};

constexpr AttrDesc CC_ATTRS[] = {
    IBA_ATTR(MADClassPortInfo, M_GET),
    IBA_ATTR(MADNotice, M_TRAP),
    IBA_ATTR(CCCongestionInfo, M_GET),
    IBA_ATTR(CCCongestionKeyInfo, M_GET | M_SET),
    IBA_ATTR(CCCongestionLogSwitch, M_GET),
    IBA_ATTR(CCSwitchCongestionSetting, M_GET | M_SET),
    IBA_ATTR(CCSwitchPortCongestionSetting, M_GET | M_SET),
    IBA_ATTR(CCCACongestionSetting, M_GET | M_SET),
    IBA_ATTR(CCCongestionControlTable, M_GET | M_SET),
    IBA_ATTR(CCTimeStamp, M_GET),
};

// CongestionLog of a CA: its logType says so (1 switch, 2 CA).
bool is_ca_log(std::span<const uint8_t> p) { return !p.empty() && p[0] == 2; }
constexpr AttrDesc CC_VARIANTS[] = {
    IBA_VARIANT(CCCongestionLogCA, M_GET, is_ca_log),
};

constexpr AttrDesc DM_ATTRS[] = {
    IBA_ATTR(MADClassPortInfo, M_GET | M_SET),
    IBA_ATTR(MADNotice, M_TRAP),
    IBA_ATTR(DMIOUnitInfo, M_GET),
    IBA_ATTR(DMIOControllerProfile, M_GET),
    IBA_ATTR(DMServiceEntries, M_GET),
    IBA_ATTR(DMDiagnosticTimeout, M_GET),
    IBA_ATTR(DMDiagCode, M_GET),
};

constexpr AttrDesc BM_ATTRS[] = {
    IBA_ATTR(MADClassPortInfo, M_GET | M_SET),
    IBA_ATTR(MADNotice, M_TRAP),
    IBA_ATTR(BMBKeyInfo, M_GET | M_SET),
};

constexpr AttrDesc SNMP_ATTRS[] = {
    IBA_ATTR(MADClassPortInfo, M_GET | M_SET),
    IBA_ATTR(SNMPCommunityInfo, M_GET),
    IBA_ATTR(SNMPPduInfo, M_GET),
};

// CM messages are all sent with ComMgtSend.
constexpr AttrDesc CM_ATTRS[] = {
    IBA_ATTR(MADClassPortInfo, M_GET | M_SET),
    IBA_ATTR(CMREQ, M_SEND),      IBA_ATTR(CMMRA, M_SEND),      IBA_ATTR(CMREJ, M_SEND),
    IBA_ATTR(CMREP, M_SEND),      IBA_ATTR(CMRTU, M_SEND),      IBA_ATTR(CMDREQ, M_SEND),
    IBA_ATTR(CMDREP, M_SEND),     IBA_ATTR(CMSIDR_REQ, M_SEND), IBA_ATTR(CMSIDR_REP, M_SEND),
    IBA_ATTR(CMLAP, M_SEND),      IBA_ATTR(CMAPR, M_SEND),
};

constexpr AttrDesc OFA_PING_ATTRS[] = {
    IBA_ATTR(OFAPing, M_GET),
};

constexpr AttrDesc OFA_SYSSTAT_ATTRS[] = {
    IBA_ATTR(OFASysStatPing, M_GET),
    IBA_ATTR(OFASysStatHostInfo, M_GET),
    IBA_ATTR(OFASysStatCPUInfo, M_GET),
};

constexpr AttrDesc MLX_ATTRS[] = {
    IBA_ATTR(MLXGeneralInfo, M_GET),
    IBA_ATTR(MLXConfigSpaceAccess, M_GET | M_SET),
    IBA_ATTR(MLXCounterGroupInfo, M_GET),
    IBA_ATTR(MLXConfigCounterGroups, M_GET | M_SET),
};

// GeneralInfo of a device without the extended firmware version (IS3).
bool is_is3_general_info(std::span<const uint8_t> p) {
  MLXGeneralInfoIS3 g;
  g.load(p);
  return p.size() >= 12 && !mlx_ext_fw_info(uint16_t(g.hwDeviceID()));
}
constexpr AttrDesc MLX_VARIANTS[] = {
    IBA_VARIANT(MLXGeneralInfoIS3, M_GET, is_is3_general_info),
};

constexpr ClassDesc SA{"SAFormat", mgmt::SUBN_ADM, 2, &SAFormat::DESC, 56, 200, SA_ATTRS};
constexpr ClassDesc PM{"PMFormat", mgmt::PERF, 1, &PMFormat::DESC, 64, 192, PM_ATTRS, PM_VARIANTS};
constexpr ClassDesc CC{"CCFormat", mgmt::CC, 2, &CCFormat::DESC, CC_DATA_OFF, 192, CC_ATTRS, CC_VARIANTS};

constexpr ClassDesc DM{"DevMgtFormat", mgmt::DEV_MGT, 1, &DevMgtFormat::DESC, 64, 192, DM_ATTRS};
constexpr ClassDesc BM{"BMFormat", mgmt::BM, 1, &BMFormat::DESC, 64, 192, BM_ATTRS};
constexpr ClassDesc SNMP{"SNMPFormat", mgmt::SNMP, 1, &SNMPFormat::DESC, 64, 192, SNMP_ATTRS};
constexpr ClassDesc CM{"CMFormat", mgmt::COM_MGT, 2, &CMFormat::DESC, 24, 232, CM_ATTRS};
constexpr ClassDesc OFA_PING{"VendOUIFormat", OFA_PING_CLASS, 1, &VendOUIFormat::DESC, 40, 216, OFA_PING_ATTRS};
constexpr ClassDesc OFA_SYSSTAT{"VendOUIFormat", OFA_SYSSTAT_CLASS, 1, &VendOUIFormat::DESC, 40, 216,
                                OFA_SYSSTAT_ATTRS};
constexpr ClassDesc MLX{"VendorFormat", MLX_VENDOR_CLASS, 1, &VendorFormat::DESC, 24, 232, MLX_ATTRS,
                        MLX_VARIANTS};

constexpr const ClassDesc* CLASSES[] = {&SA, &PM, &CC, &DM, &BM, &SNMP, &CM, &OFA_PING, &OFA_SYSSTAT, &MLX};

// Device ID ranges whose GeneralInfo has the extended firmware version, as
// the reference vendstat lists them.
constexpr uint16_t MLX_EXT_FW_DEVICES[][2] = {
    {0x0245, 0x0245}, {0xc738, 0xc73b}, {0xcb20, 0xcb20}, {0xcf08, 0xcf08}, {0xd2f0, 0xd2f0},
    {0x01b3, 0x01b3}, {0x1003, 0x101b}, {0xa2d2, 0xa2d2}, {0x1b02, 0x1b02}, {0x1b50, 0x1b50},
    {0x1ba0, 0x1ba0}, {0x1bd0, 0x1bd5}, {0x1bf0, 0x1bf0}, {0x1b33, 0x1b33}, {0x1b73, 0x1b73},
    {0x1b40, 0x1b41}, {0x1b60, 0x1b61}, {0x1b83, 0x1b83}, {0x1b93, 0x1b94}, {0x1bb4, 0x1bb5},
    {0x1bc4, 0x1bc6},
};

}  // namespace

bool mlx_ext_fw_info(uint16_t dev) {
  for (const auto& r : MLX_EXT_FW_DEVICES)
    if (r[0] <= dev && dev <= r[1]) return true;
  return false;
}

std::span<const ClassDesc* const> gmp_classes() { return CLASSES; }

}  // namespace iba
