// The reference's (infiniband-diags') text formats for a subnet database:
// ibnetdiscover's topology, node lists (-l/-H/-S/-R), ports report (-p)
// and cache diff (--diff), byte for byte.  Used by ibnetdiscover and by the
// commands the reference builds on its output (ibhosts, ibswitches, ...).
//
//   ibcore::Printer p;                      // text, or --json's document
//   p.open_object();
//   ibcore::TopologyPrinter pr(db, map, p, /*full=*/false, /*group=*/false);
//   pr.topology(/*report_hops=*/false);
//   p.close_object().finish();
//
// The topology, the lists and a node's block are described once through
// the output layer (core/out/print): each node and port's text lines beside
// its JSON members (core/fabric/json_net), so --json writes {"maxHops",
// "madsUsed", "initiatedFrom", "nodes": [node objects]} from the same calls.
// The ports report, the differences and chassis grouping (-g) are text
// only (the commands refuse --json for them).
#pragma once

#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/fabric/nodemap.h"
#include "core/fabric/subnet.h"
#include "core/out/print.h"
#include "core/out/textout.h"

namespace ibcore {

enum : unsigned {
  DIFF_SW = 0x01,
  DIFF_CA = 0x02,
  DIFF_ROUTER = 0x04,
  DIFF_PORT = 0x08,
  DIFF_LID = 0x10,
  DIFF_NODEDESC = 0x20,
  DIFF_DEFAULT = DIFF_SW | DIFF_CA | DIFF_ROUTER | DIFF_PORT,
};

// Xsigo GUID ranges (the reference marks their CAs in topology output).
bool is_xsigo_guid(uint64_t guid);
bool is_xsigo_hca(uint64_t guid);
bool is_xsigo_tca(uint64_t guid);

// The reference's chassis grouping (ibnetdiscover -g): nodes that share a
// chassis GUID (the system image GUID, with the Topspin and Xsigo
// conventions) form a chassis when there are at least two of them.
// Chassis are listed and numbered in the order the reference meets them
// walking its node list (newest node first).  Mellanox IS4
// chassis switches name their slot in their node description
// ("MF0;name:type/L01/U1"): they are listed as spine and line nodes, line
// ports 1..18 with external port numbers.  Voltaire chassis (recognised by
// their internal wiring) are not modelled: their nodes stay non-chassis.
struct ChassisGrouping {
  struct Chassis {
    unsigned num;
    uint64_t guid;
    std::vector<uint32_t> nodes;  // in the reference's print order
    std::vector<uint32_t> spines; // by slot number (NO_INDEX: empty)
    std::vector<uint32_t> lines;
  };
  std::vector<Chassis> chassis;     // in print order
  std::vector<unsigned> chassis_of; // per node: its chassis number, 0 = none
  std::vector<std::string> note;    // per node: chassis type and slot ("MIS5030 Line 1 Chip 1")
  std::vector<uint8_t> ext;         // per port slot: external port number (0 = none)
};
ChassisGrouping group_chassis(const Subnet& db);

// Writes through the Printer's row path (no printf and no allocation per
// line); every public call writes its text to the FILE before it returns
// (callers may close the FILE right after).
class TopologyPrinter {
public:
  TopologyPrinter(const Subnet& db, const NodeNameMap& map, Printer& p, bool full, bool group)
      : db_(db), map_(map), p_(p), full_(full), group_(group) {}
  // Text only, to f.
  TopologyPrinter(const Subnet& db, const NodeNameMap& map, FILE* f, bool full, bool group)
      : db_(db), map_(map), own_(std::make_unique<Printer>(f, false, false)), p_(*own_), full_(full), group_(group) {}

  static std::string node_name(const Node& n) {
    char b[32];
    char t = n.type == NodeType::Switch ? 'S' : n.type == NodeType::CA ? 'H' : n.type == NodeType::Router ? 'R' : '?';
    std::snprintf(b, sizeof b, "\"%c-%016" PRIx64 "\"", t, n.guid);
    return b;
  }
  std::string remap(const Node& n) const { return map_.remap(n.guid, n.description()); }

