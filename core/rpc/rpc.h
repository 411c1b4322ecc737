// MAD RPC (python-rdma's MADTransactor, seeds/002): one call per IBA RPC
// name, typed on the attribute structure:
//
//   ibcore::Umad umad(ep.ca, ep.port);
//   ibcore::MadTransactor mad(umad);
//   iba::SMPNodeInfo ni = mad.SubnGet<iba::SMPNodeInfo>(path);
//   iba::SMPPortInfo pi = mad.SubnGet<iba::SMPPortInfo>(path, 1);
//   mad.SubnSet(pi, path, 1);                       // payload by value
//   auto t = mad.SubnAdmGetTable(query, comp_mask); // t.records, t.truncated
//
// Failures throw MADTimeoutError / MADClassError / MADError (core/base/error.h).
// The method is checked against the attribute's entry in the class registry
// (iba/mad.h), so a SubnSet of a get-only attribute fails before sending.
//
// The RPC names are declared once (RpcVerbs below, python-rdma's
// MADTransactor mixin) and run in two modes: synchronously here
// (MadTransactor: the call returns the attribute) and asynchronously under
// the scheduler (core/rpc/sched.h Scheduler: the call returns an awaitable of
// it).  MadEngine is the machinery both share.
#pragma once

#include <array>
#include <chrono>
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
#include "core/transport/path.h"
#include "core/transport/transport.h"
#include "iba/mad.h"

namespace ibcore {

// --- building and describing MADs ----------------------------------------------------

// What to send, independent of any type: the untyped RPC form (used by the
// `query` command and everything typed is built on it).
struct MadRequest {
  const iba::ClassDesc* cls = nullptr;   // the class (for SMPs: the LID routed one;
                                         // a DR path switches to the directed format)
  uint8_t method = 0;
  uint16_t attr_id = 0;
  uint32_t amod = 0;
  std::span<const uint8_t> payload;      // attribute payload (short = zero padded)
  uint64_t comp_mask = 0;                // SA component mask
  // For vendor classes with an OUI (0x30-0x4f): the OUI (bytes 37..39).
  uint32_t oui = 0;
};

// Fill mad (256 bytes) for req sent along path with transaction id tid.
// Returns the number of bytes to send.  Chooses the directed route format
// for a DR path (hop pointer 0, hop count, initial path, drSLID/drDLID) and
// puts path.mkey / path.smkey (or 0) in SMPs / SA MADs; MadEngine puts the
// end port's keys (Transport::settings(): -y, --smkey) in a MAD whose path
// names none.  An
// attribute the class defines is checked against the methods it allows
// (MADError when not); an attribute ID the registry does not know is sent
// as given, with req.payload as its raw data.
size_t build_mad(uint8_t* mad, const MadRequest& req, const IBPath& path, uint64_t tid);

// The agent class/version a MAD goes out on (SMPs: 0x01 or 0x81).
inline uint8_t mad_class(const uint8_t* mad) { return mad[1]; }


// --- the engine shared by sync calls and the scheduler -----------------------------

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
};

