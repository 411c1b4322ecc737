// The routes the discovery walk (core/fabric/walk.h) reaches a node
// by: its LID, its directed route or another one, and the hybrid form of
// a probe (IBA 14.2.2: LID-routed to a switch, one directed hop on), with
// the trials and fallbacks that decide where the hybrid form is used.
// Only the walk includes it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/fabric/subnet.h"
#include "core/out/log.h"
#include "core/transport/path.h"

namespace ibcore::walkroutes {

// --- the routes to a node ------------------------------------------------------

// How the walk's queries reach a node: by its LID when LID routing is used
// and the LID is known, else by its directed route, else by another one.
class Routes {
public:
  Routes(Subnet& db, uint16_t local_lid) : db_(db), local_lid_(local_lid) {}
  bool use_lid = false;  // LID routing for what is not a probe

  // A directed route: the hops after the local port, plus one more hop
  // when extra >= 0.  Built in place (one allocation) and moved into the
  // MAD (core/rpc/sched.h MadAwait takes its path by value).
  static IBPath dr(const std::vector<uint8_t>& hops, int extra = -1) {
    IBPath p;
    p.drPath.resize(hops.size() + 1 + (extra >= 0 ? 1 : 0), 0);
    std::copy(hops.begin(), hops.end(), p.drPath.begin() + 1);
    if (extra >= 0) p.drPath.back() = uint8_t(extra);
    return p;
  }
  IBPath dr(uint32_t n) const { return dr(db_.node(n).dr); }

