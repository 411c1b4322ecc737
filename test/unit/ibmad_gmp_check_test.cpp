// libibmad as an independent check of the GMP declarations: for every PM,
// SA, CC, ClassPortInfo, Notice and vendor field libibmad defines, a random
// value written with our codec must read back through mad_get_field*/
// mad_get_array at the equivalent field, and a value written by libibmad
// must read back through ours, with no other bit touched.
#include <gtest/gtest.h>

#ifdef HAVE_LIBIBMAD
#include <infiniband/mad.h>

#include <random>
#include <vector>

#include "iba/cc.h"
#include "iba/introspect.h"
#include "iba/mad.h"
#include "iba/pm.h"
#include "iba/sa.h"
#include "iba/vendor.h"

using namespace iba;

namespace {

struct Row {
  int field;               // enum MAD_FIELDS
  const char* fname;
  const StructDesc* desc;  // our structure
  const char* path;        // our field
  int base;                // byte offset libibmad's field is relative to, in our structure
};
#define ROW(f, T, p) Row{f, #f, &T::DESC, p, 0}
#define ROWB(f, T, p, b) Row{f, #f, &T::DESC, p, b}

// Fields libibmad declares wider than the IBA (two IBA fields in one) are
// left out: IB_CPI_REDIRECT_FL_F/IB_CPI_TRAP_FL_F (SL+FL), IB_NOTICE_COUNT_F
// (toggle+count), IB_PSC_COUNTER_MASKS1TO9_F/10TO14_F, IB_SA_MCM_FLOW_LABEL_F,
// IB_CC_CONGESTION_CONTROL_TABLE_ENTRY_CCT_MULTIPLIER_F, and
// IB_PC_QP1_DROP_F, which libibmad puts on VL15Dropped's bits.
const Row ROWS[] = {
    // PortCounters
    ROW(IB_PC_PORT_SELECT_F, PMPortCounters, "portSelect"),
    ROW(IB_PC_COUNTER_SELECT_F, PMPortCounters, "counterSelect"),
    ROW(IB_PC_ERR_SYM_F, PMPortCounters, "symbolErrorCounter"),
    ROW(IB_PC_LINK_RECOVERS_F, PMPortCounters, "linkErrorRecoveryCounter"),
    ROW(IB_PC_LINK_DOWNED_F, PMPortCounters, "linkDownedCounter"),
    ROW(IB_PC_ERR_RCV_F, PMPortCounters, "portRcvErrors"),
    ROW(IB_PC_ERR_PHYSRCV_F, PMPortCounters, "portRcvRemotePhysicalErrors"),
    ROW(IB_PC_ERR_SWITCH_REL_F, PMPortCounters, "portRcvSwitchRelayErrors"),
    ROW(IB_PC_XMT_DISCARDS_F, PMPortCounters, "portXmitDiscards"),
    ROW(IB_PC_ERR_XMTCONSTR_F, PMPortCounters, "portXmitConstraintErrors"),
    ROW(IB_PC_ERR_RCVCONSTR_F, PMPortCounters, "portRcvConstraintErrors"),
    ROW(IB_PC_COUNTER_SELECT2_F, PMPortCounters, "counterSelect2"),
    ROW(IB_PC_ERR_LOCALINTEG_F, PMPortCounters, "localLinkIntegrityErrors"),
    ROW(IB_PC_ERR_EXCESS_OVR_F, PMPortCounters, "excessiveBufferOverrunErrors"),
    ROW(IB_PC_VL15_DROPPED_F, PMPortCounters, "VL15Dropped"),
    ROW(IB_PC_XMT_BYTES_F, PMPortCounters, "portXmitData"),
    ROW(IB_PC_RCV_BYTES_F, PMPortCounters, "portRcvData"),
    ROW(IB_PC_XMT_PKTS_F, PMPortCounters, "portXmitPkts"),
    ROW(IB_PC_RCV_PKTS_F, PMPortCounters, "portRcvPkts"),
    ROW(IB_PC_XMT_WAIT_F, PMPortCounters, "portXmitWait"),
    // PortCountersExtended
    ROW(IB_PC_EXT_PORT_SELECT_F, PMPortCountersExtended, "portSelect"),
    ROW(IB_PC_EXT_COUNTER_SELECT_F, PMPortCountersExtended, "counterSelect"),
    ROW(IB_PC_EXT_COUNTER_SELECT2_F, PMPortCountersExtended, "counterSelect2"),
    ROW(IB_PC_EXT_XMT_BYTES_F, PMPortCountersExtended, "portXmitData"),
    ROW(IB_PC_EXT_RCV_BYTES_F, PMPortCountersExtended, "portRcvData"),
    ROW(IB_PC_EXT_XMT_PKTS_F, PMPortCountersExtended, "portXmitPkts"),
    ROW(IB_PC_EXT_RCV_PKTS_F, PMPortCountersExtended, "portRcvPkts"),
    ROW(IB_PC_EXT_XMT_UPKTS_F, PMPortCountersExtended, "portUnicastXmitPkts"),
    ROW(IB_PC_EXT_RCV_UPKTS_F, PMPortCountersExtended, "portUnicastRcvPkts"),
    ROW(IB_PC_EXT_XMT_MPKTS_F, PMPortCountersExtended, "portMulticastXmitPkts"),
    ROW(IB_PC_EXT_RCV_MPKTS_F, PMPortCountersExtended, "portMulticastRcvPkts"),
    ROW(IB_PC_EXT_ERR_SYM_F, PMPortCountersExtended, "symbolErrorCounter"),
    ROW(IB_PC_EXT_LINK_RECOVERS_F, PMPortCountersExtended, "linkErrorRecoveryCounter"),
    ROW(IB_PC_EXT_LINK_DOWNED_F, PMPortCountersExtended, "linkDownedCounter"),
    ROW(IB_PC_EXT_ERR_RCV_F, PMPortCountersExtended, "portRcvErrors"),
    ROW(IB_PC_EXT_ERR_PHYSRCV_F, PMPortCountersExtended, "portRcvRemotePhysicalErrors"),
    ROW(IB_PC_EXT_ERR_SWITCH_REL_F, PMPortCountersExtended, "portRcvSwitchRelayErrors"),
    ROW(IB_PC_EXT_XMT_DISCARDS_F, PMPortCountersExtended, "portXmitDiscards"),
    ROW(IB_PC_EXT_ERR_XMTCONSTR_F, PMPortCountersExtended, "portXmitConstraintErrors"),
    ROW(IB_PC_EXT_ERR_RCVCONSTR_F, PMPortCountersExtended, "portRcvConstraintErrors"),
    ROW(IB_PC_EXT_ERR_LOCALINTEG_F, PMPortCountersExtended, "localLinkIntegrityErrors"),
    ROW(IB_PC_EXT_ERR_EXCESS_OVR_F, PMPortCountersExtended, "excessiveBufferOverrunErrors"),
    ROW(IB_PC_EXT_VL15_DROPPED_F, PMPortCountersExtended, "VL15Dropped"),
    ROW(IB_PC_EXT_XMT_WAIT_F, PMPortCountersExtended, "portXmitWait"),
    ROW(IB_PC_EXT_QP1_DROP_F, PMPortCountersExtended, "QP1Dropped"),
    // PortSamplesControl / Result
    ROW(IB_PSC_OPCODE_F, PMPortSamplesControl, "opCode"),
    ROW(IB_PSC_PORT_SELECT_F, PMPortSamplesControl, "portSelect"),
    ROW(IB_PSC_TICK_F, PMPortSamplesControl, "tick"),
    ROW(IB_PSC_COUNTER_WIDTH_F, PMPortSamplesControl, "counterWidth"),
    ROW(IB_PSC_COUNTER_MASK0_F, PMPortSamplesControl, "counterMask0"),
    ROW(IB_PSC_SAMPLE_MECHS_F, PMPortSamplesControl, "sampleMechanisms"),
    ROW(IB_PSC_SAMPLE_STATUS_F, PMPortSamplesControl, "sampleStatus"),
    ROW(IB_PSC_OPTION_MASK_F, PMPortSamplesControl, "optionMask"),
    ROW(IB_PSC_VENDOR_MASK_F, PMPortSamplesControl, "vendorMask"),
    ROW(IB_PSC_SAMPLE_START_F, PMPortSamplesControl, "sampleStart"),
    ROW(IB_PSC_SAMPLE_INTVL_F, PMPortSamplesControl, "sampleInterval"),
    ROW(IB_PSC_TAG_F, PMPortSamplesControl, "tag"),
    ROW(IB_PSC_COUNTER_SEL0_F, PMPortSamplesControl, "counterSelect[0]"),
    ROW(IB_PSC_COUNTER_SEL9_F, PMPortSamplesControl, "counterSelect[9]"),
    ROW(IB_PSC_COUNTER_SEL14_F, PMPortSamplesControl, "counterSelect[14]"),
    ROW(IB_PSC_SAMPLES_ONLY_OPT_MASK_F, PMPortSamplesControl, "samplesOnlyOptionMask"),
    ROW(IB_PSR_TAG_F, PMPortSamplesResult, "tag"),
    ROW(IB_PSR_SAMPLE_STATUS_F, PMPortSamplesResult, "sampleStatus"),
    ROW(IB_PSR_COUNTER0_F, PMPortSamplesResult, "counter[0]"),
    ROW(IB_PSR_COUNTER7_F, PMPortSamplesResult, "counter[7]"),
    ROW(IB_PSR_COUNTER14_F, PMPortSamplesResult, "counter[14]"),
    // Error details, flow control, op counters
    ROW(IB_PC_RCV_LOCAL_PHY_ERR_F, PMPortRcvErrorDetails, "portLocalPhysicalErrors"),
    ROW(IB_PC_RCV_MALFORMED_PKT_ERR_F, PMPortRcvErrorDetails, "portMalformedPacketErrors"),
    ROW(IB_PC_RCV_BUF_OVR_ERR_F, PMPortRcvErrorDetails, "portBufferOverrunErrors"),
    ROW(IB_PC_RCV_DLID_MAP_ERR_F, PMPortRcvErrorDetails, "portDLIDMappingErrors"),
    ROW(IB_PC_RCV_VL_MAP_ERR_F, PMPortRcvErrorDetails, "portVLMappingErrors"),
    ROW(IB_PC_RCV_LOOPING_ERR_F, PMPortRcvErrorDetails, "portLoopingErrors"),
    ROW(IB_PC_XMT_INACT_DISC_F, PMPortXmitDiscardDetails, "portInactiveDiscards"),
    ROW(IB_PC_XMT_NEIGH_MTU_DISC_F, PMPortXmitDiscardDetails, "portNeighborMTUDiscards"),
    ROW(IB_PC_XMT_SW_LIFE_DISC_F, PMPortXmitDiscardDetails, "portSwLifetimeLimitDiscards"),
    ROW(IB_PC_XMT_SW_HOL_DISC_F, PMPortXmitDiscardDetails, "portSwHOQLifetimeLimitDiscards"),
    ROW(IB_PC_PORT_OP_RCV_PKTS_F, PMPortOpRcvCounters, "portOpRcvPkts"),
    ROW(IB_PC_PORT_OP_RCV_DATA_F, PMPortOpRcvCounters, "portOpRcvData"),
    ROW(IB_PC_PORT_XMIT_FLOW_PKTS_F, PMPortFlowCtlCounters, "portXmitFlowPkts"),
    ROW(IB_PC_PORT_RCV_FLOW_PKTS_F, PMPortFlowCtlCounters, "portRcvFlowPkts"),
    ROW(IB_PC_PORT_VL_OP_PACKETS0_F, PMPortVLOpPackets, "portVLOpPackets[0]"),
    ROW(IB_PC_PORT_VL_OP_PACKETS15_F, PMPortVLOpPackets, "portVLOpPackets[15]"),
    ROW(IB_PC_PORT_VL_OP_DATA0_F, PMPortVLOpData, "portVLOpData[0]"),
    ROW(IB_PC_PORT_VL_OP_DATA15_F, PMPortVLOpData, "portVLOpData[15]"),
    ROW(IB_PC_PORT_VL_XMIT_FLOW_CTL_UPDATE_ERRORS0_F, PMPortVLXmitFlowCtlUpdateErrors,
        "portVLXmitFlowCtlUpdateErrors[0]"),
    ROW(IB_PC_PORT_VL_XMIT_FLOW_CTL_UPDATE_ERRORS7_F, PMPortVLXmitFlowCtlUpdateErrors,
        "portVLXmitFlowCtlUpdateErrors[7]"),
    ROW(IB_PC_PORT_VL_XMIT_FLOW_CTL_UPDATE_ERRORS15_F, PMPortVLXmitFlowCtlUpdateErrors,
        "portVLXmitFlowCtlUpdateErrors[15]"),
    ROW(IB_PC_PORT_VL_XMIT_WAIT0_F, PMPortVLXmitWaitCounters, "portVLXmitWait[0]"),
    ROW(IB_PC_PORT_VL_XMIT_WAIT15_F, PMPortVLXmitWaitCounters, "portVLXmitWait[15]"),
    ROW(IB_PC_SW_PORT_VL_CONGESTION0_F, PMSwPortVLCongestion, "swPortVLCongestion[0]"),
    ROW(IB_PC_SW_PORT_VL_CONGESTION15_F, PMSwPortVLCongestion, "swPortVLCongestion[15]"),
    ROW(IB_PC_RCV_CON_CTRL_PKT_RCV_FECN_F, PMPortRcvConCtrl, "portPktRcvFECN"),
    ROW(IB_PC_RCV_CON_CTRL_PKT_RCV_BECN_F, PMPortRcvConCtrl, "portPktRcvBECN"),
    ROW(IB_PC_SL_RCV_FECN0_F, PMPortSLRcvFECN, "portSLRcvFECN[0]"),
    ROW(IB_PC_SL_RCV_FECN15_F, PMPortSLRcvFECN, "portSLRcvFECN[15]"),
    ROW(IB_PC_SL_RCV_BECN0_F, PMPortSLRcvBECN, "portSLRcvBECN[0]"),
    ROW(IB_PC_SL_RCV_BECN15_F, PMPortSLRcvBECN, "portSLRcvBECN[15]"),
    ROW(IB_PC_XMIT_CON_CTRL_TIME_CONG_F, PMPortXmitConCtrl, "portXmitTimeCong"),
    ROW(IB_PC_VL_XMIT_TIME_CONG0_F, PMPortVLXmitTimeCong, "portVLXmitTimeCong[0]"),
    ROW(IB_PC_VL_XMIT_TIME_CONG14_F, PMPortVLXmitTimeCong, "portVLXmitTimeCong[14]"),
    ROW(IB_PC_XMT_DATA_SL0_F, PMPortXmitDataSL, "portXmitDataSL[0]"),
    ROW(IB_PC_XMT_DATA_SL15_F, PMPortXmitDataSL, "portXmitDataSL[15]"),
    ROW(IB_PC_RCV_DATA_SL0_F, PMPortRcvDataSL, "portRcvDataSL[0]"),
    ROW(IB_PC_RCV_DATA_SL15_F, PMPortRcvDataSL, "portRcvDataSL[15]"),
    // PortExtendedSpeedsCounters, both forms
    ROW(IB_PESC_PORT_SELECT_F, PMPortExtendedSpeedsCounters, "portSelect"),
    ROW(IB_PESC_COUNTER_SELECT_F, PMPortExtendedSpeedsCounters, "counterSelect"),
    ROW(IB_PESC_SYNC_HDR_ERR_CTR_F, PMPortExtendedSpeedsCounters, "syncHeaderErrorCounter"),
    ROW(IB_PESC_UNK_BLOCK_CTR_F, PMPortExtendedSpeedsCounters, "unknownBlockCounter"),
    ROW(IB_PESC_ERR_DET_CTR_LANE0_F, PMPortExtendedSpeedsCounters, "errorDetectionCounterLane[0]"),
    ROW(IB_PESC_ERR_DET_CTR_LANE11_F, PMPortExtendedSpeedsCounters, "errorDetectionCounterLane[11]"),
    ROW(IB_PESC_FEC_CORR_BLOCK_CTR_LANE0_F, PMPortExtendedSpeedsCounters, "FECCorrectableBlockCounterLane[0]"),
    ROW(IB_PESC_FEC_CORR_BLOCK_CTR_LANE11_F, PMPortExtendedSpeedsCounters, "FECCorrectableBlockCounterLane[11]"),
    ROW(IB_PESC_FEC_UNCORR_BLOCK_CTR_LANE0_F, PMPortExtendedSpeedsCounters, "FECUncorrectableBlockCounterLane[0]"),
    ROW(IB_PESC_FEC_UNCORR_BLOCK_CTR_LANE11_F, PMPortExtendedSpeedsCounters,
        "FECUncorrectableBlockCounterLane[11]"),
    ROW(IB_PESC_PORT_FEC_CORR_BLOCK_CTR_F, PMPortExtendedSpeedsCounters, "portFECCorrectableBlockCounter"),
    ROW(IB_PESC_PORT_FEC_UNCORR_BLOCK_CTR_F, PMPortExtendedSpeedsCounters, "portFECUncorrectableBlockCounter"),
    ROW(IB_PESC_PORT_FEC_CORR_SYMBOL_CTR_F, PMPortExtendedSpeedsCounters, "portFECCorrectedSymbolCounter"),
    ROW(IB_PESC_RSFEC_PORT_SELECT_F, PMPortExtendedSpeedsCountersRSFEC, "portSelect"),
    ROW(IB_PESC_RSFEC_COUNTER_SELECT_F, PMPortExtendedSpeedsCountersRSFEC, "counterSelect"),
    ROW(IB_PESC_RSFEC_SYNC_HDR_ERR_CTR_F, PMPortExtendedSpeedsCountersRSFEC, "syncHeaderErrorCounter"),
    ROW(IB_PESC_RSFEC_UNK_BLOCK_CTR_F, PMPortExtendedSpeedsCountersRSFEC, "unknownBlockCounter"),
    ROW(IB_PESC_RSFEC_FEC_CORR_SYMBOL_CTR_LANE0_F, PMPortExtendedSpeedsCountersRSFEC,
        "FECCorrectableSymbolCounterLane[0]"),
    ROW(IB_PESC_RSFEC_FEC_CORR_SYMBOL_CTR_LANE11_F, PMPortExtendedSpeedsCountersRSFEC,
        "FECCorrectableSymbolCounterLane[11]"),
    // ClassPortInfo
    ROW(IB_CPI_BASEVER_F, MADClassPortInfo, "baseVersion"),
    ROW(IB_CPI_CLASSVER_F, MADClassPortInfo, "classVersion"),
    ROW(IB_CPI_CAPMASK_F, MADClassPortInfo, "capabilityMask"),
    ROW(IB_CPI_CAPMASK2_F, MADClassPortInfo, "capabilityMask2"),
    ROW(IB_CPI_RESP_TIME_VALUE_F, MADClassPortInfo, "respTimeValue"),
    ROW(IB_CPI_REDIRECT_GID_F, MADClassPortInfo, "redirectGID"),
    ROW(IB_CPI_REDIRECT_TC_F, MADClassPortInfo, "redirectTC"),
    ROW(IB_CPI_REDIRECT_SL_F, MADClassPortInfo, "redirectSL"),
    ROW(IB_CPI_REDIRECT_LID_F, MADClassPortInfo, "redirectLID"),
    ROW(IB_CPI_REDIRECT_PKEY_F, MADClassPortInfo, "redirectPKey"),
    ROW(IB_CPI_REDIRECT_QP_F, MADClassPortInfo, "redirectQP"),
    ROW(IB_CPI_REDIRECT_QKEY_F, MADClassPortInfo, "redirectQKey"),
    ROW(IB_CPI_TRAP_GID_F, MADClassPortInfo, "trapGID"),
    ROW(IB_CPI_TRAP_TC_F, MADClassPortInfo, "trapTC"),
    ROW(IB_CPI_TRAP_SL_F, MADClassPortInfo, "trapSL"),
    ROW(IB_CPI_TRAP_LID_F, MADClassPortInfo, "trapLID"),
    ROW(IB_CPI_TRAP_PKEY_F, MADClassPortInfo, "trapPKey"),
    ROW(IB_CPI_TRAP_HL_F, MADClassPortInfo, "trapHL"),
    ROW(IB_CPI_TRAP_QP_F, MADClassPortInfo, "trapQP"),
    ROW(IB_CPI_TRAP_QKEY_F, MADClassPortInfo, "trapQKey"),
    // Notice
    ROW(IB_NOTICE_IS_GENERIC_F, MADNotice, "isGeneric"),
    ROW(IB_NOTICE_TYPE_F, MADNotice, "type"),
    ROW(IB_NOTICE_PRODUCER_F, MADNotice, "producerType"),
    ROW(IB_NOTICE_TRAP_NUMBER_F, MADNotice, "trapNumber"),
    ROW(IB_NOTICE_ISSUER_LID_F, MADNotice, "issuerLID"),
    ROW(IB_NOTICE_TOGGLE_F, MADNotice, "noticeToggle"),
    ROW(IB_NOTICE_DATA_DETAILS_F, MADNotice, "dataDetails"),
    // SA MAD header and records
    ROW(IB_SA_RMPP_VERS_F, SAFormat, "rmpp.RMPPVersion"),
    ROW(IB_SA_RMPP_TYPE_F, SAFormat, "rmpp.RMPPType"),
    ROW(IB_SA_RMPP_RESP_F, SAFormat, "rmpp.RRespTime"),
    ROW(IB_SA_RMPP_FLAGS_F, SAFormat, "rmpp.RMPPFlags"),
    ROW(IB_SA_RMPP_STATUS_F, SAFormat, "rmpp.RMPPStatus"),
    ROW(IB_SA_RMPP_D1_F, SAFormat, "rmpp.data1"),
    ROW(IB_SA_RMPP_D2_F, SAFormat, "rmpp.data2"),
    ROW(IB_SA_MKEY_F, SAFormat, "SMKey"),
    ROW(IB_SA_ATTROFFS_F, SAFormat, "attributeOffset"),
    ROW(IB_SA_COMPMASK_F, SAFormat, "componentMask"),
    ROW(IB_SA_DATA_F, SAFormat, "data"),
    ROW(IB_SA_NR_LID_F, SANodeRecord, "LID"),
    ROW(IB_SA_NR_BASEVER_F, SANodeRecord, "nodeInfo.baseVersion"),
    ROW(IB_SA_NR_CLASSVER_F, SANodeRecord, "nodeInfo.classVersion"),
    ROW(IB_SA_NR_TYPE_F, SANodeRecord, "nodeInfo.nodeType"),
    ROW(IB_SA_NR_NPORTS_F, SANodeRecord, "nodeInfo.numPorts"),
    ROW(IB_SA_NR_SYSTEM_GUID_F, SANodeRecord, "nodeInfo.systemImageGUID"),
    ROW(IB_SA_NR_GUID_F, SANodeRecord, "nodeInfo.nodeGUID"),
    ROW(IB_SA_NR_PORT_GUID_F, SANodeRecord, "nodeInfo.portGUID"),
    ROW(IB_SA_NR_PARTITION_CAP_F, SANodeRecord, "nodeInfo.partitionCap"),
    ROW(IB_SA_NR_DEVID_F, SANodeRecord, "nodeInfo.deviceID"),
    ROW(IB_SA_NR_REVISION_F, SANodeRecord, "nodeInfo.revision"),
    ROW(IB_SA_NR_LOCAL_PORT_F, SANodeRecord, "nodeInfo.localPortNum"),
    ROW(IB_SA_NR_VENDORID_F, SANodeRecord, "nodeInfo.vendorID"),
    ROW(IB_SA_NR_NODEDESC_F, SANodeRecord, "nodeDescription.nodeString"),
    ROW(IB_SA_PR_DGID_F, SAPathRecord, "DGID"),
    ROW(IB_SA_PR_SGID_F, SAPathRecord, "SGID"),
    ROW(IB_SA_PR_DLID_F, SAPathRecord, "DLID"),
    ROW(IB_SA_PR_SLID_F, SAPathRecord, "SLID"),
    ROW(IB_SA_PR_NPATH_F, SAPathRecord, "numbPath"),
    ROW(IB_SA_PR_SL_F, SAPathRecord, "SL"),
    ROW(IB_SA_MCM_MGID_F, SAMCMemberRecord, "MGID"),
    ROW(IB_SA_MCM_PORTGID_F, SAMCMemberRecord, "portGID"),
    ROW(IB_SA_MCM_QKEY_F, SAMCMemberRecord, "QKey"),
    ROW(IB_SA_MCM_MLID_F, SAMCMemberRecord, "MLID"),
    ROW(IB_SA_MCM_MTU_F, SAMCMemberRecord, "MTU"),
    ROW(IB_SA_MCM_TCLASS_F, SAMCMemberRecord, "TClass"),
    ROW(IB_SA_MCM_PKEY_F, SAMCMemberRecord, "PKey"),
    ROW(IB_SA_MCM_RATE_F, SAMCMemberRecord, "rate"),
    ROW(IB_SA_MCM_SL_F, SAMCMemberRecord, "SL"),
    ROW(IB_SA_MCM_JOIN_STATE_F, SAMCMemberRecord, "joinState"),
    ROW(IB_SA_MCM_PROXY_JOIN_F, SAMCMemberRecord, "proxyJoin"),
    ROW(IB_SA_MP_NPATH_F, SAMultiPathRecord, "numbPath"),
    ROW(IB_SA_MP_NSRC_F, SAMultiPathRecord, "SGIDCount"),
    ROW(IB_SA_MP_NDEST_F, SAMultiPathRecord, "DGIDCount"),
    ROW(IB_SA_MP_GID0_F, SAMultiPathRecord, "SDGID[0]"),
    ROW(IB_SA_GIR_LID_F, SAGUIDInfoRecord, "LID"),
    ROW(IB_SA_GIR_BLOCKNUM_F, SAGUIDInfoRecord, "blockNum"),
    ROW(IB_SA_GIR_GUID0_F, SAGUIDInfoRecord, "GUIDInfo.GUIDBlock[0]"),
    ROW(IB_SA_GIR_GUID7_F, SAGUIDInfoRecord, "GUIDInfo.GUIDBlock[7]"),
    ROW(IB_SA_SR_ID_F, SAServiceRecord, "serviceID"),
    ROW(IB_SA_SR_GID_F, SAServiceRecord, "serviceGID"),
    ROW(IB_SA_SR_PKEY_F, SAServiceRecord, "servicePKey"),
    ROW(IB_SA_SR_LEASE_F, SAServiceRecord, "serviceLease"),
    ROW(IB_SA_SR_KEY_F, SAServiceRecord, "serviceKey"),
    ROW(IB_SA_SR_NAME_F, SAServiceRecord, "serviceName"),
    // CC
    ROW(IB_CC_CCKEY_F, CCFormat, "CCKey"),
    ROW(IB_CC_CONGESTION_INFO_F, CCCongestionInfo, "congestionInfo"),
    ROW(IB_CC_CONGESTION_INFO_CONTROL_TABLE_CAP_F, CCCongestionInfo, "controlTableCap"),
    ROW(IB_CC_CONGESTION_KEY_INFO_CC_KEY_F, CCCongestionKeyInfo, "CCKey"),
    ROW(IB_CC_CONGESTION_KEY_INFO_CC_KEY_PROTECT_BIT_F, CCCongestionKeyInfo, "CCKeyProtectBit"),
    ROW(IB_CC_CONGESTION_KEY_INFO_CC_KEY_LEASE_PERIOD_F, CCCongestionKeyInfo, "CCKeyLeasePeriod"),
    ROW(IB_CC_CONGESTION_KEY_INFO_CC_KEY_VIOLATIONS_F, CCCongestionKeyInfo, "CCKeyViolations"),
    ROW(IB_CC_CONGESTION_LOG_LOGTYPE_F, CCCongestionLogSwitch, "logType"),
    ROW(IB_CC_CONGESTION_LOG_CONGESTION_FLAGS_F, CCCongestionLogSwitch, "congestionFlags"),
    ROW(IB_CC_CONGESTION_LOG_SWITCH_LOG_EVENTS_COUNTER_F, CCCongestionLogSwitch, "logEventsCounter"),
    ROW(IB_CC_CONGESTION_LOG_SWITCH_CURRENT_TIME_STAMP_F, CCCongestionLogSwitch, "currentTimeStamp"),
    ROW(IB_CC_CONGESTION_LOG_SWITCH_PORTMAP_F, CCCongestionLogSwitch, "portMap"),
    ROWB(IB_CC_CONGESTION_LOG_ENTRY_SWITCH_SLID_F, CCCongestionLogSwitch, "congestionEntryList[2].SLID", 40 + 2 * 12),
    ROWB(IB_CC_CONGESTION_LOG_ENTRY_SWITCH_DLID_F, CCCongestionLogSwitch, "congestionEntryList[2].DLID", 40 + 2 * 12),
    ROWB(IB_CC_CONGESTION_LOG_ENTRY_SWITCH_SL_F, CCCongestionLogSwitch, "congestionEntryList[2].SL", 40 + 2 * 12),
    ROWB(IB_CC_CONGESTION_LOG_ENTRY_SWITCH_TIMESTAMP_F, CCCongestionLogSwitch, "congestionEntryList[2].timestamp",
         40 + 2 * 12),
    ROW(IB_CC_CONGESTION_LOG_CA_THRESHOLD_EVENT_COUNTER_F, CCCongestionLogCA, "thresholdEventCounter"),
    ROW(IB_CC_CONGESTION_LOG_CA_THRESHOLD_CONGESTION_EVENT_MAP_F, CCCongestionLogCA, "thresholdCongestionEventMap"),
    ROW(IB_CC_CONGESTION_LOG_CA_CURRENT_TIMESTAMP_F, CCCongestionLogCA, "currentTimeStamp"),
    ROWB(IB_CC_CONGESTION_LOG_ENTRY_CA_LOCAL_QP_CN_ENTRY_F, CCCongestionLogCA, "congestionEntryList[1].localQPCNEntry",
         12 + 16),
    ROWB(IB_CC_CONGESTION_LOG_ENTRY_CA_SL_CN_ENTRY_F, CCCongestionLogCA, "congestionEntryList[1].SLCNEntry", 12 + 16),
    ROWB(IB_CC_CONGESTION_LOG_ENTRY_CA_SERVICE_TYPE_CN_ENTRY_F, CCCongestionLogCA,
         "congestionEntryList[1].serviceTypeCNEntry", 12 + 16),
    ROWB(IB_CC_CONGESTION_LOG_ENTRY_CA_REMOTE_QP_NUMBER_CN_ENTRY_F, CCCongestionLogCA,
         "congestionEntryList[1].remoteQPNumberCNEntry", 12 + 16),
    ROWB(IB_CC_CONGESTION_LOG_ENTRY_CA_LOCAL_LID_CN_F, CCCongestionLogCA, "congestionEntryList[1].localLIDCN", 12 + 16),
    ROWB(IB_CC_CONGESTION_LOG_ENTRY_CA_REMOTE_LID_CN_ENTRY_F, CCCongestionLogCA,
         "congestionEntryList[1].remoteLIDCNEntry", 12 + 16),
    ROWB(IB_CC_CONGESTION_LOG_ENTRY_CA_TIMESTAMP_CN_ENTRY_F, CCCongestionLogCA,
         "congestionEntryList[1].timestampCNEntry", 12 + 16),
    ROW(IB_CC_SWITCH_CONGESTION_SETTING_CONTROL_MAP_F, CCSwitchCongestionSetting, "controlMap"),
    ROW(IB_CC_SWITCH_CONGESTION_SETTING_VICTIM_MASK_F, CCSwitchCongestionSetting, "victimMask"),
    ROW(IB_CC_SWITCH_CONGESTION_SETTING_CREDIT_MASK_F, CCSwitchCongestionSetting, "creditMask"),
    ROW(IB_CC_SWITCH_CONGESTION_SETTING_THRESHOLD_F, CCSwitchCongestionSetting, "threshold"),
    ROW(IB_CC_SWITCH_CONGESTION_SETTING_PACKET_SIZE_F, CCSwitchCongestionSetting, "packetSize"),
    ROW(IB_CC_SWITCH_CONGESTION_SETTING_CS_THRESHOLD_F, CCSwitchCongestionSetting, "CSThreshold"),
    ROW(IB_CC_SWITCH_CONGESTION_SETTING_CS_RETURN_DELAY_F, CCSwitchCongestionSetting, "CSReturnDelay"),
    ROW(IB_CC_SWITCH_CONGESTION_SETTING_MARKING_RATE_F, CCSwitchCongestionSetting, "markingRate"),
    ROWB(IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_VALID_F, CCSwitchPortCongestionSetting, "block[5].valid", 20),
    ROWB(IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_CONTROL_TYPE_F, CCSwitchPortCongestionSetting,
         "block[5].controlType", 20),
    ROWB(IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_THRESHOLD_F, CCSwitchPortCongestionSetting,
         "block[5].threshold", 20),
    ROWB(IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_PACKET_SIZE_F, CCSwitchPortCongestionSetting,
         "block[5].packetSize", 20),
    ROWB(IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_CONG_PARM_MARKING_RATE_F, CCSwitchPortCongestionSetting,
         "block[5].congParmMarkingRate", 20),
    ROW(IB_CC_CA_CONGESTION_SETTING_PORT_CONTROL_F, CCCACongestionSetting, "portControl"),
    ROW(IB_CC_CA_CONGESTION_SETTING_CONTROL_MAP_F, CCCACongestionSetting, "controlMap"),
    ROWB(IB_CC_CA_CONGESTION_ENTRY_CCTI_TIMER_F, CCCACongestionSetting, "block[3].CCTITimer", 4 + 3 * 8),
    ROWB(IB_CC_CA_CONGESTION_ENTRY_CCTI_INCREASE_F, CCCACongestionSetting, "block[3].CCTIIncrease", 4 + 3 * 8),
    ROWB(IB_CC_CA_CONGESTION_ENTRY_TRIGGER_THRESHOLD_F, CCCACongestionSetting, "block[3].triggerThreshold", 4 + 3 * 8),
    ROWB(IB_CC_CA_CONGESTION_ENTRY_CCTI_MIN_F, CCCACongestionSetting, "block[3].CCTIMin", 4 + 3 * 8),
    ROW(IB_CC_CONGESTION_CONTROL_TABLE_CCTI_LIMIT_F, CCCongestionControlTable, "CCTILimit"),
    // libibmad locates sub-word fields from a 4-byte aligned base.
    ROWB(IB_CC_CONGESTION_CONTROL_TABLE_ENTRY_CCT_SHIFT_F, CCCongestionControlTable, "block[8].CCTShift", 4 + 8 * 2),
    ROW(IB_CC_TIMESTAMP_F, CCTimeStamp, "timestamp"),
    // Vendor range 2
    ROW(IB_VEND2_OUI_F, VendOUIFormat, "OUI"),
    ROW(IB_VEND2_DATA_F, VendOUIFormat, "data"),
};

constexpr size_t SCRATCH = 512;

}  // namespace

