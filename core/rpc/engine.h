// The MAD engine shared by the synchronous calls (MadTransactor,
// core/rpc/rpc.h) and the scheduler (core/rpc/sched.h): MADs in flight,
// TIDs, timeouts, resends, BUSY.  Its flow control is core/rpc/flow.h
// (defined in flow.cpp), its following of a new master SM
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
#include "core/transport/path.h"
#include "core/transport/transport.h"
#include "iba/mad.h"

namespace ibcore {

// One MAD in flight.  Lives in the caller's storage (the sync call's stack
// or a coroutine frame), so issuing a MAD allocates nothing.  The engine
// links it while outstanding; it must not move until done.
struct PendingMad {
  std::array<uint8_t, iba::MAD_SIZE> req{};
  size_t req_len = 0;
  const IBPath* path = nullptr;   // must outlive the request
  int agent = -1;
  int timeout_ms = 0;
  int tries_left = 0;
  int busy_left = 0;
  // Result: the reply (rep/rep_len; rep_big when RMPP reassembled it
  // beyond 256 bytes) or an error.
  std::array<uint8_t, iba::MAD_SIZE> rep{};
  size_t rep_len = 0;
  std::vector<uint8_t> rep_big;
  std::exception_ptr error;
  bool done = false;
  // Called once when done (the scheduler resumes a coroutine here).
  void (*on_done)(PendingMad*, void*) = nullptr;
  void* ctx = nullptr;

  std::span<const uint8_t> reply() const {
    return rep_big.empty() ? std::span<const uint8_t>(rep.data(), rep_len) : std::span<const uint8_t>(rep_big);
  }

  // engine bookkeeping
  uint32_t slot = 0;
  uint32_t seq = 0;
  PendingMad* next = nullptr;     // wait queue
  bool backoff = false;           // waiting to resend after a BUSY reply
  Clock::time_point sent_at;
  // Flow control (MadEngine::FlowLimits): the node the MAD goes to (a key
  // made from its path: the directed route, else the DLID; a PMA's own key
  // for a Performance GMP, which only the node cap holds; 0 for other
  // GMPs, which no per-node cap holds), whether its timeout is the engine's to
  // compute (neither -t nor the path gave one), the sends so far and the
  // sequence number of the one before the last (a reply to it after a
  // timeout is late, not lost).
  uint64_t dest = 0;
  uint16_t dest_load = 0;         // ours in flight to dest when it was issued, itself included (0: not counted)
  uint32_t w_dest = 0, w_hop = 0; // its processor shares when it was counted in (MadEngine::hold)
  bool adaptive_timeout = false;
  uint16_t sends = 0;
  uint32_t prev_seq = 0;
  // Following a new master SM (MadEngine: an SA MAD that timed out on the
  // SM LID the port knew is sent once more to the SM LID the port's
  // PortInfo gives now): the path it was resent on, and whether it was.
  IBPath sm_path;
  bool sm_followed = false;
  bool was_held = false;          // waited for a cap once (FlowStats::held)
  // FlowLimits::overtakes: the engine's send count at this MAD's last
  // send, and how many sent after it on the same route have been answered.
  uint64_t send_no = 0;
  uint16_t overtaken = 0;
  bool was_overtaken = false;     // its send before the last was taken as lost by order
};

class MadEngine {
public:
  // max_outstanding: 0 = the transport's settings().outstanding or the
  // default (64).  Timeouts, retries and keys: t.settings() too.
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

  size_t in_flight() const { return in_flight_; }
  size_t queued() const { return queued_; }
  unsigned max_outstanding() const { return max_; }
  // Statistics
  uint64_t sent() const { return sent_; }     // every send, resends included
  uint64_t resent() const { return resent_; }  // sends again after a timeout or BUSY
  uint64_t stale() const { return stale_; }

  // Replies that matched no request (requests to our server agents land here
  // when there is no server loop; servers use their own recv).
  std::function<void(const RecvMad&)> unsolicited;

  // How many SA MADs were sent again to a new master SM (follow_sm).
  uint64_t sm_follows() const { return sm_follows_; }

