// The model bench's tools (tools.h).
#include "test/model/tools.h"

#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>

#include "core/fabric/discovery.h"
#include "core/fabric/obtain.h"
#include "core/health/pmaccess.h"
#include "core/health/pmscrape.h"
#include "core/health/scan.h"
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

// What a discovery obtained (ToolResult::units): a node's NodeInfo, its
// NodeDescription, a switch's SwitchInfo, each port's PortInfo.
size_t subnet_units(const Subnet& db) {
  size_t u = 0;
  for (uint32_t n = 0; n < db.node_count(); ++n) {
    const Node& x = db.node(n);
    u += 1 + (x.has_desc ? 1 : 0) + (x.has_swinfo ? 1 : 0);
    for (unsigned p = 0; p <= x.nports; ++p) {
      const uint32_t i = db.port_index(n, p);
      if (i != NO_INDEX && db.port(i).has_info) ++u;
    }
  }
  return u;
}

// The walk's options the fabric's knobs set (Fabric::hybrid_routes, ...).
void walk_options(Fabric& f, DiscoveryOptions& o) {
  o.hybrid_routes = f.hybrid_routes();
  o.spread_ports = f.spread_ports();
  o.sa_lids = f.sa_lids();
  o.sa_links = f.sa_links();
  o.leads_first = f.leads_first();
  o.leading_ports_first = f.leading_ports_first();
  o.ports_before_info = f.ports_before_info();
  o.ahead = f.ahead();
}

// ibnetdiscover and iblinkinfo: a live discovery (iblinkinfo's PortInfo is
// the discovery's own).
void run_discovery(Fabric& f, Scheduler& sched, ToolResult& res) {
  DiscoveryOptions o;
  walk_options(f, o);
  o.mlx_epi = f.config().mlx_epi;
  DiscoveryResult r;
  Subnet db = discover_live(invocation(f), o, &r, &sched);
  res.errors = r.errors.size();
  res.nodes = db.node_count();
  res.units = subnet_units(db);
}

// dump_fts: the walk reads every switch's LFT as it goes (cmd/dump_fts.cpp
// dump_lfts).
void run_dump_fts(Fabric& f, Scheduler& sched, ToolResult& res) {
  DiscoveryOptions o;
  walk_options(f, o);
  o.mode = discovery_mode(invocation(f));
  o.mlx_epi = false;
  o.read_lft = true;
  o.lft_first = 0;
  o.lft_last = iba::MLID_BASE - 1;
  Subnet db;
  DiscoveryResult r = discover(sched, db, o);
  res.errors = r.errors.size();
  res.nodes = db.node_count();
  res.units = subnet_units(db);
  for (uint32_t n = 0; n < db.node_count(); ++n)
    if (const SwitchTables* t = db.find_tables(n); t && t->lft_valid) ++res.units;
}

// ibqueryerrors' whole-fabric scan, as `ibtool ibqueryerrors` makes it
// with no options (cmd/ibqueryerrors.cpp): the fabric counter scan's
// ErrorScan (core/health/scan.h), its obtain() (the SA's path table, then
// the live discovery with each node's ClassPortInfo and AllPortSelect sum,
// else its port's counters, read ahead as the walk finds its LID), then its
// run() over every node in the reference's order (what was not read ahead,
// or read ahead and failed, or is beyond a threshold), with the default
// thresholds (no file: any error counter above 0).  The rows are counted
// here where the command's ErrorReport turns them into lines.
class RowCount : public H::ErrorSink {
public:
  void row(const H::ErrorRow& r) override {
    if (r.failed == H::ErrorRow::Failed::None) ++read;
  }
  size_t read = 0;  // a port's counters, or a switch's AllPortSelect sum
};

void run_queryerrors(Fabric& f, Scheduler& sched, ToolResult& res) {
  H::PmAccess pm(sched, H::sa_path_for_pm(f.port()));
  H::Thresholds thr;
  H::ErrorScanOptions so;
  so.thr = &thr;
  H::ErrorScan scan(pm, so);
  ObtainOptions oo;
  walk_options(f, oo.discovery);
  oo.discovery.mlx_epi = f.config().mlx_epi;
  DiscoveryResult dr;
  oo.result = &dr;
  Subnet db;
  scan.obtain(invocation(f), oo, db);
  RowCount rows;
  size_t failed = 0;
  for (const H::NodeScan& n : scan.run(db, db.reference_order(NodeType::Unknown), rows)) failed += n.pma_failures;
  // (a query failed for good: its node's pma_failures, the ClassPortInfo
  // that failed among them)
  res.errors = failed + dr.errors.size();
  res.nodes = db.node_count();
  res.units = subnet_units(db) + rows.read;
}

