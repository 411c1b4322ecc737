// The reference's (infiniband-diags') text formats for a subnet database:
// ibnetdiscover's topology, node lists (-l/-H/-S/-R), ports report (-p)
// and cache diff (--diff), byte for byte.  Used by ibnetdiscover and by the
// commands the reference builds on its output (ibhosts, ibswitches, ...).
//
//   ibcore::TopologyPrinter pr(db, map, stdout, /*full=*/false, /*group=*/false);
//   pr.topology(/*report_hops=*/false);
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

// Writes into one flat buffer (core/out/textout.h), no printf and no
// allocation per line; every public call writes its text to the FILE before
// it returns (callers may close the FILE right after).
class TopologyPrinter {
public:
  TopologyPrinter(const Subnet& db, const NodeNameMap& map, FILE* f, bool full, bool group)
      : db_(db), map_(map), own_(std::make_unique<TextOut>(f)), o_(*own_), full_(full), group_(group) {}

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

  // One node's lines, as in the topology.
  void out_ids(const Node& n, const char* prefix) { w_ids(n, prefix), o_.flush(); }
  void out_switch_detail(const Node& n, const char* prefix) { w_switch_detail(n, prefix), o_.flush(); }
  void out_switch(const Node& n, const char* id_prefix, const char* sw_prefix) {
    w_switch(n, id_prefix, sw_prefix), o_.flush();
  }
  void out_ca_detail(const Node& n, const char* prefix) { w_ca_detail(n, prefix), o_.flush(); }
  void out_ca(const Node& n, const char* id_prefix, const char* ca_prefix) { w_ca(n, id_prefix, ca_prefix), o_.flush(); }
  void out_switch_port(const Port& p, const char* prefix) { w_switch_port(p, prefix), o_.flush(); }
  void out_ca_port(const Port& p, const char* prefix) { w_ca_port(p, prefix), o_.flush(); }
  void out_node_ports(const Node& n, bool sw) { w_node_ports(n, sw), o_.flush(); }

  // The whole topology (loaded: the database came from a cache file, no MAD
  // was used).
  void topology(bool report_hops, bool loaded = false);
  // -l/-H/-S/-R: one line a node of the types in mask (bit = NodeType).
  void list(unsigned mask);
  // -p: the ports report (on stdout, as the reference prints it).
  void ports_report();
  // --diff: fabric1 = the cache given with --diff, fabric2 = this one.
  void diff(const Subnet& f1, const Subnet& f2, unsigned flags);

private:
  // A printer of another database writing into this one's buffer (diff).
  TopologyPrinter(const Subnet& db, const NodeNameMap& map, TextOut& o, bool full)
      : db_(db), map_(map), o_(o), full_(full), group_(false) {}

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
    if (p) o_.put(p);
  }
  void w_ids(const Node& n, const char* prefix);
  void w_switch_detail(const Node& n, const char* prefix);
  void w_switch(const Node& n, const char* id_prefix, const char* sw_prefix);
  void w_ca_detail(const Node& n, const char* prefix);
  void w_ca(const Node& n, const char* id_prefix, const char* ca_prefix);
  void w_full(const Port& p);
  void w_switch_port(const Port& p, const char* prefix);
  void w_ca_port(const Port& p, const char* prefix);
  void w_node_ports(const Node& n, bool sw);
  void diff_header(const Subnet& s, const Node& n, const char* id_prefix, const char* det_prefix);
  void diff_detail(const Subnet& s, const Node& n, const char* prefix);
  void diff_port(const Subnet& s, const Port& port, const char* prefix);
  void diff_node(const DiffSide& d, const Node& n1, unsigned flags);

  const Subnet& db_;
  const NodeNameMap& map_;
  std::unique_ptr<TextOut> own_;  // (null for a diff's printer of the other side)
  TextOut& o_;
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
