#include "core/rpc/sched.h"

namespace ibcore {

// The frame that runs one spawned task: it owns the task, reports its end
// to the scheduler and frees itself when done.
struct Scheduler::Root {
  struct promise_type {
    Root get_return_object() noexcept { return Root{std::coroutine_handle<promise_type>::from_promise(*this)}; }
    std::suspend_always initial_suspend() const noexcept { return {}; }
    std::suspend_never final_suspend() const noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::terminate(); }  // run() catches everything
  };
  std::coroutine_handle<promise_type> h;
};

namespace {
Scheduler::Root run_root(Scheduler* s, Task<> t, void (*done)(Scheduler*, std::exception_ptr)) {
  std::exception_ptr e;
  try {
    co_await std::move(t);
  } catch (...) {
    e = std::current_exception();
  }
  done(s, e);
}
}  // namespace

Scheduler::~Scheduler() = default;

void Scheduler::spawn(Task<> task) {
  if (!task.valid()) return;
  pending_.push_back(std::move(task));
}

void Scheduler::spawn_now(Task<> task) {
  if (task.valid()) start(std::move(task));
}

void Scheduler::start(Task<> task) {
  ++live_;
  Root r = run_root(this, std::move(task), [](Scheduler* s, std::exception_ptr e) { s->root_done(e); });
  ready_.push_back(r.h);
}

void Scheduler::root_done(std::exception_ptr e) {
  --live_;
  if (e && !first_error_) first_error_ = e;
}

void Scheduler::start_pending() {
  // Keep enough tasks alive to fill the MAD window twice over, so there is
  // always work queued when replies come back, without holding every
  // spawned task's frame at once.
  size_t cap = size_t(eng_.max_outstanding()) * 2 + 16;
  while (!pending_.empty() && live_ < cap) {
    Task<> t = std::move(pending_.front());
    pending_.pop_front();
    start(std::move(t));
  }
}

void Scheduler::run() {
  for (;;) {
    start_pending();
    while (!ready_.empty()) {
      auto h = ready_.front();
      ready_.pop_front();
      h.resume();
      if (ready_.empty()) start_pending();
    }
    // (Done when every task is, and nothing the engine sent for itself is
    // still out: the local round trip of its flow control.)
    if (live_ == 0 && pending_.empty() && eng_.in_flight() == 0) break;
    if (eng_.in_flight() == 0 && eng_.queued() == 0) {
      if (live_ == 0) continue;  // pending tasks to start
      throw Error("internal: scheduler tasks are waiting on nothing");
    }
    eng_.pump(-1);
  }
  if (first_error_) std::rethrow_exception(std::exchange(first_error_, nullptr));
}

IBPath Scheduler::sa_path() const { return default_sa_path(const_cast<MadEngine&>(eng_).transport()); }

}  // namespace ibcore
