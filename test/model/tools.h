// The tools of the model bench (issue 24 item 2) as library calls on a
// fabric model: what ibnetdiscover, iblinkinfo, dump_fts, ibqueryerrors and
// an exporter scrape ask of the fabric, through the same core functions
// the commands call (discover_live, obtain_subnet, discover with read_lft,
// PmAccess).  The two PM scans run the fabric counter scan's own code
// (core/health/scan.h): ibqueryerrors ErrorScan::obtain then ErrorScan::run
// as the command does, the exporter PortScan::walk; each node's PM reads
// start as soon as the walk knows its LID.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/config.h"
#include "core/rpc/rpc.h"
#include "test/model/fabric.h"

namespace ibmodel {

// ibnetdiscover, iblinkinfo, ibqueryerrors, dump_fts, exporter.
const std::vector<std::string>& tool_names();

struct ToolResult {
  size_t nodes = 0;        // nodes discovered
  size_t errors = 0;       // queries that failed for good, as the tool knows them: the walk's and the
                           // PM scan's (ibqueryerrors' and the exporter's discovery included)
  // What the run obtained, one unit per answer a complete run gets: a
  // node's NodeInfo, its NodeDescription, a switch's SwitchInfo, each
  // port's PortInfo; dump_fts: each switch's whole LFT; ibqueryerrors: each
  // LID's (or port's) counters; the exporter: each port's counters.
  size_t units = 0;
  // Units the complete run (below) obtained and this one did not: queries
  // lost for good, and those never made because of them (the ports of a
  // node the walk never found, which no error names).
  size_t lost = 0;
  uint64_t needed = 0;     // MADs the complete run sent: the queries the tool must make, each once
  uint64_t mads = 0;       // MADs the engine sent (resends included)
  uint64_t retries = 0;    // the engine's resends (timeouts and BUSY)
  uint64_t drops = 0;      // MADs the model lost
  uint64_t timeouts = 0;   // sends handed back timed out
  uint64_t sm_drops = 0;   // the SM's background SMPs dropped at a full VL15 buffer during the run
  unsigned peak_sma_queue = 0;
  // The most of the tool's own SMPs held at one node beyond its queue plus
  // its VL15 depth (Profile sma_queue or hca_queue, vl15_depth; 0: never
  // beyond, or unbounded).  The SM's background SMPs are not counted.
  unsigned peak_over = 0;
  std::string peak_over_node;  // where (the first node that held that many)
  // The most GMPs at one PMA at once (Stats::peak_pma), and how many of
  // them beyond its queue (Profile pma_queue; 0: never beyond, or unbounded).
  unsigned peak_pma = 0, pma_over = 0;
  double time_s = 0;       // virtual time the run took
  double bound_s = 0;      // Fabric::bound_s of the complete run's demand: independent of this run
  double phys_s = 0;       // Fabric::phys_s of the same: a bound no route form beats (issue 38)
  double walk_s = 0;       // Fabric::walk_s of the same: phys_s for the walk's shape (a port read before its probe)
  std::string busiest;     // the busiest resource (Stats::busiest_resource)
  std::string peak_node;   // where the peak was (Stats::peak_sma_node)
  ibcore::FlowStats flow;  // what the engine's flow control saw
  size_t left_in_flight = 0;  // MADs still out when the tool's run returned
};

// Run tool on f's port (a Scheduler of its own, with f.port().settings():
// -t, --retries, -o; and f.config(): --discovery) from f's current time; limits, when
// given, replace its engine's flow-control limits (tests).  Throws
// std::runtime_error for an unknown tool.
//
// The complete run (issue 35): the same tool with the same settings on a
// twin of f (the same topology, and of f's profile only what changes what
// is asked: the SM's node, sa_rmpp, kernel_timeouts), every service time 0,
// every queue and buffer unbounded and no SM traffic, with the default
// flow-control limits: nothing is lost, nothing resent, so its MADs are
// the queries the tool must make, each once, and what it obtains is the
// whole fabric.  Its demand gives bound_s, its units lost.  Made once per
// topology, tool and settings in a process (kept for the next run).
ToolResult run_tool(const std::string& tool, Fabric& f, const ibcore::FlowLimits* limits = nullptr);

// The reference's strategy (infiniband-diags 44 with libibmad's
// defaults): directed route only, 2 MADs in flight, 1000 ms timeout, 3
// retries: f's port settings and discovery mode.
void use_reference_strategy(Fabric& f);

// The free strategy (model_run --free): tool on net with profile p, every
// queue and buffer unbounded (nothing drops), no flow control (limits with
// no node or processor cap, no processor level, the window at its hard
// maximum from the first MAD: outstanding, else 256) and hybrid routes as
// asked.  What the walk's own order of questions costs on that fabric,
// latencies, service times and the SM's load included; not a bound (a
// FIFO that holds everything is not the best order), but a strategy, so
// no bound may exceed its time.  order: the processors' (Fabric::order;
// Unqueued is no strategy, so below the bounds).  MODEL_TRACE_FREE=1: its
// events on stderr.
ToolResult run_free(const std::string& tool, const std::string& net, Profile p,
                    const ibcore::FlowLimits& limits = {}, bool hybrid = true, unsigned outstanding = 0,
                    ProcessorOrder order = ProcessorOrder::Fifo);

}  // namespace ibmodel