  // --- hybrid routes (issue 38) ---------------------------------------------------
  // A directed route whose last hop leaves a switch with a known LID may be
  // a hybrid one (IBA 14.2.2): LID-routed to that switch (DrSLID our LID),
  // then that one hop directed, so the switches on the way forward it in
  // hardware and only that switch's SMI handles it (twice), where a plain
  // directed route is handled twice by the SMI of every switch it passes,
  // the first one behind our port most of all.  Not every SMA routes them
  // (the test bed's simulator drops them), so they are tried first: as soon
  // as a switch beyond the first has its LID, a trial (trial()) asks by a
  // hybrid route what the walk already knows, the node behind the port
  // that switch was entered by, so that no query waits on its verdict.  At
  // most TRIALS go out, through as many switches; until one answers, every
  // route goes plain (Tails::Untried, Trying), and when every one sent
  // timed out, for the rest of the run (Tails::Off).  Once one answered
  // (Tails::Work), a switch where a hybrid route timed out gets plain
  // routes from then on (plain_).
  enum class Tails : uint8_t { Off, Untried, Trying, Work };
  static constexpr unsigned TRIALS = 3;
  void allow_tails(bool on, std::string why) {
    tails_ = on ? Tails::Untried : Tails::Off;
    why_ = std::move(why);
  }
  bool tails_on() const { return tails_ != Tails::Off; }
  bool tails_work() const { return tails_ == Tails::Work; }
  // The LID route to lid.
  IBPath by_lid(uint16_t lid) const {
    IBPath p;
    p.DLID = lid;
    p.SLID = local_lid_;
    return p;
  }
  // The route to the node behind port `last` of node `at`.
  IBPath via(uint32_t at, uint8_t last) {
    if (!tail_from(at)) return dr(db_.node(at).dr, last);
    ++sent_;
    return hybrid(at, last);
  }
  // A trial of the hybrid form through switch at (its LID just learned),
  // out of its port `back` to the node already known behind it, when one
  // is due; nullopt when not.  Sent once, with the least timeout a path
  // asks (100 ms, IBPath::mad_timeout_ms), not the 1000 ms the engine gives
  // a MAD's last try; the flow control does not count its loss as a full
  // queue.  trial_answered() or trial_failed() with its outcome.
  std::optional<IBPath> trial(uint32_t at, uint8_t back) {
    if ((tails_ != Tails::Untried && tails_ != Tails::Trying) || trials_ >= TRIALS || trials_failed_ ||
        !may_tail(at) || std::find(tried_.begin(), tried_.end(), at) != tried_.end())
      return std::nullopt;
    tails_ = Tails::Trying;
    ++trials_;
    tried_.push_back(at);
    IBPath p = hybrid(at, back);
    p.route_trial = true;
    p.urgent = true;
    p.retries = 0;
    p.resp_time = 14;
    p.packet_life_time = 0;
    return p;
  }
  // A trial answered, from the node it was meant for (else it failed:
  // the form is not routed as the IBA says).
  void trial_answered() {
    if (tails_ != Tails::Trying) return;
    tails_ = Tails::Work;
    why_ = "answered";
  }
  // A trial through switch at failed (timed out, or answered from another
  // node: why); abandoned: the walk ended before it came back.  Every
  // trial sent failed: hybrid routes off (the trials go out together, so
  // where nothing routes them this costs no query a timeout).
  void trial_failed(uint32_t at, const std::string& why, bool abandoned) {
    mark_plain(at);
    if (abandoned) {
      if (tails_ == Tails::Trying) why_ = "no trial answered before the walk ended";
      return;
    }
    if (++trials_failed_ == trials_ && tails_ == Tails::Trying) {
      tails_ = Tails::Off;
      why_ = trials_ == 1 ? "the trial " + why : "the first " + std::to_string(trials_) + " " + why;
    }
  }
  // The directed route to node n (hybrid when it may be).
  IBPath directed(uint32_t n) {
    const std::vector<uint8_t>& h = db_.node(n).dr;
    const uint32_t at = parent(n);
    return at == NO_INDEX ? dr(h) : via(at, h.back());
  }
  // The route directed(n) gives now, not counted as sent: what the flow
  // control names the node by while that route is how it is asked.
  IBPath directed_now(uint32_t n) const {
    const std::vector<uint8_t>& h = db_.node(n).dr;
    const uint32_t at = parent(n);
    return at != NO_INDEX && tail_from(at) ? hybrid(at, h.back()) : dr(h);
  }
  // The node node n's directed route leaves by its last hop (NO_INDEX: none,
  // or no hybrid route is tried).
  uint32_t parent(uint32_t n) const {
    const std::vector<uint8_t>& h = db_.node(n).dr;
    if (h.empty() || tails_ == Tails::Off) return NO_INDEX;
    const uint32_t at = db_.port_by_dr(std::span<const uint8_t>(h.data(), h.size() - 1));
    return at == NO_INDEX ? NO_INDEX : db_.port(at).node;
  }
  // Whether a route whose last hop leaves node at goes plain now only
  // because no trial has answered (or none began: no switch beyond the
  // first has its LID yet), and would go hybrid once one does.  The walk
  // keeps few of them out at once (Walk::hold_route): every one passes the
  // first switch twice, which serves one at a time, so more only wait
  // there, and each one built before a trial answered is still sent plain
  // after (on the model, hundreds, which then kept the first switch busy
  // for 20 ms and, with the caps lifted meanwhile, overflowed its queue).
  // They do not wait for the trials' verdict: where nothing routes hybrid
  // SMPs that is a trial's timeout.
  bool defers(uint32_t at) const {
    return (tails_ == Tails::Untried || tails_ == Tails::Trying) && may_tail(at);
  }
  // Whether a route through at waits for its turn before it is made.
  bool holds(uint32_t at) const { return at != NO_INDEX && defers(at); }
  // The switch a hybrid route p starts its directed part at (NO_INDEX: p is plain).
  uint32_t tail_of(const IBPath& p) const {
    if (!p.lid_head()) return NO_INDEX;
    const uint32_t at = db_.port_by_lid(p.DLID);
    return at == NO_INDEX ? NO_INDEX : db_.port(at).node;
  }
  // A hybrid route p through switch at failed with e: true when it is to be
  // asked again by a plain one (it timed out: the route form, or a loss;
  // another failure is the node's answer).
  bool tail_failed(uint32_t at, const std::exception& e) {
    if (!dynamic_cast<const MADTimeoutError*>(&e)) return false;
    mark_plain(at);
    return true;
  }
  // What -v says of the route forms.
  std::string forms() const {
    if (tails_ != Tails::Work) {
      if (tails_ != Tails::Off && trials_ == 0)
        return "directed routes (hybrid routes not tried: no switch beyond the first has a LID)";
      return "directed routes" + (why_.empty() ? std::string() : " (hybrid routes: " + why_ + ")");
    }
    std::string s = "LID routes with a one-hop directed tail (IBA 14.2.2) for probes and queries before a LID: " +
                    std::to_string(sent_) + " sent";
    if (switches_plain_) s += ", directed routes through " + std::to_string(switches_plain_) + " switches where they timed out";
    return s;
  }

  // The LID a query to node n goes to (0: by its DR path).
  uint16_t lid_for(uint32_t n, unsigned port_hint = 0) const {
    const Node& x = db_.node(n);
    if (!use_lid || n == db_.from_node) return 0;
    if (x.is_switch()) return x.smalid;
    if (port_hint && port_hint <= x.nports && db_.port(x, port_hint).has_info) return db_.port(x, port_hint).base_lid;
    return 0;
  }
  // LID routed when allowed and known, else the directed route.
  IBPath to(uint32_t n, unsigned port_hint = 0) const {
    if (uint16_t lid = lid_for(n, port_hint)) return by_lid(lid);
    return dr(n);
  }

