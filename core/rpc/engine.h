// The MAD engine shared by the synchronous calls (MadTransactor,
// core/rpc/rpc.h) and the scheduler (core/rpc/sched.h): MADs in flight
// (core/rpc/pending.h), slots, TIDs, timers, sends, replies, resends, BUSY.
// Its flow control is a FlowControl it owns (core/rpc/flow.h: the window,
// the caps, the round trips and the computed timeouts; defined in flow.cpp,
// flowrtt.cpp, flowtime.cpp), which it asks whether a MAD may go and tells
// what happened to each; its following of a new master SM is
// core/rpc/smfollow.h (smfollow.cpp).
#pragma once

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/base/error.h"
#include "core/mad/rmpp.h"
#include "core/mad/trace.h"
#include "core/rpc/flow.h"
#include "core/rpc/madbuild.h"
#include "core/rpc/pending.h"
#include "core/transport/path.h"
#include "core/transport/transport.h"
#include "iba/mad.h"

namespace ibcore {

class MadEngine : private FlowControl::Engine {
public:
  // Where neither the caller nor -o says how many MADs may be in flight:
  // the window starts at START_OUTSTANDING and opens, while the local
  // port's round trip does not rise, up to MAX_OUTSTANDING, the hard
  // maximum (FlowLimits::window_grow; docs/real-fabrics.md, "A window that
  // opens on latency": half the 512 receive buffers the kernel's MAD layer
  // posts on QP0 and QP1 by default, so all our replies at once leave the
  // other half to the SM and other agents on the port).
  static constexpr unsigned START_OUTSTANDING = 64, MAX_OUTSTANDING = 256;
  // max_outstanding: the hard maximum, where the window starts too; 0 =
  // the transport's settings().outstanding (-o), or, where that is 0 too,
  // START_OUTSTANDING opening to MAX_OUTSTANDING.  Timeouts, retries and
  // keys: t.settings() too.
  explicit MadEngine(Transport& t, unsigned max_outstanding = 0);
  // Waits for what the engine sent for itself (the local round trip of
  // FlowLimits::local_probes): its reply must find the port still read.
  ~MadEngine();
  MadEngine(const MadEngine&) = delete;
  MadEngine& operator=(const MadEngine&) = delete;
  Transport& transport() { return t_; }

  // Queue p (req, req_len, path set; tries/timeout default from the path).
  // Its TID is assigned here (written into p.req).
  void submit(PendingMad& p);
  // Receive replies and handle timeouts for at most wait_ms (-1 = until
  // something completes or nothing is outstanding).  Returns the number of
  // MADs completed.
  size_t pump(int wait_ms = -1);
  // Drive p to completion (sync calls).
  void wait(PendingMad& p);
  // Route trials (IBPath::route_trial) out or still to go, once their
  // sender no longer needs their verdict (the walk ended before it came):
  // each fails now with a timeout error, not sent again and not counted as
  // a loss, and the run does not wait out their timeouts.  So do the MADs
  // whose answer helped only until then (IBPath::until_done).
  void abandon_trials();

  size_t in_flight() const { return in_flight_; }
  size_t queued() const { return queued_; }
  // The most MADs the window may hold now, what a pool of workers that
  // keeps it full is sized to: the hard maximum where -o (or the caller)
  // gave one; else the window's top, START_OUTSTANDING until the local
  // round trip lets it open, up to hard_max() (FlowControl::top).
  unsigned max_outstanding() const { return flow_.top(); }
  unsigned hard_max() const { return max_; }  // the slots: the most ever in flight
  // Statistics
  uint64_t sent() const { return sent_; }     // every send, resends included
  uint64_t resent() const { return resent_; }  // sends again after a timeout or BUSY
  uint64_t stale() const { return stale_; }

  // Replies that matched no request (requests to our server agents land here
  // when there is no server loop; servers use their own recv).
  std::function<void(const RecvMad&)> unsolicited;

  // How many SA MADs were sent again to a new master SM (follow_sm).
  uint64_t sm_follows() const { return sm_follows_; }

