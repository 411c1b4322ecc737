// Switch forwarding tables: reading them on the MAD scheduler and printing
// them in infiniband-diags' layouts (ibroute, dump_fts, dump_lfts/dump_mfts),
// plus the route walking of ibtracert.
//
//   ibcore::Scheduler sched(umad);
//   ibcore::LftRead lft;
//   ibcore::spawn_lft_reads(sched, path, 0, top, lft);   // every block at once
//   sched.run();
//   ibcore::Printer p;
//   ibcore::UnicastDump d(p, all, no_dests);
//   d.table({guid, "Switch1", 0, path, "Lid 2"}, lft, 0, top, resolver);   // resolver: LID -> LidDest
//
// Reads are parallel (one MAD per 64-LID block, one per 32 MLIDs x 16 ports)
// and every block is asked once.  Formats are byte for byte the reference's
// (checked by test/conformance/rows/{ibroute,dump_fts}.rows).
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/rpc/satransactor.h"
#include "core/rpc/sched.h"
#include "core/fabric/subnet.h"
#include "core/out/print.h"

namespace ibcore {


using iba::MLID_BASE;
constexpr uint8_t LFT_NO_ROUTE = 0xff;

// --- reading -----------------------------------------------------------------------

// A linear forwarding table read: lft[lid] for lid in [0, size) (0xff where
// nothing was read).  error holds the first failure.
struct LftRead {
  std::vector<uint8_t> lft;
  std::exception_ptr error;
  unsigned failed_block = 0;
};

// A multicast forwarding table read: for MLID (first + i) the port mask
// words (16 ports a word, word p = ports 16p..16p+15).
struct MftRead {
  unsigned first = MLID_BASE;  // the MLID of entry 0
  std::vector<std::array<uint16_t, 16>> masks;
  std::exception_ptr error;
};

// The table blocks to read, from any number of switches, read by a bounded
// pool of tasks (memory stays proportional to the MADs in flight, not to
// the number of blocks: a k=32 fat tree has 190k LFT blocks).
//
//   TableReads r;
//   r.add_lft(path, 0, top, lft);     // LIDs [first, last]; lft sized last+1
//   r.add_mft(path, MLID_BASE, MLID_BASE + 31, nports, mft);
//   r.spawn(sched);  sched.run();
// The outputs and paths must stay in place until run() returns.
class TableReads {
public:
  // Each returns the read's number (0, 1, ... in the order added).
  size_t add_lft(const IBPath& path, unsigned first, unsigned last, LftRead& out);
  size_t add_mft(const IBPath& path, unsigned first, unsigned last, unsigned nports, MftRead& out);
  // Called (inside run()) when every block of read n has been read or has
  // failed, so output can start while other reads are in flight.  Reads
  // without blocks are not reported.
  std::function<void(size_t n)> on_done;
  // Spawn the workers (at most the scheduler's MAD window, twice over),
  // once, after every read is added.
  void spawn(Scheduler& s);
  // The same, reading through src (SMPs, or with --sa the SA's LFT/MFT
  // records; OpenSM keeps no record of an MFT block no group uses: it reads
  // as empty).  src must outlive run().
  void spawn(AsyncSmpSource& src);
  size_t blocks() const { return jobs_.size(); }
  // Blocks of read n not finished yet.
  size_t pending(size_t n) const { return left_[n]; }

private:
  struct Job {
    uint32_t path;      // index into paths_ (= the read's number)
    uint32_t amod;      // attribute modifier (LFT block, or MFT pos<<28 | block)
    LftRead* lft;       // one of these two
    MftRead* mft;
  };
  Task<> read_block(AsyncSmpSource& src, size_t job);
  std::optional<AsyncSmpSource> smp_;  // spawn(Scheduler&)'s source
  std::vector<IBPath> paths_;
  std::vector<uint32_t> left_;  // blocks not finished, by read
  std::vector<Job> jobs_;
  std::function<Task<>(size_t)> read_;  // parallel_for's body: read_block on the source
};

// --- printing ---------------------------------------------------------------------

// What a unicast table row says about the destination LID.
struct LidDest {
  bool known = false;          // false: "(unknown node and type)"
  NodeType type = NodeType::Unknown;
  uint64_t port_guid = 0;
  uint16_t base_lid = 0;
  uint8_t lmc = 0;
  std::string name;            // node description / node-name-map name
  // The text of the rows that name this destination (": (Channel Adapter
  // portguid 0x...: 'name')\n"): made by the first row that needs it, then
  // copied (a dump_fts repeats every LID once per switch; Printer::cached).
  mutable std::string row;
};
// nullptr: nothing known of that LID.
using LidResolver = std::function<const LidDest*(unsigned lid)>;

// The head of a switch's table: who it is and how it was reached.
struct TableHead {
  uint64_t guid = 0;
  std::string name;
  uint16_t lid = 0;   // JSON "LID" (0: left out)
  IBPath route;       // how the switch was reached ("route": IBPath::json)
  std::string where;  // the text's "of switch <where>" (portid_str of the route)
};

// A switch's unicast table, described once (core/out/print): the text is
// the reference's layout (ibroute, dump_fts), the JSON one object:
//   {"nodeGUID", "name", "LID", "route", "startLID", "endLID",
//    "lft": [{"LID", "port" (null: no route), "destination": {"portGUID",
//    "nodeType", "nodeTypeRaw", "name", "baseLID", "LMC"} or null}]}
// (entries without a route only with all; no "destination" with no_dests,
// nor with inline_dests false: a fabric's dump (dump_fts) names each
// destination once, json_dests, else 12M entries on a k=32 fat tree would
// repeat 9472 destinations 1280 times: 1.8 GB).
// Rows keep the reference's state across LIDs and tables (an invalid entry
// inside the LID range of the last resolved port is named by its path
// number).  Every call's text is on the FILE when it returns.
class UnicastDump {
public:
  // unknown: what a row says when the resolver knows nothing of the LID
  // (ibroute: a NodeInfo to it failed; dump_fts: not in the discovered fabric).
  UnicastDump(Printer& p, bool all, bool no_dests, std::string unknown = "unknown node and type",
              bool inline_dests = true)
      : p_(p), all_(all), no_dests_(no_dests), inline_dests_(inline_dests && !no_dests),
        unknown_(std::move(unknown)) {}
  // The table of LIDs [start, end] of lft (LIDs past lft.size() are not
  // routed).  Returns the number of rows.
  unsigned table(const TableHead& h, const std::vector<uint8_t>& lft, unsigned start, unsigned end,
                 const LidResolver& resolve);
  // The same with the destinations indexed by LID (lid_dests_from_db).
  unsigned table(const TableHead& h, const std::vector<uint8_t>& lft, unsigned start, unsigned end,
                 const std::vector<LidDest>& dests);

private:
  template <class Resolve>
  unsigned table_by(const TableHead& h, const std::vector<uint8_t>& lft, unsigned start, unsigned end,
                    const Resolve& resolve);
  Printer& p_;
  bool all_, no_dests_, inline_dests_;
  std::string unknown_;
  // The LID range of the last port named in full (an invalid entry inside
  // it is "path #N - illegal port"; a valid one "path #N out of M").
  bool have_last_ = false;
  unsigned last_base_ = 0, last_count_ = 1;
  uint64_t last_guid_ = 0;
};

// A switch's multicast table, described once: the text the reference's
// layout (brief: port masks in hex), the JSON {head, "startMLID",
// "endMLID", "mft": [{"MLID", "ports": [n, ...]}]}.
void mft_table(Printer& p, const TableHead& h, const MftRead& m, unsigned start, unsigned end, unsigned nports,
               bool all, bool brief);

// JSON "destinations": [{"LID", "destination": {...}}] for every known LID
// (the text has none: its rows name them).
void json_dests(Printer& p, const std::vector<LidDest>& dests);

// The reference's name for a node type in route listings ("Channel Adapter",
// "Switch", "Router").
const char* node_type_long(NodeType t);

// The destinations of every LID of a discovered subnet (no MADs), indexed
// by LID (known = false where no port has it).
std::vector<LidDest> lid_dests_from_db(const Subnet& db, const class NodeNameMap& map);

}  // namespace ibcore

