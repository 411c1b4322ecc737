#include "core/health.h"

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

#include "core/config.h"
#include "core/devices.h"
#include "core/discovery.h"
#include "core/error.h"
#include "core/gmppath.h"
#include "core/netcache.h"
#include "core/nodemap.h"
#include "core/textfile.h"
#include "iba/smp.h"
#include "iba/introspect.h"
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
  std::string text;
  if (!read_file(file, text)) return false;
  parse(text);
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
      const iba::Gid local = s_.transport().local_gid();
      uint64_t guid = 0;
      if (auto g = guids_.find(lid); g != guids_.end()) {
        guid = g->second;
      } else if (uint32_t slot = db_ ? db_->port_by_lid(lid) : NO_INDEX; slot != NO_INDEX) {
        guid = db_->port(slot).guid;
      }
      bool by_gid = guid && local != iba::Gid{};
      if (by_gid) p.DGID = iba::Gid::from(local.prefix(), guid);
      auto [q, mask] = GmpPathResolver::path_query(p, s_.transport().local_lid(), local);
      std::optional<iba::SAPathRecord> pr;
      try {
        pr = co_await s_.SubnAdmGet(q, mask, sa_);
      } catch (const MADClassError&) {
        // The SA does not pair that GUID with the LID (the database is a
        // stale cache, or GUIDs are duplicated): ask by the LID alone.
        if (!by_gid) throw;
      }
      if (!pr) {
        p.DGID = {};
        ++path_queries_;
        auto [q2, mask2] = GmpPathResolver::path_query(p, s_.transport().local_lid(), local);
        pr = co_await s_.SubnAdmGet(q2, mask2, sa_);
      }
      apply_path_record(p, *pr);
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

void PmAccess::read_path_table() {
  if (skip_sl_ || table_ != Table::None || s_.transport().local_gid() == iba::Gid{}) return;
  table_ = Table::Pending;
  s_.spawn(read_table());
}

Task<> PmAccess::read_table() {
  const auto& D = iba::SAPathRecord::DESC;
  const uint16_t local_lid = s_.transport().local_lid();
  iba::SAPathRecord q;
  q.set_SGID(s_.transport().local_gid());
  q.set_SLID(local_lid);
  uint64_t mask = iba::component_mask(D, "SGID") | iba::component_mask(D, "SLID");
  // The SA computes a path to every port before it answers: give it time
  // (IBA response time 2^19 x 4.096 us, about 2 s), once.
  IBPath sa = sa_;
  sa.resp_time = 19;
  sa.retries = 0;
  ++path_queries_;
  try {
    auto t = co_await s_.SubnAdmGetTable(q, mask, sa);
    for (const auto& r : t.records) {
      uint16_t d = uint16_t(r.DLID());
      if (!d || r.SLID() != local_lid) continue;
      auto [it, fresh] = paths_.try_emplace(d);
      if (!fresh) continue;
      IBPath p;
      p.DLID = d;
      apply_path_record(p, r);
      it->second.path = p;
      it->second.done = true;
      ++table_paths_;
    }
  } catch (const MADError&) {
    // No table: every LID is asked alone.
  }
  table_ = Table::Done;
  for (auto h : table_waiters_) s_.make_ready(h);
  table_waiters_.clear();
}

Task<IBPath> PmAccess::path(uint16_t lid) {
  if (table_ == Table::Pending) co_await TableWait{*this};
  auto [it, fresh] = paths_.try_emplace(lid);
  Entry& e = it->second;
  if (fresh) co_await resolve(lid, e);
  if (!e.done) co_await Wait{e, s_};
  if (e.error) std::rethrow_exception(e.error);
  co_return e.path;
}

