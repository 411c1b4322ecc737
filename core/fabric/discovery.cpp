#include "core/fabric/discovery.h"
#include "core/fabric/proberoutes.h"
#include "core/rpc/turns.h"

#include <cerrno>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <optional>
#include <cstring>
#include <span>
#include <unordered_set>

#include "core/base/config.h"
#include "core/base/error.h"
#include "core/fabric/routes.h"
#include "core/fabric/sadiscovery.h"
#include "core/fabric/tableread.h"
#include "core/out/log.h"
#include "core/fabric/reforder.h"

namespace ibcore {

// Mellanox devices whose ports answer MlnxExtPortInfo (the FDR10 speed).
bool mlnx_ext_supported(uint16_t devid, uint32_t vendid) {
  if ((devid >= 0xc738 && devid <= 0xc73b) || devid == 0xc839 || devid == 0xcb20 || devid == 0xcf08 ||
      devid == 0xcf09 || devid == 0xd2f0)
    return true;
  if ((devid >= 0x1003 && devid <= 0x101b) || devid == 0xa2d2) return true;
  if (vendid == 0x119f) {
    static const uint16_t bull[] = {0x1b02, 0x1b50, 0x1ba0, 0x1bf0, 0x1b33, 0x1b73, 0x1b40, 0x1b41,
                                    0x1b60, 0x1b61, 0x1b83, 0x1b93, 0x1b94, 0x1bb4, 0x1bb5};
    if (std::find(std::begin(bull), std::end(bull), devid) != std::end(bull)) return true;
    if ((devid >= 0x1bd0 && devid <= 0x1bd5) || (devid >= 0x1bc4 && devid <= 0x1bc6)) return true;
  }
  return false;
}

namespace {

// "what: layer: layer..." for a failed query.
std::string failure_text(const std::exception& e, const std::string& what) {
  std::string msg = what;
  if (auto* me = dynamic_cast<const MADError*>(&e)) {
    for (auto& l : me->layers()) msg += ": " + l;
  } else {
    msg += std::string(": ") + e.what();
  }
  return msg;
}

// Record a failed query (and the reference's line for it, if any).
void add_failure(DiscoveryResult& r, const std::exception& e, const std::string& what) {
  std::string ref = reference_smp_warning(e);
  if (!ref.empty()) r.reference_lines[r.errors.size()] = std::move(ref);
  r.errors.push_back(failure_text(e, what));
}


// --- the walk ---------------------------------------------------------------------

// The walk, breadth first: a short coroutine per node kind (walk_switch,
// walk_ca) and the steps they share (ask, probe, found).  What a node kind
// asks in parallel it forks: the step is queued in a WorkQueue
// (core/rpc/sched.h) that a bounded pool of workers drains in FIFO order,
// one worker per MAD the window holds.  A queued step is 16 bytes naming
// the coroutine and its arguments; the coroutine is made when a worker
// takes it, so memory stays proportional to the fabric, not to a frame per
// query not yet sent (a k=48 dump_fts queues 1.4 million table blocks: as
// std::function closures, 40 bytes each, its peak was 34 MB higher).
using walkroutes::Routes;

class Walk {
public:
  Walk(Scheduler& s, Subnet& db, const DiscoveryOptions& o);
  DiscoveryResult run();