TEST(IbmadGmpCheck, EveryLibibmadFieldMatches) {
  std::mt19937_64 rng(20261);
  for (const Row& r : ROWS) {
    SCOPED_TRACE(std::string(r.fname) + " vs " + r.desc->name + "." + r.path);
    std::string err;
    auto ref = find_field(*r.desc, r.path, &err);
    ASSERT_TRUE(ref) << err;
    uint32_t w = ref->width();
    for (int round = 0; round < 4; ++round) {
      std::vector<uint8_t> ours(SCRATCH, 0), theirs(SCRATCH, 0);
      uint8_t* base = ours.data() + r.base;
      if (w > 64) {
        // Arrays of bytes: GIDs, strings, masks.
        std::vector<uint8_t> val(w / 8);
        for (auto& b : val) b = uint8_t(rng());
        std::memcpy(ours.data() + ref->bit_off / 8, val.data(), val.size());
        std::vector<uint8_t> got(w / 8 + 8, 0);
        mad_get_array(ours.data(), r.base, static_cast<MAD_FIELDS>(r.field), got.data());
        EXPECT_EQ(0, std::memcmp(got.data(), val.data(), val.size()));
        mad_set_array(theirs.data(), r.base, static_cast<MAD_FIELDS>(r.field), val.data());
      } else {
        uint64_t v = rng();
        if (w < 64) v &= (uint64_t(1) << w) - 1;
        set_bits(ours.data(), ref->bit_off, w, v);
        uint64_t got = w > 32 ? mad_get_field64(ours.data(), r.base, static_cast<MAD_FIELDS>(r.field))
                              : mad_get_field(ours.data(), r.base, static_cast<MAD_FIELDS>(r.field));
        EXPECT_EQ(got, v);
        if (w > 32)
          mad_set_field64(theirs.data(), r.base, static_cast<MAD_FIELDS>(r.field), v);
        else
          mad_set_field(theirs.data(), r.base, static_cast<MAD_FIELDS>(r.field), uint32_t(v));
        EXPECT_EQ(get_bits(theirs.data(), ref->bit_off, w), v);
      }
      (void)base;
      // Same bits set, nothing else touched: same offset and same width.
      EXPECT_EQ(ours, theirs);
    }
  }
}

