#include "core/fabric/netprint.h"

#include "iba/refprint_smp.h"
#include "core/fabric/json_net.h"
#include "core/out/log.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

namespace ibcore {

std::string topology_text(const Subnet& db, const NodeNameMap& map) {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  if (!f) return {};
  {
    Printer p(f, false, false);
    TopologyPrinter(db, map, p, false, false).topology(false);
  }
  std::fclose(f);
  std::string s(buf, len);
  std::free(buf);
  return s;
}

// --- TopologyPrinter ---------------------------------------------------------------

void TopologyPrinter::w_name(const Node& n) {
  char t = n.type == NodeType::Switch ? 'S' : n.type == NodeType::CA ? 'H' : n.type == NodeType::Router ? 'R' : '?';
  p_.lit('"').lit(t).lit('-').uint(PRINT_FP, nullptr, "%016x", n.guid).lit('"');
}

void TopologyPrinter::w_clean(std::string_view d) {
  // (clean_nodedesc: at most 64 characters, up to the first NUL,
  // non-printable characters as spaces)
  size_t n = std::min<size_t>(d.size(), 64);
  for (size_t i = 0; i < n; ++i) {
    char c = d[i];
    if (c == '\0') break;
    p_.lit(std::isprint(static_cast<unsigned char>(c)) ? c : ' ');
  }
}

void TopologyPrinter::w_remap(const Node& n) {
  if (map_.size())
    if (const std::string* s = map_.find(n.guid)) {
      p_.lit(*s);
      return;
    }
  w_clean(std::string_view(reinterpret_cast<const char*>(n.desc.data()), n.desc.size()));
}

void TopologyPrinter::w_ids(const Node& n, const char* prefix, bool blank) {
  if (blank) p_.lit('\n');
  w_prefix(prefix);
  p_.lit("vendid=0x").uint(PRINT_FP, nullptr, "%x", n.vendor_id()).lit('\n');
  w_prefix(prefix);
  p_.lit("devid=0x").uint(PRINT_FP, nullptr, "%x", n.device_id()).lit('\n');
  uint64_t sys = n.system_guid();
  if (sys) {
    w_prefix(prefix);
    p_.lit("sysimgguid=0x").uint(PRINT_FP, nullptr, "%x", sys);
  }
  unsigned ch = chassis_num(n);
  if (ch) {
    p_.lit("\t\t# Chassis ").uint(PRINT_FP, nullptr, "%u", ch);
    if (chname_) p_.lit(" (").lit(clean_nodedesc(chname_)).lit(')');
    if (is_xsigo_tca(n.guid) && n.nports >= 1) {
      const Port* r = db_.port(n, 1).exists ? db_.peer(db_.port(n, 1)) : nullptr;
      if (r) p_.lit(" slot ").uint(PRINT_FP, nullptr, "%u", r->num);
    }
  }
  if (sys || ch) p_.lit('\n');
}

void TopologyPrinter::w_switch_detail(const Node& n, const char* prefix) {
  w_prefix(prefix);
  p_.lit("Switch\t").uint(PRINT_FP, nullptr, "%u", n.nports).lit(' ');
  w_name(n);
  p_.lit("\t\t# \"");
  w_remap(n);
  p_.lit("\" ").lit(n.enhsp0 ? "enhanced" : "base").lit(" port 0 lid ").uint(PRINT_FP, nullptr, "%u", n.smalid).lit(" lmc ").uint(PRINT_FP, nullptr, "%u", n.smalmc);
}

void TopologyPrinter::w_switch(const Node& n, const char* id_prefix, const char* sw_prefix, bool blank) {
  w_ids(n, id_prefix, blank);
  w_prefix(id_prefix);
  p_.lit("switchguid=0x").uint(PRINT_FP, nullptr, "%x", n.guid).lit('(').uint(PRINT_FP, nullptr, "%x", db_.ref_port_guid(n)).lit(')');
  if (group_) p_.lit("\t# ").lit(grouping_.note.empty() ? std::string_view() : grouping_.note[node_index(n)]);
  p_.lit('\n');
  w_switch_detail(n, sw_prefix);
  p_.lit('\n');
}

void TopologyPrinter::w_ca_detail(const Node& n, const char* prefix) {
  const char* t = n.type == NodeType::CA ? "Ca" : n.type == NodeType::Router ? "Rt" : "???";
  w_prefix(prefix);
  p_.lit(t).lit('\t').uint(PRINT_FP, nullptr, "%u", n.nports).lit(' ');
  w_name(n);
  p_.lit("\t\t# \"");
  w_clean(std::string_view(reinterpret_cast<const char*>(n.desc.data()), n.desc.size()));
  p_.lit('"');
}

void TopologyPrinter::w_ca(const Node& n, const char* id_prefix, const char* ca_prefix, bool blank) {
  w_ids(n, id_prefix, blank);
  const char* t = n.type == NodeType::CA ? "ca" : n.type == NodeType::Router ? "rt" : "???";
  w_prefix(id_prefix);
  p_.lit(t).lit("guid=0x").uint(PRINT_FP, nullptr, "%x", n.guid).lit('\n');
  w_ca_detail(n, ca_prefix);
  if (group_ && is_xsigo_hca(n.guid)) p_.lit(" (scp)");
  p_.lit('\n');
}

void TopologyPrinter::w_full(const Port& p) {
  if (full_)
    p_.lit(" s=").uint(PRINT_FP, nullptr, "%u", p.speed_active()).lit(" w=").uint(PRINT_FP, nullptr, "%u", p.width_active()).lit(" v=").uint(PRINT_FP, nullptr, "%u", unsigned(iba::SMPPortInfo::VLCap_at(p.info.data())));
}

void TopologyPrinter::w_switch_port(const Port& p, const char* prefix) {
  const Port& r = *db_.peer(p);
  const Node& rn = db_.node_of(r);
  w_prefix(prefix);
  p_.lit('[').uint(PRINT_FP, nullptr, "%u", p.num).lit(']');
  if (unsigned e = ext_of(p)) p_.lit("[ext ").uint(PRINT_FP, nullptr, "%u", e).lit(']');
  p_.lit('\t');
  w_name(rn);
  p_.lit('[').uint(PRINT_FP, nullptr, "%u", r.num).lit(']');
  if (unsigned e = ext_of(r)) p_.lit("[ext ").uint(PRINT_FP, nullptr, "%u", e).lit(']');
  if (!rn.is_switch()) p_.lit('(').uint(PRINT_FP, nullptr, "%x", r.guid).lit(") ");
  p_.lit("\t\t# \"");
  w_remap(rn);
  p_.lit("\" lid ").uint(PRINT_FP, nullptr, "%u", db_.lid_of(r)).lit(' ').lit(width_compat(p.width_active())).lit(port_speed_compat(db_, p));
  w_full(p);
  if (is_xsigo_tca(r.guid)) p_.lit(" slot ").uint(PRINT_FP, nullptr, "%u", p.num);
  else if (is_xsigo_hca(r.guid)) p_.lit(" (scp)");
  p_.lit('\n');
}

void TopologyPrinter::w_ca_port(const Port& p, const char* prefix) {
  const Port& r = *db_.peer(p);
  const Node& rn = db_.node_of(r);
  w_prefix(prefix);
  p_.lit('[').uint(PRINT_FP, nullptr, "%u", p.num).lit(']');
  if (!db_.node_of(p).is_switch()) p_.lit('(').uint(PRINT_FP, nullptr, "%x", p.guid).lit(") ");
  p_.lit('\t');
  w_name(rn);
  p_.lit('[').uint(PRINT_FP, nullptr, "%u", r.num).lit(']');
  if (unsigned e = ext_of(r)) p_.lit("[ext ").uint(PRINT_FP, nullptr, "%u", e).lit(']');
  if (!rn.is_switch()) p_.lit(" (").uint(PRINT_FP, nullptr, "%x", r.guid).lit(") ");
  p_.lit("\t\t# lid ").uint(PRINT_FP, nullptr, "%u", p.base_lid).lit(" lmc ").uint(PRINT_FP, nullptr, "%u", p.lmc).lit(" \"");
  w_remap(rn);
  p_.lit("\" lid ").uint(PRINT_FP, nullptr, "%u", db_.lid_of(r)).lit(' ').lit(width_compat(p.width_active())).lit(port_speed_compat(db_, p));
  w_full(p);
  p_.lit('\n');
}

void TopologyPrinter::w_node_ports(const Node& n, bool sw) {
  p_.open_array("ports");
  for (unsigned i = 1; i <= n.nports; ++i) {
    const Port& p = db_.port(n, i);
    if (!p.exists || p.peer == NO_INDEX) continue;
    p_.open_object();
    port_members(p_, db_, p, map_, full_);
    if (sw) w_switch_port(p, nullptr);
    else w_ca_port(p, nullptr);
    p_.close_object();
  }
  p_.close_array();
}

void TopologyPrinter::w_node(const Node& n, const char* key, bool blank) {
  p_.open_object(key);
  node_members(p_, db_, n, map_);
  if (n.is_switch()) w_switch(n, nullptr, nullptr, blank);
  else w_ca(n, nullptr, nullptr, blank);
  w_node_ports(n, n.is_switch());
  p_.close_object();
}

// The topology's head: its comment lines (text), and the document's
// "maxHops" and "madsUsed" (ibtool's own MADs) with report_hops, and
// "initiatedFrom".
void TopologyPrinter::w_head(bool report_hops, bool loaded, bool text) {
  PrintKind k = text ? PRINT_ANY : PRINT_JSON;
  if (text) {
    time_t t = time(nullptr);
    p_.lit("#\n# Topology file: generated on ").lit(ctime(&t)).lit("#\n");
  }
  // -m: the figures of the reference's own discovery of this graph (its
  // hop count and the SMPs its walk sends), so the header is the same
  // whichever way ibtool filled the database; ibtool's own MAD count is
  // Subnet::mads_used.
  if (report_hops) {
    p_.uint(k, "maxHops", "# Reported max hops discovered: %u\n", db_.reference().max_hops);
    if (text) p_.uint(PRINT_FP, nullptr, "# Total MADs used: %u\n", loaded ? 0u : unsigned(db_.reference().mads));
    p_.uint(PRINT_JSON, "madsUsed", nullptr, db_.mads_used);
  }
  if (db_.from_node != NO_INDEX) {
    const Node& from = db_.node(db_.from_node);
    p_.open_object("initiatedFrom").guid(k, "nodeGUID", "# Initiated from node %016x", from.guid);
    p_.guid(k, "portGUID", " port %016x\n", db_.ref_port_guid(from)).close_object();
  }
}

void TopologyPrinter::topology(bool report_hops, bool loaded) {
  auto rows = p_.rows();
  w_head(report_hops, loaded, true);
  if (group_) {
    grouping_ = group_chassis(db_);
    for (const auto& ch : grouping_.chassis) {
      p_.lit("\nChassis ").uint(PRINT_FP, nullptr, "%u", ch.num);
      if (ch.guid) p_.lit(" (guid 0x").uint(PRINT_FP, nullptr, "%x", ch.guid).lit(')');
      p_.lit('\n');
      std::string name;
      chname_ = nullptr;
      if (is_xsigo_guid(ch.guid))
        for (uint32_t i : ch.nodes)
          if (is_xsigo_hca(db_.node(i).guid)) {
            name = db_.node(i).description();
            chname_ = name.c_str();
            p_.lit("Hostname: ").lit(clean_nodedesc(name)).lit('\n');
          }
      p_.lit("\n# Spine Nodes");
      for (size_t k = 1; k < ch.spines.size(); ++k)
        if (ch.spines[k] != NO_INDEX) {
          w_switch(db_.node(ch.spines[k]), nullptr, nullptr);
          w_node_ports(db_.node(ch.spines[k]), true);
        }
      p_.lit("\n# Line Nodes");
      for (size_t k = 1; k < ch.lines.size(); ++k)
        if (ch.lines[k] != NO_INDEX) {
          w_switch(db_.node(ch.lines[k]), nullptr, nullptr);
          w_node_ports(db_.node(ch.lines[k]), true);
        }
      p_.lit("\n# Chassis Switches");
      for (uint32_t i : ch.nodes)
        if (db_.node(i).is_switch()) {
          w_switch(db_.node(i), nullptr, nullptr);
          w_node_ports(db_.node(i), true);
        }
      p_.lit("\n# Chassis CAs");
      for (uint32_t i : ch.nodes)
        if (db_.node(i).type == NodeType::CA) {
          w_ca(db_.node(i), nullptr, nullptr);
          w_node_ports(db_.node(i), false);
        }
      chname_ = nullptr;
    }
    p_.lit("\nNon-Chassis Nodes\n");
  }
  p_.open_array("nodes");
  for (NodeType ty : {NodeType::Switch, NodeType::CA, NodeType::Router})
    for (uint32_t i : db_.reference_order(ty)) {
      const Node& n = db_.node(i);
      if (chassis_num(n)) continue;
      w_node(n, nullptr, true);
    }
  p_.close_array();
}

void TopologyPrinter::list(unsigned mask, bool head, bool report_hops) {
  auto rows = p_.rows();
  if (head) w_head(report_hops, false, false);
  // (the reference's list names CAs first; the document keeps the
  // topology's order, switches first)
  static constexpr NodeType TEXT[] = {NodeType::CA, NodeType::Switch, NodeType::Router};
  static constexpr NodeType JSON[] = {NodeType::Switch, NodeType::CA, NodeType::Router};
  p_.open_array("nodes");
  for (NodeType ty : p_.per_side(TEXT, JSON)) {
    if (!(mask & (1u << unsigned(ty)))) continue;
    for (uint32_t i : db_.reference_order(ty)) {
      const Node& n = db_.node(i);
      p_.open_object();
      node_members(p_, db_, n, map_);
      p_.lit(node_type_word(n.type))
          .lit("\t : 0x")
          .uint(PRINT_FP, nullptr, "%016x", n.guid)
          .lit(" ports ")
          .uint(PRINT_FP, nullptr, "%u", n.nports)
          .lit(" devid 0x")
          .uint(PRINT_FP, nullptr, "%x", n.device_id())
          .lit(" vendid 0x")
          .uint(PRINT_FP, nullptr, "%x", n.vendor_id())
          .lit(" \"");
      w_remap(n);
      p_.lit("\"\n").close_object();
    }
  }
  p_.close_array();
}

namespace {
const char* nt_short(const Node& n) {
  switch (n.type) {
    case NodeType::Switch: return "SW";
    case NodeType::CA: return "CA";
    case NodeType::Router: return "RT";
    default: return "??";
  }
}
}  // namespace

void TopologyPrinter::ports_report() {
  // (the reference prints it on stdout whatever the output file)
  TextOut out(stdout);
  p_.flush();
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
      out.printf("%2s %5d %2d 0x%016" PRIx64 " %s %s", nt_short(n), db_.lid_of(p), p.num, p.guid, width_compat(w),
                 speed);
      if (const Port* r = db_.peer(p)) {
        const Node& rn = db_.node_of(*r);
        out.printf(" - %2s %5d %2d 0x%016" PRIx64 " ( '%s' - '%s' )\n", nt_short(rn), db_.lid_of(*r), r->num, r->guid,
                   name.c_str(), remap(rn).c_str());
      } else {
        out.printf("%36s'%s'\n", "", name.c_str());
      }
    }
  }
}