  std::vector<uint32_t> tables;  // switches whose tables are wanted
  // Switches whose LFT the walk read (the rest, SwitchInfo having failed,
  // are left to read_switch_tables).
  std::unordered_set<uint32_t> lft_tried;

private:
  // A queued step: the coroutine it starts (call()) and its arguments.
  struct Step {
    enum Kind : uint8_t { Description, Switch, SwitchLater, SwitchInfo, SwitchPort, Ca, CaFound, MlnxExt, LftBlock, Next, NextBlock } kind;
    uint8_t port = 0;   // the port asked about
    uint8_t entry = 0;  // the port the node was entered by
    uint32_t node = NO_INDEX;
    uint32_t from = NO_INDEX;  // Ca: the port slot it was reached from
    uint32_t block = 0;        // LftBlock: the block
  };
  static_assert(sizeof(Step) <= 16, "millions are queued: keep a step small");
  // Walk steps go into the round robin of nodes (core/rpc/turns.h);
  // the work queue holds a Next for each, and the worker that takes it
  // takes the step whose turn it is then.  Table blocks are queued "later"
  // (a NextBlock each): a worker takes one only when no walk step waits,
  // so the walk is never held up by them.  They go round robin too, over
  // TABLES_AT_ONCE switches at a time: one switch's blocks in a row met its node cap and left the
  // window nearly empty (k=32 dump_fts at 50 us: 3.5 s, 13x phys_s), and
  // over every switch at once no table would be finished before the last
  // (dump_fts prints them in the reference's order as they finish).
  static constexpr size_t TABLES_AT_ONCE = 32;
  void fork(const Step& s) {
    if (s.kind == Step::LftBlock) {
      blocks_.push(s.node, s);
      return q_.push({.kind = Step::NextBlock}, true);
    }
    order_.push(lane(s), s);
    q_.push({.kind = Step::Next});
  }
  // The node whose processor a step mostly keeps busy, whose turn it
  // takes: a CA's PortInfo goes through the switch it was reached from
  // (2 visits there, 1 at the CA), as a switch's PortInfo 0 does; the rest
  // go to the node itself.  Without hybrid routes (--discovery DR, or after
  // they failed) every probe passes the first switch, and one FIFO (lane
  // 0) keeps the order the walk had before them (the test bed's MAD
  // counts: another order probes other links from both ends at once).
  uint32_t lane(const Step& s) const {
    if (!routes_.tails_on()) return 0;
    if ((s.kind == Step::Ca || s.kind == Step::CaFound) && s.from != NO_INDEX) return db_.port(s.from).node;
    // A switch's PortInfo 0 goes through the switch before it (its LID is
    // not known yet): the cores a switch finds, all at once, would queue
    // there together.
    if (s.kind == Step::Switch || s.kind == Step::SwitchLater)
      if (const uint32_t at = routes_.parent(s.node); at != NO_INDEX) return at;
    return s.node;
  }
  Task<> call(const Step& s);
  Task<> take(Step s);

  // The node kinds, and what they ask.
  Task<> start();
  void found(uint32_t n, uint8_t entry, uint32_t from);
  Task<> node_description(uint32_t n, uint8_t entry);
  Task<> walk_switch(uint32_t n, uint8_t entry, bool first);
  Task<> switch_info(uint32_t n);
  Task<> switch_port(uint32_t n, uint8_t p, uint8_t entry);
  Task<> walk_ca(uint32_t n, uint8_t port, uint32_t from, bool first);
  Task<> mlnx_ext_port_info(uint32_t n, uint8_t p);

  // The steps they share.
  template <class T, class What>
  Task<std::optional<T>> ask(uint32_t n, unsigned port_hint, int from, uint32_t amod, What what);
  template <class T, class Route, class What>
  Task<std::optional<T>> ask_dr(uint32_t at, Route route, uint32_t amod, What what, IBPath* used = nullptr);
  // Before a route whose last hop leaves node at is made (Routes::holds):
  // wait for a turn among the plain routes that could go hybrid later (at
  // most PLAIN_AHEAD out while the engine queues MADs).  True: this one took a
  // turn, to give back with release_plain() once answered.
  static constexpr unsigned PLAIN_AHEAD = 16;
  Task<bool> hold_route(uint32_t at);
  void release_plain(bool held = true);
  bool port_read(uint32_t n, uint8_t p, bool leave_by_it);
  Task<> probe(uint32_t n, uint8_t p);
  void probed(uint32_t n, uint8_t p, const iba::SMPNodeInfo& ni);
  void walk_done();
  void reference_probe_paths();  // (after the walk: failed probes' reference lines)

  // Linear forwarding tables, read behind the walk (DiscoveryOptions::read_lft).
  void queue_lft(uint32_t n);
  Task<> lft_block(uint32_t n, uint32_t block);
  void lft_finished(uint32_t n, bool ok);

  void fail(const std::exception& e, const std::string& what) { add_failure(res_, e, what); }
  // Whether a query that failed with e is asked again (DiscoveryOptions::retry).
  bool again(const std::exception& e, unsigned retried) const { return opt_.retry && opt_.retry(e, retried); }
  void learn_timing(const IBPath& p, const iba::SMPPortInfo& pi);
  std::string node_str(uint32_t n) const;

