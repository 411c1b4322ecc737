#include "core/health.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "core/config.h"
#include "core/discovery.h"
#include "core/error.h"
#include "core/gmppath.h"
#include "iba/sa.h"

namespace ibcore::health {

namespace {
constexpr const char* kErrNames[N_ERR] = {
    "SymbolErrorCounter",       "LinkErrorRecoveryCounter",     "LinkDownedCounter",
    "PortRcvErrors",            "PortRcvRemotePhysicalErrors",  "PortRcvSwitchRelayErrors",
    "PortXmitDiscards",         "PortXmitConstraintErrors",     "PortRcvConstraintErrors",
    "LocalLinkIntegrityErrors", "ExcessiveBufferOverrunErrors", "VL15Dropped",
    "PortXmitWait"};
constexpr const char* kDataNames[N_DATA] = {"PortXmitData",          "PortRcvData",          "PortXmitPkts",
                                            "PortRcvPkts",           "PortUnicastXmitPkts",  "PortUnicastRcvPkts",
                                            "PortMulticastXmitPkts", "PortMulticastRcvPkts"};
constexpr unsigned kErrBits[N_ERR] = {16, 8, 8, 16, 16, 16, 16, 8, 8, 4, 4, 16, 32};
}  // namespace

const char* err_name(int i) { return i >= 0 && i < N_ERR ? kErrNames[i] : "?"; }
int err_index(std::string_view name) {
  for (int i = 0; i < N_ERR; ++i)
    if (name == kErrNames[i]) return i;
  return -1;
}
uint64_t err_max(int i) { return (uint64_t(1) << kErrBits[i]) - 1; }

uint64_t err_value(const iba::PMPortCounters& pc, int i) {
  switch (i) {
    case SymbolErrorCounter: return pc.symbolErrorCounter();
    case LinkErrorRecoveryCounter: return pc.linkErrorRecoveryCounter();
    case LinkDownedCounter: return pc.linkDownedCounter();
    case PortRcvErrors: return pc.portRcvErrors();
    case PortRcvRemotePhysicalErrors: return pc.portRcvRemotePhysicalErrors();
    case PortRcvSwitchRelayErrors: return pc.portRcvSwitchRelayErrors();
    case PortXmitDiscards: return pc.portXmitDiscards();
    case PortXmitConstraintErrors: return pc.portXmitConstraintErrors();
    case PortRcvConstraintErrors: return pc.portRcvConstraintErrors();
    case LocalLinkIntegrityErrors: return pc.localLinkIntegrityErrors();
    case ExcessiveBufferOverrunErrors: return pc.excessiveBufferOverrunErrors();
    case VL15Dropped: return pc.VL15Dropped();
    case PortXmitWait: return pc.portXmitWait();
  }
  return 0;
}

const char* data_name(int i) { return i >= 0 && i < N_DATA ? kDataNames[i] : "?"; }
uint64_t data_value(const iba::PMPortCounters& pc, int i) {
  switch (i) {
    case PortXmitData: return pc.portXmitData();
    case PortRcvData: return pc.portRcvData();
    case PortXmitPkts: return pc.portXmitPkts();
    case PortRcvPkts: return pc.portRcvPkts();
  }
  return 0;
}
uint64_t data_value(const iba::PMPortCountersExtended& pc, int i) {
  switch (i) {
    case PortXmitData: return pc.portXmitData();
    case PortRcvData: return pc.portRcvData();
    case PortXmitPkts: return pc.portXmitPkts();
    case PortRcvPkts: return pc.portRcvPkts();
    case PortUnicastXmitPkts: return pc.portUnicastXmitPkts();
    case PortUnicastRcvPkts: return pc.portUnicastRcvPkts();
    case PortMulticastXmitPkts: return pc.portMulticastXmitPkts();
    case PortMulticastRcvPkts: return pc.portMulticastRcvPkts();
  }
  return 0;
}

std::string human_count(uint64_t v, bool data) {
  static const char* const du[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
  static const char* const pu[] = {"", "K", "M", "G", "T", "P", "E"};
  // Data counters count 4-byte words.
  double x = data ? double(v) * 4.0 : double(v);
  int u = 0;
  while (x >= 1024.0 && u < 6) {
    x /= 1024.0;
    ++u;
  }
  char b[64];
  std::snprintf(b, sizeof b, "%.3f%s", x, data ? du[u] : pu[u]);
  return b;
}

void Thresholds::parse(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (line.empty() || line[0] == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    int i = err_index(line.substr(0, eq));
    if (i < 0) continue;
    std::string val(line.substr(eq + 1));
    limit[i] = std::strtoull(val.c_str(), nullptr, 0);
    set[i] = true;
  }
}

bool Thresholds::load(const std::string& file) {
  std::ifstream in(file);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  parse(ss.str());
  return true;
}

// --- PM access -------------------------------------------------------------------------

IBPath sa_path_for_pm(Transport& t) {
  MadTransactor mad(t);
  return sa_path_from_config(mad);
}

Task<> PmAccess::resolve(uint16_t lid, Entry& e) {
  try {
    IBPath p;
    p.DLID = lid;
    if (skip_sl_) {
      p.SLID = s_.transport().local_lid();
      p.dqpn = 1;
      p.qkey = GSI_QKEY;
    } else {
      ++path_queries_;
      auto [q, mask] = GmpPathResolver::path_query(p, s_.transport().local_lid(), s_.transport().local_gid());
      iba::SAPathRecord pr = co_await s_.SubnAdmGet(q, mask, sa_);
      apply_path_record(p, pr);
    }
    e.path = p;
  } catch (MADError& err) {
    char b[64];
    std::snprintf(b, sizeof b, "Failed getting path record for LID %u.", unsigned(lid));
    err.annotate(b);
    e.error = std::current_exception();
  } catch (...) {
    e.error = std::current_exception();
  }
  e.done = true;
  for (auto h : e.waiters) s_.make_ready(h);
  e.waiters.clear();
}

Task<IBPath> PmAccess::path(uint16_t lid) {
  auto [it, fresh] = paths_.try_emplace(lid);
  Entry& e = it->second;
  if (fresh) co_await resolve(lid, e);
  if (!e.done) co_await Wait{e, s_};
  if (e.error) std::rethrow_exception(e.error);
  co_return e.path;
}

Task<uint16_t> PmAccess::cap_mask(uint16_t lid) {
  auto it = caps_.find(lid);
  if (it != caps_.end()) co_return it->second;
  uint16_t cap = 0;
  try {
    IBPath p = co_await path(lid);
    auto cpi = co_await s_.PerformanceGet<iba::MADClassPortInfo>(p);
    cap = uint16_t(cpi.capabilityMask());
  } catch (const MADError&) {
    cap = 0;
  }
  caps_[lid] = cap;
  co_return cap;
}

Task<iba::PMPortCounters> PmAccess::counters(uint16_t lid, uint8_t port) {
  IBPath p = co_await path(lid);
  iba::PMPortCounters q;
  q.set_portSelect(port);
  co_return co_await s_.PerformanceGet(q, p);
}

Task<iba::PMPortCountersExtended> PmAccess::counters_ext(uint16_t lid, uint8_t port) {
  IBPath p = co_await path(lid);
  iba::PMPortCountersExtended q;
  q.set_portSelect(port);
  co_return co_await s_.PerformanceGet(q, p);
}

Task<> PmAccess::clear(uint16_t lid, uint8_t port, uint16_t select, bool ext) {
  IBPath p = co_await path(lid);
  iba::PMPortCounters q;
  q.set_portSelect(port);
  q.set_counterSelect(select);
  if (select & SELECT_ERRORS) q.set_counterSelect2(0xff);
  (void)co_await s_.PerformanceSet(q, p);
  if (ext) {
    iba::PMPortCountersExtended x;
    x.set_portSelect(port);
    x.set_counterSelect(0xff);
    (void)co_await s_.PerformanceSet(x, p);
  }
}

// --- static checks ---------------------------------------------------------------------

uint16_t port_lid(const Subnet& db, const Node& n, unsigned port) {
  if (n.is_switch()) return db.port(n, 0).base_lid ? db.port(n, 0).base_lid : n.smalid;
  return db.port(n, port).base_lid;
}

std::string width_str(unsigned w) {
  switch (w) {
    case 1: return "1X";
    case 2: return "4X";
    case 4: return "8X";
    case 8: return "12X";
    case 16: return "2X";
  }
  return "width " + std::to_string(w);
}
std::string speed_str(unsigned s) {
  switch (s) {
    case 1: return "2.5 Gbps";
    case 2: return "5.0 Gbps";
    case 4: return "10.0 Gbps";
  }
  return "speed " + std::to_string(s);
}
std::string ext_speed_str(unsigned s) {
  switch (s) {
    case 1: return "14.0625 Gbps (FDR)";
    case 2: return "25.78125 Gbps (EDR)";
    case 4: return "53.125 Gbps (HDR)";
    case 8: return "106.25 Gbps (NDR)";
  }
  return "ext speed " + std::to_string(s);
}
const char* port_state_str(unsigned s) {
  static const char* const n[] = {"NoChange", "Down", "Initialize", "Armed", "Active"};
  return s < 5 ? n[s] : "???";
}
const char* phys_state_str(unsigned s) {
  static const char* const n[] = {"NoChange", "Sleep", "Polling", "Disabled", "PortConfigurationTraining",
                                  "LinkUp", "LinkErrorRecovery", "PhyTest"};
  return s < 8 ? n[s] : "???";
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

namespace {

Finding make(const Subnet& db, uint32_t node, unsigned port, std::string what) {
  Finding f;
  f.node = node;
  f.port = int(port);
  f.lid = port_lid(db, db.node(node), port);
  f.what = std::move(what);
  return f;
}

// The capability port of a node (switch: port 0 holds the capability mask).
const Port* cap_port(const Subnet& db, const Node& n, const Port& p) {
  const Port* c = n.is_switch() ? &db.port(n, 0) : &p;
  return c->has_info ? c : nullptr;
}

unsigned highest_bit(unsigned v) {
  unsigned h = 0;
  for (unsigned b = 1; b && b <= v; b <<= 1)
    if (v & b) h = b;
  return h;
}

// Width encodings ordered by lane count: 1X(1) 2X(16) 4X(2) 8X(4) 12X(8).
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
unsigned widest(unsigned mask) {
  unsigned best = 0;
  for (unsigned b : {1u, 16u, 2u, 4u, 8u})
    if (mask & b) best = b;
  return best;
}

}  // namespace

std::vector<Finding> check_port_state(const Subnet& db, uint32_t node, unsigned port) {
  std::vector<Finding> out;
  const Node& n = db.node(node);
  if (port == 0 && n.is_switch()) return out;
  const Port& p = db.port(n, port);
  if (!p.has_info) return out;
  unsigned st = p.state(), ph = p.phys_state();
  if (ph == PHYS_LINKUP && st != 4)
    out.push_back(make(db, node, port, std::string("port state ") + port_state_str(st) + " (physical LinkUp), expected Active"));
  else if (p.peer != NO_INDEX && ph != PHYS_LINKUP)
    out.push_back(make(db, node, port, std::string("physical state ") + phys_state_str(ph) + ", expected LinkUp"));
  return out;
}

std::vector<Finding> check_port_width(const Subnet& db, uint32_t node, unsigned port) {
  std::vector<Finding> out;
  const Node& n = db.node(node);
  if (port == 0) return out;
  const Port& p = db.port(n, port);
  const Port* q = db.peer(p);
  if (!p.has_info || !q || !q->has_info || p.phys_state() != PHYS_LINKUP) return out;
  auto a = p.port_info(), b = q->port_info();
  unsigned act = a.linkWidthActive();
  unsigned both_en = unsigned(a.linkWidthEnabled() & a.linkWidthSupported() & b.linkWidthEnabled() &
                              b.linkWidthSupported());
  unsigned both_sup = unsigned(a.linkWidthSupported() & b.linkWidthSupported());
  unsigned best = widest(both_en);
  if (best && width_lanes(act) < width_lanes(best))
    out.push_back(make(db, node, port,
                       "link width " + width_str(act) + ", both ends have " + width_str(best) + " enabled"));
  else if (act == 1 && widest(both_sup) && width_lanes(widest(both_sup)) > 1)
    out.push_back(make(db, node, port, "link width 1X, both ends support " + width_str(widest(both_sup))));
  return out;
}

std::vector<Finding> check_port_speed(const Subnet& db, uint32_t node, unsigned port) {
  std::vector<Finding> out;
  const Node& n = db.node(node);
  if (port == 0) return out;
  const Port& p = db.port(n, port);
  const Port* q = db.peer(p);
  if (!p.has_info || !q || !q->has_info || p.phys_state() != PHYS_LINKUP) return out;
  auto a = p.port_info(), b = q->port_info();
  unsigned act = a.linkSpeedActive();
  unsigned both = unsigned(a.linkSpeedEnabled() & a.linkSpeedSupported() & b.linkSpeedEnabled() &
                           b.linkSpeedSupported());
  // Extended speeds count when both ends' capability masks announce them.
  const Port* ca = cap_port(db, n, p);
  const Port* cb = cap_port(db, db.node_of(*q), *q);
  bool ext = ca && cb && (ca->port_info().capabilityMask() & (1u << 14)) &&
             (cb->port_info().capabilityMask() & (1u << 14));
  if (ext) {
    unsigned eboth = unsigned(a.linkSpeedExtEnabled() & a.linkSpeedExtSupported() & b.linkSpeedExtEnabled() &
                              b.linkSpeedExtSupported());
    unsigned eact = a.linkSpeedExtActive();
    unsigned ebest = highest_bit(eboth);
    if (ebest && eact < ebest) {
      out.push_back(make(db, node, port,
                         "link speed " + (eact ? ext_speed_str(eact) : speed_str(act)) + ", both ends have " +
                             ext_speed_str(ebest) + " enabled"));
      return out;
    }
    if (eact) return out;
  }
  unsigned best = highest_bit(both);
  if (best && act < best)
    out.push_back(make(db, node, port, "link speed " + speed_str(act) + ", both ends have " + speed_str(best) + " enabled"));
  return out;
}

std::vector<Finding> check_ids(const Subnet& db) {
  std::vector<Finding> out;
  // Port GUIDs: a GUID must name one port (switches: port 0 only).
  std::unordered_map<uint64_t, std::pair<uint32_t, unsigned>> guids;
  std::unordered_map<uint64_t, uint32_t> node_guids;
  for (uint32_t i = 0; i < db.node_count(); ++i) {
    const Node& n = db.node(i);
    if (n.guid == 0) out.push_back(make(db, i, 0, "node GUID is zero"));
    unsigned first = n.is_switch() ? 0 : 1, last = n.is_switch() ? 0 : n.nports;
    for (unsigned pn = first; pn <= last; ++pn) {
      const Port& p = db.port(n, pn);
      if (!p.exists) continue;
      if (p.guid == 0) {
        out.push_back(make(db, i, pn, "port GUID is zero"));
        continue;
      }
      auto [it, fresh] = guids.try_emplace(p.guid, i, pn);
      if (!fresh && (it->second.first != i || it->second.second != pn)) {
        char b[160];
        const Node& o = db.node(it->second.first);
        std::snprintf(b, sizeof b, "port GUID 0x%016" PRIx64 " is also used by \"%s\" port %u", p.guid,
                      o.description().c_str(), it->second.second);
        out.push_back(make(db, i, pn, b));
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
      if (lid == 0 || lid >= 0xc000) {
        char b[64];
        std::snprintf(b, sizeof b, "invalid LID %u on a %s port", lid, port_state_str(st));
        if (st == 4 || lid >= 0xc000) out.push_back(make(db, i, pn, b));
        continue;
      }
      if (lid & ((1u << lmc) - 1)) {
        char b[96];
        std::snprintf(b, sizeof b, "base LID %u is not aligned to LMC %u", lid, lmc);
        out.push_back(make(db, i, pn, b));
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
      out.push_back(make(db, ranges[k].node, ranges[k].port, b));
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
      char b[256];
      std::snprintf(b, sizeof b,
                    "the node on this link (DR path %s) has node GUID 0x%016" PRIx64 " port GUID 0x%016" PRIx64
                    ", already used by \"%s\"",
                    p.dr_string().c_str(), g, pg, o.description().c_str());
      out.push_back(make(db, node, port, b));
    }
  } catch (const MADError& e) {
    out.push_back(make(db, node, port, "LinkUp port whose peer does not answer NodeInfo: " + e.layers().back()));
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

}  // namespace ibcore::health
