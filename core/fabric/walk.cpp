#include "core/fabric/walk.h"
#include "core/fabric/walkask.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "core/base/error.h"
#include "core/fabric/reforder.h"
#include "core/fabric/routes.h"

namespace ibcore::walk {

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
    routes_.allow_tails(false, opt_.mode == DiscoveryMode::DR ? "--discovery DR" : "the local port has no LID");
  else
    routes_.allow_tails(opt_.hybrid_routes, opt_.hybrid_routes ? "" : "turned off");
  uint64_t sent0 = s_.engine().sent(), resent0 = s_.engine().resent();

  s_.spawn(start());
  // (Not from a route given (opt_.from), nor at a switch's port 0.)
  if (opt_.ahead && opt_.from.empty())
    if (const uint8_t p = s_.transport().local_port()) {
      ahead_.port = p;
      ahead_.probe_left = true;
      s_.spawn(ahead_port_info());
      s_.spawn(ahead_probe());
    }
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
  if (sa_asked_) {
    res_.routes += "; the SA's LIDs: ";
    if (sa_lids_.empty() && links_.empty()) {
      res_.routes += "none came before the walk ended";
    } else {
      res_.routes += std::to_string(early_nodes_ + early_refuted_) + " switches' ports read by them before their PortInfo 0";
      if (early_refuted_)
        res_.routes += ", " + std::to_string(early_refuted_) + " of them given another port's LID (a stale SA): read again";
    }
    if (opt_.sa_links) {
      res_.routes += "; the SA's links: ";
      res_.routes += links_.empty() ? std::string("none came before the walk ended")
                                    : std::to_string(dest_probes_) + " probes counted at the node they lead to";
    }
  }
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
    co_await call(blocks_.pop_within(tables_at_once()));
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
    case Step::PortByHint: return port_by_hint(s.node, s.port, s.entry);
    case Step::Probe:
      --res_.queries;  // (probe() counts it, as it does after a SwitchPort step's PortInfo)
      return probe(s.node, s.port);
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
  // The start node's probe, sent ahead (Walk::Ahead): taken as soon as it
  // answers, not after the start node's PortInfo.
  if (from == NO_INDEX && ahead_.probe_left && ahead_for(n, entry)) fork({.kind = Step::Probe, .port = entry, .entry = entry, .node = n});
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
  // Just found, its LID known to the SA (sa_lids): its ports' PortInfos go
  // by that LID now, with PortInfo 0, and count once PortInfo 0 says it is
  // the switch's (settle_early).
  const uint16_t hint = first ? early_lid(n, entry) : 0;
  if (hint) fork_ports(n, entry, Step::PortByHint);
  uint16_t lid = 0;
  // (Urgent: its LID starts the hybrid trials and the switch's own work.)
  if (auto pi = co_await ask<iba::SMPPortInfo>(n, 0, 1, 0, [&] { return "PortInfo 0 of " + node_str(n); }, true)) {
    db_.set_port_info(n, 0, pi->bytes());
    lid = uint16_t(pi->LID());
    learn_timing(routes_.dr(n), *pi);
    if (opt_.on_port_lid) opt_.on_port_lid(db_, n, 0);
    // Started at once: the plain routes that would go hybrid wait for its
    // verdict, holding the scheduler's room for tasks (Scheduler::spawn_now).
    if (auto t = routes_.trial(n, entry)) s_.spawn_now(trial(n, entry, std::move(*t)));
  }
  if (hint) settle_early(n, lid);
  // (With hybrid routes its ports first: the next level waits on their
  // probes, not on its NodeDescription or SwitchInfo.
  // DiscoveryOptions::ports_before_info.)
  const bool ports_first = opt_.ports_before_info && routes_.tails_on();
  if (!hint && ports_first) fork_ports(n, entry, Step::SwitchPort);
  if (first) fork({.kind = Step::Description, .entry = entry, .node = n});
  fork({.kind = Step::SwitchInfo, .entry = entry, .node = n});
  if (!hint && !ports_first) fork_ports(n, entry, Step::SwitchPort);
  if (opt_.read_lft || opt_.read_mft) tables.push_back(n);
}

