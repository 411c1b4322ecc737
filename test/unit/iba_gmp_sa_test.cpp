// SA records against OpenSM's ib_types.h: every component mask constant the
// header defines must be the bit iba::component_mask() computes from our
// declaration, and every record must occupy what sizeof(ib_*_record_t)
// occupies in an SA MAD (8-byte aligned).  ib_types.h needs OpenSM's
// complib include path, so the constants are read by compiling a small
// probe with the system C compiler at test time.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "iba/introspect.h"
#include "iba/sa.h"

using namespace iba;

namespace {

struct MaskRow {
  const char* macro;
  const StructDesc* desc;
  const char* field;  // dotted path, reserved fields by their declared name
};

#define R(m, T, f) MaskRow{m, &T::DESC, f}
const MaskRow MASKS[] = {
    R("IB_NR_COMPMASK_LID", SANodeRecord, "LID"),
    R("IB_NR_COMPMASK_RESERVED1", SANodeRecord, "reserved16"),
    R("IB_NR_COMPMASK_BASEVERSION", SANodeRecord, "nodeInfo.baseVersion"),
    R("IB_NR_COMPMASK_CLASSVERSION", SANodeRecord, "nodeInfo.classVersion"),
    R("IB_NR_COMPMASK_NODETYPE", SANodeRecord, "nodeInfo.nodeType"),
    R("IB_NR_COMPMASK_NUMPORTS", SANodeRecord, "nodeInfo.numPorts"),
    R("IB_NR_COMPMASK_SYSIMAGEGUID", SANodeRecord, "nodeInfo.systemImageGUID"),
    R("IB_NR_COMPMASK_NODEGUID", SANodeRecord, "nodeInfo.nodeGUID"),
    R("IB_NR_COMPMASK_PORTGUID", SANodeRecord, "nodeInfo.portGUID"),
    R("IB_NR_COMPMASK_PARTCAP", SANodeRecord, "nodeInfo.partitionCap"),
    R("IB_NR_COMPMASK_DEVID", SANodeRecord, "nodeInfo.deviceID"),
    R("IB_NR_COMPMASK_REV", SANodeRecord, "nodeInfo.revision"),
    R("IB_NR_COMPMASK_PORTNUM", SANodeRecord, "nodeInfo.localPortNum"),
    R("IB_NR_COMPMASK_VENDID", SANodeRecord, "nodeInfo.vendorID"),
    R("IB_NR_COMPMASK_NODEDESC", SANodeRecord, "nodeDescription.nodeString"),

    R("IB_PIR_COMPMASK_LID", SAPortInfoRecord, "endportLID"),
    R("IB_PIR_COMPMASK_PORTNUM", SAPortInfoRecord, "portNum"),
    R("IB_PIR_COMPMASK_OPTIONS", SAPortInfoRecord, "options"),
    R("IB_PIR_COMPMASK_MKEY", SAPortInfoRecord, "portInfo.MKey"),
    R("IB_PIR_COMPMASK_GIDPRE", SAPortInfoRecord, "portInfo.GIDPrefix"),
    R("IB_PIR_COMPMASK_BASELID", SAPortInfoRecord, "portInfo.LID"),
    R("IB_PIR_COMPMASK_SMLID", SAPortInfoRecord, "portInfo.masterSMLID"),
    R("IB_PIR_COMPMASK_CAPMASK", SAPortInfoRecord, "portInfo.capabilityMask"),
    R("IB_PIR_COMPMASK_DIAGCODE", SAPortInfoRecord, "portInfo.diagCode"),
    R("IB_PIR_COMPMASK_MKEYLEASEPRD", SAPortInfoRecord, "portInfo.MKeyLeasePeriod"),
    R("IB_PIR_COMPMASK_LOCALPORTNUM", SAPortInfoRecord, "portInfo.localPortNum"),
    R("IB_PIR_COMPMASK_LINKWIDTHENABLED", SAPortInfoRecord, "portInfo.linkWidthEnabled"),
    R("IB_PIR_COMPMASK_LNKWIDTHSUPPORT", SAPortInfoRecord, "portInfo.linkWidthSupported"),
    R("IB_PIR_COMPMASK_LNKWIDTHACTIVE", SAPortInfoRecord, "portInfo.linkWidthActive"),
    R("IB_PIR_COMPMASK_LNKSPEEDSUPPORT", SAPortInfoRecord, "portInfo.linkSpeedSupported"),
    R("IB_PIR_COMPMASK_PORTSTATE", SAPortInfoRecord, "portInfo.portState"),
    R("IB_PIR_COMPMASK_PORTPHYSTATE", SAPortInfoRecord, "portInfo.portPhysicalState"),
    R("IB_PIR_COMPMASK_LINKDWNDFLTSTATE", SAPortInfoRecord, "portInfo.linkDownDefaultState"),
    R("IB_PIR_COMPMASK_MKEYPROTBITS", SAPortInfoRecord, "portInfo.MKeyProtectBits"),
    R("IB_PIR_COMPMASK_RESV2", SAPortInfoRecord, "portInfo.reserved274"),
    R("IB_PIR_COMPMASK_LMC", SAPortInfoRecord, "portInfo.LMC"),
    R("IB_PIR_COMPMASK_LINKSPEEDACTIVE", SAPortInfoRecord, "portInfo.linkSpeedActive"),
    R("IB_PIR_COMPMASK_LINKSPEEDENABLE", SAPortInfoRecord, "portInfo.linkSpeedEnabled"),
    R("IB_PIR_COMPMASK_NEIGHBORMTU", SAPortInfoRecord, "portInfo.neighborMTU"),
    R("IB_PIR_COMPMASK_MASTERSMSL", SAPortInfoRecord, "portInfo.masterSMSL"),
    R("IB_PIR_COMPMASK_VLCAP", SAPortInfoRecord, "portInfo.VLCap"),
    R("IB_PIR_COMPMASK_INITTYPE", SAPortInfoRecord, "portInfo.initType"),
    R("IB_PIR_COMPMASK_VLHIGHLIMIT", SAPortInfoRecord, "portInfo.VLHighLimit"),
    R("IB_PIR_COMPMASK_VLARBHIGHCAP", SAPortInfoRecord, "portInfo.VLArbitrationHighCap"),
    R("IB_PIR_COMPMASK_VLARBLOWCAP", SAPortInfoRecord, "portInfo.VLArbitrationLowCap"),
    R("IB_PIR_COMPMASK_INITTYPEREPLY", SAPortInfoRecord, "portInfo.initTypeReply"),
    R("IB_PIR_COMPMASK_MTUCAP", SAPortInfoRecord, "portInfo.MTUCap"),
    R("IB_PIR_COMPMASK_VLSTALLCNT", SAPortInfoRecord, "portInfo.VLStallCount"),
    R("IB_PIR_COMPMASK_HOQLIFE", SAPortInfoRecord, "portInfo.HOQLife"),
    R("IB_PIR_COMPMASK_OPVLS", SAPortInfoRecord, "portInfo.operationalVLs"),
    R("IB_PIR_COMPMASK_PARENFIN", SAPortInfoRecord, "portInfo.partitionEnforcementInbound"),
    R("IB_PIR_COMPMASK_PARENFOUT", SAPortInfoRecord, "portInfo.partitionEnforcementOutbound"),
    R("IB_PIR_COMPMASK_FILTERRAWIN", SAPortInfoRecord, "portInfo.filterRawInbound"),
    R("IB_PIR_COMPMASK_FILTERRAWOUT", SAPortInfoRecord, "portInfo.filterRawOutbound"),
    R("IB_PIR_COMPMASK_MKEYVIO", SAPortInfoRecord, "portInfo.MKeyViolations"),
    R("IB_PIR_COMPMASK_PKEYVIO", SAPortInfoRecord, "portInfo.PKeyViolations"),
    R("IB_PIR_COMPMASK_QKEYVIO", SAPortInfoRecord, "portInfo.QKeyViolations"),
    R("IB_PIR_COMPMASK_GUIDCAP", SAPortInfoRecord, "portInfo.GUIDCap"),
    R("IB_PIR_COMPMASK_CLIENTREREG", SAPortInfoRecord, "portInfo.clientReregister"),
    R("IB_PIR_COMPMASK_RESV3", SAPortInfoRecord, "portInfo.multicastPKeyTrapSuppressionEnabled"),
    R("IB_PIR_COMPMASK_SUBNTO", SAPortInfoRecord, "portInfo.subnetTimeOut"),
    R("IB_PIR_COMPMASK_RESV4", SAPortInfoRecord, "portInfo.reserved416"),
    R("IB_PIR_COMPMASK_RESPTIME", SAPortInfoRecord, "portInfo.respTimeValue"),
    R("IB_PIR_COMPMASK_LOCALPHYERR", SAPortInfoRecord, "portInfo.localPhyErrors"),
    R("IB_PIR_COMPMASK_OVERRUNERR", SAPortInfoRecord, "portInfo.overrunErrors"),
    R("IB_PIR_COMPMASK_MAXCREDHINT", SAPortInfoRecord, "portInfo.maxCreditHint"),
    R("IB_PIR_COMPMASK_RESV5", SAPortInfoRecord, "portInfo.reserved448"),
    R("IB_PIR_COMPMASK_LINKRTLAT", SAPortInfoRecord, "portInfo.linkRoundTripLatency"),
    R("IB_PIR_COMPMASK_CAPMASK2", SAPortInfoRecord, "portInfo.capabilityMask2"),
    R("IB_PIR_COMPMASK_LINKSPDEXTACT", SAPortInfoRecord, "portInfo.linkSpeedExtActive"),
    R("IB_PIR_COMPMASK_LINKSPDEXTSUPP", SAPortInfoRecord, "portInfo.linkSpeedExtSupported"),
    R("IB_PIR_COMPMASK_RESV7", SAPortInfoRecord, "portInfo.reserved504"),
    R("IB_PIR_COMPMASK_LINKSPDEXTENAB", SAPortInfoRecord, "portInfo.linkSpeedExtEnabled"),

    R("IB_SLVL_COMPMASK_LID", SASLToVLMappingTableRecord, "LID"),
    R("IB_SLVL_COMPMASK_IN_PORT", SASLToVLMappingTableRecord, "inputPortNum"),
    R("IB_SLVL_COMPMASK_OUT_PORT", SASLToVLMappingTableRecord, "outputPortNum"),
    R("IB_SWIR_COMPMASK_LID", SASwitchInfoRecord, "LID"),
    R("IB_SWIR_COMPMASK_RESERVED1", SASwitchInfoRecord, "reserved16"),
    R("IB_LFTR_COMPMASK_LID", SALinearForwardingTableRecord, "LID"),
    R("IB_LFTR_COMPMASK_BLOCK", SALinearForwardingTableRecord, "blockNum"),
    R("IB_MFTR_COMPMASK_LID", SAMulticastForwardingTableRecord, "LID"),
    R("IB_MFTR_COMPMASK_POSITION", SAMulticastForwardingTableRecord, "position"),
    R("IB_MFTR_COMPMASK_RESERVED1", SAMulticastForwardingTableRecord, "reserved20"),
    R("IB_MFTR_COMPMASK_BLOCK", SAMulticastForwardingTableRecord, "blockNum"),
    R("IB_MFTR_COMPMASK_RESERVED2", SAMulticastForwardingTableRecord, "reserved32"),
    R("IB_SMIR_COMPMASK_LID", SASMInfoRecord, "LID"),
    R("IB_SMIR_COMPMASK_RESV0", SASMInfoRecord, "reserved16"),
    R("IB_SMIR_COMPMASK_GUID", SASMInfoRecord, "SMInfo.GUID"),
    R("IB_SMIR_COMPMASK_SMKEY", SASMInfoRecord, "SMInfo.SMKey"),
    R("IB_SMIR_COMPMASK_ACTCOUNT", SASMInfoRecord, "SMInfo.actCount"),
    R("IB_SMIR_COMPMASK_PRIORITY", SASMInfoRecord, "SMInfo.priority"),
    R("IB_SMIR_COMPMASK_SMSTATE", SASMInfoRecord, "SMInfo.SMState"),
    R("IB_LR_COMPMASK_FROM_LID", SALinkRecord, "fromLID"),
    R("IB_LR_COMPMASK_FROM_PORT", SALinkRecord, "fromPort"),
    R("IB_LR_COMPMASK_TO_PORT", SALinkRecord, "toPort"),
    R("IB_LR_COMPMASK_TO_LID", SALinkRecord, "toLID"),
    R("IB_GIR_COMPMASK_LID", SAGUIDInfoRecord, "LID"),
    R("IB_GIR_COMPMASK_BLOCKNUM", SAGUIDInfoRecord, "blockNum"),
    R("IB_GIR_COMPMASK_RESV1", SAGUIDInfoRecord, "reserved24"),
    R("IB_GIR_COMPMASK_RESV2", SAGUIDInfoRecord, "reserved32"),
    R("IB_GIR_COMPMASK_GID0", SAGUIDInfoRecord, "GUIDInfo.GUID0"),
    R("IB_GIR_COMPMASK_GID1", SAGUIDInfoRecord, "GUIDInfo.GUID1"),
    R("IB_GIR_COMPMASK_GID2", SAGUIDInfoRecord, "GUIDInfo.GUID2"),
    R("IB_GIR_COMPMASK_GID3", SAGUIDInfoRecord, "GUIDInfo.GUID3"),
    R("IB_GIR_COMPMASK_GID4", SAGUIDInfoRecord, "GUIDInfo.GUID4"),
    R("IB_GIR_COMPMASK_GID5", SAGUIDInfoRecord, "GUIDInfo.GUID5"),
    R("IB_GIR_COMPMASK_GID6", SAGUIDInfoRecord, "GUIDInfo.GUID6"),
    R("IB_GIR_COMPMASK_GID7", SAGUIDInfoRecord, "GUIDInfo.GUID7"),

    R("IB_SR_COMPMASK_SID", SAServiceRecord, "serviceID"),
    R("IB_SR_COMPMASK_SGID", SAServiceRecord, "serviceGID"),
    R("IB_SR_COMPMASK_SPKEY", SAServiceRecord, "servicePKey"),
    R("IB_SR_COMPMASK_RES1", SAServiceRecord, "reserved208"),
    R("IB_SR_COMPMASK_SLEASE", SAServiceRecord, "serviceLease"),
    R("IB_SR_COMPMASK_SKEY", SAServiceRecord, "serviceKey"),
    R("IB_SR_COMPMASK_SNAME", SAServiceRecord, "serviceName"),
    R("IB_SR_COMPMASK_SDATA8_0", SAServiceRecord, "serviceData8_0"),
    R("IB_SR_COMPMASK_SDATA8_7", SAServiceRecord, "serviceData8_7"),
    R("IB_SR_COMPMASK_SDATA8_15", SAServiceRecord, "serviceData8_15"),
    R("IB_SR_COMPMASK_SDATA16_0", SAServiceRecord, "serviceData16_0"),
    R("IB_SR_COMPMASK_SDATA16_7", SAServiceRecord, "serviceData16_7"),
    R("IB_SR_COMPMASK_SDATA32_0", SAServiceRecord, "serviceData32_0"),
    R("IB_SR_COMPMASK_SDATA32_3", SAServiceRecord, "serviceData32_3"),
    R("IB_SR_COMPMASK_SDATA64_0", SAServiceRecord, "serviceData64_0"),
    R("IB_SR_COMPMASK_SDATA64_1", SAServiceRecord, "serviceData64_1"),

    R("IB_PKEY_COMPMASK_LID", SAPKeyTableRecord, "LID"),
    R("IB_PKEY_COMPMASK_BLOCK", SAPKeyTableRecord, "blockNum"),
    R("IB_PKEY_COMPMASK_PORT", SAPKeyTableRecord, "portNum"),

    R("IB_PR_COMPMASK_SERVICEID_MSB", SAPathRecord, "serviceIDMSB"),
    R("IB_PR_COMPMASK_SERVICEID_LSB", SAPathRecord, "serviceIDLSB"),
    R("IB_PR_COMPMASK_DGID", SAPathRecord, "DGID"),
    R("IB_PR_COMPMASK_SGID", SAPathRecord, "SGID"),
    R("IB_PR_COMPMASK_DLID", SAPathRecord, "DLID"),
    R("IB_PR_COMPMASK_SLID", SAPathRecord, "SLID"),
    R("IB_PR_COMPMASK_RAWTRAFFIC", SAPathRecord, "rawTraffic"),
    R("IB_PR_COMPMASK_RESV0", SAPathRecord, "reserved353"),
    R("IB_PR_COMPMASK_FLOWLABEL", SAPathRecord, "flowLabel"),
    R("IB_PR_COMPMASK_HOPLIMIT", SAPathRecord, "hopLimit"),
    R("IB_PR_COMPMASK_TCLASS", SAPathRecord, "TClass"),
    R("IB_PR_COMPMASK_REVERSIBLE", SAPathRecord, "reversible"),
    R("IB_PR_COMPMASK_NUMBPATH", SAPathRecord, "numbPath"),
    R("IB_PR_COMPMASK_PKEY", SAPathRecord, "PKey"),
    R("IB_PR_COMPMASK_QOS_CLASS", SAPathRecord, "QOSClass"),
    R("IB_PR_COMPMASK_SL", SAPathRecord, "SL"),
    R("IB_PR_COMPMASK_MTUSELEC", SAPathRecord, "MTUSelector"),
    R("IB_PR_COMPMASK_MTU", SAPathRecord, "MTU"),
    R("IB_PR_COMPMASK_RATESELEC", SAPathRecord, "rateSelector"),
    R("IB_PR_COMPMASK_RATE", SAPathRecord, "rate"),
    R("IB_PR_COMPMASK_PKTLIFETIMESELEC", SAPathRecord, "packetLifeTimeSelector"),
    R("IB_PR_COMPMASK_PKTLIFETIME", SAPathRecord, "packetLifeTime"),

    R("IB_VLA_COMPMASK_LID", SAVLArbitrationTableRecord, "LID"),
    R("IB_VLA_COMPMASK_OUT_PORT", SAVLArbitrationTableRecord, "outputPortNum"),
    R("IB_VLA_COMPMASK_BLOCK", SAVLArbitrationTableRecord, "blockNum"),

    R("IB_MCR_COMPMASK_MGID", SAMCMemberRecord, "MGID"),
    R("IB_MCR_COMPMASK_PORT_GID", SAMCMemberRecord, "portGID"),
    R("IB_MCR_COMPMASK_QKEY", SAMCMemberRecord, "QKey"),
    R("IB_MCR_COMPMASK_MLID", SAMCMemberRecord, "MLID"),
    R("IB_MCR_COMPMASK_MTU_SEL", SAMCMemberRecord, "MTUSelector"),
    R("IB_MCR_COMPMASK_MTU", SAMCMemberRecord, "MTU"),
    R("IB_MCR_COMPMASK_TCLASS", SAMCMemberRecord, "TClass"),
    R("IB_MCR_COMPMASK_PKEY", SAMCMemberRecord, "PKey"),
    R("IB_MCR_COMPMASK_RATE_SEL", SAMCMemberRecord, "rateSelector"),
    R("IB_MCR_COMPMASK_RATE", SAMCMemberRecord, "rate"),
    R("IB_MCR_COMPMASK_LIFE_SEL", SAMCMemberRecord, "packetLifeTimeSelector"),
    R("IB_MCR_COMPMASK_LIFE", SAMCMemberRecord, "packetLifeTime"),
    R("IB_MCR_COMPMASK_SL", SAMCMemberRecord, "SL"),
    R("IB_MCR_COMPMASK_FLOW", SAMCMemberRecord, "flowLabel"),
    R("IB_MCR_COMPMASK_HOP", SAMCMemberRecord, "hopLimit"),
    R("IB_MCR_COMPMASK_SCOPE", SAMCMemberRecord, "scope"),
    R("IB_MCR_COMPMASK_JOIN_STATE", SAMCMemberRecord, "joinState"),
    R("IB_MCR_COMPMASK_PROXY", SAMCMemberRecord, "proxyJoin"),

    R("IB_MPR_COMPMASK_RAWTRAFFIC", SAMultiPathRecord, "rawTraffic"),
    R("IB_MPR_COMPMASK_RESV0", SAMultiPathRecord, "reserved1"),
    R("IB_MPR_COMPMASK_FLOWLABEL", SAMultiPathRecord, "flowLabel"),
    R("IB_MPR_COMPMASK_HOPLIMIT", SAMultiPathRecord, "hopLimit"),
    R("IB_MPR_COMPMASK_TCLASS", SAMultiPathRecord, "TClass"),
    R("IB_MPR_COMPMASK_REVERSIBLE", SAMultiPathRecord, "reversible"),
    R("IB_MPR_COMPMASK_NUMBPATH", SAMultiPathRecord, "numbPath"),
    R("IB_MPR_COMPMASK_PKEY", SAMultiPathRecord, "PKey"),
    R("IB_MPR_COMPMASK_QOS_CLASS", SAMultiPathRecord, "QOSClass"),
    R("IB_MPR_COMPMASK_SL", SAMultiPathRecord, "SL"),
    R("IB_MPR_COMPMASK_MTUSELEC", SAMultiPathRecord, "MTUSelector"),
    R("IB_MPR_COMPMASK_MTU", SAMultiPathRecord, "MTU"),
    R("IB_MPR_COMPMASK_RATESELEC", SAMultiPathRecord, "rateSelector"),
    R("IB_MPR_COMPMASK_RATE", SAMultiPathRecord, "rate"),
    R("IB_MPR_COMPMASK_PKTLIFETIMESELEC", SAMultiPathRecord, "packetLifeTimeSelector"),
    R("IB_MPR_COMPMASK_PKTLIFETIME", SAMultiPathRecord, "packetLifeTime"),
    R("IB_MPR_COMPMASK_SERVICEID_MSB", SAMultiPathRecord, "serviceID8MSB"),
    R("IB_MPR_COMPMASK_INDEPSELEC", SAMultiPathRecord, "independenceSelector"),
    R("IB_MPR_COMPMASK_RESV3", SAMultiPathRecord, "reserved114"),
    R("IB_MPR_COMPMASK_SGIDCOUNT", SAMultiPathRecord, "SGIDCount"),
    R("IB_MPR_COMPMASK_DGIDCOUNT", SAMultiPathRecord, "DGIDCount"),
    R("IB_MPR_COMPMASK_SERVICEID_LSB", SAMultiPathRecord, "serviceID56LSB"),

    R("IB_IIR_COMPMASK_SUBSCRIBERGID", SAInformInfoRecord, "subscriberGID"),
    R("IB_IIR_COMPMASK_ENUM", SAInformInfoRecord, "enumeration"),
    R("IB_IIR_COMPMASK_RESV0", SAInformInfoRecord, "reserved144"),
    R("IB_IIR_COMPMASK_GID", SAInformInfoRecord, "informInfo.GID"),
    R("IB_IIR_COMPMASK_LIDRANGEBEGIN", SAInformInfoRecord, "informInfo.LIDRangeBegin"),
    R("IB_IIR_COMPMASK_LIDRANGEEND", SAInformInfoRecord, "informInfo.LIDRangeEnd"),
    R("IB_IIR_COMPMASK_RESV1", SAInformInfoRecord, "informInfo.reserved160"),
    R("IB_IIR_COMPMASK_ISGENERIC", SAInformInfoRecord, "informInfo.isGeneric"),
    R("IB_IIR_COMPMASK_SUBSCRIBE", SAInformInfoRecord, "informInfo.subscribe"),
    R("IB_IIR_COMPMASK_TYPE", SAInformInfoRecord, "informInfo.type"),
    R("IB_IIR_COMPMASK_TRAPNUMB", SAInformInfoRecord, "informInfo.trapNumber"),
    R("IB_IIR_COMPMASK_QPN", SAInformInfoRecord, "informInfo.QPN"),
    R("IB_IIR_COMPMASK_RESV2", SAInformInfoRecord, "informInfo.reserved248"),
    R("IB_IIR_COMPMASK_RESPTIME", SAInformInfoRecord, "informInfo.respTimeValue"),
    R("IB_IIR_COMPMASK_RESV3", SAInformInfoRecord, "informInfo.reserved256"),
    R("IB_IIR_COMPMASK_PRODTYPE", SAInformInfoRecord, "informInfo.producerType"),
};
#undef R

struct SizeRow {
  const char* ctype;
  const StructDesc* desc;
};
#define S(c, T) SizeRow{c, &T::DESC}
const SizeRow SIZES[] = {
    S("ib_node_record_t", SANodeRecord),
    S("ib_portinfo_record_t", SAPortInfoRecord),
    S("ib_slvl_table_record_t", SASLToVLMappingTableRecord),
    S("ib_switch_info_record_t", SASwitchInfoRecord),
    S("ib_lft_record_t", SALinearForwardingTableRecord),
    S("ib_mft_record_t", SAMulticastForwardingTableRecord),
    S("ib_sminfo_record_t", SASMInfoRecord),
    S("ib_link_record_t", SALinkRecord),
    S("ib_guidinfo_record_t", SAGUIDInfoRecord),
    S("ib_service_record_t", SAServiceRecord),
    S("ib_pkey_table_record_t", SAPKeyTableRecord),
    S("ib_path_rec_t", SAPathRecord),
    S("ib_vl_arb_table_record_t", SAVLArbitrationTableRecord),
    S("ib_member_rec_t", SAMCMemberRecord),
    S("ib_multipath_rec_t", SAMultiPathRecord),
    S("ib_inform_info_record_t", SAInformInfoRecord),
    S("ib_inform_info_t", MADInformInfo),
    S("ib_class_port_info_t", MADClassPortInfo),
    S("ib_mad_notice_attr_t", MADNotice),
};
#undef S

// Compile and run a probe printing every constant; nullptr if no compiler
// or header is available (the check then fails: both are test dependencies).
std::map<std::string, unsigned long long>* probe() {
  static std::map<std::string, unsigned long long> values;
  static bool done = false, ok = false;
  if (done) return ok ? &values : nullptr;
  done = true;
  struct stat st;
  if (stat("/usr/include/infiniband/iba/ib_types.h", &st) != 0) return nullptr;
  char dir[] = "/tmp/ibagmp-probe-XXXXXX";
  if (!mkdtemp(dir)) return nullptr;
  std::string d = dir, src = d + "/p.c", exe = d + "/p";
  {
    std::ofstream o(src);
    o << "#include <stdio.h>\n#include <iba/ib_types.h>\nint main(void){\n";
    for (const auto& m : MASKS) o << "printf(\"%s %llu\\n\", \"" << m.macro << "\", (unsigned long long)cl_ntoh64(" << m.macro << "));\n";
    for (const auto& s : SIZES) o << "printf(\"%s %zu\\n\", \"" << s.ctype << "\", sizeof(" << s.ctype << "));\n";
    o << "return 0;}\n";
  }
  std::string cmd = "cc -w -I/usr/include/infiniband -o " + exe + " " + src + " 2>" + d + "/cc.err";
  if (std::system(cmd.c_str()) == 0) {
    if (FILE* p = popen(exe.c_str(), "r")) {
      char name[128];
      unsigned long long v;
      while (std::fscanf(p, "%127s %llu", name, &v) == 2) values[name] = v;
      ok = pclose(p) == 0 && !values.empty();
    }
  }
  std::string rm = "rm -rf " + d;
  (void)std::system(rm.c_str());
  return ok ? &values : nullptr;
}

std::optional<uint32_t> component_of(const StructDesc& d, std::string_view path) {
  for (const auto& l : leaves(d, true)) {
    if (l.path.size() != path.size()) continue;
    bool eq = true;
    for (size_t i = 0; i < path.size() && eq; ++i) eq = std::tolower(l.path[i]) == std::tolower(path[i]);
    if (eq) return l.component;
  }
  return std::nullopt;
}

}  // namespace

