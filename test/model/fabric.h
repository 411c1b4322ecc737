// The fabric model: a deterministic discrete-event simulation of an
// InfiniBand subnet's management plane, with a virtual clock.  It is an
// ibcore::Transport (port()), so the product's unchanged library code (the
// MAD engine, the scheduler, discovery, the PM scans) runs on it: send()
// injects a MAD at the tool's end port, recv() runs the simulation until a
// reply for the tool is there or the wait has passed in virtual time, and
// now() is the virtual time.  Used by tests and benchmarks only, never by
// the product (issue 24).
//
//   ibmodel::Fabric f(testbed::fattree(4), ibmodel::Profile::load("bench/profiles/sweep-d1-q4-s50.profile"));
//   ibcore::Scheduler sched(f.port());
//   ibcore::Subnet db;
//   ibcore::discover(sched, db);
//   f.stats().drops_vl15, f.seconds(), ...
//
// What is modelled (see HACKING.md "The fabric model and the clock"):
// - the topology of an ibsim .net text; LIDs assigned in breadth-first
//   order from the SM's port (LID 1), as OpenSM numbers a fresh subnet in
//   the order its sweep finds the ports; min-hop forwarding tables;
// - a latency per link hop;
// - the VL15 receive buffer of every port (depth D): an SMP arriving at a
//   full buffer is dropped;
// - one management processor per node (the switch's SMI/SMA, an HCA's SMA)
//   with a FIFO of capacity Q (the SMP in service included) and a service
//   time per SMP: a directed-route SMP visits the SMI of every intermediate
//   hop on the way out and again on the way back, a LID-routed SMP is
//   forwarded by the switch hardware and reaches only the destination's
//   SMA; a directed-route SMP with LID-routed parts (IBA 14.2.2: DrSLID,
//   the LRH's DLID naming the switch where the directed part begins;
//   DrDLID, where a final LID-routed part goes) visits only the SMIs of
//   its directed part, and malformed ones are dropped where the IBA says.  SMPs that find the FIFO full wait in their port's VL15 buffer
//   (which then fills and drops);
// - the PMA of every node and the SA (on the SM's node) as GMP servers with
//   service times and bounded queues that answer BUSY when full, as OpenSM
//   does;
// - the kernel's send timeout (umad: a send held until its reply, handed
//   back with ETIMEDOUT when none came);
// - optionally, the SM's own SMPs to every switch (Profile::sm_smps_per_s),
//   sharing the SMAs' queues and time with the tool.
// Everything is integer nanoseconds and a FIFO of events ordered by (time,
// sequence): the same inputs give the same event order and figures.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/base/config.h"
#include "core/transport/transport.h"

