// The parallel MAD scheduler (python-rdma's MADSchedule, seeds/002 §5.4),
// with C++20 coroutines (core/rpc/task.h) as the scheduling element:
//
//   ibcore::Umad umad(ep.ca, ep.port);
//   ibcore::Scheduler sched(umad);                   // bound: umad.settings().outstanding
//   std::map<uint16_t, iba::SMPNodeInfo> out;
//   auto one = [&](uint16_t lid) -> ibcore::Task<> {
//     ibcore::IBPath p; p.DLID = lid;
//     try { out[lid] = co_await sched.SubnGet<iba::SMPNodeInfo>(p); }
//     catch (const ibcore::MADError&) { /* that LID did not answer */ }
//   };
//   for (uint16_t l = 1; l < 100; ++l) sched.spawn(one(l));
//   sched.run();       // every task to completion, MADs in flight bounded
//
// Inside a task, `co_await sched.<RPC>(...)` sends the MAD and suspends the
// task until the reply: it returns the decoded attribute or throws the
// MADError (timeout, error status) at that point, like the sync call.
// `co_await other_task(...)` is a function call.  spawn() runs a task
// concurrently.  Lambdas that are coroutines must not capture by value
// (the lambda object dies before the task runs): capture by reference or
// pass arguments.
//
// Tasks run on the thread calling run(), one at a time; no locking needed.
// Paths are copied into the pending request, so temporaries are fine.
//
// Threads: the scheduler, its tasks and the MadEngine under it belong to
// one thread; nothing here is locked.  Work that must not hold up the MAD
// window (dump_fts formatting 12M rows) goes to a thread of its own that
// tasks hand finished results to through a queue with its own lock
// (cmd/dump_fts.cpp TablePrinter); that thread never touches the
// scheduler, the transport or the subnet being filled.
//
// Building blocks for many queries at once, so no command writes its own
// pool of workers:
//   parallel_for(sched, n, workers, fn)   fn(i) for i in [0, n), at most
//                                          `workers` running at once
//   WorkQueue<Item> q(sched, workers, fn) a queue that grows while it is
//                                          worked (a walk finding more to ask)
//   TurnQueue<Item> q(sched, workers, fn) the same, its items taken in turns
//                                          over the nodes they query, one
//                                          node's at a time (core/rpc/turns.h)
#pragma once

#include <algorithm>
#include <coroutine>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "core/rpc/rpc.h"
#include "core/rpc/task.h"
#include "core/rpc/turns.h"

namespace ibcore {

class Scheduler;

// The awaitable of one RPC: holds the request and its path (taken by
// value: a temporary path is moved in, so a MAD costs no allocation beyond
// a DR path's hop list) and turns the reply into R.
template <class R>
class MadAwait {
public:
  using Decoder = R (*)(std::span<const uint8_t>);
  MadAwait(Scheduler& s, const MadRequest& req, IBPath path, Decoder dec);
  MadAwait(const MadAwait&) = delete;
  MadAwait& operator=(const MadAwait&) = delete;

  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h);
  R await_resume() { return dec_(check_reply(p_)); }

private:
  Scheduler& s_;
  IBPath path_;
  PendingMad p_;
  Decoder dec_;
  std::coroutine_handle<> h_;
};

class Scheduler : public RpcVerbs<Scheduler> {
public:
  // max_outstanding: MADs in flight at once (0 = t.settings().outstanding,
  // or 64).
  explicit Scheduler(Transport& t, unsigned max_outstanding = 0) : eng_(t, max_outstanding) {}
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;
  ~Scheduler();

  MadEngine& engine() { return eng_; }
  Transport& transport() { return eng_.transport(); }

  // Run task concurrently with the others.  Tasks are started in spawn
  // order as capacity allows (not all at once, so spawning 50k tasks does
  // not hold 50k frames mid-flight).  An exception escaping a spawned task
  // is kept; run() rethrows the first one after everything finished.
  void spawn(Task<> task);
  // Run task concurrently, started now whatever the capacity: a task the
  // others wait on (the discovery walk's route trials: the walk's plain
  // routes take turns until one answers, and those waiting hold the
  // capacity spawn() starts tasks in).
  void spawn_now(Task<> task);
  // Drive every spawned task (and what they spawn) to completion.
  void run();

