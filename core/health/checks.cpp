#include "core/health/checks.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <unordered_map>

#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/fabric/discovery.h"
#include "core/base/error.h"
#include "core/out/log.h"
#include "core/rpc/gmppath.h"
#include "core/fabric/netcache.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/obtain.h"
#include "core/base/textfile.h"
#include "iba/smp.h"
#include "iba/introspect.h"
#include "iba/refprint_smp.h"
#include "iba/sa.h"

namespace ibcore::health {

unsigned highest_bit(unsigned v) {
  unsigned h = 0;
  for (unsigned b = 1; b && b <= v; b <<= 1)
    if (v & b) h = b;
  return h;
}

unsigned width_lanes(unsigned w) {
  switch (w) {
    case 1: return 1;
    case 16: return 2;
    case 2: return 4;
    case 4: return 8;
    case 8: return 12;
  }
  return 0;
}

unsigned widest_width(unsigned mask) {
  unsigned best = 0;
  for (unsigned b : {1u, 16u, 2u, 4u, 8u})
    if (mask & b) best = b;
  return best;
}

uint32_t find_target_port(const Subnet& db, const std::string& target, IBPath::Form form) {
  IBPath p = IBPath::from_string(target, form);
  uint32_t slot = NO_INDEX;
  if (p.is_dr()) {
    std::vector<uint8_t> h(p.drPath.begin() + 1, p.drPath.end());
    slot = db.port_by_dr(h);
  } else if (p.DLID) {
    slot = db.port_by_lid(p.DLID);
  } else {
    slot = db.port_by_guid(p.DGID.guid());
    if (slot == NO_INDEX) {
      uint32_t n = db.node_by_guid(p.DGID.guid());
      if (n != NO_INDEX) slot = db.node(n).port0;
    }
  }
  if (slot == NO_INDEX) throw Error("No node in the subnet matches " + target);
  return slot;
}

uint32_t find_node(const Subnet& db, const NodeNameMap& map, const std::string& what, NodeType type) {
  uint32_t found = NO_INDEX;
  if (auto g = iba::parse_guid(what)) {
    found = db.node_by_guid(*g);
    if (found == NO_INDEX && db.port_by_guid(*g) != NO_INDEX) found = db.port(db.port_by_guid(*g)).node;
  }
  if (found == NO_INDEX)
    for (uint32_t i : db.reference_order(type))
      if (map.remap(db.node(i).guid, db.node(i).description()) == what || db.node(i).description() == what) {
        found = i;
        break;
      }
  if (found == NO_INDEX) {
    try {
      found = db.port(find_target_port(db, what, IBPath::Form::Auto)).node;
    } catch (const std::exception&) {
    }
  }
  return found != NO_INDEX && (type == NodeType::Unknown || db.node(found).type == type) ? found : NO_INDEX;
}

// --- static checks ---------------------------------------------------------------------

uint16_t port_lid(const Subnet& db, const Node& n, unsigned port) { return db.lid_of(db.port(n, port)); }

std::string width_str(unsigned w) {
  if (!iba::enums::name_of(iba::enums::link_widths(), w)) return "width " + std::to_string(w);
  return iba::ref::fmt_link_width(w);
}
std::string speed_str(unsigned s) {
  if (!iba::enums::name_of(iba::enums::link_speeds(), s)) return "speed " + std::to_string(s);
  return iba::ref::fmt_link_speed(s);
}
std::string ext_speed_str(unsigned s) {
  const char* name = iba::enums::name_of(iba::enums::link_speeds_ext(), s);
  if (!name) return "ext speed " + std::to_string(s);
  return iba::ref::fmt_link_speed_ext(s) + " (" + name + ")";
}

std::string describe(const Subnet& db, const Finding& f, const std::string& node_name) {
  std::string s;
  char b[128];
  if (f.node != NO_INDEX) {
    const Node& n = db.node(f.node);
    std::snprintf(b, sizeof b, " (0x%016" PRIx64 ")", n.guid);
    s = "\"" + node_name + "\"" + b;
    if (f.port >= 0) s += " port " + std::to_string(f.port);
    if (f.lid) s += " lid " + std::to_string(f.lid);
    s += ": ";
  }
  s += f.what;
  return s;
}

Finding make_finding(const Subnet& db, uint32_t node, unsigned port, std::string what) {
  Finding f;
  f.node = node;
  f.port = int(port);
  f.lid = port_lid(db, db.node(node), port);
  f.what = std::move(what);
  return f;
}

namespace {

// The capability port of a node (switch: port 0 holds the capability mask).
const Port* cap_port(const Subnet& db, const Node& n, const Port& p) {
  const Port* c = n.is_switch() ? &db.port(n, 0) : &p;
  return c->has_info ? c : nullptr;
}

// The far end of a LinkUp link whose both ends have PortInfo (else null).
const Port* up_peer(const Subnet& db, uint32_t node, unsigned port) {
  if (port == 0) return nullptr;
  const Port& p = db.port(db.node(node), port);
  const Port* q = db.peer(p);
  if (!p.has_info || !q || !q->has_info || p.phys_state() != PHYS_LINKUP) return nullptr;
  return q;
}

constexpr unsigned ACTIVE = 4;  // PortState Active

// A value's name in an enumeration of iba/enums.h, else its number.
std::string enum_name(std::span<const iba::enums::Named> table, unsigned v) {
  const char* n = iba::enums::name_of(table, v);
  return n ? n : std::to_string(v);
}

std::string guid_text(uint64_t g) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%016" PRIx64, g);
  return b;
}

// The data of a finding about a field holding a name (a state, a width, a
// speed): its value against the one expected (0: none).
void named_value(Finding& f, const char* check, const char* field, std::span<const iba::enums::Named> table,
                 unsigned value, unsigned expected) {
  f.check = check;
  f.field = field;
  f.value_name = enum_name(table, value);
  if (expected) f.expected = enum_name(table, expected);
}

// An ID check's finding: a GUID (as a string) against the rule it breaks.
Finding id_value(Finding f, const char* field, std::string value, const char* rule) {
  f.check = "ids";
  f.field = field;
  f.value_name = std::move(value);
  f.expected = rule;
  return f;
}
// ... or a LID.
Finding id_number(Finding f, uint64_t lid, const char* rule) {
  f.check = "ids";
  f.field = "LID";
  f.numeric = true;
  f.value = lid;
  f.expected = rule;
  return f;
}
// The other user of an ID: its node (GUID, description) and port.
void other_port(Finding& f, const Node& o, int port) {
  f.fact("otherNodeGUID", guid_text(o.guid)).fact("otherNodeDescription", o.description());
  if (port >= 0) f.fact("otherPortNum", uint64_t(port));
}

}  // namespace