  // --- flow control (FlowControl's, forwarded) --------------------------------
  FlowControl& flow() { return flow_; }
  FlowLimits& limits() { return flow_.limits(); }
  FlowStats flow_stats() const;
  // MADs the window lets be in flight now (at most max_outstanding()).
  unsigned window() const { return flow_.window(); }
  // What the layers above learned about a node (discovery, from its
  // PortInfo): FlowControl::learn_node, learn_subnet_timeout.
  void learn_node(const IBPath& dr, uint16_t lid, std::optional<uint8_t> resp_time) {
    flow_.learn_node(dr, lid, resp_time);
  }
  void learn_route(const IBPath& other, const IBPath& dr) { flow_.learn_route(other, dr); }
  void learn_dest(const IBPath& probe, uint16_t lid) { flow_.learn_dest(probe, lid); }
  void learn_subnet_timeout(uint8_t subnet_timeout) { flow_.learn_subnet_timeout(subnet_timeout); }
  // The timeout a MAD to path of class mgmt_class would get now when
  // neither -t nor the path sets one (ms).
  int computed_timeout_ms(const IBPath& path, uint8_t mgmt_class) const {
    return flow_.computed_timeout_ms(path, mgmt_class);
  }
  // The smoothed round trip the engine measured (ms; 0: none yet).
  double srtt_ms() const { return flow_.srtt_ms(); }

private:
  // An SA MAD that timed out on the SM LID the port knew: ask the local
  // port's PortInfo (an SMP on the 0-hop directed route, MasterSMLID and
  // MasterSMSL) and send p once more to the SM it names, when that is
  // another one.  false when p is not such a MAD.
  bool follow_sm(PendingMad& p);
  // An SA MAD on a path to the SM the port still names, after another was
  // followed: sent to that one instead.
  void to_followed_sm(PendingMad& p);
  // The end port's M_Key / SM_Key into p.req where p.path names none.
  void put_port_keys(PendingMad& p) const;
  void probe_done();
  // q made a GET of the local port's PortInfo on the 0-hop route path,
  // outside the window and the caps, in the reserved slot (false: this
  // transport sends no SMPs), then sent.  timing: the flow control's local
  // round trip instead (NodeInfo, sent once, the engine's own timeout).
  bool send_local_smp(PendingMad& q, IBPath& path, uint32_t s, bool timing = false);
  // p (an SA MAD) sent once more, to the SM at lid/sl.
  void resend_to_sm(PendingMad& p, uint16_t lid, uint8_t sl);
  void fail_final(PendingMad& p);
  void issue(PendingMad& p);
  PendingMad*& slot(uint32_t s);  // slot s, made (null) if it was never used
  void send_one(PendingMad& p);
  // send_one, or p completed with the error sending threw.
  void send_or_fail(PendingMad& p);
  // p's timer: its timeout from its last send (and the transport's 20 ms
  // of slack: the kernel's own report comes first).
  void arm_timer(const PendingMad& p);
  void complete(PendingMad& p);
  void timed_out(PendingMad& p);
  void fail_timeout(PendingMad& p);
  // Issue what waits in line while the window has room (each MAD issued,
  // or parked with the cap it waits for).
  void drain();
  void on_recv(RecvMad& r);
  void expire(Clock::time_point now);
  int next_wait_ms(Clock::time_point now, int cap) const;
  // FlowLimits::tail_probe: while nothing waits in line, or one MAD alone
  // is in flight (what waits, a cap holds behind it: a lost one at a node
  // whose cap came down to 1 holds every other query to it), the MAD in
  // flight the longest sent again once it waited its tail_probe_ms (not
  // before next_tail_at_: at most one probe each such time, a scan a
  // millisecond).
  void probe_tail(Clock::time_point now);
  bool unstick();  // MADs held for caps with none in flight: sent on (true: some are in flight now)
  bool tail_stalled() const {
    return (queued_ == 0 || in_flight_ == 1) && in_flight_ > 0 && flow_.limits().tail_probe > 0;
  }
  Clock::time_point next_tail_at_{};
  uint64_t answered_send_no_ = 0;  // past the latest send answered (its PendingMad::send_no + 1)
  uint64_t tail_probes_ = 0;
  // FlowControl::Engine: its local round trip sent, a MAD's timer set
  // again, a MAD taken as lost sent again (or failed).
  bool send_local_probe() override;
  void retime(PendingMad& q) override;
  void retry(PendingMad& p) override;

  Transport& t_;
  unsigned max_;
  // By TID low 16 bits: made up to the highest used (slot()), within a
  // reserve of max_ + 2 (see reserved_slots in engine.cpp).  Free ones:
  // those freed (last freed, first taken), and those from fresh_slot_ on,
  // never used.
  std::vector<PendingMad*> slots_;
  std::vector<uint32_t> free_slots_;
  uint32_t fresh_slot_ = 0;
  uint32_t seq_ = 1;
  MadLine line_;  // waiting for the window (and MADs a cap released)
  size_t in_flight_ = 0, queued_ = 0;
  bool draining_ = false;
  bool abandon_trials_ = false;  // abandon_trials(): trials fail unsent
  struct Timer {
    Clock::time_point at;
    uint32_t slot;
    uint64_t send_no;  // the send it times (PendingMad::send_no: unique, where seq wraps at 65535)
    bool operator>(const Timer& o) const { return at > o.at; }
  };
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
  RecvMad rbuf_;
  uint64_t sent_ = 0, resent_ = 0, stale_ = 0, completed_ = 0, sm_follows_ = 0;
  // The PortInfo probe of follow_sm (slot max_, kept for it) and the SA
  // MADs waiting for its answer (they keep their slots).
  std::unique_ptr<PendingMad> probe_;
  IBPath probe_path_;
  std::vector<PendingMad*> sm_waiters_;
  // The flow control's local round trip (slot max_ + 1: Engine::send_local_probe).
  std::unique_ptr<PendingMad> local_probe_;
  IBPath local_path_;
  FlowControl flow_;  // (after slots_ and line_, which it is given)
};

// Check a finished PendingMad: throws the MADError it carries, or the
// MADClassError for a non-zero reply status.  Returns the reply.
std::span<const uint8_t> check_reply(const PendingMad& p);

}  // namespace ibcore