  // Tasks alive / waiting to start.
  size_t live() const { return live_; }
  size_t waiting() const { return pending_.size(); }

  // --- async RPCs (co_await them) -----------------------------------------
  MadAwait<std::vector<uint8_t>> call(const MadRequest& req, IBPath path) {
    return {*this, req, std::move(path), [](std::span<const uint8_t> r) { return std::vector<uint8_t>(r.begin(), r.end()); }};
  }

  // RpcVerbs' mode (core/rpc/rpc.h: SubnGet, PerformanceGet, SubnAdmGetTable,
  // ... are declared there once): the awaitable that sends the request and
  // decodes its reply.
  template <class R>
  MadAwait<R> execute(const MadRequest& req, IBPath&& path, R (*dec)(std::span<const uint8_t>)) {
    return {*this, req, std::move(path), dec};
  }

  // The path SubnAdm* calls take when given none (default_sa_path).
  IBPath sa_path() const;

  // internal (MadAwait and the root task frames)
  void make_ready(std::coroutine_handle<> h) { ready_.push_back(h); }
  struct Root;
  void root_done(std::exception_ptr e);

private:
  void start_pending();
  void start(Task<> task);  // task running now, counted alive

  MadEngine eng_;
  std::deque<Task<>> pending_;
  std::deque<std::coroutine_handle<>> ready_;
  size_t live_ = 0;
  std::exception_ptr first_error_;
};

// --- waiting for a result another task computes ----------------------------------------

// A one-shot event: tasks co_await ev.wait() until some task calls
// ev.set(sched) once; then they all go on (in the order they waited), and
// a wait after that does not suspend.  For a result computed once and shared
// by every asker (a path asked of the SA, a table being read).
class Event {
public:
  bool is_set() const { return set_; }
  void set(Scheduler& s);
  auto wait() {
    struct Awaiter {
      Event& e;
      bool await_ready() const noexcept { return e.set_; }
      void await_suspend(std::coroutine_handle<> h) { e.waiters_.push_back(h); }
      void await_resume() const noexcept {}
    };
    return Awaiter{*this};
  }

private:
  bool set_ = false;
  std::vector<std::coroutine_handle<>> waiters_;
};

// --- bounded pools of workers -----------------------------------------------------

// Spawn workers (at most `workers`, at least 1) that call fn(i) for every i
// in [0, n), each awaited in turn: the queries of n items with a bounded
// number of coroutine frames alive, whatever n is.  fn must outlive
// sched.run() (capture it by reference); it is called in index order.
namespace detail {
template <class Fn>
struct ForState {
  size_t next, n;
  Fn& fn;
};
template <class Fn>
Task<> for_worker(std::shared_ptr<ForState<Fn>> st) {
  while (st->next < st->n) co_await st->fn(st->next++);
}
}  // namespace detail

template <class Fn>
void parallel_for(Scheduler& sched, size_t n, unsigned workers, Fn& fn) {
  auto state = std::make_shared<detail::ForState<Fn>>(detail::ForState<Fn>{0, n, fn});
  for (size_t w = 0; w < std::max(1u, workers) && w < n; ++w) sched.spawn(detail::for_worker(state));
}

// A queue of work items that can grow while it is worked: push() queues an
// item and starts a worker when fewer than max_workers run; a worker takes
// items in FIFO order until none is left, awaiting work(item) for each.
// Items pushed with later = true wait in a second queue that workers take
// from only when the first is empty (background work that must never hold
// up the main work: discovery's table blocks behind its walk).  work is
// called on the scheduler's thread; the queue must outlive sched.run().
// grow(): a worker taking an item while more wait and `room()` says the
// MAD window has room starts another, up to a second, larger cap (the
// walk's steps; TurnQueue's the exporter's reads ahead of its walk: few
// workers while the walk keeps the window busy, more once it leaves room).
template <class Item>
class WorkQueue {
public:
  using Work = std::function<Task<>(Item)>;
  WorkQueue(Scheduler& s, unsigned max_workers, Work work)
      : s_(s), max_workers_(std::max(1u, max_workers)), work_(std::move(work)) {}
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void push(Item it, bool later = false) {
    (later ? later_ : now_).push_back(std::move(it));
    if (workers_ < max_workers_) {
      ++workers_;
      s_.spawn(worker());
    }
  }
  // Items waiting (not yet taken by a worker).
  size_t waiting() const { return now_.size(); }
  void grow(unsigned max_workers, std::function<bool()> room) {
    grow_max_ = max_workers;
    room_ = std::move(room);
  }

private:
  Task<> worker() {
    while (!now_.empty() || !later_.empty()) {
      auto& q = now_.empty() ? later_ : now_;
      Item it = std::move(q.front());
      q.pop_front();
      if (room_ && (!now_.empty() || !later_.empty()) && workers_ < grow_max_ && room_()) {
        ++workers_;
        s_.spawn(worker());
      }
      co_await work_(std::move(it));
    }
    --workers_;
  }

