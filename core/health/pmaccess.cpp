#include "core/health/pmaccess.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <unordered_map>

#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/transport/open.h"
#include "core/fabric/discovery.h"
#include "core/base/error.h"
#include "core/rpc/gmppath.h"
#include "core/fabric/netcache.h"
#include "core/fabric/nodemap.h"
#include "core/base/textfile.h"
#include "iba/smp.h"
#include "iba/introspect.h"
#include "iba/sa.h"

namespace ibcore::health {

// --- PM access -------------------------------------------------------------------------

IBPath sa_path_for_pm(Transport& t) {
  MadTransactor mad(t);
  try {
    return sa_path_from_config(mad);
  } catch (const MADError&) {
    return IBPath();  // the port knows no SM: LIDs go on plain paths (PmAccess::sa_down)
  }
}

bool PmAccess::sa_down() {
  if (sa_state_ == SaState::Down) return true;
  if (!sa_.DLID && !sa_.has_grh) {
    note_sa_unavailable(s_.transport(), 0, nullptr);
  } else if (!sa_known_unavailable(s_.transport(), sa_.DLID)) {
    return false;
  }
  sa_down_now();
  return true;
}

void PmAccess::sa_down_now() {
  const bool was_asking = sa_state_ == SaState::Asking;
  sa_state_ = SaState::Down;
  if (was_asking) sa_known_.set(s_);
}

Task<> PmAccess::resolve(uint16_t lid, Entry& e) {
  try {
    // While the first PathRecord is out, the others wait for what it says
    // of the SA: a dead SA costs one bounded query, not one per LID.
    if (sa_state_ == SaState::Asking && !skip_sl_) co_await sa_known_.wait();
    IBPath p;
    if (skip_sl_ || sa_down()) {
      p = plain_lid_path(s_.transport(), lid);
    } else {
      const bool first = sa_state_ == SaState::Unknown;
      if (first) sa_state_ = SaState::Asking;
      ++path_queries_;
      p.DLID = lid;
      const iba::Gid local = s_.transport().local_gid();
      uint64_t guid = 0;
      if (auto g = guids_.find(lid); g != guids_.end()) {
        guid = g->second;
      } else if (uint32_t slot = db_ ? db_->port_by_lid(lid) : NO_INDEX; slot != NO_INDEX) {
        guid = db_->port(slot).guid;
      }
      bool by_gid = guid && local != iba::Gid{};
      if (by_gid) p.DGID = iba::Gid::from(local.prefix(), guid);
      auto [q, mask] = GmpPathResolver::path_query(p, s_.transport().local_lid(), local);
      // The first query finds out whether the SA answers: bounded; the
      // others go with the port's timeout and retries.
      const IBPath sa = first ? bounded_sa_path(sa_, s_.transport().settings()) : sa_;
      std::optional<iba::SAPathRecord> pr;
      bool unavailable = false;
      try {
        pr = co_await s_.SubnAdmGet(q, mask, sa);
      } catch (const MADError& err) {
        // The SA does not pair that GUID with the LID (the database is a
        // stale cache, or GUIDs are duplicated): ask by the LID alone.
        unavailable = sa_unavailable_error(err);
        if (unavailable) note_sa_unavailable(s_.transport(), sa_.DLID, &err);
        else if (!by_gid || !dynamic_cast<const MADClassError*>(&err)) throw;
      }
      if (unavailable) {
        sa_down_now();
        p = plain_lid_path(s_.transport(), lid);
      } else {
        if (first) {
          sa_state_ = SaState::Up;
          sa_known_.set(s_);
        }
        if (!pr) {
          p.DGID = {};
          ++path_queries_;
          auto [q2, mask2] = GmpPathResolver::path_query(p, s_.transport().local_lid(), local);
          pr = co_await s_.SubnAdmGet(q2, mask2, sa);
        }
        apply_path_record(p, *pr);
      }
    }
    e.path = p;
  } catch (MADError& err) {
    char b[64];
    std::snprintf(b, sizeof b, "Failed getting path record for LID %u.", unsigned(lid));
    err.annotate(b);
    e.error = std::current_exception();
  } catch (...) {
    e.error = std::current_exception();
  }
  // (The first asker failed for another reason: the SA answered, so the
  // others ask it too.)
  if (sa_state_ == SaState::Asking) {
    sa_state_ = SaState::Up;
    sa_known_.set(s_);
  }
  e.ready.set(s_);
}

void PmAccess::read_path_table() {
  if (skip_sl_ || table_ != Table::None || s_.transport().local_gid() == iba::Gid{} || sa_down()) return;
  table_ = Table::Pending;
  s_.spawn(read_table());
}

Task<> PmAccess::read_table() {
  const auto& D = iba::SAPathRecord::DESC;
  const uint16_t local_lid = s_.transport().local_lid();
  iba::SAPathRecord q;
  q.set_SGID(s_.transport().local_gid());
  q.set_SLID(local_lid);
  uint64_t mask = iba::component_mask(D, "SGID") | iba::component_mask(D, "SLID");
  // The SA computes a path to every port before it answers: give it time
  // (IBA response time 2^19 x 4.096 us, about 2 s), once.
  IBPath sa = sa_;
  sa.resp_time = 19;
  sa.retries = 0;
  ++path_queries_;
  try {
    auto t = co_await s_.SubnAdmGetTable(q, mask, sa);
    if (sa_state_ == SaState::Unknown) sa_state_ = SaState::Up;
    for (const auto& r : t.records) {
      uint16_t d = uint16_t(r.DLID());
      if (!d || r.SLID() != local_lid) continue;
      auto [it, fresh] = paths_.try_emplace(d);
      if (!fresh) continue;
      IBPath p;
      p.DLID = d;
      apply_path_record(p, r);
      it->second.path = p;
      it->second.ready.set(s_);
      ++table_paths_;
    }
  } catch (const MADError& err) {
    // No table: every LID is asked alone; or none, the SA not answering.
    if (sa_unavailable_error(err)) {
      note_sa_unavailable(s_.transport(), sa_.DLID, &err);
      sa_down_now();
    }
  }
  table_ = Table::Done;
  table_read_.set(s_);
}

Task<IBPath> PmAccess::path(uint16_t lid) {
  if (table_ == Table::Pending) co_await table_read_.wait();
  auto [it, fresh] = paths_.try_emplace(lid);
  Entry& e = it->second;
  if (fresh) co_await resolve(lid, e);
  co_await e.ready.wait();
  if (e.error) {
    if (forget_failed_) {
      auto f = paths_.find(lid);
      if (f != paths_.end() && &f->second == &e) forgotten_.push_back(paths_.extract(f));
    }
    std::rethrow_exception(e.error);
  }
  co_return e.path;
}

Task<iba::PMPortCounters> PmAccess::counters(uint16_t lid, uint8_t port) {
  IBPath p = co_await path(lid);
  iba::PMPortCounters q;
  q.set_portSelect(port);
  co_return co_await s_.PerformanceGet(q, p);
}

Task<iba::PMPortCountersExtended> PmAccess::counters_ext(uint16_t lid, uint8_t port) {
  IBPath p = co_await path(lid);
  iba::PMPortCountersExtended q;
  q.set_portSelect(port);
  co_return co_await s_.PerformanceGet(q, p);
}

Task<> PmAccess::clear(uint16_t lid, uint8_t port, uint16_t select, bool ext) {
  IBPath p = co_await path(lid);
  iba::PMPortCounters q;
  q.set_portSelect(port);
  q.set_counterSelect(select);
  if (select & SELECT_ERRORS) q.set_counterSelect2(0xff);
  (void)co_await s_.PerformanceSet(q, p);
  if (ext) {
    iba::PMPortCountersExtended x;
    x.set_portSelect(port);
    x.set_counterSelect(0xff);
    (void)co_await s_.PerformanceSet(x, p);
  }
}

PmSession::PmSession(const Config& cfg, bool skip_sl, bool need_sa)
    : umad_(open_transport(get_end_port(cfg.ca, cfg.port), cfg)),
      sched_(*umad_),
      pm_(sched_, need_sa && !skip_sl ? sa_path_for_pm(*umad_) : IBPath(), skip_sl) {}

}  // namespace ibcore::health
