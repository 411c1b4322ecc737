// The fabric counter scan: which ports are read, at which LID, in which
// order, and what is read of each.  Every command that reads or clears PM
// counters across the fabric is a consumer of it and only turns its rows
// into findings, lines or metrics:
//
//   - ErrorScan, node by node, each node's error counters against the
//     thresholds (ibqueryerrors, the report): the PMA's ClassPortInfo at
//     the node's LID, a switch's AllPortSelect sum first (its ports one by
//     one only when the sum shows a counter beyond its threshold), else
//     each port; --details' and --data's reads of a port beyond threshold,
//     the clears after the reads; read ahead while discovery walks
//     (ahead()).
//   - PortScan, port by port, a list of ports each read with the counter
//     groups wanted (ibcheck*, ibdatacount*, the exporter), a switch's sum
//     standing for its ports' reads where it proves them zero; the details,
//     the per-VL counters and the reset of saturated counters (the
//     exporter's collectors); read ahead while discovery walks (walk()).
//   - clear_node(): a node's counters cleared, a switch's ports in one
//     AllPortSelect Set where its PMA has it (ibclear*, ibqueryerrors -k/-K).
//
// Every PM MAD they send goes through one PortCountersReader
// (core/health/pmscrape), so a LID's ClassPortInfo and its switch's sum are
// asked once whoever asks.  The rules they share are written once: the
// LID a port is read at (checks.h port_lid: Subnet::lid_of), and here the
// node kinds and ports selected (PortSelect), the threshold test (beyond)
// and the read-ahead's width (READ_AHEAD).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/base/config.h"
#include "core/fabric/discovery_options.h"
#include "core/fabric/obtain.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/subnet.h"
#include "core/health/counters.h"
#include "core/health/pmaccess.h"
#include "core/health/pmscrape.h"
#include "core/rpc/sched.h"
#include "iba/pm.h"

namespace ibcore {
class Regex;
}

