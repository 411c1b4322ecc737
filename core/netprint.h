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
#include <string>
#include <vector>

#include "core/nodemap.h"
#include "core/subnet.h"

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

class TopologyPrinter {
public:
  TopologyPrinter(const Subnet& db, const NodeNameMap& map, FILE* f, bool full, bool group)
      : db_(db), map_(map), f_(f), full_(full), group_(group) {}

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

  void out_ids(const Node& n, const char* prefix) {
    const char* p = prefix ? prefix : "";
    std::fprintf(f_, "\n%svendid=0x%x\n", p, n.vendor_id());
    std::fprintf(f_, "%sdevid=0x%x\n", p, n.device_id());
    uint64_t sys = n.system_guid();
    if (sys) std::fprintf(f_, "%ssysimgguid=0x%" PRIx64, p, sys);
    unsigned ch = chassis_num(n);
    if (ch) {
      std::fprintf(f_, "\t\t# Chassis %u", ch);
      if (chname_) std::fprintf(f_, " (%s)", clean_nodedesc(chname_).c_str());
      if (is_xsigo_tca(n.guid) && n.nports >= 1) {
        const Port* r = db_.port(n, 1).exists ? db_.peer(db_.port(n, 1)) : nullptr;
        if (r) std::fprintf(f_, " slot %d", r->num);
      }
    }
    if (sys || ch) std::fprintf(f_, "\n");
  }

  void out_switch_detail(const Node& n, const char* prefix) {
    std::fprintf(f_, "%sSwitch\t%d %s\t\t# \"%s\" %s port 0 lid %d lmc %d", prefix ? prefix : "", n.nports,
                 node_name(n).c_str(), remap(n).c_str(), n.enhsp0 ? "enhanced" : "base", n.smalid, n.smalmc);
  }

  void out_switch(const Node& n, const char* id_prefix, const char* sw_prefix) {
    out_ids(n, id_prefix);
    std::fprintf(f_, "%sswitchguid=0x%" PRIx64 "(%" PRIx64 ")", id_prefix ? id_prefix : "", n.guid, n.node_port_guid());
    if (group_) std::fprintf(f_, "\t# %s", grouping_.note.empty() ? "" : grouping_.note[node_index(n)].c_str());
    std::fprintf(f_, "\n");
    out_switch_detail(n, sw_prefix);
    std::fprintf(f_, "\n");
  }

  void out_ca_detail(const Node& n, const char* prefix) {
    const char* t = n.type == NodeType::CA ? "Ca" : n.type == NodeType::Router ? "Rt" : "???";
    std::fprintf(f_, "%s%s\t%d %s\t\t# \"%s\"", prefix ? prefix : "", t, n.nports, node_name(n).c_str(),
                 clean_nodedesc(n.description()).c_str());
  }

  void out_ca(const Node& n, const char* id_prefix, const char* ca_prefix) {
    out_ids(n, id_prefix);
    const char* t = n.type == NodeType::CA ? "ca" : n.type == NodeType::Router ? "rt" : "???";
    std::fprintf(f_, "%s%sguid=0x%" PRIx64 "\n", id_prefix ? id_prefix : "", t, n.guid);
    out_ca_detail(n, ca_prefix);
    if (group_ && is_xsigo_hca(n.guid)) std::fprintf(f_, " (scp)");
    std::fprintf(f_, "\n");
  }

  void out_full(const Port& p) {
    if (full_) std::fprintf(f_, " s=%u w=%u v=%u", p.speed_active(), p.width_active(), unsigned(p.info[37] >> 4));
  }

  void out_switch_port(const Port& p, const char* prefix) {
    const Port& r = *db_.peer(p);
    const Node& rn = db_.node_of(r);
    std::fprintf(f_, "%s[%d]", prefix ? prefix : "", p.num);
    if (ext_of(p)) std::fprintf(f_, "[ext %u]", ext_of(p));
    std::fprintf(f_, "\t%s[%d]", node_name(rn).c_str(), r.num);
    if (ext_of(r)) std::fprintf(f_, "[ext %u]", ext_of(r));
    if (!rn.is_switch()) std::fprintf(f_, "(%" PRIx64 ") ", r.guid);
    std::fprintf(f_, "\t\t# \"%s\" lid %d %s%s", remap(rn).c_str(), db_.lid_of(r), width_compat(p.width_active()),
                 port_speed_compat(db_, p));
    out_full(p);
    if (is_xsigo_tca(r.guid)) std::fprintf(f_, " slot %d", p.num);
    else if (is_xsigo_hca(r.guid)) std::fprintf(f_, " (scp)");
    std::fprintf(f_, "\n");
  }

