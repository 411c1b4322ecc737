// saquery: read records from the SA.  Every query name and option of the
// reference, printed in its layouts, plus selection on any field of the
// record by name ("saquery NR nodeInfo.portGUID=0x0002c90300001491"), whose
// component mask comes from the IBA declarations (iba/introspect.h).
//
// The test bed's umad2sim has no RMPP: a GetTable reply longer than one MAD
// arrives cut to its first segment.  Only records that arrived whole are
// printed, and stderr says that the reply was truncated.
#include <cerrno>
#include <cstdarg>
#include <strings.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/config.h"
#include "core/devices.h"
#include "core/error.h"
#include "core/gmppath.h"
#include "core/nodemap.h"
#include "core/rpc.h"
#include "core/umad.h"
#include "iba/introspect.h"
#include "iba/refprint_smp.h"
#include "iba/sa.h"

namespace {

using Bytes = std::vector<uint8_t>;

// The reference's exit statuses: errno values.
struct Exit {
  int status;
};

std::string dots(const std::string& label, size_t width) {
  std::string s = label;
  while (s.size() < width) s += '.';
  return s;
}

void line(const char* label, size_t width, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
void line(const char* label, size_t width, const char* fmt, ...) {
  char v[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(v, sizeof v, fmt, ap);
  va_end(ap);
  std::printf("\t\t%s%s\n", dots(label, width).c_str(), v);
}

unsigned long long u(uint64_t v) { return static_cast<unsigned long long>(v); }

iba::FieldRef fref(const iba::StructDesc& d, const char* name) {
  auto f = iba::find_field(d, name);
  if (!f) throw std::logic_error(std::string("no field ") + name);
  return *f;
}

uint64_t cm(const iba::StructDesc& d, const char* name) { return iba::component_mask(fref(d, name)); }

// --- printers (the reference's layouts) ---------------------------------------------

void print_nr(const iba::SANodeRecord& r) {
  auto ni = r.nodeInfo();
  std::printf("NodeRecord dump:\n");
  line("lid", 24, "%llu", u(r.LID()));
  line("reserved", 24, "0x%X", 0u);
  line("base_version", 24, "0x%llX", u(ni.baseVersion()));
  line("class_version", 24, "0x%llX", u(ni.classVersion()));
  line("node_type", 24, "%s", iba::ref::fmt_node_type(ni.nodeType()).c_str());
  line("num_ports", 24, "%llu", u(ni.numPorts()));
  line("sys_guid", 24, "0x%016llx", u(ni.systemImageGUID()));
  line("node_guid", 24, "0x%016llx", u(ni.nodeGUID()));
  line("port_guid", 24, "0x%016llx", u(ni.portGUID()));
  line("partition_cap", 24, "0x%llX", u(ni.partitionCap()));
  line("device_id", 24, "0x%llX", u(ni.deviceID()));
  line("revision", 24, "0x%llX", u(ni.revision()));
  line("port_num", 24, "%llu", u(ni.localPortNum()));
  line("vendor_id", 24, "0x%llX", u(ni.vendorID()));
  line("NodeDescription", 24, "%s", r.nodeDescription().nodeString().c_str());
}

void print_pir(const iba::SAPortInfoRecord& r, bool show_keys) {
  std::printf("PortInfoRecord dump:\n\tRID\n");
  line("EndPortLid", 24, "%llu", u(r.endportLID()));
  line("PortNum", 24, "%llu", u(r.portNum()));
  line("Options", 24, "0x%llX", u(r.options()));
  std::printf("\tPortInfo dump:\n");
  iba::ref::SmpPrintOptions o;
  o.show_keys = show_keys;
  std::string s = iba::ref::smp_print(r.portInfo(), o);
  size_t pos = 0;
  while (pos < s.size()) {
    size_t nl = s.find('\n', pos);
    std::string l = s.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    std::printf("%s%s\n", l.starts_with("\t") ? "" : "\t\t", l.c_str());
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
}

void print_sl2vl(const iba::SASLToVLMappingTableRecord& r) {
  std::printf("SL2VLTableRecord dump:\n");
  line("LID", 27, "%llu", u(r.LID()));
  line("InPort", 27, "%llu", u(r.inputPortNum()));
  line("OutPort", 27, "%llu", u(r.outputPortNum()));
  std::printf("\t\tSL: 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14|15|\n\t\tVL:");
  auto t = r.SLToVLMappingTable();
  for (size_t i = 0; i < 16; ++i) std::printf("%2llu|", u(t.SLtoVL(i)));
  std::printf("\n");
}

void print_vlarb(const iba::SAVLArbitrationTableRecord& r) {
  std::printf("VLArbTableRecord dump:\n");
  line("LID", 27, "%llu", u(r.LID()));
  line("Port", 27, "%llu", u(r.outputPortNum()));
  line("Block", 27, "%llu", u(r.blockNum()));
  auto t = r.VLArbitrationTable();
  const uint8_t* b = t.raw();
  for (int row = 0; row < 2; ++row) {
    std::printf("\t\tVL    :");
    for (int i = 0; i < 16; ++i) std::printf("%2u|", b[(row * 16 + i) * 2] & 0xf);
    std::printf("\n\t\tWeight:");
    for (int i = 0; i < 16; ++i) std::printf("%2u|", b[(row * 16 + i) * 2 + 1]);
    std::printf("\n");
  }
}

void print_lr(const iba::SALinkRecord& r) {
  std::printf("LinkRecord dump:\n");
  line("FromLID", 27, "%llu", u(r.fromLID()));
  line("FromPort", 27, "%llu", u(r.fromPort()));
  line("ToPort", 27, "%llu", u(r.toPort()));
  line("ToLID", 27, "%llu", u(r.toLID()));
}

void print_pr(const iba::SAPathRecord& r) {
  std::printf("PathRecord dump:\n");
  line("service_id", 24, "0x%016llx", u(iba::sa_service_id(r)));
  line("dgid", 24, "%s", r.DGID().str().c_str());
  line("sgid", 24, "%s", r.SGID().str().c_str());
  line("dlid", 24, "%llu", u(r.DLID()));
  line("slid", 24, "%llu", u(r.SLID()));
  const uint8_t* b = r.raw();
  uint32_t hfr = uint32_t(b[44]) << 24 | uint32_t(b[45]) << 16 | uint32_t(b[46]) << 8 | b[47];
  line("hop_flow_raw", 24, "0x%X", hfr);
  line("tclass", 24, "0x%X", b[48]);
  line("num_path_revers", 24, "0x%X", b[49]);
  line("pkey", 24, "0x%X", unsigned(r.PKey()));
  line("qos_class", 24, "0x%X", unsigned(r.QOSClass()));
  line("sl", 24, "0x%X", unsigned(r.SL()));
  line("mtu", 24, "0x%X", b[54]);
  line("rate", 24, "0x%X", b[55]);
  line("pkt_life", 24, "0x%X", b[56]);
  line("preference", 24, "0x%X", b[57]);
  line("resv2", 24, "0x%012llX", u(iba::get_bits(b, 464, 48)));
}

void print_mcmr(const iba::SAMCMemberRecord& r) {
  const uint8_t* b = r.raw();
  std::printf("MCMember Record dump:\n");
  line("MGID", 24, "%s", r.MGID().str().c_str());
  line("PortGid", 24, "%s", r.portGID().str().c_str());
  line("qkey", 24, "0x%llx", u(r.QKey()));
  line("mlid", 24, "0x%llx", u(r.MLID()));
  line("mtu", 24, "0x%x", b[38]);
  line("TClass", 24, "0x%llx", u(r.TClass()));
  line("pkey", 24, "0x%llx", u(r.PKey()));
  line("rate", 24, "0x%x", b[42]);
  line("pkt_life", 24, "0x%x", b[43]);
  line("SL", 24, "0x%llx", u(r.SL()));
  line("FlowLabel", 24, "0x%llx", u(r.flowLabel()));
  line("HopLimit", 24, "0x%llx", u(r.hopLimit()));
  line("Scope", 24, "0x%llx", u(r.scope()));
  line("JoinState", 24, "0x%llx", u(r.joinState()));
  line("ProxyJoin", 24, "0x%llx", u(r.proxyJoin()));
}

void print_lftr(const iba::SALinearForwardingTableRecord& r) {
  std::printf("LFT Record dump:\n");
  line("LID", 27, "%llu", u(r.LID()));
  line("Block", 27, "%llu", u(r.blockNum()));
  std::printf("\t\tLFT:\n\t\tLID\tPort Number\n");
  auto t = r.linearForwardingTable();
  for (int i = 0; i < 64; ++i) std::printf("\t\t%llu\t%u\n", u(r.blockNum() * 64 + uint64_t(i)), t.raw()[i]);
  std::printf("\n");
}

void print_mftr(const iba::SAMulticastForwardingTableRecord& r) {
  std::printf("MFT Record dump:\n");
  line("LID", 27, "%llu", u(r.LID()));
  line("Position", 27, "%llu", u(r.position()));
  line("Block", 27, "%llu", u(r.blockNum()));
  std::printf("\t\tMFT:\n\t\tMLID\tPort Mask\n");
  auto t = r.multicastForwardingTable();
  for (int i = 0; i < 32; ++i)
    std::printf("\t\t0x%llx\t0x%x\n", u(0xc000 + r.blockNum() * 32 + uint64_t(i)),
                unsigned(t.raw()[2 * i]) << 8 | t.raw()[2 * i + 1]);
}

void print_gir(const iba::SAGUIDInfoRecord& r) {
  std::printf("GUIDInfo Record dump:\n");
  line("LID", 27, "%llu", u(r.LID()));
  line("Block", 27, "%llu", u(r.blockNum()));
  auto g = r.GUIDInfo();
  for (int i = 0; i < 8; ++i)
    line(("GUID " + std::to_string(i)).c_str(), 27, "0x%016llx", u(iba::get_bits(g.raw(), uint32_t(i) * 64, 64)));
}

void print_swir(const iba::SASwitchInfoRecord& r) {
  auto s = r.switchInfo();
  const uint8_t* b = s.raw();
  std::printf("SwitchInfoRecord dump:\n\t\tRID\n");
  line("LID", 40, "%llu", u(r.LID()));
  std::printf("\t\tSwitchInfo dump:\n");
  auto be16 = [&](int o) { return unsigned(b[o]) << 8 | b[o + 1]; };
  line("LinearFDBCap", 40, "0x%X", be16(0));
  line("RandomFDBCap", 40, "0x%X", be16(2));
  line("MulticastFDBCap", 40, "0x%X", be16(4));
  line("LinearFDBTop", 40, "0x%X", be16(6));
  line("DefaultPort", 40, "%u", b[8]);
  line("DefaultMulticastPrimaryPort", 40, "%u", b[9]);
  line("DefaultMulticastNotPrimaryPort", 40, "%u", b[10]);
  line("LifeTimeValue/PortStateChange/OpSL2VL", 40, "0x%X", b[11]);
  line("LIDsPerPort", 40, "0x%X", be16(12));
  line("PartitionEnforcementCap", 40, "0x%X", be16(14));
  line("flags", 40, "0x%X", b[16]);
  line("MulticastFDBTop", 40, "0x%X", be16(18));
}

void print_smir(const iba::SASMInfoRecord& r, bool show_keys) {
  auto s = r.SMInfo();
  std::printf("SMInfoRecord dump:\n\t\tRID\n");
  line("LID", 22, "%llu", u(r.LID()));
  std::printf("\t\tSMInfo dump:\n");
  line("GUID", 22, "0x%016llx", u(s.GUID()));
  if (show_keys)
    line("SM_Key", 22, "0x%016llx", u(s.SMKey()));
  else
    line("SM_Key", 22, "0x%016llx", 0ull);
  line("ActCount", 22, "%llu", u(s.actCount()));
  line("Priority", 22, "%llu", u(s.priority()));
  line("SMState", 22, "%llu", u(s.SMState()));
}

void print_cpi(const iba::MADClassPortInfo& c) {
  std::printf("SA ClassPortInfo:\n");
  const uint8_t* b = c.raw();
  auto be32 = [&](int o) { return uint32_t(b[o]) << 24 | uint32_t(b[o + 1]) << 16 | uint32_t(b[o + 2]) << 8 | b[o + 3]; };
  line("Base version", 25, "%llu", u(c.baseVersion()));
  line("Class version", 25, "%llu", u(c.classVersion()));
  line("Capability mask", 25, "0x%04llX", u(c.capabilityMask()));
  line("Capability mask 2", 25, "0x%08llX", u(c.capabilityMask2()));
  line("Response time value", 25, "0x%02llX", u(c.respTimeValue()));
  line("Redirect GID", 25, "%s", c.redirectGID().str().c_str());
  line("Redirect TC/SL/FL", 25, "0x%08X", be32(24));
  line("Redirect LID", 25, "%llu", u(c.redirectLID()));
  line("Redirect PKey", 25, "0x%04llX", u(c.redirectPKey()));
  line("Redirect QP", 25, "0x%08X", be32(32));
  line("Redirect QKey", 25, "0x%08llX", u(c.redirectQKey()));
  line("Trap GID", 25, "%s", c.trapGID().str().c_str());
  line("Trap TC/SL/FL", 25, "0x%08X", be32(56));
  line("Trap LID", 25, "%llu", u(c.trapLID()));
  line("Trap PKey", 25, "0x%04llX", u(c.trapPKey()));
  line("Trap HL/QP", 25, "0x%08X", be32(64));
  line("Trap QKey", 25, "0x%08llX", u(c.trapQKey()));
}

void print_sr(const iba::SAServiceRecord& r) {
  std::printf("ServiceRecord dump:\n");
  line("ServiceID", 24, "0x%016llx", u(r.serviceID()));
  line("ServiceGID", 24, "%s", r.serviceGID().str().c_str());
  line("ServiceP_Key", 24, "0x%llx", u(r.servicePKey()));
  line("ServiceLease", 24, "0x%llx", u(r.serviceLease()));
  auto k = r.serviceKey();
  char kb[64];
  std::snprintf(kb, sizeof kb, "0x");
  for (auto c : k) std::snprintf(kb + std::strlen(kb), sizeof kb - std::strlen(kb), "%02x", c);
  line("ServiceKey", 24, "%s", kb);
  line("ServiceName", 24, "%s", r.serviceName().c_str());
}

void print_iir(const iba::SAInformInfoRecord& r) {
  auto ii = r.informInfo();
  std::printf("InformInfoRecord dump:\n\t\tRID\n");
  line("SubscriberGID", 24, "%s", r.subscriberGID().str().c_str());
  line("SubscriberEnum", 24, "0x%llx", u(r.enumeration()));
  std::printf("\t\tInformInfo dump:\n");
  line("subscriber_gid", 24, "%s", ii.GID().str().c_str());
  line("lid_range_begin", 24, "%llu", u(ii.LIDRangeBegin()));
  line("lid_range_end", 24, "%llu", u(ii.LIDRangeEnd()));
  line("is_generic", 24, "0x%llx", u(ii.isGeneric()));
  line("subscribe", 24, "0x%llx", u(ii.subscribe()));
  line("trap_type", 24, "0x%llx", u(ii.type()));
  line("trap_num", 24, "%llu", u(ii.trapNumber()));
  line("qpn", 24, "0x%06llx", u(ii.QPN()));
  line("resp_time_val", 24, "0x%llx", u(ii.respTimeValue()));
  line("producer_type", 24, "0x%06llx", u(ii.producerType()));
}

void print_pktr(const iba::SAPKeyTableRecord& r) {
  std::printf("PKeyTableRecord dump:\n");
  line("LID", 27, "%llu", u(r.LID()));
  line("Port", 27, "%llu", u(r.portNum()));
  line("Block", 27, "%llu", u(r.blockNum()));
  std::printf("\t\tPKey Table:\n");
  auto t = r.PKeyTable();
  for (int i = 0; i < 32; ++i) {
    std::printf("0x%04x", unsigned(t.raw()[2 * i]) << 8 | t.raw()[2 * i + 1]);
    std::printf((i % 8 == 7) ? "\n" : "    ");
  }
  std::printf("\n");
}

// --- the query table ------------------------------------------------------------------

struct Query {
  const char* name;
  const char* alias;
  const char* args;
  const iba::StructDesc* desc;
  uint16_t attr;
};

const Query kQueries[] = {
    {"ClassPortInfo", "CPI", "", &iba::MADClassPortInfo::DESC, 0x0001},
    {"NodeRecord", "NR", "[lid]", &iba::SANodeRecord::DESC, 0x0011},
    {"PortInfoRecord", "PIR", "[[lid]/[port]/[options]]", &iba::SAPortInfoRecord::DESC, 0x0012},
    {"SL2VLTableRecord", "SL2VL", "[[lid]/[in_port]/[out_port]]", &iba::SASLToVLMappingTableRecord::DESC, 0x0013},
    {"PKeyTableRecord", "PKTR", "[[lid]/[port]/[block]]", &iba::SAPKeyTableRecord::DESC, 0x0033},
    {"VLArbitrationTableRecord", "VLAR", "[[lid]/[port]/[block]]", &iba::SAVLArbitrationTableRecord::DESC, 0x0036},
    {"InformInfoRecord", "IIR", "[subscriber_gid]", &iba::SAInformInfoRecord::DESC, 0x00F3},
    {"LinkRecord", "LR", "[[from_lid]/[from_port]] [[to_lid]/[to_port]]", &iba::SALinkRecord::DESC, 0x0020},
    {"ServiceRecord", "SR", "", &iba::SAServiceRecord::DESC, 0x0031},
    {"PathRecord", "PR", "", &iba::SAPathRecord::DESC, 0x0035},
    {"MCMemberRecord", "MCMR", "", &iba::SAMCMemberRecord::DESC, 0x0038},
    {"LFTRecord", "LFTR", "[[lid]/[block]]", &iba::SALinearForwardingTableRecord::DESC, 0x0015},
    {"MFTRecord", "MFTR", "[[mlid]/[position]/[block]]", &iba::SAMulticastForwardingTableRecord::DESC, 0x0017},
    {"GUIDInfoRecord", "GIR", "[[lid]/[block]]", &iba::SAGUIDInfoRecord::DESC, 0x0030},
    {"SwitchInfoRecord", "SWIR", "[lid]", &iba::SASwitchInfoRecord::DESC, 0x0014},
    {"SMInfoRecord", "SMIR", "[lid]", &iba::SASMInfoRecord::DESC, 0x0018},
};

const Query* find_query(const std::string& s) {
  for (const auto& q : kQueries)
    if (strcasecmp(s.c_str(), q.name) == 0 || strcasecmp(s.c_str(), q.alias) == 0) return &q;
  return nullptr;
}

// "a/b/c": the numbers given (nullopt for empty parts).
std::vector<std::optional<uint64_t>> split_slash(const std::string& s) {
  std::vector<std::optional<uint64_t>> out;
  size_t pos = 0;
  for (;;) {
    size_t sl = s.find('/', pos);
    std::string p = s.substr(pos, sl == std::string::npos ? std::string::npos : sl - pos);
    if (p.empty())
      out.push_back(std::nullopt);
    else
      out.push_back(std::strtoull(p.c_str(), nullptr, 0));
    if (sl == std::string::npos) break;
    pos = sl + 1;
  }
  return out;
}

class SaQuery : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_flag("-p", opt_p_, "get PathRecord info");
    app.add_flag("-N", opt_N_, "get NodeRecord info");
    app.add_flag("-L", opt_L_, "return the Lids of the name specified");
    app.add_flag("-l", opt_l_, "return the unique Lid of the name specified");
    app.add_flag("-G", opt_G_, "return the Guids of the name specified");
    app.add_flag("-O", opt_O_, "return name for the Lid specified");
    app.add_flag("-U", opt_U_, "return name for the Guid specified");
    app.add_flag("-s", opt_s_, "return the PortInfoRecords with isSM or isSMdisabled capability mask bit on");
    app.add_flag("-g", opt_g_, "get multicast group info");
    app.add_flag("-m", opt_m_, "get multicast member info");
    app.add_flag("-x", opt_x_, "get LinkRecord info");
    app.add_flag("-c", opt_c_, "get the SA's class port info");
    app.add_flag("-S", opt_S_, "get ServiceRecord info");
    app.add_flag("-I", opt_I_, "get InformInfoRecord (subscription) info");
    app.add_flag("-D,--list", opt_D_, "the node desc of the CA's");
    app.add_option("--src-to-dst", src_to_dst_, "get a PathRecord for <src:dst>")->option_text("<src:dst>");
    app.add_option("--sgid-to-dgid", sgid_to_dgid_, "get a PathRecord for <sgid-dgid>")->option_text("<sgid-dgid>");
    app.add_option("--slid", pr_.slid, "Source LID (PathRecord)")->option_text("<lid>");
    app.add_option("--dlid", pr_.dlid, "Destination LID (PathRecord)")->option_text("<lid>");
    app.add_option("--mlid", pr_.mlid, "Multicast LID (MCMemberRecord)")->option_text("<lid>");
    app.add_option("--sgid", pr_.sgid, "Source GID (IPv6 format) (PathRecord)")->option_text("<gid>");
    app.add_option("--dgid", pr_.dgid, "Destination GID (IPv6 format) (PathRecord)")->option_text("<gid>");
    app.add_option("--gid", pr_.gid, "Port GID (MCMemberRecord)")->option_text("<gid>");
    app.add_option("--mgid", pr_.mgid, "Multicast GID (MCMemberRecord)")->option_text("<gid>");
    app.add_option("-r,--reversible", pr_.reversible, "Reversible path (PathRecord)");
    app.add_option("-n,--numb_path", pr_.numb_path, "Number of paths (PathRecord)");
    app.add_option("--pkey", pr_.pkey, "P_Key (PathRecord, MCMemberRecord)");
    app.add_option("-Q,--qos_class", pr_.qos_class, "QoS Class (PathRecord)");
    app.add_option("--sl", pr_.sl, "Service level (PathRecord, MCMemberRecord)");
    app.add_option("-M,--mtu", pr_.mtu, "MTU and selector (PathRecord, MCMemberRecord)");
    app.add_option("-R,--rate", pr_.rate, "Rate and selector (PathRecord, MCMemberRecord)");
    app.add_option("--pkt_lifetime", pr_.pkt_lifetime, "Packet lifetime and selector (PathRecord, MCMemberRecord)");
    app.add_option("-q,--qkey", pr_.qkey, "Q_Key (MCMemberRecord)");
    app.add_option("-T,--tclass", pr_.tclass, "Traffic Class (PathRecord, MCMemberRecord)");
    app.add_option("-F,--flow_label", pr_.flow_label, "Flow Label (PathRecord, MCMemberRecord)");
    app.add_option("-H,--hop_limit", pr_.hop_limit, "Hop limit (PathRecord, MCMemberRecord)");
    app.add_option("--scope", pr_.scope, "Scope (MCMemberRecord)");
    app.add_option("-J,--join_state", pr_.join_state, "Join state (MCMemberRecord)");
    app.add_option("-X,--proxy_join", pr_.proxy_join, "Proxy join (MCMemberRecord)");
    app.add_option("--service_id", pr_.service_id, "ServiceID (PathRecord)");
    app.add_flag("-K,--show_keys", show_keys_, "display security keys in output");
    ibtool::add_common_options(app, ibtool::opt::Gmp | ibtool::opt::NodeNameMap);
    app.add_option("args", args_, "[query-name] [<name> | <lid> | <guid>] [field=value ...]");
  }

  int run() override {
    try {
      return work();
    } catch (const Exit& e) {
      return e.status;
    } catch (const ibcore::MADClassError& e) {
      // An SA status: the reference prints the status and exits with EIO.
      std::fprintf(stderr, "ERROR: Query result returned 0x%04X, %s\n", e.status,
                   iba::status_text(iba::mgmt::SUBN_ADM, e.status).c_str());
      if (ibcore::config().verbose) ibcore::report(e);
      return EIO;
    } catch (const ibcore::MADTimeoutError& e) {
      ibcore::report(e);
      std::fprintf(stderr, "Query SA failed: %s\n", std::strerror(ETIMEDOUT));
      return ETIMEDOUT;
    } catch (const std::exception& e) {
      return ibcore::report(e);
    }
  }

private:
  struct PrOpts {
    std::optional<uint64_t> slid, dlid, mlid, reversible, numb_path, pkey, qos_class, sl, mtu, rate, pkt_lifetime,
        qkey, tclass, flow_label, hop_limit, scope, join_state, proxy_join, service_id;
    std::string sgid, dgid, gid, mgid;
  };

  template <class T>
  std::vector<T> table(const T& q, uint64_t mask) {
    auto t = mad_->SubnAdmGetTable(q, mask, &sa_);
    if (t.truncated)
      std::fprintf(stderr,
                   "W: The SA's %s reply was truncated (no RMPP on this transport): showing the %zu "
                   "record(s) that arrived whole.\n",
                   T::DESC.name, t.records.size());
    return t.records;
  }

  // Apply name=value selectors to a record; returns their component mask.
  uint64_t selectors(const iba::StructDesc& d, uint8_t* buf) {
    if (sel_.empty()) return 0;
    try {
      return iba::apply_assignments(d, buf, sel_);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "E: %s\n", e.what());
      throw Exit{EINVAL};
    }
  }

  std::vector<iba::SANodeRecord> all_nodes() {
    if (!nodes_) nodes_ = table(iba::SANodeRecord{}, 0);
    return *nodes_;
  }

  // A LID from a name (node description), a LID or a GUID, as the reference.
  uint16_t lookup_lid(const std::string& s) {
    if (s.empty()) return 0;
    char* end = nullptr;
    unsigned long v = std::strtoul(s.c_str(), &end, 0);
    if (end && *end == '\0') {
      if (v > 0xffff) {
        std::fprintf(stderr, "Invalid lid specified: \"%s\"\n", s.c_str());
        throw Exit{EINVAL};
      }
      return uint16_t(v);
    }
    for (const auto& n : all_nodes())
      if (n.nodeDescription().nodeString() == s) return uint16_t(n.LID());
    std::fprintf(stderr, "Failed to find lid for \"%s\": %s\n", s.c_str(), std::strerror(ENONET));
    throw Exit{ENONET};
  }

  int work() {
    auto& cfg = ibcore::config();
    // Positional arguments: [query] [target] and field=value selectors.
    std::vector<std::string> pos;
    for (const auto& a : args_) (a.find('=') != std::string::npos ? sel_ : pos).push_back(a);
    const Query* q = nullptr;
    if (!pos.empty() && (q = find_query(pos[0]))) pos.erase(pos.begin());
    if (!q && !pos.empty() && !sel_.empty() && !opt_any()) {
      std::fprintf(stderr, "E: unknown query name '%s'\n", pos[0].c_str());
      return EINVAL;
    }
    std::string target = pos.empty() ? "" : pos[0];
    std::string target2 = pos.size() > 1 ? pos[1] : "";

    const ibcore::EndPort& ep = ibcore::get_end_port(cfg.ca, cfg.port);
    ibcore::Umad umad(ep);
    ibcore::MadTransactor mad(umad);
    mad_ = &mad;
    sa_ = ibcore::sa_path_from_config(mad);

    if (opt_c_) q = find_query("CPI");
    if (opt_p_ || !src_to_dst_.empty() || !sgid_to_dgid_.empty()) q = find_query("PR");
    if (opt_x_) q = find_query("LR");
    if (opt_S_) q = find_query("SR");
    if (opt_I_) q = find_query("IIR");
    if (opt_g_ || opt_m_) q = find_query("MCMR");
    if (opt_N_) q = find_query("NR");

    if (opt_D_) return list_cas();
    if (opt_L_ || opt_l_ || opt_G_) return name_to(target);
    if (opt_O_ || opt_U_) return to_name(target);
    if (opt_s_) return sm_ports();
    if (!q) q = find_query("NR");
    std::string a = q->alias;
    if (a == "CPI") {
      iba::MADClassPortInfo cpi = mad.SubnAdmGet(iba::MADClassPortInfo{}, 0, &sa_);
      print_cpi(cpi);
      return 0;
    }
    if (a == "NR") return node_records(target);
    if (a == "PIR") {
      iba::SAPortInfoRecord r;
      uint64_t m = 0;
      auto p = split_slash(target);
      const auto& D = r.DESC;
      if (!target.empty() && p.size() > 0 && p[0]) r.set_endportLID(*p[0]), m |= cm(D, "endportLID");
      if (p.size() > 1 && p[1]) r.set_portNum(*p[1]), m |= cm(D, "portNum");
      if (p.size() > 2 && p[2]) r.set_options(*p[2]), m |= cm(D, "options");
      m |= selectors(D, r.raw());
      for (const auto& x : table(r, m)) print_pir(x, show_keys_);
      return 0;
    }
    if (a == "SL2VL") return simple<iba::SASLToVLMappingTableRecord>(target, {"LID", "inputPortNum", "outputPortNum"},
                                                                     print_sl2vl);
    if (a == "PKTR") return simple<iba::SAPKeyTableRecord>(target, {"LID", "portNum", "blockNum"}, print_pktr);
    if (a == "VLAR")
      return simple<iba::SAVLArbitrationTableRecord>(target, {"LID", "outputPortNum", "blockNum"}, print_vlarb);
    if (a == "LFTR") return simple<iba::SALinearForwardingTableRecord>(target, {"LID", "blockNum"}, print_lftr);
    if (a == "MFTR")
      return simple<iba::SAMulticastForwardingTableRecord>(target, {"LID", "position", "blockNum"}, print_mftr);
    if (a == "GIR") return simple<iba::SAGUIDInfoRecord>(target, {"LID", "blockNum"}, print_gir);
    if (a == "SWIR") return simple<iba::SASwitchInfoRecord>(target, {"LID"}, print_swir);
    if (a == "SMIR")
      return simple<iba::SASMInfoRecord>(target, {"LID"}, [this](const iba::SASMInfoRecord& r) {
        print_smir(r, show_keys_);
      });
    if (a == "LR") return links(target, target2);
    if (a == "SR") return simple<iba::SAServiceRecord>("", {}, print_sr);
    if (a == "IIR") {
      iba::SAInformInfoRecord r;
      uint64_t m = 0;
      if (!target.empty()) {
        auto g = iba::parse_gid(target);
        if (!g) {
          std::fprintf(stderr, "Invalid GID specified: \"%s\"\n", target.c_str());
          return EINVAL;
        }
        r.set_subscriberGID(*g);
        m |= cm(r.DESC, "subscriberGID");
      }
      m |= selectors(r.DESC, r.raw());
      for (const auto& x : table(r, m)) print_iir(x);
      return 0;
    }
    if (a == "MCMR") return mcmr(target);
    if (a == "PR") return paths(target, target2);
    return 0;
  }

  bool opt_any() const {
    return opt_p_ || opt_N_ || opt_L_ || opt_l_ || opt_G_ || opt_O_ || opt_U_ || opt_s_ || opt_g_ || opt_m_ || opt_x_ ||
           opt_c_ || opt_S_ || opt_I_ || opt_D_;
  }

  // A record keyed by "a/b/c" numbers on the named fields.
  template <class T, class P>
  int simple(const std::string& target, std::vector<const char*> keys, P print) {
    T r;
    uint64_t m = 0;
    if (!target.empty()) {
      auto p = split_slash(target);
      for (size_t i = 0; i < p.size() && i < keys.size(); ++i)
        if (p[i]) {
          auto f = fref(T::DESC, keys[i]);
          iba::set_bits(r.raw(), f.bit_off, f.width(), *p[i]);
          m |= iba::component_mask(f);
        }
    }
    m |= selectors(T::DESC, r.raw());
    for (const auto& x : table(r, m)) print(x);
    return 0;
  }

  int node_records(const std::string& target) {
    iba::SANodeRecord r;
    uint64_t m = 0;
    if (!target.empty()) {
      r.set_LID(lookup_lid(target));
      m |= cm(r.DESC, "LID");
    }
    m |= selectors(r.DESC, r.raw());
    for (const auto& x : table(r, m)) print_nr(x);
    return 0;
  }

  int links(const std::string& from, const std::string& to) {
    iba::SALinkRecord r;
    uint64_t m = 0;
    const auto& D = r.DESC;
    if (!from.empty()) {
      auto p = split_slash(from);
      if (p[0]) r.set_fromLID(lookup_lid(from.substr(0, from.find('/')))), m |= cm(D, "fromLID");
      if (p.size() > 1 && p[1]) r.set_fromPort(*p[1]), m |= cm(D, "fromPort");
    }
    if (!to.empty()) {
      auto p = split_slash(to);
      if (p[0]) r.set_toLID(lookup_lid(to.substr(0, to.find('/')))), m |= cm(D, "toLID");
      if (p.size() > 1 && p[1]) r.set_toPort(*p[1]), m |= cm(D, "toPort");
    }
    m |= selectors(D, r.raw());
    for (const auto& x : table(r, m)) print_lr(x);
    return 0;
  }

  iba::Gid gid_arg(const std::string& s) {
    auto g = iba::parse_gid(s);
    if (!g) {
      std::fprintf(stderr, "invalid GID: %s\n", s.c_str());
      throw Exit{EINVAL};
    }
    return *g;
  }

  int paths(const std::string& t1, const std::string& t2) {
    iba::SAPathRecord r;
    const auto& D = r.DESC;
    uint64_t m = 0;
    auto setf = [&](const char* f, std::optional<uint64_t> v) {
      if (!v) return;
      auto ref = fref(D, f);
      iba::set_bits(r.raw(), ref.bit_off, ref.width(), *v);
      m |= iba::component_mask(ref);
    };
    // Positional arguments do not select paths (as in the reference).
    (void)t1;
    (void)t2;
    std::string src, dst;
    if (!src_to_dst_.empty()) {
      auto c = src_to_dst_.find(':');
      src = src_to_dst_.substr(0, c);
      dst = c == std::string::npos ? "" : src_to_dst_.substr(c + 1);
    }
    if (!src.empty()) setf("SLID", lookup_lid(src));
    if (!dst.empty()) setf("DLID", lookup_lid(dst));
    if (!sgid_to_dgid_.empty()) {
      auto d = sgid_to_dgid_.find('-');
      r.set_SGID(gid_arg(sgid_to_dgid_.substr(0, d)));
      m |= cm(D, "SGID");
      if (d != std::string::npos) {
        r.set_DGID(gid_arg(sgid_to_dgid_.substr(d + 1)));
        m |= cm(D, "DGID");
      }
    }
    setf("SLID", pr_.slid);
    setf("DLID", pr_.dlid);
    if (!pr_.sgid.empty()) r.set_SGID(gid_arg(pr_.sgid)), m |= cm(D, "SGID");
    if (!pr_.dgid.empty()) r.set_DGID(gid_arg(pr_.dgid)), m |= cm(D, "DGID");
    setf("reversible", pr_.reversible);
    setf("numbPath", pr_.numb_path);
    setf("PKey", pr_.pkey);
    setf("QOSClass", pr_.qos_class);
    setf("SL", pr_.sl);
    setf("TClass", pr_.tclass);
    setf("flowLabel", pr_.flow_label);
    setf("hopLimit", pr_.hop_limit);
    if (pr_.service_id) {
      iba::sa_set_service_id(r, *pr_.service_id);
      m |= cm(D, "serviceIDMSB") | cm(D, "serviceIDLSB");
    }
    m |= selectors(D, r.raw());
    for (const auto& x : table(r, m)) print_pr(x);
    return 0;
  }

  int mcmr(const std::string& target) {
    iba::SAMCMemberRecord r;
    const auto& D = r.DESC;
    uint64_t m = 0;
    auto setf = [&](const char* f, std::optional<uint64_t> v) {
      if (!v) return;
      auto ref = fref(D, f);
      iba::set_bits(r.raw(), ref.bit_off, ref.width(), *v);
      m |= iba::component_mask(ref);
    };
    std::optional<uint64_t> mlid = pr_.mlid;
    if (opt_m_ && !target.empty()) mlid = std::strtoull(target.c_str(), nullptr, 0);
    setf("MLID", mlid);
    if (!pr_.mgid.empty()) r.set_MGID(gid_arg(pr_.mgid)), m |= cm(D, "MGID");
    if (!pr_.gid.empty()) r.set_portGID(gid_arg(pr_.gid)), m |= cm(D, "portGID");
    setf("QKey", pr_.qkey);
    setf("PKey", pr_.pkey);
    setf("SL", pr_.sl);
    setf("TClass", pr_.tclass);
    setf("flowLabel", pr_.flow_label);
    setf("hopLimit", pr_.hop_limit);
    setf("scope", pr_.scope);
    setf("joinState", pr_.join_state);
    setf("proxyJoin", pr_.proxy_join);
    m |= selectors(D, r.raw());
    auto recs = table(r, m);
    if (opt_g_) {
      for (const auto& x : recs) {
        const uint8_t* b = x.raw();
        std::printf("MCMemberRecord group dump:\n");
        line("MGID", 24, "%s", x.MGID().str().c_str());
        line("Mlid", 24, "0x%llX", u(x.MLID()));
        line("Mtu", 24, "0x%X", b[38]);
        line("pkey", 24, "0x%llX", u(x.PKey()));
        line("Rate", 24, "0x%X", b[42]);
        line("SL", 24, "0x%llX", u(x.SL()));
      }
      return 0;
    }
    if (opt_m_) {
      for (const auto& x : recs) {
        std::printf("MCMemberRecord member dump:\n");
        line("MGID", 24, "%s", x.MGID().str().c_str());
        line("Mlid", 24, "0x%llX", u(x.MLID()));
        line("PortGid", 24, "%s", x.portGID().str().c_str());
        line("ScopeState", 24, "0x%llX", u(x.scope() << 4 | x.joinState()));
        line("ProxyJoin", 24, "0x%llX", u(x.proxyJoin()));
        std::string name = "<unknown>";
        for (const auto& n : all_nodes())
          if (n.nodeInfo().portGUID() == x.portGID().guid() && x.portGID().guid())
            name = n.nodeDescription().nodeString();
        line("NodeDescription", 24, "%s", name.c_str());
      }
      return 0;
    }
    for (const auto& x : recs) print_mcmr(x);
    return 0;
  }

  int list_cas() {
    std::printf("   LID \"name\"\n================\n");
    for (const auto& n : all_nodes())
      if (n.nodeInfo().nodeType() == 1)
        std::printf("%6llu  \"%s\"\n", u(n.LID()), n.nodeDescription().nodeString().c_str());
    return 0;
  }

  int name_to(const std::string& name) {
    for (const auto& n : all_nodes()) {
      if (n.nodeDescription().nodeString() != name) continue;
      if (opt_G_)
        std::printf("0x%016llx\n", u(n.nodeInfo().portGUID()));
      else
        std::printf("%llu\n", u(n.LID()));
      if (opt_l_) break;
    }
    return 0;
  }

  int to_name(const std::string& key) {
    uint64_t v = std::strtoull(key.c_str(), nullptr, 0);
    for (const auto& n : all_nodes()) {
      bool hit = opt_O_ ? n.LID() == v : n.nodeInfo().portGUID() == v;
      if (hit) {
        std::printf("%s\n", n.nodeDescription().nodeString().c_str());
        break;
      }
    }
    return 0;
  }

  int sm_ports() {
    const auto& D = iba::SAPortInfoRecord::DESC;
    auto cap = fref(D, "portInfo.capabilityMask");
    for (int pass = 0; pass < 2; ++pass) {
      std::printf(pass == 0 ? "IsSM ports\n" : "\nIsSMdisabled ports\n");
      iba::SAPortInfoRecord r;
      iba::set_bits(r.raw(), cap.bit_off, cap.width(), pass == 0 ? 1u << 1 : 1u << 10);
      for (const auto& x : table(r, iba::component_mask(cap))) {
        auto pi = x.portInfo();
        std::printf("PortInfoRecord dump:\n");
        line("EndPortLid", 24, "%llu", u(x.endportLID()));
        line("PortNum", 24, "%llu", u(x.portNum()));
        line("base_lid", 24, "%llu", u(pi.LID()));
        line("master_sm_base_lid", 24, "%llu", u(pi.masterSMLID()));
        line("capability_mask", 24, "0x%llX", u(pi.capabilityMask()));
      }
    }
    return 0;
  }

  bool opt_p_ = false, opt_N_ = false, opt_L_ = false, opt_l_ = false, opt_G_ = false, opt_O_ = false, opt_U_ = false,
       opt_s_ = false, opt_g_ = false, opt_m_ = false, opt_x_ = false, opt_c_ = false, opt_S_ = false, opt_I_ = false,
       opt_D_ = false, show_keys_ = false;
  std::string src_to_dst_, sgid_to_dgid_;
  PrOpts pr_;
  std::vector<std::string> args_, sel_;
  ibcore::MadTransactor* mad_ = nullptr;
  ibcore::IBPath sa_;
  std::optional<std::vector<iba::SANodeRecord>> nodes_;
};

}  // namespace

