// Flow control and pacing of the MAD engine (issues 24 and 35): the limits
// it keeps (FlowLimits), what it saw (FlowStats, report_flow), and the
// FlowControl that keeps them, which MadEngine (core/rpc/engine.h) owns
// and tells what happens to each MAD: the per-node and per-processor caps,
// their widening and cuts, the AIMD window, the round-trip measures and the
// computed timeouts, losses seen by order.  Defined in flow.cpp (the caps,
// the window, losses and replies), flowrtt.cpp (what the round trips say)
// and flowtime.cpp (the timeouts, the nodes' keys, order).  Tests:
// test/unit/flow_unit_test.cpp drives a FlowControl alone on explicit
// times; test/unit/flow_control_test.cpp the engine with it on a virtual
// clock; measured on the fabric model (docs/real-fabrics.md).
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/rpc/pending.h"
#include "core/transport/path.h"

namespace ibcore {

// Flow control (issue 24).  Real fabrics have queues MADs can overflow:
// SMPs travel on VL15, which drops what a full receive buffer cannot take;
// every switch's SMA and SMI is one firmware processor with a small FIFO
// that answers one SMP at a time, and a directed-route SMP is handled by
// the SMI of every switch it passes, on the way out and back.  The engine's
// FlowControl therefore keeps, besides the hard maximum (-o), these limits:
//  - per node: at most node_cap SMPs in flight whose destination is one
//    node (named by its path: the directed route, else the DLID, both the
//    same node once FlowControl::learn_node said so);
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
//  - a window (AIMD): it starts at its first size (the hard maximum, -o,
//    where one was given), is halved when a MAD times out or is answered
//    BUSY (at most once per round trip), and grows again by one MAD per
//    window of replies; without -o it opens beyond its first size, up to
//    the hard maximum, in steps the local port's round trip allows
//    (FlowLimits::window_grow).
// MADs that do not fit wait in the engine's queue (in order; one held by a
// busy node waits with that node, and does not hold up the others).
struct FlowLimits {
  unsigned node_cap = 4;   // SMPs in flight to one node (0: no cap)
  // A node's cap starts at node_start (issue 35: a queue of 1 and a VL15
  // buffer of 1 hold two on any fabric) and rises by one, up to node_cap,
  // each time the node answers, without queueing, a MAD that found as many
  // of ours there as its cap allowed (PendingMad::dest_load): its round
  // trip within node_rtt_rise of the least to that node.  One that queued
  // says the node is busy with what it has (more in flight would only wait
  // in its queue, or overflow it).  A loss or BUSY there stops its rise,
  // and a loss with others of ours there brings it below their number.
  // node_start 0 (or >= node_cap): every node at node_cap from the start.
  unsigned node_start = 2;
  double node_rtt_rise = 0.1;
  // A node's least round trip may have queued itself (behind the SM's
  // SMPs, or a directed route's forwards at that processor): a queue of 1
  // whose every answer waits one service for another then read as never
  // queueing, and its cap rose to 3 and 4 with the SM's SMPs still coming
  // (issue 35: irregular random-2095, 2 SMPs dropped, none at a cap of 2).
  // So a LID-routed SMP's round trip is also judged against the least of
  // all LID-routed SMPs answered by the same kind of node (a switch's SMA,
  // a CA's), node_least_slack over it (the nodes' distances differ by
  // their hops and links).  0: against the node's own least only.
  double node_least_slack = 0.5;
  // A hybrid route's head (IBPath::lid_head: the switch its directed tail
  // leaves) holds, within its node cap, the SMPs whose tail starts there
  // as well as those it answers (issue 35): its processor takes each of
  // them in turn, whatever share of its time they take, and probes sent
  // together arrive together.  A loss there brings its cap below their
  // number.  false: a tail counts only by its processor share.
  bool head_counts = true;
  // ... and so does the first switch (behind the local port) the
  // directed routes of two hops, whose last hop leaves it (issue 35): its
  // neighbours' probes and the PortInfos of its hosts, which every route
  // form gives it twice (it cannot be a hybrid route's head: the route to
  // it is its own), count with its own answers within its cap.  On the
  // shipped sweep's queues of 4 and VL15 buffers of 1, its host probes,
  // sent together while the widened shares let them, overflowed its queue,
  // and what came in behind them (even a LID-routed SMP that only crossed
  // it) was lost in the buffer of port 1, which every MAD of ours enters
  // by (k=48 at S 50 and 500 us: 2-4 drops a run; k=32's dump_fts: 2).
  // false: they count by their processor shares only.
  bool dr_heads = true;
  // A PMA's GMP of ours, while out, also counts within the node cap of
  // the SMA its LID leads to, once that PMA has answered pma_counts times
  // slower than that SMA or more (their least round trips): a switch's
  // PMA is mostly firmware on the processor that answers SMPs, and while
  // it serves a slow GMP (a millisecond) the SM's SMPs pile up in that
  // processor's queue, where one more of ours overflowed it (issue 35:
  // held-out random-2108, queues of 5, a PMA of 1.25 ms, the SM sending
  // 1,447 SMPs a second; the irregular fabric's exporter lost an SMP at
  // the first switch and waited 20 ms, as slow as the reference's
  // strategy).  A node's SMPs and its slow PMA's reads then share its cap.
  // (Counted whatever the speeds, the reads of PMAs as fast as their SMA
  // only held the SMPs back and moved where probes meet: a drop with the
  // SM idle on k=8 held-out random-2016.)  0: a PMA's GMPs count at the
  // PMA only.
  double pma_counts = 2;
  // Occupancy levels (issue 35): every processor an SMP visits (its
  // destination's, a hybrid route's head, each switch a directed route
  // passes) holds at most its level of our SMPs at once, however small
  // their shares: a FIFO of Q and a VL15 buffer of D drop only what finds
  // more than Q + D there, and a queue of 1 and a buffer of 1 hold two on
  // any fabric.  A level starts at proc_start and rises by one each time an
  // SMP sent once comes back without queueing (its round trip within
  // node_rtt_rise of the least to its node, else of the least of routes of
  // its length) while that processor held its level's worth but one (k of
  // ours that never wait leave room for k + 1); it comes down on a loss to
  // one less than ours there (to 1 at the least) and rises again only
  // after proc_settle round trips of replies without a loss.  While levels
  // are on (proc_start > 0) the caps always hold: never lifted, so a
  // fabric that slows down or an SM that starts a sweep meets them.
  // Off by default (0) for now: on the test bed's k=32 (ibsim, one
  // host-side server answering in turn) levels of 2 made ibnetdiscover
  // 2.1x slower and 4x the tool's CPU (2.29 s against 1.10 s; 4.25 s with
  // --discovery DR), while on the merged tree's random sweep they gained
  // little (docs/real-fabrics.md).  The model's tests and model_run
  // --proc-start 2 turn them on.
  unsigned proc_start = 0;
  unsigned proc_max = 6;
  double proc_settle = 8;
  double proc_fall = 1;
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
  // A step is judged on the first delay_samples SMPs sent after it, once
  // every one of them has ended (those lost or sent again judge nothing),
  // not on the first delay_samples answered: an SMP that queues answers
  // after those that did not, after the step was judged without it, so a
  // queue at one processor (the first switch's, which the walk's reads of
  // its own hosts pass twice) never showed in any step.  false: the
  // first answered (as before).
  bool step_whole = true;
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
  // The window beyond its first size (issue 35; docs/real-fabrics.md, "A
  // window that opens on latency"): where the engine's hard maximum was
  // not given (-o), the window starts at 64 and its top is raised by
  // window_grow, up to the hard maximum (256), a step at a time, only
  //  - once the caps' widening, paced by the round trips (delay_rise), went
  //    all the way (lifted) without a loss and without their rising: the
  //    fabric keeps up with what the first size sends it (or, with
  //    window_widening, while that widening goes on);
  //  - while the window is what holds MADs back (full at its top, MADs
  //    waiting in line, not for a cap), a window's worth of replies after
  //    the step before;
  //  - and while the local port's round trip (the host's own path,
  //    Engine::send_local_probe) stays within window_rise of its least: a
  //    queue on the host's side (its stack, the test bed's one simulator
  //    thread) lengthens it, and more in flight would only wait there (the
  //    step is asked again after twice as many replies).
  // Or, instead of the first condition (window_held), once that
  // widening stopped on round trips that rose (the processors queue at the
  // caps' first size: the caps will not be lifted) and the caps hold, with
  // no SMP lost and the caps not brought back: every node and processor
  // stays within its caps, so a wider window works more nodes at once,
  // not more at one.
  // Round trips that are latency (a host far from its switches, slow
  // answers spread over many nodes) then no longer bound the walk by the
  // window.  While the top is above its first size the caps hold (never
  // lifted): each node keeps at most what it has shown it takes.  A lost
  // MAD brings the top back to the first size and ends the steps for good;
  // round trips that rise (watch_rtt) by more than window_undo bring it
  // back too, and the steps are asked again later (window_retry).  <= 1:
  // never beyond the first size.
  double window_grow = 2;
  double window_rise = 0.5;
  // The window's steps while the caps hold where their widening stopped
  // (above; docs/real-fabrics.md, "A window that opens while the caps
  // hold"): the model's k=32 sweep at S 50 and 500 us walks 3x faster
  // with no drop, where the window stayed at 64.  false: only once the
  // caps were lifted.
  bool window_held = true;
  // After round trips that rose undid the window's steps (watch_rtt), the
  // steps are asked again (the host's round trip judging each, as before)
  // after window_retry times the first size in replies, twice as many
  // after each undoing: a rise partway through a run (the walk's deepest
  // level, the SM's sweep) no longer keeps the window at 64 for the rest
  // of it (k=16 random-10: at 64 for 80 % of its 0.37 s).  A loss still
  // ends them for good.  0: not asked again.
  double window_retry = 4;
  // ... and after a loss (issue 35): asked again after loss_retry times
  // the first size in replies without a loss, twice as many after each
  // loss, while the caps hold (cut where the loss was: every node stays
  // within what it has shown it takes, so a wider window works more
  // nodes at once, as with window_held).  One drop early in a k=32 walk
  // (random-11: queues of 2, the SM idle) kept the window at 64 for the
  // rest of it, 0.155 s against 0.051 s without the drop.  0: a loss ends
  // the steps for good.
  double loss_retry = 4;
  // Round trips that rose undo the window's steps only when the mean of
  // a window of them (as for the caps' steps, delay_rise) rose by more
  // than window_undo over the least before (issue 35; docs/real-fabrics.md,
  // "A window that steps while the caps widen"): 1, as much as a step
  // widens it (window_grow), is a step that brought no more replies a
  // second.  Below that the rise is our MADs waiting behind each other
  // within the node caps, which hold while the window is beyond its first
  // size.  Only where hybrid routes lead (FlowControl::tails_lead): plain
  // directed routes share the processors they pass, and there a rise of
  // delay_rise undoes the steps as before (k=16 with queues of 4: 6
  // SMPs queued at the first switch with 1).
  // (delay_rise, 0.1, undid the steps 10 times on k=16 random-61: 0.0124 s
  // against 0.0078 s; on random-1 when 3 times as many replies a second
  // came back 20 % later.)
  double window_undo = 1;
  // The window may step while the caps are being widened (delay_rise),
  // not only once they were lifted or stopped (keeps_up): the widening's
  // 13 steps, 64 round trips each, kept the window at 64 for a third of
  // a k=16 walk.  Only where more SMPs went by hybrid routes than by plain
  // directed routes through a switch: those share the processors they
  // pass (smi_share), which the widening judges at the window's first
  // size (plain routes on k=16 with queues of 4: 6 SMPs queued at the
  // first switch with this, 4 without).  false: only after.
  bool window_widening = true;
  // The steps are judged against the least round trip of routes as long
  // to answers of the same kind: a switch's SMA or a CA's, told apart by
  // the NodeInfo each node answered.  A CA's SMA may answer 10 times
  // slower than a switch's (k=16 random-1: 389 us against 43 us), so once
  // the walk's SMPs go mostly to CAs, their round trips over a switch's
  // least read as a queue 3.4 times as long, and undid the window's
  // steps with nothing queued.  false: one least for both.
  bool rtt_by_kind = true;
  // Urgent MADs first (IBPath::urgent; docs/real-fabrics.md, "Probes first
  // in line"): the walk marks its probes, a switch's PortInfo 0 and the
  // route form's trials, whose answers start the next level's work; such
  // a MAD goes ahead of those waiting for the same cap or the window (the
  // line it waits in: queue()), and while it waits for
  // a cap it holds every processor it would count at: no MAD that would
  // count there goes before it.  (A probe needs two thirds of its
  // switch's processor, so beside the switch's own PortInfos it waited
  // until none was left.)  With probe_room and step_whole, the random
  // sweep's tools take 0.81-0.94x and drop less (docs/real-fabrics.md,
  // "Steps judged on all their SMPs").  false: one FIFO.
  bool urgent_first = true;
  // While probes are out (urgent MADs in flight), a node not known to be
  // a CA keeps probe_room of its node cap free (only where that leaves it
  // 2 or more): a neighbour's probe, whose destination no cap can know
  // before it answers, may arrive there.  0: every node's cap is its
  // own (2: more drops on k=8 and k=16).  (With urgent_first and without it: drops with the
  // SM idle where forwarding far outlasts answering and queues hold 2-3,
  // k=8 random-9, -11 and -108.)
  unsigned probe_room = 1;
  // With caps_from_start: the time per processor visit (us) under which
  // the caps are lifted until an SMP is lost (0, the default: never).
  double min_visit_us = 0;
  // The computed timeouts (where neither -t nor the path gives one):
  // between min_timeout_ms and the IBA's bound for the destination
  // (PortInfo:RespTimeValue + 2 x SubnetTimeOut, ClassPortInfo for GMPs),
  // or default_timeout_ms while that is unknown.  The floor of 20 ms
  // (issue 35; docs/real-fabrics.md, "A 20 ms timeout floor"): a small
  // fabric's whole walk takes 4-40 ms, so a floor of 100 made one lost SMP
  // cost more than the walk; below 20, answers that are merely slow time
  // out (at 5 ms, 10 % of the MADs on a quarter of the random profiles).
  int min_timeout_ms = 20;
  int default_timeout_ms = 1000;
  // Losses seen by order (issue 35; TCP's duplicate acknowledgements): a
  // management processor, a PMA and every link serve in order, so of two
  // MADs sent on one route to one node the first is answered first unless
  // it was lost.  One still out when this many sent after it on its route
  // have been answered is taken as lost at once: sent again, and counted
  // as a loss by the caps, one round trip after the drop instead of a
  // timeout after it (at least min_timeout_ms: 20 ms, as long as a small
  // fabric's whole walk).  A reply that comes after all is late, as after
  // a timeout, and says this fabric does not keep order: from then on the
  // run judges losses by timeouts only (one spurious resend a run at
  // most).  0: losses are seen by timeouts only.
  unsigned overtakes = 2;
  // The tail's probe (issue 35; TCP's tail loss probe, RFC 8985): while
  // nothing waits in line, the MAD in flight the longest (sent once, with
  // a computed timeout: not where -t or the path set one; not a route
  // trial; with a try left), once it has waited tail_probe times the
  // longest round trip its class had at a first send (of 8 or more; 1 ms
  // at least) and a MAD sent after it was answered, is sent again; a
  // reply to either send completes it, and the probe's means the first
  // was lost (FlowStats::tail_lost, a loss as a timeout is).  At most one
  // such probe each such time.  A lost MAD with
  // nothing behind it on its route (the overtakes above see none) then
  // costs about twice a round trip, not its timeout: on the irregular
  // fabric's random-965 one dropped probe waited 20 ms with the walk
  // stalled behind it (0.044 s, 1.14x the reference's strategy).  0: off.
  double tail_probe = 2;
};

// What the engine saw of the MADs it ran (-v prints it, report_flow).
struct FlowStats {
  uint64_t sent = 0, resent = 0;  // MadEngine::sent(), resent()
  uint64_t timeouts = 0;   // sends that got no reply in time (route trials apart)
  uint64_t trial_timeouts = 0;  // route trials that got none (IBPath::route_trial: a route form
                                // the fabric may not route, not a fault of the fabric)
  uint64_t overtaken = 0;  // sends taken as lost because later ones on their route were answered (FlowLimits::overtakes)
  uint64_t tail_probes = 0;  // MADs sent again while nothing waited in line (FlowLimits::tail_probe)
  uint64_t tail_lost = 0;    // ... whose probe was answered, not the send before: taken as lost
  bool reorders = false;   // ... and one was answered after all: order judged no more
  uint64_t late = 0;       // replies that came after their send timed out (or was overtaken)
  uint64_t busy = 0;       // BUSY replies (backed off and sent again)
  uint64_t held = 0;       // MADs that waited for a per-node or processor cap
  uint64_t probes = 0;     // SMPs to the local port that timed the host's path (FlowLimits::delay_rise)
  unsigned window_lo = 0, window_hi = 0;  // the window's range
  unsigned window_max = 0;                // the hard maximum (-o, else FlowLimits::window_grow's)
  unsigned window_start = 0;              // its first size
  uint64_t window_probes = 0;             // local round trips timed for the window's steps (not in probes)
  uint64_t window_steps = 0, window_held = 0;  // steps beyond it, and steps the local round trip refused
  double srtt_ms = 0;                     // the smoothed SMP round trip
  double visit_us = -1;                   // measured time per processor visit (-1: not yet)
  bool caps = true;                       // the per-node and processor caps hold now
  double scale = 1, scale_hi = 1;         // how far the caps are widened (now, most)
  double scale_lo = 1;                    // ... and how far they came down after losses
  unsigned node_cap = 0, pm_cap = 0;      // the node caps in force now (SMPs; a PMA's GMPs)
  double forward_us = -1, answer_us = -1; // measured forwarding time per hop and answer time (-1: not yet)
  uint64_t caps_back = 0;                 // times the caps came back after longer round trips
  uint64_t level_cuts = 0;                // processor levels cut after a loss (FlowLimits::proc_start)
  uint64_t level_falls = 0;               // ... and brought down by one after long queueing (proc_fall)
  unsigned level_hi = 0;                  // the highest processor level reached
  uint64_t drops() const {  // inferred
    const uint64_t lost = timeouts + overtaken + tail_lost;
    return lost > late ? lost - late : 0;
  }
};

// The flow control of one MadEngine: every figure of FlowLimits' mechanisms
// and what they measured.  The engine keeps its MADs, slots, TIDs, timers
// and sends; it asks here whether a MAD may go now (or which cap holds it:
// wait_for_cap), what its timeout is, how wide the window is, and tells
// what happened to it: issued, sent, answered, timed out, answered BUSY,
// answered late, released from its slot.  Time comes with each event (the
// engine's clock: a test gives its own).  What the flow control asks of the
// engine in turn is Engine's three calls, each for a rare event (none is
// made on every reply: the test bed's walk has one every 12 us); it reads the engine's slots (the MADs in flight, for order and for
// counting them into the caps when these come on) and puts MADs a cap
// released at the head of the engine's line.
class FlowControl {
public:
  class Engine {
  public:
    // Time the host's own path (FlowLimits::local_probes): an SMP to the
    // local port outside the window and the caps, whose end the engine
    // reports to local_probe_done.  false: this transport sends no SMPs.
    virtual bool send_local_probe() = 0;
    // q, out on its first send, has a shorter timeout now (q.timeout_ms):
    // its timer is set again.
    virtual void retime(PendingMad& q) = 0;
    // q was taken as lost by order (the flow control counted the loss):
    // sent again, or failed when it has no tries left.
    virtual void retry(PendingMad& q) = 0;

