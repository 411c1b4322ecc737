#include "core/rpc/engine.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/base/config.h"
#include "core/mad/trace.h"
#include "core/out/log.h"
#include "core/rpc/rpc.h"
#include "iba/enums.h"
#include "iba/introspect.h"
#include "iba/sa.h"
#include "iba/smp.h"
#include "iba/vendor.h"

namespace ibcore {

namespace {
using madhdr::class_of;
using madhdr::is_smp;
using madhdr::mad_status;
using madhdr::version_of;
}  // namespace

// --- engine --------------------------------------------------------------------------

namespace {
// The MADs in flight the caller or -o asked for (0: neither did).
unsigned asked_outstanding(const Transport& t, unsigned max_outstanding) {
  const int configured = t.settings().outstanding;
  const unsigned n = max_outstanding ? max_outstanding : configured > 0 ? unsigned(configured) : 0u;
  return n ? std::clamp(n, 1u, 65535u) : 0u;
}
// The engine's slots: [0, max) the MADs', [max]: follow_sm's probe,
// [max + 1]: the local round trip.  Reserved, not filled: a slot is made
// (null) when first used (MadEngine::slot), so a run that keeps a few
// MADs in flight pays for a few, not for 258 (a single-MAD command's
// start-up, docs/performance.md).  Never reallocated: FlowControl keeps a
// view of the first max.
std::vector<PendingMad*> reserved_slots(unsigned max) {
  std::vector<PendingMad*> v;
  v.reserve(size_t(max) + 2);
  return v;
}
}  // namespace

MadEngine::MadEngine(Transport& t, unsigned max_outstanding)
    : t_(t),
      max_(asked_outstanding(t, max_outstanding) ? asked_outstanding(t, max_outstanding) : MAX_OUTSTANDING),
      slots_(reserved_slots(max_)),
      flow_(*this, std::span<PendingMad* const>(slots_.data(), max_), line_,
            asked_outstanding(t, max_outstanding) ? max_ : START_OUTSTANDING) {
  free_slots_.reserve(max_);
  std::vector<Timer> v;
  v.reserve(size_t(max_) * 2);
  timers_ = decltype(timers_)(std::greater<Timer>(), std::move(v));
}

MadEngine::~MadEngine() {
  // A local round trip still out when its caller's work is done (the walk
  // ended meanwhile): answered, or timed out, before the port is closed.
  try {
    // (Its timeouts end it sooner; its slot is made when first sent.)
    for (int i = 0; slots_.size() > max_ + 1 && slots_[max_ + 1] && i < 200; ++i) pump(100);
  } catch (...) {
  }
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
  // at each send (computed_timeout_ms).  A GMP's path bound (a PathRecord's
  // PacketLifeTime) bounds the computed one instead: 2.1 s a try where
  // PacketLifeTime is 19, against round trips of a few ms (issue 35).  The
  // SA's answers take as long as their tables: its path's bound holds.
  if (p.timeout_ms <= 0) {
    const bool bound = p.path->packet_life_time || p.path->resp_time;
    if (s.timeout_ms > 0 || (bound && (is_smp(cls) || cls == iba::mgmt::SUBN_ADM)))
      p.timeout_ms = p.path->mad_timeout_ms(s.timeout_ms);
    else
      p.adaptive_timeout = true;
  }
  if (p.tries_left <= 0) p.tries_left = p.path->mad_retries(s.retries) + 1;
  if (p.busy_left <= 0) p.busy_left = 8;
  p.agent = t_.client_agent(cls, version_of(p.req.data()));
  p.dest = flow_.key_of(*p.path, cls);
  p.was_held = false;
  flow_.sync_caps();
  if (in_flight_ < flow_.window()) {
    // (What waits in the line does not fit the window: MADs wait there
    // only while it is full, or parked for a cap.)
    if (flow_.wait_for_cap(p))
      ++queued_;
    else
      issue(p);
  } else {
    flow_.queue(line_, p);
    ++queued_;
  }
}

void MadEngine::send_one(PendingMad& p) {
  seq_ = (seq_ + 1) & 0xffff;
  if (seq_ == 0) seq_ = 1;
  p.prev_seq = p.sends ? p.seq : 0;
  p.seq = seq_;
  if (p.sends < 0xffff) ++p.sends;
  p.tail_probe = false;
  if (p.adaptive_timeout) p.timeout_ms = flow_.timeout_ms(p);
  // The TID's low half is ours (kernels may rewrite the high half).
  uint64_t tid = iba::MADHeader::transactionID_at(p.req.data());
  iba::MADHeader::set_transactionID_at(p.req.data(), (tid & ~uint64_t(0xffffffff)) | (p.seq << 16 | p.slot));
  p.sent_at = t_.now();
  p.send_no = sent_;
  flow_.sending(p);
  // Real kernels keep the send until the reply (or the timeout) and report
  // a timeout themselves; our own timer is the backstop (umad2sim).
  t_.send(p.agent, p.req.data(), p.req_len, *p.path, p.timeout_ms);
  ++sent_;
  if (const PortSettings& s = t_.settings(); s.debug >= 2)
    trace_send(s.debug, {p.req.data(), p.req_len}, p.path->describe(),
               pkey_index_of(*p.path, class_of(p.req.data()), s.pkey_index));
  arm_timer(p);
}

void MadEngine::arm_timer(const PendingMad& p) {
  timers_.push({p.sent_at + std::chrono::milliseconds(p.timeout_ms + 20), p.slot, p.send_no});
}

void MadEngine::retime(PendingMad& q) { arm_timer(q); }

void MadEngine::send_or_fail(PendingMad& p) {
  if (abandon_trials_ && p.path && (p.path->route_trial || p.path->until_done)) return fail_final(p);
  try {
    send_one(p);
  } catch (...) {
    p.error = std::current_exception();
    complete(p);
  }
}

PendingMad*& MadEngine::slot(uint32_t s) {
  if (s >= slots_.size()) slots_.resize(size_t(s) + 1);  // (within the reserve: no reallocation)
  return slots_[s];
}

void MadEngine::issue(PendingMad& p) {
  // The slot freed last, else the lowest never used: slots are taken
  // lowest first, and those above the most ever in flight stay unmade.
  if (free_slots_.empty()) {
    p.slot = fresh_slot_++;
  } else {
    p.slot = free_slots_.back();
    free_slots_.pop_back();
  }
  slot(p.slot) = &p;
  ++in_flight_;
  flow_.issued(p);
  send_or_fail(p);
}

void MadEngine::complete(PendingMad& p) {
  slots_[p.slot] = nullptr;
  const bool probe = &p == probe_.get(), local = &p == local_probe_.get();
  if (!probe && !local) free_slots_.push_back(p.slot);
  --in_flight_;
  flow_.released(p);
  p.done = true;
  if (const int debug = t_.settings().debug)
    trace_done(debug, {p.req.data(), p.req_len}, p.path->describe(), p.reply(), p.error, t_.now() - p.sent_at);
  if (probe) {
    probe_done();
  } else if (local) {
    flow_.local_probe_done(p, t_.now());
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

void MadEngine::put_port_keys(PendingMad& p) const {
  // build_mad wrote the path's keys (0 when it names none).
  const PortSettings& s = t_.settings();
  if (p.req_len < iba::MADHeader::SIZE + 8) return;
  const uint8_t cls = class_of(p.req.data());
  if ((cls == iba::mgmt::SUBN_LID_ROUTED || cls == iba::mgmt::SUBN_DIRECTED_ROUTE) && !p.path->mkey && s.mkey)
    iba::SMPFormat::set_MKey_at(p.req.data(), *s.mkey);
  if (cls == iba::mgmt::SUBN_ADM && !p.path->smkey && s.smkey) iba::SAFormat::set_SMKey_at(p.req.data(), *s.smkey);
}


bool MadEngine::send_local_smp(PendingMad& q, IBPath& path, uint32_t s, bool timing) {
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
    if (t_.settings().timeout_ms <= 0) q.timeout_ms = flow_.computed_timeout_ms(path, iba::mgmt::SUBN_DIRECTED_ROUTE);
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
  q.slot = s;
  slot(s) = &q;
  ++in_flight_;
  send_or_fail(q);  // (if it throws, the probe completes with the error)
  return true;
}


void MadEngine::fail_final(PendingMad& p) {
  MADTimeoutError e("RPC " + describe_mad(p.req.data(), p.req_len) + " timed out to " + p.path->describe());
  e.req.assign(p.req.begin(), p.req.begin() + p.req_len);
  e.path = p.path->repr();
  p.error = std::make_exception_ptr(e);
  complete(p);
}

bool MadEngine::send_local_probe() {
  if (!local_probe_) local_probe_ = std::make_unique<PendingMad>();
  return send_local_smp(*local_probe_, local_path_, max_ + 1, true);
}

void MadEngine::timed_out(PendingMad& p) {
  flow_.timed_out(p, t_.now());
  retry(p);
}

void MadEngine::retry(PendingMad& p) {
  if (--p.tries_left > 0 && p.dest) {
    // An SMP is sent again through the caps and the window (cut just now):
    // first in line, but not in a burst with every other that timed out.
    ++resent_;
    slots_[p.slot] = nullptr;
    free_slots_.push_back(p.slot);
    --in_flight_;
    flow_.released(p);
    line_.push_front(p);
    ++queued_;
    drain();
  } else if (p.tries_left > 0) {
    ++resent_;
    send_or_fail(p);
  } else {
    fail_timeout(p);
  }
}

void MadEngine::abandon_trials() {
  abandon_trials_ = true;
  for (uint32_t i = 0; i < fresh_slot_; ++i)
    if (PendingMad* p = slots_[i]; p && p->path && (p->path->route_trial || p->path->until_done)) fail_final(*p);
}

void MadEngine::drain() {
  if (draining_) return;  // (a send failing inside the loop completes a MAD)
  draining_ = true;
  // Each MAD looked at is issued or parked with the cap it waits for, so
  // the loop never passes over the same waiting MAD twice.
  while (!line_.empty() && in_flight_ < flow_.window()) {
    PendingMad& n = line_.pop_front();
    if (flow_.wait_for_cap(n)) continue;
    --queued_;
    issue(n);
  }
  draining_ = false;
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
  // (The tail's probe: its answer or the first send's, whichever comes;
  // the kernel giving up on the first send is no news.)
  if (!mine && r.status == 0 && p && p->tail_probe && seq && p->prev_seq == seq && !p->backoff &&
      class_of(p->req.data()) == class_of(m))
    mine = true;
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
  const bool same_attr = p && iba::MADHeader::attributeID_at(m) == iba::MADHeader::attributeID_at(p->req.data());
  if (!mine) {
    // A reply to a send that timed out and was sent again: late, not lost.
    if (p && p->prev_seq == seq && seq && same_attr && class_of(p->req.data()) == class_of(m)) flow_.late(*p);
    ++stale_;
    return;
  }
  if (!same_attr) {
    // A response carries its request's TID, class and AttributeID (the
    // agents answer in the request's header: SMA, PMA, the SA's tables and
    // errors; the kernel matches by TID and class only).  One that names
    // another attribute is a stray reusing the TID (a stale reply after the
    // sequence wrapped, a faulty agent): not this MAD's answer, which stays
    // pending, times out and is resent.  The AttributeModifier is not
    // compared: not every class promises it back unchanged.
    ++stale_;
    if (t_.settings().debug || log::verbosity() > 0)
      log::debug("D: RPC %s to %s: ignored a reply with its TID for another attribute: %s\n",
                 describe_mad(p->req.data(), p->req_len).c_str(), p->path->describe().c_str(),
                 describe_mad(m, r.len).c_str());
    return;
  }
  if ((mad_status(m) & 1) && p->busy_left-- > 0) {
    // BUSY: back off and send again (does not use up a retry).
    const Clock::time_point now = t_.now();
    flow_.busy(*p, now);
    p->backoff = true;
    int ms = 10 << std::min(8 - std::max(p->busy_left, 0), 6);
    timers_.push({now + std::chrono::milliseconds(ms), p->slot, p->send_no});
    return;
  }
  if (!r.big.empty()) {
    p->rep_big = r.big;
    p->rep_len = r.big.size();
  } else {
    std::memcpy(p->rep.data(), m, r.len);
    p->rep_len = r.len;
  }
  const Clock::time_point now = t_.now();
  answered_send_no_ = std::max(answered_send_no_, p->send_no + 1);
  if (p->tail_probe && seq == p->seq) flow_.tail_lost(*p, now);
  flow_.answered(*p, m, now);  // (before complete: p's storage is its caller's after)
  complete(*p);
}

void MadEngine::expire(Clock::time_point now) {
  while (!timers_.empty() && timers_.top().at <= now) {
    Timer tm = timers_.top();
    timers_.pop();
    PendingMad* p = slots_[tm.slot];
    if (!p || p->send_no != tm.send_no) continue;  // already answered or resent
    if (p->backoff) {
      p->backoff = false;
      ++resent_;
      send_or_fail(*p);
    } else {
      timed_out(*p);
    }
  }
}

void MadEngine::probe_tail(Clock::time_point now) {
  if (now < next_tail_at_) return;
  next_tail_at_ = now + std::chrono::milliseconds(1);
  PendingMad* oldest = nullptr;
  for (uint32_t i = 0; i < std::min<uint32_t>(fresh_slot_, max_); ++i) {
    PendingMad* p = slots_[i];
    if (!p || p->sends != 1 || !p->adaptive_timeout || p->backoff || p->tries_left <= 1 || !p->path ||
        p->path->route_trial)
      continue;
    // (Only once a MAD sent after it was answered: the fabric answers,
    // and not this one.  A responder that stalls, a simulator starved of
    // the CPU, answers nothing meanwhile.  Unless it is the only one out:
    // then nothing is sent after it, everything waits for it, and a
    // duplicate to a stalled responder costs one MAD; its first answer is
    // the first send's, which says no loss.)
    if (p->send_no >= answered_send_no_ && in_flight_ > 1) continue;
    if (!oldest || p->sent_at < oldest->sent_at) oldest = p;
  }
  if (!oldest) return;
  int ms = flow_.tail_probe_ms(*oldest);
  // (Alone and nothing answered after it: a quarter of the least timeout
  // at least, 5 ms, so that a host or simulator stalled for a moment sends
  // nothing again.)
  if (ms > 0 && oldest->send_no >= answered_send_no_) ms = std::max(ms, flow_.limits().min_timeout_ms / 4);
  if (ms <= 0 || ms >= oldest->timeout_ms) return;
  const Clock::time_point due = oldest->sent_at + std::chrono::milliseconds(ms);
  if (now < due) {
    next_tail_at_ = due;
    return;
  }
  ++tail_probes_;
  ++resent_;
  send_one(*oldest);
  oldest->tail_probe = true;
  next_tail_at_ = now + std::chrono::milliseconds(ms);
}

int MadEngine::next_wait_ms(Clock::time_point now, int cap) const {
  if (timers_.empty()) return cap;
  auto d = std::chrono::duration_cast<std::chrono::milliseconds>(timers_.top().at - now).count() + 1;
  if (d < 0) d = 0;
  if (cap >= 0 && d > cap) return cap;
  return int(d);
}

FlowStats MadEngine::flow_stats() const {
  FlowStats f = flow_.stats();
  f.sent = sent_;
  f.resent = resent_;
  f.tail_probes = tail_probes_;
  return f;
}

bool MadEngine::unstick() {
  // MADs held for caps with nothing in flight to release them (a count
  // that will not come down): back in line, and the first sent past its
  // caps if they still hold it, rather than waiting for ever.
  // (The first goes before drain(): drain would park every one again,
  // and pump() spun on them for ever.)
  if (!flow_.unstick() && line_.empty()) return false;
  if (in_flight_ == 0 && !line_.empty()) {
    PendingMad& n = line_.pop_front();
    --queued_;
    issue(n);
    log::debug("D: flow: MADs held for caps with none in flight: one sent past them\n");
  }
  drain();
  return in_flight_ > 0;
}

size_t MadEngine::pump(int wait_ms) {
  uint64_t start = completed_;
  auto t0 = t_.now();
  for (;;) {
    auto now = t_.now();
    expire(now);
    if (completed_ != start) break;
    if (in_flight_ == 0 && !(queued_ && unstick())) break;
    if (tail_stalled()) probe_tail(now);
    int cap = -1;
    if (wait_ms >= 0) {
      auto el = std::chrono::duration_cast<std::chrono::milliseconds>(now - t0).count();
      if (el >= wait_ms) break;
      cap = int(wait_ms - el);
    }
    int w = next_wait_ms(now, cap);
    if (tail_stalled()) {
      // (Awake for the tail's probe.)
      const auto d = std::chrono::duration_cast<std::chrono::milliseconds>(next_tail_at_ - now).count() + 1;
      if (w < 0 || d < w) w = int(std::max<int64_t>(d, 0));
    }
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

}  // namespace ibcore