// Flow control (issue 24).  Real fabrics have queues MADs can overflow:
// SMPs travel on VL15, which drops what a full receive buffer cannot take;
// every switch's SMA and SMI is one firmware processor with a small FIFO
// that answers one SMP at a time, and a directed-route SMP is handled by
// the SMI of every switch it passes, on the way out and back.  MadEngine
// therefore keeps, besides the hard maximum (-o), these limits:
//  - per node: at most node_cap SMPs in flight whose destination is one
//    node (named by its path: the directed route, else the DLID, both the
//    same node once MadEngine::learn_node said so);
//  - per processor: what one switch's processor handles, as destination or
//    as an intermediate hop of a directed route (every proper prefix of a
//    DR path names one), counted by share (smi_share): a DR SMP of h hops
//    makes 2h-1 processor visits, 2 at each switch it passes and 1 at its
//    destination, and spends the rest of its round trip elsewhere, so it
//    weighs 2/(2h-1) of a processor at a hop, 1/(2h-1) at the destination
//    (a LID-routed SMP: 1); a processor takes SMPs while their shares add
//    up to at most smi_share (as the destination: node_cap of the SMP's
//    own share), and always one.  (smi_share 0: each counts 1 against
//    smi_cap, which kept the first switch, the one every route passes
//    twice, idle a third of the time.)
//  both for the first start_replies SMP replies (a small fabric's whole
//  walk: one lost SMP would cost it far more than the caps); then, if none
//  was lost, the processor caps are widened by grow at most once per
//  timeout (a loss the last step caused is seen before the next) and all
//  caps are lifted at lift_scale (a fabric that keeps up, the test bed,
//  runs at full speed, and no burst floods a small queue at once); from
//  the first SMP that times out on they hold for good, at scale 1 or
//  lower, the node cap cut where the losses say (issue 35: loss_cut,
//  watch_rtt and time_shares below) (a timed-out SMP is sent again
//  through the caps and the cut window, not in a burst).
//  caps_from_start holds them from the first SMP for the whole walk
//  (gentlest: on the model no drop on any sweep profile; but the per-hop
//  bookkeeping costs CPU on every MAD, and no measure the engine has tells
//  the test bed from a fabric of fast switches with small queues).
//  The engine also measures the time per processor visit (the least round
//  trip of directed routes over the visits each took: 2h-1 for h hops;
//  -v reports it).  With caps_from_start and min_visit_us > 0 the caps are
//  lifted while it stays under that; the measure is not reliable enough to
//  decide by default (queueing at the first switch, which every directed
//  route passes, inflates the short routes' round trips as much as the
//  long ones': the model's 50 us switches read 5 us; the loaded test bed
//  reads 10-25 us).
//  - a window (AIMD): it starts at the hard maximum, is halved when a MAD
//    times out or is answered BUSY (at most once per round trip), and
//    grows again by one MAD per window of replies.
// MADs that do not fit wait in the engine's queue (in order; one held by a
// busy node waits with that node, and does not hold up the others).
struct FlowLimits {
  unsigned node_cap = 4;   // SMPs in flight to one node (0: no cap)
  unsigned smi_cap = 4;    // SMPs one switch processor handles at once (0: no cap)
  // smi_share > 0: the processor cap counts each SMP by the share of its
  // processor visits that processor makes (a DR SMP of h hops visits 2h-1:
  // 2 at each intermediate switch, 1 at the destination), and a processor
  // takes SMPs while their shares add up to at most smi_share (at least
  // one).  0: each SMP counts 1 against smi_cap.  (1.5: on the model's
  // k=32 sweep 1.01-1.09x the bound; 1.75 was 1.00-1.03x, but changed the
  // order of the k=8 ideal walk enough to send 7 duplicate probes.)
  double smi_share = 1.5;
  // When the caps hold: from the first SMP on (true); else (the default)
  // for the first start_replies SMP replies (0: none), then widened (grow)
  // and lifted while none is lost, and from the first loss on.
  bool caps_from_start = false;
  unsigned start_replies = 512;
  // After start_replies (and no loss): the caps are widened by this factor
  // at most once per timeout, and lifted once widened lift_scale times
  // over (grow <= 1: lifted at once).  A loss sets them back for good.
  double grow = 2;
  double lift_scale = 16;
  // delay_rise > 0: the widening is paced by the SMP round trip instead
  // (Vegas-style): each step is judged on delay_samples round trips of
  // SMPs sent after it (each as a ratio to the least round trip of routes
  // of its processor visits); a step whose mean rose more than delay_rise
  // over the least mean of the steps before is undone and the widening
  // stops there (queueing at a processor shows as a longer round trip
  // before deep buffers drop anything); a step that did not is followed at
  // once by the next.  Each step widens the caps by delay_grow (small: the
  // step that queues is undone, but what it queued is already there).
  // A step whose round trips rose is first checked against the host's own
  // path: an SMP to the local port (0 hops, no switch) is timed.  If its
  // round trip rose too (by more than delay_rise, and by a quarter of the
  // routes' rise or more), the queue is on the host's side of the first
  // link (the host's stack, the test bed's one simulator process), where
  // no switch drops what waits: the step stands and the widening goes on.
  // 0: widened by grow once per timeout until a loss.
  double delay_rise = 0.1;
  unsigned delay_samples = 64;
  double delay_grow = 1.25;
  // Local round trips timed (one after the other) before a step is undone
  // (0: none; every step whose round trips rose is undone).
  unsigned local_probes = 3;
  // After a loss, caps that come down (issue 35): an SMP (or a PMA's GMP)
  // lost while others of ours were at its destination brings the node cap
  // (the PMA's: its own) below that number, down to 1; one lost where its
  // destination held no other of ours brings the processor caps down by
  // loss_cut (at most once per round trip, to min_scale at the least).
  double loss_cut = 0.5;
  double min_scale = 0.125;
  // After the widening stopped or the caps were lifted, the round trips are
  // still judged (delay_samples at a time): a window whose mean rose more
  // than delay_rise over the least one while the local port's round trip
  // did not brings the caps back (lifted: held again at scale 1, widened
  // afresh; widened: one step narrower).  false: lifted for good.
  bool watch_rtt = true;
  // The processor shares by time, not by visits: once the engine has
  // measured a directed route's forwarding time per hop (the least round
  // trips' slope over their hops) and the time a node takes to answer (the
  // gap between the replies of SMPs that queued together there), a hop
  // weighs 2f/(2(h-1)f + a) of a processor and the destination a/(...)
  // (by visits: f = a).  false: by visits.
  bool time_shares = true;
  bool adaptive = true;    // the AIMD window (false: always the hard maximum)
  // With caps_from_start: the time per processor visit (us) under which
  // the caps are lifted until an SMP is lost (0, the default: never).
  double min_visit_us = 0;
  // The computed timeouts (where neither -t nor the path gives one):
  // between min_timeout_ms and the IBA's bound for the destination
  // (PortInfo:RespTimeValue + 2 x SubnetTimeOut, ClassPortInfo for GMPs),
  // or default_timeout_ms while that is unknown.
  int min_timeout_ms = 100;
  int default_timeout_ms = 1000;
};