std::vector<Finding> check_port_state(const Subnet& db, uint32_t node, unsigned port, bool named) {
  std::vector<Finding> out;
  const Node& n = db.node(node);
  if (port == 0 && n.is_switch()) return out;
  const Port& p = db.port(n, port);
  if (!p.has_info) return out;
  unsigned st = p.state(), ph = p.phys_state();
  if (ph == PHYS_LINKUP && st != 4) {
    Finding f = make_finding(db, node, port, std::string("port state ") + iba::ref::port_state_word(st) + " (physical LinkUp), expected Active");
    named_value(f, "portState", "portState", iba::enums::port_states(), st, ACTIVE);
    f.fact("portPhysicalState", enum_name(iba::enums::phys_states(), ph));
    out.push_back(std::move(f));
  } else if ((p.peer != NO_INDEX || named) && ph != PHYS_LINKUP) {
    Finding f = make_finding(db, node, port,
                       std::string("port state ") + iba::ref::port_state_word(st) + "/" + iba::ref::phys_state_word(ph) +
                           ", expected Active/LinkUp" + (p.peer == NO_INDEX ? " (no link)" : ""));
    named_value(f, "portState", "portPhysicalState", iba::enums::phys_states(), ph, PHYS_LINKUP);
    f.fact("portState", enum_name(iba::enums::port_states(), st));
    f.fact("linked", p.peer != NO_INDEX);
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> check_port_width(const Subnet& db, uint32_t node, unsigned port) {
  std::vector<Finding> out;
  const Port* q = up_peer(db, node, port);
  if (!q) return out;
  auto a = db.port(db.node(node), port).port_info(), b = q->port_info();
  unsigned act = a.linkWidthActive();
  unsigned both_en = unsigned(a.linkWidthEnabled() & a.linkWidthSupported() & b.linkWidthEnabled() &
                              b.linkWidthSupported());
  unsigned both_sup = unsigned(a.linkWidthSupported() & b.linkWidthSupported());
  unsigned best = widest_width(both_en);
  if (best && width_lanes(act) < width_lanes(best)) {
    Finding f = make_finding(db, node, port, "link width " + width_str(act) + ", both ends have " + width_str(best) + " enabled");
    named_value(f, "linkWidth", "linkWidthActive", iba::enums::link_widths(), act, best);
    out.push_back(std::move(f.fact("expectedBecause", "enabled")));
  } else if (act == 1 && widest_width(both_sup) && width_lanes(widest_width(both_sup)) > 1) {
    Finding f = make_finding(db, node, port, "link width 1X, both ends support " + width_str(widest_width(both_sup)));
    named_value(f, "linkWidth", "linkWidthActive", iba::enums::link_widths(), act, widest_width(both_sup));
    out.push_back(std::move(f.fact("expectedBecause", "supported")));
  }
  return out;
}

std::vector<Finding> check_port_speed(const Subnet& db, uint32_t node, unsigned port) {
  std::vector<Finding> out;
  const Port* q = up_peer(db, node, port);
  if (!q) return out;
  const Node& n = db.node(node);
  const Port& p = db.port(n, port);
  auto a = p.port_info(), b = q->port_info();
  unsigned act = a.linkSpeedActive();
  unsigned both = unsigned(a.linkSpeedEnabled() & a.linkSpeedSupported() & b.linkSpeedEnabled() &
                           b.linkSpeedSupported());
  // Extended speeds count when both ends' capability masks announce them.
  const Port* ca = cap_port(db, n, p);
  const Port* cb = cap_port(db, db.node_of(*q), *q);
  bool ext = ca && cb && (ca->port_info().capabilityMask() & iba::enums::CAP_IS_EXTENDED_SPEEDS) &&
             (cb->port_info().capabilityMask() & iba::enums::CAP_IS_EXTENDED_SPEEDS);
  if (ext) {
    // (XDR included: iba::ext_speeds.)
    using iba::SpeedOf;
    unsigned eboth = ext_speeds(db, p, SpeedOf::Enabled) & ext_speeds(db, p, SpeedOf::Supported) &
                     ext_speeds(db, *q, SpeedOf::Enabled) & ext_speeds(db, *q, SpeedOf::Supported);
    unsigned eact = ext_speeds(db, p, SpeedOf::Active);
    unsigned ebest = highest_bit(eboth);
    if (ebest && eact < ebest) {
      Finding f = make_finding(db, node, port,
                               "link speed " + (eact ? ext_speed_str(eact) : speed_str(act)) + ", both ends have " +
                                   ext_speed_str(ebest) + " enabled");
      named_value(f, "linkSpeed", "linkSpeedActive", iba::enums::link_speeds(), act, 0);
      if (eact) f.value_name = enum_name(iba::enums::link_speeds_ext(), eact);
      f.expected = enum_name(iba::enums::link_speeds_ext(), ebest);
      out.push_back(std::move(f.fact("expectedBecause", "enabled")));
      return out;
    }
    if (eact) return out;
  }
  unsigned best = highest_bit(both);
  if (best && act < best) {
    Finding f = make_finding(db, node, port, "link speed " + speed_str(act) + ", both ends have " + speed_str(best) + " enabled");
    named_value(f, "linkSpeed", "linkSpeedActive", iba::enums::link_speeds(), act, best);
    out.push_back(std::move(f.fact("expectedBecause", "enabled")));
  }
  return out;
}

std::vector<Finding> check_ids(const Subnet& db) {
  std::vector<Finding> out;
  // Port GUIDs: a GUID must name one port (switches: port 0 only).
  std::unordered_map<uint64_t, std::pair<uint32_t, unsigned>> guids;
  std::unordered_map<uint64_t, uint32_t> node_guids;
  for (uint32_t i = 0; i < db.node_count(); ++i) {
    const Node& n = db.node(i);
    if (n.guid == 0) out.push_back(id_value(make_finding(db, i, 0, "node GUID is zero"), "nodeGUID", guid_text(0), "nonZero"));
    unsigned first = n.is_switch() ? 0 : 1, last = n.is_switch() ? 0 : n.nports;
    for (unsigned pn = first; pn <= last; ++pn) {
      const Port& p = db.port(n, pn);
      if (!p.exists) continue;
      if (p.guid == 0) {
        out.push_back(id_value(make_finding(db, i, pn, "port GUID is zero"), "portGUID", guid_text(0), "nonZero"));
        continue;
      }
      auto [it, fresh] = guids.try_emplace(p.guid, i, pn);
      if (!fresh && (it->second.first != i || it->second.second != pn)) {
        char b[160];
        const Node& o = db.node(it->second.first);
        std::snprintf(b, sizeof b, "port GUID 0x%016" PRIx64 " is also used by \"%s\" port %u", p.guid,
                      o.description().c_str(), it->second.second);
        Finding f = id_value(make_finding(db, i, pn, b), "portGUID", guid_text(p.guid), "unique");
        other_port(f, o, it->second.second);
        out.push_back(std::move(f));
      }
    }
  }
  // LIDs: every active end port has a LID; ranges (LMC) must not overlap.
  struct Range {
    uint32_t node;
    unsigned port;
    uint32_t lo, hi;
  };
  std::vector<Range> ranges;
  for (uint32_t i = 0; i < db.node_count(); ++i) {
    const Node& n = db.node(i);
    unsigned first = n.is_switch() ? 0 : 1, last = n.is_switch() ? 0 : n.nports;
    for (unsigned pn = first; pn <= last; ++pn) {
      const Port& p = db.port(n, pn);
      if (!p.has_info) continue;
      auto pi = p.port_info();
      unsigned st = n.is_switch() ? 4 : p.state();
      if (st < 2) continue;  // Down: no LID expected
      uint32_t lid = pi.LID();
      unsigned lmc = pi.LMC();
      if (lid == 0 || lid > iba::UNICAST_LID_LAST) {
        char b[64];
        std::snprintf(b, sizeof b, "invalid LID %u on a %s port", lid, iba::ref::port_state_word(st));
        if (st == 4 || lid > iba::UNICAST_LID_LAST) {
          Finding f = id_number(make_finding(db, i, pn, b), lid, "unicastLID");
          out.push_back(std::move(f.fact("portState", enum_name(iba::enums::port_states(), st))));
        }
        continue;
      }
      if (lid & ((1u << lmc) - 1)) {
        char b[96];
        std::snprintf(b, sizeof b, "base LID %u is not aligned to LMC %u", lid, lmc);
        Finding f = id_number(make_finding(db, i, pn, b), lid, "alignedToLMC");
        out.push_back(std::move(f.fact("LMC", uint64_t(lmc))));
      }
      ranges.push_back({i, pn, lid, lid + (1u << lmc) - 1});
    }
  }
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.lo < b.lo; });
  for (size_t k = 1; k < ranges.size(); ++k)
    for (size_t j = k; j-- > 0;) {
      if (ranges[j].hi < ranges[k].lo) {
        if (j + 1 < k) continue;  // earlier ranges may still be wider
        continue;
      }
      char b[200];
      const Node& o = db.node(ranges[j].node);
      std::snprintf(b, sizeof b, "LIDs %u-%u overlap LIDs %u-%u of \"%s\" port %u", ranges[k].lo, ranges[k].hi,
                    ranges[j].lo, ranges[j].hi, o.description().c_str(), ranges[j].port);
      Finding f = id_number(make_finding(db, ranges[k].node, ranges[k].port, b), ranges[k].lo, "noOverlap");
      f.fact("lastLID", uint64_t(ranges[k].hi)).fact("otherLID", uint64_t(ranges[j].lo));
      f.fact("otherLastLID", uint64_t(ranges[j].hi));
      other_port(f, o, ranges[j].port);
      out.push_back(std::move(f));
    }
  return out;
}

