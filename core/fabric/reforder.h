// The reference's view of a discovered subnet (RefView, core/fabric/subnet.h):
// infiniband-diags' discovery replayed on the graph the database holds, so
// every printer and cache writer gives the reference's node order and first
// replies whatever order ibtool's own replies came in.  The replay reads the
// database and returns its result; it changes nothing in it (discovery
// attaches the result with Subnet::set_reference).
//
//   db.set_reference(ibcore::replay_reference(db, /*with_progress=*/false));
//   for (uint32_t i : db.reference_order(NodeType::Switch)) ...
//   ibcore::Raw64 ni = db.ref_node_info(db.node(i));  // as the reference stored it
//
// The replay: the reference keeps one FIFO of SMPs; with replies arriving
// in the order sent (a healthy fabric), every reply is handled in FIFO order
// whatever the number in flight.  Handling a NodeInfo reply for a new node
// creates it and queues NodeDescription, and for a switch SwitchInfo and
// PortInfo(0); a non-switch queues PortInfo of the port reached.  Handling
// switch PortInfo(0) queues PortInfo(1..N).  Handling PortInfo(p) of a
// LinkUp port that is not the port the switch was entered by (or the local
// port of a CA start node) queues a NodeInfo one hop further.  Replaying
// that FIFO on the discovered graph gives its node creation order exactly,
// and the port each node's first NodeInfo reply came through.
#pragma once

#include <cstdint>

#include "core/fabric/subnet.h"

namespace ibcore {

// The reference's view of db, by replaying its discovery from db.from_node
// (an empty view when that is not set).  Nodes the replay does not reach (a
// partial graph) rank last, in index order, with their images' own facts.
// with_progress: also the reference's -s progress lines (RefView::progress).
RefView replay_reference(const Subnet& db, bool with_progress = false);

// The view a database's images already are, as in a cache file the
// reference wrote: each node's first reply facts and each port's
// LocalPortNum read from the images (rank and the rest left empty, for the
// loader to fill).
RefView recorded_view(const Subnet& db);

// Node n was first entered by port `entry` (v sized for db, as
// recorded_view makes it): its NodeInfo LocalPortNum and PortGUID (a CA's:
// the GUID of that port) and the LocalPortNum of its PortInfo replies (a
// switch's all come through the entry port; a CA's each through its own).
void record_entry(RefView& v, const Subnet& db, uint32_t n, uint8_t entry);

}  // namespace ibcore