  size_t node_index(const Node& n) const { return size_t(&n - db_.nodes().data()); }
  unsigned chassis_num(const Node& n) const {
    if (!group_ || grouping_.chassis_of.empty()) return 0;
    return grouping_.chassis_of[node_index(n)];
  }
  unsigned ext_of(const Port& p) const {
    if (!group_) return 0;
    size_t i = size_t(&p - &db_.port(0u));
    return i < grouping_.ext.size() && grouping_.ext[i] ? grouping_.ext[i] : p.ext_num;
  }

  // One node as in the topology (JSON: its object, as member key of the
  // object open now, or an array element when key is null; with its linked
  // ports); blank: the blank line that starts its text block.
  void node(const Node& n, const char* key = nullptr, bool blank = true) {
    auto rows = p_.rows();
    w_node(n, key, blank);
  }

  // The whole topology (loaded: the database came from a cache file, no MAD
  // was used): JSON the members "maxHops", "madsUsed" (report_hops),
  // "initiatedFrom" and "nodes" of the object open now.
  void topology(bool report_hops, bool loaded = false);
  // -l/-H/-S/-R: one line a node of the types in mask (bit = NodeType);
  // JSON "nodes": their objects without ports (head: after the topology's
  // JSON members, which the list's text does not show).
  void list(unsigned mask, bool head = false, bool report_hops = false);
  // -p: the ports report (on stdout, as the reference prints it).
  void ports_report();
  // --diff: fabric1 = the cache given with --diff, fabric2 = this one.
  void diff(const Subnet& f1, const Subnet& f2, unsigned flags);

private:
  // A printer of another database writing into this one's buffer (diff).
  TopologyPrinter(const Subnet& db, const NodeNameMap& map, Printer& p, bool full)
      : db_(db), map_(map), p_(p), full_(full), group_(false) {}

  struct DiffSide {
    const Subnet* a;
    const Subnet* b;
    const char* pa;
    const char* pb;
  };

  // The writers (into the buffer only).
  void w_name(const Node& n);           // "S-0123..." with the quotes
  void w_remap(const Node& n);          // node-name-map name or cleaned description
  void w_clean(std::string_view desc);  // a description cleaned the reference's way
  void w_prefix(const char* p) {
    if (p) p_.lit(p);
  }
  void w_ids(const Node& n, const char* prefix, bool blank = true);
  void w_switch_detail(const Node& n, const char* prefix);
  void w_switch(const Node& n, const char* id_prefix, const char* sw_prefix, bool blank = true);
  void w_ca_detail(const Node& n, const char* prefix);
  void w_ca(const Node& n, const char* id_prefix, const char* ca_prefix, bool blank = true);
  void w_full(const Port& p);
  void w_switch_port(const Port& p, const char* prefix);
  void w_ca_port(const Port& p, const char* prefix);
  void w_node_ports(const Node& n, bool sw);  // (JSON "ports": [...])
  void w_node(const Node& n, const char* key, bool blank);
  void w_head(bool report_hops, bool loaded, bool text);
  void diff_header(const Subnet& s, const Node& n, const char* id_prefix, const char* det_prefix);
  void diff_detail(const Subnet& s, const Node& n, const char* prefix);
  void diff_port(const Subnet& s, const Port& port, const char* prefix);
  void diff_node(const DiffSide& d, const Node& n1, unsigned flags);

  const Subnet& db_;
  const NodeNameMap& map_;
  std::unique_ptr<Printer> own_;  // (the FILE constructor's)
  Printer& p_;
  bool full_;
  bool group_;
  ChassisGrouping grouping_;
  const char* chname_ = nullptr;  // the Xsigo chassis' host name while printing it
};

// The topology text ibnetdiscover prints for db (no -f, no -g).
std::string topology_text(const Subnet& db, const NodeNameMap& map);

// The link columns iblinkinfo and ibqueryerrors print (the reference's
// print_port): the active speed as text (the extended speed, XDR included,
// else FDR10, else LinkSpeedActive; known = false: the port's node did
// not answer for its speeds (a switch without port 0), only FDR10 shows) ...
std::string active_speed_text(const Subnet& db, const Port& p, bool known = true);
// ... and the "Could be ..." notes for the link p -- r: the widest width and
// fastest speed both ends support where p runs slower or narrower (the
// reference's get_max_msg, quirks included: no common width reads as 1X).
void could_be(const Subnet& db, const Port& p, const Port& r, std::string& width_msg, std::string& speed_msg);

}  // namespace ibcore
