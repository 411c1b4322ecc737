// The flow control alone (core/rpc/flow.h FlowControl): no engine, no
// transport, no clock.  A small bed does the engine's part (a slot per
// MAD, the events in the order MadEngine gives them) and every time is
// an explicit point, so each figure below follows from the mechanism by
// hand: the window opens on answers and is cut once per round trip of
// losses; a node's cap comes down below the MADs lost with others there,
// to 1; a MAD still out when `overtakes` later ones on its route were
// answered is taken as lost, and order is judged no more once such a MAD
// is answered after all; a GMP's timeout comes from its class's own round
// trips, within the IBA's bound, and MADs out before the first are timed
// again.  The engine with its flow control on a virtual-clock fabric:
// flow_control_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "core/rpc/flow.h"
#include "core/rpc/madbuild.h"
#include "iba/mad.h"

// (A namespace of its own: the test programs compile as unity builds.)
namespace flowunit {

using namespace ibcore;
using std::chrono::microseconds;
using std::chrono::milliseconds;

namespace {

const Clock::time_point T0 = Clock::time_point(std::chrono::seconds(1));

// The engine's part, done by hand: what FlowControl::Engine is asked is
// recorded.
struct Bed : FlowControl::Engine {
  std::vector<PendingMad*> slots;
  MadLine line;
  FlowControl flow;
  std::vector<PendingMad*> retried, retimed;
  unsigned probes = 0;
  uint64_t send_no = 0;

  bool local = false;  // send_local_probe sends (the test answers it: local_probe_done)

  explicit Bed(unsigned n, unsigned start = 0) : slots(n, nullptr), flow(*this, slots, line, start) {}

  bool send_local_probe() override {
    ++probes;
    return local;
  }
  void retime(PendingMad& q) override { retimed.push_back(&q); }
  void retry(PendingMad& q) override {
    retried.push_back(&q);
    --q.tries_left;
    out(q);
  }

  // p (its path and class set) takes a free slot and is sent at `at`, as
  // MadEngine::submit, issue and send_one do.
  void send(PendingMad& p, Clock::time_point at) {
    p.dest = flow.key_of(*p.path, madhdr::class_of(p.req.data()));
    flow.sync_caps();
    for (uint32_t s = 0; s < slots.size(); ++s)
      if (!slots[s]) {
        p.slot = s;
        break;
      }
    slots[p.slot] = &p;
    flow.issued(p);
    again(p, at);
  }
  // p sent again from its slot (MadEngine::send_one).
  void again(PendingMad& p, Clock::time_point at) {
    ++p.sends;
    if (p.adaptive_timeout) p.timeout_ms = flow.timeout_ms(p);
    p.sent_at = at;
    p.send_no = send_no++;
    flow.sending(p);
  }
  // The cap p waits for now (0: none), p not sent yet.
  uint64_t blocker(PendingMad& p) {
    p.dest = flow.key_of(*p.path, madhdr::class_of(p.req.data()));
    return flow.blocker(p);
  }
  void out(PendingMad& p) {
    slots[p.slot] = nullptr;
    flow.released(p);
  }
  void answer(PendingMad& p, Clock::time_point at) {
    flow.answered(p, p.req.data(), at);
    out(p);
  }
  void time_out(PendingMad& p, Clock::time_point at) {
    flow.timed_out(p, at);
    out(p);
  }
};

// The caps held from the first SMP, the processor caps off: the node
// caps alone.
void node_caps_only(Bed& b) {
  b.flow.limits().caps_from_start = true;
  b.flow.limits().smi_cap = 0;
}
// A MAD of class cls on path (which must outlive it), with 4 tries.
void make(PendingMad& p, const IBPath& path, uint8_t cls = iba::mgmt::SUBN_LID_ROUTED) {
  p.path = &path;
  iba::MADHeader::set_mgmtClass_at(p.req.data(), cls);
  p.tries_left = 4;
}

IBPath lid(uint16_t l) {
  IBPath p;
  p.DLID = l;
  return p;
}

IBPath dr(std::vector<uint8_t> hops) {
  IBPath p;
  p.drPath = std::move(hops);
  return p;
}

// The local round trip the flow control asked for (Engine::send_local_probe),
// sent at `sent` and answered at `at` by a CA's port.
void answer_local(Bed& b, PendingMad& q, Clock::time_point sent, Clock::time_point at) {
  q.sent_at = sent;
  q.rep = {};
  q.rep_len = iba::MAD_SIZE;  // (a NodeInfo of node type 0: not a switch's)
  q.error = nullptr;
  b.flow.local_probe_done(q, at);
}

// A bed (its slots, the window's first size) whose local round trips are
// answered by the test, with the paths and MADs its SMPs use and the time
// they are at.  (The paths are reserved: each MAD points at its own.)
struct Latency {
  Bed b;
  std::vector<IBPath> paths;
  std::vector<PendingMad> m;
  Clock::time_point t = T0;

