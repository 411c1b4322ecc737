// The in-memory subnet database: every node, port, link, LID and switch
// table that discovery (core/fabric/discovery.h) or a cache file (core/fabric/netcache.h)
// produced.  One database serves every discovery command.
//
// Layout: nodes and ports live in two flat vectors and refer to each other
// by index (no pointers, so a database can grow and be copied freely).  A
// node with N ports owns the N+1 consecutive port slots [port0, port0+N];
// slot 0 is the switch management port (unused for CAs and routers).  Raw
// attribute images (64 bytes, the SMP data area) are kept as received (from
// the fabric, or from a cache file), so a cache file can carry them
// unchanged and every field stays available through the iba/ declarations:
//
//   const ibcore::Node& n = db.node(db.node_by_guid(g));
//   iba::SMPPortInfo pi = db.port(n, 1).port_info();
//   for (uint32_t i : db.reference_order(NodeType::Switch)) ...
//
// Alongside, a database carries the reference's view of it (RefView): the
// order infiniband-diags' discovery creates the nodes in and what its first
// replies said, computed by replaying that discovery (core/fabric/reforder.h) or
// read from a cache file.  The images are never rewritten to that view:
// printers and the reference cache writer ask ref_node_info()/ref_port_info().
//
// Memory is proportional to the fabric: about 200 bytes a node and 100
// bytes a port, plus the forwarding tables of the switches that were read.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "iba/smp.h"

namespace ibcore {

constexpr uint32_t NO_INDEX = 0xffffffffu;

enum class NodeType : uint8_t { Unknown = 0, CA = 1, Switch = 2, Router = 3 };

// IBA PortPhysicalState LinkUp.
constexpr unsigned PHYS_LINKUP = 5;

using Raw64 = std::array<uint8_t, 64>;

struct Port {
  uint32_t node = NO_INDEX;   // owning node
  uint32_t peer = NO_INDEX;   // the port at the other end of the link
  uint64_t guid = 0;          // port GUID (switch ports: the switch's port 0 GUID)
  uint16_t base_lid = 0;      // switch ports 1..N: the switch's port 0 LID
  uint8_t lmc = 0;
  uint8_t num = 0;
  uint8_t ext_num = 0;        // external (front panel) port number, 0 = none
  uint8_t mlnx_speed = 0;     // MlnxExtPortInfo FDR10: bit 0 active, bit 1 supported
  bool exists = false;        // this port was seen (PortInfo or NodeInfo through it)
  bool has_info = false;      // info holds a PortInfo
  Raw64 info{};               // SMPPortInfo as received

  iba::SMPPortInfo port_info() const {
    iba::SMPPortInfo p;
    p.load(info);
    return p;
  }
  unsigned phys_state() const { return unsigned(iba::SMPPortInfo::portPhysicalState_at(info.data())); }
  unsigned state() const { return unsigned(iba::SMPPortInfo::portState_at(info.data())); }
  unsigned width_active() const { return unsigned(iba::SMPPortInfo::linkWidthActive_at(info.data())); }
  unsigned speed_active() const { return unsigned(iba::SMPPortInfo::linkSpeedActive_at(info.data())); }
  unsigned local_port_num() const { return unsigned(iba::SMPPortInfo::localPortNum_at(info.data())); }
};

struct Node {
  uint64_t guid = 0;
  NodeType type = NodeType::Unknown;
  uint8_t nports = 0;
  uint8_t smalmc = 0;         // switches: port 0 LMC
  bool enhsp0 = false;        // switches: enhanced port 0
  uint16_t smalid = 0;        // switches: port 0 LID
  uint32_t port0 = NO_INDEX;  // index of port slot 0 in Subnet::ports
  bool has_desc = false;
  bool has_swinfo = false;
  Raw64 info{};               // SMPNodeInfo of the first reply received
  Raw64 desc{};               // SMPNodeDescription
  Raw64 swinfo{};             // SMPSwitchInfo (switches)
  std::vector<uint8_t> dr;    // DR hops from the local port (without the leading 0)
  // A node of a cache that no longer answers as itself where the cache
  // places it (refresh_links, core/fabric/obtain.h): gone from the fabric.
  bool gone = false;