  protected:
    ~Engine() = default;
  };

  // slots: the engine's MADs in flight by slot (null where free; it keeps
  // the storage), max of them, each filled only after issued() told of it:
  // only those up to the highest issued are read (the engine makes them
  // as it uses them); line: the MADs waiting to go; start: the
  // window's first size, which it opens beyond in steps
  // (FlowLimits::window_grow; 0 or the slots: it starts at the slots, the
  // hard maximum -o gave).
  FlowControl(Engine& engine, std::span<PendingMad* const> slots, MadLine& line, unsigned start = 0);
  FlowControl(const FlowControl&) = delete;
  FlowControl& operator=(const FlowControl&) = delete;

  FlowLimits& limits() { return lim_; }
  const FlowLimits& limits() const { return lim_; }
  // What it saw (FlowStats::sent and resent are the engine's to fill).
  FlowStats stats() const;
  // MADs the window lets be in flight now (at most the slots).
  unsigned window() const;
  // The most it may open to now: its first size, raised in steps up to the
  // slots (FlowLimits::window_grow).
  unsigned top() const { return unsigned(top_); }

  // --- what the layers above learned (MadEngine forwards these) ------------
  // The node that directed route dr reaches has LID lid (0: unknown;
  // LID-routed SMPs to it then count against the same node) and answers
  // within PortInfo:RespTimeValue resp_time (an IBA exponent).
  void learn_node(const IBPath& dr, uint16_t lid, std::optional<uint8_t> resp_time);
  // Directed route other (a hybrid one) reaches the node dr does: SMPs by
  // either count against the same node.
  void learn_route(const IBPath& other, const IBPath& dr);
  // Directed route probe, not yet answered, ends at the port whose LID is
  // lid (a link the SA knows: a switch's port and the LID behind it): it
  // counts against that node before the node is known by a route.
  void learn_dest(const IBPath& probe, uint16_t lid);
  // The subnet's SubnetTimeOut (an IBA exponent): the packet lifetime each
  // way the IBA bound of a timeout adds.
  void learn_subnet_timeout(uint8_t subnet_timeout) { subnet_timeout_ = subnet_timeout; }

