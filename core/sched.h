// The parallel MAD scheduler (python-rdma's MADSchedule, seeds/002 §5.4),
// with C++20 coroutines (core/task.h) as the scheduling element:
//
//   ibcore::Umad umad(ep.ca, ep.port);
//   ibcore::Scheduler sched(umad);                   // bound: config().outstanding
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
#pragma once

#include <coroutine>
#include <cstdint>
#include <deque>
#include <exception>
#include <utility>
#include <vector>

#include "core/rpc.h"
#include "core/task.h"

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

class Scheduler {
public:
  // max_outstanding: MADs in flight at once (0 = config().outstanding, or 64).
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
  // Drive every spawned task (and what they spawn) to completion.
  void run();

  // Tasks alive / waiting to start.
  size_t live() const { return live_; }
  size_t waiting() const { return pending_.size(); }

  // --- async RPCs (co_await them) -----------------------------------------
  MadAwait<std::vector<uint8_t>> call(const MadRequest& req, IBPath path) {
    return {*this, req, std::move(path), [](std::span<const uint8_t> r) { return std::vector<uint8_t>(r.begin(), r.end()); }};
  }

#define IBCORE_ARPC(Name, lo, hi, meth)                                                          \
  template <class T>                                                                             \
  MadAwait<T> Name(IBPath path, uint32_t amod = 0, const T* payload = nullptr) {                 \
    return {*this, make_request<T>(lo, hi, meth, payload, amod), std::move(path),                 \
            &MadTransactor::decode<T>};                                                          \
  }                                                                                              \
  template <class T>                                                                             \
  MadAwait<T> Name(const T& payload, IBPath path, uint32_t amod = 0) {                           \
    return {*this, make_request<T>(lo, hi, meth, &payload, amod), std::move(path),                \
            &MadTransactor::decode<T>};                                                          \
  }
  IBCORE_ARPC(SubnGet, iba::mgmt::SUBN_LID_ROUTED, iba::mgmt::SUBN_LID_ROUTED, iba::method::GET)
  IBCORE_ARPC(SubnSet, iba::mgmt::SUBN_LID_ROUTED, iba::mgmt::SUBN_LID_ROUTED, iba::method::SET)
  IBCORE_ARPC(PerformanceGet, iba::mgmt::PERF, iba::mgmt::PERF, iba::method::GET)
  IBCORE_ARPC(PerformanceSet, iba::mgmt::PERF, iba::mgmt::PERF, iba::method::SET)
  IBCORE_ARPC(BMGet, iba::mgmt::BM, iba::mgmt::BM, iba::method::GET)
  IBCORE_ARPC(BMSet, iba::mgmt::BM, iba::mgmt::BM, iba::method::SET)
  IBCORE_ARPC(DevMgtGet, iba::mgmt::DEV_MGT, iba::mgmt::DEV_MGT, iba::method::GET)
  IBCORE_ARPC(DevMgtSet, iba::mgmt::DEV_MGT, iba::mgmt::DEV_MGT, iba::method::SET)
  IBCORE_ARPC(SNMPGet, iba::mgmt::SNMP, iba::mgmt::SNMP, iba::method::GET)
  IBCORE_ARPC(CCGet, iba::mgmt::CC, iba::mgmt::CC, iba::method::GET)
  IBCORE_ARPC(CCSet, iba::mgmt::CC, iba::mgmt::CC, iba::method::SET)
  IBCORE_ARPC(VendGet, iba::mgmt::VENDOR_MIN, iba::mgmt::VENDOR_OUI_MAX, iba::method::GET)
  IBCORE_ARPC(VendSet, iba::mgmt::VENDOR_MIN, iba::mgmt::VENDOR_OUI_MAX, iba::method::SET)
#undef IBCORE_ARPC

  // SA (the path is required: build it once with MadTransactor::sa_path()
  // or sa_path() below).
  template <class T>
  MadAwait<T> SubnAdmGet(const T& query, uint64_t comp_mask, const IBPath& sa, uint32_t amod = 0) {
    return {*this, make_request<T>(iba::mgmt::SUBN_ADM, iba::mgmt::SUBN_ADM, iba::method::GET, &query, amod, comp_mask),
            sa, &MadTransactor::decode<T>};
  }
  template <class T>
  MadAwait<SATable<T>> SubnAdmGetTable(const T& query, uint64_t comp_mask, const IBPath& sa, uint32_t amod = 0) {
    return {*this,
            make_request<T>(iba::mgmt::SUBN_ADM, iba::mgmt::SUBN_ADM, iba::method::GET_TABLE, &query, amod, comp_mask),
            sa, [](std::span<const uint8_t> rep) {
              SARecords s = sa_split_records(rep);
              SATable<T> out;
              out.truncated = s.truncated;
              for (auto r : s.records) {
                T t;
                t.load(r);
                out.records.push_back(t);
              }
              return out;
            }};
  }
  IBPath sa_path() const;

  // internal (MadAwait and the root task frames)
  void make_ready(std::coroutine_handle<> h) { ready_.push_back(h); }
  struct Root;
  void root_done(std::exception_ptr e);

private:
  void start_pending();

  MadEngine eng_;
  std::deque<Task<>> pending_;
  std::deque<std::coroutine_handle<>> ready_;
  size_t live_ = 0;
  std::exception_ptr first_error_;
};

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