  iba::SMPNodeInfo node_info() const {
    iba::SMPNodeInfo n;
    n.load(info);
    return n;
  }
  iba::SMPSwitchInfo switch_info() const {
    iba::SMPSwitchInfo s;
    s.load(swinfo);
    return s;
  }
  bool is_switch() const { return type == NodeType::Switch; }
  // The node description as a C string (stops at the first NUL).
  std::string description() const;
  uint64_t system_guid() const;
  uint64_t node_port_guid() const;  // NodeInfo.portGUID of the first reply received
  uint32_t vendor_id() const;
  uint16_t device_id() const;
  uint8_t local_port_num() const { return uint8_t(iba::SMPNodeInfo::localPortNum_at(info.data())); }
};

// Switch forwarding tables, filled on demand (ibroute, dump_fts, ...).
struct SwitchTables {
  std::vector<uint8_t> lft;   // LID -> port (0xff = no route), size linearFDBTop+1
  bool lft_valid = false;
  // MFT: for each MLID (0xc000 + i) the port mask (one bit a port, up to 256
  // ports: 16 words of 16 bits).
  std::vector<std::array<uint16_t, 16>> mft;
  bool mft_valid = false;
};

// What infiniband-diags' discovery records for a subnet, where that differs
// from the database's own images or is not in them: the order it creates
// the nodes in, the route it first reaches each by, and the fields of its
// first replies that depend on the port a query entered by (the reference
// stores the first NodeInfo reply of a node, and queries a switch's
// PortInfo through the port it entered the switch by).  Computed by
// replaying the reference's discovery on the graph (core/fabric/reforder.h), or
// read from a cache file.  Per-node vectors are indexed by node, per-port
// ones by port slot; a view of another size (none computed) is ignored.
struct RefView {
  std::vector<uint32_t> rank;        // creation rank (the reference lists newest first)
  std::vector<uint32_t> parent;      // the port slot (of another node) the node was first
                                     // reached through; NO_INDEX: the start node, not reached
                                     // (empty: unknown, e.g. a loaded cache)
  std::vector<uint8_t> entry;        // NodeInfo.LocalPortNum of the first reply
  std::vector<uint64_t> port_guid;   // NodeInfo.PortGUID of the first reply
  std::vector<uint8_t> local_port;   // per port slot: PortInfo.LocalPortNum
  // Port slots in the order the reference's port hash table holds them
  // (for a byte-identical cache file), and optionally (parallel) the GUID
  // each was hashed by: the reference keeps a port in the bucket of the GUID
  // it was loaded with even after its GUID is edited (ibcacheedit).
  std::vector<uint32_t> port_order;
  std::vector<uint64_t> hash_guids;
  std::vector<std::string> progress; // its -s progress lines, in order
  uint32_t max_hops = 0;             // largest hop count of a probe it sent
  uint64_t mads = 0;                 // SMPs it would have sent
};

class Subnet {
public:
  // --- building -------------------------------------------------------------
  // Add a node from its NodeInfo image (64 bytes; shorter is zero padded)
  // unless its GUID is known.  Returns (index, created).
  std::pair<uint32_t, bool> add_node(std::span<const uint8_t> node_info);
  void set_desc(uint32_t n, std::span<const uint8_t> desc);
  void set_switch_info(uint32_t n, std::span<const uint8_t> swinfo);
  // Record the PortInfo of port num of node n: LIDs (switch ports take the
  // port 0 LID), LID index, GUID (switch ports: the node's port GUID).
  void set_port_info(uint32_t n, unsigned num, std::span<const uint8_t> pinfo);
  // Mark a port as seen without PortInfo (a NodeInfo arrived through it).
  void touch_port(uint32_t n, unsigned num, uint64_t port_guid);
  // Connect two ports (both sides); an old link of either is dropped.
  void link(uint32_t pa, uint32_t pb);
  void unlink(uint32_t p);

  // --- access ---------------------------------------------------------------
  size_t node_count() const { return nodes_.size(); }
  size_t port_slots() const { return ports_.size(); }
  const std::vector<Node>& nodes() const { return nodes_; }
  Node& node(uint32_t i) { return nodes_[i]; }
  const Node& node(uint32_t i) const { return nodes_[i]; }
  Port& port(uint32_t i) { return ports_[i]; }
  const Port& port(uint32_t i) const { return ports_[i]; }
  // Port slot num of node n (num <= nports), NO_INDEX otherwise.
  uint32_t port_index(uint32_t n, unsigned num) const {
    const Node& x = nodes_[n];
    return num <= x.nports ? x.port0 + num : NO_INDEX;
  }
  const Port& port(const Node& n, unsigned num) const { return ports_[n.port0 + num]; }
  Port& port(const Node& n, unsigned num) { return ports_[n.port0 + num]; }
  // The peer of port slot p, or nullptr.
  const Port* peer(const Port& p) const { return p.peer == NO_INDEX ? nullptr : &ports_[p.peer]; }
  const Node& node_of(const Port& p) const { return nodes_[p.node]; }

