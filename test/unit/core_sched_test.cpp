// The coroutine scheduler against a fake transport: concurrency bounded by
// the outstanding limit, replies in any order, nested tasks, errors through
// co_await, spawn from inside tasks, many tasks.
#include <gtest/gtest.h>

#include <map>

#include "core/base/config.h"
#include "core/rpc/sched.h"
#include "core_fake_transport.h"
#include "iba/smp.h"

using namespace ibcore;
using coretest::FakeTransport;
using coretest::Sent;

namespace {

// Answers NodeInfo with nodeGUID = DLID, but holds replies back until the
// client waits for them (so everything the scheduler issues before waiting
// is in flight at once); LIDs above `dead` never answer.
struct Fabric {
  FakeTransport t;
  std::vector<Sent> held;
  uint16_t dead = 0xffff;
  size_t max_in_flight = 0;
  Scheduler* sched = nullptr;

  Fabric() {
    t.shuffle = true;
    t.responder = [this](FakeTransport&, const Sent& s) {
      if (sched) max_in_flight = std::max(max_in_flight, sched->engine().in_flight());
      if (s.path.DLID > dead) return;
      held.push_back(s);
    };
    t.on_idle = [this](FakeTransport& f) { flush(f); };
  }
  void flush(FakeTransport& f) {
    for (auto& s : held) {
      iba::SMPNodeInfo ni;
      ni.set_nodeGUID(0x100000 + s.path.DLID).set_numPorts(s.path.DLID % 7);
      f.reply(s, 0, ni.raw(), ni.SIZE);
    }
    held.clear();
  }
};

Task<uint64_t> guid_of(Scheduler& s, uint16_t lid) {
  IBPath p;
  p.DLID = lid;
  auto ni = co_await s.SubnGet<iba::SMPNodeInfo>(p);
  co_return ni.nodeGUID();
}

Task<> fetch(Scheduler& s, uint16_t lid, std::map<uint16_t, uint64_t>& out, int& errors) {
  try {
    out[lid] = co_await guid_of(s, lid);  // a nested task
  } catch (const MADTimeoutError&) {
    ++errors;
  }
}

}  // namespace

TEST(CoreSched, ManyConcurrentBounded) {
  Fabric fab;
  Scheduler s(fab.t, 16);
  fab.sched = &s;
  std::map<uint16_t, uint64_t> out;
  int errors = 0;
  for (uint16_t lid = 1; lid <= 1000; ++lid) s.spawn(fetch(s, lid, out, errors));
  s.run();
  ASSERT_EQ(out.size(), 1000u);
  for (auto& [lid, g] : out) EXPECT_EQ(g, 0x100000u + lid);
  EXPECT_EQ(errors, 0);
  EXPECT_EQ(fab.max_in_flight, 16u);
  EXPECT_EQ(fab.t.sent.size(), 1000u);
}

TEST(CoreSched, TimeoutsPropagateThroughAwait) {
  Fabric fab;
  fab.t.settings().timeout_ms = 20;
  fab.t.settings().retries = 1;
  fab.dead = 10;  // LIDs 11.. never answer
  Scheduler s(fab.t, 8);
  std::map<uint16_t, uint64_t> out;
  int errors = 0;
  auto t0 = Clock::now();
  for (uint16_t lid = 1; lid <= 20; ++lid) s.spawn(fetch(s, lid, out, errors));
  s.run();
  EXPECT_EQ(out.size(), 10u);
  EXPECT_EQ(errors, 10);
  EXPECT_EQ(fab.t.sent.size(), 10u + 10u * 2u);
  // The dead ones time out in parallel, not one after the other.
  EXPECT_LT(Clock::now() - t0, std::chrono::milliseconds(400));
}

TEST(CoreSched, UncaughtErrorRethrownByRun) {
  Fabric fab;
  fab.t.settings().timeout_ms = 10;
  fab.t.settings().retries = 0;
  fab.dead = 0;
  Scheduler s(fab.t);
  bool after = false;
  auto t = [](Scheduler& s, bool& after) -> Task<> {
    co_await guid_of(s, 5);
    after = true;
  };
  s.spawn(t(s, after));
  EXPECT_THROW(s.run(), MADTimeoutError);
  EXPECT_FALSE(after);
}

