#include "core/netprint.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

namespace ibcore {

std::string topology_text(const Subnet& db, const NodeNameMap& map) {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  if (!f) return {};
  TopologyPrinter(db, map, f, false, false).topology(false);
  std::fclose(f);
  std::string s(buf, len);
  std::free(buf);
  return s;
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
    std::fprintf(stderr, "fill_mellanox_chassis_record: invalid slot number:%d\n", num);
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

}  // namespace ibcore