  // --- lookups ---------------------------------------------------------------
  uint32_t node_by_guid(uint64_t guid) const;
  // Port GUID -> port slot (switches: port 0; CAs: that port).
  uint32_t port_by_guid(uint64_t guid) const;
  // Any LID of a port's LMC range -> port slot (switches: port 0).
  uint32_t port_by_lid(uint16_t lid) const;
  // The port slot a DR path (hops after the local port) ends at, starting
  // from the local node; NO_INDEX when a hop leaves the known graph.
  uint32_t port_by_dr(std::span<const uint8_t> hops) const;
  // The LID of node n as the reference prints it (switch: port 0 LID; CA:
  // base LID of the given port).
  uint16_t lid_of(const Port& p) const;

  // --- the discovery start ----------------------------------------------------
  uint32_t from_node = NO_INDEX;
  uint8_t from_port = 0;     // the local port number (0 for a switch's port 0)
  uint64_t mads_used = 0;    // MADs this discovery sent

  // --- where it came from ------------------------------------------------------
  // The cache file obtain_subnet() loaded it from (empty: discovered live,
  // or loaded by a command's own option), and the file's age then: a
  // command reports a node of a cached database that no longer answers as
  // gone from the fabric, not as a failure of that node.
  std::string cache_file;
  int64_t cache_age_s = 0;
  // Its link states (every PortInfo) were read from the fabric after the
  // cache was loaded (refresh_links): they are the fabric's, not the file's.
  bool links_live = false;

  // --- the reference's (libibnetdisc's) view --------------------------------------
  // Set by discovery (replay_reference, core/fabric/reforder.h) and cache loaders.
  const RefView& reference() const { return ref_; }
  RefView& reference() { return ref_; }
  void set_reference(RefView v) { ref_ = std::move(v); }
  // Node indices of one type in the order the reference lists them (its
  // per-type lists are newest first).  Unknown = every node (its global
  // list, also newest first).  Without a view: index order, newest first.
  std::vector<uint32_t> reference_order(NodeType t = NodeType::Unknown) const;
  // The directed route (hops after the local port) the reference's discovery
  // first reached node n by, from RefView::parent; empty for the start node.
  // nullopt when the replay did not reach n (or there was none).
  std::optional<std::vector<uint8_t>> ref_dr(uint32_t n) const;
  // The same as the reference prints it: "0,1,3" ("0" for the start node);
  // empty when the replay did not reach n.
  std::string ref_dr_string(uint32_t n) const;
  // Node n's NodeInfo and a port's PortInfo as the reference recorded them:
  // the images received, with the view's LocalPortNum and PortGUID.
  Raw64 ref_node_info(const Node& n) const;
  Raw64 ref_port_info(const Port& p) const;
  // NodeInfo.PortGUID of the reference's first reply.
  uint64_t ref_port_guid(const Node& n) const;

  // Edit GUIDs (ibcacheedit): the indexes follow.
  void rename_node(uint32_t n, uint64_t guid);
  void set_port_guid(uint32_t port, uint64_t guid);

  // --- switch tables ----------------------------------------------------------
  SwitchTables& tables(uint32_t n) { return tables_[n]; }
  const SwitchTables* find_tables(uint32_t n) const {
    auto it = tables_.find(n);
    return it == tables_.end() ? nullptr : &it->second;
  }

  void reserve(size_t nodes, size_t ports) {
    nodes_.reserve(nodes);
    ports_.reserve(ports);
  }
  // Rebuild the LID index from the ports (after loading).
  void reindex_lids();
  // After filling nodes/ports directly (cache loaders): rebuild the GUID and
  // LID indexes.
  void finish_load();

private:
  void index_lid(uint32_t p);

  std::vector<Node> nodes_;
  std::vector<Port> ports_;
  std::unordered_map<uint64_t, uint32_t> by_node_guid_;
  std::unordered_map<uint64_t, uint32_t> by_port_guid_;
  std::vector<uint32_t> by_lid_;  // unicast LIDs 1..0xbfff
  std::unordered_map<uint32_t, SwitchTables> tables_;
  RefView ref_;
};

// --- formatting shared by the discovery commands -------------------------------
// The reference's compatibility names: width "1x" "4x" "8x" "12x" "2x" (else
// "??"), speed "SDR" "DDR" "QDR" (else "???"), extended "FDR" "EDR" "HDR"
// "NDR" / "FDR10".
const char* width_compat(unsigned w);
const char* speed_compat(unsigned s);
// The speed name ibnetdiscover prints for a port (uses the extended speed
// when the capability mask of cap_port says it is supported).
const char* port_speed_compat(const Subnet& db, const Port& p);
// A port's extended speeds as iba::ext_speeds gives them (XDR included;
// 0 when its capability masks do not say the fields are valid).
unsigned ext_speeds(const Subnet& db, const Port& p, iba::SpeedOf which);
// Extended speed active of a port.
unsigned ext_speed_active(const Subnet& db, const Port& p);
const char* node_type_word(NodeType t);  // "Switch", "Ca", "Router"

}  // namespace ibcore
