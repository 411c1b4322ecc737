// The model bench's tools (tools.h).
#include "test/model/tools.h"

#include <deque>
#include <stdexcept>
#include <unordered_set>

#include "core/fabric/discovery.h"
#include "core/fabric/obtain.h"
#include "core/health/pmaccess.h"
#include "core/health/pmscrape.h"
#include "core/rpc/sched.h"

namespace ibmodel {

namespace {

using namespace ibcore;
namespace H = ibcore::health;

// The invocation a tool runs with: f.config() with the port's settings.
Config invocation(Fabric& f) {
  Config c = f.config();
  static_cast<PortSettings&>(c) = f.port().settings();
  return c;
}

// ibnetdiscover and iblinkinfo: a live discovery (iblinkinfo's PortInfo is
// the discovery's own).
size_t run_discovery(Fabric& f, Scheduler& sched, size_t* errors) {
  DiscoveryOptions o;
  o.mlx_epi = f.config().mlx_epi;
  DiscoveryResult r;
  Subnet db = discover_live(invocation(f), o, &r, &sched);
  *errors = r.errors.size();
  return db.node_count();
}

// dump_fts: the walk reads every switch's LFT as it goes (cmd/dump_fts.cpp
// dump_lfts).
size_t run_dump_fts(Fabric& f, Scheduler& sched, size_t* errors) {
  DiscoveryOptions o;
  o.mode = discovery_mode(invocation(f));
  o.mlx_epi = false;
  o.read_lft = true;
  o.lft_first = 0;
  o.lft_last = iba::MLID_BASE - 1;
  Subnet db;
  DiscoveryResult r = discover(sched, db, o);
  *errors = r.errors.size();
  return db.node_count();
}

// ibqueryerrors' whole-fabric scan, through the fabric counter scan as the
// command's: the SA's path table, then per node LID (read ahead as the walk
// finds it) its path, ClassPortInfo and PortCounters (AllPortSelect where
// the PMA has it, else the port).
size_t run_queryerrors(Fabric& f, Scheduler& sched, size_t* errors) {
  H::PmAccess pm(sched, H::sa_path_for_pm(f.port()));
  pm.read_path_table();
  H::CounterGroups errs;
  errs.data = false;
  H::PortCountersReader reader(pm, nullptr, errs);
  reader.errors_from_port_counters(true);
  struct Item {
    uint16_t lid;
    uint8_t port;
    bool sw;
  };
  size_t failed = 0;
  std::unordered_set<uint16_t> seen;
  WorkQueue<Item> q(sched, 24, [&](Item it) -> Task<> {
    H::PmaCaps caps = co_await reader.caps(it.lid);
    if (caps.failed) caps = H::PmaCaps{};
    if (caps.all_port_select()) {
      if (!(co_await reader.sum(it.lid)).ok) ++failed;
      co_return;
    }
    for (unsigned p = it.sw ? 1 : it.port; p <= it.port; ++p) {
      H::PortCountersRead r;
      co_await reader.read(it.lid, uint8_t(p), false, r, errs, &caps);
      if (!r.ok()) ++failed;
    }
  });
  DiscoveryOptions o;
  o.mlx_epi = f.config().mlx_epi;
  o.on_port_lid = [&](const Subnet& d, uint32_t n, unsigned port) {
    const Node& x = d.node(n);
    uint16_t lid = x.is_switch() ? x.smalid : d.port(x, port).base_lid;
    if (!lid || !seen.insert(lid).second) return;
    if (d.port(x, port).guid) pm.set_port_guid(lid, d.port(x, port).guid);
    q.push({lid, uint8_t(x.is_switch() ? x.nports : port), x.is_switch()});
  };
  ObtainOptions oo;
  oo.discovery = o;
  oo.sched = &sched;
  oo.use_config_cache = false;
  Subnet db = obtain_subnet(invocation(f), oo);
  pm.use_subnet(&db);
  sched.run();
  *errors = failed;
  return db.node_count();
}

// The exporter's scrape: every port's counters through PortCountersReader
// (core/health/pmscrape), read ahead as the walk finds each node's LID.
size_t run_exporter(Fabric& f, Scheduler& sched, size_t* errors) {
  H::PmAccess pm(sched, H::sa_path_for_pm(f.port()));
  pm.read_path_table();
  H::PortCountersReader reader(pm);
  struct Item {
    uint16_t lid;
    uint8_t port;
    bool sw;
  };
  std::deque<H::PortCountersRead> reads;
  size_t failed = 0;
  WorkQueue<Item> q(sched, 24, [&](Item it) -> Task<> {
    reads.emplace_back();
    H::PortCountersRead& r = reads.back();
    co_await reader.read(it.lid, it.port, it.sw, r);
    if (r.failed) ++failed;
  });
  std::unordered_set<uint32_t> queued;
  DiscoveryOptions o;
  o.on_port_lid = [&](const Subnet& d, uint32_t n, unsigned port) {
    const Node& x = d.node(n);
    uint16_t lid = x.is_switch() ? x.smalid : d.port(x, port).base_lid;
    if (!lid) return;
    if (d.port(x, port).guid) pm.set_port_guid(lid, d.port(x, port).guid);
    for (unsigned p = x.is_switch() ? 1 : port; p <= (x.is_switch() ? x.nports : port); ++p) {
      uint32_t slot = d.port_index(n, p);
      if (slot == NO_INDEX || !queued.insert(slot).second) continue;
      q.push({lid, uint8_t(p), x.is_switch()});
    }
  };
  DiscoveryResult dr;
  Subnet db = discover_live(invocation(f), o, &dr, &sched);
  pm.use_subnet(&db);
  sched.run();
  *errors = failed + dr.errors.size();
  return db.node_count();
}

}  // namespace

const std::vector<std::string>& tool_names() {
  static const std::vector<std::string> names{"ibnetdiscover", "iblinkinfo", "ibqueryerrors", "dump_fts", "exporter"};
  return names;
}

void use_reference_strategy(Fabric& f) {
  f.config().discovery = ibcore::DiscoveryMode::DR;
  ibcore::PortSettings& c = f.port().settings();
  c.outstanding = 2;
  c.timeout_ms = 1000;
  c.retries = 3;
}

ToolResult run_tool(const std::string& tool, Fabric& f, const ibcore::FlowLimits* limits) {
  const double t0 = f.seconds();
  const Stats before = f.stats();
  Scheduler sched(f.port());
  if (limits) sched.engine().limits() = *limits;
  ToolResult res;
  if (tool == "ibnetdiscover" || tool == "iblinkinfo")
    res.nodes = run_discovery(f, sched, &res.errors);
  else if (tool == "dump_fts")
    res.nodes = run_dump_fts(f, sched, &res.errors);
  else if (tool == "ibqueryerrors")
    res.nodes = run_queryerrors(f, sched, &res.errors);
  else if (tool == "exporter")
    res.nodes = run_exporter(f, sched, &res.errors);
  else
    throw std::runtime_error("unknown tool " + tool);
  const Stats& st = f.stats();
  res.time_s = f.seconds() - t0;
  res.bound_s = f.bound_s();
  res.mads = sched.engine().sent();
  res.retries = sched.engine().resent();
  res.drops = (st.drops_vl15 + st.drops_queue + st.drops_route) -
              (before.drops_vl15 + before.drops_queue + before.drops_route);
  res.timeouts = st.kernel_timeouts - before.kernel_timeouts;
  res.peak_sma_queue = st.peak_sma_queue;
  res.busiest = st.busiest_resource;
  res.peak_node = st.peak_sma_node;
  res.flow = sched.engine().flow_stats();
  res.left_in_flight = sched.engine().in_flight();
  return res;
}

}  // namespace ibmodel