namespace {
Task<> probe_one(Scheduler& sched, const Subnet& db, uint32_t node, unsigned port, std::vector<Finding>& out) {
  IBPath p = dr_path_of(db, node);
  p.drPath.push_back(uint8_t(port));
  try {
    auto ni = co_await sched.SubnGet<iba::SMPNodeInfo>(p);
    uint64_t g = ni.nodeGUID(), pg = ni.portGUID();
    uint32_t other = db.node_by_guid(g);
    uint32_t other_port = db.port_by_guid(pg);
    if (other != NO_INDEX || other_port != NO_INDEX) {
      const Node& o = db.node(other != NO_INDEX ? other : db.port(other_port).node);
      std::string desc;
      try {
        auto nd = co_await sched.SubnGet<iba::SMPNodeDescription>(p);
        const auto raw = nd.bytes();
        desc = "\"" + clean_nodedesc(std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size())) + "\", ";
      } catch (const MADError&) {
      }
      char b[320];
      std::snprintf(b, sizeof b,
                    "the node on this link (%sDR path %s) has node GUID 0x%016" PRIx64 " port GUID 0x%016" PRIx64
                    ", already used by \"%s\"",
                    desc.c_str(), p.dr_string().c_str(), g, pg, o.description().c_str());
      Finding f = id_value(make_finding(db, node, port, b), other != NO_INDEX ? "nodeGUID" : "portGUID",
                           guid_text(other != NO_INDEX ? g : pg), "unique");
      f.check = "duplicateGUID";
      f.fact("peerNodeGUID", guid_text(g)).fact("peerPortGUID", guid_text(pg));
      health::other_port(f, o, -1);
      out.push_back(std::move(f));
    }
  } catch (const MADError& e) {
    Finding f = make_finding(db, node, port, "LinkUp port whose peer does not answer NodeInfo: " + e.layers().back());
    f.check = "peerAnswers";
    out.push_back(std::move(f.fact("error", e.layers().back())));
  }
}
}  // namespace