namespace ibcore::health {

// PM queries the read-ahead keeps in flight while discovery walks, at
// first: the walk keeps the rest of the MAD window.
constexpr unsigned READ_AHEAD = 24;

// The node kinds a scan selects (ibqueryerrors --switch/--ca/--router, the
// exporter's --port-type).
enum NodeKinds : unsigned { KIND_SWITCH = 1, KIND_CA = 2, KIND_ROUTER = 4, KIND_ALL = 7 };
unsigned kind_of(const Node& n);

// Which ports a scan reads.
struct PortSelect {
  unsigned kinds = KIND_ALL;
  const Regex* node_regex = nullptr;  // only nodes whose name (map applied) it finds
  const NodeNameMap* map = nullptr;   // (the names node_regex is matched with)
  bool down_ports = true;             // false: a port whose PortState is Down is not read
  // Whether node n's ports are read; nullopt while its description is not
  // known (the walk has not read it) and node_regex needs it.
  std::optional<bool> node(const Subnet& db, uint32_t n) const;
  // A port not read for its state (down_ports false; port 0 never).
  bool state_only(const Subnet& db, uint32_t slot) const;
};

// Error counter i as the threshold test reads it: PortXmitWait only where
// the PMA has it (0 otherwise).
uint64_t error_value(const iba::PMPortCounters& pc, const PmaCaps& caps, int i);
// The error counters of pc beyond their thresholds (bit i: counter i),
// those in `ignore` left out.
uint16_t beyond(const Thresholds& thr, const iba::PMPortCounters& pc, const PmaCaps& caps, uint16_t ignore = 0);

// The capabilities a PMA is read with: none where its ClassPortInfo failed
// (the reference reads its PortCounters all the same).
inline PmaCaps usable(const PmaCaps& c) { return c.failed ? PmaCaps{} : c; }

// The groups of the error scans (the error counters, PortXmitWait among
// them) and of the data counters.
CounterGroups error_groups();
CounterGroups data_groups();

// --- node by node, against thresholds ---------------------------------------------------

struct ErrorScanOptions {
  const Thresholds* thr = nullptr;  // (required)
  const NodeNameMap* map = nullptr; // the names of the warnings about nodes gone from a cache
  uint16_t ignore = 0;              // counters never beyond threshold (suppressed)
  bool details = false;             // the details attribute of PortXmitDiscards / PortRcvErrors beyond threshold
  bool data = false;                // the data counters of a port beyond threshold
  bool counters_only = false;       // every port's data counters, no threshold test
  uint16_t clear = 0;               // CounterSelect cleared after the reads (0: nothing)
  bool clear_ext = false;           // ... PortCountersExtended too (where the PMA has it)
  bool clear_details = false;       // ... and the details attributes
  unsigned kinds = KIND_ALL;        // the nodes read ahead
};

// One row: a port checked, or a switch's AllPortSelect sum (port 0xff).
struct ErrorRow {
  enum class Failed : uint8_t { None, Counters, Data };
  uint32_t node = NO_INDEX;
  unsigned port = 0;
  uint16_t lid = 0;
  const PmaCaps* caps = nullptr;  // the capabilities read with (usable())
  bool caps_failed = false;       // the node's ClassPortInfo failed
  Failed failed = Failed::None;   // the query that failed (the row ends there)
  std::exception_ptr error;       // ... its MADError
  iba::PMPortCounters pc;         // the error counters (not with counters_only)
  uint16_t over = 0;              // beyond threshold
  // details: the attribute of each of PortRcvErrors / PortXmitDiscards
  // beyond threshold, read or failed.
  std::optional<iba::PMPortRcvErrorDetails> rcv;
  std::optional<iba::PMPortXmitDiscardDetails> xmit;
  std::exception_ptr rcv_error, xmit_error;
  // data, counters_only: the data counters read (PortCountersExtended's 8,
  // or the first 4).
  int data_count = 0;
  std::array<uint64_t, N_DATA> data{};
  // A bad port: beyond threshold, and all of it read (counters_only: read).
  bool reported() const { return failed == Failed::None && (over || data_count); }
};

// What a scan found of one node.
struct NodeScan {
  unsigned ports_checked = 0, bad_ports = 0, pma_failures = 0;
  bool bad = false;
  bool gone = false;  // a node of a cached topology that no longer answers (no rows)
};

// What a consumer is told, from the scan's coroutines (a node's calls in
// its order: its sum, then its ports ascending, then its clears).
class ErrorSink {
public:
  virtual ~ErrorSink() = default;
  // A node's ClassPortInfo failed (not gone): its ports are read all the same.
  virtual void pma_failed(uint32_t node, uint16_t lid, const PmaCaps& got) { (void)node, (void)lid, (void)got; }
  virtual void row(const ErrorRow& r) = 0;
  // A clear after the reads failed (details: the details attributes').
  virtual void clear_failed(uint32_t node, unsigned port, const MADError& e, bool details) {
    (void)node, (void)port, (void)e, (void)details;
  }
};

class ErrorScan {
public:
  ErrorScan(PmAccess& pm, const ErrorScanOptions& o);
  ~ErrorScan();
  PortCountersReader& reader() { return reader_; }
  // DiscoveryOptions::on_port_lid: the node's first PM reads (its PMA's
  // ClassPortInfo, a switch's AllPortSelect sum, else the port's
  // PortCounters) while the walk goes on, once per LID.
  void ahead(const Subnet& db, uint32_t n, unsigned port);
  size_t ahead_lids() const { return ahead_lids_.size(); }
  // The database of a whole-fabric scan, as cfg says (obtain_subnet with o
  // on this scan's scheduler: a cache file, else a live discovery), every
  // node read ahead while the walk goes on: the SA's path table asked
  // first, ahead() for each port whose LID the walk learns (o's own
  // on_port_lid is replaced).  db is then the PM access's subnet (it must
  // outlive the scan).  ibqueryerrors, the report, the model's tool.
  void obtain(const Config& cfg, ObtainOptions o, Subnet& db);
  // Scan `nodes` of db, all at once (a bounded pool of workers), rows to
  // sink; runs the scheduler.  One NodeScan per node, in order.
  std::vector<NodeScan> run(const Subnet& db, const std::vector<uint32_t>& nodes, ErrorSink& sink);

private:
  struct AheadItem {
    uint16_t lid;
    uint8_t port;
    bool sw;
  };
  Task<> read_ahead(AheadItem it);
  const PortCountersRead* ahead_read(uint16_t lid, uint8_t port) const;
  bool clean_ahead(const Subnet& db, uint32_t ni, NodeScan& out, ErrorSink& sink) const;
  Task<> scan_node(const Subnet& db, uint32_t ni, NodeScan& out, ErrorSink& sink);
  Task<bool> check_port(const Subnet& db, uint32_t ni, unsigned p, uint16_t lid, const PmaCaps& caps, bool caps_failed,
                        NodeScan& out, ErrorSink& sink);
  Task<> read_details(ErrorRow& r, NodeScan& out);
  Task<> read_data(ErrorRow& r, const iba::PMPortCounters* pc);
  Task<> clear(const Subnet& db, uint32_t ni, uint16_t lid, const PmaCaps& caps, ErrorSink& sink);

