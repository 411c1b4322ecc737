#include "core/rpc/saquery.h"

#include <strings.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "core/base/error.h"
#include "core/out/log.h"
#include "core/rpc/satransactor.h"
#include "iba/mad.h"
#include "iba/refprint_sa.h"
#include "iba/sa.h"

namespace ibcore::saq {

iba::FieldRef fref(const iba::StructDesc& d, const char* name) {
  auto f = iba::find_field(d, name);
  if (!f) throw std::logic_error(std::string("no field ") + name);
  return *f;
}

const Query QUERIES[16] = {
    query<iba::MADClassPortInfo>("ClassPortInfo", "CPI", ""),
    query<iba::SANodeRecord>("NodeRecord", "NR", "[lid]", {"LID"}),
    query<iba::SAPortInfoRecord>("PortInfoRecord", "PIR", "[[lid]/[port]/[options]]", {"endportLID", "portNum", "options"}),
    query<iba::SASLToVLMappingTableRecord>("SL2VLTableRecord", "SL2VL", "[[lid]/[in_port]/[out_port]]", {"LID", "inputPortNum", "outputPortNum"}),
    query<iba::SAPKeyTableRecord>("PKeyTableRecord", "PKTR", "[[lid]/[port]/[block]]", {"LID", "portNum", "blockNum"}),
    query<iba::SAVLArbitrationTableRecord>("VLArbitrationTableRecord", "VLAR", "[[lid]/[port]/[block]]", {"LID", "outputPortNum", "blockNum"}),
    query<iba::SAInformInfoRecord>("InformInfoRecord", "IIR", "[subscriber_gid]"),
    query<iba::SALinkRecord>("LinkRecord", "LR", "[[from_lid]/[from_port]] [[to_lid]/[to_port]]"),
    query<iba::SAServiceRecord>("ServiceRecord", "SR", ""),
    query<iba::SAPathRecord>("PathRecord", "PR", ""),
    query<iba::SAMCMemberRecord>("MCMemberRecord", "MCMR", ""),
    query<iba::SALinearForwardingTableRecord>("LFTRecord", "LFTR", "[[lid]/[block]]", {"LID", "blockNum"}),
    query<iba::SAMulticastForwardingTableRecord>("MFTRecord", "MFTR", "[[mlid]/[position]/[block]]", {"LID", "position", "blockNum"}),
    query<iba::SAGUIDInfoRecord>("GUIDInfoRecord", "GIR", "[[lid]/[block]]", {"LID", "blockNum"}),
    query<iba::SASwitchInfoRecord>("SwitchInfoRecord", "SWIR", "[lid]", {"LID"}),
    query<iba::SASMInfoRecord>("SMInfoRecord", "SMIR", "[lid]", {"LID"}),
};

const Query* find_query(const std::string& s) {
  for (const auto& q : QUERIES)
    if (strcasecmp(s.c_str(), q.name) == 0 || strcasecmp(s.c_str(), q.alias) == 0) return &q;
  return nullptr;
}

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

// Options shared by PathRecord and MCMemberRecord queries.
void set_common_path_fields(Rec& r, const PrOpts& o) {
  r.set("PKey", o.pkey);
  r.set("SL", o.sl);
  r.set("TClass", o.tclass);
  r.set("flowLabel", o.flow_label);
  r.set("hopLimit", o.hop_limit);
  r.set_selected("MTUSelector", "MTU", o.mtu);
  r.set_selected("rateSelector", "rate", o.rate);
  r.set_selected("packetLifeTimeSelector", "packetLifeTime", o.pkt_lifetime);
}

void select(Rec& r, const std::vector<std::string>& sel) {
  if (sel.empty()) return;
  try {
    r.mask |= iba::apply_assignments(r.d, r.b.data(), sel);
  } catch (const std::exception& e) {
    log::error("E: %s\n", e.what());
    throw ExitFail{EINVAL};
  }
}

std::vector<Bytes> get_table(MadTransactor& mad, const IBPath& sa, const Query& q, Rec& r, uint32_t amod) {
MadRequest req;
req.cls = iba::find_class(iba::mgmt::SUBN_ADM);
req.method = iba::method::GET_TABLE;
req.attr_id = q.attr;
req.amod = amod;
req.payload = r.b;
req.comp_mask = r.mask;
auto rep = mad.call(req, sa);
auto s = sa_split_records(rep);
if (s.truncated)
  log::warn("W: The SA's %s reply was truncated (no RMPP on this transport): showing the %zu "
               "record(s) that arrived whole.\n",
               q.desc->name, s.records.size());
std::vector<Bytes> out;
for (auto x : s.records) out.emplace_back(x.begin(), x.end());
return out;
}

const std::vector<iba::SANodeRecord>& Nodes::all() {
  if (!all_) {
    all_.emplace();
    for (const auto& x : read_()) all_->emplace_back().load(x);
  }
  return *all_;
}

// A LID from a name (node description), a LID or a GUID, as the reference.
uint16_t Nodes::lid(const std::string& s) {
  if (s.empty()) return 0;
  char* end = nullptr;
  unsigned long v = std::strtoul(s.c_str(), &end, 0);
  if (end && *end == '\0') {
    if (v > 0xffff) {
      log::info("Invalid lid specified: \"%s\"\n", s.c_str());
      throw ExitFail{EINVAL};
    }
    return uint16_t(v);
  }
  for (const auto& n : all())
    if (n.nodeDescription().nodeString() == s) return uint16_t(n.LID());
  log::info("Failed to find lid for \"%s\": %s\n", s.c_str(), std::strerror(ENONET));
  throw ExitFail{ENONET};
}

std::string Nodes::port_name(const iba::Gid& g) {
  for (const auto& n : all())
    if (g.guid() && n.nodeInfo().portGUID() == g.guid()) return n.nodeDescription().nodeString();
  return "<unknown>";
}

iba::Gid gid_arg(const std::string& s) {
  auto g = iba::parse_gid(s);
  if (!g) {
    log::info("invalid GID: %s\n", s.c_str());
    throw ExitFail{EINVAL};
  }
  return *g;
}

namespace {

// "[lid|name]/[port]" of one end of a link.
void link_end(Rec& r, Nodes& nodes, const std::string& s, const char* lid, const char* port) {
  if (s.empty()) return;
  auto p = split_slash(s);
  if (p[0]) r.set(lid, nodes.lid(s.substr(0, s.find('/'))));
  if (p.size() > 1) r.set(port, p[1]);
}

}  // namespace

void set_link_ends(Rec& r, Nodes& nodes, const std::string& from, const std::string& to) {
  link_end(r, nodes, from, "fromLID", "fromPort");
  link_end(r, nodes, to, "toLID", "toPort");
}

void set_path_fields(Rec& r, Nodes& nodes, const PrOpts& o) {
  std::string src, dst;
  if (!o.src_to_dst.empty()) {
    auto c = o.src_to_dst.find(':');
    src = o.src_to_dst.substr(0, c);
    dst = c == std::string::npos ? "" : o.src_to_dst.substr(c + 1);
  }
  if (!src.empty()) r.set("SLID", nodes.lid(src));
  if (!dst.empty()) r.set("DLID", nodes.lid(dst));
  if (!o.sgid_to_dgid.empty()) {
    auto d = o.sgid_to_dgid.find('-');
    r.set_gid("SGID", gid_arg(o.sgid_to_dgid.substr(0, d)));
    if (d != std::string::npos) r.set_gid("DGID", gid_arg(o.sgid_to_dgid.substr(d + 1)));
  }
  // A source/destination pair asks for every path between them (the
  // reference's NumbPath 127), unless -n says otherwise.
  if (!o.src_to_dst.empty() || !o.sgid_to_dgid.empty()) r.set("numbPath", 0x7f);
  r.set("SLID", o.slid);
  r.set("DLID", o.dlid);
  if (!o.sgid.empty()) r.set_gid("SGID", gid_arg(o.sgid));
  if (!o.dgid.empty()) r.set_gid("DGID", gid_arg(o.dgid));
  r.set("reversible", o.reversible);
  r.set("numbPath", o.numb_path);
  r.set("QOSClass", o.qos_class);
  set_common_path_fields(r, o);
  if (o.service_id) {
    r.set("serviceIDMSB", *o.service_id >> 32);
    r.set("serviceIDLSB", *o.service_id & 0xffffffffu);
  }
}

void set_mcmr_fields(Rec& r, const PrOpts& o) {
  r.set("MLID", o.mlid);
  if (!o.mgid.empty()) r.set_gid("MGID", gid_arg(o.mgid));
  if (!o.gid.empty()) r.set_gid("portGID", gid_arg(o.gid));
  r.set("QKey", o.qkey);
  set_common_path_fields(r, o);
  r.set("scope", o.scope);
  r.set("joinState", o.join_state);
  r.set("proxyJoin", o.proxy_join);
}

void select(Rec& r, const Query& q, const std::string& target, const std::string& target2, Nodes& nodes,
            const PrOpts& o) {
  std::string a = q.alias;
  if (a == "NR") {
    if (!target.empty()) r.set("LID", nodes.lid(target));
  } else if (a == "LR") {
    set_link_ends(r, nodes, target, target2);
  } else if (a == "PR") {
    set_path_fields(r, nodes, o);
  } else if (!target.empty()) {
    auto p = split_slash(target);
    for (size_t i = 0; i < p.size() && i < q.keys.size() && q.keys[i]; ++i) r.set(q.keys[i], p[i]);
  }
}

std::string mc_text(const Bytes& rec, bool group, bool one_mlid, const std::function<const std::string&()>& port) {
  namespace ref = iba::ref;
  const auto& D = iba::SAMCMemberRecord::DESC;
  if (one_mlid) {
    iba::SAMCMemberRecord m;
    m.load(rec);
    return ref::sa_dotted("PortGid", ref::SA_MC_MEMBER.width, m.portGID().str() + " (" + port() + ")");
  }
  std::string s = ref::sa_dump(D, rec.data(), group ? ref::SA_MC_GROUP : ref::SA_MC_MEMBER);
  if (!group) s += ref::sa_dotted("NodeDescription", ref::SA_MC_MEMBER.width, port());
  return s;
}

int failure_status(const MADError& e, bool verbose) {
  if (auto* c = dynamic_cast<const MADClassError*>(&e)) {
    log::error("ERROR: Query result returned 0x%04X, %s\n", c->status,
               iba::status_text(iba::mgmt::SUBN_ADM, c->status).c_str());
    if (verbose) report(e);
    return EIO;
  }
  if (dynamic_cast<const MADTimeoutError*>(&e)) {
    report(e);
    log::info("Query SA failed: %s\n", std::strerror(ETIMEDOUT));
    return ETIMEDOUT;
  }
  throw;
}

}  // namespace ibcore::saq