// Each external port of switch n, a step of kind k each.
// Each switch from another port on (its index in the database, modulo
// its ports): switches found together probe their ports in turn, and
// in the same order they would all probe, together, the same neighbour
// (a fat tree's aggregation switches, each port k to edge switch k),
// whose queue no cap of ours guards (a probe's destination is not known
// yet: each route names it differently).
// (Not without hybrid routes: then every probe passes the first switch.)
// With hybrid routes, the ports in spread order (spread_order): a block
// of consecutive ports cabled to switches (a fat tree's uplinks, at
// either end of the range) is met within the first probes, and the walk
// goes on from there by hybrid routes that leave the first switch alone
// while it reads the rest of its ports.  (Without them every route
// passes the first switch: in port order, as the test bed's counts were
// measured.)
// With the SA's links (DiscoveryOptions::leading_ports_first), the ports
// towards switches not found yet go first, in that order: their probes
// are the ones the next level waits for.
void Walk::fork_ports(uint32_t n, uint8_t entry, Step::Kind k) {
  const bool tails = routes_.tails_on();
  const unsigned np = db_.node(n).nports, from = tails ? n : 0;
  const std::vector<uint8_t>* order = tails && opt_.spread_ports ? &spread_order(np) : nullptr;
  std::vector<uint8_t> ports(np);
  for (unsigned j = 0; j < np; ++j) {
    const unsigned i = (j + from) % np;
    ports[j] = uint8_t((order ? (*order)[i] : i) + 1);
  }
  const auto e = early_.find(n);
  const uint16_t lid = e != early_.end() && e->second.state != Early::Refuted ? e->second.lid : db_.node(n).smalid;
  if (opt_.leading_ports_first && lid && !links_.empty())
    std::stable_partition(ports.begin(), ports.end(), [&](uint8_t p) { return leads_on(lid, p); });
  for (const uint8_t p : ports) fork({.kind = k, .port = p, .entry = entry, .node = n});
}

// Whether the SA's links say port p of the switch with LID lid leads to a
// switch the walk has not found yet.
bool Walk::leads_on(uint16_t lid, uint8_t p) const {
  const uint16_t to = link_to(lid, p);
  return to && switch_lids_.count(to) && db_.port_by_lid(to) == NO_INDEX;
}

// The LID the SA's links say is behind port p of the switch with LID lid
// (0: none known).
uint16_t Walk::link_to(uint16_t lid, uint8_t p) const {
  const auto it = links_.find(link_key(lid, p));
  return it == links_.end() ? 0 : it->second;
}

Task<> Walk::switch_info(uint32_t n) {
  if (auto si = co_await ask<iba::SMPSwitchInfo>(n, 0, 0, 0, [&] { return "SwitchInfo of " + node_str(n); })) {
    db_.set_switch_info(n, si->bytes());
    if (opt_.read_lft) queue_lft(n);
  }
}

