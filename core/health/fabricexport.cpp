#include "core/health/fabricexport.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/base/error.h"
#include "core/base/regex.h"
#include "core/fabric/discovery.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/subnet.h"
#include "core/health/export_collectors.h"
#include "core/health/pmaccess.h"
#include "core/health/pmscrape.h"
#include "core/health/scan.h"
#include "core/out/log.h"
#include "core/rpc/sched.h"
#include "iba/mad.h"

namespace ibcore::health {

namespace {

// A node as the daemon's log lines name it.
std::string who(const Subnet& db, uint32_t n) {
  const Node& x = db.node(n);
  char g[24];
  std::snprintf(g, sizeof g, "0x%016llx", (unsigned long long)x.guid);
  return std::string("node ") + g + " \"" + x.description() + "\"";
}

}  // namespace

// The orchestration of one scrape: the walk and the counter scan on one
// session (scan.h PortScan), within the retry budget; its problems logged;
// the exposition written by the ports' series and the collectors
// (export_collectors.h).
struct FabricExport::Impl {
  using Clock = std::chrono::steady_clock;

  Impl(const Config& cfg, const ExportOptions& o)
      : cfg_(cfg),
        ports_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.forget_after_s))) {
    for (unsigned i = 0; i < N_COLLECTORS; ++i) set_.on[i] = o.on[i];
    set_.details = set_.on[C_DETAILS];
    set_.want.errors = set_.on[C_ERRORS];
    set_.want.data = set_.on[C_DATA];
    set_.want.congestion = set_.on[C_CONGESTION];
    set_.reset = o.reset_saturated;
    set_.select.down_ports = o.down_ports_all;
    set_.select.kinds = o.port_type == "switch" ? KIND_SWITCH : o.port_type == "ca" ? KIND_CA : KIND_ALL;
    if (!o.node_regex.empty()) regex_ = std::make_unique<Regex>(o.node_regex);
    set_.select.node_regex = regex_.get();
  }
  const Config& config() const { return cfg_; }

  // One scrape within budget_s seconds, its exposition text into out.
  // Never throws.
  void scrape(prom::Writer& out, double budget_s) {
    auto t0 = Clock::now();
    NodeNameMap map = NodeNameMap::open(config().node_name_map);
    set_.select.map = &map;
    // The retries' deadline: one attempt (the MAD timeout times its tries)
    // before the budget ends, so that the last attempts end within it.
    auto budget = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(budget_s));
    auto attempt = std::chrono::milliseconds(int64_t(config().timeout_ms > 0 ? config().timeout_ms : 1000) *
                                             (std::max(config().retries, 0) + 1));
    RetryBudget retry(t0 + (attempt < budget / 2 ? budget - attempt : budget / 2));
    Subnet db;
    std::deque<PortRow> all;  // (stable while it grows)
    ScrapeView v;
    for (unsigned retried = 0;; ++retried) {
      db = Subnet{};
      all.clear();
      v = ScrapeView{};
      try {
        run_scrape(db, all, v, retry);
        v.up = true;
        break;
      } catch (const MADError& e) {
        // The start node did not answer: the whole scrape is asked again.
        if (retry.again(e, retried)) continue;
        ibcore::log::error("exporter: %s\n", e.what());
      } catch (const std::exception& e) {
        ibcore::log::error("exporter: %s\n", e.what());
      }
      break;
    }
    // The ports of the final database, in its order.
    // (by pointer: a PortRow is ~300 bytes, and 49k of them moved through
    // a sort cost more than the sort)
    for (const PortRow& r : all)
      if (r.slot < db.port_slots() && db.port(r.slot).exists && set_.select.node(db, r.node).value_or(false))
        v.reads.push_back(&r);
    std::sort(v.reads.begin(), v.reads.end(), [](const PortRow* a, const PortRow* b) { return a->slot < b->slot; });
    log_problems(db, v.reads, v.dr);
    v.db = &db;
    v.retry = &retry;
    v.budget_s = budget_s;
    v.vl_unsupported_nodes = vl_unsupported_.size();
    v.secs = std::chrono::duration<double>(Clock::now() - t0).count();
    ports_.write(out, set_, map, v);
    out.flush();
    set_.select.map = nullptr;
    if (config().verbose)
      ibcore::log::info("exporter: %zu ports, %llu MADs (%llu retried), discovery and reads %.3f s, then the text "
                        "%.3f s\n",
                        v.reads.size(), (unsigned long long)v.mads, (unsigned long long)retry.retries(), v.secs,
                        std::chrono::duration<double>(Clock::now() - t0).count() - v.secs);
  }

  // The walk and every port's reads (the scan's), its counts into v.
  void run_scrape(Subnet& db, std::deque<PortRow>& all, ScrapeView& v, RetryBudget& retry) {
    PmSession ses(config());
    ses.pm().forget_failed_paths(true);
    // (no PM collector: no PM MAD, nor the SA's paths for them)
    if (set_.pm_wanted()) ses.pm().read_path_table();
    PortScanOptions so;
    so.want = set_.want;
    so.details = set_.details;
    so.vl = set_.on[C_VL];
    so.reset_saturated = set_.reset;
    so.retry = &retry;
    so.select = set_.select;
    so.vl_unsupported = &vl_unsupported_;
    PortScan scan(ses.pm(), so);
    DiscoveryOptions o;
    o.mode = discovery_mode(config());
    o.retry = [&](const std::exception& e, unsigned retried) { return retry.again(e, retried); };
    v.dr = scan.walk(db, all, o);
    v.mads = ses.sched().engine().sent();
    v.resent = ses.sched().engine().resent();
    const PortCountersReader& reader = scan.reader();
    const PortScanStats& ps = scan.stats();
    ScrapeStats& st = v.st;
    st.queries_failed = ps.queries_failed + reader.shared_failures();
    st.timeouts = ps.timeouts + reader.shared_timeouts();
    st.resets = ps.resets;
    st.details_reads = ps.details_reads;
    st.unreachable_nodes = ps.dead_nodes.size();
    st.cpi = reader.class_port_infos();
    st.sums = reader.all_port_sums();
    st.clean_sums = reader.clean_sums();
    st.pc_reads = reader.port_counters_reads();
    st.ext_reads = reader.ext_reads();
    st.vl_reads = reader.vl_reads();
    st.path_queries = ses.pm().path_queries();
    st.no_path_lids = ps.no_path.size();
  }

  // stderr as a daemon's log: one line per problem of this scrape, naming
  // the node (GUID and description) and the port; a PMA that did not
  // answer at all is one line for its node.
  void log_problems(const Subnet& db, const std::vector<const PortRow*>& reads, const DiscoveryResult& dr) const {
    for (const std::string& e : dr.errors) ibcore::log::warn("exporter: discovery: %s\n", e.c_str());
    std::unordered_set<uint32_t> told;
    for (const PortRow* r : reads) {
      if (!r->read) continue;
      if (r->c.caps.failed) {
        if (told.insert(r->node).second) {
          std::string why = last_layer(r->c.caps.error);
          ibcore::log::warn("exporter: %s lid %u: PerfMgt ClassPortInfo %s%s%s: its ports' counters not read\n",
                            who(db, r->node).c_str(), unsigned(r->lid),
                            sa_refused(r->c.caps.error) ? "not asked: the SA has no path to the LID (the SM "
                                                               "dropped it from its view and routes)"
                            : r->c.caps.timed_out            ? "timed out"
                                                             : "failed",
                            why.empty() ? "" : ", ", why.c_str());
        }
        continue;
      }
      if (!r->c.error.empty())
        ibcore::log::warn("exporter: %s port %u: %s\n", who(db, r->node).c_str(), unsigned(r->num),
                          r->c.error.c_str());
      if (!r->vl.error.empty())
        ibcore::log::warn("exporter: %s port %u: %s\n", who(db, r->node).c_str(), unsigned(r->num),
                          r->vl.error.c_str());
      if (r->vl_news)
        ibcore::log::info("exporter: %s lid %u: its PMA has not got PortVLXmitWaitCounters (a MAD status): no "
                          "per-VL counters from it, not asked again while the exporter runs\n",
                          who(db, r->node).c_str(), unsigned(r->lid));
      if (!r->error.empty())
        ibcore::log::warn("exporter: %s port %u: %s\n", who(db, r->node).c_str(), unsigned(r->num),
                          r->error.c_str());
    }
  }

  const Config& cfg_;
  ExportSettings set_;
  std::unique_ptr<Regex> regex_;
  // Node GUIDs whose PMA has not got the per-VL counters (kept from scrape
  // to scrape: asked once).
  std::unordered_set<uint64_t> vl_unsupported_;
  ExportPorts ports_;  // every port a scrape found, until --forget-after after it was last found
};

FabricExport::FabricExport(const Config& cfg, const ExportOptions& opt) : impl_(std::make_unique<Impl>(cfg, opt)) {}
FabricExport::~FabricExport() = default;
void FabricExport::scrape(prom::Writer& out, double budget_s) { impl_->scrape(out, budget_s); }

}  // namespace ibcore::health