// What the engine saw of the MADs it ran (-v prints it, report_flow).
struct FlowStats {
  uint64_t sent = 0, resent = 0;  // MadEngine::sent(), resent()
  uint64_t timeouts = 0;   // sends that got no reply in time
  uint64_t late = 0;       // replies that came after their send timed out
  uint64_t busy = 0;       // BUSY replies (backed off and sent again)
  uint64_t held = 0;       // MADs that waited for a per-node or processor cap
  uint64_t probes = 0;     // SMPs to the local port that timed the host's path (FlowLimits::delay_rise)
  unsigned window_lo = 0, window_hi = 0;  // the window's range
  unsigned window_max = 0;                // the hard maximum (-o)
  double srtt_ms = 0;                     // the smoothed SMP round trip
  double visit_us = -1;                   // measured time per processor visit (-1: not yet)
  bool caps = true;                       // the per-node and processor caps hold now
  double scale = 1, scale_hi = 1;         // how far the caps are widened (now, most)
  double scale_lo = 1;                    // ... and how far they came down after losses
  unsigned node_cap = 0, pm_cap = 0;      // the node caps in force now (SMPs; a PMA's GMPs)
  double forward_us = -1, answer_us = -1; // measured forwarding time per hop and answer time (-1: not yet)
  uint64_t caps_back = 0;                 // times the caps came back after longer round trips
  uint64_t drops() const { return timeouts > late ? timeouts - late : 0; }  // inferred
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
  double srtt_ms() const { return srtt_ms_; }

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
  bool is_pm(const PendingMad& p) const;         // a PMA's GMP (held by the PM node cap only)
  void note_gap(const PendingMad& p);            // FlowLimits::time_shares: the answer time
  void narrow_caps();                            // FlowLimits::watch_rtt: round trips rose
  uint32_t proc_cap() const;
  void park(uint64_t key, PendingMad& p);
  void unpark(uint64_t key);
  void unpark_all();
  bool caps_wanted() const;
  void grow_caps();
  void sync_caps();
  void drain();
  void on_loss(const PendingMad& p);
  void on_reply(PendingMad& p);
  void measure_visits();
  uint64_t key_of(const IBPath& path, uint8_t mgmt_class) const;
  uint64_t head_key(const IBPath& p) const;  // where a hybrid route's directed part begins (IBPath::lid_head)
  int timeout_cap_ms(uint64_t dest, uint8_t mgmt_class, uint16_t dlid) const;
  void learn_class_port_info(const PendingMad& p, const uint8_t* rep);

