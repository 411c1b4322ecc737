// The ibcheck* family's checks over a list of ports: port state, link
// width and speed (checks.h), IDs and the live duplicate-GUID probe, the
// links of a baseline (baseline.h), and the error counters against their
// thresholds through the fabric counter scan (scan.h PortScan), whose rows
// become findings here.
#pragma once

#include <cstdint>
#include <vector>

#include "core/base/config.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/subnet.h"
#include "core/health/baseline.h"
#include "core/health/checks.h"
#include "core/health/counters.h"

namespace ibcore::health {

struct CheckItem {
  uint32_t node;
  unsigned port;
};

// What is checked.
struct CheckPlan {
  bool state = false, width = false, speed = false, errors = false, ids = false;
  bool target = false;  // one node's ports, named: each end checks its link, every one's counters are read
  bool named = false;   // the port itself was named (its state must be LinkUp)
};

// A port with something to check: it has PortInfo and is connected (a
// peer, or LinkUp).
bool port_checkable(const Subnet& db, const Node& n, unsigned p);

// Every check of plan on items, the error counters read on a session
// opened from cfg.  nodes: the nodes checked, in the order the findings
// are sorted by (then by port); a node of a cache that left the fabric is
// one finding, and its items are dropped.  base: the baseline's links (may
// be empty); map: the names the baseline's findings use.
std::vector<Finding> run_checks(const Config& cfg, const Subnet& db, const std::vector<uint32_t>& nodes,
                                std::vector<CheckItem>& items, const CheckPlan& plan, const Thresholds& thr,
                                const std::vector<ExpectedLink>& base, const NodeNameMap& map);

}  // namespace ibcore::health
