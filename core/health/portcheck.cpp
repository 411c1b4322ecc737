// The ibcheck* family's checks (portcheck.h).
#include "core/health/portcheck.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>

#include "core/fabric/obtain.h"
#include "core/health/pmaccess.h"
#include "core/health/scan.h"

namespace ibcore::health {

namespace {

void append(std::vector<Finding>& a, const std::vector<Finding>& b) { a.insert(a.end(), b.begin(), b.end()); }

// "gone: no answer at LID 5 (topology from cache ...)", for a node
// refresh_links marked gone: named by the port whose LID was asked (a
// CA's), or as a node (a switch).
Finding gone_finding(const Subnet& db, uint32_t node) {
  const Node& n = db.node(node);
  Finding f;
  f.node = node;
  f.lid = node_lid(db, node);
  f.port = -1;
  if (!n.is_switch())
    for (unsigned p = 1; p <= n.nports; ++p)
      if (db.port(n, p).base_lid == f.lid) {
        f.port = int(p);
        break;
      }
  f.what = health::gone_text(db, f.lid);
  f.check = "gone";
  f.fact("cacheFile", db.cache_file);
  return f;
}

// A port of the scan without a LID: nothing to read it at.
Finding no_lid(const PortRow& r) {
  Finding f;
  f.node = r.node;
  f.port = int(r.num);
  f.check = "pma";
  f.what = "no LID: PortCounters cannot be read";
  return f;
}

// A row of the scan as findings: each error counter beyond its
// threshold, or the read's failure (or its node gone from the fabric).
void findings(const Subnet& db, const PortRow& r, const Thresholds& thr, std::vector<Finding>& out) {
  Finding f;
  f.node = r.node;
  f.port = int(r.num);
  f.lid = r.lid;
  f.check = "pma";
  if (r.c.ok()) {
    const uint16_t over = beyond(thr, r.c.pc, r.c.caps);
    for (int i = 0; i < N_ERR; ++i) {
      if (!(over & (1u << i))) continue;
      uint64_t v = ERROR_COUNTERS.value(r.c.pc, i);
      Finding e = f;
      char b[160];
      std::snprintf(b, sizeof b, "%s is %" PRIu64 " (threshold %" PRIu64 ")%s", ERROR_COUNTERS.name(i), v,
                    thr.limit[i], v == ERROR_COUNTERS.max(i) ? ", saturated" : "");
      e.what = b;
      e.check = "counter";
      e.field = ERROR_COUNTERS.field(i);
      e.numeric = e.threshold_set = true;
      e.value = v;
      e.threshold = thr.limit[i];
      e.saturated = v == ERROR_COUNTERS.max(i);
      out.push_back(e);
    }
    return;
  }
  if (r.gone) {
    // A node of a cached topology that does not answer may have left the
    // fabric since: say so rather than blame its PMA.
    f.what = health::gone_text(db, r.lid);
    f.check = "gone";
    f.fact("cacheFile", db.cache_file);
  } else {
    auto layers = error_layers(r.c.why());
    f.what = "PortCounters query failed: " + (layers.empty() ? std::string() : layers.back());
    f.fact("error", layers.empty() ? std::string() : layers.back());
    if (layers.size() > 1) f.detail = layers.front();
  }
  out.push_back(f);
}

}  // namespace

bool port_checkable(const Subnet& db, const Node& n, unsigned p) {
  const Port& x = db.port(n, p);
  if (!x.exists || !x.has_info) return false;
  // Unconnected ports (down, no peer) have nothing to check.
  return x.peer != NO_INDEX || x.phys_state() == PHYS_LINKUP;
}

std::vector<Finding> run_checks(const Config& cfg, const Subnet& db, const std::vector<uint32_t>& nodes,
                                std::vector<CheckItem>& items, const CheckPlan& plan, const Thresholds& thr,
                                const std::vector<ExpectedLink>& base, const NodeNameMap& map) {
  // A node of the cache that left the fabric: one finding, and none of
  // its ports checked (their states are the file's, not the fabric's).
  std::vector<Finding> found;
  std::set<uint32_t> gone;
  for (uint32_t i : nodes)
    if (db.node(i).gone && gone.insert(i).second) found.push_back(gone_finding(db, i));
  std::erase_if(items, [&](const CheckItem& it) { return gone.count(it.node) != 0; });
  for (const CheckItem& it : items) {
    if (plan.state) append(found, check_port_state(db, it.node, it.port, plan.named));
    // A link is reported once, from the end with the lower port slot,
    // unless only this end is checked.
    const Port& me = db.port(db.node(it.node), it.port);
    bool link_end = plan.target || me.peer == NO_INDEX || db.port_index(it.node, it.port) < me.peer;
    if (plan.width && link_end) append(found, check_port_width(db, it.node, it.port));
    if (plan.speed && link_end) append(found, check_port_speed(db, it.node, it.port));
  }
  if (plan.ids) append(found, check_ids(db));
  if (!base.empty())
    append(found, check_links(db, base, [&](uint64_t g, const std::string& d) { return map.remap(g, d); }));

  if (plan.errors || plan.ids) {
    PmSession ses(cfg, false, plan.errors);
    ses.pm().use_subnet(&db);
    Scheduler& sched = ses.sched();
    std::vector<std::vector<Finding>> per(items.size());
    // The fabric counter scan, for the error counters (PortXmitWait
    // among them) as PortCounters has them: a switch whose AllPortSelect
    // sum is all zero has its ports' reads skipped, where two or more of
    // its ports are read.
    PortScanOptions so;
    so.want = error_groups();
    so.pc_errors = true;
    PortScan scan(ses.pm(), so);
    std::vector<PortRow> all;
    std::vector<size_t> all_item;
    if (plan.errors)
      for (size_t i = 0; i < items.size(); ++i)
        if (items[i].port == 0 || db.port(db.node(items[i].node), items[i].port).phys_state() == PHYS_LINKUP ||
            plan.target) {
          all.push_back(PortScan::row(db, items[i].node, items[i].port));
          all_item.push_back(i);
        }
    PortScan::sums_for_switches(db, all);
    std::vector<PortRow> rows;
    std::vector<size_t> row_item;
    for (size_t k = 0; k < all.size(); ++k) {
      if (!all[k].lid) {
        per[all_item[k]].push_back(no_lid(all[k]));
        continue;
      }
      rows.push_back(all[k]);
      row_item.push_back(all_item[k]);
    }
    scan.spawn(db, rows);
    std::vector<Finding> dup;
    if (plan.ids) probe_duplicate_guids(sched, db, dup);
    sched.run();
    for (size_t k = 0; k < rows.size(); ++k) findings(db, rows[k], thr, per[row_item[k]]);
    for (auto& v : per) append(found, v);
    append(found, dup);
  }

  // Stable order: by node discovery rank, then port.
  std::map<uint32_t, size_t> rank;
  for (size_t i = 0; i < nodes.size(); ++i) rank[nodes[i]] = i;
  std::stable_sort(found.begin(), found.end(), [&](const Finding& a, const Finding& b) {
    size_t ra = a.node == NO_INDEX ? SIZE_MAX : (rank.count(a.node) ? rank[a.node] : SIZE_MAX - 1);
    size_t rb = b.node == NO_INDEX ? SIZE_MAX : (rank.count(b.node) ? rank[b.node] : SIZE_MAX - 1);
    return ra != rb ? ra < rb : a.port < b.port;
  });
  return found;
}

}  // namespace ibcore::health