void probe_duplicate_guids(Scheduler& sched, const Subnet& db, std::vector<Finding>& out) {
  for (uint32_t i = 0; i < db.node_count(); ++i) {
    const Node& n = db.node(i);
    if (n.dr.empty() && i != db.from_node) continue;  // no DR path known
    if (!n.is_switch() && i != db.from_node) continue;  // CAs do not forward
    for (unsigned pn = 1; pn <= n.nports; ++pn) {
      const Port& p = db.port(n, pn);
      if (!p.has_info || p.phys_state() != PHYS_LINKUP || p.peer != NO_INDEX) continue;
      sched.spawn(probe_one(sched, db, i, pn, out));
    }
  }
}

Task<bool> still_present(AsyncSmpSource& src, const Subnet& db, uint32_t node, uint16_t lid) {
  const Node& n = db.node(node);
  IBPath p;
  if (lid) p.DLID = lid;
  else if (!n.dr.empty()) p = dr_path_of(db, node);
  else co_return true;
  try {
    auto ni = co_await src.SubnGet<iba::SMPNodeInfo>(p);
    co_return ni.nodeGUID() == n.guid;
  } catch (const MADError&) {
    co_return false;
  }
}

std::string gone_text(const Subnet& db, uint16_t lid) { return ibcore::gone_text(db, lid); }

Task<bool> gone_from_cache(Scheduler& sched, const Subnet& db, uint32_t node, uint16_t lid, const std::string& name) {
  if (db.cache_file.empty()) co_return false;
  AsyncSmpSource src(sched);
  if (co_await still_present(src, db, node, lid)) co_return false;
  log::warn("W: \"%s\" (0x%016" PRIx64 ") %s\n", name.c_str(), db.node(node).guid, ibcore::gone_text(db, lid).c_str());
  co_return true;
}

}  // namespace ibcore::health