  // --- timeouts ----------------------------------------------------------------
  // The timeout a MAD to path of class mgmt_class would get now when
  // neither -t nor the path sets one (ms): its class's round trips, within
  // [min_timeout_ms, the IBA's bound].
  int computed_timeout_ms(const IBPath& path, uint8_t mgmt_class) const;
  // p's timeout for the send it is about to make (p.adaptive_timeout): the
  // computed one, doubled for each send before (RFC 6298's back-off), and
  // the last try's at least the IBA's bound or default_timeout_ms.
  int timeout_ms(const PendingMad& p) const;
  // How long p may wait, while nothing waits in line, before it is sent
  // again as the tail's probe (ms; 0: not for p's class, or not known yet).
  int tail_probe_ms(const PendingMad& p) const;
  // p's tail probe was answered, not its send before: that one is taken as
  // lost (as a timeout would take it), one probe's time after the stall.
  void tail_lost(const PendingMad& p, Clock::time_point now) {
    ++fs_.tail_lost;
    on_loss(p, now);
  }
  // The smoothed SMP round trip (ms; 0: none yet).
  double srtt_ms() const { return smp_rtt_.srtt_ms; }

  // --- a MAD's way -------------------------------------------------------------
  // The node a MAD to path of class mgmt_class counts against
  // (PendingMad::dest: 0 for none).
  uint64_t key_of(const IBPath& path, uint8_t mgmt_class) const;
  // The caps on or off as they are wanted now (the limits may have changed).
  void sync_caps();
  // The key of a full cap p needs (0: p fits them now).
  uint64_t blocker(const PendingMad& p) const;
  // p into line l where FlowLimits::urgent_first puts it (an urgent MAD
  // after the urgent ones at its head), else at its end.
  void queue(MadLine& l, PendingMad& p) const {
    if (lim_.urgent_first) l.push(p);
    else l.push_back(p);
  }
  // p held back by a full cap: parked with it (true), to go first in line
  // when that cap has room; false: p may go.
  bool wait_for_cap(PendingMad& p) {
    const uint64_t b = blocker(p);
    if (b) park(b, p);
    return b != 0;
  }
  // Nothing of ours in flight, yet MADs wait for a cap: no reply will
  // bring its count down.  Every one back in line, no key held for an
  // urgent one; true when there were some.  (MadEngine::unstick.)
  bool unstick() {
    if (parked_.empty() && urgent_at_.empty()) return false;
    urgent_at_.clear();
    unpark_all();
    return true;
  }
  // p took slot p.slot: counted into the caps (and its load at its node).
  void issued(PendingMad& p);
  // p is about to be sent (again) as the engine's p.send_no-th send:
  // order's marks (FlowLimits::overtakes).
  void sending(PendingMad& p);
  // p left its slot (answered, failed, or lost and back in line): counted
  // out of the caps; what waited for them goes first in line.
  void released(PendingMad& p) {
    hold(p, -1);
    if (p.step) {  // (FlowLimits::step_whole: one of the step's ended)
      if (p.step == step_gen_) ++step_ended_;
      p.step = 0;
    }
  }
  // p was answered (reply: the MAD's first 256 bytes) at now: the round
  // trips, the window, the caps' rise; the MADs sent before p on its route
  // and still out were overtaken (Engine::retry for those lost by order).
  // Before the engine completes p.
  void answered(PendingMad& p, const uint8_t* reply, Clock::time_point now);
  // p's send got no reply in time (before the engine sends it again).
  void timed_out(const PendingMad& p, Clock::time_point now);
  // p was answered BUSY (the engine backs off and sends it again).
  void busy(const PendingMad& p, Clock::time_point now);
  // A reply to p's send before the last came after all.
  void late(const PendingMad& p);
  // The local round trip (Engine::send_local_probe) ended: q answered or
  // failed, at now.
  void local_probe_done(const PendingMad& q, Clock::time_point now);

private:
  // Smoothed round trips and their variation (Jacobson/Karels, RFC 6298).
  struct Rtt {
    double srtt_ms = 0, rttvar_ms = 0;
    double max_ms = 0;  // the longest (FlowLimits::tail_probe)
    uint32_t n = 0;     // how many
    void add(double ms);
    int rto_ms() const { return int(std::ceil(srtt_ms + 4 * rttvar_ms)); }
  };
  const Rtt* rtt_of(const PendingMad& p) const;  // p's class's round trips (none: the SA's, or none yet)

