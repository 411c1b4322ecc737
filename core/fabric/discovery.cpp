#include "core/fabric/discovery.h"

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
  // (the test bed's simulator drops them), so the first TRIALS are trials
  // (IBPath::route_trial, sent once) and the rest go plain until one of
  // them answers (Tails::Work); when every one sent timed out, every route
  // is plain for the rest of the run (Tails::Off).  A switch where a hybrid
  // route timed out later gets plain routes from then on (plain_).
  enum class Tails : uint8_t { Off, Untried, Trying, Work };
  static constexpr unsigned TRIALS = 3;
  void allow_tails(bool on, std::string why, size_t after_nodes) {
    tails_ = on ? Tails::Untried : Tails::Off;
    why_ = std::move(why);
    after_nodes_ = after_nodes;
  }
  bool tails_on() const { return tails_ != Tails::Off; }
  // The route to the node behind port `last` of node `at`.
  IBPath via(uint32_t at, uint8_t last) {
    const Node& x = db_.node(at);
    if (!tail_from(at)) return dr(x.dr, last);
    IBPath p;
    p.SLID = local_lid_;
    p.DLID = x.smalid;
    p.drSLID = local_lid_;
    p.drPath = {0, last};
    if (tails_ != Tails::Work) {
      tails_ = Tails::Trying;
      ++trials_;
      tried_.push_back(at);
      p.route_trial = true;
      p.retries = 0;
      // The least timeout a path asks (100 ms, IBPath::mad_timeout_ms), not
      // the 1000 ms the engine gives a MAD's last try: where they are
      // dropped, that is what the trials cost.
      p.resp_time = 14;
      p.packet_life_time = 0;
    }
    ++sent_;
    return p;
  }
  // The directed route to node n (hybrid when it may be).
  IBPath directed(uint32_t n) {
    const std::vector<uint8_t>& h = db_.node(n).dr;
    if (h.empty() || tails_ == Tails::Off) return dr(h);
    const uint32_t at = db_.port_by_dr(std::span<const uint8_t>(h.data(), h.size() - 1));
    return at == NO_INDEX ? dr(h) : via(db_.port(at).node, h.back());
  }
  // The switch a hybrid route p starts its directed part at (NO_INDEX: p is plain).
  uint32_t tail_of(const IBPath& p) const {
    if (!p.lid_head()) return NO_INDEX;
    const uint32_t at = db_.port_by_lid(p.DLID);
    return at == NO_INDEX ? NO_INDEX : db_.port(at).node;
  }
  // A hybrid route through switch at answered.
  void tail_answered() {
    if (tails_ != Tails::Trying) return;
    tails_ = Tails::Work;
    why_ = "answered";
  }
  // A hybrid route p through switch at failed with e: true when it is to be
  // asked again by a plain one (it timed out: the route form, or a loss;
  // another failure is the node's answer).
  bool tail_failed(uint32_t at, const IBPath& p, const std::exception& e) {
    if (!dynamic_cast<const MADTimeoutError*>(&e)) return false;
    if (plain_.size() <= at) plain_.resize(size_t(at) + 1, 0);
    if (!plain_[at]) {
      plain_[at] = 1;
      ++switches_plain_;
    }
    // Every trial sent so far timed out, none answered: off (the trials
    // go out together, so where nothing routes them this costs one
    // timeout, not one per trial).
    if (p.route_trial && ++trials_failed_ == trials_ && tails_ == Tails::Trying) {
      tails_ = Tails::Off;
      why_ = "the first " + std::to_string(trials_) + " timed out";
    }
    return true;
  }
  // What -v says of the route forms.
  std::string forms() const {
    if (sent_ == 0 && tails_ != Tails::Off)
      return "directed routes (hybrid routes not tried: fewer than " + std::to_string(after_nodes_) + " nodes)";
    if (sent_ == 0 || tails_ == Tails::Off)
      return "directed routes" + (why_.empty() ? std::string() : " (hybrid routes: " + why_ + ")");
    std::string s = "LID routes with a one-hop directed tail (IBA 14.2.2) for probes and queries before a LID: " +
                    std::to_string(sent_) + " sent";
    if (tails_ != Tails::Work) s += ", none answered yet";
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
    if (uint16_t lid = lid_for(n, port_hint)) {
      IBPath p;
      p.DLID = lid;
      p.SLID = local_lid_;
      return p;
    }
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
  // Whether a route's last hop may leave switch at by a hybrid route.
  bool tail_from(uint32_t at) const {
    const Node& x = db_.node(at);
    // (Not the switch behind our port: a plain directed route out of its
    // ports visits it as often, and every plain route passes it.)
    if (tails_ == Tails::Off || !x.is_switch() || !x.smalid || at == db_.from_node || x.dr.size() < 2) return false;
    if (at < plain_.size() && plain_[at]) return false;
    // Trials: at most TRIALS, no new one after one failed, one a switch
    // (each holds a share of its switch's processor until it answers or
    // times out).
    return tails_ == Tails::Work || (trials_ < TRIALS && trials_failed_ == 0 && db_.node_count() >= after_nodes_ &&
                                     std::find(tried_.begin(), tried_.end(), at) == tried_.end());
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
  size_t after_nodes_ = 0;       // DiscoveryOptions::hybrid_after_nodes
};

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
    enum Kind : uint8_t { Description, Switch, SwitchInfo, SwitchPort, Ca, MlnxExt, LftBlock } kind;
    uint8_t port = 0;   // the port asked about
    uint8_t entry = 0;  // the port the node was entered by
    uint32_t node = NO_INDEX;
    uint32_t from = NO_INDEX;  // Ca: the port slot it was reached from
    uint32_t block = 0;        // LftBlock: the block
  };
  static_assert(sizeof(Step) <= 16, "millions are queued: keep a step small");
  // Table blocks are queued "later": a worker takes one only when no walk
  // step waits, so the walk is never held up by them.
  void fork(const Step& s) { q_.push(s, s.kind == Step::LftBlock); }
  Task<> call(const Step& s);
  Task<> take(Step s);

  // The node kinds, and what they ask.
  Task<> start();
  void found(uint32_t n, uint8_t entry, uint32_t from);
  Task<> node_description(uint32_t n, uint8_t entry);
  Task<> walk_switch(uint32_t n, uint8_t entry);
  Task<> switch_info(uint32_t n);
  Task<> switch_port(uint32_t n, uint8_t p, uint8_t entry);
  Task<> walk_ca(uint32_t n, uint8_t port, uint32_t from);
  Task<> mlnx_ext_port_info(uint32_t n, uint8_t p);

  // The steps they share.
  template <class T, class What>
  Task<std::optional<T>> ask(uint32_t n, unsigned port_hint, int from, uint32_t amod, What what);
  template <class T, class Route, class What>
  Task<std::optional<T>> ask_dr(Route route, uint32_t amod, What what, IBPath* used = nullptr);
  bool port_read(uint32_t n, uint8_t p, bool leave_by_it);
  Task<> probe(uint32_t n, uint8_t p);
  void probed(uint32_t n, uint8_t p, const iba::SMPNodeInfo& ni);
  void walk_done();

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
  std::exception_ptr start_error_;
  uint16_t local_lid_;
  Routes routes_;
  WorkQueue<Step> q_;
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
  // flow control's caps hold the steps at the head of the queue (a few
  // switches' ports, now that SMPs no longer all wait at the first
  // switch), the steps behind them still go out.  (Plain directed routes
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
  res_.routes = routes_.forms();
  return std::move(res_);
}