  explicit Latency(unsigned slots, unsigned start = 0) : b(slots, start) {
    b.local = true;
    paths.reserve(2000);
  }

  // A fabric that keeps up with the window's first size: the local port's
  // least round trip measured (20 us), and the caps' widening, paced by the
  // round trips (one window of one SMP, by 16), gone all the way at once
  // with no loss and no rise: the caps lifted.
  void keep_up() {
    FlowLimits& lim = b.flow.limits();
    lim.start_replies = 1;
    lim.delay_samples = 1;
    lim.delay_grow = lim.lift_scale;
    paths.push_back(dr({0}));     // the local port
    paths.push_back(dr({0, 1}));  // a switch one hop away
    m.resize(2);
    make(m[0], paths[0]);
    b.send(m[0], T0);
    b.answer(m[0], T0 + microseconds(20));  // (the first reply: the caps' first step begins)
    make(m[1], paths[1]);
    b.send(m[1], T0 + microseconds(20));
    b.answer(m[1], T0 + microseconds(60));  // (its round trips judged: widened to lift_scale)
    EXPECT_FALSE(b.flow.stats().caps);
    t = T0 + microseconds(100);
  }

  // n SMPs to nodes of their own, each sent at t and answered 100 us later
  // (t moves on); the window's line holds one MAD waiting (the window, not a
  // cap, holds MADs back).
  void replies(size_t n) {
    static PendingMad waiting;
    if (b.line.empty()) b.line.push_back(waiting);
    const size_t first = m.size();
    paths.reserve(paths.size() + n);
    m.reserve(m.size() + n);  // (no MAD moves while out: they go one at a time)
    for (size_t i = 0; i < n; ++i) {
      paths.push_back(lid(uint16_t(100 + first + i)));
      m.emplace_back();
      make(m.back(), paths.back());
      b.send(m.back(), t);
      b.answer(m.back(), t + microseconds(100));
      t += microseconds(1);
    }
  }
};

}  // namespace

// The window starts at the slots, is halved by a loss (once for the MADs
// sent before the cut: one round trip's losses are one signal), grows by
// 1/window an answer above the threshold (40 answers: one MAD more), and is halved again by a loss of a MAD sent after the cut.
TEST(FlowUnit, WindowOpensOnAnswersAndIsCutOnLoss) {
  Bed b(64);
  b.flow.limits().node_cap = b.flow.limits().smi_cap = 0;  // (the window alone)
  EXPECT_EQ(b.flow.window(), 64u);
  std::vector<IBPath> paths;
  for (uint16_t l = 0; l < 200; ++l) paths.push_back(lid(uint16_t(10 + l)));
  std::vector<PendingMad> m(200);
  for (size_t i = 0; i < 3; ++i) {
    make(m[i], paths[i]);
    b.send(m[i], T0);
  }
  b.time_out(m[0], T0 + milliseconds(100));
  EXPECT_EQ(b.flow.window(), 32u);
  b.time_out(m[1], T0 + milliseconds(101));  // (sent before the cut)
  EXPECT_EQ(b.flow.window(), 32u);
  b.answer(m[2], T0 + milliseconds(102));
  EXPECT_EQ(b.flow.window(), 32u);  // (32 + 1/32)
  Clock::time_point t = T0 + milliseconds(200);
  for (size_t i = 3; i < 3 + 40; ++i) {
    make(m[i], paths[i]);
    b.send(m[i], t);
    t += microseconds(10);
    b.answer(m[i], t);
  }
  EXPECT_EQ(b.flow.window(), 33u);  // (33.26)
  const FlowStats st = b.flow.stats();
  EXPECT_EQ(st.window_lo, 32u);
  EXPECT_EQ(st.timeouts, 2u);
  make(m[50], paths[50]);
  b.send(m[50], t);
  b.time_out(m[50], t + milliseconds(100));
  EXPECT_EQ(b.flow.window(), 16u);
}

// Four SMPs out to one node (node_cap 4), the fourth lost: lost with three
// others of ours there, the node's queue holds fewer, and the node cap
// comes down to 3; one lost with one other there brings it to 1, and a
// second MAD to that node then waits while one is out.
TEST(FlowUnit, NodeCapComesDownOnLossesToOne) {
  Bed b(64);
  b.flow.limits().node_cap = 4;
  b.flow.limits().node_start = 0;  // (every node at node_cap from the start)
  b.flow.limits().caps_from_start = true;
  const IBPath to5 = lid(5);
  std::vector<PendingMad> m(8);
  for (auto& p : m) make(p, to5);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(b.blocker(m[i]), 0u);
    b.send(m[i], T0);
    EXPECT_EQ(m[i].dest_load, i + 1);
  }
  EXPECT_NE(b.blocker(m[4]), 0u);  // (the fifth waits)
  b.time_out(m[3], T0 + milliseconds(100));
  EXPECT_EQ(b.flow.stats().node_cap, 3u);
  for (size_t i = 0; i < 3; ++i) b.answer(m[i], T0 + milliseconds(101));
  b.send(m[4], T0 + milliseconds(200));
  b.send(m[5], T0 + milliseconds(200));
  EXPECT_EQ(m[5].dest_load, 2u);
  b.time_out(m[5], T0 + milliseconds(300));
  EXPECT_EQ(b.flow.stats().node_cap, 1u);
  EXPECT_NE(b.blocker(m[6]), 0u);  // m[4] is out
  b.answer(m[4], T0 + milliseconds(301));
  EXPECT_EQ(b.blocker(m[6]), 0u);
}

