// How the discovery walk (core/fabric/walk.h) asks a node: by each of its
// routes in turn (core/fabric/proberoutes.h Routes: its LID, its directed
// route, another one; a hybrid route that fails is tried again as a plain
// one), asked again while DiscoveryOptions::retry says so, the turns the
// plain routes take while the hybrid form is on trial, and its trials.  Only walk.cpp
// includes it.
#pragma once

#include "core/fabric/walk.h"

namespace ibcore::walk {

// Ask attribute T (modifier amod) of node n by each route Routes::next
// gives from stage `from` on, until one answers.  When the last one fails
// too (and is not to be asked again), the failure goes into the result's
// errors as what() says it, and nullopt is returned.
template <class T, class What>
Task<std::optional<T>> Walk::ask(uint32_t n, unsigned port_hint, int from, uint32_t amod, What what, bool urgent) {
  unsigned retried = 0;
  std::vector<uint8_t> other;
  for (int stage = from;;) {
    bool turn = false;
    if (stage <= 1 && !(stage == 0 && routes_.lid_for(n, port_hint))) {
      const uint32_t at = routes_.parent(n);
      if (routes_.holds(at)) turn = co_await hold_route(at);
    }
    std::optional<IBPath> route = routes_.next(n, port_hint, stage, &other);
    if (!route) {
      if (turn) release_plain();
      break;
    }
    const uint32_t tail = routes_.tail_of(*route);
    try {
      if (urgent) route->urgent = routes_.tails_on();
      T r = co_await s_.SubnGet<T>(std::move(*route), amod);
      if (turn) release_plain();
      if (!other.empty()) routes_.keep(n, std::move(other));
      co_return r;
    } catch (const std::exception& e) {
      if (turn) release_plain();
      if (tail != NO_INDEX && routes_.tail_failed(tail, e)) {
        --stage;  // the same stage again, by a plain route now
        continue;
      }
      if (routes_.last_stage(n, stage)) {
        if (again(e, retried++)) {
          stage = from;
          continue;
        }
        fail(e, what());
      }
    }
  }
  co_return std::nullopt;
}

// Ask attribute T (modifier amod) by the directed route route() makes (made
// again for each try), asked again while DiscoveryOptions::retry says so.
// When it never answers, the failure goes into the result's errors as
// what() says it, and nullopt is returned.  used: the route that answered.
// at: the node the route's last hop leaves (NO_INDEX: none).
template <class T, class Route, class What>
Task<std::optional<T>> Walk::ask_dr(uint32_t at, Route route, uint32_t amod, What what, IBPath* used) {
  for (unsigned retried = 0;;) {
    const bool turn = routes_.holds(at) && co_await hold_route(at);
    IBPath p = route();
    const uint32_t tail = routes_.tail_of(p);
    try {
      if (used) *used = p;
      T r = co_await s_.SubnGet<T>(std::move(p), amod);
      if (turn) release_plain();
      co_return r;
    } catch (const std::exception& e) {
      if (turn) release_plain();
      if (tail != NO_INDEX && routes_.tail_failed(tail, e)) {
        continue;  // again, by a plain route now
      }
      if (again(e, retried++)) continue;
      fail(e, what());
    }
    co_return std::nullopt;
  }
}

inline Task<bool> Walk::hold_route(uint32_t at) {
  struct Turn {
    Walk& w;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) { w.plain_waiting_.push_back(h); }
    void await_resume() const noexcept {}
  };
  bool waited = false;
  for (;;) {
    if (!routes_.defers(at)) break;
    if (plain_ahead_ < PLAIN_AHEAD || s_.engine().queued() == 0) {
      ++plain_ahead_;
      co_return true;
    }
    waited = true;
    co_await Turn{*this};
  }
  // Hybrid routes answered (or failed) while this one waited: the next
  // waiting goes on too.
  if (waited) release_plain(false);
  co_return false;
}

// A plain route that took a turn (hold_route) was answered or failed: the
// next one waiting goes on.
inline void Walk::release_plain(bool held) {
  if (held) --plain_ahead_;
  if (plain_waiting_.empty()) return;
  s_.make_ready(plain_waiting_.front());
  plain_waiting_.pop_front();
}

// A trial of the hybrid route form through switch n (Routes::trial: its
// LID just learned): the NodeInfo of the node behind its port `back`, the
// port it was entered by, known already, so no query waits on it.  It
// counts as answered only from that node.  Its verdict wakes a plain route
// waiting for one (hold_route).  A trial that timed out while the engine
// saw other SMPs lost (a full queue: a queue of 1 behind a busy SM) says
// nothing of the route form: it is sent again, up to TRIAL_AGAIN times.
// (k=8 random-194: both trials dropped there, the walk went on by plain
// routes through 1.1 ms switches and the exporter took 7.4 s, not 0.2.)
inline Task<> Walk::trial(uint32_t n, uint8_t back, IBPath p) {
  const uint32_t peer = db_.port(db_.port_index(n, back)).peer;
  for (unsigned again = 0;; ++again) {
    const uint64_t lost = s_.engine().flow_stats().drops();
    try {
      IBPath q = p;
      const iba::SMPNodeInfo ni = co_await s_.SubnGet<iba::SMPNodeInfo>(std::move(q), 0);
      if (peer != NO_INDEX && ni.nodeGUID() == db_.node(db_.port(peer).node).guid) {
        routes_.trial_answered();
        // Hybrid routes work: the SA's LIDs are worth reading (sa_lids).
        if (opt_.sa_lids && routes_.tails_work() && !sa_asked_ && !discovered_) {
          sa_asked_ = true;
          s_.spawn(sa_lids());
        }
      } else {
        routes_.trial_failed(n, "answered from another node than the one behind the port", false);
      }
    } catch (const MADTimeoutError&) {
      if (!discovered_ && again < TRIAL_AGAIN && s_.engine().flow_stats().drops() > lost) continue;
      routes_.trial_failed(n, "timed out", discovered_);
    } catch (const std::exception& e) {
      routes_.trial_failed(n, std::string("failed (") + e.what() + ")", discovered_);
    }
    break;
  }
  release_plain(false);
}

}  // namespace ibcore::walk