namespace ibmodel {

using Clock = ibcore::Clock;

// The named parameters of a model run.  A profile file has one parameter a
// line, `name = value`, `#` starts a comment (each parameter's comment says
// what it stands for and where its value comes from); unknown names and bad
// values are errors.  Parameters not in the file keep ideal()'s value.
struct Profile {
  std::string name = "ideal";
  // Latency of one link hop (wire, serdes and the switch's cut-through
  // forwarding), microseconds.
  double hop_latency_us = 0.3;
  // The data rate of one lane of every link, Gb/s (2 SDR, 4 DDR, 8 QDR,
  // 13.64 FDR, 25 EDR, 50 HDR, 100 NDR, 200 XDR): a MAD's packet (290
  // bytes on the wire: LRH, BTH, DETH, the 256-byte MAD, ICRC, VCRC) takes
  // 2320 / (rate x lanes) ns to cross a link, its width's lanes (a 1x link
  // 4 times a 4x link's time).  A directed-route SMP crosses each link to
  // a processor that takes it whole; a LID-routed packet is cut through
  // the switches and pays its path's slowest link once.  0: not charged
  // (every named profile: their figures predate it).  The bounds leave it
  // out (at most 1.2 us a hop, on a 1x SDR link): they stay floors.
  double lane_gbps = 0;
  // The local end port's own send and receive path (kernel, HCA), one way,
  // microseconds.
  double host_latency_us = 5;
  // The host's own side as one server (the tool's stack, or a simulator
  // like the test bed's ibsim that handles every MAD in turn): time each
  // MAD sent and each reply received takes of it, microseconds, FIFO and
  // unbounded (it drops nothing).  0: none, the path is latency only.
  double host_service_us = 0;
  // VL15 receive buffer depth of every port, packets (D); 0: unbounded.
  unsigned vl15_depth = 0;
  // A switch's management processor: FIFO capacity (Q, the SMP in service
  // included; 0: unbounded), time to forward one directed-route hop and to
  // answer one SMP as the SMA, microseconds.
  unsigned sma_queue = 0;
  double smi_forward_us = 0;
  double sma_service_us = 0;
  // A CA's SMA (its firmware): FIFO capacity and service time.
  unsigned hca_queue = 0;
  double hca_service_us = 0;
  // The PMA of every node: queue capacity (0: unbounded), service time per
  // MAD; a GMP that finds the queue full is answered BUSY (but see
  // pma_full_drops).
  unsigned pma_queue = 0;
  double pma_service_us = 0;
  // 1: the PMA runs on the node's management processor, as firmware PMAs
  // do: its MADs take that processor's time, in turn with the SMPs (one
  // from each while both wait); its queue stays its own (pma_queue).  0: a
  // processor of its own.
  unsigned pma_on_mp = 0;
  // 1: a MAD that finds the PMA's queue full is dropped, not answered BUSY
  // (a PMA without BUSY: the requester sees only a timeout).
  unsigned pma_full_drops = 0;
  // The SA: queue capacity, service time per request and per record of a
  // GetTable answer; full: BUSY.
  unsigned sa_queue = 0;
  double sa_service_us = 0;
  double sa_record_us = 0;
  // 1: SA tables come back whole (the kernel's RMPP reassembly); 0: only
  // their first MAD, as under the test bed's umad2sim.
  unsigned sa_rmpp = 0;
  // 1: the kernel times out a send it holds (umad); 0: only the engine's
  // own timers do.
  unsigned kernel_timeouts = 1;
  // What the ports report (log2 codes of IBA 14.2.5.6): PortInfo
  // RespTimeValue of switch port 0 and of CA ports, SubnetTimeOut, and
  // the PMA's ClassPortInfo RespTimeValue.
  unsigned switch_resp_time = 8;
  unsigned ca_resp_time = 0;
  unsigned subnet_timeout = 31;
  unsigned pma_resp_time = 18;
  // The node the SM (and SA) run on, by node description; empty: the first
  // Hca, the tool's own node (where the test bed starts OpenSM).
  std::string sm_node;
  // The SM's own SMPs to every switch's SMA (its sweeps and polls), per
  // second and switch, spread evenly in time; they take the SMA's service
  // time and a place in its queue like the tool's, and get no modelled
  // reply.  0: none.
  double sm_smps_per_s = 0;

