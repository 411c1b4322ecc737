// The tools of the model bench (issue 24 item 2) as library calls on a
// fabric model: what ibnetdiscover, iblinkinfo, dump_fts, ibqueryerrors and
// an exporter scrape ask of the fabric, through the same core functions
// the commands call (discover_live, obtain_subnet, discover with read_lft,
// PmAccess, PortCountersReader).  The two PM scans' read-ahead pattern is
// the commands' (cmd/ibqueryerrors.cpp, cmd/exporter.cpp, which are not
// library code): each node's PM reads start as soon as the walk knows its
// LID, from a pool of 24 workers.
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
  size_t errors = 0;       // queries that failed for good
  uint64_t mads = 0;       // MADs the engine sent (resends included)
  uint64_t retries = 0;    // the engine's resends (timeouts and BUSY)
  uint64_t drops = 0;      // MADs the model lost
  uint64_t timeouts = 0;   // sends handed back timed out
  unsigned peak_sma_queue = 0;
  double time_s = 0;       // virtual time the run took
  double bound_s = 0;      // the model's lower bound (Fabric::bound_s)
  std::string busiest;     // the busiest resource (Stats::busiest_resource)
  std::string peak_node;   // where the peak was (Stats::peak_sma_node)
  ibcore::FlowStats flow;  // what the engine's flow control saw
  size_t left_in_flight = 0;  // MADs still out when the tool's run returned
};

// Run tool on f's port (a Scheduler of its own, with f.port().settings():
// -t, --retries, -o; and f.config(): --discovery) from f's current time; limits, when
// given, replace its engine's flow-control limits (tests).  Throws
// std::runtime_error for an unknown tool.
ToolResult run_tool(const std::string& tool, Fabric& f, const ibcore::FlowLimits* limits = nullptr);

// The reference's strategy (infiniband-diags 44 with libibmad's
// defaults): directed route only, 2 MADs in flight, 1000 ms timeout, 3
// retries: f's port settings and discovery mode.
void use_reference_strategy(Fabric& f);

}  // namespace ibmodel