// FlowLimits::head_counts: the probes whose directed tail leaves the
// switch of LID 7 (hybrid routes: LID-routed to it, one directed hop out)
// are taken in turn by its processor, so its node cap holds them with the
// SMPs it answers: at its first cap of 2, two tails out, a third waits, and
// so does a PortInfo to the switch itself.  A tail lost with 2 of ours
// there brings that cap to 1.  Without head_counts they count only by
// their processor shares (none here: smi_cap 0).
TEST(FlowUnit, HybridHeadHoldsItsTailsInItsNodeCap) {
  auto tail = [](uint8_t port) {
    IBPath p;
    p.DLID = 7;
    p.drSLID = 1;
    p.drPath = {0, port};
    return p;
  };
  const IBPath t1 = tail(1), t2 = tail(2), t3 = tail(3), to7 = lid(7);
  // Three tails and a PortInfo to the head, on a bed whose caps hold from
  // the first SMP and whose processor caps are off; the first two sent.
  struct Run {
    Bed b{64};
    PendingMad m1, m2, m3, pi;
    Run(const IBPath* t[3], const IBPath& head, bool on) {
      node_caps_only(b);
      b.flow.limits().head_counts = on;
      make(m1, *t[0]);
      make(m2, *t[1]);
      make(m3, *t[2]);
      make(pi, head);
      b.send(m1, T0);
      b.send(m2, T0);
    }
  };
  const IBPath* tails[3] = {&t1, &t2, &t3};
  for (bool on : {true, false}) {
    SCOPED_TRACE(on);
    Run r(tails, to7, on);
    EXPECT_EQ(r.b.blocker(r.m3) != 0, on);
    EXPECT_EQ(r.b.blocker(r.pi) != 0, on);
    if (on) {
      EXPECT_EQ(r.b.blocker(r.m3), r.b.flow.key_of(to7, iba::mgmt::SUBN_LID_ROUTED));
    }
    r.b.answer(r.m1, T0 + microseconds(100));
    EXPECT_EQ(r.b.blocker(r.m3), 0u);
  }
  // The cut: a tail lost with the other out there brings the cap to 1.
  Run r(tails, to7, true);
  EXPECT_EQ(r.m1.head_load, 1u);
  EXPECT_EQ(r.m2.head_load, 2u);
  r.b.time_out(r.m2, T0 + milliseconds(30));
  EXPECT_NE(r.b.blocker(r.m3), 0u);  // (m1 out: the cap is 1 now)
  r.b.answer(r.m1, T0 + milliseconds(31));
  EXPECT_EQ(r.b.blocker(r.m3), 0u);
  r.b.send(r.m3, T0 + milliseconds(31));
  EXPECT_NE(r.b.blocker(r.pi), 0u);
}