  // The test bed: no drops, no service time, only link and host latency
  // (bench/profiles/ideal.profile holds the same values).
  static Profile ideal();
  // A profile drawn at random from seed (issue 35): every parameter
  // independently over a range wider than any one vendor's, named
  // "random-<seed>".  The same seed gives the same profile on every
  // platform (its own generator, splitmix64, and values rounded so that
  // to_text() reads back exactly).  The ranges and where they come from:
  // fabric.cpp, random().
  static Profile random(uint64_t seed);
  // "ideal", "random-<seed>" or a profile file's path.
  static Profile named(const std::string& what);
  // A profile file (throws std::runtime_error naming the file and line).
  static Profile load(const std::string& path);
  // The text of a profile file; name is the profile's name.
  static Profile parse(const std::string& text, const std::string& name);
  // Every parameter as `name = value` lines (what load() reads back).
  std::string to_text() const;
};

struct Stats {
  uint64_t mads_in = 0;          // MADs the tool sent into the fabric
  uint64_t replies = 0;          // responses handed to the tool
  uint64_t drops_vl15 = 0;       // SMPs dropped at a full VL15 receive buffer
  uint64_t drops_queue = 0;      // MADs dropped by a deaf node or a loss hook
  uint64_t drops_route = 0;      // MADs lost on a route: no link, a DR path through a CA, no such LID
  uint64_t drops_pma = 0;        // GMPs dropped at a full PMA queue (Profile::pma_full_drops)
  uint64_t busy = 0;             // BUSY answers (a full PMA or SA queue)
  uint64_t kernel_timeouts = 0;  // sends handed back with ETIMEDOUT
  uint64_t late_replies = 0;     // replies after their send had timed out (dropped by the kernel)
  uint64_t smi_forwards = 0;     // directed-route hops handled by an SMI
  uint64_t sma_answers = 0;      // SMPs answered by an SMA
  uint64_t gmp_answers = 0;      // GMPs answered by a PMA or the SA
  uint64_t sm_smps = 0;          // the SM's background SMPs handled (sm_smps_per_s)
  uint64_t sm_drops = 0;         // ... and dropped at a full VL15 buffer (not in drops_vl15)
  uint64_t events = 0;           // simulation events processed
  unsigned peak_sma_queue = 0;   // most SMPs held at one node for its management processor
  std::string peak_sma_node;     // where (node description)
  unsigned peak_pma = 0;         // most GMPs at one node's PMA at once (its queue, the one it
                                 // serves, and one arriving that it turned away: BUSY or dropped)
  std::string peak_pma_node;     // where
  double busiest_resource_s = 0; // the largest total service time of one processor or server
                                 // (a node's processor and its PMA as one under Profile::pma_on_mp)
  std::string busiest_resource;  // which
};

enum class ProcessorOrder { Fifo, ProbesFirst, Unqueued };

class Fabric {
public:
  // net_text: a topology in ibsim's .net format (test/testbed/topology.h).
  // Throws std::runtime_error on a bad topology.
  Fabric(const std::string& net_text, const Profile& p);
  ~Fabric();
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;

  // The tool's end port: the first Hca's first connected port (where ibsim
  // attaches its clients).
  ibcore::Transport& port();
  // The rest of the tools' invocation (the discovery mode, MLX_EPI, ...):
  // the tools (tools.h) run with this Config, its PortSettings part being
  // port().settings().
  ibcore::Config& config() { return config_; }
  // Whether the tools' walks use hybrid routes where they work (issue 38,
  // DiscoveryOptions::hybrid_routes); false: plain directed routes for the
  // probes, LID routing otherwise unchanged (the walk before issue 38).
  bool& hybrid_routes() { return hybrid_routes_; }
  // ... and read a switch's ports in spread order (DiscoveryOptions::spread_ports).
  bool& spread_ports() { return spread_ports_; }
  // ... and ask a node just found by the LID the SA gives its port (DiscoveryOptions::sa_lids).
  bool& sa_lids() { return sa_lids_; }
  // ... and count a probe against the node the SA's LinkRecords say it reaches (DiscoveryOptions::sa_links).
  bool& sa_links() { return sa_links_; }
  // ... and send first only the probes towards switches not found yet (DiscoveryOptions::leads_first).
  bool& leads_first() { return leads_first_; }
  // ... and ask a switch's ports towards switches not found yet first (DiscoveryOptions::leading_ports_first).
  bool& leading_ports_first() { return leading_ports_first_; }
  // ... and fork a switch's ports before its NodeDescription and SwitchInfo (DiscoveryOptions::ports_before_info).
  bool& ports_before_info() { return ports_before_info_; }
  // ... and send the start node's first round trips ahead (DiscoveryOptions::ahead).
  bool& ahead() { return ahead_; }
  // The SA's NodeRecords give each port the LID of the port after it, and
  // its LinkRecords lead there (a stale SA: LIDs handed out again since it
  // read them).
  bool& stale_sa();
  // The order in which the switches' processors serve the SMPs they
  // hold: first come first served, as the hardware does; or orders no tool
  // can impose, for measuring what the walk's questions cost (model_run
  // --free-probes-first, --free-unqueued): the NodeInfo SMPs (probes,
  // forwarded or answered) first and the SM's last (ProbesFirst); or every
  // SMP held served at once, each in its service time, none waiting
  // behind another (Unqueued: no longer a bound on any strategy, the
  // walk's round trips alone).
  ProcessorOrder& order();
  const Stats& stats() const;
  const Profile& profile() const;
  // Virtual time: now, and seconds since the model started.
  Clock::time_point now() const;
  double seconds() const;

