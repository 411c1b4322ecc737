// Task<T>: the coroutine type of the MAD scheduler (core/rpc/sched.h).
//
//   ibcore::Task<uint64_t> node_guid(ibcore::Scheduler& s, const ibcore::IBPath& p) {
//     auto ni = co_await s.SubnGet<iba::SMPNodeInfo>(p);
//     co_return ni.nodeGUID();
//   }
//   ibcore::Task<> walk(ibcore::Scheduler& s, ...) {
//     uint64_t g = co_await node_guid(s, path);   // a call: runs to completion
//     ...
//   }
//
// A Task is lazy: it starts when awaited (or when spawned on a scheduler),
// and hands its result or exception to whoever awaits it, exactly like a
// function call.  Awaiting resumes the caller by symmetric transfer, so deep
// call chains do not grow the stack.
#pragma once

#include <coroutine>
#include <cstddef>
#include <new>
#include <exception>
#include <optional>
#include <utility>

namespace ibcore {

template <class T = void>
class Task;

namespace detail {

struct FinalAwait {
  bool await_ready() const noexcept { return false; }
  template <class P>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
    auto c = h.promise().continuation;
    return c ? c : std::noop_coroutine();
  }
  void await_resume() const noexcept {}
};

// Coroutine frames come from per-thread free lists by size (64-byte
// classes up to 2 kB; larger frames from operator new): a discovery creates
// and ends a few frames per MAD, and glibc's malloc/free for each was a
// seventh of its instructions.  A frame freed goes back to its thread's
// list and is reused by the next frame of that size; the lists keep at most
// what was once alive at the same time.
inline thread_local void* frame_lists[32] = {};
inline void* frame_alloc(size_t n) {
  size_t c = (n + 63) / 64 - 1;
  if (c >= 32) return ::operator new(n);
  if (void* p = frame_lists[c]) {
    frame_lists[c] = *static_cast<void**>(p);
    return p;
  }
  return ::operator new((c + 1) * 64);
}
inline void frame_free(void* p, size_t n) noexcept {
  size_t c = (n + 63) / 64 - 1;
  if (c >= 32) {
    ::operator delete(p);
    return;
  }
  *static_cast<void**>(p) = frame_lists[c];
  frame_lists[c] = p;
}

struct PromiseBase {
  static void* operator new(size_t n) { return frame_alloc(n); }
  static void operator delete(void* p, size_t n) noexcept { frame_free(p, n); }
  std::coroutine_handle<> continuation;
  std::exception_ptr error;
  std::suspend_always initial_suspend() const noexcept { return {}; }
  FinalAwait final_suspend() const noexcept { return {}; }
  void unhandled_exception() noexcept { error = std::current_exception(); }
};

template <class T>
struct Promise : PromiseBase {
  std::optional<T> value;
  Task<T> get_return_object() noexcept;
  template <class U>
  void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
  T take() {
    if (error) std::rethrow_exception(error);
    return std::move(*value);
  }
};

template <>
struct Promise<void> : PromiseBase {
  Task<void> get_return_object() noexcept;
  void return_void() noexcept {}
  void take() {
    if (error) std::rethrow_exception(error);
  }
};

}  // namespace detail

template <class T>
class [[nodiscard]] Task {
public:
  using promise_type = detail::Promise<T>;
  using value_type = T;

  Task() = default;
  explicit Task(std::coroutine_handle<promise_type> h) : h_(h) {}
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      if (h_) h_.destroy();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() {
    if (h_) h_.destroy();
  }

  bool valid() const { return bool(h_); }
  bool done() const { return h_ && h_.done(); }

  // co_await task: start it, resume us with its result when it finishes.
  auto operator co_await() && noexcept {
    struct Awaiter {
      std::coroutine_handle<promise_type> h;
      bool await_ready() const noexcept { return !h || h.done(); }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<> caller) noexcept {
        h.promise().continuation = caller;
        return h;
      }
      T await_resume() { return h.promise().take(); }
    };
    return Awaiter{h_};
  }
  auto operator co_await() & noexcept { return std::move(*this).operator co_await(); }

  // For the scheduler: the raw handle (ownership stays with the Task).
  std::coroutine_handle<promise_type> handle() const { return h_; }
  // The result of a finished task (rethrows its exception).
  T result() { return h_.promise().take(); }

private:
  std::coroutine_handle<promise_type> h_;
};

namespace detail {
template <class T>
Task<T> Promise<T>::get_return_object() noexcept {
  return Task<T>(std::coroutine_handle<Promise<T>>::from_promise(*this));
}
inline Task<void> Promise<void>::get_return_object() noexcept {
  return Task<void>(std::coroutine_handle<Promise<void>>::from_promise(*this));
}
}  // namespace detail

}  // namespace ibcore