TEST(GmpSA, ComponentMasksMatchOpenSM) {
  auto* v = probe();
  ASSERT_NE(v, nullptr) << "could not compile a probe of OpenSM's ib_types.h (cc and libopensm-dev are test dependencies)";
  for (const auto& m : MASKS) {
    auto it = v->find(m.macro);
    ASSERT_NE(it, v->end()) << m.macro;
    auto comp = component_of(*m.desc, m.field);
    ASSERT_TRUE(comp) << m.desc->name << " has no field " << m.field;
    EXPECT_EQ(uint64_t(1) << *comp, it->second) << m.macro << " vs " << m.desc->name << "." << m.field;
  }
}

TEST(GmpSA, ComponentMaskOfAssignments) {
  // apply_assignments() is what saquery and set_guid use: the mask must be
  // the OR of the components named.
  SAPathRecord pr;
  uint64_t mask = apply_assignments(SAPathRecord::DESC, pr.raw(), {"DLID=12", "SGID=fe80::1", "numbPath=1"});
  EXPECT_EQ(mask, (1ull << 4) | (1ull << 3) | (1ull << 12));
  EXPECT_EQ(pr.DLID(), 12u);
  SANodeRecord nr;
  mask = apply_assignments(SANodeRecord::DESC, nr.raw(), {"nodeInfo.nodeGUID=0x0002c90300001491"});
  EXPECT_EQ(mask, 1ull << 7);
  EXPECT_EQ(nr.nodeInfo().nodeGUID(), 0x0002c90300001491ull);
  SAServiceRecord sr;
  mask = apply_assignments(SAServiceRecord::DESC, sr.raw(), {"serviceData8_3=7", "serviceData64_1=1"});
  EXPECT_EQ(mask, (1ull << 10) | (1ull << 36));
}

TEST(GmpSA, RecordSizesMatchOpenSM) {
  auto* v = probe();
  ASSERT_NE(v, nullptr) << "could not compile a probe of OpenSM's ib_types.h (cc and libopensm-dev are test dependencies)";
  for (const auto& s : SIZES) {
    auto it = v->find(s.ctype);
    ASSERT_NE(it, v->end()) << s.ctype;
    // OpenSM pads some records to the SA's 8-byte record stride.
    EXPECT_EQ((s.desc->size + 7) / 8 * 8, (it->second + 7) / 8 * 8) << s.ctype << " vs " << s.desc->name;
    EXPECT_GE(it->second, s.desc->size) << s.ctype << " vs " << s.desc->name;
  }
}

TEST(GmpSA, ServiceIdHalves) {
  SAPathRecord pr;
  sa_set_service_id(pr, 0x1122334455667788ull);
  EXPECT_EQ(pr.buf[0], 0x11);
  EXPECT_EQ(pr.buf[7], 0x88);
  EXPECT_EQ(sa_service_id(pr), 0x1122334455667788ull);
}