// FlowLimits::node_least_slack: a node whose every answer waits one
// service behind someone else's SMP (the SM's) has a least round trip
// that queued itself, so an answer as slow as that least does not show
// its cap's worth was taken without queueing.  Node 5 answers alone in
// 100 us; node 6 in 200 us each time, the second of its two SMPs (sent
// while the first was out) as well.  Judged against its own least, node
// 6's cap rises from 2 to 3 (a third SMP goes while two are out); judged
// also against 1.5 x the least of LID-routed answers (150 us), it stays 2.
// That least is of SMAs' answers only: where node 5's answer of 100 us
// was its PMA's to a read (another agent's round trip), node 6's rises.
TEST(FlowUnit, ANodesLeastThatQueuedItselfRaisesNoCap) {
  const IBPath to5 = lid(5), to6 = lid(6);
  struct Case {
    double slack;
    bool pma, held;
  };
  for (const Case c : {Case{0.0, false, false}, Case{0.5, false, true}, Case{0.5, true, false}}) {
    SCOPED_TRACE(c.slack);
    SCOPED_TRACE(c.pma);
    Bed b(64);
    node_caps_only(b);
    b.flow.limits().node_least_slack = c.slack;
    std::vector<PendingMad> m(6);
    make(m[0], to5, c.pma ? iba::mgmt::PERF : iba::mgmt::SUBN_LID_ROUTED);
    for (size_t i = 1; i < m.size(); ++i) make(m[i], to6);
    b.send(m[0], T0);
    b.answer(m[0], T0 + microseconds(100));
    const Clock::time_point t1 = T0 + microseconds(200);
    b.send(m[1], t1);
    b.send(m[2], t1 + microseconds(100));
    EXPECT_EQ(m[2].dest_load, 2u);
    b.answer(m[1], t1 + microseconds(200));
    b.answer(m[2], t1 + microseconds(300));
    const Clock::time_point t2 = t1 + milliseconds(1);
    b.send(m[3], t2);
    b.send(m[4], t2);
    EXPECT_EQ(b.blocker(m[5]) != 0, c.held);
  }
}

// FlowLimits::pma_counts: node 5's SMA answers in 100 us, its PMA in
// 1 ms.  Once both are known, a PMA read out counts within the node's cap
// (2): with one read and one SMP out, a second SMP waits, and the read's
// answer frees it.  Before the PMA had answered, its first read counted
// at the PMA only.  Off (0): the SMPs never wait for the PMA's reads.
TEST(FlowUnit, ASlowPmasReadsCountAtItsNode) {
  const IBPath to5 = lid(5);
  for (double counts : {2.0, 0.0}) {
    SCOPED_TRACE(counts);
    Bed b(64);
    node_caps_only(b);
    b.flow.limits().pma_counts = counts;
    PendingMad s0, s1, s2, s3, g0, g1;
    for (PendingMad* p : {&s0, &s1, &s2, &s3}) make(*p, to5);
    for (PendingMad* p : {&g0, &g1}) make(*p, to5, iba::mgmt::PERF);
    b.send(s0, T0);
    b.answer(s0, T0 + microseconds(100));
    b.send(g0, T0 + microseconds(200));
    b.send(s1, T0 + microseconds(200));
    EXPECT_EQ(b.blocker(s3), 0u);  // (the PMA not heard from yet)
    b.answer(s1, T0 + microseconds(300));
    b.answer(g0, T0 + microseconds(1200));
    const Clock::time_point t1 = T0 + milliseconds(2);
    b.send(g1, t1);
    b.send(s2, t1);
    EXPECT_EQ(b.blocker(s3) != 0, counts > 0);
    b.answer(g1, t1 + milliseconds(1));
    EXPECT_EQ(b.blocker(s3), 0u);
  }
}

// IBPath::urgent: the line keeps urgent MADs first, in their order, and
// the rest behind them in theirs.
TEST(FlowUnit, UrgentMadsGoFirstInLineInTheirOrder) {
  IBPath plain = lid(5), urgent = lid(6);
  urgent.urgent = true;
  MadLine line;
  std::vector<PendingMad> m(5);
  for (size_t i : {0, 3}) m[i].path = &plain;
  for (size_t i : {1, 2, 4}) m[i].path = &urgent;
  for (auto& p : m) line.push(p);
  std::vector<PendingMad*> order;
  while (!line.empty()) order.push_back(&line.pop_front());
  EXPECT_EQ(order, (std::vector<PendingMad*>{&m[1], &m[2], &m[4], &m[0], &m[3]}));
}