  ErrorScanOptions o_;
  PortCountersReader reader_;
  std::unordered_map<uint32_t, PortCountersRead> ahead_;  // (LID << 8 | port) -> a CA port read ahead
  std::unordered_set<uint16_t> ahead_lids_;
  std::unique_ptr<WorkQueue<AheadItem>> ahead_q_;
};

// --- node by node, clearing ---------------------------------------------------------------

// The ports of node n a clear names, each with the LID it is cleared at
// (a switch's every port at its LID, from 0 with enhanced port 0; a CA's
// ports that have a LID).
std::vector<std::pair<uint16_t, unsigned>> clear_targets(const Subnet& db, const Node& n);
enum class Cleared : uint8_t { Nothing, Gone, Done };
// Clear node ni's ports (clear_targets): CounterSelect `select`, and
// PortCountersExtended's too with ext where the PMA has it; a switch's
// ports 1..N with one AllPortSelect Set where its PMA has it (port by port
// if that fails).  done(lid, port, error) for each port (a null error:
// cleared).  Gone: a node of a cached topology that no longer answers (a
// warning names it; map: its name); Nothing: no port to clear.
Task<Cleared> clear_node(PortCountersReader& reader, const Subnet& db, uint32_t ni, const NodeNameMap& map,
                         uint16_t select, bool ext,
                         const std::function<void(uint16_t lid, unsigned port, const MADError* e)>& done);

// --- port by port -------------------------------------------------------------------------

// One port a PortScan reads, and what it read.
struct PortRow {
  uint32_t slot = NO_INDEX;  // port slot in the subnet
  uint32_t node = NO_INDEX;
  uint8_t num = 0;           // port number
  uint16_t lid = 0;          // the LID its PM is asked at (port_lid)
  bool by_sum = false;       // its switch's AllPortSelect sum may stand for its read
  bool read = false;         // its counters were asked (not a port left out)
  bool deferred = false;     // met during the walk before what deciding needs: read after it
  PortCountersRead c;        // PortCounters / PortCountersExtended
  bool rcv_ok = false, xmit_ok = false;
  iba::PMPortRcvErrorDetails rcv;
  iba::PMPortXmitDiscardDetails xmit;
  VlCountersRead vl;         // PortVLXmitWaitCounters
  bool vl_news = false;      // its PMA was found without them in this scan
  unsigned saturated = 0;    // counters wanted at their maximum
  bool reset = false;        // reset_saturated cleared them
  std::string error;         // the details' or the reset's failure
  bool gone = false;         // its node, of a cached topology, no longer answers (still_present)
  // Every query this port needs was answered (a PMA without the per-VL
  // counters is not a failure).
  bool ok(bool details) const {
    return !read || (c.ok() && (!details || (rcv_ok && xmit_ok)) && (!vl.wanted || vl.ok));
  }
};

struct PortScanOptions {
  CounterGroups want;             // the groups read
  bool pc_errors = false;         // the error counters from PortCounters (errors_from_port_counters)
  bool details = false;           // PortRcvErrorDetails and PortXmitDiscardDetails
  bool vl = false;                // PortVLXmitWaitCounters
  bool reset_saturated = false;   // clear the PortCounters counters found saturated
  RetryBudget* retry = nullptr;   // the policy for queries not answered
  PortSelect select;
  // PMAs (node GUIDs) known without the per-VL counters, kept by the
  // caller from scan to scan (null: none kept).
  std::unordered_set<uint64_t>* vl_unsupported = nullptr;
};

// Whether a PM query failed because the SA answered its PathRecord with a
// status (no record for the LID): not a loss, not asked again.
bool sa_refused(const std::exception_ptr& e);

// The scan's own counts.
struct PortScanStats {
  uint64_t queries_failed = 0, timeouts = 0, resets = 0, details_reads = 0;
  std::unordered_set<uint16_t> no_path;     // LIDs whose PathRecord the SA refused
  std::unordered_set<uint32_t> dead_nodes;  // nodes whose PMA did not answer ClassPortInfo
};

class PortScan {
public:
  PortScan(PmAccess& pm, const PortScanOptions& o);
  PortCountersReader& reader() { return reader_; }
  const PortScanOptions& options() const { return o_; }
  PortScanStats& stats() { return st_; }
  // Whether any PM query is wanted at all.
  bool pm_wanted() const { return o_.want.any() || o_.details || o_.vl; }
  // A row for port p of node n (its LID by port_lid).
  static PortRow row(const Subnet& db, uint32_t n, unsigned p);
  // by_sum for rows of switches with two or more ports read (for one, the
  // sum would be a MAD more).
  static void sums_for_switches(const Subnet& db, std::vector<PortRow>& rows);
  // Everything this scan reads of a port (r.slot of db).  walking: db is
  // the database the walk fills; a port whose state, or whose node's name,
  // is not known yet is deferred.  Never throws a MADError.
  Task<> read(const Subnet& db, PortRow& r, bool walking = false);
  // Every row read on the scheduler (the caller runs it; rows must stay
  // put until then), in turns over the nodes, one port of a node at a time.
  void spawn(const Subnet& db, std::vector<PortRow>& rows);
  // Discover with o (its on_port_lid is the scan's), reading each node's
  // ports ahead as the walk finds its LID, then the rest (the ports met
  // before their PortInfo, switches' enhanced port 0, nodes the walk did
  // not report).  Every existing port is a row of `all`.
  DiscoveryResult walk(Subnet& db, std::deque<PortRow>& all, DiscoveryOptions o);
  // Reads ahead at first (widened when the MAD window has room).
  static constexpr unsigned AHEAD = READ_AHEAD;

private:
  PmAccess& pm_;
  PortScanOptions o_;
  PortCountersReader reader_;
  PortScanStats st_;
  std::unique_ptr<TurnQueue<std::pair<const Subnet*, PortRow*>>> turns_;  // spawn()'s reads
};

}  // namespace ibcore::health