  Transport& t_;
  unsigned max_;
  std::vector<PendingMad*> slots_;      // by TID low 16 bits
  std::vector<uint32_t> free_slots_;
  uint32_t seq_ = 1;
  PendingMad* wait_head_ = nullptr;
  PendingMad* wait_tail_ = nullptr;
  size_t in_flight_ = 0, queued_ = 0;
  struct Timer {
    Clock::time_point at;
    uint32_t slot, seq;
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
  double srtt_ms_ = 0, rttvar_ms_ = 0;   // SMP round trips (Jacobson/Karels)
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

// -v: one line on stderr with what the engine's flow control saw
// ("I: flow: N MADs sent, T timeouts (D dropped, L late), R resent, B busy,
// H held at a busy node, window W..X of M, rtt Y ms"); nothing without -v
// or when no MAD was sent.
void report_flow(const FlowStats& f);

// The SM LID and SL the library learned for a local port after the SM the
// port knew stopped answering (MadEngine::follow_sm): default_sa_path()
// uses them for as long as the port itself still names the old SM (a
// long-lived process whose view of the port is not refreshed, e.g.
// umad2sim's sysfs).  Process-wide, keyed by the port (local GID, else
// LID).  forget_followed_sm() drops everything (tests).
struct FollowedSm {
  uint16_t stale_lid = 0;  // what the port said when the SM was followed
  uint16_t lid = 0;
  uint8_t sl = 0;
};
std::optional<FollowedSm> followed_sm(const Transport& t);
void forget_followed_sm();

// Check a finished PendingMad: throws the MADError it carries, or the
// MADClassError for a non-zero reply status.  Returns the reply.
std::span<const uint8_t> check_reply(const PendingMad& p);

// --- typed RPC names -----------------------------------------------------------------

// Find the class (mgmt class in [lo, hi]) whose attribute table has the
// structure d.  nullptr when none.
const iba::ClassDesc* class_for(const iba::StructDesc& d, uint8_t lo, uint8_t hi);

// The request for an RPC name on attribute T.
template <class T>
MadRequest make_request(uint8_t lo, uint8_t hi, uint8_t method, const T* payload, uint32_t amod,
                        uint64_t comp_mask = 0) {
  MadRequest r;
  r.cls = class_for(T::DESC, lo, hi);
  r.method = method;
  r.attr_id = iba::AttrId<T>::value;
  r.amod = amod;
  if (payload) r.payload = payload->bytes();
  r.comp_mask = comp_mask;
  if (!r.cls) throw MADError(std::string("No management class defines attribute ") + T::DESC.name);
  return r;
}

// The path to the SA: --sa-path (t.settings().sa_path: a LID, GID or path
// spec; not a DR path) when given, else the SM LID and SL the end port
// knows.  Always QP1 with the GSI Q_Key unless the path spec says
// otherwise.  Throws ibcore::Error for a bad --sa-path, MADError when the
// port knows no SM.
IBPath default_sa_path(const Transport& t);

template <class T>
struct SATable {
  std::vector<T> records;
  bool truncated = false;   // the reply lost segments (umad2sim has no RMPP)
};

// Decode the attribute payload of a reply MAD into T.
template <class T>
T decode_reply(std::span<const uint8_t> mad);
// The attribute payload bytes of a MAD (by its class's data offset).
std::span<const uint8_t> payload_of(std::span<const uint8_t> mad);
// The records of an SA GetTable reply (sa_split_records) decoded as T.
template <class T>
SATable<T> decode_table(std::span<const uint8_t> mad) {
  SARecords s = sa_split_records(mad);
  // Records spaced closer than the attribute is long cannot be the SA's
  // records of that attribute: a reply that lies about its offset.
  if (!s.records.empty() && s.record_size < T::SIZE)
    throw MADError("SA GetTable reply's attribute offset (" + std::to_string(s.record_size / 8) +
                   " words) is shorter than a " + T::DESC.name + " record (" + std::to_string(T::SIZE) + " bytes)");
  SATable<T> out;
  out.truncated = s.truncated;
  out.records.reserve(s.records.size());
  for (auto r : s.records) {
    T t;
    t.load(r);
    out.records.push_back(t);
  }
  return out;
}
template <class T>
T decode_reply(std::span<const uint8_t> mad) {
  T t;
  t.load(payload_of(mad));
  return t;
}

// The IBA's RPC names, typed on the attribute structure, declared once for
// both modes.  Exec (CRTP) provides
//   template <class R> auto execute(const MadRequest&, IBPath, R (*decode)(std::span<const uint8_t>))
// (returning R when synchronous, an awaitable of R under the scheduler) and
//   IBPath sa_path() const   (the path SubnAdm* calls take when given none).
template <class Exec>
class RpcVerbs {
public:
#define IBCORE_RPC(Name, lo, hi, meth)                                                              \
  template <class T>                                                                                \
  auto Name(IBPath path, uint32_t amod = 0, const T* payload = nullptr) {                           \
    return exec().execute(make_request<T>(lo, hi, meth, payload, amod), std::move(path), &decode_reply<T>); \
  }                                                                                                 \
  template <class T>                                                                                \
  auto Name(const T& payload, IBPath path, uint32_t amod = 0) {                                     \
    return exec().execute(make_request<T>(lo, hi, meth, &payload, amod), std::move(path), &decode_reply<T>); \
  }
  IBCORE_RPC(SubnGet, iba::mgmt::SUBN_LID_ROUTED, iba::mgmt::SUBN_LID_ROUTED, iba::method::GET)
  IBCORE_RPC(SubnSet, iba::mgmt::SUBN_LID_ROUTED, iba::mgmt::SUBN_LID_ROUTED, iba::method::SET)
  IBCORE_RPC(PerformanceGet, iba::mgmt::PERF, iba::mgmt::PERF, iba::method::GET)
  IBCORE_RPC(PerformanceSet, iba::mgmt::PERF, iba::mgmt::PERF, iba::method::SET)
  IBCORE_RPC(BMGet, iba::mgmt::BM, iba::mgmt::BM, iba::method::GET)
  IBCORE_RPC(BMSet, iba::mgmt::BM, iba::mgmt::BM, iba::method::SET)
  IBCORE_RPC(DevMgtGet, iba::mgmt::DEV_MGT, iba::mgmt::DEV_MGT, iba::method::GET)
  IBCORE_RPC(DevMgtSet, iba::mgmt::DEV_MGT, iba::mgmt::DEV_MGT, iba::method::SET)
  IBCORE_RPC(SNMPGet, iba::mgmt::SNMP, iba::mgmt::SNMP, iba::method::GET)
  IBCORE_RPC(CCGet, iba::mgmt::CC, iba::mgmt::CC, iba::method::GET)
  IBCORE_RPC(CCSet, iba::mgmt::CC, iba::mgmt::CC, iba::method::SET)
  IBCORE_RPC(VendGet, iba::mgmt::VENDOR_MIN, iba::mgmt::VENDOR_OUI_MAX, iba::method::GET)
  IBCORE_RPC(VendSet, iba::mgmt::VENDOR_MIN, iba::mgmt::VENDOR_OUI_MAX, iba::method::SET)
#undef IBCORE_RPC