// A probe whose directed tail leaves the switch of LID 7 needs two thirds
// of its processor (2 of its 3 visits: smi_share, by visits), so with one
// of the switch's own PortInfos out (a whole processor's share) it waits
// (1 + 2/3 > 1.5), while a second PortInfo may go (the destination takes
// node_cap of its own share).  Not urgent, the PortInfos would keep going
// before it until none is left; urgent, it is not overtaken where it
// waits (it holds every processor it would count at until it is issued),
// and once the first is answered it is first in line and fits.
TEST(FlowUnit, AnUrgentMadIsNotOvertakenWhereItWaits) {
  IBPath tail;
  tail.DLID = 7;
  tail.drSLID = 1;
  tail.drPath = {0, 3};
  const IBPath to7 = lid(7);
  for (bool urgent : {false, true}) {
    SCOPED_TRACE(urgent);
    Bed b(64);
    b.flow.limits().caps_from_start = true;
    b.flow.limits().urgent_first = true;
    b.flow.limits().head_counts = false;  // (the processor's shares alone)
    IBPath probe_path = tail;
    probe_path.urgent = urgent;
    PendingMad pi1, pi2, probe;
    make(pi1, to7);
    make(pi2, to7);
    make(probe, probe_path);
    b.send(pi1, T0);
    const uint64_t at7 = b.flow.key_of(to7, iba::mgmt::SUBN_LID_ROUTED);
    probe.dest = b.flow.key_of(probe_path, iba::mgmt::SUBN_LID_ROUTED);
    EXPECT_TRUE(b.flow.wait_for_cap(probe));  // (parked at the switch)
    EXPECT_EQ(b.blocker(pi2), urgent ? at7 : 0u);
    b.answer(pi1, T0 + microseconds(100));
    ASSERT_FALSE(b.line.empty());
    EXPECT_EQ(b.line.head, &probe);
    EXPECT_EQ(b.blocker(b.line.pop_front()), 0u);
    b.send(probe, T0 + microseconds(100));  // (issued: the switch is free for the rest)
    EXPECT_EQ(b.blocker(pi2), 0u);
  }
}

// FlowLimits::probe_room: while a probe (an urgent MAD) is out, a node
// keeps one of its cap of 3 free for a neighbour's probe, which no cap can
// count: two PortInfos to the switch of LID 7 go, a third waits.  With no
// probe out, or without the room, it goes.
TEST(FlowUnit, ANodeKeepsRoomForProbesWhileProbesAreOut) {
  IBPath probe_path = dr({0, 1, 2});
  probe_path.urgent = true;
  const IBPath to7 = lid(7);
  for (unsigned room : {1u, 0u}) {
    SCOPED_TRACE(room);
    Bed b(64);
    FlowLimits& lim = b.flow.limits();
    lim.caps_from_start = true;
    lim.node_cap = 3;
    lim.node_start = 0;  // (every node at node_cap from the start)
    lim.smi_cap = 0;     // (the node caps alone)
    lim.probe_room = room;
    PendingMad probe, pi[3];
    make(probe, probe_path);
    for (auto& p : pi) make(p, to7);
    b.send(probe, T0);
    b.send(pi[0], T0);
    b.send(pi[1], T0);
    EXPECT_EQ(b.blocker(pi[2]) != 0, room == 1);
    b.answer(probe, T0 + microseconds(100));
    EXPECT_EQ(b.blocker(pi[2]), 0u);
  }
}

