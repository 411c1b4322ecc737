#include "core/rpc/rpc.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>

#include "core/base/config.h"
#include "core/mad/trace.h"
#include "core/rpc/target.h"
#include "core/out/log.h"
#include "iba/enums.h"
#include "iba/introspect.h"
#include "iba/sa.h"
#include "iba/smp.h"
#include "iba/vendor.h"

namespace ibcore {

namespace {

uint8_t class_of(const uint8_t* mad) { return uint8_t(iba::MADHeader::mgmtClass_at(mad)); }
uint8_t version_of(const uint8_t* mad) { return uint8_t(iba::MADHeader::classVersion_at(mad)); }

const iba::ClassDesc* format_of(const uint8_t* mad) { return iba::find_class(class_of(mad), version_of(mad)); }

uint16_t mad_status(const uint8_t* mad) {
  // A directed route SMP's status has the D bit beside it.
  if (iba::MADHeader::mgmtClass_at(mad) == iba::mgmt::SUBN_DIRECTED_ROUTE)
    return uint16_t(iba::SMPFormatDirected::status_at(mad));
  return uint16_t(iba::MADHeader::status_at(mad));
}

bool is_smp(uint8_t cls) { return cls == iba::mgmt::SUBN_LID_ROUTED || cls == iba::mgmt::SUBN_DIRECTED_ROUTE; }

// Keys naming a node (flow control): FNV-1a over what names it.  A
// directed route's key after k hops is the key of the node those hops
// reach, so every proper prefix of a DR path names an intermediate switch.
constexpr uint64_t FNV_BASIS = 1469598103934665603ull, FNV_PRIME = 1099511628211ull;
uint64_t fnv(uint64_t h, uint8_t b) { return (h ^ b) * FNV_PRIME; }
uint64_t fnv16(uint64_t h, uint16_t v) { return fnv(fnv(h, uint8_t(v >> 8)), uint8_t(v)); }
uint64_t dr_seed(const IBPath& p) {
  const uint64_t h = fnv16(fnv16(fnv(FNV_BASIS, 'D'), p.drSLID), p.drDLID);
  return p.lid_head() ? fnv16(h, p.DLID) : h;  // (a hybrid route starts at its DLID's node)
}
uint64_t lid_key(uint16_t lid) { return fnv16(fnv(FNV_BASIS, 'L'), lid); }
uint64_t gmp_key(uint8_t cls, uint16_t lid) { return fnv16(fnv(fnv(FNV_BASIS, 'G'), cls), lid); }
uint64_t dr_key(const IBPath& p) {
  uint64_t h = dr_seed(p);
  for (uint8_t b : p.drPath) h = fnv(h, b);
  return h | 1;  // never 0 (0: no node)
}
// fn(key) for each intermediate switch of DR path p (prefixes of 1 .. n-1 hops).
template <class Fn>
void for_each_hop(const IBPath& p, Fn fn) {
  const size_t n = p.drPath.size();
  if (n < 3) return;
  uint64_t h = fnv(dr_seed(p), p.drPath[0]);
  for (size_t k = 1; k + 1 < n; ++k) {
    h = fnv(h, p.drPath[k]);
    fn(h | 1);
  }
}

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

// --- building ------------------------------------------------------------------------

size_t build_mad(uint8_t* mad, const MadRequest& req, const IBPath& path, uint64_t tid) {
  const iba::ClassDesc* cls = req.cls;
  if (!cls) throw MADError("No management class given for the request");
  if (cls->mgmt_class == iba::mgmt::SUBN_LID_ROUTED && path.is_dr()) {
    cls = iba::find_class(iba::mgmt::SUBN_DIRECTED_ROUTE, cls->class_version);
    if (!cls) throw MADError("The directed route SMP format is not defined");
  } else if (cls->mgmt_class == iba::mgmt::SUBN_DIRECTED_ROUTE && !path.is_dr()) {
    cls = iba::find_class(iba::mgmt::SUBN_LID_ROUTED, cls->class_version);
    if (!cls) throw MADError("The LID routed SMP format is not defined");
  } else if (path.is_dr() && cls->mgmt_class != iba::mgmt::SUBN_LID_ROUTED &&
             cls->mgmt_class != iba::mgmt::SUBN_DIRECTED_ROUTE) {
    throw MADError(std::string("A directed route path (") + path.dr_string() + ") can only carry SMPs, not " +
                   cls->name);
  }
  // An attribute the registry defines is checked against the methods it
  // allows; any other ID goes out as given with the payload as raw bytes
  // (smpdump and vendstat send IDs ibtool does not decode).
  const iba::AttrDesc* a = iba::find_attr(*cls, req.attr_id);
  char b[160];
  if (a && !(a->methods & iba::mbit(req.method))) {
    std::snprintf(b, sizeof b, "RPC %s is not allowed for %s(%u) in %s(%u.%u)",
                  iba::method_name(cls->mgmt_class, req.method).c_str(), a->desc->name, req.attr_id, cls->name,
                  cls->mgmt_class, cls->class_version);
    throw MADError(b);
  }
  std::memset(mad, 0, iba::MAD_SIZE);
  using H = iba::MADHeader;
  H::set_baseVersion_at(mad, 1);
  H::set_mgmtClass_at(mad, cls->mgmt_class);
  H::set_classVersion_at(mad, cls->class_version);
  H::set_method_at(mad, req.method);
  H::set_transactionID_at(mad, tid);
  H::set_attributeID_at(mad, req.attr_id);
  H::set_attributeModifier_at(mad, req.amod);
  if (cls->mgmt_class == iba::mgmt::SUBN_LID_ROUTED || cls->mgmt_class == iba::mgmt::SUBN_DIRECTED_ROUTE)
    iba::SMPFormat::set_MKey_at(mad, path.mkey.value_or(0));
  if (cls->mgmt_class == iba::mgmt::SUBN_DIRECTED_ROUTE) {
    using D = iba::SMPFormatDirected;
    D::set_hopPointer_at(mad, 0);
    D::set_hopCount_at(mad, path.hop_count());
    D::set_drSLID_at(mad, path.drSLID);
    D::set_drDLID_at(mad, path.drDLID);
    for (size_t i = 0; i < path.drPath.size() && i < 64; ++i) D::set_initialPath_at(mad, i, path.drPath[i]);
  }
  if (cls->mgmt_class == iba::mgmt::SUBN_ADM) {
    iba::SAFormat::set_SMKey_at(mad, path.smkey.value_or(0));
    iba::SAFormat::set_componentMask_at(mad, req.comp_mask);
  }
  if (cls->mgmt_class >= iba::mgmt::VENDOR_OUI_MIN && cls->mgmt_class <= iba::mgmt::VENDOR_OUI_MAX)
    iba::VendOUIFormat::set_OUI_at(mad, req.oui);
  size_t room = iba::MAD_SIZE - cls->data_off;
  size_t n = std::min(req.payload.size(), room);
  if (n) std::memcpy(mad + cls->data_off, req.payload.data(), n);
  return iba::MAD_SIZE;
}

// --- engine --------------------------------------------------------------------------

MadEngine::MadEngine(Transport& t, unsigned max_outstanding) : t_(t) {
  const int configured = t.settings().outstanding;
  max_ = max_outstanding ? max_outstanding : configured > 0 ? unsigned(configured) : 64u;
  max_ = std::clamp(max_, 1u, 65535u);
  slots_.assign(size_t(max_) + 2, nullptr);  // [max_]: follow_sm's probe; [max_ + 1]: the local one
  free_slots_.reserve(max_);
  for (uint32_t i = max_; i-- > 0;) free_slots_.push_back(i);
  std::vector<Timer> v;
  v.reserve(size_t(max_) * 2);
  timers_ = decltype(timers_)(std::greater<Timer>(), std::move(v));
  cwnd_ = ssthresh_ = max_;
  rtt_min_us_.fill(std::numeric_limits<double>::infinity());
  local_min_us_ = std::numeric_limits<double>::infinity();
  rtt_n_.fill(0);
  fs_.window_lo = fs_.window_hi = max_;
}

MadEngine::~MadEngine() {
  // A local round trip still out when its caller's work is done (the walk
  // ended meanwhile): answered, or timed out, before the port is closed.
  try {
    for (int i = 0; slots_[max_ + 1] && i < 200; ++i) pump(100);  // (its timeouts end it sooner)
  } catch (...) {
  }
}

// --- flow control ----------------------------------------------------------------------

unsigned MadEngine::window() const {
  if (!lim_.adaptive) return max_;
  return std::clamp(unsigned(cwnd_), 1u, max_);
}

uint64_t MadEngine::key_of(const IBPath& path, uint8_t mgmt_class) const {
  // A PMA's GMPs: the node cap holds them too (a PMA's queue is small, and
  // full it answers BUSY or drops), counted apart from the node's SMPs.
  if (mgmt_class == iba::mgmt::PERF && path.DLID && !path.is_dr()) return gmp_key(mgmt_class, path.DLID) | 1;
  if (!is_smp(mgmt_class)) return 0;
  if (path.is_dr()) return dr_key(path);
  uint64_t k = lid_key(path.DLID);
  auto it = alias_.find(k);
  return it == alias_.end() ? k : it->second;
}

uint64_t MadEngine::head_key(const IBPath& p) const {
  IBPath l;
  l.DLID = p.DLID;
  return key_of(l, iba::mgmt::SUBN_LID_ROUTED);
}

void MadEngine::learn_node(const IBPath& dr, uint16_t lid, std::optional<uint8_t> resp_time) {
  if (!dr.is_dr()) return;
  const uint64_t k = dr_key(dr);
  if (lid) alias_[lid_key(lid)] = k;
  if (resp_time) resp_time_[k] = *resp_time;
}

void MadEngine::learn_subnet_timeout(uint8_t subnet_timeout) { subnet_timeout_ = subnet_timeout; }

int MadEngine::timeout_cap_ms(uint64_t dest, uint8_t mgmt_class, uint16_t dlid) const {
  auto it = resp_time_.find(is_smp(mgmt_class) ? dest : gmp_key(mgmt_class, dlid));
  if (it == resp_time_.end()) return lim_.default_timeout_ms;
  // The node's RespTimeValue, and SubnetTimeOut as the packet's lifetime.
  double ms = iba_reply_bound_ms(it->second, subnet_timeout_.value_or(0));
  return int(std::clamp(std::ceil(ms), double(lim_.min_timeout_ms), 60000.0));
}

int MadEngine::computed_timeout_ms(const IBPath& path, uint8_t mgmt_class) const {
  const int cap = timeout_cap_ms(key_of(path, mgmt_class), mgmt_class, path.DLID);
  if (!is_smp(mgmt_class) || srtt_ms_ <= 0) return cap;
  // The round trip measured so far, with room for its variation (RFC 6298),
  // within [min_timeout_ms, the IBA's bound].
  const double rto = std::ceil(srtt_ms_ + 4 * rttvar_ms_);
  return int(std::clamp(rto, double(std::min(lim_.min_timeout_ms, cap)), double(cap)));
}

bool MadEngine::caps_wanted() const {
  if (!lim_.node_cap && !lim_.smi_cap) return false;
  if (lost_smp_ || caps_back_) return true;
  if (!lim_.caps_from_start)
    return smp_replies_ < lim_.start_replies ||
           (lim_.start_replies && lim_.grow > 1 && (grow_stopped_ || scale_ < lim_.lift_scale));
  // Lifted where the processors were measured to take (almost) no time.
  return !(lim_.min_visit_us > 0 && visit_us_ >= 0 && visit_us_ < lim_.min_visit_us);
}

void MadEngine::grow_caps() {
  // After start_replies replies and no loss: the caps are widened by grow
  // at most once per timeout (so that a loss the last step caused is seen
  // before the next one), and lifted at lift_scale.
  const Clock::time_point now = t_.now();
  if (now < next_grow_at_) return;
  const int step = std::max(lim_.min_timeout_ms, int(std::ceil(srtt_ms_ + 4 * rttvar_ms_)));
  next_grow_at_ = now + std::chrono::milliseconds(step);
  widen_caps(lim_.grow);
}

void MadEngine::widen_caps(double by) {
  scale_ *= by;
  fs_.scale_hi = std::max(fs_.scale_hi, scale_);
  if (scale_ >= lim_.lift_scale) sync_caps();
  else unpark_all();
}

void MadEngine::sync_caps() {
  const bool on = caps_wanted();
  if (on == tracking_) return;
  tracking_ = on;
  to_node_.clear();
  at_proc_.clear();
  if (on) {
    // Count what is in flight now (it went out while nothing was counted).
    for (size_t i = 0; i < max_; ++i)
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

uint32_t MadEngine::proc_weight(const PendingMad& p, bool hop) const {
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

unsigned MadEngine::node_cap(const PendingMad& p) const {
  if (!lim_.node_cap) return 0;
  const unsigned cut = is_pm(p) ? pm_cut_ : node_cut_;
  return cut ? std::min(cut, lim_.node_cap) : lim_.node_cap;
}

bool MadEngine::is_pm(const PendingMad& p) const {
  return p.dest && class_of(p.req.data()) == iba::mgmt::PERF;
}

uint32_t MadEngine::proc_cap() const {
  const double c = lim_.smi_share > 0 ? lim_.smi_share * SHARE_UNIT : lim_.smi_cap;
  return uint32_t(std::clamp(c * scale_, 1.0, 1e9));
}

uint64_t MadEngine::blocker(const PendingMad& p) const {
  if (!p.dest || !tracking_) return 0;
  const unsigned node_cap = this->node_cap(p);  // (not widened: a node's queue is its own)
  if (node_cap && count_of(to_node_, p.dest) >= node_cap) return p.dest;
  if (!lim_.smi_cap || is_pm(p)) return 0;
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

void MadEngine::hold(PendingMad& p, int d) {
  if (!p.dest || !tracking_) return;
  auto one = [&](auto& m, uint64_t k, int by) {
    add_to(m, k, by);
    if (by < 0 && !parked_.empty()) unpark(k);
  };
  one(to_node_, p.dest, d);
  if (is_pm(p)) return;  // (a PMA: its node cap only)
  // The shares p was counted in with (the estimates behind them may have
  // changed since) are the ones it is counted out with.
  if (d > 0) {
    p.w_dest = proc_weight(p, false);
    p.w_hop = proc_weight(p, true);
  }
  one(at_proc_, p.dest, d * int(p.w_dest));
  const int w = d * int(p.w_hop);
  if (p.path->lid_head()) one(at_proc_, head_key(*p.path), w);
  for_each_hop(*p.path, [&](uint64_t k) { one(at_proc_, k, w); });
}

void MadEngine::park(uint64_t key, PendingMad& p) {
  if (!p.was_held) {
    p.was_held = true;
    ++fs_.held;
  }
  p.next = nullptr;
  Parked& l = parked_[key];
  (l.tail ? l.tail->next : l.head) = &p;
  l.tail = &p;
}

void MadEngine::unpark(uint64_t key) {
  // A count went down: what waited for it goes first in the wait queue
  // (drain() then issues it, or parks it again on another full cap).
  auto it = parked_.find(key);
  if (it == parked_.end()) return;
  Parked l = it->second;
  parked_.erase(it);
  l.tail->next = wait_head_;
  wait_head_ = l.head;
  if (!wait_tail_) wait_tail_ = l.tail;
}

void MadEngine::unpark_all() {
  while (!parked_.empty()) unpark(parked_.begin()->first);
}

void MadEngine::drain() {
  if (draining_) return;  // (a send failing inside the loop completes a MAD)
  draining_ = true;
  // Each MAD looked at is issued or parked with the cap it waits for, so
  // the loop never passes over the same waiting MAD twice.
  while (wait_head_ && in_flight_ < window()) {
    PendingMad* n = wait_head_;
    wait_head_ = n->next;
    if (!wait_head_) wait_tail_ = nullptr;
    n->next = nullptr;
    if (const uint64_t b = blocker(*n)) {
      park(b, *n);
      continue;
    }
    --queued_;
    issue(*n);
  }
  draining_ = false;
}

void MadEngine::on_loss(const PendingMad& p) {
  if (p.path && p.path->route_trial) return;  // (a route form tried, not a queue: IBPath::route_trial)
  if (p.dest) {
    // Where was it lost?  With others of ours at its destination, most
    // likely in that node's queue: the node cap comes below their number
    // (a PMA's GMPs: the PMA's cap).  Alone there, at a processor on its
    // way (or behind the SM's own SMPs): the processor caps come down,
    // back to their first size the first time, then by loss_cut, at most
    // once per round trip (not again for MADs sent before the last cut).
    const bool pm = is_pm(p);
    if (p.dest_load >= 2) {
      unsigned& cut = pm ? pm_cut_ : node_cut_;
      const unsigned now_cap = node_cap(p);
      if (now_cap) cut = std::max(1u, std::min<unsigned>(now_cap, p.dest_load - 1u));
    } else if (!pm && p.sent_at >= proc_cut_at_) {
      scale_ = scale_ > 1 ? 1 : std::max(lim_.min_scale, scale_ * lim_.loss_cut);
      proc_cut_at_ = t_.now();
    }
    if (!pm && !lost_smp_) {
      lost_smp_ = true;
      scale_ = std::min(scale_, 1.0);  // back to the caps that lost nothing, at most
    }
    fs_.scale_lo = std::min(fs_.scale_lo, scale_);
    if (!tracking_) caps_back_ = true;  // (a PMA's loss: the counts must be kept)
    sync_caps();
  }
  if (!lim_.adaptive || p.sent_at < cut_at_) return;  // this round trip's loss already cut the window
  ssthresh_ = std::max(cwnd_ / 2, 1.0);
  cwnd_ = ssthresh_;
  cut_at_ = t_.now();
  fs_.window_lo = std::min(fs_.window_lo, window());
}

void MadEngine::on_reply(PendingMad& p) {
  const bool delay_paced = lim_.delay_rise > 0 && lim_.grow > 1 && lim_.delay_grow > 1;
  const bool smp = p.dest && !is_pm(p);
  if (smp && ++smp_replies_ >= lim_.start_replies && !lim_.caps_from_start && !lost_smp_ && tracking_) {
    if (delay_paced) {
      if (step_at_ == Clock::time_point{}) step_at_ = t_.now();  // the first step's baseline: scale 1
    } else if (lim_.grow > 1)
      grow_caps();
    else
      sync_caps();  // lifted at once
  }
  if (smp && p.sends == 1) {
    // Karn: only a MAD sent once times its own round trip.
    if (tracking_ && lim_.time_shares) note_gap(p);
    const double ms = std::chrono::duration<double, std::milli>(t_.now() - p.sent_at).count();
    if (p.path->is_dr() && p.path->hop_count() == 0) local_min_us_ = std::min(local_min_us_, ms * 1000);
    if (p.path->is_dr()) {
      const size_t v = p.path->smi_forwards() + 1;  // processors visited
      if (v < rtt_min_us_.size()) {
        ++rtt_n_[v];
        if (ms * 1000 < rtt_min_us_[v]) rtt_min_us_[v] = ms * 1000;
        if (rtt_n_[v] >= 8) measure_visits();
        if (delay_paced && rtt_min_us_[v] > 0) judge_step(p, ms * 1000 / rtt_min_us_[v]);
      }
    }
    if (srtt_ms_ <= 0) {
      srtt_ms_ = ms;
      rttvar_ms_ = ms / 2;
    } else {
      rttvar_ms_ = 0.75 * rttvar_ms_ + 0.25 * std::abs(srtt_ms_ - ms);
      srtt_ms_ = 0.875 * srtt_ms_ + 0.125 * ms;
    }
  }
  if (lim_.adaptive && cwnd_ < max_) {
    cwnd_ = std::min(double(max_), cwnd_ < ssthresh_ ? cwnd_ + 1 : cwnd_ + 1 / cwnd_);
    fs_.window_hi = std::max(fs_.window_hi, window());
  }
}

void MadEngine::judge_step(const PendingMad& p, double ratio) {
  // FlowLimits::delay_rise: a step's round trips (SMPs sent after it, as
  // ratios to the least of their route length) against the steps before.
  // FlowLimits::watch_rtt: once the widening stopped above the first size,
  // or the caps were lifted, the same windows say whether the round trips
  // rose since (the SM began a sweep, the fabric slowed down): the caps
  // then come back (narrow_caps).
  if (step_at_ == Clock::time_point{} || p.sent_at < step_at_) return;
  const bool widening = !grow_stopped_ && !lost_smp_ && tracking_;
  const bool watching = lim_.watch_rtt && !widening && !lost_smp_ && (!tracking_ || scale_ > 1);
  if (!widening && !watching) return;
  if (slots_[max_ + 1]) return;  // the step before is being judged (a local round trip is out)
  step_sum_ += ratio;
  if (++step_n_ < std::max(1u, lim_.delay_samples)) return;
  const double mean = step_sum_ / step_n_;
  step_sum_ = 0;
  step_n_ = 0;
  step_at_ = t_.now();
  if (base_delay_ > 0 && mean > base_delay_ * (1 + lim_.delay_rise)) {
    // This step queued SMPs somewhere (or something else did).  Where is
    // for the local port's round trip to say (local_probe_done); nothing
    // is widened meanwhile.
    judged_mean_ = mean / base_delay_;
    judged_abs_ = mean;
    narrowing_ = watching;
    if (!local_probe_) local_probe_ = std::make_unique<PendingMad>();
    local_tries_ = 0;
    if (lim_.local_probes && std::isfinite(local_min_us_) && send_local_smp(*local_probe_, local_path_, max_ + 1, true))
      ++fs_.probes;
    else if (watching)
      narrow_caps();
    else
      stop_widening();
    return;
  }
  base_delay_ = base_delay_ > 0 ? std::min(base_delay_, mean) : mean;
  if (widening) widen_caps(lim_.delay_grow);
}

void MadEngine::narrow_caps() {
  // The round trips rose, and not on the host's side: lifted caps hold
  // again at their first size and are widened afresh (judged against the
  // round trips they give now); widened ones come one step narrower, and
  // again at the next window while the round trips stay up.
  narrowing_ = false;
  ++fs_.caps_back;
  step_at_ = t_.now();
  step_sum_ = 0;
  step_n_ = 0;
  if (!tracking_) {
    // What the engine measured of the processors was of the fabric before
    // (its least round trips, the times per visit): measured afresh.
    scale_ = 1;
    grow_stopped_ = false;
    base_delay_ = 0;
    rtt_min_us_.fill(std::numeric_limits<double>::infinity());
    rtt_n_.fill(0);
    visit_us_ = forward_us_ = answer_us_ = -1;
    gap_n_ = 0;
    last_reply_.clear();
    sync_caps();
    return;
  }
  scale_ = std::max(1.0, scale_ / lim_.delay_grow);
}

void MadEngine::stop_widening() {
  scale_ = std::max(1.0, scale_ / lim_.delay_grow);
  grow_stopped_ = true;
}

void MadEngine::local_probe_done() {
  // The step's round trips rose by judged_mean_ (over the least steps'):
  // a queue at a switch's processor leaves the local port's round trip as
  // it was; one on the host's side (or in a simulator that answers every
  // SMP in turn) lengthens it too: by more than delay_rise, and by a
  // quarter of the routes' rise or more (its least round trip, from the
  // walk's first SMPs, may itself have waited in that queue).
  const PendingMad& q = *local_probe_;
  const double us = std::chrono::duration<double, std::micro>(t_.now() - q.sent_at).count();
  bool answered = !q.error && q.rep_len >= iba::MADHeader::SIZE && mad_status(q.rep.data()) == 0;
  // From a switch's own port (port 0) the 0-hop route ends at that
  // switch's processor, the very one the walk queues at: no evidence.
  try {
    if (answered) answered = decode_reply<iba::SMPNodeInfo>(q.reply()).nodeType() != uint64_t(iba::enums::NodeTypeCode::SWITCH);
  } catch (const std::exception&) {
    answered = false;  // (a short answer)
  }
  if (narrowing_) {
    if (!answered || lost_smp_) {
      if (!lost_smp_) narrow_caps();  // (no evidence of the host's queue)
      narrowing_ = false;
      return;
    }
  } else if (!answered || grow_stopped_ || lost_smp_ || !tracking_) {
    if (!grow_stopped_) stop_widening();
    return;
  }
  const double ratio = us / local_min_us_;
  local_min_us_ = std::min(local_min_us_, us);
  if (ratio - 1 < std::max(lim_.delay_rise, 0.25 * (judged_mean_ - 1))) {
    // One round trip may find a host's queue short for a moment: a queue
    // at a processor is believed after local_probes that saw none.
    if (++local_tries_ < lim_.local_probes && send_local_smp(*local_probe_, local_path_, max_ + 1, true)) {
      ++fs_.probes;
      return;
    }
    if (narrowing_)
      narrow_caps();
    else
      stop_widening();
    return;
  }
  if (narrowing_) {
    // The host's queue, watched: its round trips are the new normal (not
    // asked about again until they rise further).
    narrowing_ = false;
    base_delay_ = judged_abs_;
    return;
  }
  // The host's queue: the step stands, and the next is judged afresh.
  step_at_ = t_.now();
  step_sum_ = 0;
  step_n_ = 0;
  widen_caps(lim_.delay_grow);
}

void MadEngine::measure_visits() {
  // The slope of the least round trip over the visits it took, between the
  // shortest and the longest routes measured: at least 2 visits apart, and
  // 8 round trips each (one early slow or lucky round trip must not
  // decide).  Evidence of processors that take time is final: queueing
  // makes the short routes' least round trip too long, never the long
  // routes' too short, so a slope once steep enough is believed.
  if (lim_.min_visit_us > 0 && visit_us_ >= lim_.min_visit_us) return;
  size_t lo = rtt_min_us_.size(), hi = 0;
  for (size_t v = 0; v < rtt_min_us_.size(); ++v)
    if (rtt_n_[v] >= 8) {
      lo = std::min(lo, v);
      hi = v;
    }
  if (lo >= hi || hi - lo < 2) return;
  visit_us_ = std::max(0.0, (rtt_min_us_[hi] - rtt_min_us_[lo]) / double(hi - lo));
  // (One hop is two visits of the SMI: the slope per visit is its time.)
  forward_us_ = visit_us_;
  sync_caps();
}

void MadEngine::note_gap(const PendingMad& p) {
  // FlowLimits::time_shares: two SMPs sent together to one node queue
  // there (or at the slowest processor on their way, which the hops'
  // time already bounds), so the second's reply comes one service time
  // after the first's.  The answer time is a low quantile of such gaps
  // (the least could be a return trip that caught up).
  const Clock::time_point now = t_.now();
  LastReply& l = last_reply_[p.dest];
  if (l.at != Clock::time_point{} && p.sent_at < l.at) {
    const double gap = std::chrono::duration<double, std::micro>(now - l.at).count();
    const double apart = std::chrono::duration<double, std::micro>(p.sent_at - l.sent_at).count();
    if (gap > 0 && std::abs(apart) * 4 <= gap) {
      gaps_[gap_n_++ % gaps_.size()] = gap;
      if (gap_n_ >= 8 && gap_n_ % 4 == 0) {
        const size_t n = std::min<size_t>(gap_n_, gaps_.size());
        std::array<double, 32> g = gaps_;
        std::nth_element(g.begin(), g.begin() + n / 4, g.begin() + n);
        answer_us_ = g[n / 4];
      }
    }
  }
  l.at = now;
  l.sent_at = p.sent_at;
}

void MadEngine::learn_class_port_info(const PendingMad& p, const uint8_t* rep) {
  // A GMP class's ClassPortInfo says how long its agent may take to answer.
  const uint8_t cls = class_of(rep);
  if (is_smp(cls) || iba::MADHeader::attributeID_at(rep) != iba::AttrId<iba::MADClassPortInfo>::value || !p.path->DLID) return;
  if (mad_status(rep) != 0) return;
  const iba::ClassDesc* c = format_of(rep);
  if (!c || c->data_off + iba::MADClassPortInfo::SIZE > iba::MAD_SIZE) return;
  resp_time_[gmp_key(cls, p.path->DLID)] = uint8_t(iba::MADClassPortInfo::respTimeValue_at(rep + c->data_off));
}

FlowStats MadEngine::flow_stats() const {
  FlowStats f = fs_;
  f.sent = sent_;
  f.resent = resent_;
  f.window_max = max_;
  f.srtt_ms = srtt_ms_;
  f.visit_us = visit_us_;
  f.caps = caps_wanted();
  f.scale = scale_;
  f.forward_us = forward_us_;
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
            f.probes ? (", " + std::to_string(f.probes) + " local round trips timed").c_str() : "");
}

void MadEngine::submit(PendingMad& p) {
  p.done = false;
  p.error = nullptr;
  p.rep_len = 0;
  p.rep_big.clear();
  p.next = nullptr;
  p.backoff = false;
  p.sm_followed = false;
  p.sends = 0;
  p.prev_seq = 0;
  if (p.adaptive_timeout) p.timeout_ms = 0;  // (a PendingMad used again)
  p.adaptive_timeout = false;
  if (!p.path) throw MADError("MAD submitted without a path");
  const PortSettings& s = t_.settings();
  put_port_keys(p);
  const uint8_t cls = class_of(p.req.data());
  if (cls == iba::mgmt::SUBN_ADM) to_followed_sm(p);
  // -t, else the path's own response time, else the engine computes it
  // at each send (computed_timeout_ms).
  if (p.timeout_ms <= 0) {
    if (s.timeout_ms > 0 || p.path->packet_life_time || p.path->resp_time)
      p.timeout_ms = p.path->mad_timeout_ms(s.timeout_ms);
    else
      p.adaptive_timeout = true;
  }
  if (p.tries_left <= 0) p.tries_left = p.path->mad_retries(s.retries) + 1;
  if (p.busy_left <= 0) p.busy_left = 8;
  p.agent = t_.client_agent(cls, version_of(p.req.data()));
  p.dest = key_of(*p.path, cls);
  p.was_held = false;
  sync_caps();
  if (in_flight_ < window()) {
    // (What waits in the queue does not fit the window: MADs wait there
    // only while it is full, or parked for a cap.)
    if (const uint64_t b = blocker(p)) {
      park(b, p);
      ++queued_;
    } else {
      issue(p);
    }
  } else {
    if (wait_tail_)
      wait_tail_->next = &p;
    else
      wait_head_ = &p;
    wait_tail_ = &p;
    ++queued_;
  }
}

void MadEngine::send_one(PendingMad& p) {
  seq_ = (seq_ + 1) & 0xffff;
  if (seq_ == 0) seq_ = 1;
  p.prev_seq = p.sends ? p.seq : 0;
  p.seq = seq_;
  if (p.sends < 0xffff) ++p.sends;
  if (p.adaptive_timeout) {
    // A resend waits twice as long as the send before (RFC 6298 back-off),
    // and the last try at least as long as the IBA's bound or the default.
    const int base = computed_timeout_ms(*p.path, class_of(p.req.data()));
    const int top = std::max(timeout_cap_ms(p.dest, class_of(p.req.data()), p.path->DLID), lim_.default_timeout_ms);
    p.timeout_ms = p.tries_left <= 1 ? top : int(std::min<int64_t>(int64_t(base) << std::min(p.sends - 1, 16), top));
  }
  // The TID's low half is ours (kernels may rewrite the high half).
  uint64_t tid = iba::MADHeader::transactionID_at(p.req.data());
  iba::MADHeader::set_transactionID_at(p.req.data(), (tid & ~uint64_t(0xffffffff)) | (p.seq << 16 | p.slot));
  p.sent_at = t_.now();
  // Real kernels keep the send until the reply (or the timeout) and report
  // a timeout themselves; our own timer is the backstop (umad2sim).
  t_.send(p.agent, p.req.data(), p.req_len, *p.path, p.timeout_ms);
  ++sent_;
  if (const PortSettings& s = t_.settings(); s.debug >= 2)
    trace_send(s.debug, {p.req.data(), p.req_len}, p.path->describe(),
               pkey_index_of(*p.path, class_of(p.req.data()), s.pkey_index));
  timers_.push({p.sent_at + std::chrono::milliseconds(p.timeout_ms + 20), p.slot, p.seq});
}

void MadEngine::send_or_fail(PendingMad& p) {
  try {
    send_one(p);
  } catch (...) {
    p.error = std::current_exception();
    complete(p);
  }
}

void MadEngine::issue(PendingMad& p) {
  p.slot = free_slots_.back();
  free_slots_.pop_back();
  slots_[p.slot] = &p;
  ++in_flight_;
  hold(p, +1);
  p.dest_load = p.dest && tracking_ ? uint16_t(std::min(count_of(to_node_, p.dest), 0xffffu)) : 0;
  send_or_fail(p);
}

void MadEngine::complete(PendingMad& p) {
  slots_[p.slot] = nullptr;
  const bool probe = &p == probe_.get(), local = &p == local_probe_.get();
  if (!probe && !local) free_slots_.push_back(p.slot);
  --in_flight_;
  hold(p, -1);
  p.done = true;
  if (const int debug = t_.settings().debug)
    trace_done(debug, {p.req.data(), p.req_len}, p.path->describe(), p.reply(), p.error, t_.now() - p.sent_at);
  if (probe) {
    probe_done();
  } else if (local) {
    local_probe_done();
  } else {
    ++completed_;
    if (p.on_done) p.on_done(&p, p.ctx);
  }
  drain();
}

void MadEngine::fail_timeout(PendingMad& p) {
  if (follow_sm(p)) return;
  fail_final(p);
}

namespace {

std::mutex g_followed_mu;
std::map<std::string, FollowedSm> g_followed;
std::atomic<bool> g_any_followed{false};  // (no lock for the common case)

std::string port_key(const Transport& t) { return t.local_gid().str() + "/" + std::to_string(t.local_lid()); }

}  // namespace

std::optional<FollowedSm> followed_sm(const Transport& t) {
  if (!g_any_followed.load(std::memory_order_relaxed)) return std::nullopt;
  std::lock_guard<std::mutex> l(g_followed_mu);
  auto it = g_followed.find(port_key(t));
  if (it == g_followed.end()) return std::nullopt;
  return it->second;
}

void forget_followed_sm() {
  std::lock_guard<std::mutex> l(g_followed_mu);
  g_followed.clear();
  g_any_followed = false;
}

void MadEngine::put_port_keys(PendingMad& p) const {
  // build_mad wrote the path's keys (0 when it names none).
  const PortSettings& s = t_.settings();
  if (p.req_len < iba::MADHeader::SIZE + 8) return;
  const uint8_t cls = class_of(p.req.data());
  if ((cls == iba::mgmt::SUBN_LID_ROUTED || cls == iba::mgmt::SUBN_DIRECTED_ROUTE) && !p.path->mkey && s.mkey)
    iba::SMPFormat::set_MKey_at(p.req.data(), *s.mkey);
  if (cls == iba::mgmt::SUBN_ADM && !p.path->smkey && s.smkey) iba::SAFormat::set_SMKey_at(p.req.data(), *s.smkey);
}

void MadEngine::to_followed_sm(PendingMad& p) {
  // A path made before the SM was followed (a resolver's cached SA path):
  // straight to the SM followed, while the port still names the old one.
  if (!p.path->DLID || !t_.settings().sa_path.empty()) return;
  auto f = followed_sm(t_);
  if (!f || p.path->DLID != f->stale_lid || f->stale_lid != t_.sm_lid()) return;
  p.sm_path = *p.path;
  p.sm_path.DLID = f->lid;
  p.sm_path.SL = f->sl;
  p.path = &p.sm_path;
}

bool MadEngine::follow_sm(PendingMad& p) {
  // Only SA MADs on the default SA path (no --sa-path): to the SM LID the
  // port knows, or to the one followed before.  Each at most once.  Not
  // with --sa, which promises that no SMP leaves the port.
  if (p.sm_followed || class_of(p.req.data()) != iba::mgmt::SUBN_ADM || !t_.settings().sa_path.empty() || t_.settings().use_sa ||
      !p.path->DLID)
    return false;
  auto f = followed_sm(t_);
  if (p.path->DLID != t_.sm_lid() && !(f && p.path->DLID == f->lid)) return false;
  if (f && p.path->DLID == f->stale_lid && f->stale_lid == t_.sm_lid()) {
    // Sent to the old SM before another probe found the new one (MADs that
    // timed out one after the other): the answer is known, ask nothing.
    resend_to_sm(p, f->lid, f->sl);
    return true;
  }
  sm_waiters_.push_back(&p);
  if (probe_ && !probe_->done) return true;  // a probe is asking already
  if (!probe_) probe_ = std::make_unique<PendingMad>();
  if (!send_local_smp(*probe_, probe_path_, max_)) {
    // No SMPs from this port (a verbs transport): nothing to ask.
    sm_waiters_.pop_back();
    return false;
  }
  return true;
}

bool MadEngine::send_local_smp(PendingMad& q, IBPath& path, uint32_t slot, bool timing) {
  path = IBPath();
  path.drPath = {0};  // the local port
  try {
    MadRequest r = timing ? make_request<iba::SMPNodeInfo>(iba::mgmt::SUBN_LID_ROUTED, iba::mgmt::SUBN_LID_ROUTED,
                                                              iba::method::GET, nullptr, 0)
                             : make_request<iba::SMPPortInfo>(iba::mgmt::SUBN_LID_ROUTED, iba::mgmt::SUBN_LID_ROUTED,
                                                              iba::method::GET, nullptr, 0);
    q.req_len = build_mad(q.req.data(), r, path, 0);
    q.path = &path;
    put_port_keys(q);
    q.agent = t_.client_agent(class_of(q.req.data()), version_of(q.req.data()));
  } catch (const std::exception&) {
    return false;
  }
  q.path = &path;
  q.timeout_ms = path.mad_timeout_ms(t_.settings().timeout_ms);
  q.tries_left = path.mad_retries(t_.settings().retries) + 1;
  if (timing) {
    // A round trip to time, not an answer anyone needs: sent once, and
    // given up after the engine's own timeout (lost: the step is undone).
    if (t_.settings().timeout_ms <= 0) q.timeout_ms = computed_timeout_ms(path, iba::mgmt::SUBN_DIRECTED_ROUTE);
    q.tries_left = 1;
  }
  q.busy_left = 8;
  q.error = nullptr;
  q.rep_len = 0;
  q.rep_big.clear();
  q.done = false;
  q.backoff = false;
  q.sm_followed = true;  // never followed itself
  q.dest = 0;           // (outside the window and the caps, in its own slot)
  q.adaptive_timeout = false;
  q.sends = 0;
  q.on_done = nullptr;
  q.slot = slot;
  slots_[slot] = &q;
  ++in_flight_;
  send_or_fail(q);  // (if it throws, the probe completes with the error)
  return true;
}

void MadEngine::probe_done() {
  const PendingMad& q = *probe_;
  uint16_t lid = 0;
  uint8_t sl = 0;
  if (!q.error) {
    auto rep = q.reply();
    if (rep.size() >= iba::MADHeader::SIZE && mad_status(rep.data()) == 0) {
      auto pi = decode_reply<iba::SMPPortInfo>(rep);
      lid = uint16_t(pi.masterSMLID());
      sl = uint8_t(pi.masterSMSL());
    }
  }
  std::vector<PendingMad*> waiters;
  waiters.swap(sm_waiters_);
  for (PendingMad* w : waiters) {
    if (!lid || lid == w->path->DLID) {
      fail_final(*w);  // no other SM known: the timeout stands
      continue;
    }
    {
      std::lock_guard<std::mutex> l(g_followed_mu);
      g_followed[port_key(t_)] = FollowedSm{t_.sm_lid(), lid, sl};
      g_any_followed = true;
    }
    resend_to_sm(*w, lid, sl);
  }
}

void MadEngine::resend_to_sm(PendingMad& w, uint16_t lid, uint8_t sl) {
  w.sm_path = *w.path;
  w.sm_path.DLID = lid;
  w.sm_path.SL = sl;
  w.path = &w.sm_path;
  w.sm_followed = true;
  w.tries_left = w.sm_path.mad_retries(t_.settings().retries) + 1;
  ++sm_follows_;
  ++resent_;
  send_or_fail(w);
}

void MadEngine::fail_final(PendingMad& p) {
  MADTimeoutError e("RPC " + describe_mad(p.req.data(), p.req_len) + " timed out to " + p.path->describe());
  e.req.assign(p.req.begin(), p.req.begin() + p.req_len);
  e.path = p.path->repr();
  p.error = std::make_exception_ptr(e);
  complete(p);
}

void MadEngine::timed_out(PendingMad& p) {
  ++fs_.timeouts;
  on_loss(p);
  if (--p.tries_left > 0 && p.dest) {
    // An SMP is sent again through the caps and the window (cut just now):
    // first in line, but not in a burst with every other that timed out.
    ++resent_;
    slots_[p.slot] = nullptr;
    free_slots_.push_back(p.slot);
    --in_flight_;
    hold(p, -1);
    p.next = wait_head_;
    wait_head_ = &p;
    if (!wait_tail_) wait_tail_ = &p;
    ++queued_;
    drain();
  } else if (p.tries_left > 0) {
    ++resent_;
    send_or_fail(p);
  } else {
    fail_timeout(p);
  }
}

void MadEngine::on_recv(RecvMad& r) {
  if (r.len < iba::MADHeader::SIZE) {
    ++stale_;
    return;
  }
  const uint8_t* m = r.data.data();
  uint32_t low = uint32_t(iba::MADHeader::transactionID_at(m));
  uint32_t slot = low & 0xffff, seq = low >> 16;
  PendingMad* p = slot < slots_.size() ? slots_[slot] : nullptr;
  bool mine = p && p->seq == seq && !p->backoff && class_of(p->req.data()) == class_of(m);
  if (r.status != 0) {
    // The kernel handing back a send it gave up on.
    if (mine) {
      if (r.status == ETIMEDOUT)
        timed_out(*p);
      else {
        p->error = std::make_exception_ptr(SysError(r.status, "umad_send", "MAD send failed"));
        complete(*p);
      }
    }
    return;
  }
  if (!(iba::MADHeader::method_at(m) & iba::method::RESPONSE)) {
    if (unsolicited) unsolicited(r);
    return;
  }
  if (!mine) {
    // A reply to a send that timed out and was sent again: late, not lost.
    if (p && p->prev_seq == seq && seq) ++fs_.late;
    ++stale_;
    return;
  }
  if ((mad_status(m) & 1) && p->busy_left-- > 0) {
    // BUSY: back off and send again (does not use up a retry).
    ++fs_.busy;
    on_loss(*p);
    p->backoff = true;
    int ms = 10 << std::min(8 - std::max(p->busy_left, 0), 6);
    timers_.push({t_.now() + std::chrono::milliseconds(ms), p->slot, p->seq});
    return;
  }
  if (!r.big.empty()) {
    p->rep_big = r.big;
    p->rep_len = r.big.size();
  } else {
    std::memcpy(p->rep.data(), m, r.len);
    p->rep_len = r.len;
  }
  on_reply(*p);
  learn_class_port_info(*p, m);
  complete(*p);
}

void MadEngine::expire(Clock::time_point now) {
  while (!timers_.empty() && timers_.top().at <= now) {
    Timer tm = timers_.top();
    timers_.pop();
    PendingMad* p = slots_[tm.slot];
    if (!p || p->seq != tm.seq) continue;  // already answered or resent
    if (p->backoff) {
      p->backoff = false;
      ++resent_;
      send_or_fail(*p);
    } else {
      timed_out(*p);
    }
  }
}

int MadEngine::next_wait_ms(Clock::time_point now, int cap) const {
  if (timers_.empty()) return cap;
  auto d = std::chrono::duration_cast<std::chrono::milliseconds>(timers_.top().at - now).count() + 1;
  if (d < 0) d = 0;
  if (cap >= 0 && d > cap) return cap;
  return int(d);
}

size_t MadEngine::pump(int wait_ms) {
  uint64_t start = completed_;
  auto t0 = t_.now();
  for (;;) {
    auto now = t_.now();
    expire(now);
    if (completed_ != start) break;
    if (in_flight_ == 0) break;
    int cap = -1;
    if (wait_ms >= 0) {
      auto el = std::chrono::duration_cast<std::chrono::milliseconds>(now - t0).count();
      if (el >= wait_ms) break;
      cap = int(wait_ms - el);
    }
    int w = next_wait_ms(now, cap);
    if (t_.recv(rbuf_, w)) {
      on_recv(rbuf_);
      // Drain whatever else is already there.
      for (int i = 0; i < 256 && in_flight_ && t_.recv(rbuf_, 0); ++i) on_recv(rbuf_);
    }
  }
  return size_t(completed_ - start);
}

void MadEngine::wait(PendingMad& p) {
  while (!p.done) {
    if (in_flight_ == 0 && queued_ == 0 && !p.done) throw MADError("internal: waiting for a MAD not in flight");
    pump(-1);
  }
}

std::span<const uint8_t> check_reply(const PendingMad& p) {
  if (p.error) std::rethrow_exception(p.error);
  auto rep = p.reply();
  if (rep.size() < iba::MADHeader::SIZE) {
    MADError e("RPC " + describe_mad(p.req.data(), p.req_len) + " got a short reply");
    e.req.assign(p.req.begin(), p.req.begin() + p.req_len);
    throw e;
  }
  uint16_t st = mad_status(rep.data());
  if (st != 0) {
    MADClassError e("RPC " + describe_mad(p.req.data(), p.req_len) + " got " + iba::status_text(class_of(rep.data()), st),
                    class_of(rep.data()), st);
    e.req.assign(p.req.begin(), p.req.begin() + p.req_len);
    e.rep.assign(rep.begin(), rep.begin() + std::min<size_t>(rep.size(), iba::MAD_SIZE));
    if (p.path) e.path = p.path->repr();
    throw e;
  }
  return rep;
}

// --- typed layer ------------------------------------------------------------------------

const iba::ClassDesc* class_for(const iba::StructDesc& d, uint8_t lo, uint8_t hi) {
  for (const iba::ClassDesc* c : iba::all_classes()) {
    if (c->mgmt_class < lo || c->mgmt_class > hi) continue;
    for (const auto& a : c->attrs)
      if (a.desc == &d) return c;
    // A variant layout (CongestionLog of a CA, ...) belongs to the same class.
    for (const auto& a : c->variants)
      if (a.desc == &d) return c;
  }
  return nullptr;
}

std::vector<uint8_t> MadTransactor::call(const MadRequest& req, const IBPath& path) {
  PendingMad p;
  p.req_len = build_mad(p.req.data(), req, path, 0);
  p.path = &path;
  eng_.submit(p);
  eng_.wait(p);
  try {
    auto rep = check_reply(p);
    return std::vector<uint8_t>(rep.begin(), rep.end());
  } catch (MADTimeoutError& e) {
    // An SMP that got no reply: whether its destination exists (a LID:
    // the SA's word; a directed route: the hop before) decides report()'s
    // M_Key hint.
    const auto cls = iba::MADHeader::mgmtClass_at(p.req.data());
    if (note_presence_ && (cls == iba::mgmt::SUBN_LID_ROUTED || cls == iba::mgmt::SUBN_DIRECTED_ROUTE)) {
      note_presence_ = false;  // the question's own SMPs do not ask again
      note_target_presence(*this, path, e);
      note_presence_ = true;
    }
    throw;
  }
}

IBPath default_sa_path(const Transport& t) {
  const std::string& s = t.settings().sa_path;
  IBPath p;
  if (!s.empty()) {
    try {
      p = IBPath::from_string(s);
    } catch (const Error& e) {
      throw Error(std::string("--sa-path: ") + e.what());
    }
    if (p.is_dr()) throw Error("Invalid --sa-path " + s + ": SA MADs cannot follow a directed route path");
    if (!p.DLID && !p.has_grh) throw Error("Invalid --sa-path " + s + ": it names no destination");
  } else {
    p.DLID = t.sm_lid();
    p.SL = t.sm_sl();
    // The master SM this process followed, while the port still names the
    // one that stopped answering.
    if (auto f = followed_sm(t); f && f->stale_lid == p.DLID) {
      p.DLID = f->lid;
      p.SL = f->sl;
    }
    if (!p.DLID) throw MADError("No SM LID known for the local port: cannot reach the SA");
  }
  if (!p.dqpn) p.dqpn = 1;
  if (!p.qkey) p.qkey = GSI_QKEY;
  return p;
}

IBPath MadTransactor::sa_path() const { return default_sa_path(const_cast<MadEngine&>(eng_).transport()); }

std::span<const uint8_t> payload_of(std::span<const uint8_t> mad) {
  if (mad.size() < iba::MADHeader::SIZE) return {};
  const iba::ClassDesc* c = format_of(mad.data());
  size_t off = c ? c->data_off : iba::MADHeader::SIZE;
  if (off >= mad.size()) return {};
  return mad.subspan(off);
}

}  // namespace ibcore
