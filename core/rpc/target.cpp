#include "core/rpc/target.h"

#include <cstdio>

#include "core/base/config.h"
#include "core/rpc/gmppath.h"
#include "iba/introspect.h"
#include "iba/sa.h"
#include "iba/smp.h"

namespace ibcore {

IBPath parse_target(std::string_view arg, const TargetForm& f, std::string_view dr) {
  if (!f.combined) return IBPath::from_string(arg, f.form);
  IBPath lid = IBPath::from_string(arg, IBPath::Form::LID);
  IBPath p = IBPath::from_string(dr, IBPath::Form::DR);
  p.DLID = lid.DLID;
  p.drSLID = 0;  // our LID, filled in by resolve_for_smp
  return p;
}

IBPath sa_path_for(MadTransactor& mad, uint16_t sm_lid) {
  if (sm_lid) {
    IBPath p;
    p.DLID = sm_lid;
    p.SL = mad.transport().sm_sl();
    p.dqpn = 1;
    p.qkey = GSI_QKEY;
    return p;
  }
  return mad.sa_path();  // honours --sa-path
}

IBPath path_from_sa(MadTransactor& mad, const iba::Gid& dgid, uint16_t sm_lid) {
  static const uint64_t mask = [] {
    uint64_t m = 0;
    for (const char* f : {"DGID", "SGID", "numbPath"}) m |= iba::component_mask(iba::SAPathRecord::DESC, f);
    return m;
  }();
  iba::SAPathRecord q;
  q.set_DGID(dgid);
  q.set_SGID(mad.transport().local_gid());
  q.set_numbPath(1);
  IBPath sa = sa_path_for(mad, sm_lid);
  iba::SAPathRecord r;
  try {
    r = mad.SubnAdmGet(q, mask, &sa);
  } catch (MADError& e) {
    e.annotate("Failed getting path record for end port " + dgid.str() + ".");
    throw;
  }
  IBPath p;
  apply_path_record(p, r);
  if (!p.DLID) throw MADError("The SA returned no LID for end port " + dgid.str());
  return p;
}

uint16_t local_lid(MadTransactor& mad) { return mad.transport().local_lid(); }

namespace {

// The directed-route half of note_target_presence: the node one hop before
// the end is asked (its NodeInfo, then the PortInfo of the last hop's
// port).  A switch whose port is LinkUp has something at the end; a port
// not LinkUp, or a route that goes on through a CA, has nothing.  A node
// before the end that does not answer leaves it Unknown.
void note_dr_presence(MadTransactor& mad, const IBPath& target, MADError& e) {
  if (target.hop_count() == 0) {
    e.target = MADError::Target::Exists;  // the local port
    return;
  }
  IBPath before = target;
  const unsigned port = before.drPath.back();
  before.drPath.pop_back();
  try {
    bool sw = true;
    if (before.hop_count() > 0) {
      const char* type = iba::enums::name_of(iba::enums::node_types(), mad.SubnGet<iba::SMPNodeInfo>(before).nodeType());
      sw = type && std::string_view(type) == "Switch";
    }
    if (!sw) {
      e.target = MADError::Target::Absent;
    } else {
      // Port 0 of the path's start is the local port (amod ignored there).
      auto pi = mad.SubnGet<iba::SMPPortInfo>(before, before.hop_count() > 0 ? port : 0);
      const char* phys = iba::enums::name_of(iba::enums::phys_states(), pi.portPhysicalState());
      e.target = phys && std::string_view(phys) == "LinkUp" ? MADError::Target::Exists : MADError::Target::Absent;
    }
  } catch (const std::exception&) {
    // (the node before the end does not answer either: not known)
  }
}

}  // namespace

void note_target_presence(MadTransactor& mad, const IBPath& target, MADError& e, uint16_t sm_lid) {
  if (!dynamic_cast<const MADTimeoutError*>(&e)) return;
  if (target.is_dr()) return note_dr_presence(mad, target, e);
  if (!target.DLID) return;
  static const uint64_t mask = [] {
    uint64_t m = 0;
    for (const char* f : {"DLID", "SLID", "numbPath"}) m |= iba::component_mask(iba::SAPathRecord::DESC, f);
    return m;
  }();
  iba::SAPathRecord q;
  q.set_DLID(target.DLID);
  q.set_SLID(local_lid(mad));
  q.set_numbPath(1);
  uint16_t sa_lid = 0;
  try {
    // A question asked for a hint: within the short bound, and not of an SA
    // known not to answer.
    IBPath sa = sa_path_for(mad, sm_lid);
    sa_lid = sa.DLID;
    if (sa_known_unavailable(mad.transport(), sa.DLID)) return;
    sa = bounded_sa_path(sa, mad.transport().settings());
    mad.SubnAdmGet(q, mask, &sa);
    e.target = MADError::Target::Exists;
  } catch (const MADClassError& c) {
    if (c.mgmt_class == iba::mgmt::SUBN_ADM && c.class_code() == 3) e.target = MADError::Target::Absent;  // ERR_NO_RECORDS
    if (sa_unavailable_error(c)) note_sa_unavailable(mad.transport(), sa_lid, &c);
  } catch (const MADError& m) {
    if (sa_unavailable_error(m)) note_sa_unavailable(mad.transport(), sa_lid, &m);
  } catch (const std::exception&) {
    // (no SA, no path to it: not known)
  }
}

GuidHint guid_hint(MadTransactor& mad, uint64_t guid, uint16_t sm_lid) {
  char b[96];
  uint16_t sa_lid = 0;
  try {
    IBPath sa = sa_path_for(mad, sm_lid);
    sa_lid = sa.DLID;
    if (sa_known_unavailable(mad.transport(), sa.DLID)) return {};
    sa = bounded_sa_path(sa, mad.transport().settings());
    const auto& D = iba::SANodeRecord::DESC;
    // A node GUID: the records of its ports (one per CA port, port 0 of a
    // switch), each naming the port's GUID.
    iba::SANodeRecord q;
    iba::set_bits(q.raw(), iba::field_named(D, "nodeInfo.nodeGUID").bit_off, 64, guid);
    auto t = mad.SubnAdmGetTable(q, iba::component_mask(D, "nodeInfo.nodeGUID"), &sa);
    for (const auto& r : t.records)
      if (r.nodeInfo().portGUID() == guid) t.records.clear();  // (a switch's: its port 0's GUID too)
    if (!t.records.empty()) {
      std::string name = t.records[0].nodeDescription().nodeString();
      std::snprintf(b, sizeof b, "0x%016llx", (unsigned long long)guid);
      std::string s = std::string(b) + " is the node GUID of \"" + name + "\", not a port GUID: ";
      if (t.records.size() == 1) {
        std::snprintf(b, sizeof b, "for its port give -G 0x%016llx",
                      (unsigned long long)t.records[0].nodeInfo().portGUID());
        return {GuidHint::NodeGuid, s + b};
      }
      s += "for one of its ports give";
      for (size_t i = 0; i < t.records.size(); ++i) {
        std::snprintf(b, sizeof b, "%s -G 0x%016llx (port %u)", i ? "," : "",
                      (unsigned long long)t.records[i].nodeInfo().portGUID(),
                      unsigned(t.records[i].nodeInfo().localPortNum()));
        s += b;
      }
      return {GuidHint::NodeGuid, s};
    }
    // A port GUID: its PathRecord.
    IBPath p = path_from_sa(mad, iba::Gid::from(mad.transport().local_gid().prefix(), guid), sm_lid);
    std::snprintf(b, sizeof b, "for the port GUID give -G 0x%016llx", (unsigned long long)guid);
    if (p.DLID) return {GuidHint::PortGuid, b};
  } catch (const MADError& e) {
    if (sa_unavailable_error(e)) note_sa_unavailable(mad.transport(), sa_lid, &e);
  } catch (const std::exception&) {
  }
  return {};
}

IBPath resolve_for_smp(MadTransactor& mad, const IBPath& in, uint16_t sm_lid) {
  IBPath p = in;
  if (p.is_dr()) {
    if (p.DLID && p.drSLID == 0) p.drSLID = local_lid(mad);
    return p;
  }
  if (!p.DLID && p.has_grh) {
    IBPath r = path_from_sa(mad, p.DGID, sm_lid);
    p.DLID = r.DLID;
    // SMPs are LID routed: no GRH, the SL and P_Key of QP0 rules.
    p.has_grh = false;
    p.DGID = {};
  }
  if (p.DLID && !mad.transport().lid_routed_smps()) return dr_path_to_lid(mad, p.DLID);
  return p;
}

IBPath dr_path_to_lid(MadTransactor& mad, uint16_t lid) {
  constexpr size_t MAX_HOPS = 63;
  IBPath p;
  p.drSLID = LID_PERMISSIVE;
  p.drDLID = LID_PERMISSIVE;
  p.drPath = {0};
  auto owns = [lid](uint16_t base, unsigned lmc) { return base && lid >= base && lid < base + (1u << (lmc & 7)); };
  for (;;) {
    auto ni = mad.SubnGet<iba::SMPNodeInfo>(p);
    bool sw = ni.nodeType() == 2;
    unsigned in = unsigned(ni.localPortNum());
    auto pi = mad.SubnGet<iba::SMPPortInfo>(p, sw ? 0 : in);
    if (owns(uint16_t(pi.LID()), unsigned(pi.LMC()))) return p;
    unsigned out;
    if (!sw) {
      // Only the local CA forwards: out of the port we send from.
      if (p.drPath.size() > 1)
        throw Error("no directed route to LID " + std::to_string(lid) + ": the route reaches a CA at " +
                    p.dr_string());
      out = in;
    } else {
      auto lft = mad.SubnGet<iba::SMPLinearForwardingTable>(p, uint32_t(lid / 64));
      out = unsigned(lft.portBlock(lid % 64));
      if (out == 0 || out == 0xff || out > ni.numPorts())
        throw Error("no directed route to LID " + std::to_string(lid) + ": the switch at " + p.dr_string() +
                    " forwards it to " + (out == 0xff ? std::string("no port") : "port " + std::to_string(out)));
    }
    if (p.drPath.size() > MAX_HOPS)
      throw Error("no directed route to LID " + std::to_string(lid) + " within " + std::to_string(MAX_HOPS) + " hops");
    p.drPath.push_back(uint8_t(out));
  }
}

std::string portid_str(const IBPath& p) {
  char b[64];
  if (!p.is_dr()) {
    if (!p.DLID && p.has_grh) return "GID " + p.DGID.str();
    std::snprintf(b, sizeof b, "Lid %u", unsigned(p.DLID));
    return b;
  }
  std::string s;
  if (p.DLID) {
    std::snprintf(b, sizeof b, "Lid %u ", unsigned(p.DLID));
    s = b;
  }
  std::snprintf(b, sizeof b, "DR path slid %u; dlid %u; ", unsigned(p.drSLID), unsigned(p.drDLID));
  return s + b + p.dr_string();
}

}  // namespace ibcore