// Four SMPs on one route: the first is still out when the second and the
// third are answered, so it was lost (overtakes 2): retried at once and
// counted.  Its first send's reply comes after all (late): this fabric
// reorders, and from then on a MAD overtaken twice is left to its timeout.
TEST(FlowUnit, OrderTakesAMadAsLostUntilALateReply) {
  Bed b(64);
  ASSERT_EQ(b.flow.limits().overtakes, 2u);
  b.flow.limits().node_cap = b.flow.limits().smi_cap = 0;  // (order alone)
  const IBPath to5 = lid(5), to6 = lid(6);
  std::vector<PendingMad> m(8);
  for (auto& p : m) make(p, to5);
  make(m[7], to6);
  for (size_t i = 0; i < 4; ++i) b.send(m[i], T0 + microseconds(i));
  b.send(m[7], T0 + microseconds(5));  // (another route: not judged with them)
  b.answer(m[1], T0 + microseconds(100));
  EXPECT_TRUE(b.retried.empty());
  EXPECT_EQ(m[0].overtaken, 1u);
  b.answer(m[2], T0 + microseconds(150));
  ASSERT_EQ(b.retried.size(), 1u);
  EXPECT_EQ(b.retried[0], &m[0]);
  EXPECT_EQ(m[7].overtaken, 0u);
  EXPECT_EQ(b.flow.stats().overtaken, 1u);
  EXPECT_FALSE(b.flow.stats().reorders);
  // m[0] sent again; the reply to its first send comes late.
  b.send(m[0], T0 + microseconds(160));
  b.flow.late(m[0]);
  EXPECT_TRUE(b.flow.stats().reorders);
  EXPECT_EQ(b.flow.stats().late, 1u);
  b.answer(m[0], T0 + microseconds(200));
  // m[3] out, two sent after it answered: judged no more.
  b.send(m[4], T0 + microseconds(210));
  b.send(m[5], T0 + microseconds(220));
  b.answer(m[4], T0 + microseconds(300));
  b.answer(m[5], T0 + microseconds(350));
  EXPECT_EQ(b.retried.size(), 1u);
  EXPECT_EQ(m[3].overtaken, 0u);
  EXPECT_EQ(b.flow.stats().overtaken, 1u);
}

// A PMA's GMP whose path carries no bound: before any round trip of its
// class its timeout is the IBA's bound (none known: default_timeout_ms);
// the first answer (8 ms) makes it the class's RTO (8 + 4 x 4 = 24 ms),
// and times again the GMPs of that class out on their first send at the
// bound; an SMP's round trips leave it as it is; a resend's doubles, and
// round trips longer than the bound give the bound.
TEST(FlowUnit, GmpTimeoutFromItsClassRoundTripsWithinTheBound) {
  Bed b(64);
  FlowLimits& lim = b.flow.limits();
  lim.min_timeout_ms = 1;  // (the RTO itself, not the floor)
  const uint8_t PERF = iba::mgmt::PERF;
  std::vector<IBPath> paths = {lid(10), lid(11), lid(12), lid(13)};
  EXPECT_EQ(b.flow.computed_timeout_ms(paths[0], PERF), lim.default_timeout_ms);
  std::vector<PendingMad> g(4);
  for (size_t i = 0; i < 4; ++i) {
    make(g[i], paths[i], PERF);
    g[i].adaptive_timeout = true;
  }
  b.send(g[0], T0);
  b.send(g[1], T0);
  EXPECT_EQ(g[1].timeout_ms, lim.default_timeout_ms);
  // An SMP's answer: the SMPs' round trips, not the PMA's.
  const IBPath to5 = lid(5);
  PendingMad s;
  make(s, to5);
  b.send(s, T0);
  b.answer(s, T0 + milliseconds(2));
  EXPECT_EQ(b.flow.computed_timeout_ms(paths[0], PERF), lim.default_timeout_ms);
  EXPECT_TRUE(b.retimed.empty());
  b.answer(g[0], T0 + milliseconds(8));
  EXPECT_EQ(b.flow.computed_timeout_ms(paths[0], PERF), 24);
  // (g[0] itself is still in its slot: its timer too, as in the engine.)
  EXPECT_NE(std::find(b.retimed.begin(), b.retimed.end(), &g[1]), b.retimed.end());
  EXPECT_EQ(g[1].timeout_ms, 24);
  // Its resend waits twice as long (RFC 6298's back-off).
  b.again(g[1], T0 + milliseconds(40));
  EXPECT_EQ(g[1].timeout_ms, 48);
  b.answer(g[1], T0 + milliseconds(41));  // (a second send: Karn, not a round trip)
  EXPECT_EQ(b.flow.computed_timeout_ms(paths[0], PERF), 24);
  // Round trips of 5 s: the bound (1000 ms) holds.
  b.send(g[2], T0 + milliseconds(50));
  b.answer(g[2], T0 + milliseconds(5050));
  b.send(g[3], T0 + milliseconds(5100));
  b.answer(g[3], T0 + milliseconds(10100));
  EXPECT_EQ(b.flow.computed_timeout_ms(paths[0], PERF), lim.default_timeout_ms);
}

