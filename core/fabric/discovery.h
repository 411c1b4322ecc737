// Fabric discovery into the subnet database (core/fabric/subnet.h), on the parallel
// MAD scheduler (core/rpc/sched.h).
//
//   ibcore::Umad umad(ep.ca, ep.port);
//   ibcore::Scheduler sched(umad);
//   ibcore::Subnet db;
//   ibcore::DiscoveryResult r = ibcore::discover(sched, db, {.mode = discovery_mode(cfg)});
//
// What is asked, once each: NodeInfo through every LinkUp port (the probe
// that finds a link; a link already found from its other end is not probed
// again), NodeDescription of every node, SwitchInfo and PortInfo 0..N of
// every switch, PortInfo of every CA/router port that was reached.  Many
// MADs are in flight (the port's settings().outstanding); lost MADs are resent by the
// engine; a probe that still fails (a link removed mid-run) leaves that link
// out and is reported in DiscoveryResult::errors, it never hangs the run.
//
// Modes:
//   DR   directed route only (works on an unconfigured subnet).
//   LID  once a node's LID is known its remaining queries are LID routed;
//        the probes that find links stay directed route.  Needs an active
//        local port with a LID.
//   Auto LID when the local port is active with a LID, else DR.
// At the end the reference's view is computed (replay_reference,
// core/fabric/reforder.h), so output never depends on reply order.
#pragma once

#include <chrono>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/base/config.h"
#include "core/rpc/sched.h"
#include "core/fabric/discovery_options.h"
#include "core/fabric/subnet.h"

namespace ibcore {

// Whether a device (NodeInfo DeviceID, VendorID) answers MlnxExtPortInfo
// (Mellanox devices with FDR10), as the reference tools decide it.
bool mlnx_ext_supported(uint16_t devid, uint32_t vendid);

// The line infiniband-diags 44's discovery library (libibnetdisc's SMP
// engine) writes to stderr when a directed-route SMP fails:
//   ./libibnetdisc/query_smp.c:186; umad (DR path slid 0; dlid 0; 0,1,3 Attr 0x11:0) bad status 110; Connection timed out
//   ./libibnetdisc/query_smp.c:193; mad (DR path slid 0; dlid 0; 0,1,3 Attr 0x15:2) bad status 0x1c
// so that monitoring scripts that count or parse those lines read ibtool's
// the same way.  Empty when e is not such a failure (no request kept, not a
// directed-route SMP, or neither a timeout nor a MAD status).
std::string reference_smp_warning(const std::exception& e);

// Record a failed query in r: its line (what, then the error's layers) and
// the reference's line for it where it has one (reference_smp_warning).
void add_discovery_failure(DiscoveryResult& r, const std::exception& e, const std::string& what);

// What a discovery's failures print on stderr: each failure's reference
// line where it has one, and ibtool's own "W: discovery: ..." line (which
// also names the node and the query) where it has none or with -v.  from:
// the first failure to print.
void report_discovery_errors(const DiscoveryResult& r, size_t from = 0);
// With -v: "I: discovery: N MADs sent for Q queries (R resent), T s", the
// time counted from started (every command that walks the fabric says it),
// and the engine's "I: flow: ..." line (core/rpc/flow.h report_flow).
void report_discovery_stats(const DiscoveryResult& r, std::chrono::steady_clock::time_point started);

// Discover the fabric reachable from the scheduler's end port.  Throws
// MADError (annotated) when the start node itself does not answer.
DiscoveryResult discover(Scheduler& sched, Subnet& db, const DiscoveryOptions& opt = {});

// The DR path of node n from the local port, as an IBPath.
IBPath dr_path_of(const Subnet& db, uint32_t n);

// The path for queries to switch n after discovery (its tables): LID routed
// when the switch has a LID and the local port (local_lid) is active,
// unless DR discovery was asked for (mode); else its DR path.
IBPath switch_path(const Subnet& db, uint32_t n, uint16_t local_lid, DiscoveryMode mode);

}  // namespace ibcore
