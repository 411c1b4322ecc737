// model_run: the product's library code on the fabric model (issue 24 item
// 2; bench/model_bench.sh runs it).  For each profile, fabric and tool it
// prints one line
//
//   RUN <tool> <fabric> <profile>: time_s=<virtual s> bound_s=<s> ref_s=<s> mads=<n> drops=<n>
//       timeouts=<n> retries=<n> peak_sma_queue=<n> Q=<n>
//
// time_s is the virtual time the run took, bound_s the model's lower bound
// (Fabric::bound_s: the larger of the busiest resource's total work and
// the discovery's critical path), ref_s the same tool in the same model
// with the reference's strategy (directed route only, 2 MADs in flight,
// 1000 ms timeout, 3 retries: libibmad's defaults).  A run that lost
// queries for good (every try timed out) gets a `#` line under its RUN
// line saying how many and how many nodes it found.
//
//   model_run [--fabric NAME=SPEC]... [--tool T]... [--no-ref] [--caps-from-start]
//             [--start-replies N] [--grow F] [--lift-scale F] [--delay-rise F] [--delay-grow F] [--delay-samples N] [--local-probes N] [--smi-share X]
//             [--smi-cap N] [--node-cap N] PROFILE...
//
// The options set the MAD engine's FlowLimits (core/rpc/rpc.h) of the
// same names for the runs, the reference's included.
//
// SPEC is a test/testbed/topology.h spec ("fattree 32", "irregular",
// "example net.2sw2path4hca", "file PATH"); PROFILE a profile file or
// "ideal".  Tools: ibnetdiscover, iblinkinfo, ibqueryerrors, dump_fts,
// exporter (the library calls each command makes; the PM scans' read-ahead
// pattern is the commands', whose code lives in cmd/).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/out/log.h"
#include "test/model/fabric.h"
#include "test/model/tools.h"
#include "test/testbed/topology.h"

namespace {

ibcore::FlowLimits g_limits;  // --caps-from-start, --start-replies N

ibmodel::ToolResult run(const std::string& tool, const std::string& net, const ibmodel::Profile& prof,
                        bool reference) {
  ibmodel::Fabric f(net, prof);
  // MODEL_TRACE=1: every event of the model on stderr.
  if (const char* t = std::getenv("MODEL_TRACE"); t && *t == '1')
    f.set_trace([](const std::string& l) { std::fprintf(stderr, "%s\n", l.c_str()); });
  if (reference) ibmodel::use_reference_strategy(f);
  return ibmodel::run_tool(tool, f, &g_limits);
}

int usage() {
  std::fprintf(stderr,
               "usage: model_run [--fabric NAME=SPEC]... [--tool T]... [--no-ref] [--caps-from-start]\n"
               "                 [--start-replies N] [--grow F] [--lift-scale F] [--delay-rise F] [--delay-grow F] [--delay-samples N] [--local-probes N] [--smi-share X]\n"
               "                 [--smi-cap N] [--node-cap N] PROFILE...\n"
               "  PROFILE: a profile file, or 'ideal'\n"
               "  tools: ibnetdiscover iblinkinfo ibqueryerrors dump_fts exporter\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::pair<std::string, std::string>> fabrics;
  std::vector<std::string> tools, profiles;
  bool ref = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--fabric" && i + 1 < argc) {
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
    } else if (a == "--no-ref") {
      ref = false;
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
  // output.
  ibcore::log::set_verbosity(0);
  try {
    std::printf("# ref_s: the same tool in the same model with the reference's strategy: directed route only, "
                "2 MADs in flight, 1000 ms timeout, 3 retries\n");
    for (const auto& pf : profiles) {
      ibmodel::Profile prof = pf == "ideal" ? ibmodel::Profile::ideal() : ibmodel::Profile::load(pf);
      for (const auto& [fname, spec] : fabrics) {
        const std::string net = testbed::generate(spec);
        for (const auto& tool : tools) {
          ibmodel::ToolResult r = run(tool, net, prof, false);
          ibmodel::ToolResult rr;
          if (ref) rr = run(tool, net, prof, true);
          const double ref_s = rr.time_s;
          std::printf("RUN %s %s %s: time_s=%.6f bound_s=%.6f ref_s=%.6f mads=%llu drops=%llu timeouts=%llu "
                      "retries=%llu peak_sma_queue=%u Q=%u\n",
                      tool.c_str(), fname.c_str(), prof.name.c_str(), r.time_s, r.bound_s, ref_s,
                      (unsigned long long)r.mads, (unsigned long long)r.drops, (unsigned long long)r.timeouts,
                      (unsigned long long)r.retries, r.peak_sma_queue, prof.sma_queue);
          // A run that lost queries for good (every try timed out) found
          // less than the fabric: say so under its line.
          if (r.errors || rr.errors)
            std::printf("# %s %s %s: queries failed for good: %zu (nodes found %zu), reference's: %zu (nodes %zu)\n",
                        tool.c_str(), fname.c_str(), prof.name.c_str(), r.errors, r.nodes, rr.errors, rr.nodes);
          // MODEL_DETAIL=1: where the bound and the peak are, what flow control saw.
          if (const char* d = std::getenv("MODEL_DETAIL"); d && *d == '1')
            std::printf("# %s %s %s: busiest %s, peak at %s, window %u..%u, held %llu, srtt %.3f ms, visit %.1f us\n",
                        tool.c_str(), fname.c_str(), prof.name.c_str(), r.busiest.c_str(), r.peak_node.c_str(),
                        r.flow.window_lo, r.flow.window_hi, (unsigned long long)r.flow.held, r.flow.srtt_ms,
                        r.flow.visit_us);
          std::fflush(stdout);
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "model_run: %s\n", e.what());
    return 1;
  }
  return 0;
}