  // --- the topology -------------------------------------------------------
  size_t node_count() const;
  int node_by_desc(const std::string& desc) const;  // -1: none
  const std::string& desc(int node) const;
  bool is_switch(int node) const;
  uint16_t lid(int node, unsigned port = 0) const;  // a switch's (port 0) or a CA port's LID
  int local_node() const;
  int sm_node() const;
  // The most hops from the tool's node to any node it can reach (directed
  // routes pass only switches): the discovery's depth.
  unsigned depth() const;
  // The number of link hops from the tool's node to node n (-1: unreachable).
  int hops_to(int node) const;
  // The port switch sw forwards a packet for lid on (0: itself, 0xff: none):
  // what its LinearForwardingTable says.
  uint8_t route(int sw, uint16_t lid) const;

  // --- lower bound (issue 24 item 2a) --------------------------------------
  // The round trip of a directed-route SMP to a node h hops away in an
  // empty fabric (links both ways, the SMI of the h-1 intermediate switches
  // both ways, the destination's SMA service), seconds.
  double dr_round_trip_s(unsigned h) const;
  // The critical path of a discovery: a node h hops away is found only
  // after the node h-1 hops away answered, so the sum of the round trips
  // to depths 1..depth().
  double critical_path_s() const;
  // max(busiest resource's total work so far, critical path): what this
  // run's own traffic cost, its resends and the SM's SMPs included (the
  // bound before issue 35; MODEL_DETAIL shows it).
  double work_bound_s() const;

  // --- the bound of a run (issue 35 item 2) ----------------------------------
  // What the tool's MADs asked of each resource, in visits (not time): per
  // node its SMI's forwards, its SMA's answers and its PMA's answers; the
  // SA's requests (of them GetTables) and the host's server's MADs.  The
  // SM's background SMPs are not in it.
  struct Demand {
    std::vector<uint64_t> smi, sma, pma;  // by node
    // By node: the NodeInfo probes whose directed route's last hop left by
    // one of its ports (a probe's unavoidable visits, under any route form:
    // 2 at that switch's SMI).
    std::vector<uint64_t> probes;
    uint64_t sa_requests = 0, sa_tables = 0, host = 0;
  };
  // The visits of every MAD the tool sent so far (resends each again).
  Demand demand() const;
  // The least time in which this fabric serves the visits d: the largest of
  // the critical path, the busiest resource's time for d at this
  // profile's service times, and the largest of a node's own time for d
  // after the walk reached it (the round trips to the depths before its
  // own, its way there and back: a slow CA at the deepest level answers
  // all its queries after that), where a switch's processor also gives the SM
  // its background SMPs at their rate: over a bound of T seconds the SM
  // takes rho = sm_smps_per_s x sma_service_us of each second, so the
  // processor's W of the tool's work needs T >= W / (1 - rho).  Given the
  // demand of the queries a tool must make, each once (run_tool: a run on
  // the same fabric with every service time 0 and every queue unbounded,
  // where nothing is lost or resent), it does not depend on how the run
  // went.  It is a target more than a strict floor where the SM is busy:
  // a run beats it by having the SM's SMPs dropped (Stats::sm_drops), or
  // by a few percent when the SM's last SMPs wait behind the tool's last
  // ones and are served after the run ended (random-138 on k=8: 0.986x).
  double bound_s(const Demand& d) const;
  // A bound no route form beats (issue 38): the largest of
  //  - the busiest resource's unavoidable work for d: a node's SMA
  //    answering its own queries (d.sma), 2 SMI visits for each probe of
  //    its ports (d.probes: a one-hop directed tail, the least any IBA
  //    route form needs to find what is behind a port), its PMA (on the
  //    processor's time under Profile::pma_on_mp, else its own); the SA and
  //    the host's server as in bound_s (the SM's share of a switch too);
  //    a node's after the walk reached it by the cheapest probes, as in
  //    bound_s;
  //  - the critical path by the shortest route form to each depth
  //    (probe_round_trip_s);
  //  - the window's limit: mads MADs, at most window in flight, each
  //    holding its place for at least its own class's least round trip to
  //    where it goes (the host's path, the links both ways and the server
  //    that answers it): an SMP its node's SMA's (by LID), a PM GMP its
  //    PMA's (pma_service_us), an SA request the SA's, a probe besides
  //    its node's answer the 2 SMI forwards at its switch; the local node's
  //    SMPs left out (the engine may send them outside the window), MADs
  //    d does not place charged the shortest SMP's.
  // Forwarding by the SMIs of switches on the way, which bound_s charges
  // to the directed routes the tool takes, is not in it.
  double phys_s(const Demand& d, uint64_t mads, unsigned window) const;
  // phys_s for a walk that reads a port's PortInfo before it probes
  // through it (this walk's shape, and the reference's): each depth but
  // the last costs its probe's round trip and then a LID-routed round
  // trip to the node found, before the next depth's probe can go.  A
  // diagnostic, not issue 35's bound: time over it is what the order of
  // the walk's questions leaves, time over it against time over phys_s
  // what that shape costs (docs/real-fabrics.md, "Where a walk's level
  // goes").
  double walk_s(const Demand& d, uint64_t mads, unsigned window) const;
  // The round trip of the cheapest probe of a node h hops away in an empty
  // fabric: a directed route for h = 1, else LID-routed to the switch
  // before it and a one-hop directed tail (2 SMI services), seconds.
  double probe_round_trip_s(unsigned h) const;
  // The topology text the fabric was made from.
  const std::string& net_text() const;