  // The routes a query to node n tries, in stages: 0 its LID (when LID
  // routing is used and the LID is known), 1 its directed route, 2 another
  // directed route, through a neighbour known to be linked to it (when the
  // link its own route ends with went away mid-run; a route that works is
  // kept as the node's route: keep()).  The SM's routes can be stale or
  // incomplete (a link that just went away, an SM still sweeping); the
  // directed route is what the walk itself took.  next() gives the path of
  // the first stage from `stage` on that has one, and moves stage past it;
  // nullopt when none is left.  *other is the stage 2 route it gives (left
  // empty for the others), for keep() once it has answered.
  std::optional<IBPath> next(uint32_t n, unsigned port_hint, int& stage, std::vector<uint8_t>* other) {
    other->clear();
    for (; stage <= 2; ++stage) {
      if (stage == 0) {
        if (!lid_for(n, port_hint)) continue;
        ++stage;
        return to(n, port_hint);
      }
      if (stage == 1) {
        ++stage;
        return directed(n);
      }
      auto h = other_route(n);
      if (!h) continue;
      ++stage;
      *other = std::move(*h);
      return dr(*other);
    }
    return std::nullopt;
  }
  // The other route next() gave for node n answered: it is the node's route
  // from now on (its own no longer works).
  void keep(uint32_t n, std::vector<uint8_t> other) { db_.node(n).dr = std::move(other); }
  // Whether the stage just tried (stage - 1) was the last one for node n.
  bool last_stage(uint32_t n, int stage) const { return stage > 2 || (stage == 2 && !other_route(n)); }

private:
  // Whether a hybrid route may leave switch at once they work.
  bool may_tail(uint32_t at) const {
    const Node& x = db_.node(at);
    // (Not the switch behind our port: a plain directed route out of its
    // ports visits it as often, and every plain route passes it.)
    if (tails_ == Tails::Off || !x.is_switch() || !x.smalid || at == db_.from_node || x.dr.size() < 2) return false;
    return at >= plain_.size() || !plain_[at];
  }
  // Whether a route's last hop leaves switch at by a hybrid route now.
  bool tail_from(uint32_t at) const { return tails_ == Tails::Work && may_tail(at); }
  // The hybrid route to the node behind port `last` of switch at.
  IBPath hybrid(uint32_t at, uint8_t last) const {
    IBPath p;
    p.SLID = local_lid_;
    p.DLID = db_.node(at).smalid;
    p.drSLID = local_lid_;
    p.drPath = {0, last};
    return p;
  }
  void mark_plain(uint32_t at) {
    if (plain_.size() <= at) plain_.resize(size_t(at) + 1, 0);
    if (!plain_[at]) {
      plain_[at] = 1;
      ++switches_plain_;
    }
  }

  // A directed route to node n other than its own: its own route plus a
  // neighbour's route through another of its links, where that neighbour
  // is a switch (or the start node) whose route does not pass through n.
  std::optional<std::vector<uint8_t>> other_route(uint32_t n) const {
    const Node& x = db_.node(n);
    for (unsigned q = 1; q <= x.nports; ++q) {
      const Port& p = db_.port(x, q);
      if (p.peer == NO_INDEX) continue;
      const Port& r = db_.port(p.peer);
      const Node& m = db_.node(r.node);
      if (!m.is_switch() && r.node != db_.from_node) continue;  // CAs do not forward DR SMPs
      std::vector<uint8_t> h = m.dr;
      h.push_back(r.num);
      if (h == x.dr) continue;
      bool through_n = r.node == n;
      for (size_t k = 0; k < m.dr.size() && !through_n; ++k) {
        uint32_t at = db_.port_by_dr(std::span<const uint8_t>(m.dr.data(), k));
        through_n = at != NO_INDEX && db_.port(at).node == n;
      }
      if (!through_n) return h;
    }
    return std::nullopt;
  }

  Subnet& db_;
  uint16_t local_lid_;
  Tails tails_ = Tails::Off;
  std::string why_;
  unsigned trials_ = 0, trials_failed_ = 0;
  uint64_t sent_ = 0, switches_plain_ = 0;
  std::vector<char> plain_;  // by node: a hybrid route through it timed out
  std::vector<uint32_t> tried_;  // the switches trials went through
};

}  // namespace ibcore::walkroutes