Task<uint16_t> PmAccess::cap_mask(uint16_t lid, bool* failed) {
  auto it = caps_.find(lid);
  if (it == caps_.end()) {
    std::pair<uint16_t, bool> r{0, false};
    try {
      IBPath p = co_await path(lid);
      auto cpi = co_await s_.PerformanceGet<iba::MADClassPortInfo>(p);
      r.first = uint16_t(cpi.capabilityMask());
    } catch (const MADError&) {
      r.second = true;
    }
    it = caps_.insert_or_assign(lid, r).first;
  }
  if (failed) *failed = it->second.second;
  co_return it->second.first;
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

PmSession::PmSession(bool skip_sl, bool need_sa)
    : umad_(get_end_port(config().ca, config().port)),
      sched_(umad_),
      pm_(sched_, need_sa && !skip_sl ? sa_path_for_pm(umad_) : IBPath(), skip_sl) {}

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
  return found != NO_INDEX && db.node(found).type == type ? found : NO_INDEX;
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

// The far end of a LinkUp link whose both ends have PortInfo (else null).
const Port* up_peer(const Subnet& db, uint32_t node, unsigned port) {
  if (port == 0) return nullptr;
  const Port& p = db.port(db.node(node), port);
  const Port* q = db.peer(p);
  if (!p.has_info || !q || !q->has_info || p.phys_state() != PHYS_LINKUP) return nullptr;
  return q;
}

}  // namespace