// The exporter's scrape, as `ibtool exporter --collector.data
// --collector.congestion --down-ports all` makes it (the test bed's counts
// below): the fabric counter scan's walk (core/health/scan.h
// PortScan::walk), every port's counters of every group read ahead as the
// walk finds each node's LID.  No retry budget: a failure stays one (the
// model's tools count them).
void run_exporter(Fabric& f, Scheduler& sched, ToolResult& res) {
  H::PmAccess pm(sched, H::sa_path_for_pm(f.port()));
  pm.forget_failed_paths(true);
  pm.read_path_table();
  H::PortScanOptions so;
  H::PortScan scan(pm, so);
  DiscoveryOptions o;
  walk_options(f, o);
  o.mode = discovery_mode(invocation(f));
  Subnet db;
  std::deque<H::PortRow> all;
  DiscoveryResult dr = scan.walk(db, all, o);
  size_t failed = 0, read = 0;
  for (const H::PortRow& r : all)
    if (r.read) ++(r.ok(so.details) ? read : failed);
  res.errors = failed + dr.errors.size();
  res.nodes = db.node_count();
  // A port the walk never reached is never read: the complete run's
  // count shows it missing (ToolResult::lost).
  res.units = subnet_units(db) + read;
}

// One run of tool on f: what it obtained, its MADs and time.
ToolResult run_once(const std::string& tool, Fabric& f, const ibcore::FlowLimits* limits) {
  const double t0 = f.seconds();
  const Stats before = f.stats();
  Scheduler sched(f.port());
  if (limits) sched.engine().limits() = *limits;
  ToolResult res;
  if (tool == "ibnetdiscover" || tool == "iblinkinfo")
    run_discovery(f, sched, res);
  else if (tool == "dump_fts")
    run_dump_fts(f, sched, res);
  else if (tool == "ibqueryerrors")
    run_queryerrors(f, sched, res);
  else if (tool == "exporter")
    run_exporter(f, sched, res);
  else
    throw std::runtime_error("unknown tool " + tool);
  const Stats& st = f.stats();
  res.time_s = f.seconds() - t0;
  res.mads = sched.engine().sent();
  res.retries = sched.engine().resent();
  res.drops = (st.drops_vl15 + st.drops_queue + st.drops_route + st.drops_pma) -
              (before.drops_vl15 + before.drops_queue + before.drops_route + before.drops_pma);
  res.timeouts = st.kernel_timeouts - before.kernel_timeouts;
  res.sm_drops = st.sm_drops - before.sm_drops;
  res.peak_sma_queue = st.peak_sma_queue;
  res.busiest = st.busiest_resource;
  res.peak_node = st.peak_sma_node;
  res.flow = sched.engine().flow_stats();
  res.left_in_flight = sched.engine().in_flight();
  const Profile& p = f.profile();
  res.peak_pma = st.peak_pma;
  if (p.pma_queue && st.peak_pma > p.pma_queue) res.pma_over = st.peak_pma - p.pma_queue;
  for (int n = 0; n < int(f.node_count()); ++n) {
    const unsigned q = f.is_switch(n) ? p.sma_queue : p.hca_queue;
    if (!q || !p.vl15_depth) continue;
    // (The tool's own SMPs: what its flow control answers for; the SM's
    // background SMPs come on top, in the queue it shares.)
    const unsigned held = f.peak_own(n);
    if (held > q + p.vl15_depth && held - (q + p.vl15_depth) > res.peak_over) {
      res.peak_over = held - (q + p.vl15_depth);
      res.peak_over_node = f.desc(n);
    }
  }
  return res;
}

// The complete run of tool on f's topology and settings (run_tool's
// comment, tools.h).
struct Complete {
  Fabric::Demand demand;
  size_t units = 0;
  uint64_t mads = 0;
};