  // --- per node counters (tests) --------------------------------------------
  uint64_t smi_visits(int node) const;   // DR hops node's SMI forwarded (either way)
  uint64_t sma_visits(int node) const;   // SMPs node's SMA answered
  uint64_t pma_visits(int node) const;   // GMPs node's PMA answered
  uint64_t vl15_drops(int node, unsigned port) const;
  unsigned peak_held(int node) const;    // most SMPs held at node for its processor at once
  unsigned peak_own(int node) const;     // ... of them the tool's own (the SM's background SMPs not counted)

  // --- test hooks -----------------------------------------------------------
  // The VL15 receive buffer of one port holds at most depth packets
  // (overrides the profile's D for that port).
  void set_vl15_depth(int node, unsigned port, unsigned depth);
  // A port's VL15Dropped counter, as its PMA reports it (and in its
  // switch's AllPortSelect sum), set to count: drops before the run, for
  // the PM scans to find.
  void set_vl15_dropped(int node, unsigned port, uint64_t count);
  // A deaf node's management processor and PMA drop whatever reaches them.
  void set_deaf(int node, bool deaf);
  // Scale the service times of one node's processors (a slow node).
  void set_slow(int node, double factor);
  // Drop every n-th request the tool sends (0: none), counting from the
  // next one: a deterministic loss.
  void set_loss_every(unsigned n);
  // The SM's background SMPs (Profile::sm_smps_per_s) start only at virtual
  // time `at` (seconds since the model started): an SM that begins a sweep
  // partway through a run.  Before then every switch's come and go unserved.
  void set_sm_from(double at_s);
  // Drop every SMP with a LID-routed first part (DrSLID set) as it leaves
  // the tool's port, as the test bed's ibsim does (issue 38's fallback).
  void set_drop_hybrid(bool on);
  // Every event as one line (time in ns, what, where) to f; nullptr: off.
  void set_trace(std::function<void(const std::string&)> f);
  // Every event on stderr when environment variable var is 1 (MODEL_TRACE,
  // MODEL_TRACE_FREE).
  void trace_if(const char* var);

  struct Impl;  // the model's state (fabric.cpp)

private:
  std::unique_ptr<Impl> impl_;
  ibcore::Config config_;
  bool hybrid_routes_ = true;
  bool spread_ports_ = true;
  bool sa_lids_ = true;
  bool sa_links_ = true;
  bool leads_first_ = true;
  bool leading_ports_first_ = true;
  bool ports_before_info_ = true;
  bool ahead_ = true;
};

}  // namespace ibmodel