  // SA: the query record and its component mask, to the SA at path
  // (a pointer: nullptr = sa_path(); or a path).
  template <class T>
  auto SubnAdmGet(const T& query, uint64_t comp_mask, const IBPath* path = nullptr, uint32_t amod = 0) {
    return sa(query, iba::method::GET, comp_mask, path, amod, &decode_reply<T>);
  }
  template <class T>
  auto SubnAdmGet(const T& query, uint64_t comp_mask, const IBPath& path, uint32_t amod = 0) {
    return SubnAdmGet(query, comp_mask, &path, amod);
  }
  template <class T>
  auto SubnAdmSet(const T& rec, uint64_t comp_mask, const IBPath* path = nullptr, uint32_t amod = 0) {
    return sa(rec, iba::method::SET, comp_mask, path, amod, &decode_reply<T>);
  }
  template <class T>
  auto SubnAdmGetTable(const T& query, uint64_t comp_mask, const IBPath* path = nullptr, uint32_t amod = 0) {
    return sa(query, iba::method::GET_TABLE, comp_mask, path, amod, &decode_table<T>);
  }
  template <class T>
  auto SubnAdmGetTable(const T& query, uint64_t comp_mask, const IBPath& path, uint32_t amod = 0) {
    return SubnAdmGetTable(query, comp_mask, &path, amod);
  }