// A step a worker took: one query (a port's PortInfo and the probe it leads
// to: two), with its retries by other routes.  When the last walk step ends
// and none waits, the walk is done (table blocks may be left).
Task<> Walk::take(Step s) {
  ++res_.queries;
  if (s.kind == Step::LftBlock) {
    co_await call(s);
    co_return;
  }
  ++walking_;
  co_await call(s);
  if (--walking_ == 0 && q_.waiting() == 0) walk_done();
}

// The coroutine of a step (not a coroutine itself: it makes the step's).
Task<> Walk::call(const Step& s) {
  switch (s.kind) {
    case Step::Description: return node_description(s.node, s.entry);
    case Step::Switch: return walk_switch(s.node, s.entry);
    case Step::SwitchInfo: return switch_info(s.node);
    case Step::SwitchPort: return switch_port(s.node, s.port, s.entry);
    case Step::Ca: return walk_ca(s.node, s.port, s.from);
    case Step::MlnxExt: return mlnx_ext_port_info(s.node, s.port);
    case Step::LftBlock: return lft_block(s.node, s.block);
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
void Walk::found(uint32_t n, uint8_t entry, uint32_t from) {
  fork({.kind = Step::Description, .entry = entry, .node = n});
  if (db_.node(n).is_switch()) fork({.kind = Step::Switch, .entry = entry, .node = n});
  else fork({.kind = Step::Ca, .port = entry, .entry = entry, .node = n, .from = from});
}

Task<> Walk::node_description(uint32_t n, uint8_t entry) {
  if (auto d = co_await ask<iba::SMPNodeDescription>(n, entry, 0, 0, [&] { return "NodeDescription of " + node_str(n); }))
    db_.set_desc(n, d->bytes());
}

// A switch: PortInfo 0 first, by directed route (it carries the switch's
// LID, so LID routing can take the rest), then SwitchInfo and every
// external port at once.
Task<> Walk::walk_switch(uint32_t n, uint8_t entry) {
  if (auto pi = co_await ask<iba::SMPPortInfo>(n, 0, 1, 0, [&] { return "PortInfo 0 of " + node_str(n); })) {
    db_.set_port_info(n, 0, pi->bytes());
    learn_timing(routes_.dr(n), *pi);
    if (opt_.on_port_lid) opt_.on_port_lid(db_, n, 0);
  }
  fork({.kind = Step::SwitchInfo, .entry = entry, .node = n});
  for (unsigned p = 1; p <= db_.node(n).nports; ++p)
    fork({.kind = Step::SwitchPort, .port = uint8_t(p), .entry = entry, .node = n});
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
// Only the start node is left through its own port.
Task<> Walk::walk_ca(uint32_t n, uint8_t port, uint32_t from) {
  auto route = [&] { return from == NO_INDEX ? routes_.dr(n) : routes_.via(db_.port(from).node, db_.port(from).num); };
  IBPath used;
  auto pi = co_await ask_dr<iba::SMPPortInfo>(
      route, port, [&] { return "PortInfo " + std::to_string(port) + " of " + node_str(n); }, &used);
  if (!pi) co_return;
  db_.set_port_info(n, port, pi->bytes());
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
    std::optional<IBPath> route = routes_.next(n, port_hint, stage, &other);
    if (!route) break;
    const uint32_t tail = routes_.tail_of(*route);
    const IBPath sent = tail == NO_INDEX ? IBPath() : *route;
    try {
      T r = co_await s_.SubnGet<T>(std::move(*route), amod);
      if (tail != NO_INDEX) routes_.tail_answered();
      if (!other.empty()) routes_.keep(n, std::move(other));
      co_return r;
    } catch (const std::exception& e) {
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
template <class T, class Route, class What>
Task<std::optional<T>> Walk::ask_dr(Route route, uint32_t amod, What what, IBPath* used) {
  for (unsigned retried = 0;;) {
    IBPath p = route();
    const uint32_t tail = routes_.tail_of(p);
    const IBPath sent = tail == NO_INDEX ? IBPath() : p;
    try {
      if (used) *used = p;
      T r = co_await s_.SubnGet<T>(std::move(p), amod);
      if (tail != NO_INDEX) routes_.tail_answered();
      co_return r;
    } catch (const std::exception& e) {
      if (tail != NO_INDEX && routes_.tail_failed(tail, sent, e)) continue;  // again, by a plain route now
      if (again(e, retried++)) continue;
      fail(e, what());
    }
    co_return std::nullopt;
  }
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
  auto ni = co_await ask_dr<iba::SMPNodeInfo>([&] { return routes_.via(n, p); }, 0, [&] {
    return "NodeInfo through port " + std::to_string(p) + " of " + node_str(n);
  });
  if (ni) probed(n, p, *ni);
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
  auto& blocks = q_.later_items();
  if (!blocks.empty()) {
    std::vector<uint32_t> rank(db_.node_count(), NO_INDEX);
    uint32_t r = 0;
    for (uint32_t n : db_.reference_order(NodeType::Switch)) rank[n] = r++;
    std::stable_sort(blocks.begin(), blocks.end(), [&](const Step& a, const Step& b) { return rank[a.node] < rank[b.node]; });
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