TEST(CoreSched, SpawnFromTasksAndDRWalk) {
  // A "discovery": every node at DLID n has children 2n and 2n+1 below 64;
  // each task spawns its children.
  Fabric fab;
  Scheduler s(fab.t, 4);
  std::vector<uint16_t> seen;
  struct Walk {
    static Task<> node(Scheduler& s, uint16_t lid, std::vector<uint16_t>& seen) {
      uint64_t g = co_await guid_of(s, lid);
      seen.push_back(uint16_t(g - 0x100000));
      for (uint16_t c : {uint16_t(2 * lid), uint16_t(2 * lid + 1)})
        if (c < 64) s.spawn(node(s, c, seen));
    }
  };
  s.spawn(Walk::node(s, 1, seen));
  s.run();
  std::sort(seen.begin(), seen.end());
  ASSERT_EQ(seen.size(), 63u);
  for (uint16_t i = 0; i < 63; ++i) EXPECT_EQ(seen[i], i + 1);
}

TEST(CoreSched, TaskResultsAndExceptionsLikeCalls) {
  Fabric fab;
  Scheduler s(fab.t);
  int sum = 0;
  auto add = [](int a, int b) -> Task<int> { co_return a + b; };
  auto thrower = []() -> Task<int> {
    throw Error("boom");
    co_return 0;
  };
  auto top = [](Scheduler& s, int& sum, auto add, auto thrower) -> Task<> {
    sum = co_await add(2, 3);
    sum += int(co_await guid_of(s, 4) - 0x100000);
    try {
      co_await thrower();
    } catch (const Error& e) {
      sum += 100;
    }
  };
  s.spawn(top(s, sum, add, thrower));
  s.run();
  EXPECT_EQ(sum, 109);
}

namespace {

// Event: many tasks wait for one result a MAD brings; they all go on in the
// order they waited once it is set, and a task waiting after that does not
// suspend.
TEST(SchedBlocks, EventWakesEveryWaiterOnce) {
  Fabric f;
  Scheduler s(f.t, 8);
  f.sched = &s;
  Event ev;
  uint64_t guid = 0;
  std::vector<int> order;
  auto waiter = [&](int id) -> Task<> {
    co_await ev.wait();
    order.push_back(id);
  };
  auto setter = [&]() -> Task<> {
    guid = co_await guid_of(s, 7);
    ev.set(s);
  };
  for (int i = 0; i < 3; ++i) s.spawn(waiter(i));
  s.spawn(setter());
  s.run();
  EXPECT_EQ(guid, 0x100007u);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(ev.is_set());
  auto late = [&]() -> Task<> {
    co_await ev.wait();
    order.push_back(9);
  };
  s.spawn(late());
  s.run();
  EXPECT_EQ(order.back(), 9);
}

// spawn_now: a task the others wait on starts at once, even when the
// tasks waiting fill the room spawn() starts tasks in (outstanding x 2 +
// 16: 18 here).  By spawn() it would wait behind them for good: run()
// says so.  (The discovery walk's route trials: plain routes wait for
// their verdict.)
TEST(SchedBlocks, SpawnNowStartsATaskTheOthersWaitOn) {
  for (bool now : {true, false}) {
    SCOPED_TRACE(now);
    Fabric f;
    Scheduler s(f.t, 1);
    f.sched = &s;
    Event ev;
    int woke = 0;
    auto waiter = [&]() -> Task<> {
      co_await ev.wait();
      ++woke;
    };
    auto setter = [&]() -> Task<> {
      ev.set(s);
      co_return;
    };
    // The lambda outlives its coroutine: the coroutine reads its captures.
    auto starter = [&]() -> Task<> {
      if (now) s.spawn_now(setter());
      else s.spawn(setter());
      co_await ev.wait();
      ++woke;
    };
    // 17 waiters and one that starts the setter, then waits too: 18 alive.
    for (int i = 0; i < 17; ++i) s.spawn(waiter());
    s.spawn(starter());
    if (now) {
      s.run();
      EXPECT_EQ(woke, 18);
    } else {
      EXPECT_THROW(s.run(), Error);
      // Set by hand, the waiters end and the setter starts after them.
      ev.set(s);
      s.run();
      EXPECT_EQ(woke, 18);
    }
  }
}

// parallel_for: every index once, never more than `workers` at a time.
TEST(SchedBlocks, ParallelForBoundsItsWorkers) {
  Fabric f;
  Scheduler s(f.t, 64);
  f.sched = &s;
  std::vector<uint64_t> got(100, 0);
  int running = 0, peak = 0;
  auto one = [&](size_t i) -> Task<> {
    peak = std::max(peak, ++running);
    got[i] = co_await guid_of(s, uint16_t(i + 1));
    --running;
  };
  parallel_for(s, got.size(), 5, one);
  s.run();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], 0x100000u + i + 1) << i;
  EXPECT_LE(peak, 5);
  EXPECT_EQ(peak, 5);
}