TEST(IbmadGmpCheck, FormatOffsetsMatchLibibmad) {
  EXPECT_EQ(PMFormat::DESC.size, 256u);
  EXPECT_EQ(find_field(SAFormat::DESC, "data")->bit_off / 8, unsigned(IB_SA_DATA_OFFS));
  EXPECT_EQ(find_field(PMFormat::DESC, "data")->bit_off / 8, unsigned(IB_PC_DATA_OFFS));
  EXPECT_EQ(find_field(CCFormat::DESC, "data")->bit_off / 8, unsigned(IB_CC_DATA_OFFS));
  EXPECT_EQ(CC_LOG_DATA_OFF, unsigned(IB_CC_LOG_DATA_OFFS));
  EXPECT_EQ(find_field(VendorFormat::DESC, "data")->bit_off / 8, unsigned(IB_VENDOR_RANGE1_DATA_OFFS));
  EXPECT_EQ(find_field(VendOUIFormat::DESC, "data")->bit_off / 8, unsigned(IB_VENDOR_RANGE2_DATA_OFFS));
  EXPECT_EQ(SANodeRecord::SIZE, size_t(IB_SA_NR_RECSZ));
  EXPECT_EQ(SAPathRecord::SIZE, size_t(IB_SA_PR_RECSZ));
  EXPECT_EQ(sa_record_stride<SAGUIDInfoRecord>(), size_t(IB_SA_GIR_RECSZ));
}

#endif  // HAVE_LIBIBMAD