  // --- the caps (flow.cpp) ---------------------------------------------------
  // p counted in (d +1) or out (-1) of the caps it needs; a count that
  // goes down unparks what waited for it.  (The caps are kept only while
  // they hold: sync_caps() turns them on or off as caps_wanted() says,
  // counting the MADs in flight again.)
  void hold(PendingMad& p, int d);
  uint32_t proc_weight(const PendingMad& p, bool hop) const;  // p's share of a processor (FlowLimits::smi_share)
  unsigned node_cap(const PendingMad& p) const;  // the node cap p is held by now (0: none)
  unsigned cap_of(uint64_t key, bool pm) const;  // ... the node cap at node key (0: none; key 0: the cap without a node's level)
  uint64_t held_at(const PendingMad& p) const;   // the head that holds p in its node cap (FlowLimits::head_counts, dr_heads; 0: none)
  unsigned at_node(uint64_t key) const;           // ours in flight to node key (while the caps hold)
  bool is_pm(const PendingMad& p) const;         // a PMA's GMP (held by the PM node cap only)
  uint64_t head_key(const IBPath& p) const;      // where a hybrid route's directed part begins (IBPath::lid_head)
  uint32_t proc_cap() const;
  void park(uint64_t key, PendingMad& p);
  void unpark(uint64_t key);
  void unpark_all();
  bool caps_wanted() const;
  bool shares_lifted() const;  // the processor shares lifted, the levels holding (FlowLimits::proc_start)
  void grow_caps(Clock::time_point now);
  // The processor caps widened by the factor by, and lifted once widened
  // lift_scale times over (FlowLimits::grow, delay_grow).
  void widen_caps(double by);
  void stop_widening();  // the last step undone; widened no more
  // FlowLimits::node_start, proc_start: the nodes' caps and the
  // processors' levels, their rise and cuts.
  unsigned node_level(uint64_t key) const;
  void raise_node(const PendingMad& p, Clock::time_point now);
  void stop_level(uint64_t key, unsigned load);  // node key's cap rises no more, below load (ours there) where load >= 2
  unsigned proc_level(uint64_t key) const;
  // fn(key) for each processor p visits (its destination's first); head:
  // its hybrid head's key as given (hold: the one it was counted in with).
  template <class Fn>
  void each_proc(const PendingMad& p, Fn fn) const;
  template <class Fn>
  void each_proc(const PendingMad& p, uint64_t head, Fn fn) const;
  void raise_procs(const PendingMad& p, double rtt_us, Clock::time_point now);
  void cut_procs(const PendingMad& p, Clock::time_point now);
  Clock::duration settle_time() const;  // FlowLimits::proc_settle round trips

