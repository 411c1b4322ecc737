#include "core/netprint.h"

#include <algorithm>
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

}  // namespace

ChassisGrouping group_chassis(const Subnet& db) {
  ChassisGrouping g;
  g.chassis_of.assign(db.node_count(), 0);
  if (db.node_count() == 0) return g;
  // Every node, newest first (the reference's node list).
  std::vector<uint32_t> order = db.reference_order();
  struct Ch {
    uint64_t guid;
    unsigned count = 0;
    unsigned num = 0;
    std::vector<uint32_t> nodes;
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
    if (!g.chassis_of[i]) {
      g.chassis_of[i] = c->num;
      c->nodes.insert(c->nodes.begin(), i);
    }
  };
  for (uint32_t i : order) join(i);
  for (Ch& c : list)
    if (c.num) g.chassis.push_back({c.num, c.guid, std::move(c.nodes)});
  return g;
}

}  // namespace ibcore
