// What the round trips say (issues 24 and 35), FlowControl's members
// (core/rpc/flow.h): the widening paced by the round trips (judge_step),
// the caps brought back when they lengthen (narrow_caps), the local port's
// round trip that tells a host-side queue from a switch's
// (local_probe_done; the engine sends it: FlowControl::Engine), and the
// times per processor visit and per answer the processor shares are
// weighed by (measure_visits, note_gap).  The caps, losses and replies:
// flow.cpp; the timeouts: flowtime.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "core/rpc/flow.h"
#include "core/rpc/rpc.h"
#include "iba/enums.h"
#include "iba/smp.h"

namespace ibcore {

namespace {
using madhdr::mad_status;
}  // namespace

void FlowControl::judge_step(const PendingMad& p, double ratio, Clock::time_point now) {
  // FlowLimits::delay_rise: a step's round trips (SMPs sent after it, as
  // ratios to the least of their route length) against the steps before.
  // FlowLimits::watch_rtt: once the widening stopped above the first size,
  // or the caps were lifted, the same windows say whether the round trips
  // rose since (the SM began a sweep, the fabric slowed down): the caps
  // then come back (narrow_caps).
  if (step_at_ == Clock::time_point{} || p.sent_at < step_at_ || shares_lifted()) return;
  // (Caps held at lift_scale or more are held only for the window beyond
  // its first size, FlowLimits::window_grow: widened no more.)
  const bool widening = !grow_stopped_ && !lost_smp_ && tracking_ && scale_ < lim_.lift_scale;
  const bool watching = lim_.watch_rtt && !widening && !lost_smp_ && (!tracking_ || scale_ > 1);
  if (!widening && !watching) return;
  if (probe_out_) return;  // the step before is being judged (a local round trip is out)
  const unsigned samples = step_samples();
  if (lim_.step_whole) {
    // The step's own SMPs only, judged once each of them ended: at the
    // last one's answer (released() counts it after), or at the next
    // answer when the last ended unanswered.
    if (step_tagged_ < samples || step_ended_ < step_tagged_) {
      if (p.step != step_gen_) return;
      step_sum_ += ratio;
      ++step_n_;
      if (step_tagged_ < samples || step_ended_ + 1 < step_tagged_) return;
    }
    if (!step_n_) return new_step(now);
  } else {
    step_sum_ += ratio;
    if (++step_n_ < samples) return;
  }
  const double mean = step_sum_ / step_n_;
  new_step(now);
  // (Beyond the window's first size, where hybrid routes lead, a rise of
  // window_undo: its steps.)
  const double rise = watching && top_ > start_ && tails_lead() ? lim_.window_undo : lim_.delay_rise;
  if (base_delay_ > 0 && mean > base_delay_ * (1 + rise)) {
    // This step queued SMPs somewhere (or something else did).  Where is
    // for the local port's round trip to say (local_probe_done); nothing
    // is widened meanwhile.
    judged_mean_ = mean / base_delay_;
    judged_abs_ = mean;
    narrowing_ = watching;
    local_tries_ = 0;
    if (lim_.local_probes && std::isfinite(local_min_us_) && time_local_path())
      ++fs_.probes;
    else if (watching)
      narrow_caps(now);
    else
      stop_widening();
    return;
  }
  base_delay_ = base_delay_ > 0 ? std::min(base_delay_, mean) : mean;
  if (widening) widen_caps(lim_.delay_grow);
}

void FlowControl::new_step(Clock::time_point now) {
  step_at_ = now;
  step_sum_ = 0;
  step_n_ = 0;
  if (++step_gen_ == 0) step_gen_ = 1;  // (0: no step)
  step_tagged_ = step_ended_ = 0;
}

void FlowControl::narrow_caps(Clock::time_point now) {
  // The round trips rose, and not on the host's side: lifted caps hold
  // again at their first size and are widened afresh (judged against the
  // round trips they give now); widened ones come one step narrower, and
  // again at the next window while the round trips stay up.
  narrowing_ = false;
  ++fs_.caps_back;
  const bool for_window = top_ > start_;
  if (for_window) {
    // The window's steps beyond its first size queued MADs in the fabric:
    // undone (FlowLimits::window_grow); the caps, which held only for
    // them, are measured afresh as lifted ones are.
    top_ = start_;
    ssthresh_ = std::min(ssthresh_, top_);
    cwnd_ = std::min(cwnd_, top_);
    // ... for now (FlowLimits::window_retry): asked again after more
    // replies each time.
    steps_again(lim_.window_retry, top_retry_);
  }
  new_step(now);
  if (for_window && grow_stopped_) {
    // The window stepped while the caps held where their widening had
    // stopped (FlowLimits::window_held): they stay as they were, not
    // widened afresh (that would lift them, and let bursts through).
    sync_caps();
    return;
  }
  if (!tracking_ || for_window) {
    // What the engine measured of the processors was of the fabric before
    // (its least round trips, the times per visit): measured afresh.
    scale_ = 1;
    grow_stopped_ = false;
    base_delay_ = 0;
    rtt_min_us_.fill(std::numeric_limits<double>::infinity());
    rtt_ca_min_us_.fill(std::numeric_limits<double>::infinity());
    rtt_n_.fill(0);
    visit_us_ = forward_us_ = answer_us_ = -1;
    gap_n_ = 0;
    last_reply_.clear();
    sync_caps();
    return;
  }
  scale_ = std::max(1.0, scale_ / lim_.delay_grow);
}

void FlowControl::stop_widening() {
  scale_ = std::max(1.0, scale_ / lim_.delay_grow);
  grow_stopped_ = true;
}

void FlowControl::local_probe_done(const PendingMad& q, Clock::time_point now) {
  // The step's round trips rose by judged_mean_ (over the least steps'):
  // a queue at a switch's processor leaves the local port's round trip as
  // it was; one on the host's side (or in a simulator that answers every
  // SMP in turn) lengthens it too: by more than delay_rise, and by a
  // quarter of the routes' rise or more (its least round trip, from the
  // walk's first SMPs, may itself have waited in that queue).
  probe_out_ = false;
  const double us = std::chrono::duration<double, std::micro>(now - q.sent_at).count();
  bool answered = !q.error && q.rep_len >= iba::MADHeader::SIZE && mad_status(q.rep.data()) == 0;
  // From a switch's own port (port 0) the 0-hop route ends at that
  // switch's processor, the very one the walk queues at: no evidence.
  try {
    if (answered) answered = decode_reply<iba::SMPNodeInfo>(q.reply()).nodeType() != uint64_t(iba::enums::NodeTypeCode::SWITCH);
  } catch (const std::exception&) {
    answered = false;  // (a short answer)
  }
  if (std::exchange(probe_for_window_, false)) {
    window_probe_done(answered, us);
    if (answered) local_min_us_ = std::min(local_min_us_, us);
    return;
  }
  if (narrowing_) {
    if (!answered || lost_smp_) {
      if (!lost_smp_) narrow_caps(now);  // (no evidence of the host's queue)
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
    if (++local_tries_ < lim_.local_probes && time_local_path()) {
      ++fs_.probes;
      return;
    }
    if (narrowing_)
      narrow_caps(now);
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
  new_step(now);
  widen_caps(lim_.delay_grow);
}

bool FlowControl::time_local_path() {
  // (Out from before the send: one that fails completes it at once.)
  probe_out_ = true;
  if (engine_.send_local_probe()) return true;
  probe_out_ = false;
  return false;
}

void FlowControl::measure_visits() {
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

bool FlowControl::answered_by_ca(const PendingMad& p) {
  // A NodeInfo answered says what answered it (and so what answers the
  // node's other SMPs); any other SMP goes by what its node said.
  const uint8_t* rep = p.rep.data();
  if (p.rep_len >= iba::MADHeader::SIZE && !p.error && mad_status(rep) == 0 &&
      iba::MADHeader::attributeID_at(rep) == iba::attr_id<iba::SMPNodeInfo>) {
    try {
      if (decode_reply<iba::SMPNodeInfo>(p.reply()).nodeType() == uint64_t(iba::enums::NodeTypeCode::SWITCH))
        ca_dest_.erase(p.dest);
      else
        ca_dest_.insert(p.dest);
    } catch (const std::exception&) {
      // (a short answer says nothing)
    }
  }
  return ca_dest_.count(p.dest) != 0;
}

void FlowControl::note_gap(const PendingMad& p, Clock::time_point now) {
  // FlowLimits::time_shares: two SMPs sent together to one node queue
  // there (or at the slowest processor on their way, which the hops'
  // time already bounds), so the second's reply comes one service time
  // after the first's.  The answer time is a low quantile of such gaps
  // (the least could be a return trip that caught up).
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

}  // namespace ibcore
