// The static health checks on the subnet database (port state, link width
// and speed against both ends, GUIDs and LIDs), the live duplicate-GUID
// probe, the Findings they return, target lookup in a database, and the
// width/speed/state names the checks print.
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

#include "core/fabric/nodemap.h"
#include "core/transport/path.h"
#include "core/rpc/satransactor.h"
#include "core/rpc/sched.h"
#include "core/fabric/subnet.h"

namespace ibcore::health {

// The port slot a target names in db: a LID, a DR path from the local port,
// or a port GUID (a node GUID selects the node's first port slot).  Throws
// Error naming the target when no port matches.
uint32_t find_target_port(const Subnet& db, const std::string& target, IBPath::Form form);

// A node of type `type` named the way the python-rdma tools take one: its
// node GUID or a port GUID, its name (node name map) or description, or any
// target form (LID, DR path).  NO_INDEX when none matches.  Type Unknown:
// a node of any type.
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
  // The finding as data (--json; `what` says the same as text).  check:
  // which check found it ("portState", "linkWidth", "linkSpeed", "counter",
  // "ids", "duplicateGUID", "peerAnswers", "baseline", "pma", "gone").
  // field: the field found wrong as iba/ names it ("portState",
  // "linkWidthActive", "symbolErrorCounter", "portGUID", "LID"), when one
  // is; its value against what was expected: a number (numeric: a counter
  // against its threshold, a LID) or a name (iba/enums.h: "Init" against
  // "Active", "1x" against "4x").  `facts`: other keys that say what was
  // seen (the physical state beside the state, the other user of a GUID).
  const char* check = nullptr;
  const char* field = nullptr;
  bool numeric = false;
  uint64_t value = 0, threshold = 0;  // numeric (threshold: a counter's)
  bool threshold_set = false;         // a counter: "threshold" and "saturated"
  bool saturated = false;             // a counter at its maximum
  std::string value_name, expected;   // not numeric; expected may be empty
  struct Fact {
    const char* key;
    std::string text;                // a string value, or
    std::optional<uint64_t> number;  // a number, or
    std::optional<bool> flag;        // true/false
  };
  std::vector<Fact> facts;
  Finding& fact(const char* k, std::string t) { facts.push_back({k, std::move(t), std::nullopt, std::nullopt}); return *this; }
  Finding& fact(const char* k, uint64_t n) { facts.push_back({k, {}, n, std::nullopt}); return *this; }
  Finding& fact(const char* k, const char* t) { return fact(k, std::string(t)); }
  Finding& fact(const char* k, bool b) { facts.push_back({k, {}, std::nullopt, b}); return *this; }
};

// A finding about port `port` of node `node` (its LID filled in).
Finding make_finding(const Subnet& db, uint32_t node, unsigned port, std::string what);

// "Switch1" (0x0002c90300001234) port 3 lid 2: what
std::string describe(const Subnet& db, const Finding& f, const std::string& node_name);

// The LID of a port, and the one its PMA is read at (CA/router port: its
// own base LID; switch port: the switch's port 0 LID): Subnet::lid_of, the
// one rule.
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

// Whether node `node` of db, a database loaded from a cache, is still in
// the fabric: its NodeInfo, asked at lid (else by its DR path) through src
// (SMPs, or the SA with --sa), names the node's GUID.  For a node whose PMA
// does not answer, this tells "gone from the fabric" (no answer, or
// another node there now) from "there, but its PMA fails".  A node with
// neither a LID nor a DR path counts as present (nothing to ask).
Task<bool> still_present(AsyncSmpSource& src, const Subnet& db, uint32_t node, uint16_t lid);
// What is said of such a node: "gone: no answer at LID 5 (topology from
// cache FILE, written 3 min ago; --refresh-cache rediscovers)".
std::string gone_text(const Subnet& db, uint16_t lid);
// The question every command that reads a node's PMA asks when it fails:
// true when db came from a cache and the node no longer answers as itself
// (still_present; asked through sched's SMPs, or the SA with --sa), after
// warning `W: "name" (0x<GUID>) gone: ...` (gone_text).  False for a live
// topology, or a node still there: its PMA failed.
Task<bool> gone_from_cache(Scheduler& sched, const Subnet& db, uint32_t node, uint16_t lid, const std::string& name);

// Width/speed names: "1X".."12X", "2.5 Gbps".."10.0 Gbps", FDR/EDR/HDR/NDR.
std::string width_str(unsigned w);
std::string speed_str(unsigned s);
std::string ext_speed_str(unsigned s);

}  // namespace ibcore::health