  void out_ca_port(const Port& p, const char* prefix) {
    const Port& r = *db_.peer(p);
    const Node& rn = db_.node_of(r);
    std::fprintf(f_, "%s[%d]", prefix ? prefix : "", p.num);
    if (!db_.node_of(p).is_switch()) std::fprintf(f_, "(%" PRIx64 ") ", p.guid);
    std::fprintf(f_, "\t%s[%d]", node_name(rn).c_str(), r.num);
    if (ext_of(r)) std::fprintf(f_, "[ext %u]", ext_of(r));
    if (!rn.is_switch()) std::fprintf(f_, " (%" PRIx64 ") ", r.guid);
    std::fprintf(f_, "\t\t# lid %d lmc %d \"%s\" lid %d %s%s", p.base_lid, p.lmc, remap(rn).c_str(), db_.lid_of(r),
                 width_compat(p.width_active()), port_speed_compat(db_, p));
    out_full(p);
    std::fprintf(f_, "\n");
  }

  void out_node_ports(const Node& n, bool sw) {
    for (unsigned i = 1; i <= n.nports; ++i) {
      const Port& p = db_.port(n, i);
      if (!p.exists || p.peer == NO_INDEX) continue;
      if (sw) out_switch_port(p, nullptr);
      else out_ca_port(p, nullptr);
    }
  }

  // loaded: the database came from a cache file (no MAD was used).
  void topology(bool report_hops, bool loaded = false) {
    time_t t = time(nullptr);
    std::fprintf(f_, "#\n# Topology file: generated on %s#\n", ctime(&t));
    // -m: the figures of the reference's own discovery of this graph (its
    // hop count and the SMPs its walk sends), so the header is the same
    // whichever way ibtool filled the database; ibtool's own MAD count is
    // Subnet::mads_used.
    if (report_hops)
      std::fprintf(f_, "# Reported max hops discovered: %u\n# Total MADs used: %u\n", db_.max_hops,
                   loaded ? 0u : unsigned(db_.ref_mads()));
    const Node& from = db_.node(db_.from_node);
    std::fprintf(f_, "# Initiated from node %016" PRIx64 " port %016" PRIx64 "\n", from.guid, from.node_port_guid());
    if (group_) {
      grouping_ = group_chassis(db_);
      for (const auto& ch : grouping_.chassis) {
        std::fprintf(f_, "\nChassis %u", ch.num);
        if (ch.guid) std::fprintf(f_, " (guid 0x%" PRIx64 ")", ch.guid);
        std::fprintf(f_, "\n");
        std::string name;
        chname_ = nullptr;
        if (is_xsigo_guid(ch.guid))
          for (uint32_t i : ch.nodes)
            if (is_xsigo_hca(db_.node(i).guid)) {
              name = db_.node(i).description();
              chname_ = name.c_str();
              std::fprintf(f_, "Hostname: %s\n", clean_nodedesc(name).c_str());
            }
        std::fprintf(f_, "\n# Spine Nodes");
        for (size_t k = 1; k < ch.spines.size(); ++k)
          if (ch.spines[k] != NO_INDEX) {
            out_switch(db_.node(ch.spines[k]), nullptr, nullptr);
            out_node_ports(db_.node(ch.spines[k]), true);
          }
        std::fprintf(f_, "\n# Line Nodes");
        for (size_t k = 1; k < ch.lines.size(); ++k)
          if (ch.lines[k] != NO_INDEX) {
            out_switch(db_.node(ch.lines[k]), nullptr, nullptr);
            out_node_ports(db_.node(ch.lines[k]), true);
          }
        std::fprintf(f_, "\n# Chassis Switches");
        for (uint32_t i : ch.nodes)
          if (db_.node(i).is_switch()) {
            out_switch(db_.node(i), nullptr, nullptr);
            out_node_ports(db_.node(i), true);
          }
        std::fprintf(f_, "\n# Chassis CAs");
        for (uint32_t i : ch.nodes)
          if (db_.node(i).type == NodeType::CA) {
            out_ca(db_.node(i), nullptr, nullptr);
            out_node_ports(db_.node(i), false);
          }
        chname_ = nullptr;
      }
      std::fprintf(f_, "\nNon-Chassis Nodes\n");
    }
    for (uint32_t i : db_.reference_order(NodeType::Switch)) {
      const Node& n = db_.node(i);
      if (chassis_num(n)) continue;
      out_switch(n, nullptr, nullptr);
      out_node_ports(n, true);
    }
    for (NodeType ty : {NodeType::CA, NodeType::Router})
      for (uint32_t i : db_.reference_order(ty)) {
        const Node& n = db_.node(i);
        if (chassis_num(n)) continue;
        out_ca(n, nullptr, nullptr);
        out_node_ports(n, false);
      }
  }