// WorkQueue: items pushed while it is worked are taken too; "later" items
// only when no other waits.
TEST(SchedBlocks, WorkQueueGrowsAndKeepsLaterItemsBehind) {
  Fabric f;
  Scheduler s(f.t, 64);
  f.sched = &s;
  std::vector<int> done;
  WorkQueue<int>* qp = nullptr;
  WorkQueue<int> q(s, 2, [&](int it) -> Task<> {
    (void)co_await guid_of(s, uint16_t(it % 1000 + 1));
    done.push_back(it);
    if (it < 4) qp->push(it + 10);  // found more to do
  });
  qp = &q;
  q.push(1000, true);  // background
  for (int i = 0; i < 4; ++i) q.push(i);
  s.run();
  ASSERT_EQ(done.size(), 9u);
  EXPECT_EQ(done.back(), 1000) << "the later item waits for every other";
}

// TurnQueue (issue 35): a node's items queued together go one at a time,
// in turn with the other nodes' (no burst at one PMA), each node's in its
// order, items pushed while it is worked too.
TEST(SchedBlocks, TurnQueueTakesOneItemOfANodeAtATimeInTurns) {
  Fabric f;
  Scheduler s(f.t, 64);
  f.sched = &s;
  std::vector<int> started, done;
  std::map<uint32_t, int> at_node;
  int most_at_a_node = 0, most_at_once = 0, at_once = 0;
  TurnQueue<int>* qp = nullptr;
  TurnQueue<int> q(s, 8, [&](int it) -> Task<> {
    const uint32_t node = uint32_t(it / 100);
    started.push_back(it);
    most_at_a_node = std::max(most_at_a_node, ++at_node[node]);
    most_at_once = std::max(most_at_once, ++at_once);
    (void)co_await guid_of(s, uint16_t(node + 1));
    --at_node[node];
    --at_once;
    done.push_back(it);
    if (it == 301) qp->push(4, 400);  // found more to do
  });
  qp = &q;
  for (int k = 0; k < 4; ++k) q.push(1, 100 + k);  // a switch's ports, queued together
  q.push(2, 200);
  for (int k = 0; k < 2; ++k) q.push(3, 300 + k);
  s.run();
  ASSERT_EQ(done.size(), 8u);
  EXPECT_EQ(most_at_a_node, 1) << "one item of a node at a time";
  EXPECT_EQ(most_at_once, 3) << "the three nodes' at once";
  std::vector<int> first3(started.begin(), started.begin() + 3);
  EXPECT_EQ(first3, (std::vector<int>{100, 200, 300}));
  std::vector<int> node1;
  for (int it : started)
    if (it / 100 == 1) node1.push_back(it);
  EXPECT_EQ(node1, (std::vector<int>{100, 101, 102, 103})) << "a node's own items in their order";
}

// TurnQueue::widen: workers beyond the first, without room (the walk
// keeping the window), only once widened (the walk over).
TEST(SchedBlocks, TurnQueueWidensWhenTold) {
  Fabric f;
  Scheduler s(f.t, 64);
  f.sched = &s;
  int at_once = 0, most_before = 0, most_after = 0;
  bool widened = false;
  TurnQueue<int>* qp = nullptr;
  TurnQueue<int> q(s, 2, [&](int it) -> Task<> {
    int& most = widened ? most_after : most_before;
    most = std::max(most, ++at_once);
    (void)co_await guid_of(s, uint16_t(it / 10 + 1));
    --at_once;
    if (it == 11 && !widened) {
      widened = true;
      qp->widen(6);
    }
  });
  qp = &q;
  q.grow(8, [] { return false; });  // (never room)
  for (int node = 1; node <= 10; ++node)
    for (int k = 0; k < 3; ++k) q.push(uint32_t(node), node * 10 + k);
  s.run();
  EXPECT_EQ(most_before, 2);
  EXPECT_EQ(most_after, 6);
}

}  // namespace