// The flow control reads the engine's slots only up to the highest one
// issued: the engine makes them as it uses them (a single-MAD command pays
// for one slot, not 256: docs/performance.md, start-up).  Slot 200, never
// issued, holds what an unmade slot might: the first answer of a class,
// which times again the MADs of that class out on their first send
// (rearm), passes it by.
TEST(FlowUnit, OnlyTheSlotsIssuedAreRead) {
  Bed b(256);
  FlowLimits& lim = b.flow.limits();
  lim.min_timeout_ms = 1;
  const uint8_t PERF = iba::mgmt::PERF;
  const IBPath to10 = lid(10), to11 = lid(11);
  PendingMad g, unmade;
  make(g, to10, PERF);
  make(unmade, to11, PERF);
  g.adaptive_timeout = unmade.adaptive_timeout = true;
  unmade.sends = 1;
  unmade.timeout_ms = lim.default_timeout_ms;
  unmade.slot = 200;
  b.slots[200] = &unmade;
  b.send(g, T0);
  ASSERT_EQ(g.slot, 0u);
  b.answer(g, T0 + milliseconds(8));
  EXPECT_LT(b.flow.computed_timeout_ms(to11, PERF), lim.default_timeout_ms);  // (a class's round trip known)
  // (g itself, still in its slot, is timed again, as in the engine.)
  EXPECT_EQ(b.retimed, std::vector<PendingMad*>{&g});
  EXPECT_EQ(unmade.timeout_ms, lim.default_timeout_ms);
  b.slots[200] = nullptr;
}

// The window beyond its first size (FlowLimits::window_grow): 256 slots, a
// window of 64 (the engine's default when -o gives none).  A fabric that
// keeps up, a window's worth of replies with MADs waiting for the window:
// the local round trip is timed, and answered within 1.5x its least (25 us
// against 20) the window's top doubles, and the window grows by one a reply
// up to it; the pools' size (MadEngine::max_outstanding) follows the top.
// A loss brings it back to 64, and the steps are asked again after 4
// windows of replies without a loss (FlowLimits::loss_retry); with
// loss_retry 0, never again.
TEST(FlowUnit, WindowOpensBeyondItsFirstSizeOnLatency) {
  for (double retry : {4.0, 0.0}) {
    SCOPED_TRACE(retry);
    Latency l(256, 64);
    Bed& b = l.b;
    b.flow.limits().loss_retry = retry;
    EXPECT_EQ(b.flow.window(), 64u);
    EXPECT_EQ(b.flow.top(), 64u);
    l.keep_up();
    Clock::time_point& t = l.t;
    l.replies(62);
    EXPECT_EQ(b.probes, 0u);
    l.replies(1);  // (the 64th reply, the one that lifted the caps the first)
    ASSERT_EQ(b.probes, 1u);
    PendingMad q;
    answer_local(b, q, t, t + microseconds(25));
    EXPECT_EQ(b.flow.top(), 128u);
    EXPECT_EQ(b.flow.window(), 64u);
    EXPECT_TRUE(b.flow.stats().caps);  // (beyond the first size the caps hold)
    l.replies(10);
    EXPECT_EQ(b.flow.window(), 74u);
    l.replies(54 + 128);  // (up to 128, then a window of replies at it)
    ASSERT_EQ(b.probes, 2u);
    answer_local(b, q, t, t + microseconds(20));
    EXPECT_EQ(b.flow.top(), 256u);
    l.replies(200);
    EXPECT_EQ(b.flow.window(), 256u);
    EXPECT_EQ(b.probes, 2u);  // (at the hard maximum: asked no more)
    EXPECT_EQ(b.flow.stats().window_hi, 256u);
    EXPECT_EQ(b.flow.stats().window_steps, 2u);
    // A loss: back to the first size.
    PendingMad lost;
    make(lost, l.paths[5]);
    b.send(lost, t);
    b.time_out(lost, t + milliseconds(20));
    EXPECT_EQ(b.flow.top(), 64u);
    EXPECT_EQ(b.flow.window(), 64u);
    t += milliseconds(21);
    l.replies(200);
    EXPECT_EQ(b.probes, 2u);
    l.replies(100);
    EXPECT_EQ(b.flow.top(), 64u);
    EXPECT_EQ(b.probes, retry > 0 ? 3u : 2u);
  }
}

