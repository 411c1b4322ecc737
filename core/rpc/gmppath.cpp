#include "core/rpc/gmppath.h"

#include <map>
#include <mutex>

#include "core/base/config.h"
#include "core/base/error.h"
#include "core/out/log.h"
#include "iba/introspect.h"
#include "iba/sa.h"
#include "iba/smp.h"

namespace ibcore {

IBPath sa_path_from_config(MadTransactor& mad) {
  // The transactor already honours --sa-path (default_sa_path); SA users
  // add the SM_Key the SA may require.
  IBPath p = mad.sa_path();
  if (const auto& k = mad.transport().settings().smkey) p.smkey = *k;
  return p;
}

IBPath plain_lid_path(const Transport& t, uint16_t dlid) {
  IBPath p;
  p.DLID = dlid;
  p.SLID = t.local_lid();
  p.dqpn = 1;
  p.qkey = GSI_QKEY;
  return p;
}

IBPath bounded_sa_path(IBPath sa, const PortSettings& s) {
  sa.retries = std::min(sa.mad_retries(s.retries), 1);
  if (!sa.resp_time && !sa.packet_life_time) sa.resp_time = 17;
  return sa;
}

bool sa_unavailable_error(const MADError& e) {
  if (dynamic_cast<const MADTimeoutError*>(&e)) return true;
  auto* c = dynamic_cast<const MADClassError*>(&e);
  return c && c->mgmt_class == iba::mgmt::SUBN_ADM && (c->status & 1);  // BUSY, after the engine's back-offs
}

namespace {

// The SAs found unavailable, by local port and SA LID: when (t's clock).
std::mutex g_sa_mu;
std::map<std::string, Clock::time_point> g_sa_down;

std::string sa_key(const Transport& t, uint16_t sa_lid) {
  return t.local_gid().str() + "/" + std::to_string(t.local_lid()) + "/" + std::to_string(sa_lid);
}

}  // namespace

bool sa_known_unavailable(const Transport& t, uint16_t sa_lid) {
  std::lock_guard<std::mutex> l(g_sa_mu);
  if (g_sa_down.empty()) return false;
  auto it = g_sa_down.find(sa_key(t, sa_lid));
  if (it == g_sa_down.end()) return false;
  // (A clock that went back is another clock: a test's model, forgotten.)
  const auto age = t.now() - it->second;
  if (age >= Clock::duration::zero() && age < SA_RETRY_AFTER) return true;
  g_sa_down.erase(it);
  return false;
}

void note_sa_unavailable(const Transport& t, uint16_t sa_lid, const MADError* why) {
  {
    std::lock_guard<std::mutex> l(g_sa_mu);
    auto [it, fresh] = g_sa_down.insert_or_assign(sa_key(t, sa_lid), t.now());
    (void)it;
    if (!fresh) return;  // (said once)
  }
  if (!log::verbosity()) return;
  std::string cause = !why                            ? "the local port knows no SM"
                      : dynamic_cast<const MADTimeoutError*>(why) ? "the SA at LID " + std::to_string(sa_lid) + " does not answer"
                                                                  : "the SA at LID " + std::to_string(sa_lid) + " stays BUSY";
  log::info("I: %s: GMPs to LIDs go on plain LID paths (SL 0, default P_Key), without PathRecords\n",
            cause.c_str());
}

void forget_sa_unavailable() {
  std::lock_guard<std::mutex> l(g_sa_mu);
  g_sa_down.clear();
}

GmpPathResolver::GmpPathResolver(MadTransactor& mad, std::optional<bool> use_smp)
    : mad_(mad), use_smp_(use_smp ? *use_smp : !mad.transport().settings().use_sa) {}

const IBPath& GmpPathResolver::sa_path() {
  if (!sa_path_) sa_path_ = sa_path_from_config(mad_);
  return *sa_path_;
}

std::pair<iba::SAPathRecord, uint64_t> GmpPathResolver::path_query(const IBPath& target, uint16_t local_lid,
                                                                   const iba::Gid& local_gid) {
  const auto& D = iba::SAPathRecord::DESC;
  iba::SAPathRecord pr;
  uint64_t mask = 0;
  if (target.DLID) {
    pr.set_DLID(target.DLID);
    pr.set_SLID(target.SLID ? target.SLID : local_lid);
    mask |= iba::component_mask(D, "DLID") | iba::component_mask(D, "SLID");
    // The port's GID as well when the caller knows it: OpenSM finds both
    // ends by GUID directly, where LIDs alone make it scan every port GUID
    // of the subnet for each query (its cost grows with the fabric).
    if (target.DGID != iba::Gid{} && local_gid != iba::Gid{}) {
      pr.set_DGID(target.DGID);
      pr.set_SGID(target.SGID == iba::Gid{} ? local_gid : target.SGID);
      mask |= iba::component_mask(D, "DGID") | iba::component_mask(D, "SGID");
    }
  } else {
    pr.set_DGID(target.DGID);
    iba::Gid sg = target.SGID == iba::Gid{} ? local_gid : target.SGID;
    pr.set_SGID(sg);
    mask |= iba::component_mask(D, "DGID");
    if (sg != iba::Gid{}) mask |= iba::component_mask(D, "SGID");
  }
  pr.set_numbPath(1);
  mask |= iba::component_mask(D, "numbPath");
  // A P_Key the user named restricts the path to that partition.
  if (target.pkey != 0xffff) {
    pr.set_PKey(target.pkey);
    mask |= iba::component_mask(D, "PKey");
  }
  return {pr, mask};
}

void apply_path_record(IBPath& p, const iba::SAPathRecord& pr) {
  p.DLID = uint16_t(pr.DLID());
  p.SLID = uint16_t(pr.SLID());
  p.SL = uint8_t(pr.SL());
  p.pkey = uint16_t(pr.PKey());
  p.MTU = uint8_t(pr.MTU());
  p.rate = uint8_t(pr.rate());
  p.packet_life_time = uint8_t(pr.packetLifeTime());
  p.SGID = pr.SGID();
  p.DGID = pr.DGID();
  p.traffic_class = uint8_t(pr.TClass());
  p.flow_label = uint32_t(pr.flowLabel());
  p.hop_limit = uint8_t(pr.hopLimit());
  // Inside the subnet no GRH is needed (hop limit 0 or 1).
  p.has_grh = pr.hopLimit() > 1;
  p.dqpn = 1;
  p.qkey = GSI_QKEY;
}

uint16_t GmpPathResolver::dr_to_lid(const IBPath& dr) {
  if (!dr.is_dr()) return dr.DLID;
  if (dr.drDLID != LID_PERMISSIVE && dr.hop_count() == 0) return dr.drDLID;
  auto it = dr_cache_.find(dr.drPath);
  if (it != dr_cache_.end() && it->second.lid) return it->second.lid;
  uint16_t lid = 0;
  try {
    if (dr.hop_count() == 0) {
      lid = mad_.transport().local_lid();
    } else if (use_smp_) {
      auto ni = mad_.SubnGet<iba::SMPNodeInfo>(dr);
      // A switch's LID is its port 0's; a CA's is that of the port reached.
      uint32_t port = ni.nodeType() == 2 ? 0 : uint32_t(ni.localPortNum());
      auto pi = mad_.SubnGet<iba::SMPPortInfo>(dr, port);
      lid = uint16_t(pi.LID());
    } else {
      // Walk the route through the SA's LinkRecords: from each node's LID
      // out of the hop's port to the LID at the other end.
      const auto& D = iba::SALinkRecord::DESC;
      uint16_t cur = mad_.transport().local_lid();
      std::vector<uint8_t> prefix{0};
      for (size_t i = 1; i < dr.drPath.size(); ++i) {
        prefix.push_back(dr.drPath[i]);
        auto c = dr_cache_.find(prefix);
        if (c != dr_cache_.end() && c->second.lid) {
          cur = c->second.lid;
          continue;
        }
        if (i >= 2 && !lid_is_switch(cur)) throw not_forwarded(dr, i - 1, cur);
        iba::SALinkRecord q;
        q.set_fromLID(cur).set_fromPort(dr.drPath[i]);
        auto t = mad_.SubnAdmGetTable(q, iba::component_mask(D, "fromLID") | iba::component_mask(D, "fromPort"), &sa_path());
        if (t.records.empty())
          throw MADError("No link leaves lid " + std::to_string(cur) + " port " + std::to_string(dr.drPath[i]) +
                         " in the SA's LinkRecords");
        cur = uint16_t(t.records[0].toLID());
        dr_cache_[prefix] = {cur, uint8_t(t.records[0].toPort())};
      }
      lid = cur;
    }
  } catch (MADError& e) {
    e.annotate("Failed resolving " + dr.describe() + " to a LID.");
    throw;
  }
  if (!lid) throw MADError("The port at " + dr.describe() + " has no LID");
  dr_cache_[dr.drPath].lid = lid;
  return lid;
}

MADError GmpPathResolver::not_forwarded(const IBPath& dr, size_t hop, uint16_t lid) {
  return MADError("The node at hop " + std::to_string(hop) + " of " + dr.describe() + " (lid " +
                  std::to_string(lid) + ") is not a switch: a directed route cannot go on through it");
}

bool GmpPathResolver::lid_is_switch(uint16_t lid) {
  if (switch_test_) return switch_test_(lid);
  auto it = switch_lids_.find(lid);
  if (it != switch_lids_.end()) return it->second;
  iba::SANodeRecord q;
  q.set_LID(lid);
  auto r = mad_.SubnAdmGet(q, iba::component_mask(iba::SANodeRecord::DESC, "LID"), &sa_path());
  bool sw = r.nodeInfo().nodeType() == 2;
  switch_lids_[lid] = sw;
  return sw;
}

uint8_t GmpPathResolver::dr_entry_port(const IBPath& dr) {
  if (!dr.is_dr() || dr.hop_count() == 0) return 0;
  dr_to_lid(dr);
  auto it = dr_cache_.find(dr.drPath);
  return it == dr_cache_.end() ? 0 : it->second.entry_port;
}

IBPath GmpPathResolver::resolve(const IBPath& target_in) {
  IBPath target = target_in;
  std::string key = target.repr();
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  if (target.is_dr()) {
    uint16_t lid = dr_to_lid(target);
    IBPath t;
    t.ca = target.ca;
    t.port = target.port;
    t.DLID = lid;
    target = t;
  } else if (!target.DLID && !target.has_grh) {
    target.DLID = mad_.transport().local_lid();  // the local port itself
  }
  auto [pr, mask] = path_query(target, mad_.transport().local_lid(), mad_.transport().local_gid());
  std::string what = target.DLID ? std::to_string(target.DLID) : target.DGID.str();
  const Transport& t = mad_.transport();
  // A LID needs no SA: its PathRecord is asked with a short bound, and an SA
  // known not to answer is not asked (plain_lid_path instead).
  auto plain = [&] {
    IBPath out = plain_lid_path(t, target.DLID);
    out.retries = target.retries;
    out.mkey = target.mkey;
    out.smkey = target.smkey;
    out.resp_time = target.resp_time;
    fell_back_ = true;
    cache_[key] = out;
    return out;
  };
  fell_back_ = false;
  iba::SAPathRecord rec;
  const IBPath* sa = nullptr;  // (none: the port knows no SM)
  try {
    sa = &sa_path();
    if (!target.DLID) {
      rec = mad_.SubnAdmGet(pr, mask, sa);
    } else {
      if (sa_known_unavailable(t, sa->DLID)) return plain();
      const IBPath bounded = bounded_sa_path(*sa, t.settings());
      rec = mad_.SubnAdmGet(pr, mask, &bounded);
    }
  } catch (MADError& e) {
    if (target.DLID && (!sa || sa_unavailable_error(e))) {
      note_sa_unavailable(t, sa ? sa->DLID : 0, sa ? &e : nullptr);
      return plain();
    }
    e.annotate("Failed getting path record for end port " + what + ".");
    throw;
  }
  IBPath out = target;
  apply_path_record(out, rec);
  if (target.has_grh && !target.DLID) out.DGID = target.DGID;
  // Keep what the caller set beyond the headers.
  out.retries = target.retries;
  out.mkey = target.mkey;
  out.smkey = target.smkey;
  out.resp_time = target.resp_time;
  cache_[key] = out;
  return out;
}

}  // namespace ibcore