  // --- flow control ----------------------------------------------------------
  FlowLimits& limits() { return lim_; }
  FlowStats flow_stats() const;
  // MADs the window lets be in flight now (at most max_outstanding()).
  unsigned window() const;
  // What the layers above learned about a node (discovery, from its
  // PortInfo): the node that directed route dr reaches has LID lid (0:
  // unknown; LID-routed SMPs to it then count against the same node) and
  // answers within PortInfo:RespTimeValue resp_time (an IBA exponent).
  void learn_node(const IBPath& dr, uint16_t lid, std::optional<uint8_t> resp_time);
  // The subnet's SubnetTimeOut (PortInfo, an IBA exponent): the packet
  // lifetime each way the IBA bound of a timeout adds.
  void learn_subnet_timeout(uint8_t subnet_timeout);
  // The timeout a MAD to path of class mgmt_class would get now when
  // neither -t nor the path sets one (ms).
  int computed_timeout_ms(const IBPath& path, uint8_t mgmt_class) const;
  // The smoothed round trip the engine measured (ms; 0: none yet).
  double srtt_ms() const { return smp_rtt_.srtt_ms; }

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
  bool send_local_smp(PendingMad& q, IBPath& path, uint32_t slot, bool timing = false);
  void local_probe_done();
  void stop_widening();  // the last step undone; widened no more
  // The processor caps widened by the factor by, and lifted once widened
  // lift_scale times over (FlowLimits::grow, delay_grow).
  void widen_caps(double by);
  // p (an SA MAD) sent once more, to the SM at lid/sl.
  void resend_to_sm(PendingMad& p, uint16_t lid, uint8_t sl);
  void fail_final(PendingMad& p);
  void issue(PendingMad& p);
  void send_one(PendingMad& p);
  // send_one, or p completed with the error sending threw.
  void send_or_fail(PendingMad& p);
  void complete(PendingMad& p);
  void timed_out(PendingMad& p);
  void lost(PendingMad& p);  // p taken as lost (timed out, or overtaken): sent again, or failed
  void fail_timeout(PendingMad& p);
  void on_recv(RecvMad& r);
  void expire(Clock::time_point now);
  int next_wait_ms(Clock::time_point now, int cap) const;
  // Flow control: whether p fits the caps now; count it in or out of them;
  // issue what waits and fits.
  // (The caps are kept only while they hold: sync_caps() turns them on or
  // off as caps_wanted() says, counting the MADs in flight again.)
  uint64_t blocker(const PendingMad& p) const;  // the key of a full cap p needs (0: fits)
  void hold(PendingMad& p, int d);
  uint32_t proc_weight(const PendingMad& p, bool hop) const;  // p's share of a processor (FlowLimits::smi_share)
  unsigned node_cap(const PendingMad& p) const;  // the node cap p is held by now (0: none)
  unsigned at_node(uint64_t key) const;           // ours in flight to node key (while the caps hold)
  bool is_pm(const PendingMad& p) const;         // a PMA's GMP (held by the PM node cap only)
  void note_gap(const PendingMad& p);            // FlowLimits::time_shares: the answer time
  void narrow_caps();                            // FlowLimits::watch_rtt: round trips rose
  uint32_t proc_cap() const;
  void park(uint64_t key, PendingMad& p);
  void unpark(uint64_t key);
  void unpark_all();
  bool caps_wanted() const;
  bool shares_lifted() const;  // the processor shares lifted, the levels holding (FlowLimits::proc_start)
  void grow_caps();
  void sync_caps();
  void drain();
  void on_loss(const PendingMad& p);
  void on_reply(PendingMad& p);
  // FlowLimits::overtakes: p was answered; those sent before it on its
  // route and still out were overtaken (lost once overtakes times).
  void overtake(const PendingMad& p);
  // The first round trip of a class measured: MADs of that class out on
  // their first send, whose timeouts were the IBA's bound for want of it,
  // time out after the round trip's instead (smp: every SMP; else cls).
  void rearm(bool smp, uint8_t cls);
  void measure_visits();
  uint64_t key_of(const IBPath& path, uint8_t mgmt_class) const;
  uint64_t head_key(const IBPath& p) const;  // where a hybrid route's directed part begins (IBPath::lid_head)
  int timeout_cap_ms(uint64_t dest, uint8_t mgmt_class, uint16_t dlid) const;
  int bound_ms(const IBPath& path, uint8_t mgmt_class) const;  // the path's own bound, else timeout_cap_ms
  void learn_class_port_info(const PendingMad& p, const uint8_t* rep);