IBTOOL_COMMAND({.name = "saquery",
                .aliases = {},
                .summary = "query records from the subnet administrator (SA)",
                .description =
                    "Reads SA records: ClassPortInfo (CPI), NodeRecord (NR, the default), "
                    "PortInfoRecord (PIR), SL2VLTableRecord (SL2VL), PKeyTableRecord (PKTR), "
                    "VLArbitrationTableRecord (VLAR), InformInfoRecord (IIR), LinkRecord (LR), "
                    "ServiceRecord (SR), PathRecord (PR), MCMemberRecord (MCMR), LFTRecord (LFTR), "
                    "MFTRecord (MFTR), GUIDInfoRecord (GIR), SwitchInfoRecord (SWIR), SMInfoRecord "
                    "(SMIR).  Any field of the record can select: name=value arguments set the field "
                    "and its SA component mask (e.g. `saquery NR nodeInfo.portGUID=0x0002c90300001491`).  "
                    "A reply that arrives truncated (no RMPP) prints the records that arrived whole "
                    "and says so on stderr.",
                .usage = "[options] [query-name] [<name> | <lid> | <guid>] [field=value ...]",
                .examples = "  saquery                 # every NodeRecord\n"
                            "  saquery PIR 12/1        # PortInfoRecord of lid 12 port 1\n"
                            "  saquery -x              # LinkRecords\n"
                            "  saquery --src-to-dst 1:4\n"
                            "  saquery NR nodeInfo.nodeType=2",
                .make = [] { return std::make_unique<SaQuery>(); }});