  void list(unsigned mask) {
    for (NodeType ty : {NodeType::CA, NodeType::Switch, NodeType::Router}) {
      if (!(mask & (1u << unsigned(ty)))) continue;
      for (uint32_t i : db_.reference_order(ty)) {
        const Node& n = db_.node(i);
        std::fprintf(f_, "%s\t : 0x%016" PRIx64 " ports %d devid 0x%x vendid 0x%x \"%s\"\n", node_type_word(n.type),
                     n.guid, n.nports, n.device_id(), n.vendor_id(), remap(n).c_str());
      }
    }
  }

  static const char* nt_short(const Node& n) {
    switch (n.type) {
      case NodeType::Switch: return "SW";
      case NodeType::CA: return "CA";
      case NodeType::Router: return "RT";
      default: return "??";
    }
  }

  void ports_report() {
    for (uint32_t i : db_.reference_order()) {
      const Node& n = db_.node(i);
      for (unsigned k = n.nports; k > 0; --k) {
        const Port& p = db_.port(n, k);
        if (!p.exists) continue;
        unsigned w = p.width_active();
        const char* speed;
        if (n.is_switch() && !db_.port(n, 0).has_info) {
          w = 0;
          speed = speed_compat(0);
        } else {
          speed = port_speed_compat(db_, p);
        }
        std::string name = remap(n);
        std::printf("%2s %5d %2d 0x%016" PRIx64 " %s %s", nt_short(n), db_.lid_of(p), p.num, p.guid, width_compat(w),
                    speed);
        if (const Port* r = db_.peer(p)) {
          const Node& rn = db_.node_of(*r);
          std::printf(" - %2s %5d %2d 0x%016" PRIx64 " ( '%s' - '%s' )\n", nt_short(rn), db_.lid_of(*r), r->num,
                      r->guid, name.c_str(), remap(rn).c_str());
        } else {
          std::printf("%36s'%s'\n", "", name.c_str());
        }
      }
    }
  }

  // --- diff (fabric1 = the cache given with --diff, fabric2 = this one) ------------
  struct DiffSide {
    const Subnet* a;
    const Subnet* b;
    const char* pa;
    const char* pb;
  };

  void diff_header(const Subnet& s, const Node& n, const char* id_prefix, const char* det_prefix) {
    TopologyPrinter p(s, map_, f_, full_, false);
    if (n.is_switch()) p.out_switch(n, id_prefix, det_prefix);
    else p.out_ca(n, id_prefix, det_prefix);
  }
  void diff_detail(const Subnet& s, const Node& n, const char* prefix) {
    TopologyPrinter p(s, map_, f_, full_, false);
    if (n.is_switch()) p.out_switch_detail(n, prefix);
    else p.out_ca_detail(n, prefix);
  }
  void diff_port(const Subnet& s, const Port& port, const char* prefix) {
    TopologyPrinter p(s, map_, f_, full_, false);
    if (s.node_of(port).is_switch()) p.out_switch_port(port, prefix);
    else p.out_ca_port(port, prefix);
  }