  Transport& t_;
  unsigned max_;
  std::vector<PendingMad*> slots_;      // by TID low 16 bits
  // Each slot's MAD's destination key as issued (stale once the slot is
  // free): MadEngine::overtake compares these, one cache line per 8 slots,
  // and looks at a MAD only where its key matches (the test bed's walk:
  // 64 in flight, a reply every 12 us).
  std::vector<uint64_t> slot_dest_;
  std::vector<uint32_t> free_slots_;
  uint32_t seq_ = 1;
  PendingMad* wait_head_ = nullptr;
  PendingMad* wait_tail_ = nullptr;
  size_t in_flight_ = 0, queued_ = 0;
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
  // FlowLimits::delay_rise's probe of the host's own path (slot max_ + 1):
  // an SMP to the local port, its least round trip (us), the step's mean
  // it judges.
  std::unique_ptr<PendingMad> local_probe_;
  IBPath local_path_;
  double local_min_us_;
  double judged_mean_ = 0;
  unsigned local_tries_ = 0;
  std::vector<PendingMad*> sm_waiters_;
  // Flow control state.
  FlowLimits lim_;
  FlowStats fs_;
  double cwnd_ = 0, ssthresh_ = 0;
  Clock::time_point cut_at_{};           // the window was last cut for MADs sent before this
  // Smoothed round trips and their variation (Jacobson/Karels, RFC 6298).
  struct Rtt {
    double srtt_ms = 0, rttvar_ms = 0;
    void add(double ms);
    int rto_ms() const { return int(std::ceil(srtt_ms + 4 * rttvar_ms)); }
  };
  Rtt smp_rtt_;  // the SMPs'
  // A GMP class's round trips (the SA's apart, whose answers take as long
  // as their tables: issue 35), by class: a PMA's drop is resent after
  // them, not after the IBA's bound (2.1 s where SubnetTimeOut is 19).
  std::unordered_map<uint8_t, Rtt> gmp_rtt_;
  // A send taken as lost by order was answered after all: this fabric (or
  // host) does not answer in order, and order is judged no more.
  bool reorders_ = false;
  std::unordered_map<uint64_t, uint16_t> to_node_;
  std::unordered_map<uint64_t, uint32_t> at_proc_;  // (smi_share: in 1/SHARE_UNIT of a processor)  // SMPs in flight by node / processor (while tracking_)
  // MADs waiting for a full cap, by its key (linked through PendingMad::next).
  struct Parked {
    PendingMad* head = nullptr;
    PendingMad* tail = nullptr;
  };
  std::unordered_map<uint64_t, Parked> parked_;
  bool tracking_ = false;  // the caps hold (counts kept) now
  std::unordered_map<uint64_t, uint64_t> alias_;    // a LID's key -> the node's DR key
  std::unordered_map<uint64_t, uint8_t> resp_time_;  // node key (or GMP class+LID) -> RespTimeValue
  std::optional<uint8_t> subnet_timeout_;
  bool draining_ = false;
  // Least DR round trip (us) by processor visits (2h-1), and what it says.
  std::array<double, 16> rtt_min_us_;
  std::array<uint32_t, 16> rtt_n_;
  double visit_us_ = -1;
  bool lost_smp_ = false;  // an SMP timed out: the caps hold from now on
  uint64_t smp_replies_ = 0;
  double scale_ = 1;                       // the caps widened (FlowLimits::grow)
  Clock::time_point next_grow_at_{};       // not widened again before this
  // FlowLimits::delay_rise: the current step (from step_at_) and what its
  // round trips say; the least mean of the steps before; widening stopped.
  Clock::time_point step_at_{};
  double step_sum_ = 0;
  unsigned step_n_ = 0;
  double base_delay_ = 0;
  bool grow_stopped_ = false;
  // Issue 35: the node caps after losses (0: FlowLimits::node_cap), the
  // processor caps' last cut, caps held again after longer round trips;
  // FlowLimits::time_shares' estimates (us; -1 unknown) and, by node, the
  // last reply (time, and when that SMP was sent).
  unsigned node_cut_ = 0, pm_cut_ = 0;
  // FlowLimits::node_start: each node's own cap so far (by its key; absent:
  // node_start), whether a loss or BUSY there stopped its rise, and the
  // least round trip of a MAD sent once to it (us).
  struct NodeLevel {
    uint8_t cap = 0;
    bool stopped = false;
    float least_us = 0;  // (0: none yet)
  };
  std::unordered_map<uint64_t, NodeLevel> node_level_;
  // FlowLimits::proc_start: our SMPs at each processor now (its key: the
  // node's, as at_proc_), and each processor's level (absent: proc_start)
  // with the time before which it does not rise (after a loss there).
  struct ProcLevel {
    uint16_t cap = 0;
    uint16_t ceil = 0;  // not above this (a loss came one above it; 0: none)
    Clock::time_point settle_until{};
  };
  std::unordered_map<uint64_t, uint16_t> occ_;
  std::unordered_map<uint64_t, ProcLevel> proc_level_;
  unsigned start_cut_ = 0;  // the level new processors and nodes start at after a cut (0: none yet)
  unsigned proc_level(uint64_t key) const;
  // fn(key) for each processor p visits (its destination's first).
  template <class Fn>
  void each_proc(const PendingMad& p, Fn fn) const;
  void raise_procs(const PendingMad& p, double rtt_us);
  void cut_procs(const PendingMad& p);
  Clock::duration settle_time() const;  // FlowLimits::proc_settle round trips
  unsigned node_level(uint64_t key) const;
  void raise_node(const PendingMad& p);
  Clock::time_point proc_cut_at_{};
  bool caps_back_ = false;
  bool narrowing_ = false;  // the local round trip asked is for narrow_caps, not a step
  double forward_us_ = -1, answer_us_ = -1;
  struct LastReply {
    Clock::time_point at, sent_at;
  };
  std::unordered_map<uint64_t, LastReply> last_reply_;
  std::array<double, 32> gaps_{};  // the last reply gaps (us)
  uint64_t gap_n_ = 0;
  double judged_abs_ = 0;  // the mean round-trip ratio narrow_caps' local round trip judges
  void judge_step(const PendingMad& p, double ratio);  // SMP replies so far (FlowLimits::start_replies)

};

// Check a finished PendingMad: throws the MADError it carries, or the
// MADClassError for a non-zero reply status.  Returns the reply.
std::span<const uint8_t> check_reply(const PendingMad& p);

}  // namespace ibcore
