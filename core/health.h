// Fabric health checking engine shared by ibqueryerrors, the ibcheck*
// family, ibclear*, ibdatacount*, ibidsverify and ibswportwatch.
//
//   ibcore::Subnet db = ibcore::obtain_subnet();
//   ibcore::Umad umad(ibcore::get_end_port(config().ca, config().port));
//   ibcore::Scheduler sched(umad);
//   ibcore::health::PmAccess pm(sched, ibcore::health::sa_path_for_pm(umad), /*skip_sl=*/false);
//   auto one = [&](uint16_t lid, uint8_t port) -> ibcore::Task<> {
//     iba::PMPortCounters pc = co_await pm.counters(lid, port);
//     ...
//   };
//
// PM MADs (GMPs) need a full path: PmAccess asks the SA for a PathRecord
// once per destination LID (concurrent askers of the same LID wait for the
// one query in flight) and caches it; the SL is never assumed (skip_sl uses
// SL 0 without asking, as the reference's --skip-sl does).
//
// The static checks (port state, link width/speed against both ends,
// duplicate GUIDs and LIDs with LMC) work on the subnet database alone and
// return Findings; the commands print them.
#pragma once

#include <array>
#include <coroutine>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/nodemap.h"
#include "core/sched.h"
#include "core/umad.h"
#include "core/subnet.h"
#include "iba/pm.h"

namespace ibcore::health {

// --- error counters and thresholds ----------------------------------------------------

// The PortCounters error counters in the reference's order (the names are
// the ones its thresholds file and output use).
enum ErrCounter : int {
  SymbolErrorCounter,
  LinkErrorRecoveryCounter,
  LinkDownedCounter,
  PortRcvErrors,
  PortRcvRemotePhysicalErrors,
  PortRcvSwitchRelayErrors,
  PortXmitDiscards,
  PortXmitConstraintErrors,
  PortRcvConstraintErrors,
  LocalLinkIntegrityErrors,
  ExcessiveBufferOverrunErrors,
  VL15Dropped,
  PortXmitWait,
  N_ERR
};
const char* err_name(int i);
int err_index(std::string_view name);  // -1 when unknown
uint64_t err_value(const iba::PMPortCounters& pc, int i);
// Largest value the PortCounters field can hold (it saturates there).
uint64_t err_max(int i);

// The data counters: 4 in PortCounters, 8 in PortCountersExtended.
enum DataCounter : int {
  PortXmitData,
  PortRcvData,
  PortXmitPkts,
  PortRcvPkts,
  PortUnicastXmitPkts,
  PortUnicastRcvPkts,
  PortMulticastXmitPkts,
  PortMulticastRcvPkts,
  N_DATA
};
const char* data_name(int i);
uint64_t data_value(const iba::PMPortCounters& pc, int i);  // i < 4
uint64_t data_value(const iba::PMPortCountersExtended& pc, int i);
// "8.719KB" (data counters count 4-byte words) or "1.989K" (packets).
std::string human_count(uint64_t v, bool data);

// A thresholds file (the reference's error_thresholds format): lines
// "Name=value" (a counter name above, the value in strtoul base 0 form),
// '#' starts a comment line; other lines are ignored.  A counter is bad when
// its value exceeds the threshold (default 0).
struct Thresholds {
  std::array<uint64_t, N_ERR> limit{};
  std::array<bool, N_ERR> set{};
  void parse(std::string_view text);
  // false when the file cannot be read (thresholds stay the defaults).
  bool load(const std::string& file);
  bool exceeds(int i, uint64_t v) const { return v > limit[i]; }
};
constexpr const char* DEFAULT_THRESHOLDS = "/etc/infiniband-diags/error_thresholds";

// PerfMgt ClassPortInfo capability bits.
constexpr uint16_t PM_CAP_ALL_PORT_SELECT = 0x0100;
constexpr uint16_t PM_CAP_EXT_WIDTH = 0x0200;
constexpr uint16_t PM_CAP_EXT_WIDTH_NOIETF = 0x0400;
constexpr uint16_t PM_CAP_XMIT_WAIT = 0x1000;

// CounterSelect masks for PerformanceSet PortCounters.
constexpr uint16_t SELECT_ERRORS = 0x0fff;
constexpr uint16_t SELECT_DATA = 0xf000;

// --- PM access on the scheduler -------------------------------------------------------

// The SA path to use for PathRecord queries (config().sa_path, else the
// port's SM LID/SL).  Call before the scheduler runs.
IBPath sa_path_for_pm(Transport& t);

class PmAccess {
public:
  PmAccess(Scheduler& s, IBPath sa_path, bool skip_sl = false) : s_(s), sa_(std::move(sa_path)), skip_sl_(skip_sl) {}