  // --- a loss, a reply, the window (flow.cpp) --------------------------------
  // p lost (timed out, overtaken, or answered BUSY): the caps on its way
  // cut (cut_caps; a MAD no cap holds: none), the window cut.
  void on_loss(const PendingMad& p, Clock::time_point now);
  void cut_caps(const PendingMad& p, Clock::time_point now);
  // p answered: the caps' rise on its evidence (raise_caps), its round
  // trip measured (time_smp, time_gmp: a MAD sent once only, Karn), the
  // window opened.
  void on_reply(PendingMad& p, Clock::time_point now);
  void raise_caps(const PendingMad& p, bool smp, Clock::time_point now);
  void time_smp(const PendingMad& p, Clock::time_point now);
  void time_gmp(const PendingMad& p, Clock::time_point now);
  bool delay_paced() const;  // FlowLimits::delay_rise paces the widening
  // The window (AIMD): halved by a loss (once a round trip: not again for
  // MADs sent before the last cut), opened by an answer (by one below
  // ssthresh, by 1/window above).
  void cut_window(const PendingMad& p, Clock::time_point now);
  void open_window();
  // FlowLimits::window_grow: the window full at its top, MADs waiting for
  // it, a window of replies since the last step: the local round trip
  // timed (window_probe_done judges it).
  void step_window();
  // More SMP replies came by hybrid routes than by plain directed routes
  // through a switch: the node caps, which hold a hybrid head's tails,
  // guard the processors, more than the shares that widen
  // (FlowLimits::window_undo, window_widening).
  bool tails_lead() const { return tail_replies_ > dr_replies_; }
  bool keeps_up() const;  // the window may step: the caps lifted on the round trips' evidence, or held (window_held)
  void window_probe_done(bool answered, double us);

