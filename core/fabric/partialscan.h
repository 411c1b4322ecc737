// The reference's partial fabric scans (iblinkinfo -S/-G/-D with -n/-a):
// which nodes, ports and links infiniband-diags' discovery finds when it
// starts at another node and stops extending directed routes once its hop
// count passes a limit.  Its result depends on the order its SMP queue is
// processed in, so it is replayed here on a complete database of the same
// fabric (the FIFO order the reference follows, with replies in the order
// sent), giving the same partial database whatever ibtool's own discovery
// order was.
//
//   ibcore::PartialScan ps;
//   ps.start_hops = {3};          // DR path 0,3
//   ps.max_hops = 1;              // iblinkinfo -n 1
//   ibcore::Subnet part = ibcore::replay_partial_scan(full, ps);
//
// The replay follows the reference's rules: the start node probes every
// LinkUp port (the local start a CA: its own port); other switches every
// LinkUp port but the one they were first entered by; a CA start reached
// by a DR path of more than one hop steps back along it; a DR path cannot
// be extended through a CA (that probe gets no answer); and a route is only
// extended while the largest hop count reached so far (relative to the
// start) does not exceed max_hops.  A probe reaching a known node links the
// two ports (a port linked again drops its old partner, as in the
// reference).
#pragma once

#include <cstdint>
#include <vector>

#include "core/fabric/subnet.h"

namespace ibcore {

struct PartialScan {
  // DR hops from the local port to the start (empty: the local node).
  std::vector<uint8_t> start_hops;
  // Start at this port slot of the full database instead (a LID routed
  // start, -S/-G: a CA start then stays alone, as its route cannot be
  // extended).  NO_INDEX: use start_hops.
  uint32_t start_port = NO_INDEX;
  unsigned max_hops = 0;  // 0 = no limit
};

// Throws Error when start_hops leave the known graph.
Subnet replay_partial_scan(const Subnet& full, const PartialScan& ps);

}  // namespace ibcore