  // The PM path to a LID (PathRecord asked once per LID; failures are
  // cached and rethrown to every asker).
  Task<IBPath> path(uint16_t lid);
  // PerfMgt ClassPortInfo capability mask (cached per LID; 0 on failure,
  // and *failed set when given).
  Task<uint16_t> cap_mask(uint16_t lid, bool* failed = nullptr);
  // The capability mask already read for a LID (mask, failed), if any.
  std::optional<std::pair<uint16_t, bool>> known_cap_mask(uint16_t lid) const {
    auto it = caps_.find(lid);
    if (it == caps_.end()) return std::nullopt;
    return it->second;
  }
  Task<iba::PMPortCounters> counters(uint16_t lid, uint8_t port);
  Task<iba::PMPortCountersExtended> counters_ext(uint16_t lid, uint8_t port);
  // Clear counters: PortCounters with counterSelect = select (and
  // counterSelect2 for PortXmitWait when select covers the errors); ext
  // also clears PortCountersExtended.
  Task<> clear(uint16_t lid, uint8_t port, uint16_t select, bool ext);

  // The subnet the LIDs belong to: a LID's port GUID from it is put in its
  // PathRecord query (DGID next to DLID), which OpenSM answers with a lookup
  // instead of a scan of every port.  Without it (or for a LID it does not
  // know) the query names the LIDs only.
  void use_subnet(const Subnet* db) { db_ = db; }
  // The port GUID of a LID, for the same purpose, where no subnet is given
  // yet (a command reading ahead while discovery fills the database).
  void set_port_guid(uint16_t lid, uint64_t guid) { guids_[lid] = guid; }

  // Ask the SA once for the paths from this port to every port (a
  // PathRecord GetTable naming only the source, as the reference's
  // ibqueryerrors does): path() then takes a LID's path from that table and
  // asks for the LID alone only when the table lacks it (an SA or a
  // transport without RMPP sends only the table's first MAD; an SA that
  // fails the query leaves every LID to its own query).  Call before the
  // scheduler runs the askers; nothing with skip_sl.
  void read_path_table();

  // PathRecord queries sent (the table counts one).
  uint64_t path_queries() const { return path_queries_; }
  // Paths the table gave.
  uint64_t table_paths() const { return table_paths_; }
  Scheduler& sched() { return s_; }

private:
  struct Entry {
    bool done = false;
    IBPath path;
    std::exception_ptr error;
    std::vector<std::coroutine_handle<>> waiters;
  };
  struct Wait {
    Entry& e;
    Scheduler& s;
    bool await_ready() const noexcept { return e.done; }
    void await_suspend(std::coroutine_handle<> h) { e.waiters.push_back(h); }
    void await_resume() const {}
  };
  Task<> resolve(uint16_t lid, Entry& e);
  Task<> read_table();
  enum class Table { None, Pending, Done };
  struct TableWait {
    PmAccess& pm;
    bool await_ready() const noexcept { return pm.table_ != Table::Pending; }
    void await_suspend(std::coroutine_handle<> h) { pm.table_waiters_.push_back(h); }
    void await_resume() const {}
  };

