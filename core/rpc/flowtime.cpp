// The flow control's timeouts (core/rpc/flow.h): what the IBA's fields
// bound a reply by, the round trips measured (RFC 6298), a MAD's timeout
// for each send, and the MADs out before the first round trip timed again;
// losses seen by order (FlowLimits::overtakes).
#include <algorithm>
#include <cmath>

#include "core/out/log.h"
#include "core/rpc/flow.h"
#include "core/rpc/flowkeys.h"
#include "core/rpc/madbuild.h"
#include "iba/mad.h"
#include "iba/sa.h"  // (MADClassPortInfo)

namespace ibcore {

namespace {
using madhdr::class_of;
using madhdr::format_of;
using madhdr::is_smp;
using madhdr::mad_status;
using flowkeys::gmp_key;
}  // namespace

int FlowControl::timeout_cap_ms(uint64_t dest, uint8_t mgmt_class, uint16_t dlid) const {
  auto it = resp_time_.find(is_smp(mgmt_class) ? dest : gmp_key(mgmt_class, dlid));
  if (it == resp_time_.end()) return lim_.default_timeout_ms;
  // The node's RespTimeValue, and SubnetTimeOut as the packet's lifetime.
  double ms = iba_reply_bound_ms(it->second, subnet_timeout_.value_or(0));
  return int(std::clamp(std::ceil(ms), double(lim_.min_timeout_ms), 60000.0));
}

void FlowControl::Rtt::add(double ms) {
  max_ms = std::max(max_ms, ms);
  ++n;
  if (srtt_ms <= 0) {
    srtt_ms = ms;
    rttvar_ms = ms / 2;
  } else {
    rttvar_ms = 0.75 * rttvar_ms + 0.25 * std::abs(srtt_ms - ms);
    srtt_ms = 0.875 * srtt_ms + 0.125 * ms;
  }
}

int FlowControl::bound_ms(const IBPath& path, uint8_t mgmt_class) const {
  // (A GMP's path may carry its own bound: IBPath::mad_timeout_ms.)
  return path.packet_life_time || path.resp_time ? path.mad_timeout_ms()
                                                 : timeout_cap_ms(key_of(path, mgmt_class), mgmt_class, path.DLID);
}

int FlowControl::computed_timeout_ms(const IBPath& path, uint8_t mgmt_class) const {
  const int cap = bound_ms(path, mgmt_class);
  double rto;
  if (is_smp(mgmt_class)) {
    if (smp_rtt_.srtt_ms <= 0) return cap;
    rto = smp_rtt_.rto_ms();
  } else {
    auto it = gmp_rtt_.find(mgmt_class);
    if (it == gmp_rtt_.end()) return cap;
    rto = it->second.rto_ms();
  }
  // The round trip measured so far, with room for its variation (RFC 6298),
  // within [min_timeout_ms, the IBA's bound].
  return int(std::clamp(rto, double(std::min(lim_.min_timeout_ms, cap)), double(cap)));
}

int FlowControl::timeout_ms(const PendingMad& p) const {
  // A resend waits twice as long as the send before (RFC 6298 back-off),
  // and the last try at least as long as the IBA's bound or the default.
  const uint8_t cls = class_of(p.req.data());
  const int base = computed_timeout_ms(*p.path, cls);
  const int top = std::max(bound_ms(*p.path, cls), lim_.default_timeout_ms);
  return p.tries_left <= 1 ? top : int(std::min<int64_t>(int64_t(base) << std::min(p.sends - 1, 16), top));
}

namespace {
// Two paths on which MADs reach the same queues in the order sent.
bool same_route(const IBPath& a, const IBPath& b) {
  if (&a == &b) return true;
  return a.DLID == b.DLID && a.drPath == b.drPath && a.drSLID == b.drSLID && a.drDLID == b.drDLID && a.SL == b.SL;
}
}  // namespace

void FlowControl::sending(PendingMad& p) {
  // FlowLimits::step_whole: the step's round trips are those of the first
  // delay_samples directed-route SMPs sent after it (sent once: Karn).
  // (As on_reply and time_smp take an SMP: a destination, not a PMA's.)
  if (lim_.step_whole && step_gen_ && p.sends == 1 && step_tagged_ < step_samples() && p.dest && !is_pm(p) &&
      p.path->is_dr()) {
    p.step = step_gen_;
    ++step_tagged_;
  }
  p.was_overtaken = p.overtaken >= lim_.overtakes && lim_.overtakes;
  p.overtaken = 0;
}

const FlowControl::Rtt* FlowControl::rtt_of(const PendingMad& p) const {
  // (Not for the SA: its answers take as long as their tables.  The
  // longest of fewer than 8 round trips says too little: the walk's first
  // are the local port's and its switch's.)
  const uint8_t cls = class_of(p.req.data());
  const Rtt* r = nullptr;
  if (is_smp(cls))
    r = &smp_rtt_;
  else if (cls != iba::mgmt::SUBN_ADM)
    if (auto it = gmp_rtt_.find(cls); it != gmp_rtt_.end()) r = &it->second;
  return r && r->n >= 8 ? r : nullptr;
}

int FlowControl::tail_probe_ms(const PendingMad& p) const {
  const Rtt* r = lim_.tail_probe > 0 ? rtt_of(p) : nullptr;
  return r ? int(std::ceil(std::max(1.0, lim_.tail_probe * r->max_ms))) : 0;
}

void FlowControl::late(const PendingMad& p) {
  ++fs_.late;
  if (p.was_overtaken && !reorders_) {
    // Taken as lost by order, yet answered: replies here do not keep
    // their order (FlowLimits::overtakes), and losses are for the
    // timeouts alone to say from now on.
    reorders_ = true;
    log::debug("D: flow: a reply overtaken by later ones came after all: losses judged by timeouts only\n");
  }
}

void FlowControl::overtake(const PendingMad& p, Clock::time_point now) {
  if (!p.dest || !p.path) return;
  for (size_t i = 0; i < slot_dest_.size(); ++i) {
    if (slot_dest_[i] != p.dest) continue;
    PendingMad* q = slots_[i];
    // (Its last try, or a route form's trial, is left to its timeout.)
    if (!q || q == &p || q->dest != p.dest || q->backoff || q->send_no >= p.send_no || !q->path || q->tries_left <= 1 ||
        q->path->route_trial)
      continue;
    if (class_of(q->req.data()) != class_of(p.req.data()) || !same_route(*q->path, *p.path)) continue;
    if (++q->overtaken < lim_.overtakes) continue;
    ++fs_.overtaken;
    on_loss(*q, now);
    engine_.retry(*q);
  }
}

void FlowControl::rearm(bool smp, uint8_t cls) {
  // (Once per class: a scan of the slots.)  A MAD that was dropped in the
  // first burst, before any reply, would otherwise wait out the IBA's
  // bound: 2.1 s against a scrape of 6 ms where SubnetTimeOut is 19.
  for (size_t i = 0; i < slot_dest_.size(); ++i) {
    PendingMad* q = slots_[i];
    if (!q || !q->adaptive_timeout || q->backoff || q->sends != 1 || q->tries_left <= 1) continue;
    const uint8_t c = class_of(q->req.data());
    if (smp ? !is_smp(c) : c != cls) continue;
    const int ms = computed_timeout_ms(*q->path, c);
    if (ms >= q->timeout_ms) continue;
    q->timeout_ms = ms;
    engine_.retime(*q);
  }
}

void FlowControl::learn_class_port_info(const PendingMad& p, const uint8_t* rep) {
  // A GMP class's ClassPortInfo says how long its agent may take to answer.
  const uint8_t cls = class_of(rep);
  if (is_smp(cls) || iba::MADHeader::attributeID_at(rep) != iba::AttrId<iba::MADClassPortInfo>::value || !p.path->DLID) return;
  if (mad_status(rep) != 0) return;
  const iba::ClassDesc* c = format_of(rep);
  if (!c || c->data_off + iba::MADClassPortInfo::SIZE > iba::MAD_SIZE) return;
  resp_time_[gmp_key(cls, p.path->DLID)] = uint8_t(iba::MADClassPortInfo::respTimeValue_at(rep + c->data_off));
}

}  // namespace ibcore
