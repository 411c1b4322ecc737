// What a discovery is asked (DiscoveryOptions) and what it gives back
// besides the database it fills (DiscoveryResult): the same for the SMP
// walk (core/fabric/discovery.h, whose discover() is the one entry point)
// and the SA's (core/fabric/sadiscovery.h), so neither includes the other's
// header for them.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/base/config.h"
#include "core/rpc/rpc.h"
#include "core/fabric/subnet.h"
#include "iba/smp.h"

namespace ibcore {

struct DiscoveryOptions {
  // Auto: LID routed when the local port has a LID, else DR.  A command
  // passes its --discovery / --sa (discovery_mode(cfg)).
  DiscoveryMode mode = DiscoveryMode::Auto;
  // Stop probing past this many hops (0 = no limit).
  unsigned max_hops = 0;
  // Read MlnxExtPortInfo on the Mellanox devices that have it (FDR10).
  bool mlx_epi = true;
  // Also read the linear forwarding table of every switch: during the walk,
  // a switch's blocks as soon as its SwitchInfo is in (they fill the MAD
  // window whenever the walk itself has too little to ask), and once every
  // node is known the rest in the reference's switch order, so a caller
  // printing in that order (on_lft) can print while the others are read.
  bool read_lft = false;
  // With read_lft: the LIDs of each table to read, clipped to the switch's
  // LinearFDBTop (the table holds [0, min(lft_last, top)], 0xff where not read).
  unsigned lft_first = 0, lft_last = iba::UNICAST_LID_LAST;
  // Called once every node and link is known (the reference order is
  // computed then), while table reads may still be in flight.
  std::function<void()> on_discovered;
  // With read_lft: called when the linear forwarding table of switch n is
  // read (Subnet::tables(n).lft_valid) or failed (not valid: a line in
  // DiscoveryResult::errors).  Not called for a switch whose SwitchInfo
  // failed (its table is read, or fails, after the walk).
  std::function<void(uint32_t n)> on_lft;
  // Also read the multicast forwarding table of every switch.
  bool read_mft = false;
  // Also compute the reference's -s progress lines (RefView::progress).
  bool progress = false;
  // Start somewhere else than the local port (DR hops; empty = local).
  std::vector<uint8_t> from;
  // SMP walks: called as soon as a node's LID is known (a switch's PortInfo
  // 0, port = 0; a CA's or router's PortInfo of the port it was reached by)
  // so a command can start its own queries for the node on the walk's
  // scheduler while the walk goes on (the walk runs what it spawns to
  // completion).  db is the database being filled (it grows meanwhile: hold
  // indices, not references).
  std::function<void(const Subnet& db, uint32_t node, unsigned port)> on_port_lid;
  // A query that failed on every route (after the MAD engine's resends) is
  // asked again while retry(error, times already asked again) says so: a
  // caller's retry policy, e.g. the exporter's scrape budget
  // (core/health/pmscrape's RetryBudget), which its PM reads share.
  // Unset: a failure is final (a line in the result's errors).
  std::function<bool(const std::exception&, unsigned)> retry;
  // LID mode: probes and the queries before a node's LID is known go
  // LID-routed to the switch their last hop leaves, with a one-hop directed
  // tail (IBA 14.2.2), where that works (core/fabric/proberoutes.h
  // Routes).  false: plain directed routes (as --discovery DR has them).
  bool hybrid_routes = true;
  // With hybrid routes, a switch's ports are read and probed in spread
  // order (0 4 2 6 1 5 3 7 for 8 ports), not one after the other
  // (core/fabric/walk.cpp Walk::spread_order).  false: in port order.
  bool spread_ports = true;
  // With hybrid routes, once they work: the SA's LIDs are read (one
  // GetTable, left unanswered if the walk ends first), and a switch just
  // found has its ports' PortInfos asked by the LID the SA gives it,
  // together with its PortInfo 0, which confirms that LID (or the answers
  // are dropped and asked again): a round trip less a level
  // (core/fabric/walk.cpp Walk::sa_lids).  false: they wait for PortInfo 0.
  bool sa_lids = true;
  // ... read as the SA's LinkRecords: the LID behind each switch port
  // (which also gives a switch just found its LID), so that a probe
  // through a switch's port counts, in the flow control, against the node
  // it reaches, and neighbours probing one switch at once hold no more
  // there than its cap (Walk::probe_route).  false: the switches'
  // NodeRecords (their LIDs by port GUID), and each probe counts against
  // its own route until it answers.
  bool sa_links = true;
  // ... and with both, a probe towards a switch not found yet goes first
  // (IBPath::urgent: its answer starts that switch's work), one towards a
  // CA or a switch already found waits its turn (IBPath::probe: nodes
  // still keep room for it).  false: every probe first.
  bool leads_first = true;
  // ... and a switch's PortInfos asked with its ports towards switches not
  // found yet first, so that their probes go sooner (Walk::fork_ports).
  // false: in spread order alone.
  bool leading_ports_first = true;
  // With hybrid routes, a switch just found has its ports' steps forked
  // before its NodeDescription and SwitchInfo: the next level waits on
  // its ports' probes (Walk::walk_switch).  false: after them.
  bool ports_before_info = true;
  // Walking from the local port: the PortInfo of that port and the probe
  // through it go with the start node's NodeInfo, and the probe's answer
  // is taken when it comes, not after that PortInfo (core/fabric/walk.h
  // Walk::Ahead).  false: one after the other, as before.
  bool ahead = true;
};

struct DiscoveryResult {
  std::vector<std::string> errors;  // one line per failed query (partial result)
  // For the failures the reference reports too (a directed-route SMP of the
  // walk that failed): errors[i]'s line as infiniband-diags 44's discovery
  // library prints it (reference_smp_warning), keyed by i.
  std::map<size_t, std::string> reference_lines;
  uint64_t mads = 0;                // MADs sent (resends included)
  uint64_t queries = 0;             // queries made (each MAD once, without resends)
  uint64_t resent = 0;              // MADs sent again (timeout or BUSY)
  FlowStats flow;                   // the engine's flow control, at the end (-v)
  std::string routes;               // the route forms the walk used, and why (-v)
  DiscoveryMode mode_used = DiscoveryMode::DR;
};

}  // namespace ibcore