  // (Kept as MadTransactor::decode for the untyped callers.)
  template <class T>
  static T decode(std::span<const uint8_t> mad) {
    return decode_reply<T>(mad);
  }
  static std::span<const uint8_t> payload_of(std::span<const uint8_t> mad) { return ibcore::payload_of(mad); }

private:
  Exec& exec() { return static_cast<Exec&>(*this); }
  template <class T, class R>
  auto sa(const T& rec, uint8_t method, uint64_t comp_mask, const IBPath* path, uint32_t amod,
          R (*dec)(std::span<const uint8_t>)) {
    return exec().execute(make_request<T>(iba::mgmt::SUBN_ADM, iba::mgmt::SUBN_ADM, method, &rec, amod, comp_mask),
                          path ? IBPath(*path) : exec().sa_path(), dec);
  }
};

// Synchronous MAD RPCs over a transport.
class MadTransactor : public RpcVerbs<MadTransactor> {
public:
  explicit MadTransactor(Transport& t, unsigned max_outstanding = 0) : eng_(t, max_outstanding) {}
  MadEngine& engine() { return eng_; }
  Transport& transport() { return eng_.transport(); }

  // The untyped RPC: returns the whole reply MAD (reassembled for RMPP).
  std::vector<uint8_t> call(const MadRequest& req, const IBPath& path);
  // With on, an SMP that times out asks whether its destination exists
  // (note_target_presence, core/rpc/target.h: the SA, the hop before) before its
  // MADTimeoutError leaves, so that report() hints at an M_Key only for a
  // target that exists (the single-target commands' sessions turn it on;
  // off, no MAD is sent that the caller did not ask for).
  void note_presence(bool on) { note_presence_ = on; }

  // The path to the SA: default_sa_path(transport()).  Every SubnAdm* call
  // without an explicit path uses it.
  IBPath sa_path() const;

  // RpcVerbs' mode: run the request now and decode its reply.
  template <class R>
  R execute(const MadRequest& req, const IBPath& path, R (*dec)(std::span<const uint8_t>)) {
    return dec(call(req, path));
  }

private:
  MadEngine eng_;
  bool note_presence_ = false;
};

}  // namespace ibcore