  // --- timeouts and order (flowtime.cpp) -------------------------------------
  // FlowLimits::overtakes: p was answered; those sent before it on its
  // route and still out were overtaken (lost once overtakes times).
  void overtake(const PendingMad& p, Clock::time_point now);
  // The first round trip of a class measured: MADs of that class out on
  // their first send, whose timeouts were the IBA's bound for want of it,
  // time out after the round trip's instead (smp: every SMP; else cls).
  void rearm(bool smp, uint8_t cls);
  void learn_class_port_info(const PendingMad& p, const uint8_t* rep);
  int timeout_cap_ms(uint64_t dest, uint8_t mgmt_class, uint16_t dlid) const;
  int bound_ms(const IBPath& path, uint8_t mgmt_class) const;  // the path's own bound, else timeout_cap_ms

  // --- what the round trips say (flowrtt.cpp) --------------------------------
  void judge_step(const PendingMad& p, double ratio, Clock::time_point now);  // FlowLimits::delay_rise, watch_rtt
  bool answered_by_ca(const PendingMad& p);  // FlowLimits::rtt_by_kind: p's node is a CA (learned from NodeInfo)
  // The window's steps, just undone, asked again after `next` replies (set
  // to retry x the first size the first time, doubled each time); retry
  // <= 0: ended for good.
  void steps_again(double retry, uint64_t& next);
  void narrow_caps(Clock::time_point now);  // FlowLimits::watch_rtt: round trips rose
  bool time_local_path();                   // Engine::send_local_probe, counted
  void measure_visits();
  void note_gap(const PendingMad& p, Clock::time_point now);  // FlowLimits::time_shares: the answer time