  Scheduler& s_;
  unsigned max_workers_;
  unsigned workers_ = 0;
  Work work_;
  std::deque<Item> now_, later_;
  unsigned grow_max_ = 0;
  std::function<bool()> room_;
};

// A WorkQueue whose items are taken in turns over the nodes they query
// (push(node, item); core/rpc/turns.h), and at most one item of a node at
// a time: its next waits until work(item) returned.  The fabric counter
// scan's PM reads: a switch's ports' reads, queued together, go one at a
// time to its PMA, in turn with every other PMA's, so no PMA gets a burst
// of them (however small its queue) and the window fills with reads to as
// many PMAs.  grow() as WorkQueue's (a cap it raised stays raised).
template <class Item>
class TurnQueue {
public:
  using Work = std::function<Task<>(Item)>;
  TurnQueue(Scheduler& s, unsigned max_workers, Work work)
      : s_(s), cap_(std::max(1u, max_workers)), work_(std::move(work)), q_(1) {}
  TurnQueue(const TurnQueue&) = delete;
  TurnQueue& operator=(const TurnQueue&) = delete;

  void push(uint32_t node, Item it) {
    q_.push(node, std::move(it));
    fill();
  }
  // Items waiting (not yet taken by a worker).
  size_t waiting() const { return q_.size(); }
  void grow(unsigned max_workers, std::function<bool()> room) {
    grow_max_ = max_workers;
    room_ = std::move(room);
  }
  // Up to max_workers at once from now on, room or not (the walk that
  // shared the window is over).
  void widen(unsigned max_workers) {
    cap_ = std::max(cap_, max_workers);
    fill();
  }

private:
  // A worker leaves when no node's item can be taken (the others' next
  // items wait for the ones in progress), so workers are started again
  // whenever items can be taken, up to the cap, which grow() raised and
  // which stays raised.
  void fill() {
    for (size_t ready = q_.ready_nodes(); ready > 0 && workers_ < cap_; --ready) {
      ++workers_;
      s_.spawn(worker());
    }
  }
  Task<> worker() {
    while (q_.ready()) {
      uint32_t node = 0;
      Item it = q_.pop(&node);
      if (room_ && q_.ready() && cap_ < grow_max_ && room_()) ++cap_;
      fill();
      co_await work_(std::move(it));
      q_.done(node);
    }
    --workers_;
  }

  Scheduler& s_;
  unsigned cap_;  // workers at most: max_workers, raised by grow()
  unsigned workers_ = 0;
  Work work_;
  RoundRobin<Item> q_;
  unsigned grow_max_ = 0;
  std::function<bool()> room_;
};

inline void Event::set(Scheduler& s) {
  set_ = true;
  for (auto h : waiters_) s.make_ready(h);
  waiters_.clear();
}

template <class R>
MadAwait<R>::MadAwait(Scheduler& s, const MadRequest& req, IBPath path, Decoder dec)
    : s_(s), path_(std::move(path)), dec_(dec) {
  p_.req_len = build_mad(p_.req.data(), req, path_, 0);
  p_.path = &path_;
}

template <class R>
void MadAwait<R>::await_suspend(std::coroutine_handle<> h) {
  h_ = h;
  p_.ctx = this;
  p_.on_done = [](PendingMad*, void* ctx) {
    auto* self = static_cast<MadAwait*>(ctx);
    self->s_.make_ready(self->h_);
  };
  s_.engine().submit(p_);
}

}  // namespace ibcore