std::vector<Finding> check_port_state(const Subnet& db, uint32_t node, unsigned port, bool named) {
  std::vector<Finding> out;
  const Node& n = db.node(node);
  if (port == 0 && n.is_switch()) return out;
  const Port& p = db.port(n, port);
  if (!p.has_info) return out;
  unsigned st = p.state(), ph = p.phys_state();
  if (ph == PHYS_LINKUP && st != 4)
    out.push_back(make(db, node, port, std::string("port state ") + port_state_str(st) + " (physical LinkUp), expected Active"));
  else if ((p.peer != NO_INDEX || named) && ph != PHYS_LINKUP)
    out.push_back(make(db, node, port,
                       std::string("port state ") + port_state_str(st) + "/" + phys_state_str(ph) +
                           ", expected Active/LinkUp" + (p.peer == NO_INDEX ? " (no link)" : "")));
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
  if (best && width_lanes(act) < width_lanes(best))
    out.push_back(make(db, node, port,
                       "link width " + width_str(act) + ", both ends have " + width_str(best) + " enabled"));
  else if (act == 1 && widest_width(both_sup) && width_lanes(widest_width(both_sup)) > 1)
    out.push_back(make(db, node, port, "link width 1X, both ends support " + width_str(widest_width(both_sup))));
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
      if (lid == 0 || lid > iba::UNICAST_LID_LAST) {
        char b[64];
        std::snprintf(b, sizeof b, "invalid LID %u on a %s port", lid, port_state_str(st));
        if (st == 4 || lid > iba::UNICAST_LID_LAST) out.push_back(make(db, i, pn, b));
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

namespace ibcore::health {

// --- links against a baseline ----------------------------------------------------------

std::vector<ExpectedLink> links_of(const Subnet& db) {
  std::vector<ExpectedLink> out;
  for (uint32_t i = 0; i < db.port_slots(); ++i) {
    const Port& p = db.port(i);
    const Port* q = db.peer(p);
    if (!p.exists || !q || p.peer < i) continue;  // each link once, from its lower slot
    const Node &a = db.node_of(p), &b = db.node_of(*q);
    ExpectedLink l;
    l.guid[0] = a.guid, l.port[0] = p.num, l.desc[0] = a.description();
    l.guid[1] = b.guid, l.port[1] = q->num, l.desc[1] = b.description();
    out.push_back(std::move(l));
  }
  return out;
}

namespace {
// The GUID in an ibnetdiscover node id ("S-0002c90300001234", "H-...", "R-...").
std::optional<uint64_t> id_guid(std::string_view id) {
  if (id.size() < 3 || id[1] != '-') return std::nullopt;
  std::string hex(id.substr(2));
  char* end = nullptr;
  uint64_t g = std::strtoull(hex.c_str(), &end, 16);
  if (hex.empty() || *end) return std::nullopt;
  return g;
}
// The text between the quote at s[pos] and the next quote; pos moves past it.
std::optional<std::string_view> quoted(std::string_view s, size_t& pos) {
  if (pos >= s.size() || s[pos] != '"') return std::nullopt;
  size_t e = s.find('"', pos + 1);
  if (e == std::string_view::npos) return std::nullopt;
  std::string_view r = s.substr(pos + 1, e - pos - 1);
  pos = e + 1;
  return r;
}
std::optional<unsigned> bracketed(std::string_view s, size_t& pos) {
  if (pos >= s.size() || s[pos] != '[') return std::nullopt;
  size_t e = s.find(']', pos);
  if (e == std::string_view::npos) return std::nullopt;
  std::string n(s.substr(pos + 1, e - pos - 1));
  char* end = nullptr;
  unsigned long v = std::strtoul(n.c_str(), &end, 10);
  if (n.empty() || *end || v > 255) return std::nullopt;
  pos = e + 1;
  return unsigned(v);
}
}  // namespace

std::vector<ExpectedLink> parse_topology(std::string_view text) {
  std::map<uint64_t, std::string> desc;
  std::map<std::pair<std::pair<uint64_t, unsigned>, std::pair<uint64_t, unsigned>>, bool> links;
  std::optional<uint64_t> cur;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string_view::npos) continue;
    line.remove_prefix(i);
    if (line.starts_with("Switch") || line.starts_with("Ca") || line.starts_with("Rt")) {
      // Node header: type, port count, "id", then # "description" ...
      size_t q = line.find('"');
      cur.reset();
      if (q == std::string_view::npos) continue;
      auto id = quoted(line, q);
      if (!id) continue;
      cur = id_guid(*id);
      if (!cur) continue;
      size_t h = line.find('#', q);
      if (h != std::string_view::npos) {
        size_t d = line.find('"', h);
        if (auto s = d == std::string_view::npos ? std::nullopt : quoted(line, d)) desc[*cur] = std::string(*s);
      }
      desc.try_emplace(*cur);
    } else if (line[0] == '[' && cur) {
      // [port](portguid)? "id"[port](portguid)? # ...
      size_t p = 0;
      auto lp = bracketed(line, p);
      size_t q = line.find('"', p);
      if (!lp || q == std::string_view::npos) continue;
      auto id = quoted(line, q);
      auto rg = id ? id_guid(*id) : std::nullopt;
      auto rp = bracketed(line, q);
      if (!rg || !rp) continue;
      std::pair<uint64_t, unsigned> a{*cur, *lp}, b{*rg, *rp};
      links[a < b ? std::make_pair(a, b) : std::make_pair(b, a)] = true;
    }
  }
  std::vector<ExpectedLink> out;
  for (auto& [k, v] : links) {
    ExpectedLink l;
    l.guid[0] = k.first.first, l.port[0] = k.first.second, l.desc[0] = desc[k.first.first];
    l.guid[1] = k.second.first, l.port[1] = k.second.second, l.desc[1] = desc[k.second.first];
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<ExpectedLink> load_baseline(const std::string& file) {
  std::string bytes;
  if (!read_file(file, bytes)) throw Error("Cannot read baseline " + file);
  std::span<const uint8_t> raw(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  bool is_cache = true;
  try {
    detect_cache_format(raw, file);
  } catch (const CacheError&) {
    is_cache = false;
  }
  if (is_cache) return links_of(decode_cache(raw, file));
  auto links = parse_topology(bytes);
  if (links.empty())
    throw Error("Baseline " + file + " is neither a subnet cache nor an ibnetdiscover topology file with links");
  return links;
}

std::vector<Finding> check_links(const Subnet& db, const std::vector<ExpectedLink>& base,
                                 const std::function<std::string(uint64_t, const std::string&)>& name) {
  std::vector<Finding> out;
  auto gs = [](uint64_t g) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%016" PRIx64, g);
    return std::string(b);
  };
  // "Name" (0x...) for a baseline end, named as the live node when present.
  auto end_name = [&](const ExpectedLink& l, int e) {
    uint32_t n = db.node_by_guid(l.guid[e]);
    std::string d = n != NO_INDEX ? db.node(n).description() : l.desc[e];
    return "\"" + name(l.guid[e], d) + "\" (" + gs(l.guid[e]) + ")";
  };
  std::set<uint64_t> named, absent;
  for (const ExpectedLink& l : base) {
    uint32_t n[2] = {db.node_by_guid(l.guid[0]), db.node_by_guid(l.guid[1])};
    const Port* p[2] = {nullptr, nullptr};
    for (int e = 0; e < 2; ++e)
      if (n[e] != NO_INDEX && l.port[e] <= db.node(n[e]).nports && db.port(db.node(n[e]), l.port[e]).exists)
        p[e] = &db.port(db.node(n[e]), l.port[e]);
    if (p[0] && p[1] && p[0]->peer == db.port_index(n[1], l.port[1]) && p[0]->phys_state() == PHYS_LINKUP &&
        (!p[1]->has_info || p[1]->phys_state() == PHYS_LINKUP))
      continue;
    for (int e = 0; e < 2; ++e)
      if (n[e] == NO_INDEX) absent.insert(l.guid[e]);
    int me = n[0] != NO_INDEX ? 0 : n[1] != NO_INDEX ? 1 : -1;
    if (me < 0) continue;  // neither end is here: reported as missing nodes below
    int other = 1 - me;
    named.insert(l.guid[other]);
    // Why the link is not up, from both ends.
    std::vector<std::string> why;
    auto port_why = [&](int e) -> std::string {
      std::string who = e == me ? "this port" : end_name(l, e) + " port " + std::to_string(l.port[e]);
      if (n[e] == NO_INDEX) return end_name(l, e) + " is not in the subnet";
      if (!p[e]) return who + " is not in the subnet";
      if (p[e]->has_info && p[e]->phys_state() != PHYS_LINKUP)
        return who + " is " + port_state_str(p[e]->state()) + "/" + phys_state_str(p[e]->phys_state());
      if (const Port* q = db.peer(*p[e])) {
        uint64_t og = db.node_of(*q).guid;
        if (og != l.guid[1 - e] || q->num != l.port[1 - e])
          return who + " links to \"" + name(og, db.node_of(*q).description()) + "\" (" + gs(og) + ") port " +
                 std::to_string(q->num);
      }
      return "";
    };
    for (int e : {me, other})
      if (auto w = port_why(e); !w.empty()) why.push_back(w);
    std::string what = "link to " + end_name(l, other) + " port " + std::to_string(l.port[other]) +
                       " (in the baseline) is down";
    for (size_t k = 0; k < why.size(); ++k) what += (k ? "; " : ": ") + why[k];
    if (p[me]) {
      out.push_back(make(db, n[me], l.port[me], what));
    } else {
      Finding f;
      f.node = n[me];
      f.port = int(l.port[me]);
      f.what = what;
      out.push_back(f);
    }
  }
  // Baseline nodes with no live end on any of their links.
  std::map<uint64_t, std::string> descs;
  for (const ExpectedLink& l : base)
    for (int e = 0; e < 2; ++e) descs.try_emplace(l.guid[e], l.desc[e]);
  for (uint64_t g : absent) {
    if (named.count(g)) continue;
    Finding f;
    f.what = "node \"" + name(g, descs[g]) + "\" (" + gs(g) + ") of the baseline is not in the subnet";
    out.push_back(f);
  }
  return out;
}

}  // namespace ibcore::health