namespace ibcore {


// --- route tracing (ibtracert) -----------------------------------------------------------

// One node of a traced route, reached by a directed route from the local port.
struct TraceNode {
  iba::SMPNodeInfo ni;
  std::string desc;            // NodeDescription (up to the first NUL)
  uint16_t lid = 0;            // LID of the entered port (switch: port 0)
  uint8_t lmc = 0;
  unsigned inport = 0;         // the port the route entered by (NodeInfo localPortNum)
  unsigned outport = 0;        // the port the route leaves by (0: the end)
  std::vector<uint8_t> dr;     // drPath form: 0 then the hops
  bool is_switch() const { return NodeType(ni.nodeType()) == NodeType::Switch; }
  bool has_lid(unsigned l) const { return lid && l >= lid && l < unsigned(lid) + (1u << lmc); }
};

enum class TraceStatus {
  Found,
  Unreachable,  // a directed route SMP to the next node failed
  BadEntry,     // a switch forwards the LID nowhere (0xff) or to a bad port
  OwnEntry,     // a switch forwards the LID to its own port 0 but does not own it
  Dead,         // the route reached a CA/router that is not the destination
  TooLong,      // more hops than a route can have
};

struct TraceResult {
  TraceStatus status = TraceStatus::Unreachable;
  std::vector<TraceNode> nodes;  // nodes[0] = start; outport set on all but the last
  std::string detail;            // what went wrong, for stderr
};

// The reads go through an SmpSource: SMPs, or with --sa the SA's records
// (the directed routes resolved through LinkRecords, which also give the
// port each hop enters by; an LFT block the SA has no record of is
// unrouted), so the walk and its output are the same either way.
class Tracer {
public:
  explicit Tracer(SmpSource& src) : src_(src) {}
  // NodeInfo, NodeDescription and PortInfo (of the entered port) by DR.
  // Throws MADError.
  TraceNode node_at(const std::vector<uint8_t>& dr);
  // Follow the linear forwarding tables towards lid from start (a CA/router
  // start leaves by the port it was entered by).
  TraceResult unicast(const TraceNode& start, unsigned lid);
  // Breadth-first through the multicast forwarding tables of mlid from src
  // until the node with GUID dst_guid.
  TraceResult multicast(const TraceNode& src, uint64_t dst_guid, unsigned mlid);

private:
  SmpSource& src_;
};

}  // namespace ibcore
