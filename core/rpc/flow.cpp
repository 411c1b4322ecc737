// The flow control's caps, window, losses and replies (core/rpc/flow.h;
// what the round trips say: flowrtt.cpp; timeouts and order: flowtime.cpp).
#include "core/rpc/flow.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/out/log.h"
#include "core/rpc/flowkeys.h"
#include "core/rpc/madbuild.h"
#include "iba/mad.h"

namespace ibcore {

namespace {

using madhdr::class_of;
using madhdr::is_smp;
using namespace flowkeys;

template <class V>
unsigned count_of(const std::unordered_map<uint64_t, V>& m, uint64_t k) {
  auto it = m.find(k);
  return it == m.end() ? 0 : unsigned(it->second);
}
template <class V>
void add_to(std::unordered_map<uint64_t, V>& m, uint64_t k, int d) {
  if (d > 0) {
    m[k] = V(m[k] + d);
    return;
  }
  auto it = m.find(k);
  if (it != m.end() && (it->second = V(it->second + d)) == 0) m.erase(it);
}

}  // namespace

// --- the window, the nodes' keys, the caps -----------------------------------------

FlowControl::FlowControl(Engine& engine, std::span<PendingMad* const> slots, MadLine& line, unsigned start)
    : engine_(engine),
      slots_(slots),
      line_(line),
      max_(unsigned(slots.size())),
      start_(start && start < max_ ? start : max_) {
  slot_dest_.reserve(max_);
  cwnd_ = ssthresh_ = top_ = start_;
  top_wait_ = start_;
  rtt_min_us_.fill(std::numeric_limits<double>::infinity());
  rtt_ca_min_us_.fill(std::numeric_limits<double>::infinity());
  rtt_n_.fill(0);
  local_min_us_ = std::numeric_limits<double>::infinity();
  fs_.window_lo = fs_.window_hi = start_;
}

unsigned FlowControl::window() const {
  if (!lim_.adaptive) return max_;
  return std::clamp(unsigned(cwnd_), 1u, max_);
}

uint64_t FlowControl::key_of(const IBPath& path, uint8_t mgmt_class) const {
  // A PMA's GMPs: the node cap holds them too (a PMA's queue is small, and
  // full it answers BUSY or drops), counted apart from the node's SMPs.
  if (mgmt_class == iba::mgmt::PERF && path.DLID && !path.is_dr()) return gmp_key(mgmt_class, path.DLID) | 1;
  if (!is_smp(mgmt_class)) return 0;
  return canon(path.is_dr() ? dr_key(path) : lid_key(path.DLID));
}

uint64_t FlowControl::head_key(const IBPath& p) const {
  IBPath l;
  l.DLID = p.DLID;
  return key_of(l, iba::mgmt::SUBN_LID_ROUTED);
}

// A key as the flow control counts it: the node's when the layers above
// said whose it is (alias_), else its own.
uint64_t FlowControl::canon(uint64_t k) const {
  auto it = alias_.find(k);
  return it == alias_.end() ? k : it->second;
}

void FlowControl::learn_route(const IBPath& other, const IBPath& dr) {
  if (!other.is_dr() || !dr.is_dr()) return;
  const uint64_t a = dr_key(other), b = canon(dr_key(dr));
  if (a != b) alias_[a] = b;
}

void FlowControl::learn_dest(const IBPath& probe, uint16_t lid) {
  if (!probe.is_dr() || !lid) return;
  const uint64_t a = dr_key(probe), b = canon(lid_key(lid));
  if (a != b) alias_[a] = b;
}

void FlowControl::learn_node(const IBPath& dr, uint16_t lid, std::optional<uint8_t> resp_time) {
  if (!dr.is_dr()) return;
  // (Its route may count against a LID already: learn_dest.  Another LID
  // than this one: the SA's link was stale, and the route is its own again.)
  const uint64_t d = dr_key(dr);
  uint64_t k = canon(d);
  if (lid) {
    const uint64_t l = canon(lid_key(lid));
    if (k != d && k != l) {
      alias_.erase(d);
      k = d;
    }
    if (l != k) alias_[lid_key(lid)] = k;
  }
  if (resp_time) resp_time_[k] = *resp_time;
}

bool FlowControl::shares_lifted() const {
  // With levels (FlowLimits::proc_start) the caps hold for good, but the
  // processor shares, once widened lift_scale times over, are lifted as
  // before: the levels keep what each processor holds from then on.
  return lim_.proc_start && scale_ >= lim_.lift_scale;
}

bool FlowControl::caps_wanted() const {
  if (!lim_.node_cap && !lim_.smi_cap) return false;
  if (lost_smp_ || caps_back_ || lim_.proc_start) return true;  // (levels: never lifted)
  if (top_ > start_) return true;  // (the window beyond its first size: FlowLimits::window_grow)
  if (!lim_.caps_from_start)
    return smp_replies_ < lim_.start_replies ||
           (lim_.start_replies && lim_.grow > 1 && (grow_stopped_ || scale_ < lim_.lift_scale));
  // Lifted where the processors were measured to take (almost) no time.
  return !(lim_.min_visit_us > 0 && visit_us_ >= 0 && visit_us_ < lim_.min_visit_us);
}

void FlowControl::grow_caps(Clock::time_point now) {
  // After start_replies replies and no loss: the caps are widened by grow
  // at most once per timeout (so that a loss the last step caused is seen
  // before the next one), and lifted at lift_scale.
  if (now < next_grow_at_) return;
  const int step = std::max(lim_.min_timeout_ms, smp_rtt_.rto_ms());
  next_grow_at_ = now + std::chrono::milliseconds(step);
  widen_caps(lim_.grow);
}

void FlowControl::widen_caps(double by) {
  scale_ *= by;
  fs_.scale_hi = std::max(fs_.scale_hi, scale_);
  if (scale_ >= lim_.lift_scale) sync_caps();
  else unpark_all();
}

void FlowControl::sync_caps() {
  const bool on = caps_wanted();
  if (on == tracking_) return;
  tracking_ = on;
  to_node_.clear();
  at_proc_.clear();
  occ_.clear();
  urgent_out_ = 0;
  if (on) {
    // Count what is in flight now (it went out while nothing was counted).
    for (size_t i = 0; i < slot_dest_.size(); ++i)
      if (slots_[i]) hold(*slots_[i], +1);
  } else {
    unpark_all();
  }
}

namespace {
// smi_share's unit: a processor fully taken (divisible by 1..12, so the
// shares of routes up to 6 hops are exact).
constexpr uint32_t SHARE_UNIT = 27720;
}  // namespace

uint32_t FlowControl::proc_weight(const PendingMad& p, bool hop) const {
  if (lim_.smi_share <= 0) return 1;
  const unsigned fwd = p.path->smi_forwards();
  if (fwd && lim_.time_shares && forward_us_ > 0 && answer_us_ > 0) {
    // By time (FlowLimits::time_shares): 2(h-1) forwarding visits of f and
    // an answer of a, r = a/f; equal times give the visits' shares.  The
    // answer time measured is the larger of the two (replies queued
    // together leave the slower of the node and the hops at its pace), so
    // r < 1 says nothing: the visits' shares then.
    const double r = std::clamp(answer_us_ / forward_us_, 1.0, 64.0);
    const double w = (hop ? 2 : r) / (double(fwd) + r);
    return std::max<uint32_t>(1, uint32_t(w * SHARE_UNIT));
  }
  const uint32_t visits = fwd + 1;
  return std::max<uint32_t>(1, (hop ? 2 : 1) * SHARE_UNIT / visits);
}

unsigned FlowControl::node_cap(const PendingMad& p) const { return cap_of(p.dest, is_pm(p)); }

unsigned FlowControl::cap_of(uint64_t key, bool pm) const {
  if (!lim_.node_cap) return 0;
  const unsigned cut = pm ? pm_cut_ : node_cut_;
  const unsigned cap = cut ? std::min(cut, lim_.node_cap) : lim_.node_cap;
  return key ? std::min(cap, node_level(key)) : cap;
}

uint64_t FlowControl::held_at(const PendingMad& p) const {
  if (!p.path) return 0;
  if (is_pm(p)) {
    // FlowLimits::pma_counts: at its node's SMA (by the same LID), once the
    // PMA has answered slower than that SMA.
    if (lim_.pma_counts <= 0 || !p.path->DLID || p.path->is_dr()) return 0;
    const uint64_t sma = head_key(*p.path);
    auto pma_it = node_level_.find(p.dest), sma_it = node_level_.find(sma);
    if (pma_it == node_level_.end() || sma_it == node_level_.end()) return 0;
    const double pma_us = pma_it->second.least_us, sma_us = sma_it->second.least_us;
    return pma_us > 0 && sma_us > 0 && pma_us >= lim_.pma_counts * sma_us ? sma : 0;
  }
  if (!lim_.head_counts || p.path->route_trial) return 0;
  if (p.path->lid_head()) return head_key(*p.path);
  // (FlowLimits::dr_heads: a directed route of two hops leaves the first
  // switch by its last hop, which that switch handles twice in turn as a
  // hybrid head does.)
  if (!lim_.dr_heads || !p.path->is_dr() || p.path->drPath.size() != 3) return 0;
  uint64_t first = 0;
  for_each_hop(*p.path, [&](uint64_t k) { first = k; });
  return first;
}

void FlowControl::stop_level(uint64_t key, unsigned load) {
  unsigned lvl = node_level(key);
  if (load >= 2) lvl = std::max(1u, std::min(lvl, load - 1u));
  NodeLevel& n = node_level_[key];
  n.cap = uint8_t(lvl);
  n.stopped = true;
}

unsigned FlowControl::node_level(uint64_t key) const {
  if (!lim_.node_start || lim_.node_start >= lim_.node_cap) return lim_.node_cap;
  auto it = node_level_.find(key);
  const unsigned start = start_cut_ ? std::min(lim_.node_start, start_cut_) : lim_.node_start;
  return it == node_level_.end() || !it->second.cap ? start : it->second.cap;
}

void FlowControl::raise_node(const PendingMad& p, Clock::time_point now) {
  // FlowLimits::node_start: a reply to a MAD sent once (Karn), counted in
  // the caps, to a node whose cap may rise.
  if (!p.dest || !p.dest_load || p.sends != 1 || !lim_.node_start || lim_.node_start >= lim_.node_cap) return;
  const double us = std::chrono::duration<double, std::micro>(now - p.sent_at).count();
  NodeLevel& n = node_level_[p.dest];
  if (!n.cap) n.cap = uint8_t(node_level(p.dest));
  // (FlowLimits::node_least_slack: a least that queued itself is no
  // measure of what does not queue.  SMPs only: a PMA's reads are
  // another agent's round trips.)
  double ref = n.least_us;
  if (!p.path->is_dr() && !is_pm(p) && lim_.node_least_slack > 0) {
    double& kmin = lid_min_us_[answered_by_ca(p) ? 1 : 0];
    if (kmin <= 0 || us < kmin) kmin = us;
    if (ref > 0) ref = std::min<double>(ref, kmin * (1 + lim_.node_least_slack));
  }
  const bool queued = ref > 0 && us > ref * (1 + lim_.node_rtt_rise);
  if (n.least_us <= 0 || us < n.least_us) n.least_us = float(us);
  if (n.stopped || queued || n.cap >= lim_.node_cap || p.dest_load < n.cap) return;
  ++n.cap;
}

template <class Fn>
void FlowControl::each_proc(const PendingMad& p, Fn fn) const {
  each_proc(p, p.path->lid_head() ? head_key(*p.path) : 0, fn);
}

template <class Fn>
void FlowControl::each_proc(const PendingMad& p, uint64_t head, Fn fn) const {
  fn(p.dest);
  if (head) fn(head);
  for_each_hop(*p.path, fn);
}

unsigned FlowControl::proc_level(uint64_t key) const {
  auto it = proc_level_.find(key);
  const unsigned start = start_cut_ ? std::min(lim_.proc_start, start_cut_) : lim_.proc_start;
  return it == proc_level_.end() || !it->second.cap ? start : it->second.cap;
}

void FlowControl::raise_procs(const PendingMad& p, double us, Clock::time_point now) {
  // FlowLimits::proc_start: an SMP sent once, answered.  Did it queue?
  // Against the least round trip to its node (before this one), else the
  // least of directed routes of as many processor visits (a node not
  // heard from yet; a slower node than those is taken as queued: no rise).
  NodeLevel& n = node_level_[p.dest];
  const double node_ref = n.least_us;
  double ref = node_ref;
  if (p.path->is_dr()) {
    // (A node's least may itself have queued; the least of its route
    // length is the fabric's: a node slower than that is taken as queued.)
    const size_t v = p.path->smi_forwards() + 1;
    if (v < rtt_min_us_.size() && std::isfinite(rtt_min_us_[v]) && (ref <= 0 || rtt_min_us_[v] < ref))
      ref = rtt_min_us_[v];
  }
  if (n.least_us <= 0 || us < n.least_us) n.least_us = float(us);
  if (!lim_.proc_start || ref <= 0) return;
  if (us > ref * (1 + lim_.node_rtt_rise)) {
    // Queued.  Waiting as long again as the least round trip to its node
    // (the queue on its way at least as long as the trip: proc_fall) brings
    // the levels it met at their full down by one: the queues stay short
    // whatever their size, and a fabric that slows down partway (the SM
    // starting a sweep) brings them back down without a loss.
    if (node_ref <= 0 || lim_.proc_fall <= 0 || us <= node_ref * (1 + lim_.proc_fall)) return;
    each_proc(p, [&](uint64_t k) {
      const unsigned lvl = proc_level(k);
      if (lvl <= 1 || count_of(occ_, k) + 1 < lvl) return;
      proc_level_[k].cap = uint16_t(lvl - 1);
      ++fs_.level_falls;
    });
    return;
  }
  each_proc(p, [&](uint64_t k) {
    const unsigned lvl = proc_level(k);
    // (Where the shares were lifted, no loss and no queueing so far, the
    // levels alone hold, up to the window.)
    if (lvl >= (shares_lifted() ? max_ : lim_.proc_max) || count_of(occ_, k) + 1 < lvl) return;
    ProcLevel& l = proc_level_[k];
    if (now < l.settle_until) return;
    if (l.ceil && lvl >= l.ceil) {
      // The level a loss came at: tried again only after proc_settle
      // round trips more at the one below it without a loss.
      l.settle_until = now + 8 * settle_time();
      ++l.ceil;
      return;
    }
    l.cap = uint16_t(lvl + 1);
    fs_.level_hi = std::max(fs_.level_hi, lvl + 1);
  });
}

Clock::duration FlowControl::settle_time() const {
  const double rtt_ms = smp_rtt_.srtt_ms > 0 ? smp_rtt_.srtt_ms : double(lim_.min_timeout_ms);
  return std::chrono::microseconds(int64_t(lim_.proc_settle * rtt_ms * 1000));
}

void FlowControl::cut_procs(const PendingMad& p, Clock::time_point now) {
  // FlowLimits::proc_start: p was lost.  Every processor on its way that
  // held others of ours comes down (by loss_cut of what it held, below
  // their number), and rises again only after proc_settle round trips.
  const Clock::time_point until = now + settle_time();
  each_proc(p, [&](uint64_t k) {
    const unsigned o = count_of(occ_, k);
    if (o < 2) return;
    const unsigned lvl = std::min(proc_level(k), o);
    ProcLevel& l = proc_level_[k];
    l.cap = uint16_t(std::clamp(unsigned(double(lvl) * lim_.loss_cut), 1u, lvl - 1));
    l.ceil = uint16_t(lvl - 1 ? lvl - 1 : 1);  // (not past where it lost, until settled)
    l.settle_until = until;
    // The fabric's other processors are most likely alike: those not
    // heard from yet (and nodes' caps) start no higher.
    start_cut_ = start_cut_ ? std::min<unsigned>(start_cut_, l.cap) : l.cap;
    ++fs_.level_cuts;
  });
}

unsigned FlowControl::at_node(uint64_t key) const { return count_of(to_node_, key); }

bool FlowControl::is_pm(const PendingMad& p) const {
  return p.dest && class_of(p.req.data()) == iba::mgmt::PERF;
}

uint32_t FlowControl::proc_cap() const {
  const double c = lim_.smi_share > 0 ? lim_.smi_share * SHARE_UNIT : lim_.smi_cap;
  return uint32_t(std::clamp(c * scale_, 1.0, 1e9));
}

uint64_t FlowControl::blocker(const PendingMad& p) const {
  if (!p.dest || !tracking_) return 0;
  if (!urgent_at_.empty() && p.urgent_keys.empty()) {
    // An urgent MAD waits where p would count: p waits behind it.
    if (urgent_at_.count(p.dest)) return p.dest;
    if (!is_pm(p)) {
      uint64_t b = 0;
      each_proc(p, [&](uint64_t k) {
        if (!b && urgent_at_.count(k)) b = k;
      });
      if (b) return b;
    }
  }
  const unsigned node_cap = room_cap(this->node_cap(p), p.dest);  // (not widened: a node's queue is its own)
  if (node_cap && count_of(to_node_, p.dest) >= node_cap && !shares_lifted()) return p.dest;
  if (const uint64_t h = held_at(p); h && !shares_lifted()) {
    if (const unsigned c = room_cap(cap_of(h, false), h); c && count_of(to_node_, h) >= c) return h;
  }
  if (lim_.proc_start && !is_pm(p)) {
    // FlowLimits::proc_start: every processor on the way holds its level.
    uint64_t b = 0;
    each_proc(p, [&](uint64_t k) {
      if (!b && count_of(occ_, k) >= proc_level(k)) b = k;
    });
    if (b) return b;
  }
  if (!lim_.smi_cap || is_pm(p) || shares_lifted()) return 0;
  // The destination's processor, and every switch's a directed route passes
  // (it handles the SMP twice, out and back, but holds it only meanwhile).
  // A processor with nothing of ours takes any SMP.
  const uint32_t cap = proc_cap();
  auto full = [&](uint64_t k, uint32_t w) {
    const uint32_t c = count_of(at_proc_, k);
    return c && c + w > cap;
  };
  // As the destination, a processor also takes node_cap SMPs of the
  // share p has there (a LID-routed SMP's is 1: a whole processor).
  const uint32_t wd = proc_weight(p, false);
  if (const uint32_t c = count_of(at_proc_, p.dest); c && c + wd > std::max<uint64_t>(cap, uint64_t(node_cap) * wd))
    return p.dest;
  uint64_t b = 0;
  const uint32_t w = proc_weight(p, true);
  if (p.path->lid_head() && full(head_key(*p.path), w)) return head_key(*p.path);
  for_each_hop(*p.path, [&](uint64_t k) {
    if (!b && full(k, w)) b = k;
  });
  return b;
}

void FlowControl::hold(PendingMad& p, int d) {
  if (!p.dest || !tracking_) return;
  auto one = [&](auto& m, uint64_t k, int by) {
    add_to(m, k, by);
    if (by < 0 && !parked_.empty()) unpark(k);
  };
  one(to_node_, p.dest, d);
  if (p.path && (p.path->urgent || p.path->probe)) urgent_out_ += unsigned(d);
  if (is_pm(p)) {
    // (A PMA: its own cap, and its node's where FlowLimits::pma_counts.)
    if (d > 0) p.held_in = held_at(p);
    if (p.held_in) one(to_node_, p.held_in, d);
    return;
  }
  // The keys and shares p was counted in with (what they depend on, the
  // nodes learned and the estimates, may have changed since) are the ones
  // it is counted out with.
  if (d > 0) {
    p.head_at = p.path->lid_head() ? head_key(*p.path) : 0;
    p.held_in = held_at(p);
    p.w_dest = proc_weight(p, false);
    p.w_hop = proc_weight(p, true);
  }
  const uint64_t head = p.head_at;
  if (p.held_in) one(to_node_, p.held_in, d);
  // A route form's trial (IBPath::route_trial) takes no level: where the
  // form is not routed it is dropped and would hold its slots for a whole
  // timeout (the hybrid fallback took 1.22x the plain walk, 1.00x without).
  if (lim_.proc_start && !p.path->route_trial) each_proc(p, head, [&](uint64_t k) { one(occ_, k, d); });
  one(at_proc_, p.dest, d * int(p.w_dest));
  const int w = d * int(p.w_hop);
  if (head) one(at_proc_, head, w);
  for_each_hop(*p.path, [&](uint64_t k) { one(at_proc_, k, w); });
}

void FlowControl::park(uint64_t key, PendingMad& p) {
  if (!p.was_held) {
    p.was_held = true;
    ++fs_.held;
  }
  queue(parked_[key], p);
  if (lim_.urgent_first && p.path && p.path->urgent && p.urgent_keys.empty()) {
    // Every processor it would count at is held for it, not only the one
    // it waits for now: it may wait for another next.
    if (is_pm(p)) p.urgent_keys.push_back(p.dest);
    else each_proc(p, [&](uint64_t k) { p.urgent_keys.push_back(k); });
    for (uint64_t k : p.urgent_keys) ++urgent_at_[k];
  }
}

void FlowControl::release_urgent(PendingMad& p) {
  for (uint64_t k : p.urgent_keys)
    if (auto it = urgent_at_.find(k); it != urgent_at_.end() && --it->second == 0) urgent_at_.erase(it);
  p.urgent_keys.clear();
}

void FlowControl::unpark(uint64_t key) {
  // A count went down: what waited for it goes first in the wait queue
  // (drain() then issues it, or parks it again on another full cap).
  auto it = parked_.find(key);
  if (it == parked_.end()) return;
  const MadLine l = it->second;
  parked_.erase(it);
  line_.push_front(*l.head, *l.tail);
}

void FlowControl::unpark_all() {
  while (!parked_.empty()) unpark(parked_.begin()->first);
}

// --- what happens to a MAD -----------------------------------------------------------

void FlowControl::issued(PendingMad& p) {
  p.step = 0;
  if (!p.urgent_keys.empty()) release_urgent(p);
  if (p.slot >= slot_dest_.size()) slot_dest_.resize(size_t(p.slot) + 1, 0);
  slot_dest_[p.slot] = p.dest;
  hold(p, +1);
  p.dest_load = p.dest && tracking_ ? uint16_t(std::min(at_node(p.dest), 0xffffu)) : 0;
  const uint64_t h = p.dest && tracking_ ? p.held_in : 0;
  p.head_load = h ? uint16_t(std::min(at_node(h), 0xffffu)) : 0;
}

void FlowControl::answered(PendingMad& p, const uint8_t* reply, Clock::time_point now) {
  on_reply(p, now);
  learn_class_port_info(p, reply);
  if (lim_.overtakes && !reorders_) overtake(p, now);
}

void FlowControl::timed_out(const PendingMad& p, Clock::time_point now) {
  ++(p.path && p.path->route_trial ? fs_.trial_timeouts : fs_.timeouts);
  on_loss(p, now);
}

void FlowControl::busy(const PendingMad& p, Clock::time_point now) {
  ++fs_.busy;
  on_loss(p, now);
}

void FlowControl::on_loss(const PendingMad& p, Clock::time_point now) {
  if (p.path && p.path->route_trial) return;  // (a route form tried, not a queue: IBPath::route_trial)
  if (p.dest) cut_caps(p, now);
  cut_window(p, now);
}

void FlowControl::cut_caps(const PendingMad& p, Clock::time_point now) {
  // Where was it lost?  With others of ours at its destination, most
  // likely in that node's queue: the node cap comes below their number
  // (a PMA's GMPs: the PMA's cap).  Alone there, at a processor on its
  // way (or behind the SM's own SMPs): the processor caps come down,
  // back to their first size the first time, then by loss_cut, at most
  // once per round trip (not again for MADs sent before the last cut).
  const bool pm = is_pm(p);
  if (!pm && lim_.proc_start && tracking_) cut_procs(p, now);
  if (lim_.node_start && lim_.node_start < lim_.node_cap) {
    // This node's cap rises no more (FlowLimits::node_start); lost with
    // others of ours there, it comes below their number.  So does its
    // hybrid head's, lost with others of ours there (FlowLimits::head_counts).
    stop_level(p.dest, p.dest_load);
    if (p.head_load >= 2) stop_level(p.held_in, p.head_load);
  }
  if (p.dest_load >= 2) {
    unsigned& cut = pm ? pm_cut_ : node_cut_;
    const unsigned now_cap = node_cap(p);
    if (now_cap) cut = std::max(1u, std::min<unsigned>(now_cap, p.dest_load - 1u));
  } else if (!pm && p.sent_at >= proc_cut_at_) {
    scale_ = scale_ > 1 ? 1 : std::max(lim_.min_scale, scale_ * lim_.loss_cut);
    proc_cut_at_ = now;
  }
  if (!pm && !lost_smp_) {
    lost_smp_ = true;
    scale_ = std::min(scale_, 1.0);  // back to the caps that lost nothing, at most
  }
  fs_.scale_lo = std::min(fs_.scale_lo, scale_);
  if (!tracking_) caps_back_ = true;  // (a PMA's loss: the counts must be kept)
  sync_caps();
}

void FlowControl::cut_window(const PendingMad& p, Clock::time_point now) {
  if (!lim_.adaptive || p.sent_at < cut_at_) return;  // this round trip's loss already cut the window
  // (FlowLimits::window_grow: a loss ends the steps beyond the first size,
  // for good or, with loss_retry, until loss_retry_ replies more.)
  steps_again(lim_.loss_retry, loss_retry_);
  top_ = start_;
  ssthresh_ = std::clamp(cwnd_ / 2, 1.0, top_);
  cwnd_ = ssthresh_;
  cut_at_ = now;
  fs_.window_lo = std::min(fs_.window_lo, window());
}

void FlowControl::steps_again(double retry, uint64_t& next) {
  // (FlowLimits::window_retry, loss_retry: next replies from now, retry
  // times the first size the first time, twice as many the time after.)
  if (retry <= 0) {
    top_stopped_ = true;
    return;
  }
  if (!next) next = std::max<uint64_t>(1, uint64_t(retry * start_));
  top_stopped_ = false;
  top_replies_ = 0;
  top_wait_ = next;
  next *= 2;
}

void FlowControl::open_window() {
  if (!lim_.adaptive) return;
  if (cwnd_ >= top_) {
    step_window();
    return;
  }
  cwnd_ = std::min(top_, cwnd_ < ssthresh_ ? cwnd_ + 1 : cwnd_ + 1 / cwnd_);
  fs_.window_hi = std::max(fs_.window_hi, window());
}

void FlowControl::step_window() {
  // FlowLimits::window_grow: a step beyond the top is asked of the local
  // round trip only when the window is what holds MADs back (full at its
  // top, MADs waiting in line: not for a cap) and a window's worth of
  // replies came since the last step (its round trips measured).
  if (top_stopped_ || top_ >= max_ || lim_.window_grow <= 1 || probe_out_ || !keeps_up()) return;
  if (++top_replies_ < top_wait_ || line_.empty() || !std::isfinite(local_min_us_)) return;
  probe_for_window_ = true;
  if (time_local_path()) {
    ++fs_.window_probes;
    return;
  }
  probe_for_window_ = false;
  top_stopped_ = true;  // (no local round trip to judge by: this port sends no SMPs)
}

bool FlowControl::keeps_up() const {
  // No SMP lost, the caps not brought back by round trips that rose since
  // (narrow_caps), and either
  //  - the caps' widening, paced by the round trips, went all the way at
  //    the first size without a rise (caps_wanted: lifted), or
  //  - it stopped on a rise and the caps hold (FlowLimits::window_held).
  if (!delay_paced() || smp_replies_ < lim_.start_replies || caps_back_) return false;
  // (After a loss, only with loss_retry, the caps holding.)
  if (lost_smp_) return lim_.loss_retry > 0 && tracking_;
  // (While widening, only where hybrid routes' tails outnumber the plain
  // directed routes through switches, whose shares of the processors
  // they pass are what the widening is judging: FlowLimits::window_widening.)
  if (!grow_stopped_)
    return scale_ >= lim_.lift_scale || (lim_.window_widening && tracking_ && tails_lead());
  return lim_.window_held && tracking_;
}

void FlowControl::window_probe_done(bool answered, double us) {
  // (A loss meanwhile, or round trips that undid the steps: the count
  // of replies began again, and this answer judges nothing.)
  const bool undone = top_replies_ < top_wait_;
  top_replies_ = 0;  // (counted afresh from this answer)
  if (top_stopped_ || undone) return;
  if (!answered) {
    top_stopped_ = true;
    return;
  }
  if (us > local_min_us_ * (1 + lim_.window_rise)) {
    // The host's own path queues: more in flight would wait there.  Asked
    // again after twice as many replies as the last time (the test bed's
    // one simulator thread: a dozen local round trips in a k=32 walk).
    ++fs_.window_held;
    top_wait_ *= 2;
    return;
  }
  top_ = std::min(double(max_), top_ * lim_.window_grow);
  top_wait_ = uint64_t(top_);
  ssthresh_ = top_;  // (the window grows by one a reply up to the new top)
  ++fs_.window_steps;
  sync_caps();  // (beyond the first size the caps hold)
}

void FlowControl::on_reply(PendingMad& p, Clock::time_point now) {
  const bool smp = p.dest && !is_pm(p);
  raise_caps(p, smp, now);
  // Karn: only a MAD sent once times its own round trip.
  if (smp && p.sends == 1) time_smp(p, now);
  if (!smp && p.sends == 1 && p.adaptive_timeout) time_gmp(p, now);
  open_window();
}

bool FlowControl::delay_paced() const { return lim_.delay_rise > 0 && lim_.grow > 1 && lim_.delay_grow > 1; }

void FlowControl::raise_caps(const PendingMad& p, bool smp, Clock::time_point now) {
  if (smp && p.sends == 1 && tracking_)  // (before raise_node: the least round trip to p's node without p's)
    raise_procs(p, std::chrono::duration<double, std::micro>(now - p.sent_at).count(), now);
  raise_node(p, now);
  if (smp && p.path->smi_forwards()) ++(p.path->lid_head() ? tail_replies_ : dr_replies_);
  if (smp && ++smp_replies_ >= lim_.start_replies && !lim_.caps_from_start && !lost_smp_ && tracking_) {
    if (delay_paced()) {
      if (step_at_ == Clock::time_point{}) new_step(now);  // the first step's baseline: scale 1
    } else if (lim_.grow > 1)
      grow_caps(now);
    else
      sync_caps();  // lifted at once
  }
}

void FlowControl::time_smp(const PendingMad& p, Clock::time_point now) {
  if (tracking_ && lim_.time_shares) note_gap(p, now);
  const double ms = std::chrono::duration<double, std::milli>(now - p.sent_at).count();
  if (p.path->is_dr() && p.path->hop_count() == 0) local_min_us_ = std::min(local_min_us_, ms * 1000);
  if (p.path->is_dr()) {
    const size_t v = p.path->smi_forwards() + 1;  // processors visited
    if (v < rtt_min_us_.size()) {
      ++rtt_n_[v];
      if (ms * 1000 < rtt_min_us_[v]) rtt_min_us_[v] = ms * 1000;
      if (rtt_n_[v] >= 8) measure_visits();
      // (FlowLimits::rtt_by_kind: a CA's answers against CAs' least.)
      double& least = lim_.rtt_by_kind && answered_by_ca(p) ? rtt_ca_min_us_[v] : rtt_min_us_[v];
      least = std::min(least, ms * 1000);
      if (delay_paced() && least > 0) judge_step(p, ms * 1000 / least, now);
    }
  }
  const bool first = smp_rtt_.srtt_ms <= 0;
  smp_rtt_.add(ms);
  if (first) rearm(true, 0);
}

void FlowControl::time_gmp(const PendingMad& p, Clock::time_point now) {
  // A GMP class's own round trips, the SA's apart: an SA answer takes as
  // long as its table (RMPP), not a queue's wait.
  const uint8_t cls = class_of(p.req.data());
  if (is_smp(cls) || cls == iba::mgmt::SUBN_ADM) return;
  Rtt& r = gmp_rtt_[cls];
  const bool first = r.srtt_ms <= 0;
  r.add(std::chrono::duration<double, std::milli>(now - p.sent_at).count());
  if (first) rearm(false, cls);
}

FlowStats FlowControl::stats() const {
  FlowStats f = fs_;
  f.window_max = max_;
  f.window_start = start_;
  f.srtt_ms = smp_rtt_.srtt_ms;
  f.visit_us = visit_us_;
  f.caps = caps_wanted();
  f.scale = scale_;
  f.forward_us = forward_us_;
  f.reorders = reorders_;
  f.answer_us = answer_us_;
  if (lim_.node_cap) {
    f.node_cap = node_cut_ ? std::min(node_cut_, lim_.node_cap) : lim_.node_cap;
    f.pm_cap = pm_cut_ ? std::min(pm_cut_, lim_.node_cap) : lim_.node_cap;
  }
  return f;
}

void report_flow(const FlowStats& f) {
  if (!log::verbosity() || !f.sent) return;
  log::info("I: flow: %llu MADs sent, %llu timeouts (%llu dropped, %llu late), %llu resent, %llu busy, %llu held at a "
            "busy node, window %u..%u of %u, rtt %.3f ms, %.1f us per processor visit (caps %s, widened up to %gx%s)\n",
            (unsigned long long)f.sent, (unsigned long long)f.timeouts, (unsigned long long)f.drops(),
            (unsigned long long)f.late, (unsigned long long)f.resent, (unsigned long long)f.busy,
            (unsigned long long)f.held, f.window_lo, f.window_hi, f.window_max, f.srtt_ms, f.visit_us,
            f.caps ? "on" : "off", f.scale_hi,
            (std::string(f.probes + f.window_probes
                             ? ", " + std::to_string(f.probes + f.window_probes) + " local round trips timed"
                             : "") +
             (f.trial_timeouts ? ", " + std::to_string(f.trial_timeouts) + " route trials unanswered" : "") +
             (f.overtaken ? ", " + std::to_string(f.overtaken) + " seen lost by order" + (f.reorders ? " (replies reorder here)" : "")
                          : "") +
             (f.tail_probes ? ", " + std::to_string(f.tail_probes) + " sent again while the rest waited" : ""))
                .c_str());
}

}  // namespace ibcore