// The local round trip rose (60 us against its least of 20: a queue on the
// host's side, where more in flight would only wait): the window stays at
// its first size, and the step is asked again only after twice as many
// replies (128).  With -o (start = the slots) it never opens at all.
TEST(FlowUnit, WindowStaysWhenTheLocalRoundTripRises) {
  Latency l(256, 64);
  Bed& b = l.b;
  l.keep_up();
  Clock::time_point& t = l.t;
  l.replies(63);
  ASSERT_EQ(b.probes, 1u);
  PendingMad q;
  answer_local(b, q, t, t + microseconds(60));
  EXPECT_EQ(b.flow.top(), 64u);
  EXPECT_EQ(b.flow.stats().window_held, 1u);
  l.replies(127);
  EXPECT_EQ(b.probes, 1u);
  l.replies(1);
  ASSERT_EQ(b.probes, 2u);
  answer_local(b, q, t, t + microseconds(60));
  l.replies(300);
  EXPECT_EQ(b.flow.top(), 64u);
  EXPECT_EQ(b.flow.window(), 64u);
  EXPECT_EQ(b.flow.stats().window_hi, 64u);

  Latency o(64);  // (-o 64: the hard maximum and the first size)
  o.keep_up();
  o.replies(500);
  EXPECT_EQ(o.b.probes, 0u);
  EXPECT_EQ(o.b.flow.top(), 64u);
}

namespace {
// A bed whose caps' widening goes by steps of `samples` round trips from
// the first reply (start_replies 1), doubling the caps each (delay_grow
// 2); a rise stops it without a local round trip (local_probes 0).  Its
// SMPs go to nodes of their own two hops away.
struct Steps {
  Bed b{64};
  std::vector<IBPath> paths;
  std::vector<PendingMad> m{16};

  Steps(unsigned samples, bool whole) {
    FlowLimits& lim = b.flow.limits();
    lim.start_replies = 1;
    lim.delay_samples = samples;
    lim.delay_grow = 2;
    lim.local_probes = 0;
    lim.step_whole = whole;
    paths.reserve(m.size());  // (each MAD points at its own path)
  }
  // m[i] sent at `at`.
  void smp(size_t i, Clock::time_point at) {
    paths.push_back(dr({0, 1, uint8_t(2 + i)}));
    make(m[i], paths.back());
    b.send(m[i], at);
  }
  double scale() const { return b.flow.stats().scale; }
};
}  // namespace

// FlowLimits::step_whole: a step of the caps' widening (4 round trips,
// each as a ratio to the least of its route length, 20 us) is judged on
// the first 4 SMPs sent after it, once all 4 ended.  The first step's 4
// answer at once (the baseline: widened to 2).  In the second, three
// answer at once, an SMP sent after them too, and the fourth only at
// 80 us: judged on the first four answered, the step saw no rise (widened
// to 4); judged on its own four, it rose by 1.75x and the widening stops
// (back to 1).
TEST(FlowUnit, AStepIsJudgedOnEverySmpItSent) {
  for (bool whole : {false, true}) {
    SCOPED_TRACE(whole);
    Steps t(4, whole);
    t.smp(0, T0);
    t.b.answer(t.m[0], T0 + microseconds(20));  // (the least; the first step begins)
    for (size_t i = 1; i <= 4; ++i) t.smp(i, T0 + microseconds(30));
    for (size_t i = 1; i <= 4; ++i) t.b.answer(t.m[i], T0 + microseconds(50));
    EXPECT_EQ(t.scale(), 2);
    for (size_t i = 5; i <= 8; ++i) t.smp(i, T0 + microseconds(60));
    for (size_t i = 5; i <= 7; ++i) t.b.answer(t.m[i], T0 + microseconds(80));
    t.smp(9, T0 + microseconds(85));
    t.b.answer(t.m[9], T0 + microseconds(105));
    t.b.answer(t.m[8], T0 + microseconds(140));
    EXPECT_EQ(t.scale(), whole ? 1 : 4);
  }
}

// ... and a step whose last SMP ended unanswered (sent again: its round
// trip judges nothing) is judged at the next answer, on the others.
TEST(FlowUnit, AStepWhoseLastSmpIsLostIsJudgedOnTheOthers) {
  Steps t(2, true);
  t.b.flow.limits().loss_retry = 0;
  t.smp(0, T0);
  t.b.answer(t.m[0], T0 + microseconds(20));
  t.smp(1, T0 + microseconds(30));
  t.smp(2, T0 + microseconds(30));
  t.b.answer(t.m[1], T0 + microseconds(50));
  EXPECT_EQ(t.scale(), 1);         // (one of two ended)
  t.b.out(t.m[2]);                 // (ended unanswered: a resend's answer is not timed)
  t.smp(3, T0 + microseconds(55));  // (after the step's two: not its)
  t.b.answer(t.m[3], T0 + microseconds(75));
  EXPECT_EQ(t.scale(), 2);  // (judged on m[1] alone: no rise)
}

}  // namespace flowunit