const Complete& complete_run(const std::string& tool, Fabric& f) {
  const Profile& p = f.profile();
  const PortSettings& ps = f.port().settings();
  const Config& cfg = f.config();
  std::string key = tool + '\n' + std::to_string(std::hash<std::string>{}(f.net_text())) + '\n' +
                    std::to_string(int(cfg.discovery)) + ' ' + std::to_string(cfg.use_sa) + ' ' +
                    std::to_string(cfg.mlx_epi) + ' ' + std::to_string(ps.outstanding) + ' ' +
                    std::to_string(p.sa_rmpp) + ' ' + std::to_string(p.kernel_timeouts) + ' ' + p.sm_node + ' ' +
                    std::to_string(f.hybrid_routes()) + ' ' + std::to_string(f.spread_ports());
  static std::map<std::string, Complete> done;
  if (auto it = done.find(key); it != done.end()) return it->second;
  Profile u = Profile::ideal();
  u.name = "complete";
  u.sm_node = p.sm_node;
  u.sa_rmpp = p.sa_rmpp;
  u.kernel_timeouts = p.kernel_timeouts;
  Fabric twin(f.net_text(), u);
  twin.port().settings() = ps;
  twin.config() = cfg;
  twin.hybrid_routes() = f.hybrid_routes();
  twin.spread_ports() = f.spread_ports();
  twin.ahead() = f.ahead();
  // (Without the SA's LIDs: its GetTables are not queries the tool must
  // make, and where the SA is the busiest server it would raise the bound.)
  twin.sa_lids() = false;
  ToolResult r = run_once(tool, twin, nullptr);
  if (r.errors || r.retries)
    throw std::runtime_error(tool + ": the complete run (no service time, no queue) lost " + std::to_string(r.errors) +
                             " queries and resent " + std::to_string(r.retries));
  Complete c;
  c.demand = twin.demand();
  c.units = r.units;
  c.mads = r.mads;
  return done.emplace(std::move(key), std::move(c)).first->second;
}

}  // namespace

const std::vector<std::string>& tool_names() {
  static const std::vector<std::string> names{"ibnetdiscover", "iblinkinfo", "ibqueryerrors", "dump_fts", "exporter"};
  return names;
}

void use_reference_strategy(Fabric& f) {
  f.config().discovery = ibcore::DiscoveryMode::DR;
  f.ahead() = false;  // (one query after the other, as the reference asks them)
  ibcore::PortSettings& c = f.port().settings();
  c.outstanding = 2;
  c.timeout_ms = 1000;
  c.retries = 3;
}

ToolResult run_free(const std::string& tool, const std::string& net, Profile p, const ibcore::FlowLimits& limits,
                    bool hybrid, unsigned outstanding, ProcessorOrder order) {
  constexpr unsigned unbounded = 0;  // (Profile: 0 is unbounded)
  p.vl15_depth = p.sma_queue = p.hca_queue = p.pma_queue = p.sa_queue = unbounded;
  Fabric f(net, p);
  // (model_run's MODEL_TRACE traces the tool's run)
  f.trace_if("MODEL_TRACE_FREE");
  f.port().settings().outstanding = int(outstanding ? outstanding : 256);
  f.hybrid_routes() = hybrid;
  f.order() = order;
  ibcore::FlowLimits none = limits;
  none.node_cap = none.smi_cap = 0;
  none.proc_start = 0;
  none.adaptive = false;
  return run_tool(tool, f, &none);
}

ToolResult run_tool(const std::string& tool, Fabric& f, const ibcore::FlowLimits* limits) {
  if (std::find(tool_names().begin(), tool_names().end(), tool) == tool_names().end())
    throw std::runtime_error("unknown tool " + tool);
  const Complete& c = complete_run(tool, f);
  ToolResult res = run_once(tool, f, limits);
  res.bound_s = f.bound_s(c.demand);
  // The window: the most the engine may have in flight, -o, else its hard
  // maximum (FlowLimits::window_grow: 256), whether or not this run's
  // window opened that far (the most it opened to made phys_s a bound of
  // the run: one that kept 64 in flight was held to a bound 4 times
  // longer).
  const unsigned window = f.port().settings().outstanding > 0 ? unsigned(f.port().settings().outstanding)
                                                              : std::max(res.flow.window_max, res.flow.window_start);
  res.phys_s = f.phys_s(c.demand, c.mads, window);
  res.walk_s = f.walk_s(c.demand, c.mads, window);
  res.needed = c.mads;
  res.lost = c.units > res.units ? c.units - res.units : 0;
  return res;
}

}  // namespace ibmodel
