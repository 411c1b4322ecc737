// model_run: the product's library code on the fabric model (issue 24 item
// 2; bench/model_bench.sh runs it).  For each profile, fabric and tool it
// prints one line
//
//   RUN <tool> <fabric> <profile>: time_s=<virtual s> bound_s=<s> phys_s=<s> ref_s=<s> mads=<n> drops=<n>
//       timeouts=<n> retries=<n> peak_sma_queue=<n> Q=<n> lost=<n> peak_pma=<n> PQ=<n> walk_s=<s>
//
// time_s is the virtual time the run took, bound_s the model's lower bound
// (issue 35: the time the fabric needs for the queries the tool must make,
// each once, without resends, with the SM's background SMPs at their rate,
// a node's share starting once the walk reached it: Fabric::bound_s on
// run_tool's complete run; it does not depend on the run), phys_s a bound
// no route form beats (issue 38, Fabric::phys_s: the busiest node's own
// answers and the least visits its ports' probes need, after the walk
// reached it, the critical path by the cheapest probes, the MAD window's
// limit), walk_s phys_s for this walk's shape (Fabric::walk_s: a port's
// PortInfo read before the probe through it, a LID round trip a level
// more), ref_s the same tool in the same model with the reference's
// strategy (directed route only, 2 MADs in flight, 1000 ms timeout, 3
// retries: libibmad's defaults), lost the answers the complete run got and
// this one did not (ToolResult::lost: queries lost for good and those
// never made because of them).  A run that lost queries (or whose
// reference run did) gets a `#` line under its RUN line saying how many
// and how many nodes it found.
//
//   model_run [--fabric NAME=SPEC]... [--tool T]... [--no-ref] [--free|--free-probes-first|--free-unqueued] [--no-hybrid] [--no-sa-lids] [--no-sa-links] [--no-leads-first] [--no-leading-ports-first] [--no-ports-before-info] [--no-ahead] [--caps-from-start]
//             [--start-replies N] [--grow F] [--lift-scale F] [--delay-rise F] [--delay-grow F] [--delay-samples N] [--local-probes N] [--smi-share X]
//             [--smi-cap N] [--node-cap N] [--node-start N] [--node-rtt-rise X] [--node-least-slack X] [--pma-counts X] [--head-counts 0|1]
//             [--proc-start N] [--proc-max N] [--proc-settle X] [--proc-fall X] [--min-timeout MS] [--overtakes N] [--tail-probe X] [--window-grow F] [--window-rise X] [--window-held 0|1] [--window-retry F] [--loss-retry F] [--window-undo X] [--window-widening 0|1] [--rtt-by-kind 0|1] [--urgent-first 0|1] [--probe-room N] [--step-whole 0|1] [--outstanding N] [--random FIRST N] [--summary] [--profile] PROFILE...
//   model_run --print-profile PROFILE
//
// --free adds free_s to each RUN line (and time/free to the summary): the
// same tool on the same profile with every queue unbounded and no flow
// control (ibmodel::run_free, test/model/tools.h): time over it is what
// the flow control's caution costs (above 1), or gains by keeping queues
// short (below).  --free-probes-first: that run with processors that serve
// NodeInfo SMPs first and the SM's last; --free-unqueued: with processors
// that serve every SMP they hold at once (test/model/fabric.h ProcessorOrder;
// measured in docs/real-fabrics.md, "Orders no tool can impose").
// MODEL_TRACE_FREE=1 traces that run as MODEL_TRACE does the tool's.
// --no-hybrid: the walks probe by plain directed routes (issue 38: the
// route form before it; DiscoveryOptions::hybrid_routes).
// --no-sa-lids: a node just found is not asked by the LID the SA's
// NodeRecords give it before its own PortInfo (DiscoveryOptions::sa_lids).
// --no-sa-links: a probe counts against its own route until it answers,
// not the node the SA's LinkRecords say it reaches (DiscoveryOptions::sa_links).
// --no-leads-first: every probe first in line, not only those towards
// switches not found yet (DiscoveryOptions::leads_first).
// --no-leading-ports-first: a switch's PortInfos in spread order alone, not
// those towards switches not found yet first (DiscoveryOptions::leading_ports_first).
// --no-ports-before-info: a switch's ports after its NodeDescription and
// SwitchInfo (DiscoveryOptions::ports_before_info).
// --no-ahead: the start node's PortInfo and the probe through the local
// port wait for its NodeInfo and that PortInfo (DiscoveryOptions::ahead).
// The options set the MAD engine's FlowLimits (core/rpc/flow.h) of the
// same names for the runs, the reference's included; --outstanding N is
// ibtool's -o for its own runs (not the reference's): the window's hard
// maximum and first size (without it, 64 opening to 256:
// FlowLimits::window_grow, --window-grow 1 keeps it at 64).
//
// SPEC is a test/testbed/topology.h spec ("fattree 32", "irregular",
// "example net.2sw2path4hca", "file PATH"); PROFILE a profile file,
// "ideal" or "random-SEED" (Profile::random: the profile drawn from SEED;
// --print-profile writes it as a profile file, to replay or edit).
// --random FIRST N adds the N profiles random-FIRST ... random-(FIRST+N-1)
// and --summary; --summary ends the output with the distribution over the
// profiles, per fabric and tool (print_summary below).  Tools:
// ibnetdiscover, iblinkinfo, ibqueryerrors, dump_fts, exporter (the
// library calls each command makes; the PM scans' read-ahead pattern is
// the commands', whose code lives in cmd/).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/out/log.h"
#include "test/model/fabric.h"
#include "test/model/tools.h"
#include "test/testbed/topology.h"