  void diff_node(const DiffSide& d, const Node& n1, unsigned flags) {
    const Subnet& A = *d.a;
    const Subnet& B = *d.b;
    uint32_t j = B.node_by_guid(n1.guid);
    if (j == NO_INDEX) {
      diff_header(A, n1, d.pa, d.pa);
      for (unsigned p = 1; p <= n1.nports; ++p) {
        const Port& x = A.port(n1, p);
        if (x.exists && x.peer != NO_INDEX) diff_port(A, x, d.pa);
      }
      return;
    }
    if (!(flags & (DIFF_PORT | DIFF_LID | DIFF_NODEDESC))) return;
    const Node& n2 = B.node(j);
    bool header = false;
    auto out_header = [&] {
      if (!header) {
        diff_header(A, n1, nullptr, nullptr);
        header = true;
      }
    };
    if (((flags & DIFF_LID) && n1.smalid != n2.smalid) || ((flags & DIFF_NODEDESC) && n1.desc != n2.desc)) {
      diff_header(A, n1, nullptr, d.pa);
      diff_detail(B, n2, d.pb);
      std::fprintf(f_, "\n");
      header = true;
    }
    if (n1.nports != n2.nports) {
      out_header();
      std::fprintf(f_, "%snumports = %d\n", d.pa, n1.nports);
      std::fprintf(f_, "%snumports = %d\n", d.pb, n2.nports);
      return;
    }
    if (!(flags & (DIFF_PORT | DIFF_LID))) return;
    for (unsigned p = 1; p <= n1.nports; ++p) {
      const Port* p1 = A.port(n1, p).exists ? &A.port(n1, p) : nullptr;
      const Port* p2 = B.port(n2, p).exists ? &B.port(n2, p) : nullptr;
      const Port* r1 = p1 ? A.peer(*p1) : nullptr;
      const Port* r2 = p2 ? B.peer(*p2) : nullptr;
      int o1 = 0, o2 = 0;
      if (flags & DIFF_PORT) {
        if ((p1 && !p2) || (p1 && p2 && r1 && !r2)) ++o1;
        else if ((!p1 && p2) || (p1 && p2 && !r1 && r2)) ++o2;
        else if (p1 && p2 && (p1->guid != p2->guid || (r1 && r2 && r1->guid != r2->guid))) {
          ++o1;
          ++o2;
        }
      }
      if ((flags & DIFF_LID) && p1 && p2 && p1->base_lid != p2->base_lid) {
        ++o1;
        ++o2;
      }
      if ((flags & DIFF_PORT) && (flags & DIFF_NODEDESC) && r1 && r2 &&
          A.node_of(*r1).desc != B.node_of(*r2).desc) {
        // The reference applies this check twice.
        o1 += 2;
        o2 += 2;
      }
      if ((flags & DIFF_PORT) && (flags & DIFF_LID) && r1 && r2 && r1->base_lid != r2->base_lid) {
        ++o1;
        ++o2;
      }
      if (o1) {
        out_header();
        diff_port(A, *p1, d.pa);
      }
      if (o2) {
        out_header();
        diff_port(B, *p2, d.pb);
      }
    }
  }

  // fabric1: the --diff cache; fabric2: the current fabric.
  void diff(const Subnet& f1, const Subnet& f2, unsigned flags) {
    const std::pair<unsigned, NodeType> kinds[] = {
        {DIFF_SW, NodeType::Switch}, {DIFF_CA, NodeType::CA}, {DIFF_ROUTER, NodeType::Router}};
    for (auto [bit, ty] : kinds) {
      if (!(flags & bit)) continue;
      DiffSide one{&f1, &f2, "< ", "> "};
      for (uint32_t i : f1.reference_order(ty)) diff_node(one, f1.node(i), flags);
      DiffSide two{&f2, &f1, "> ", "< "};
      unsigned f = flags & ~(DIFF_PORT | DIFF_LID | DIFF_NODEDESC);
      for (uint32_t i : f2.reference_order(ty)) diff_node(two, f2.node(i), f);
    }
  }

private:
  const Subnet& db_;
  const NodeNameMap& map_;
  FILE* f_;
  bool full_;
  bool group_;
  ChassisGrouping grouping_;
  const char* chname_ = nullptr;  // the Xsigo chassis' host name while printing it
};


// The topology text ibnetdiscover prints for db (no -f, no -g).
std::string topology_text(const Subnet& db, const NodeNameMap& map);

}  // namespace ibcore