  Engine& engine_;
  std::span<PendingMad* const> slots_;  // the engine's, by slot
  MadLine& line_;                       // the engine's
  const unsigned max_;                  // the slots: the hard maximum (-o)
  FlowLimits lim_;
  FlowStats fs_;
  // The window (AIMD): its first size, the top it may open to now
  // (FlowLimits::window_grow: start_ up to max_), the replies since its
  // last step, its steps stopped (a loss).
  const unsigned start_;
  double cwnd_ = 0, ssthresh_ = 0;
  double top_ = 0;
  uint64_t top_replies_ = 0, top_wait_ = 0;  // ... and how many it waits for before the next
  bool top_stopped_ = false;
  uint64_t top_retry_ = 0;
  uint64_t loss_retry_ = 0;  // replies before the steps are asked again after the next loss (FlowLimits::loss_retry)  // replies before the steps are asked again after the next undoing (FlowLimits::window_retry)
  Clock::time_point cut_at_{};  // the window was last cut for MADs sent before this
  // The SMPs' round trips, and a GMP class's (the SA's apart, whose answers
  // take as long as their tables: issue 35), by class: a PMA's drop is
  // resent after them, not after the IBA's bound (2.1 s where
  // SubnetTimeOut is 19).
  Rtt smp_rtt_;
  std::unordered_map<uint8_t, Rtt> gmp_rtt_;
  uint64_t canon(uint64_t k) const;  // k resolved through alias_
  std::unordered_map<uint64_t, uint64_t> alias_;     // a LID's (or another route's) key -> the node's DR key
  std::unordered_map<uint64_t, uint8_t> resp_time_;  // node key (or GMP class+LID) -> RespTimeValue
  std::optional<uint8_t> subnet_timeout_;
  // Order (FlowLimits::overtakes): each slot's MAD's destination key as
  // issued (stale once the slot is free), up to the highest slot issued
  // (its size bounds every scan of the slots): overtake compares these, one
  // cache line per 8 slots, and looks at a MAD only where its key matches
  // (the test bed's walk: 64 in flight, a reply every 12 us).  A send
  // taken as lost by order was answered after all: this fabric (or host)
  // does not answer in order, and order is judged no more.
  std::vector<uint64_t> slot_dest_;
  bool reorders_ = false;
  // The caps: SMPs in flight by node / processor (while tracking_;
  // smi_share: in 1/SHARE_UNIT of a processor), and the MADs waiting for a
  // full cap, by its key (linked through PendingMad::next).
  std::unordered_map<uint64_t, uint16_t> to_node_;
  std::unordered_map<uint64_t, uint32_t> at_proc_;
  std::unordered_map<uint64_t, MadLine> parked_;
  // Keys an urgent MAD waiting for a cap holds (IBPath::urgent; how many:
  // PendingMad::urgent_keys): no other MAD that would count there goes
  // before it.  A MAD that needs a larger share of a processor than the
  // node's own queries (a probe's two forwards beside its PortInfos)
  // would else wait until none of those is left.
  std::unordered_map<uint64_t, uint16_t> urgent_at_;
  // Urgent MADs in flight (counted while the caps hold), and node key's
  // cap with FlowLimits::probe_room kept free while there are some.
  unsigned urgent_out_ = 0;
  void release_urgent(PendingMad& p);  // p issued: the keys it held are free (urgent_at_)
  unsigned room_cap(unsigned cap, uint64_t key) const {
    if (!lim_.probe_room || !urgent_out_ || cap < 2 + lim_.probe_room || ca_dest_.count(key)) return cap;
    return cap - lim_.probe_room;
  }
  bool tracking_ = false;  // the caps hold (counts kept) now
  // Least DR round trip (us) by processor visits (2h-1), and what it says.
  std::array<double, 16> rtt_min_us_;
  std::array<uint32_t, 16> rtt_n_;
  // ... and of answers by a CA's SMA (FlowLimits::rtt_by_kind): the
  // nodes that said so in their NodeInfo (their keys), and the least
  // round trip to them by processor visits.
  std::unordered_set<uint64_t> ca_dest_;
  std::array<double, 16> rtt_ca_min_us_;
  // ... and of LID-routed SMPs, answered by a switch [0] or a CA [1]
  // (FlowLimits::node_least_slack; 0: none yet).
  std::array<double, 2> lid_min_us_{};
  double visit_us_ = -1;
  bool lost_smp_ = false;  // an SMP timed out: the caps hold from now on
  uint64_t smp_replies_ = 0;
  uint64_t tail_replies_ = 0, dr_replies_ = 0;  // ... of hybrid routes, of plain ones through a switch (window_widening)
  double scale_ = 1;                  // the caps widened (FlowLimits::grow)
  Clock::time_point next_grow_at_{};  // not widened again before this
  // FlowLimits::delay_rise: the current step (from step_at_) and what its
  // round trips say; the least mean of the steps before; widening stopped.
  Clock::time_point step_at_{};
  double step_sum_ = 0;
  unsigned step_n_ = 0;
  // FlowLimits::step_whole: the step's number (PendingMad::step of those
  // it judges), how many it took and how many of those ended.
  uint32_t step_gen_ = 0;
  unsigned step_tagged_ = 0, step_ended_ = 0;
  void new_step(Clock::time_point now);
  unsigned step_samples() const { return std::max(1u, lim_.delay_samples); }  // SMPs a step is judged on
  double base_delay_ = 0;
  bool grow_stopped_ = false;
  // ... and the local port's round trip that judges a step (its least,
  // us; the step's mean ratio and mean it judges; tries so far; whether
  // it is out; whether it is for narrow_caps, not a step).
  double local_min_us_;
  double judged_mean_ = 0;
  double judged_abs_ = 0;
  unsigned local_tries_ = 0;
  bool probe_out_ = false;
  bool probe_for_window_ = false;  // ... for the window's step (step_window), not the caps'
  bool narrowing_ = false;
  // Issue 35: the node caps after losses (0: FlowLimits::node_cap), the
  // processor caps' last cut, caps held again after longer round trips.
  unsigned node_cut_ = 0, pm_cut_ = 0;
  Clock::time_point proc_cut_at_{};
  bool caps_back_ = false;
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
  // FlowLimits::time_shares' estimates (us; -1 unknown) and, by node, the
  // last reply (time, and when that SMP was sent); the last reply gaps.
  double forward_us_ = -1, answer_us_ = -1;
  struct LastReply {
    Clock::time_point at, sent_at;
  };
  std::unordered_map<uint64_t, LastReply> last_reply_;
  std::array<double, 32> gaps_{};
  uint64_t gap_n_ = 0;
};

// -v: one line on stderr with what the engine's flow control saw
// ("I: flow: N MADs sent, T timeouts (D dropped, L late), R resent, B busy,
// H held at a busy node, window W..X of M, rtt Y ms"); nothing without -v
// or when no MAD was sent.
void report_flow(const FlowStats& f);

}  // namespace ibcore
