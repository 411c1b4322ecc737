// The discovery walk behind discover() (core/fabric/discovery.h): its state
// and its steps.  Only the walk's own files include it: walk.cpp (the start,
// the node kinds, the probes, the table blocks read behind the walk) and
// walkask.h (asking a node by its routes, with the hybrid routes' trials).
#pragma once

#include <coroutine>
#include <cstdint>
#include <deque>
#include <exception>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/fabric/discovery.h"
#include "core/fabric/proberoutes.h"
#include "core/rpc/turns.h"
#include "core/rpc/sched.h"

namespace ibcore::walk {

// The walk, breadth first: a short coroutine per node kind (walk_switch,
// walk_ca) and the steps they share (ask, probe, found).  What a node kind
// asks in parallel it forks: the step is queued in the round robin of
// core/rpc/turns.h (one FIFO without hybrid routes), and a WorkQueue
// (core/rpc/sched.h) drained by a bounded pool of workers, one per MAD the
// window holds, takes them in its order (fork(), lane()).  A queued step is 16 bytes naming
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
    enum Kind : uint8_t {
      Description, Switch, SwitchLater, SwitchInfo, SwitchPort, PortByHint, Probe, Ca, CaFound, MlnxExt, LftBlock, Next, NextBlock
    } kind;
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
  // As the window opens, more switches at once: twice its top, so that a
  // switch has about one block in flight, not one waiting behind another
  // at its processor (at half the top, two each: where switches answer
  // slowly each block's round trip held the other's answer, and k=32
  // random-13's tables took 2.2x phys_s; over twice the top, 1.3x).  At
  // 32, a window of 256 held 4-5 of each at once (k=16 random-13, 563 us
  // an answer: 2 ms round trips, the tables half of dump_fts' 0.21 s).
  static constexpr size_t TABLES_AT_ONCE = 32;
  size_t tables_at_once() const { return std::max<size_t>(TABLES_AT_ONCE, 2 * size_t(s_.engine().max_outstanding())); }
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
  const std::vector<uint8_t>& spread_order(unsigned np);  // a switch's ports' order (walk_switch)
  void fork_ports(uint32_t n, uint8_t entry, Step::Kind k);
  Task<> walk_ca(uint32_t n, uint8_t port, uint32_t from, bool first);
  Task<> mlnx_ext_port_info(uint32_t n, uint8_t p);

  // The steps they share.
  template <class T, class What>
  Task<std::optional<T>> ask(uint32_t n, unsigned port_hint, int from, uint32_t amod, What what, bool urgent = false);
  // Route r, urgent (IBPath::urgent: ahead of the queries waiting where it
  // goes) while hybrid routes may be used; without them the walk keeps
  // the one FIFO it had before them (the test bed's MAD counts).
  IBPath urgent(IBPath r) const {
    r.urgent = routes_.tails_on();
    return r;
  }
  template <class T, class Route, class What>
  Task<std::optional<T>> ask_dr(uint32_t at, Route route, uint32_t amod, What what, IBPath* used = nullptr);
  // Before a route whose last hop leaves node at is made (Routes::holds):
  // wait for a turn among the plain routes that could go hybrid later (at
  // most PLAIN_AHEAD out while the engine queues MADs).  True: this one took a
  // turn, to give back with release_plain() once answered.
  static constexpr unsigned PLAIN_AHEAD = 16;
  Task<bool> hold_route(uint32_t at);
  void release_plain(bool held = true);
  Task<> trial(uint32_t n, uint8_t back, IBPath p);
  static constexpr unsigned TRIAL_AGAIN = 2;  // a trial lost among other losses, sent again (trial())
  bool port_read(uint32_t n, uint8_t p, bool leave_by_it);
  Task<> probe(uint32_t n, uint8_t p);
  IBPath probe_route(uint32_t n, uint8_t p);
  void probed(uint32_t n, uint8_t p, const iba::SMPNodeInfo& ni);
  void walk_done();
  void reference_probe_paths();  // (after the walk: failed probes' reference lines)

  // The SA's LIDs (DiscoveryOptions::sa_lids): read once hybrid routes
  // work; a switch just found has its ports read by the LID the SA gives
  // it, while its PortInfo 0 (by its route, as before) says whether that
  // LID is its.  What came back before is kept until then (Early), and
  // asked again as before when the LIDs differ.
  Task<> sa_lids();
  uint16_t early_lid(uint32_t n, uint8_t port);
  Task<> port_by_hint(uint32_t n, uint8_t p, uint8_t entry);
  void settle_early(uint32_t n, uint16_t lid);
  struct Early {
    enum State : uint8_t { Pending, Confirmed, Refuted };
    uint16_t lid = 0;  // the SA's
    State state = Pending;
    uint8_t entry = 0;
    std::vector<std::pair<uint8_t, iba::SMPPortInfo>> ports;  // its ports answered while Pending
  };
  std::unordered_map<uint64_t, uint16_t> sa_lids_;  // switches', by port GUID
  std::unordered_map<uint32_t, uint16_t> links_;    // the SA's links: link_key(fromLID, fromPort) -> toLID
  static uint32_t link_key(uint16_t lid, uint8_t port) { return uint32_t(lid) << 8 | port; }
  uint16_t link_to(uint16_t lid, uint8_t p) const;
  bool leads_on(uint16_t lid, uint8_t p) const;
  uint64_t dest_probes_ = 0;                        // probes counted at the node links_ named
  std::unordered_set<uint16_t> switch_lids_;       // the SA's LIDs of switches (sa_lids)
  std::unordered_map<uint32_t, Early> early_;      // by node
  bool sa_asked_ = false;
  uint64_t early_nodes_ = 0, early_refuted_ = 0;

  // The start node's first round trips, sent with its NodeInfo when the
  // walk starts at the local port (ahead_port_info, ahead_probe): the
  // PortInfo of that port and the NodeInfo through it, each taken by
  // walk_ca and probe() when they come to ask it (else asked as before).
  // Suspends until done is set; whoever sets it resumes h (settle()).
  struct Until {
    bool& done;
    std::coroutine_handle<>& h;
    bool await_ready() const noexcept { return done; }
    void await_suspend(std::coroutine_handle<> c) noexcept { h = c; }
    void await_resume() const noexcept {}
  };
  struct Ahead {
    uint8_t port = 0;  // the local port they were asked of (0: none)
    bool pi_done = false, ni_done = false;
    bool probe_left = false;  // its probe not taken yet
    bool link_up = false;  // walk_ca read the port's link up (and left its probe to the step)
    // (ni_done: the probe's answer came, it failed, or walk_ca read the link down)
    std::optional<iba::SMPPortInfo> pi;
    std::optional<iba::SMPNodeInfo> ni;
    std::coroutine_handle<> pi_wait, ni_wait;
  } ahead_;
  Task<> ahead_port_info();
  Task<> ahead_probe();
  void settle(bool& done, std::coroutine_handle<>& waiting);
  bool ahead_for(uint32_t n, uint8_t p) const {
    return ahead_.port && p == ahead_.port && n == db_.from_node && db_.node(n).dr.empty() && !db_.node(n).is_switch();
  }

  // Linear forwarding tables, read behind the walk (DiscoveryOptions::read_lft).
  void queue_lft(uint32_t n);
  Task<> lft_block(uint32_t n, uint32_t block);
  void lft_finished(uint32_t n, bool ok);

  void fail(const std::exception& e, const std::string& what) { add_discovery_failure(res_, e, what); }
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
  std::vector<std::vector<uint8_t>> spread_;  // spread_order by port count
  std::unordered_set<uint32_t> lft_bad_;
};

}  // namespace ibcore::walk
