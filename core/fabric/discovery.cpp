// discover() and what the walk's failures say (the reference's lines and
// ibtool's own).  The walk itself is core/fabric/walk.{h,cpp} (its steps)
// and walkask.h (asking a node by its routes); the tables read after it,
// core/fabric/tableread.cpp.
#include "core/fabric/discovery.h"

#include <cerrno>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "core/base/error.h"
#include "core/fabric/sadiscovery.h"
#include "core/fabric/tableread.h"
#include "core/fabric/walk.h"
#include "core/out/log.h"

namespace ibcore {

// Mellanox devices whose ports answer MlnxExtPortInfo (the FDR10 speed).
bool mlnx_ext_supported(uint16_t devid, uint32_t vendid) {
  if ((devid >= 0xc738 && devid <= 0xc73b) || devid == 0xc839 || devid == 0xcb20 || devid == 0xcf08 ||
      devid == 0xcf09 || devid == 0xd2f0)
    return true;
  if ((devid >= 0x1003 && devid <= 0x101b) || devid == 0xa2d2) return true;
  if (vendid == 0x119f) {
    static const uint16_t bull[] = {0x1b02, 0x1b50, 0x1ba0, 0x1bf0, 0x1b33, 0x1b73, 0x1b40, 0x1b41,
                                    0x1b60, 0x1b61, 0x1b83, 0x1b93, 0x1b94, 0x1bb4, 0x1bb5};
    if (std::find(std::begin(bull), std::end(bull), devid) != std::end(bull)) return true;
    if ((devid >= 0x1bd0 && devid <= 0x1bd5) || (devid >= 0x1bc4 && devid <= 0x1bc6)) return true;
  }
  return false;
}

namespace {

// "what: layer: layer..." for a failed query.
std::string failure_text(const std::exception& e, const std::string& what) {
  std::string msg = what;
  if (auto* me = dynamic_cast<const MADError*>(&e)) {
    for (auto& l : me->layers()) msg += ": " + l;
  } else {
    msg += std::string(": ") + e.what();
  }
  return msg;
}

}  // namespace

// Record a failed query (and the reference's line for it, if any).
void add_discovery_failure(DiscoveryResult& r, const std::exception& e, const std::string& what) {
  std::string ref = reference_smp_warning(e);
  if (!ref.empty()) r.reference_lines[r.errors.size()] = std::move(ref);
  r.errors.push_back(failure_text(e, what));
}

IBPath dr_path_of(const Subnet& db, uint32_t n) { return IBDRPath(db.node(n).dr); }

IBPath switch_path(const Subnet& db, uint32_t n, uint16_t local_lid, DiscoveryMode mode) {
  const Node& x = db.node(n);
  if (local_lid && x.smalid && n != db.from_node && mode != DiscoveryMode::DR) {
    IBPath p;
    p.DLID = x.smalid;
    p.SLID = local_lid;
    return p;
  }
  return dr_path_of(db, n);
}

DiscoveryResult discover(Scheduler& sched, Subnet& db, const DiscoveryOptions& opt) {
  if (opt.mode == DiscoveryMode::SA) return discover_sa(sched, db, opt);  // records only
  walk::Walk w(sched, db, opt);
  DiscoveryResult r = w.run();
  // The MFTs, and the LFTs of switches whose SwitchInfo the walk could not read.
  if (opt.read_mft && !w.tables.empty()) read_switch_tables(sched, db, w.tables, false, true, opt.mode, &r);
  if (opt.read_lft) {
    std::vector<uint32_t> left;
    for (uint32_t n : w.tables)
      if (!w.lft_tried.count(n)) left.push_back(n);
    if (!left.empty()) read_switch_tables(sched, db, left, true, false, opt.mode, &r);
  }
  return r;
}

std::string reference_smp_warning(const std::exception& e) {
  auto* me = dynamic_cast<const MADError*>(&e);
  if (!me || me->req.size() < iba::SMPFormatDirected::SIZE) return {};
  iba::SMPFormatDirected q;
  q.load(me->req);
  unsigned hops = unsigned(q.hopCount());
  if (q.mgmtClass() != iba::mgmt::SUBN_DIRECTED_ROUTE || hops > 63) return {};
  // libibnetdisc's portid2str of its walk's paths (DR from the local port:
  // its slid and dlid are 0).
  std::string path = "DR path slid 0; dlid 0; ";
  for (unsigned i = 0; i <= hops; ++i) path += (i ? "," : "") + std::to_string(q.initialPath(i));
  unsigned attr = unsigned(q.attributeID());
  unsigned mod = unsigned(q.attributeModifier());
  char b[400];
  if (dynamic_cast<const MADTimeoutError*>(me))
    std::snprintf(b, sizeof b, "./libibnetdisc/query_smp.c:186; umad (%s Attr 0x%x:%u) bad status %d; %s",
                  path.c_str(), attr, mod, ETIMEDOUT, std::strerror(ETIMEDOUT));
  else if (me->status & 0x7fff)
    std::snprintf(b, sizeof b, "./libibnetdisc/query_smp.c:193; mad (%s Attr 0x%x:%u) bad status 0x%x", path.c_str(),
                  attr, mod, unsigned(me->status & 0x7fff));
  else
    return {};
  return b;
}

void report_discovery_stats(const DiscoveryResult& r, std::chrono::steady_clock::time_point started) {
  if (!log::verbosity()) return;
  ibcore::log::info("I: discovery: %llu MADs sent for %llu queries (%llu resent), %.3f s\n",
               (unsigned long long)r.mads, (unsigned long long)r.queries, (unsigned long long)r.resent,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  if (!r.routes.empty()) ibcore::log::info("I: discovery: routes: %s\n", r.routes.c_str());
  report_flow(r.flow);
}

void report_discovery_errors(const DiscoveryResult& r, size_t from) {
  for (size_t i = from; i < r.errors.size(); ++i) {
    auto ref = r.reference_lines.find(i);
    if (ref != r.reference_lines.end()) ibcore::log::info("%s\n", ref->second.c_str());
    if (ref == r.reference_lines.end() || log::verbosity())
      ibcore::log::warn("W: discovery: %s\n", r.errors[i].c_str());
  }
}

}  // namespace ibcore