// --- diff (fabric1 = the cache given with --diff, fabric2 = this one) ---------------

void TopologyPrinter::diff_header(const Subnet& s, const Node& n, const char* id_prefix, const char* det_prefix) {
  TopologyPrinter p(s, map_, p_, full_);
  if (n.is_switch()) p.w_switch(n, id_prefix, det_prefix);
  else p.w_ca(n, id_prefix, det_prefix);
}

void TopologyPrinter::diff_detail(const Subnet& s, const Node& n, const char* prefix) {
  TopologyPrinter p(s, map_, p_, full_);
  if (n.is_switch()) p.w_switch_detail(n, prefix);
  else p.w_ca_detail(n, prefix);
}

void TopologyPrinter::diff_port(const Subnet& s, const Port& port, const char* prefix) {
  TopologyPrinter p(s, map_, p_, full_);
  if (s.node_of(port).is_switch()) p.w_switch_port(port, prefix);
  else p.w_ca_port(port, prefix);
}

void TopologyPrinter::diff_node(const DiffSide& d, const Node& n1, unsigned flags) {
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
    p_.lit('\n');
    header = true;
  }
  if (n1.nports != n2.nports) {
    out_header();
    p_.lit(d.pa).lit("numports = ").uint(PRINT_FP, nullptr, "%u", n1.nports).lit('\n');
    p_.lit(d.pb).lit("numports = ").uint(PRINT_FP, nullptr, "%u", n2.nports).lit('\n');
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
    if ((flags & DIFF_PORT) && (flags & DIFF_NODEDESC) && r1 && r2 && A.node_of(*r1).desc != B.node_of(*r2).desc) {
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

void TopologyPrinter::diff(const Subnet& f1, const Subnet& f2, unsigned flags) {
  auto rows = p_.rows();
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

// --- chassis grouping ----------------------------------------------------------------

bool is_xsigo_guid(uint64_t g) { return (g & 0xffffff0000000000ull) == 0x0013970000000000ull; }
bool is_xsigo_hca(uint64_t g) { return (g & 0xffffffff00000000ull) == 0x0013970200000000ull; }
bool is_xsigo_tca(uint64_t g) { return (g & 0xffffffff00000000ull) == 0x0013970300000000ull; }

namespace {

constexpr uint32_t VENDOR_VOLTAIRE = 0x8f1, VENDOR_TOPSPIN = 0x5ad, VENDOR_INFINICON = 0x66a, VENDOR_XSIGO = 0x1397;

// The GUID that names the chassis a node belongs to: its system image GUID,
// except that Topspin/InfiniCon put the slot in byte 4 and Xsigo the port
// type (or, for its CAs, the chassis is the leaf switch they hang off).
uint64_t chassis_guid_of(const Subnet& db, const Node& n) {
  uint64_t sys = n.system_guid();
  uint32_t v = n.vendor_id();
  if (v == VENDOR_TOPSPIN || v == VENDOR_INFINICON) return sys & 0xffffffff00ffffffull;
  if (v != VENDOR_XSIGO && !is_xsigo_guid(sys)) return sys;
  bool xs_ca = is_xsigo_hca(sys) || is_xsigo_tca(sys);
  if (!xs_ca) {
    if ((sys & 0xffffffff00000000ull) == 0x0013970100000000ull) return sys & 0xffffffff00ffffffull;
    return sys;
  }
  if (n.nports < 1) return 0;
  const Port& p1 = db.port(n, 1);
  if (!p1.exists) return 0;
  const Port* r = db.peer(p1);
  if (!r) return sys;
  uint64_t rsys = db.node_of(*r).system_guid();
  if ((rsys & 0xffffffffff000000ull) == 0x0013970102000000ull) return rsys & 0xffffffff00ffffffull;
  return sys;
}

// A Mellanox IS4 chassis switch's place, from its node description
// "MF0;<system name>:<system type>/<slot>[:<board>]/U<chip>", slot L<n>
// (line) or S<n> (spine).
struct MlxSlot {
  bool found = false;   // the description names a slot (the reference's ch_found)
  unsigned kind = 0;    // 1 line, 2 spine
  unsigned num = 0;     // slot number (0: out of range)
  bool valid = false;   // the slot number is in range
  int chip = 0;
  std::string type;     // system type, as the reference keeps it (19 chars)
};

MlxSlot mlx_slot(const Node& n) {
  MlxSlot m;
  if (!n.is_switch() || n.vendor_id() != 0x2c9 || n.device_id() != 0xbd36) return m;
  std::string d = n.description();
  if (d.compare(0, 4, "MF0;") != 0) return m;
  size_t colon = d.find(':', 4);
  if (colon == std::string::npos) return m;
  size_t slash = d.find('/', colon + 1);
  if (slash == std::string::npos) return m;
  std::string type = d.substr(colon + 1, slash - colon - 1);
  size_t end = d.find_first_of("/:", slash + 1);
  if (end == std::string::npos) return m;
  std::string slot = d.substr(slash + 1, end - slash - 1);
  if (d[end] == ':') {
    end = d.find('/', end + 1);
    if (end == std::string::npos) return m;
  }
  std::string index = d.substr(end + 1);
  if (index.empty() || index[0] != 'U') return m;
  m.chip = std::atoi(index.c_str() + 1);
  if (slot.empty() || (slot[0] != 'L' && slot[0] != 'S')) return m;
  m.kind = slot[0] == 'L' ? 1 : 2;
  m.found = true;
  int num = std::atoi(slot.c_str() + 1);
  if ((m.kind == 1 && num > 37) || (m.kind == 2 && num > 19)) {
    ibcore::log::info("fill_mellanox_chassis_record: invalid slot number:%d\n", num);
    return m;
  }
  m.num = unsigned(num < 0 ? 0 : num);
  m.valid = true;
  m.type = type.substr(0, 19);
  return m;
}

}  // namespace

ChassisGrouping group_chassis(const Subnet& db) {
  ChassisGrouping g;
  g.chassis_of.assign(db.node_count(), 0);
  g.note.assign(db.node_count(), std::string());
  g.ext.assign(db.port_slots(), 0);
  if (db.node_count() == 0) return g;
  std::vector<MlxSlot> mlx(db.node_count());
  for (uint32_t i = 0; i < db.node_count(); ++i) {
    const Node& n = db.node(i);
    mlx[i] = mlx_slot(n);
    if (mlx[i].kind == 1 && mlx[i].valid)  // line ports 1..18 are front panel ports 1..18
      for (unsigned p = 1; p <= n.nports && p <= 18; ++p)
        if (db.port(n, p).exists) g.ext[n.port0 + p] = uint8_t(p);
  }
  // Every node, newest first (the reference's node list).
  std::vector<uint32_t> order = db.reference_order();
  struct Ch {
    uint64_t guid;
    unsigned count = 0;
    unsigned num = 0;
    std::vector<uint32_t> nodes;
    std::vector<uint32_t> spines = std::vector<uint32_t>(20, NO_INDEX);
    std::vector<uint32_t> lines = std::vector<uint32_t>(38, NO_INDEX);
  };
  std::vector<Ch> list;
  std::unordered_map<uint64_t, size_t> by_guid;
  auto find = [&](uint64_t guid) -> Ch* {
    auto it = by_guid.find(guid);
    return it == by_guid.end() ? nullptr : &list[it->second];
  };
  // Voltaire chassis are recognised by their internal wiring, which is not
  // modelled here: their nodes are listed as non-chassis nodes.
  auto groupable = [&](const Node& n) { return n.vendor_id() != VENDOR_VOLTAIRE && n.system_guid() != 0; };
  for (uint32_t i : order) {
    const Node& n = db.node(i);
    if (!groupable(n)) continue;
    uint64_t cg = chassis_guid_of(db, n);
    if (Ch* c = find(cg)) ++c->count;
    else {
      by_guid.emplace(cg, list.size());
      list.push_back({cg, 1, 0, {}});
    }
  }
  unsigned next = 0;
  auto join = [&](uint32_t i) {
    const Node& n = db.node(i);
    if (!groupable(n)) return;
    Ch* c = find(chassis_guid_of(db, n));
    if (!c || c->count < 2) return;
    if (!c->num) c->num = ++next;
    const MlxSlot& m = mlx[i];
    if (!m.found) {
      if (!g.chassis_of[i]) {
        g.chassis_of[i] = c->num;
        c->nodes.insert(c->nodes.begin(), i);
      }
      return;
    }
    // A Mellanox spine or line: its slot, unless another node has it.
    std::vector<uint32_t>& slots = m.kind == 1 ? c->lines : c->spines;
    if (m.num >= slots.size() || slots[m.num] != NO_INDEX) return;
    slots[m.num] = i;
    g.chassis_of[i] = c->num;
    std::string note;
    if (!m.type.empty()) note = m.type + " ";
    note += std::string(m.kind == 1 ? "Line" : "Spine") + " " + std::to_string(m.num) + " Chip " + std::to_string(m.chip);
    g.note[i] = note;
  };
  for (uint32_t i : order) join(i);
  for (Ch& c : list)
    if (c.num) g.chassis.push_back({c.num, c.guid, std::move(c.nodes), std::move(c.spines), std::move(c.lines)});
  return g;
}

// --- link columns ---------------------------------------------------------------------

namespace {

// The reference's get_max_width: 12x, 8x, 4x, 2x in that order, else 1x.
unsigned max_width_of(unsigned m) {
  unsigned r = 0;
  if (m & 8) r = 3;
  else if (m & 4) r = 2;
  else if (m & 2) r = 1;
  else if (m & 0x10) r = 4;
  return 1u << r;
}
// Its get_max: the top bit (1 for 0).
unsigned top_bit(unsigned m) {
  unsigned r = 0;
  while (m >>= 1) ++r;
  return 1u << r;
}

}  // namespace

std::string active_speed_text(const Subnet& db, const Port& p, bool known) {
  if (known)
    if (unsigned es = ext_speed_active(db, p)) return iba::ref::fmt_link_speed_ext(es);
  if (p.mlnx_speed & 1) return "10.0 Gbps (FDR10)";
  return iba::ref::fmt_link_speed(known ? p.speed_active() : 0);
}

void could_be(const Subnet& db, const Port& p, const Port& r, std::string& wmsg, std::string& smsg) {
  auto pi = p.port_info(), ri = r.port_info();
  unsigned mw = max_width_of(unsigned(pi.linkWidthSupported() & ri.linkWidthSupported()));
  if ((mw & pi.linkWidthActive()) == 0) wmsg = "Could be " + iba::ref::fmt_link_width(mw);
  // Extended speeds (XDR included) where both ends support some.
  unsigned es = ext_speeds(db, p, iba::SpeedOf::Supported), res = ext_speeds(db, r, iba::SpeedOf::Supported);
  if (es && res) {
    unsigned ms = top_bit(es & res);
    if ((ms & ext_speeds(db, p, iba::SpeedOf::Active)) == 0) smsg = "Could be " + iba::ref::fmt_link_speed_ext(ms);
    return;
  }
  if ((p.mlnx_speed & 2) && (r.mlnx_speed & 2)) {
    if (!(p.mlnx_speed & 1))
      smsg = pi.linkSpeedActive() == 4 ? "Could be FDR10 (Found link at QDR but expected speed is FDR10)"
                                       : "Could be FDR10";
    return;
  }
  unsigned ms = top_bit(unsigned(pi.linkSpeedSupported() & ri.linkSpeedSupported()));
  if ((ms & pi.linkSpeedActive()) == 0) smsg = "Could be " + iba::ref::fmt_link_speed(ms);
}

}  // namespace ibcore
