// SA discovery (SPEC.md §Discovery, mode SA): the subnet database filled
// from the subnet administrator's records only; no SMP is sent.
//
//   ibcore::Scheduler sched(umad);
//   ibcore::Subnet db;
//   ibcore::DiscoveryResult r = ibcore::discover_sa(sched, db, opt);
//
// The walk starts at the local port's LID and asks, once each and many in
// flight on the scheduler:
//   NodeRecord(LID)                      a node (NodeInfo + NodeDescription),
//                                        for every LID a link leads to;
//   SwitchInfoRecord(LID)                every switch;
//   PortInfoRecord(LID, port)            switch ports 0..N, and every CA or
//                                        router port reached;
//   LinkRecord(fromLID, fromPort)        every LinkUp switch port (and the
//                                        start CA's own port) whose peer is
//                                        not known yet: the link and the LID
//                                        at its other end.
// Only SubnAdmGet is used, each query naming exactly one record: an SA
// GetTable answer that arrives truncated (no RMPP, as under umad2sim) could
// not give the whole fabric, and one Get per record works everywhere.
// With read_lft/read_mft the switch tables come from LinearForwarding-
// TableRecords and MulticastForwardingTableRecords the same way.
//
// The SA knows only what the SM configured: ports without a LID (a CA port
// the SM did not bring up) are not reached, and MlnxExtPortInfo (FDR10) is
// not available.  A failed record query leaves that part out and is
// reported in DiscoveryResult::errors, as in the SMP modes.  Each node's DR
// path (Node::dr) is computed from the graph afterwards, so commands that
// later address nodes by directed route still can.
#pragma once

#include <vector>

#include "core/fabric/discovery_options.h"
#include "core/fabric/subnet.h"
#include "core/rpc/sched.h"

namespace ibcore {

// Throws MADError (annotated) when the start node's record cannot be read
// (no LID on the local port, no SA).
DiscoveryResult discover_sa(Scheduler& sched, Subnet& db, const DiscoveryOptions& opt = {});

// Read the LFT and/or MFT of the given switches from the SA into
// db.tables(n).
void read_switch_tables_sa(Scheduler& sched, Subnet& db, const std::vector<uint32_t>& switches, bool lft, bool mft,
                           DiscoveryResult* res = nullptr);

}  // namespace ibcore