  Scheduler& s_;
  Subnet& db_;
  const DiscoveryOptions& opt_;
  DiscoveryResult res_;
  struct FailedProbe {
    size_t error;  // its index in res_.errors
    uint32_t node;
    uint8_t port;
  };
  std::vector<FailedProbe> failed_probes_;
  std::exception_ptr start_error_;
  uint16_t local_lid_;
  Routes routes_;
  unsigned plain_ahead_ = 0;  // plain routes out that could go hybrid later (Routes::defers)
  std::deque<std::coroutine_handle<>> plain_waiting_;
  WorkQueue<Step> q_;
  RoundRobin<Step> order_, blocks_;
  unsigned walking_ = 0;            // walk steps taken by workers and not finished
  bool discovered_ = false;         // walk_done() ran
  std::vector<uint32_t> lft_left_;  // by node: table blocks not finished
  std::unordered_set<uint32_t> lft_bad_;
};

Walk::Walk(Scheduler& s, Subnet& db, const DiscoveryOptions& o)
    : s_(s),
      db_(db),
      opt_(o),
      local_lid_(s.transport().local_lid()),
      routes_(db, local_lid_),
      // One worker per MAD the window holds: more only queue MADs in the
      // engine, which then sends them one at a time from each reply's
      // completion instead of in a burst after the replies are read
      // (k=32: ten times the pump rounds, +8% instructions).
      q_(s, s.engine().max_outstanding(), [this](Step st) { return take(std::move(st)); }) {
  // With hybrid routes, more workers while the window has room: when the
  // flow control's caps hold the steps workers took (or a step waits for
  // its turn, hold_route), the steps behind them still go out.  (Plain directed routes
  // all pass the first switch: more workers would only queue there.)
  q_.grow(4 * s.engine().max_outstanding(),
          [this] { return routes_.tails_on() && s_.engine().in_flight() < s_.engine().window(); });
}

DiscoveryResult Walk::run() {
  DiscoveryMode m = opt_.mode;
  if (m == DiscoveryMode::Auto || m == DiscoveryMode::SA) m = local_lid_ ? DiscoveryMode::LID : DiscoveryMode::DR;
  if (m == DiscoveryMode::LID && !local_lid_) m = DiscoveryMode::DR;
  routes_.use_lid = m == DiscoveryMode::LID;
  res_.mode_used = m;
  if (!routes_.use_lid)
    routes_.allow_tails(false, opt_.mode == DiscoveryMode::DR ? "--discovery DR" : "the local port has no LID", 0);
  else
    routes_.allow_tails(opt_.hybrid_routes, opt_.hybrid_routes ? "" : "turned off", opt_.hybrid_after_nodes);
  uint64_t sent0 = s_.engine().sent(), resent0 = s_.engine().resent();

  s_.spawn(start());
  s_.run();
  if (start_error_) std::rethrow_exception(start_error_);
  db_.mads_used = res_.mads = s_.engine().sent() - sent0;
  // Counted by the engine: MADs other code sends on the same scheduler
  // while the walk runs (ibqueryerrors' PM reads) are in mads, not in
  // queries, so mads - queries is not the resends.
  res_.resent = s_.engine().resent() - resent0;
  res_.flow = s_.engine().flow_stats();
  if (!discovered_) db_.set_reference(replay_reference(db_, opt_.progress));
  reference_probe_paths();
  res_.routes = routes_.forms();
  return std::move(res_);
}

// A failed probe's reference line names the route the reference walked to
// the prober: the walk's own route to it is whichever answered first (two
// parallel links, two switches racing), the reference's the first in its
// breadth-first order (RefView::parent), so the path is written again from
// that once the walk is done.
void Walk::reference_probe_paths() {
  const RefView& ref = db_.reference();
  if (ref.parent.size() < db_.node_count()) return;
  for (const auto& [i, n, p] : failed_probes_) {
    std::vector<uint8_t> hops{p};
    for (uint32_t x = n; ref.parent[x] != NO_INDEX && hops.size() < 64;) {
      const Port& via = db_.port(ref.parent[x]);
      hops.push_back(via.num);
      x = via.node;
    }
    std::string path = "0";
    for (auto h = hops.rbegin(); h != hops.rend(); ++h) path += "," + std::to_string(*h);
    std::string& line = res_.reference_lines[i];
    const size_t a = line.find("dlid 0; "), b = line.find(" Attr ");
    if (a != std::string::npos && b != std::string::npos && b > a) line.replace(a + 8, b - a - 8, path);
  }
}

// A step a worker took: one query (a port's PortInfo and the probe it leads
// to: two), with its retries by other routes.  When the last walk step ends
// and none waits, the walk is done (table blocks may be left).
Task<> Walk::take(Step s) {
  ++res_.queries;
  if (s.kind == Step::NextBlock) {
    co_await call(blocks_.pop_within(TABLES_AT_ONCE));
    co_return;
  }
  ++walking_;
  co_await call(order_.pop());
  if (--walking_ == 0 && q_.waiting() == 0) walk_done();
}

// The coroutine of a step (not a coroutine itself: it makes the step's).
Task<> Walk::call(const Step& s) {
  switch (s.kind) {
    case Step::Description: return node_description(s.node, s.entry);
    case Step::Switch: return walk_switch(s.node, s.entry, false);
    case Step::SwitchLater: return walk_switch(s.node, s.entry, true);
    case Step::SwitchInfo: return switch_info(s.node);
    case Step::SwitchPort: return switch_port(s.node, s.port, s.entry);
    case Step::Ca: return walk_ca(s.node, s.port, s.from, false);
    case Step::CaFound: return walk_ca(s.node, s.port, s.from, true);
    case Step::MlnxExt: return mlnx_ext_port_info(s.node, s.port);
    case Step::LftBlock: return lft_block(s.node, s.block);
    case Step::Next:
    case Step::NextBlock: break;
  }
  return {};
}

// --- the node kinds -------------------------------------------------------------------

// The start node: its NodeInfo by the route asked for (opt_.from), then the
// walk of its kind.
Task<> Walk::start() {
  IBPath p = Routes::dr(opt_.from);
  iba::SMPNodeInfo ni;
  ++res_.queries;
  try {
    ni = co_await s_.SubnGet<iba::SMPNodeInfo>(p);
  } catch (MADError& e) {
    e.annotate("Failed to query the start node at " + p.describe());
    start_error_ = std::current_exception();
    co_return;
  } catch (...) {
    start_error_ = std::current_exception();
    co_return;
  }
  auto [n, created] = db_.add_node(ni.bytes());
  (void)created;
  db_.from_node = n;
  db_.from_port = uint8_t(ni.localPortNum());
  db_.node(n).dr = opt_.from;
  db_.touch_port(n, ni.localPortNum(), ni.portGUID());
  found(n, uint8_t(ni.localPortNum()), NO_INDEX);
}

// A node seen for the first time, entered by its port `entry` (from: the
// port slot it was reached from; NO_INDEX: the start node): its
// description, and the walk of its kind.
// Its NodeDescription is asked after the PortInfo that gives its LID (a
// switch's port 0, a CA's port it was reached by), so it goes by LID: one
// processor visit, where before the LID it takes a directed tail (3).
// (Without hybrid routes, it goes first, as it did before them.)
void Walk::found(uint32_t n, uint8_t entry, uint32_t from) {
  const bool later = routes_.tails_on();
  if (!later) fork({.kind = Step::Description, .entry = entry, .node = n});
  if (db_.node(n).is_switch()) fork({.kind = later ? Step::SwitchLater : Step::Switch, .entry = entry, .node = n});
  else fork({.kind = later ? Step::CaFound : Step::Ca, .port = entry, .entry = entry, .node = n, .from = from});
}

Task<> Walk::node_description(uint32_t n, uint8_t entry) {
  if (auto d = co_await ask<iba::SMPNodeDescription>(n, entry, 0, 0, [&] { return "NodeDescription of " + node_str(n); }))
    db_.set_desc(n, d->bytes());
}

// A switch: PortInfo 0 first, by directed route (it carries the switch's
// LID, so LID routing can take the rest), then SwitchInfo and every
// external port at once (first: the node was just found, its
// NodeDescription follows PortInfo 0, by LID).
Task<> Walk::walk_switch(uint32_t n, uint8_t entry, bool first) {
  if (auto pi = co_await ask<iba::SMPPortInfo>(n, 0, 1, 0, [&] { return "PortInfo 0 of " + node_str(n); })) {
    db_.set_port_info(n, 0, pi->bytes());
    learn_timing(routes_.dr(n), *pi);
    if (opt_.on_port_lid) opt_.on_port_lid(db_, n, 0);
  }
  if (first) fork({.kind = Step::Description, .entry = entry, .node = n});
  fork({.kind = Step::SwitchInfo, .entry = entry, .node = n});
  // Each switch from another port on (its index in the database, modulo
  // its ports): switches found together probe their ports in turn, and
  // in the same order they would all probe, together, the same neighbour
  // (a fat tree's aggregation switches, each port k to edge switch k),
  // whose queue no cap of ours guards (a probe's destination is not known
  // yet: each route names it differently).
  // (Not without hybrid routes: then every probe passes the first switch.)
  const unsigned np = db_.node(n).nports, from = routes_.tails_on() ? n : 0;
  for (unsigned k = 0; k < np; ++k)
    fork({.kind = Step::SwitchPort, .port = uint8_t((k + from) % np + 1), .entry = entry, .node = n});
  if (opt_.read_lft || opt_.read_mft) tables.push_back(n);
}

Task<> Walk::switch_info(uint32_t n) {
  if (auto si = co_await ask<iba::SMPSwitchInfo>(n, 0, 0, 0, [&] { return "SwitchInfo of " + node_str(n); })) {
    db_.set_switch_info(n, si->bytes());
    if (opt_.read_lft) queue_lft(n);
  }
}

// An external port of a switch: its PortInfo, then through it when the
// link is up (not back by the port the switch was entered by).
Task<> Walk::switch_port(uint32_t n, uint8_t p, uint8_t entry) {
  auto pi = co_await ask<iba::SMPPortInfo>(n, 0, 0, p, [&] { return "PortInfo " + std::to_string(p) + " of " + node_str(n); });
  if (!pi) co_return;
  db_.set_port_info(n, p, pi->bytes());
  if (port_read(n, p, p != entry)) co_await probe(n, p);
}

// A CA's or router's port, asked through the port itself (its PortInfo then
// names it as the local port, as the reference's does): by the route of
// the port slot it was reached from, or (from == NO_INDEX) the node's own.
// Only the start node is left through its own port.  first: the node was
// just found, its NodeDescription follows.
Task<> Walk::walk_ca(uint32_t n, uint8_t port, uint32_t from, bool first) {
  auto route = [&] { return from == NO_INDEX ? routes_.dr(n) : routes_.via(db_.port(from).node, db_.port(from).num); };
  IBPath used;
  auto pi = co_await ask_dr<iba::SMPPortInfo>(
      from == NO_INDEX ? NO_INDEX : db_.port(from).node, route, port, [&] { return "PortInfo " + std::to_string(port) + " of " + node_str(n); }, &used);
  const Step description{.kind = Step::Description, .entry = port, .node = n};
  if (!pi) {
    if (first) fork(description);
    co_return;
  }
  db_.set_port_info(n, port, pi->bytes());
  if (first) fork(description);
  learn_timing(used, *pi);
  bool start = n == db_.from_node && port == db_.from_port;
  if (start) s_.engine().learn_subnet_timeout(uint8_t(pi->subnetTimeOut()));
  if (opt_.on_port_lid) opt_.on_port_lid(db_, n, port);
  if (port_read(n, port, start)) co_await probe(n, port);
}

// The FDR10 speed of a Mellanox port.  Not every firmware answers it; the
// speed then shows without FDR10.
Task<> Walk::mlnx_ext_port_info(uint32_t n, uint8_t p) {
  try {
    auto e = co_await s_.SubnGet<iba::SMPMlnxExtPortInfo>(routes_.to(n, p), p);
    db_.port(db_.port_index(n, p)).mlnx_speed =
        uint8_t((e.linkSpeedActive() & 1) | ((e.linkSpeedSupported() & 1) << 1));
  } catch (const std::exception&) {
  }
}

// --- the steps they share ------------------------------------------------------------

// Ask attribute T (modifier amod) of node n by each route Routes::next
// gives from stage `from` on, until one answers.  When the last one fails
// too (and is not to be asked again), the failure goes into the result's
// errors as what() says it, and nullopt is returned.
template <class T, class What>
Task<std::optional<T>> Walk::ask(uint32_t n, unsigned port_hint, int from, uint32_t amod, What what) {
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
    const IBPath sent = tail == NO_INDEX ? IBPath() : *route;
    try {
      T r = co_await s_.SubnGet<T>(std::move(*route), amod);
      if (turn) release_plain();
      if (tail != NO_INDEX) routes_.tail_answered();
      if (!other.empty()) routes_.keep(n, std::move(other));
      co_return r;
    } catch (const std::exception& e) {
      if (turn) release_plain();
      if (tail != NO_INDEX && routes_.tail_failed(tail, sent, e)) {
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
    const IBPath sent = tail == NO_INDEX ? IBPath() : p;
    try {
      if (used) *used = p;
      T r = co_await s_.SubnGet<T>(std::move(p), amod);
      if (turn) release_plain();
      if (tail != NO_INDEX) routes_.tail_answered();
      co_return r;
    } catch (const std::exception& e) {
      if (turn) release_plain();
      if (tail != NO_INDEX && routes_.tail_failed(tail, sent, e)) {
        continue;  // again, by a plain route now
      }
      if (again(e, retried++)) continue;
      fail(e, what());
    }
    co_return std::nullopt;
  }
}

Task<bool> Walk::hold_route(uint32_t at) {
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
void Walk::release_plain(bool held) {
  if (held) --plain_ahead_;
  if (plain_waiting_.empty()) return;
  s_.make_ready(plain_waiting_.front());
  plain_waiting_.pop_front();
}

// After the PortInfo of port p of node n: the FDR10 speed where the device
// has it, and whether to leave the node by the port (the walk wants to and
// its link is up).
bool Walk::port_read(uint32_t n, uint8_t p, bool leave_by_it) {
  const Node& x = db_.node(n);
  const Port& port = db_.port(x, p);
  if (opt_.mlx_epi && mlnx_ext_supported(x.device_id(), x.vendor_id()) && port.phys_state() == PHYS_LINKUP &&
      port.speed_active() == 4 && ext_speed_active(db_, port) == 0)
    fork({.kind = Step::MlnxExt, .port = p, .node = n});
  return leave_by_it && port.phys_state() == PHYS_LINKUP;
}

// NodeInfo through port p of node n, unless the link was found from its
// other end or is past the hop limit: finds the link, and the node behind
// it when that is new.
Task<> Walk::probe(uint32_t n, uint8_t p) {
  if (db_.port(db_.port_index(n, p)).peer != NO_INDEX) co_return;
  if (opt_.max_hops && db_.node(n).dr.size() + 1 > opt_.max_hops) co_return;
  ++res_.queries;
  const size_t failures = res_.errors.size();
  auto ni = co_await ask_dr<iba::SMPNodeInfo>(n, [&] { return routes_.via(n, p); }, 0, [&] {
    return "NodeInfo through port " + std::to_string(p) + " of " + node_str(n);
  });
  if (ni) probed(n, p, *ni);
  else if (res_.reference_lines.count(failures)) failed_probes_.push_back({failures, n, p});
}

// The NodeInfo that came back through port p of node n.
void Walk::probed(uint32_t n, uint8_t p, const iba::SMPNodeInfo& ni) {
  uint32_t slot = db_.port_index(n, p);
  auto [m, created] = db_.add_node(ni.bytes());
  uint8_t rp = uint8_t(ni.localPortNum());
  Node& y = db_.node(m);
  if (rp > y.nports) {
    res_.errors.push_back("NodeInfo of " + node_str(m) + " names port " + std::to_string(rp) + " beyond its " +
                          std::to_string(y.nports) + " ports");
    return;
  }
  db_.touch_port(m, rp, ni.portGUID());
  db_.link(slot, db_.port_index(m, rp));
  if (created) {
    y.dr.reserve(db_.node(n).dr.size() + 1);
    y.dr = db_.node(n).dr;
    y.dr.push_back(p);
    found(m, rp, slot);
  } else if (!y.is_switch() && !db_.port(y, rp).has_info) {
    // A CA/router reached through another of its ports.
    fork({.kind = Step::Ca, .port = rp, .entry = rp, .node = m, .from = slot});
  }
}

// Every node and link is known (no walk step queued or in progress; only
// table blocks may be left): the reference order is final, the blocks
// still queued are read in its switch order.
void Walk::walk_done() {
  if (discovered_) return;
  discovered_ = true;
  db_.set_reference(replay_reference(db_, opt_.progress));
  if (!blocks_.empty()) {
    std::vector<uint32_t> rank(db_.node_count(), NO_INDEX);
    uint32_t r = 0;
    for (uint32_t n : db_.reference_order(NodeType::Switch)) rank[n] = r++;
    blocks_.order_by([&](uint32_t n) { return rank[n]; });
  }
  if (opt_.on_discovered) opt_.on_discovered();
}

// What a node's PortInfo tells the MAD engine's flow control (the narrow
// interface of core/rpc/rpc.h): the node at directed route p has this LID
// (LID-routed SMPs to it count against the same node) and answers within
// its RespTimeValue.
void Walk::learn_timing(const IBPath& p, const iba::SMPPortInfo& pi) {
  s_.engine().learn_node(p, uint16_t(pi.LID()), uint8_t(pi.respTimeValue()));
}

std::string Walk::node_str(uint32_t n) const {
  char b[64];
  std::snprintf(b, sizeof b, "node 0x%016llx", (unsigned long long)db_.node(n).guid);
  return b;
}

// --- linear forwarding tables (read_lft) ----------------------------------------

// Queue the table blocks of switch n (its SwitchInfo is in), behind the walk.
void Walk::queue_lft(uint32_t n) {
  const Node& x = db_.node(n);
  unsigned last = std::min(opt_.lft_last, iba::lft_last_lid(x.switch_info()));
  SwitchTables& t = db_.tables(n);
  t.lft.assign(size_t(last) + 1, LFT_NO_ROUTE);
  t.lft_valid = false;
  if (lft_left_.size() <= n) lft_left_.resize(size_t(n) + 1, 0);
  lft_tried.insert(n);
  if (opt_.lft_first > last) {
    lft_finished(n, true);
    return;
  }
  lft_left_[n] = last / 64 - opt_.lft_first / 64 + 1;
  for (unsigned b = opt_.lft_first / 64; b <= last / 64; ++b)
    fork({.kind = Step::LftBlock, .node = n, .block = b});
}

Task<> Walk::lft_block(uint32_t n, uint32_t block) {
  auto l = co_await ask<iba::SMPLinearForwardingTable>(n, 0, 0, block, [&] {
    return "LinearForwardingTable block " + std::to_string(block) + " of " + node_str(n);
  });
  if (l) {
    std::vector<uint8_t>& lft = db_.tables(n).lft;
    size_t at = size_t(block) * 64;
    if (at < lft.size()) std::memcpy(lft.data() + at, l->bytes().data(), std::min<size_t>(64, lft.size() - at));
  } else {
    lft_bad_.insert(n);
  }
  if (--lft_left_[n] == 0) lft_finished(n, !lft_bad_.count(n));
}

void Walk::lft_finished(uint32_t n, bool ok) {
  db_.tables(n).lft_valid = ok;
  if (opt_.on_lft) opt_.on_lft(n);
}

// --- forwarding tables -------------------------------------------------------------

// SwitchInfo of a switch read before its tables (their sizes).
Task<> read_swinfo(Scheduler& s, Subnet& db, uint32_t n, DiscoveryMode mode, DiscoveryResult* res) {
  try {
    auto si = co_await s.SubnGet<iba::SMPSwitchInfo>(switch_path(db, n, s.transport().local_lid(), mode));
    db.set_switch_info(n, si.bytes());
  } catch (const std::exception& e) {
    if (res) add_failure(*res, e, "SwitchInfo of switch " + std::to_string(n));
  }
}

}  // namespace

IBPath dr_path_of(const Subnet& db, uint32_t n) { return IBDRPath(db.node(n).dr); }

IBPath switch_path(const Subnet& db, uint32_t n, uint16_t local_lid, DiscoveryMode mode) {
  const Node& x = db.node(n);
  if (local_lid && x.smalid && n != db.from_node && mode != DiscoveryMode::DR) {
    IBPath p;
    p.DLID = x.smalid;
    p.SLID = local_lid;
    return p;
  }
  return dr_path_of(db, n);
}

DiscoveryResult discover(Scheduler& sched, Subnet& db, const DiscoveryOptions& opt) {
  if (opt.mode == DiscoveryMode::SA) return discover_sa(sched, db, opt);  // records only
  Walk w(sched, db, opt);
  DiscoveryResult r = w.run();
  // The MFTs, and the LFTs of switches whose SwitchInfo the walk could not read.
  if (opt.read_mft && !w.tables.empty()) read_switch_tables(sched, db, w.tables, false, true, opt.mode, &r);
  if (opt.read_lft) {
    std::vector<uint32_t> left;
    for (uint32_t n : w.tables)
      if (!w.lft_tried.count(n)) left.push_back(n);
    if (!left.empty()) read_switch_tables(sched, db, left, true, false, opt.mode, &r);
  }
  return r;
}

void read_switch_tables(Scheduler& sched, Subnet& db, const std::vector<uint32_t>& switches, bool lft, bool mft,
                        DiscoveryMode mode, DiscoveryResult* res) {
  if (mode == DiscoveryMode::SA)
    return read_switch_tables_sa(sched, db, switches, lft, mft, res);
  // SwitchInfo first where discovery did not read it (it sizes the tables).
  std::vector<uint32_t> sws;
  for (uint32_t n : switches)
    if (db.node(n).is_switch()) {
      sws.push_back(n);
      if (!db.node(n).has_swinfo) sched.spawn(read_swinfo(sched, db, n, mode, res));
    }
  sched.run();
  // Then every block of every table, from a bounded pool of workers.
  std::vector<SwitchTableRead> reads = switch_table_reads(db, sws, sched.transport().local_lid(), mode);
  for (SwitchTableRead& r : reads) {
    const Node& x = db.node(r.node);
    if (!x.has_swinfo) continue;
    auto si = x.switch_info();
    const SwitchTables& t = db.tables(r.node);
    if (lft && !t.lft_valid) r.want_lft(0, iba::lft_last_lid(si));
    // (an MFT of no entries: nothing read, an empty table kept)
    if (mft && !t.mft_valid) r.want_mft(MLID_BASE, MLID_BASE + iba::mft_entries(si) - 1);
  }
  read_tables(sched, reads);
  for (SwitchTableRead& r : reads) {
    SwitchTables& t = db.tables(r.node);
    auto failed = [&](const std::exception_ptr& e, const std::string& what) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& ex) {
        if (res) add_failure(*res, ex, what);
      }
    };
    if (r.lft_wanted) {
      if (r.lft.error) {
        failed(r.lft.error, "LinearForwardingTable block " + std::to_string(r.lft.failed_block));
      } else {
        t.lft = std::move(r.lft.lft);
        t.lft_valid = true;
      }
    }
    if (r.mft_wanted) {
      if (r.mft.error) {
        failed(r.mft.error, "MulticastForwardingTable");
      } else {
        t.mft = std::move(r.mft.masks);
        t.mft_valid = true;
      }
    }
  }
}

std::string reference_smp_warning(const std::exception& e) {
  auto* me = dynamic_cast<const MADError*>(&e);
  if (!me || me->req.size() < iba::SMPFormatDirected::SIZE) return {};
  iba::SMPFormatDirected q;
  q.load(me->req);
  unsigned hops = unsigned(q.hopCount());
  if (q.mgmtClass() != iba::mgmt::SUBN_DIRECTED_ROUTE || hops > 63) return {};
  // libibnetdisc's portid2str of its walk's paths (DR from the local port:
  // its slid and dlid are 0).
  std::string path = "DR path slid 0; dlid 0; ";
  for (unsigned i = 0; i <= hops; ++i) path += (i ? "," : "") + std::to_string(q.initialPath(i));
  unsigned attr = unsigned(q.attributeID());
  unsigned mod = unsigned(q.attributeModifier());
  char b[400];
  if (dynamic_cast<const MADTimeoutError*>(me))
    std::snprintf(b, sizeof b, "./libibnetdisc/query_smp.c:186; umad (%s Attr 0x%x:%u) bad status %d; %s",
                  path.c_str(), attr, mod, ETIMEDOUT, std::strerror(ETIMEDOUT));
  else if (me->status & 0x7fff)
    std::snprintf(b, sizeof b, "./libibnetdisc/query_smp.c:193; mad (%s Attr 0x%x:%u) bad status 0x%x", path.c_str(),
                  attr, mod, unsigned(me->status & 0x7fff));
  else
    return {};
  return b;
}

void report_discovery_stats(const DiscoveryResult& r, std::chrono::steady_clock::time_point started) {
  if (!log::verbosity()) return;
  ibcore::log::info("I: discovery: %llu MADs sent for %llu queries (%llu resent), %.3f s\n",
               (unsigned long long)r.mads, (unsigned long long)r.queries, (unsigned long long)r.resent,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  if (!r.routes.empty()) ibcore::log::info("I: discovery: routes: %s\n", r.routes.c_str());
  report_flow(r.flow);
}

void report_discovery_errors(const DiscoveryResult& r, size_t from) {
  for (size_t i = from; i < r.errors.size(); ++i) {
    auto ref = r.reference_lines.find(i);
    if (ref != r.reference_lines.end()) ibcore::log::info("%s\n", ref->second.c_str());
    if (ref == r.reference_lines.end() || log::verbosity())
      ibcore::log::warn("W: discovery: %s\n", r.errors[i].c_str());
  }
}

}  // namespace ibcore