// 0 .. np-1 in the order of their bits reversed (np 8: 0 4 2 6 1 5 3 7):
// every prefix of it spreads over the whole range, each half, quarter, ...
// met in turn.  Made once per port count.
const std::vector<uint8_t>& Walk::spread_order(unsigned np) {
  if (spread_.size() <= np) spread_.resize(size_t(np) + 1);
  std::vector<uint8_t>& o = spread_[np];
  if (o.size() == np) return o;
  unsigned bits = 0;
  while ((1u << bits) < np) ++bits;
  for (unsigned i = 0; i < (1u << bits); ++i) {
    unsigned r = 0;
    for (unsigned b = 0; b < bits; ++b) r |= ((i >> b) & 1u) << (bits - 1 - b);
    if (r < np) o.push_back(uint8_t(r));
  }
  return o;
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
  std::optional<iba::SMPPortInfo> pi;
  if (from == NO_INDEX && ahead_for(n, port)) {
    Until answered{ahead_.pi_done, ahead_.pi_wait};
    co_await answered;
    if ((pi = std::exchange(ahead_.pi, std::nullopt))) used = routes_.dr(n);
  }
  if (!pi)
    pi = co_await ask_dr<iba::SMPPortInfo>(
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
  const bool leave = port_read(n, port, start);
  if (ahead_.probe_left && ahead_for(n, port)) {
    // (Its probe is a step of its own: found().  The link down, that step
    // waits no longer; the probe sent ahead ends with the walk.)
    ahead_.link_up = leave;
    if (!leave) settle(ahead_.ni_done, ahead_.ni_wait);
    co_return;
  }
  if (leave) co_await probe(n, port);
}

// --- the start node's first round trips, ahead (Walk::Ahead) -------------------------

// Walking from the local port, the PortInfo of that port and the probe
// through it need only the port's number, which the transport knows: they
// go with the start node's NodeInfo, not a round trip and two after it (a
// slow CA's, 0.4 ms each on k=16 random-1).  A probe out of a port whose
// link is down is not answered: once the PortInfo says so nothing waits
// for it, and it ends with the walk (IBPath::until_done).
Task<> Walk::ahead_port_info() {
  IBPath p = IBDRPath();
  p.until_done = true;
  try {
    ahead_.pi = co_await s_.SubnGet<iba::SMPPortInfo>(std::move(p), ahead_.port);
  } catch (const std::exception&) {
  }
  settle(ahead_.pi_done, ahead_.pi_wait);
}

Task<> Walk::ahead_probe() {
  IBPath p = IBDRPath({ahead_.port});
  p.until_done = true;
  p.urgent = true;
  try {
    ahead_.ni = co_await s_.SubnGet<iba::SMPNodeInfo>(std::move(p), 0);
  } catch (const std::exception&) {
  }
  settle(ahead_.ni_done, ahead_.ni_wait);
}

// What an Until waits for is done: the coroutine waiting, if any, goes on.
void Walk::settle(bool& done, std::coroutine_handle<>& waiting) {
  done = true;
  if (waiting) s_.make_ready(std::exchange(waiting, {}));
}

// --- the SA's LIDs (DiscoveryOptions::sa_lids) ---------------------------------------

// The SA's LinkRecords (DiscoveryOptions::sa_links), else its NodeRecords
// of switches, one GetTable: each switch's LID by the link it is found
// by, or by its port GUID.  (Switches' only: asked by the SA's LID with
// their PortInfo, a CA's NodeDescription waited behind it there, holding
// its place in the window a CA's answer longer: on k=32 random-42, CAs
// answering in 805 us, the walk took 0.23 s where it took 0.16.)
// It helps only while the walk goes on: it ends unanswered when the walk
// does (IBPath::until_done), and a failure leaves the walk as it was.
Task<> Walk::sa_lids() {
  try {
    IBPath sa = s_.sa_path();
    sa.until_done = true;
    if (opt_.sa_links) {
      // The links alone: where each switch port leads, so a probe counts
      // against the node it reaches (probe_route), and a switch just found
      // gets its LID from the link it was found by (early_lid).  A LID with
      // links from two ports or more is a switch's (a CA's ports each have
      // their own).
      const iba::SALinkRecord any;
      auto l = co_await s_.SubnAdmGetTable(any, 0, sa);
      std::unordered_map<uint16_t, unsigned> from;
      for (const auto& r : l.records)
        if (r.fromLID() && r.toLID()) {
          links_.emplace(link_key(uint16_t(r.fromLID()), uint8_t(r.fromPort())), uint16_t(r.toLID()));
          ++from[uint16_t(r.fromLID())];
        }
      for (const auto& [lid, k] : from)
        if (k >= 2) switch_lids_.insert(lid);
      co_return;
    }
    // (The switches' records only, a seventh of a fat tree's.)
    const auto& D = iba::SANodeRecord::DESC;
    iba::SANodeRecord q;
    iba::set_bits(q.raw(), iba::field_named(D, "nodeInfo.nodeType").bit_off, 8,
                  uint64_t(iba::enums::NodeTypeCode::SWITCH));
    auto t = co_await s_.SubnAdmGetTable(q, iba::component_mask(D, "nodeInfo.nodeType"), sa);
    for (const auto& r : t.records)  // (an SA that ignored the mask: its CAs' records left out here)
      if (r.LID() && r.nodeInfo().nodeType() == uint64_t(iba::enums::NodeTypeCode::SWITCH)) {
        sa_lids_.emplace(r.nodeInfo().portGUID(), uint16_t(r.LID()));
        switch_lids_.insert(uint16_t(r.LID()));
      }
  } catch (const std::exception&) {
  }
}

// The LID the SA gave switch n, just found, entered by port `port` (0:
// none, or the SA's LIDs are not in use); when there is one, what is
// asked by it waits for the switch's own PortInfo 0 (early_[n]).
uint16_t Walk::early_lid(uint32_t n, uint8_t port) {
  if (!routes_.tails_work() || port > db_.node(n).nports) return 0;
  uint16_t lid = 0;
  if (!links_.empty()) {
    // (By the link it was found by: its parent switch's LID and port.)
    if (const uint32_t peer = db_.port(db_.port_index(n, port)).peer; peer != NO_INDEX) {
      const Port& q = db_.port(peer);
      if (const Node& m = db_.node(q.node); m.is_switch() && m.smalid) lid = link_to(m.smalid, q.num);
    }
  } else if (auto it = sa_lids_.find(db_.port(db_.node(n), port).guid); it != sa_lids_.end()) {
    lid = it->second;
  }
  if (!lid) return 0;
  Early& e = early_[n];
  e.lid = lid;
  e.entry = port;
  // (The flow control counts what goes by that LID, and PortInfo 0 by its
  // hybrid route, against the same node: as many of them at once as it
  // would let go by its LID alone.)
  s_.engine().learn_node(routes_.dr(n), e.lid, std::nullopt);
  s_.engine().learn_route(routes_.directed_now(n), routes_.dr(n));
  return e.lid;
}

// Port p of switch n by the SA's LID: kept until PortInfo 0 confirms the
// LID, or asked again as before (a failure too).
Task<> Walk::port_by_hint(uint32_t n, uint8_t p, uint8_t entry) {
  std::optional<iba::SMPPortInfo> pi;
  try {
    pi = co_await s_.SubnGet<iba::SMPPortInfo>(routes_.by_lid(early_[n].lid), p);
  } catch (const std::exception&) {
  }
  Early& e = early_[n];
  if (pi && e.state == Early::Pending) {
    e.ports.emplace_back(p, *pi);
    co_return;
  }
  if (!pi || e.state == Early::Refuted) {
    fork({.kind = Step::SwitchPort, .port = p, .entry = entry, .node = n});
    co_return;
  }
  db_.set_port_info(n, p, pi->bytes());
  if (port_read(n, p, p != entry)) co_await probe(n, p);
}

// Switch n's PortInfo 0 said its LID (0: it did not answer): the answers
// by the SA's LID so far count when that is it, else they are asked again.
void Walk::settle_early(uint32_t n, uint16_t lid) {
  Early& e = early_[n];
  const bool ok = lid && lid == e.lid;
  e.state = ok ? Early::Confirmed : Early::Refuted;
  ++(ok ? early_nodes_ : early_refuted_);
  for (const auto& [p, pi] : e.ports) {
    if (!ok) {
      fork({.kind = Step::SwitchPort, .port = p, .entry = e.entry, .node = n});
      continue;
    }
    db_.set_port_info(n, p, pi.bytes());
    if (port_read(n, p, p != e.entry)) fork({.kind = Step::Probe, .port = p, .entry = e.entry, .node = n});
  }
  e.ports.clear();
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

// --- the steps they share (asking a node: core/fabric/walkask.h) ----------------------

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
  if (ahead_.probe_left && ahead_for(n, p)) {
    // The start node's, forked when it was found (found()): the link is
    // known up once this answers, its PortInfo or not.
    Until answered{ahead_.ni_done, ahead_.ni_wait};
    co_await answered;
    ahead_.probe_left = false;
    if (auto ni = std::exchange(ahead_.ni, std::nullopt)) {
      ++res_.queries;
      probed(n, p, *ni);
      co_return;
    }
    // Not answered (or the link is down): asked as before, once the
    // port's PortInfo says its link is up (walk_ca, here if it said so
    // already).
    if (!ahead_.link_up) co_return;
  }
  ++res_.queries;
  const size_t failures = res_.errors.size();
  auto ni = co_await ask_dr<iba::SMPNodeInfo>(n, [&] { return probe_route(n, p); }, 0, [&] {
    return "NodeInfo through port " + std::to_string(p) + " of " + node_str(n);
  });
  if (ni) probed(n, p, *ni);
  else if (res_.reference_lines.count(failures)) failed_probes_.push_back({failures, n, p});
}

// The route of the probe through port p of node n.  When the SA's
// LinkRecords (sa_lids) say whose LID is behind that port of a switch,
// the probe counts against that node, not a route of its own: a switch
// its neighbours' probes reach at once holds no more of them than its cap.
IBPath Walk::probe_route(uint32_t n, uint8_t p) {
  IBPath r = urgent(routes_.via(n, p));
  const Node& x = db_.node(n);
  if (x.is_switch() && x.smalid)
    if (const uint16_t to = link_to(x.smalid, p)) {
      s_.engine().learn_dest(r, to);
      ++dest_probes_;
      // (DiscoveryOptions::leads_first: first in line only where a switch
      // not found yet is behind it.)
      if (opt_.leads_first && r.urgent && !leads_on(x.smalid, p)) {
        r.urgent = false;
        r.probe = true;
      }
    }
  return r;
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
  // (A trial of the hybrid form still out has nothing left to decide.)
  s_.engine().abandon_trials();
  db_.set_reference(replay_reference(db_, opt_.progress));
  if (!blocks_.empty()) {
    std::vector<uint32_t> rank(db_.node_count(), NO_INDEX);
    uint32_t r = 0;
    for (uint32_t n : db_.reference_order(NodeType::Switch)) rank[n] = r++;
    blocks_.order_by([&](uint32_t n) { return rank[n]; });
  }
  if (opt_.on_discovered) opt_.on_discovered();
}

// What a node's PortInfo tells the MAD engine's flow control (its narrow
// interface, MadEngine::learn_node in core/rpc/engine.h): the node at
// directed route p has this LID (LID-routed SMPs to it count against the
// same node) and answers within its RespTimeValue.
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

}  // namespace ibcore::walk