namespace {

ibcore::FlowLimits g_limits;  // --caps-from-start, --start-replies N
ibmodel::ProcessorOrder g_free_order = ibmodel::ProcessorOrder::Fifo;  // --free-probes-first, --free-unqueued
bool g_hybrid = true;         // --no-hybrid: plain directed routes for the probes (issue 38)
bool g_sa_lids = true;        // --no-sa-lids: a node just found waits for its own PortInfo's LID
bool g_sa_links = true;       // --no-sa-links: a probe counts against its route
bool g_leads_first = true;    // --no-leads-first: every probe first in line
bool g_leading_ports = true;  // --no-leading-ports-first: a switch's ports in spread order alone
bool g_ports_first = true;    // --no-ports-before-info: a switch's ports after its NodeDescription and SwitchInfo
bool g_ahead = true;          // --no-ahead: the start node's first round trips one after the other
unsigned g_outstanding = 0;   // --outstanding N: ibtool's -o (0: the engine's default)

ibmodel::ToolResult run(const std::string& tool, const std::string& net, const ibmodel::Profile& prof,
                        bool reference) {
  ibmodel::Fabric f(net, prof);
  // MODEL_TRACE=1: every event of the model on stderr.
  f.trace_if("MODEL_TRACE");
  if (reference)
    ibmodel::use_reference_strategy(f);
  else if (g_outstanding)
    f.port().settings().outstanding = int(g_outstanding);
  f.hybrid_routes() = g_hybrid;
  f.sa_lids() = g_sa_lids;
  f.sa_links() = g_sa_links;
  f.leads_first() = g_leads_first;
  f.leading_ports_first() = g_leading_ports;
  f.ports_before_info() = g_ports_first;
  f.ahead() = g_ahead && !reference;  // (the reference asks one query after the other)
  ibmodel::ToolResult r = ibmodel::run_tool(tool, f, &g_limits);
  ibcore::report_flow(r.flow);  // (MODEL_VERBOSE: -v's flow line, on stderr)
  return r;
}

// One line of the summary: a run and its reference's.
struct Sample {
  std::string profile;
  ibmodel::ToolResult r, ref;
  double free_s = 0;  // --free's run (0: not run)
  bool sm_idle = true;
  double ratio() const { return r.bound_s > 0 ? r.time_s / r.bound_s : 0; }
  double timeout_pct() const { return r.mads ? 100.0 * double(r.timeouts) / double(r.mads) : 0; }
  double ref_timeout_pct() const { return ref.mads ? 100.0 * double(ref.timeouts) / double(ref.mads) : 0; }
};

// The median, the 95th percentile (nearest rank) and the worst of key over
// the samples, the worst's profile named: "1.23 4.56 7.89@random-7".
template <class Key>
std::string spread(const std::vector<Sample>& v, Key key, const char* fmt) {
  if (v.empty()) return "-";
  std::vector<std::pair<double, size_t>> x;
  for (size_t i = 0; i < v.size(); ++i) x.emplace_back(double(key(v[i])), i);
  std::stable_sort(x.begin(), x.end(), [](auto& a, auto& b) { return a.first < b.first; });
  auto rank = [&](double q) { return x[size_t(std::max(1.0, std::ceil(q * double(x.size())))) - 1].first; };
  char b[160];
  std::string f = std::string(fmt) + " " + fmt + " " + fmt + "@%s";
  std::snprintf(b, sizeof b, f.c_str(), rank(0.5), rank(0.95), x.back().first, v[x.back().second].profile.c_str());
  return b;
}

// The distribution per fabric and tool (issue 35's targets), one line
// each:
//   SUMMARY <fabric> <tool> runs=<n>
//     time/bound=<median p95 worst@profile>   the run's time over bound_s
//     timeouts%=<median p95 worst@profile>    timed-out sends per MAD sent
//     drops=<median p95 worst@profile>        MADs the model lost
//     drops_sm_idle=<runs>                    runs without SM traffic that dropped any
//     peak>Q+D=<runs>/<most beyond>           runs where a node held more of the tool's SMPs than its queue plus its VL15 depth
//     lost=<runs>/<total> ref_lost=<runs>/<total> lost>ref=<runs>   runs that lost answers (ToolResult::lost), the reference's, and runs losing more than it
//     slower=<runs> worst=<time/ref_s@profile>  runs slower than the reference's strategy
//     ref_timeouts%=<median p95 worst@profile> timeouts>ref=<runs>   the reference's timed-out sends per MAD, and runs where ibtool's share was higher
//     time/phys=<median p95 worst@profile>    the run's time over phys_s
//     pma>Q=<runs>/<most beyond>              runs where a PMA got more of our GMPs at once than its queue holds
//     time/walk=<median p95 worst@profile>    the run's time over walk_s (Fabric::walk_s: phys_s for a walk that
//                                             reads a port before it probes through it)
//     time/free=<median p95 worst@profile>    (--free) the run's time over free_s
void print_summary(const std::vector<std::string>& fabrics, const std::vector<std::string>& tools,
                   const std::vector<std::string>& profiles,
                   std::map<std::pair<std::string, std::string>, std::vector<Sample>>& all, bool ref) {
  std::printf("# SUMMARY per fabric and tool: median, 95th percentile and worst (with its profile); %zu profiles: %s",
              profiles.size(), profiles.empty() ? "" : profiles.front().c_str());
  if (profiles.size() > 1) std::printf(" .. %s", profiles.back().c_str());
  std::printf("\n");
  for (const auto& fab : fabrics)
    for (const auto& tool : tools) {
      const auto& v = all[{fab, tool}];
      if (v.empty()) continue;
      size_t idle_drop = 0, over = 0, lost = 0, ref_lost = 0, above = 0, slower = 0, pma_over = 0, more_timeouts = 0;
      unsigned most_over = 0, most_pma_over = 0;
      uint64_t lost_n = 0, ref_lost_n = 0;
      double slow_worst = 0;
      std::string slow_at = "-";
      for (const auto& x : v) {
        if (x.sm_idle && x.r.drops) ++idle_drop;
        if (x.r.peak_over) ++over, most_over = std::max(most_over, x.r.peak_over);
        if (x.r.pma_over) ++pma_over, most_pma_over = std::max(most_pma_over, x.r.pma_over);
        if (x.r.lost) ++lost, lost_n += x.r.lost;
        if (x.ref.lost) ++ref_lost, ref_lost_n += x.ref.lost;
        if (ref && x.r.lost > x.ref.lost) ++above;
        if (ref && x.timeout_pct() > x.ref_timeout_pct()) ++more_timeouts;
        if (ref && x.r.time_s > x.ref.time_s) {
          ++slower;
          if (x.r.time_s / x.ref.time_s > slow_worst) slow_worst = x.r.time_s / x.ref.time_s, slow_at = x.profile;
        }
      }
      std::printf("SUMMARY %s %s runs=%zu time/bound=%s timeouts%%=%s drops=%s drops_sm_idle=%zu peak>Q+D=%zu/%u "
                  "lost=%zu/%llu",
                  fab.c_str(), tool.c_str(), v.size(), spread(v, [](const Sample& s) { return s.ratio(); }, "%.2f").c_str(),
                  spread(v, [](const Sample& s) { return s.timeout_pct(); }, "%.3f").c_str(),
                  spread(v, [](const Sample& s) { return double(s.r.drops); }, "%.0f").c_str(), idle_drop, over,
                  most_over, lost, (unsigned long long)lost_n);
      if (ref)
        std::printf(" ref_lost=%zu/%llu lost>ref=%zu slower=%zu worst=%.2f@%s ref_timeouts%%=%s timeouts>ref=%zu", ref_lost,
                    (unsigned long long)ref_lost_n, above, slower, slow_worst, slow_at.c_str(),
                    spread(v, [](const Sample& s) { return s.ref_timeout_pct(); }, "%.3f").c_str(), more_timeouts);
      std::printf(" time/phys=%s pma>Q=%zu/%u time/walk=%s",
                  spread(v, [](const Sample& s) { return s.r.phys_s > 0 ? s.r.time_s / s.r.phys_s : 0; }, "%.2f").c_str(),
                  pma_over, most_pma_over,
                  spread(v, [](const Sample& s) { return s.r.walk_s > 0 ? s.r.time_s / s.r.walk_s : 0; }, "%.2f").c_str());
      if (v.front().free_s > 0)
        std::printf(" time/free=%s",
                    spread(v, [](const Sample& s) { return s.free_s > 0 ? s.r.time_s / s.free_s : 0; }, "%.2f").c_str());
      std::printf("\n");
    }
}

int usage() {
  std::fprintf(stderr,
               "usage: model_run [--fabric NAME=SPEC]... [--tool T]... [--no-ref] [--free|--free-probes-first|--free-unqueued] [--no-hybrid] [--no-sa-lids] [--no-sa-links] [--no-leads-first] [--no-leading-ports-first] [--no-ports-before-info] [--no-ahead] [--caps-from-start]\n"
               "                 [--start-replies N] [--grow F] [--lift-scale F] [--delay-rise F] [--delay-grow F] [--delay-samples N] [--local-probes N] [--smi-share X]\n"
               "                 [--smi-cap N] [--node-cap N] [--node-start N] [--node-rtt-rise X] [--node-least-slack X] [--pma-counts X] [--head-counts 0|1]\n"
               "                 [--proc-start N] [--proc-max N] [--proc-settle X] [--proc-fall X] [--min-timeout MS] [--overtakes N] [--tail-probe X] [--window-grow F] [--window-rise X] [--window-held 0|1] [--window-retry F] [--loss-retry F] [--window-undo X] [--window-widening 0|1] [--rtt-by-kind 0|1] [--urgent-first 0|1] [--probe-room N] [--step-whole 0|1] [--outstanding N] [--random FIRST N] [--summary] [--profile] PROFILE...\n"
               "       model_run --print-profile PROFILE\n"
               "  PROFILE: a profile file, 'ideal' or 'random-SEED'\n"
               "  tools: ibnetdiscover iblinkinfo ibqueryerrors dump_fts exporter\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::pair<std::string, std::string>> fabrics;
  std::vector<std::string> tools, profiles;
  bool ref = true, summary = false, free = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--print-profile" && i + 1 < argc) {
      try {
        std::fputs(ibmodel::Profile::named(argv[++i]).to_text().c_str(), stdout);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "model_run: %s\n", e.what());
        return 1;
      }
      return 0;
    } else if (a == "--random" && i + 2 < argc) {
      char* e1 = nullptr;
      char* e2 = nullptr;
      unsigned long long first = std::strtoull(argv[i + 1], &e1, 10), n = std::strtoull(argv[i + 2], &e2, 10);
      if (*e1 || *e2 || !*argv[i + 1] || !*argv[i + 2] || n > 100000) return usage();
      for (unsigned long long k = 0; k < n; ++k) profiles.push_back("random-" + std::to_string(first + k));
      summary = true;
      i += 2;
    } else if (a == "--summary") {
      summary = true;
    } else if (a == "--profile" && i + 1 < argc) {
      profiles.push_back(argv[++i]);
    } else if (a == "--fabric" && i + 1 < argc) {
      std::string v = argv[++i];
      size_t eq = v.find('=');
      if (eq == std::string::npos) return usage();
      fabrics.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (a == "--tool" && i + 1 < argc) {
      tools.push_back(argv[++i]);
    } else if (a == "--caps-from-start") {
      g_limits.caps_from_start = true;
    } else if (a == "--start-replies" && i + 1 < argc) {
      g_limits.start_replies = unsigned(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--smi-share" && i + 1 < argc) {
      g_limits.smi_share = std::strtod(argv[++i], nullptr);
    } else if (a == "--grow" && i + 1 < argc) {
      g_limits.grow = std::strtod(argv[++i], nullptr);
    } else if (a == "--delay-rise" && i + 1 < argc) {
      g_limits.delay_rise = std::strtod(argv[++i], nullptr);
    } else if (a == "--delay-grow" && i + 1 < argc) {
      g_limits.delay_grow = std::strtod(argv[++i], nullptr);
    } else if (a == "--delay-samples" && i + 1 < argc) {
      g_limits.delay_samples = unsigned(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--local-probes" && i + 1 < argc) {
      g_limits.local_probes = unsigned(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--lift-scale" && i + 1 < argc) {
      g_limits.lift_scale = std::strtod(argv[++i], nullptr);
    } else if (a == "--smi-cap" && i + 1 < argc) {
      g_limits.smi_cap = unsigned(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--node-cap" && i + 1 < argc) {
      g_limits.node_cap = unsigned(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--window-retry" && i + 1 < argc) {
      g_limits.window_retry = std::strtod(argv[++i], nullptr);
    } else if (a == "--window-undo" && i + 1 < argc) {
      g_limits.window_undo = std::strtod(argv[++i], nullptr);
    } else if (a == "--probe-room" && i + 1 < argc) {
      g_limits.probe_room = unsigned(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--step-whole" && i + 1 < argc) {
      g_limits.step_whole = std::atoi(argv[++i]) != 0;
    } else if (a == "--urgent-first" && i + 1 < argc) {
      g_limits.urgent_first = std::strtoul(argv[++i], nullptr, 10) != 0;
    } else if (a == "--rtt-by-kind" && i + 1 < argc) {
      g_limits.rtt_by_kind = std::strtoul(argv[++i], nullptr, 10) != 0;
    } else if (a == "--window-widening" && i + 1 < argc) {
      g_limits.window_widening = std::strtoul(argv[++i], nullptr, 10) != 0;
    } else if (a == "--window-held" && i + 1 < argc) {
      g_limits.window_held = std::strtoul(argv[++i], nullptr, 10) != 0;
    } else if (a == "--head-counts" && i + 1 < argc) {
      g_limits.head_counts = std::strtoul(argv[++i], nullptr, 10) != 0;
    } else if (a == "--node-start" && i + 1 < argc) {
      g_limits.node_start = unsigned(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--proc-start" && i + 1 < argc) {
      g_limits.proc_start = unsigned(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--proc-max" && i + 1 < argc) {
      g_limits.proc_max = unsigned(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--tail-probe" && i + 1 < argc) {
      g_limits.tail_probe = std::strtod(argv[++i], nullptr);
    } else if (a == "--loss-retry" && i + 1 < argc) {
      g_limits.loss_retry = std::strtod(argv[++i], nullptr);
    } else if (a == "--overtakes" && i + 1 < argc) {
      g_limits.overtakes = unsigned(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--min-timeout" && i + 1 < argc) {
      g_limits.min_timeout_ms = int(std::strtol(argv[++i], nullptr, 10));
    } else if (a == "--proc-fall" && i + 1 < argc) {
      g_limits.proc_fall = std::strtod(argv[++i], nullptr);
    } else if (a == "--proc-settle" && i + 1 < argc) {
      g_limits.proc_settle = std::strtod(argv[++i], nullptr);
    } else if (a == "--pma-counts" && i + 1 < argc) {
      g_limits.pma_counts = std::strtod(argv[++i], nullptr);
    } else if (a == "--node-least-slack" && i + 1 < argc) {
      g_limits.node_least_slack = std::strtod(argv[++i], nullptr);
    } else if (a == "--node-rtt-rise" && i + 1 < argc) {
      g_limits.node_rtt_rise = std::strtod(argv[++i], nullptr);
    } else if (a == "--window-grow" && i + 1 < argc) {
      g_limits.window_grow = std::strtod(argv[++i], nullptr);
    } else if (a == "--window-rise" && i + 1 < argc) {
      g_limits.window_rise = std::strtod(argv[++i], nullptr);
    } else if (a == "--outstanding" && i + 1 < argc) {
      g_outstanding = unsigned(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--no-ref") {
      ref = false;
    } else if (a == "--free") {
      free = true;
    } else if (a == "--free-probes-first") {
      free = true;
      g_free_order = ibmodel::ProcessorOrder::ProbesFirst;
    } else if (a == "--free-unqueued") {
      free = true;
      g_free_order = ibmodel::ProcessorOrder::Unqueued;
    } else if (a == "--no-hybrid") {
      g_hybrid = false;
    } else if (a == "--no-sa-lids") {
      g_sa_lids = false;
    } else if (a == "--no-sa-links") {
      g_sa_links = false;
    } else if (a == "--no-leads-first") {
      g_leads_first = false;
    } else if (a == "--no-leading-ports-first") {
      g_leading_ports = false;
    } else if (a == "--no-ports-before-info") {
      g_ports_first = false;
    } else if (a == "--no-ahead") {
      g_ahead = false;
    } else if (a == "-h" || a == "--help") {
      return usage();
    } else if (!a.empty() && a[0] == '-') {
      return usage();
    } else {
      profiles.push_back(a);
    }
  }
  if (profiles.empty()) return usage();
  if (fabrics.empty()) fabrics = {{"irregular", "irregular"}, {"k8", "fattree 8"}};
  if (tools.empty()) tools = ibmodel::tool_names();
  // The library's diagnostics (a discovery's warnings) are not the bench's
  // output; MODEL_VERBOSE=N shows them (N=1: each run's flow summary).
  const char* verbose = std::getenv("MODEL_VERBOSE");
  ibcore::log::set_verbosity(verbose ? std::atoi(verbose) : 0);
  try {
    std::printf("# ref_s: the same tool in the same model with the reference's strategy: directed route only, "
                "2 MADs in flight, 1000 ms timeout, 3 retries\n");
    std::vector<std::string> nets, fabric_names;
    for (const auto& [fname, spec] : fabrics) {
      nets.push_back(testbed::generate(spec));
      fabric_names.push_back(fname);
    }
    std::map<std::pair<std::string, std::string>, std::vector<Sample>> samples;
    for (const auto& pf : profiles) {
      ibmodel::Profile prof = ibmodel::Profile::named(pf);
      for (size_t fi = 0; fi < fabrics.size(); ++fi) {
        const std::string& fname = fabric_names[fi];
        const std::string& net = nets[fi];
        for (const auto& tool : tools) {
          ibmodel::ToolResult r = run(tool, net, prof, false);
          ibmodel::ToolResult rr;
          if (ref) rr = run(tool, net, prof, true);
          const double ref_s = rr.time_s;
          std::printf("RUN %s %s %s: time_s=%.6f bound_s=%.6f phys_s=%.6f ref_s=%.6f mads=%llu drops=%llu "
                      "timeouts=%llu retries=%llu peak_sma_queue=%u Q=%u lost=%zu peak_pma=%u PQ=%u",
                      tool.c_str(), fname.c_str(), prof.name.c_str(), r.time_s, r.bound_s, r.phys_s, ref_s,
                      (unsigned long long)r.mads, (unsigned long long)r.drops, (unsigned long long)r.timeouts,
                      (unsigned long long)r.retries, r.peak_sma_queue, prof.sma_queue, r.lost, r.peak_pma,
                      prof.pma_queue);
          std::printf(" walk_s=%.6f peak_over=%u", r.walk_s, r.peak_over);
          if (ref)
            std::printf(" ref_mads=%llu ref_timeouts=%llu", (unsigned long long)rr.mads, (unsigned long long)rr.timeouts);
          const double free_s = free ? ibmodel::run_free(tool, net, prof, g_limits, g_hybrid, g_outstanding, g_free_order).time_s : 0;
          if (free) std::printf(" free_s=%.6f", free_s);
          std::printf("\n");
          // A run that lost queries for good (every try timed out) found
          // less than the fabric: say so under its line.
          if (r.errors || rr.errors || r.lost || rr.lost)
            std::printf("# %s %s %s: queries failed for good: %zu (nodes found %zu), reference's: %zu (nodes %zu); "
                        "answers lost: %zu, reference's: %zu\n",
                        tool.c_str(), fname.c_str(), prof.name.c_str(), r.errors, r.nodes, rr.errors, rr.nodes,
                        r.lost, rr.lost);
          // MODEL_DETAIL=1: where the bound and the peak are, what flow control saw.
          if (const char* d = std::getenv("MODEL_DETAIL"); d && *d == '1')
            std::printf("# %s %s %s: busiest %s, peak at %s, window %u..%u, held %llu, srtt %.3f ms, visit %.1f us, "
                        "ours over Q+D %u%s%s, SM's SMPs dropped %llu, levels up to %u, cut %llu times, down %llu; engine: timeouts %llu (trials %llu), "
                        "overtaken %llu%s, late %llu; caps %s, scale %.2f (%.2f..%.2f), back %llu, window steps %llu held %llu, forward %.1f us, answer %.1f us\n",
                        tool.c_str(), fname.c_str(), prof.name.c_str(), r.busiest.c_str(), r.peak_node.c_str(),
                        r.flow.window_lo, r.flow.window_hi, (unsigned long long)r.flow.held, r.flow.srtt_ms,
                        r.flow.visit_us, r.peak_over, r.peak_over ? " at " : "", r.peak_over_node.c_str(),
                        (unsigned long long)r.sm_drops, r.flow.level_hi,
                        (unsigned long long)r.flow.level_cuts, (unsigned long long)r.flow.level_falls,
                        (unsigned long long)r.flow.timeouts, (unsigned long long)r.flow.trial_timeouts,
                        (unsigned long long)r.flow.overtaken, r.flow.reorders ? " (reorders)" : "",
                        (unsigned long long)r.flow.late, r.flow.caps ? "held" : "lifted", r.flow.scale,
                        r.flow.scale_lo, r.flow.scale_hi, (unsigned long long)r.flow.caps_back,
                        (unsigned long long)r.flow.window_steps, (unsigned long long)r.flow.window_held, r.flow.forward_us, r.flow.answer_us);
          if (summary) samples[{fname, tool}].push_back(Sample{prof.name, r, rr, free_s, prof.sm_smps_per_s <= 0});
          std::fflush(stdout);
        }
      }
    }
    if (summary) print_summary(fabric_names, tools, profiles, samples, ref);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "model_run: %s\n", e.what());
    return 1;
  }
  return 0;
}