  Scheduler& s_;
  IBPath sa_;
  bool skip_sl_;
  const Subnet* db_ = nullptr;
  std::unordered_map<uint16_t, uint64_t> guids_;  // set_port_guid
  // Hashed: a fabric scan looks up every LID a few times, and a tree of
  // 10k LIDs costs a cache miss per level.  Entries stay put when the table
  // grows (resolve() holds one across its query).
  std::unordered_map<uint16_t, Entry> paths_;
  std::unordered_map<uint16_t, std::pair<uint16_t, bool>> caps_;  // LID -> (mask, failed)
  uint64_t path_queries_ = 0, table_paths_ = 0;
  Table table_ = Table::None;
  std::vector<std::coroutine_handle<>> table_waiters_;
};

// The set-up every PM-scanning command shares: the configured local end
// port (config(): -C/-P), a scheduler on it and PM access whose paths come
// from the SA (need_sa false: no SA path is looked up, for commands that
// only send SMPs on the scheduler).
class PmSession {
public:
  explicit PmSession(bool skip_sl = false, bool need_sa = true);
  Umad& umad() { return umad_; }
  Scheduler& sched() { return sched_; }
  PmAccess& pm() { return pm_; }

private:
  Umad umad_;
  Scheduler sched_;
  PmAccess pm_;
};

// The port slot a target names in db: a LID, a DR path from the local port,
// or a port GUID (a node GUID selects the node's first port slot).  Throws
// Error naming the target when no port matches.
uint32_t find_target_port(const Subnet& db, const std::string& target, IBPath::Form form);

// A node of type `type` named the way the python-rdma tools take one: its
// node GUID or a port GUID, its name (node name map) or description, or any
// target form (LID, DR path).  NO_INDEX when none matches.
uint32_t find_node(const Subnet& db, const NodeNameMap& map, const std::string& what, NodeType type);

// Link width encodings ordered by lane count: 1X(1) 2X(16) 4X(2) 8X(4) 12X(8).
unsigned width_lanes(unsigned w);
// The widest width in a width mask; the highest bit of a speed mask.
unsigned widest_width(unsigned mask);
unsigned highest_bit(unsigned v);

// --- findings -------------------------------------------------------------------------

// One thing a check found wrong.  node/port index the database (port is the
// port number; NO_INDEX when the finding is about the subnet as a whole).
struct Finding {
  uint32_t node = NO_INDEX;
  int port = -1;
  uint16_t lid = 0;
  std::string what;     // the finding itself, e.g. "link width 1X, both ends support 4X"
  std::string detail;   // extra text shown with -v (may be empty)
};

// "Switch1" (0x0002c90300001234) port 3 lid 2: what
std::string describe(const Subnet& db, const Finding& f, const std::string& node_name);

// The LID of a port (CA/router port: its own base LID; switch port: the
// switch's port 0 LID).
uint16_t port_lid(const Subnet& db, const Node& n, unsigned port);

// Port state: a port whose physical state is LinkUp must be Active; a port
// with a peer must be LinkUp, and so must a port the user named (named).
// Switch port 0 is skipped.
std::vector<Finding> check_port_state(const Subnet& db, uint32_t node, unsigned port, bool named = false);
// Link width and speed: the link must run at the widest width and the
// fastest speed both ends have enabled and support; a 1X link is reported
// when both ends support more (the classic ibcheckwidth rule).  Only for
// ports that are LinkUp with a known peer.
std::vector<Finding> check_port_width(const Subnet& db, uint32_t node, unsigned port);
std::vector<Finding> check_port_speed(const Subnet& db, uint32_t node, unsigned port);
// Duplicate node/port GUIDs (a GUID seen on two different nodes or ports,
// as far as the database tells), zero GUIDs, zero LIDs on active ports and
// overlapping LID ranges (base LID .. base + 2^LMC - 1).
std::vector<Finding> check_ids(const Subnet& db);

// Live probe for duplicate GUIDs: discovery merges two nodes that share a
// GUID, so the second one's link is missing from the database.  For every
// LinkUp port without a peer in db, read NodeInfo through it (DR path of the
// node + that port); a node answering with a GUID the database already
// places elsewhere is a duplicate.  Runs on sched (spawns, caller runs).
void probe_duplicate_guids(Scheduler& sched, const Subnet& db, std::vector<Finding>& out);

// --- links against a baseline ------------------------------------------------------

// A link of the healthy subnet: both ends by node GUID and port number, with
// the node descriptions the baseline gives them.
struct ExpectedLink {
  uint64_t guid[2] = {0, 0};
  unsigned port[2] = {0, 0};
  std::string desc[2];
};
// The links of a subnet database, each once.
std::vector<ExpectedLink> links_of(const Subnet& db);
// The links of a baseline file: a subnet cache of either format (ibtool
// --cache, ibnetdiscover --cache) or a topology file written by
// ibnetdiscover (node headers `Switch 8 "S-<guid>" # "desc" ...`, link
// lines `[port] "H-<guid>"[port]...`).  Throws Error when it is neither.
std::vector<ExpectedLink> load_baseline(const std::string& file);
// Parse ibnetdiscover topology text (empty when it holds no node).
std::vector<ExpectedLink> parse_topology(std::string_view text);
// Every baseline link that is not up in db, named by both ends: an end
// missing from the subnet, its port not LinkUp, or linked elsewhere.  The
// finding sits on a live end when there is one; a baseline node with no
// live end at all is reported once as missing.  name(guid, desc) gives a
// node's display name (node name map).
std::vector<Finding> check_links(const Subnet& db, const std::vector<ExpectedLink>& base,
                                 const std::function<std::string(uint64_t, const std::string&)>& name);

// Width/speed names: "1X".."12X", "2.5 Gbps".."10.0 Gbps", FDR/EDR/HDR/NDR.
std::string width_str(unsigned w);
std::string speed_str(unsigned s);
std::string ext_speed_str(unsigned s);
const char* port_state_str(unsigned s);
const char* phys_state_str(unsigned s);

}  // namespace ibcore::health
