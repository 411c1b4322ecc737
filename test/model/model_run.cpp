// model_run: the product's library code on the fabric model (issue 24 item
// 2; bench/model_bench.sh runs it).  For each profile, fabric and tool it
// prints one line
//
//   RUN <tool> <fabric> <profile>: time_s=<virtual s> bound_s=<s> ref_s=<s> mads=<n> drops=<n>
//       timeouts=<n> retries=<n> peak_sma_queue=<n> Q=<n>
//
// time_s is the virtual time the run took, bound_s the model's lower bound
// (Fabric::bound_s: the busiest resource's total work, or the discovery's
// critical path), ref_s the same tool in the same model with the
// reference's strategy (directed route only, 2 MADs in flight, 1000 ms
// timeout, 3 retries: libibmad's defaults).
//
//   model_run [--fabric NAME=SPEC]... [--tool T]... [--no-ref] PROFILE...
//
// SPEC is a test/testbed/topology.h spec ("fattree 32", "irregular",
// "example net.2sw2path4hca", "file PATH"); PROFILE a profile file or
// "ideal".  Tools: ibnetdiscover, iblinkinfo, ibqueryerrors, dump_fts,
// exporter (the library calls each command makes; the PM scans' read-ahead
// pattern is the commands', whose code lives in cmd/).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/fabric/discovery.h"
#include "core/fabric/obtain.h"
#include "core/health/pmaccess.h"
#include "core/health/pmscrape.h"
#include "core/out/log.h"
#include "core/rpc/sched.h"
#include "test/model/fabric.h"
#include "test/testbed/topology.h"

namespace {

using namespace ibcore;
namespace H = ibcore::health;

struct Strategy {
  bool reference = false;
};

struct Result {
  double time_s = 0, bound_s = 0;
  uint64_t mads = 0, drops = 0, timeouts = 0, retries = 0;
  unsigned peak = 0;
  size_t nodes = 0;
  size_t errors = 0;
};

void apply(Config& c, const Strategy& s) {
  if (!s.reference) return;
  c.discovery = DiscoveryMode::DR;
  c.outstanding = 2;
  c.timeout_ms = 1000;
  c.retries = 3;
}

// ibnetdiscover and iblinkinfo: a live discovery (iblinkinfo's PortInfo is
// the discovery's own).
size_t run_discovery(ibmodel::Fabric& f, Scheduler& sched, size_t* errors) {
  DiscoveryOptions o;
  o.mlx_epi = f.port().settings().mlx_epi;
  DiscoveryResult r;
  Subnet db = discover_live(f.port().settings(), o, &r, &sched);
  *errors = r.errors.size();
  return db.node_count();
}

// dump_fts: the walk reads every switch's LFT as it goes (cmd/dump_fts.cpp
// dump_lfts).
size_t run_dump_fts(ibmodel::Fabric& f, Scheduler& sched, size_t* errors) {
  DiscoveryOptions o;
  o.mode = discovery_mode(f.port().settings());
  o.mlx_epi = false;
  o.read_lft = true;
  o.lft_first = 0;
  o.lft_last = iba::MLID_BASE - 1;
  Subnet db;
  DiscoveryResult r = discover(sched, db, o);
  *errors = r.errors.size();
  return db.node_count();
}

// ibqueryerrors' whole-fabric scan: the SA's path table, then per node LID
// (read ahead as the walk finds it) its path, ClassPortInfo and
// PortCounters (AllPortSelect where the PMA has it, else the port).
size_t run_queryerrors(ibmodel::Fabric& f, Scheduler& sched, size_t* errors) {
  H::PmAccess pm(sched, H::sa_path_for_pm(f.port()));
  pm.read_path_table();
  struct Item {
    uint16_t lid;
    uint8_t port;
    bool sw;
  };
  size_t failed = 0;
  std::unordered_set<uint16_t> seen;
  WorkQueue<Item> q(sched, 24, [&](Item it) -> Task<> {
    try {
      uint16_t cap = co_await pm.cap_mask(it.lid);
      uint8_t sel = cap & H::PM_CAP_ALL_PORT_SELECT ? 0xff : it.port;
      if (sel != 0xff && it.sw) {
        for (unsigned p = 1; p <= it.port; ++p) co_await pm.counters(it.lid, uint8_t(p));
      } else {
        co_await pm.counters(it.lid, sel);
      }
    } catch (const MADError&) {
      ++failed;
    }
  });
  DiscoveryOptions o;
  o.mlx_epi = f.port().settings().mlx_epi;
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
  Subnet db = obtain_subnet(f.port().settings(), oo);
  pm.use_subnet(&db);
  sched.run();
  *errors = failed;
  return db.node_count();
}

// The exporter's scrape: every port's counters through PortCountersReader
// (core/health/pmscrape), read ahead as the walk finds each node's LID.
size_t run_exporter(ibmodel::Fabric& f, Scheduler& sched, size_t* errors) {
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
  Subnet db = discover_live(f.port().settings(), o, &dr, &sched);
  pm.use_subnet(&db);
  sched.run();
  *errors = failed + dr.errors.size();
  return db.node_count();
}

Result run(const std::string& tool, const std::string& net, const ibmodel::Profile& prof, const Strategy& s) {
  ibmodel::Fabric f(net, prof);
  // MODEL_TRACE=1: every event of the model on stderr.
  if (const char* t = std::getenv("MODEL_TRACE"); t && *t == '1')
    f.set_trace([](const std::string& l) { std::fprintf(stderr, "%s\n", l.c_str()); });
  apply(f.port().settings(), s);
  Scheduler sched(f.port());
  Result res;
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
  const ibmodel::Stats& st = f.stats();
  res.time_s = f.seconds();
  res.bound_s = f.bound_s();
  res.mads = sched.engine().sent();
  res.retries = sched.engine().resent();
  res.drops = st.drops_vl15 + st.drops_queue + st.drops_route;
  res.timeouts = st.kernel_timeouts;
  res.peak = st.peak_sma_queue;
  return res;
}

int usage() {
  std::fprintf(stderr,
               "usage: model_run [--fabric NAME=SPEC]... [--tool T]... [--no-ref] PROFILE...\n"
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
  if (tools.empty()) tools = {"ibnetdiscover", "iblinkinfo", "ibqueryerrors", "dump_fts", "exporter"};
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
          Result r = run(tool, net, prof, Strategy{});
          double ref_s = 0;
          if (ref) ref_s = run(tool, net, prof, Strategy{true}).time_s;
          std::printf("RUN %s %s %s: time_s=%.6f bound_s=%.6f ref_s=%.6f mads=%llu drops=%llu timeouts=%llu "
                      "retries=%llu peak_sma_queue=%u Q=%u\n",
                      tool.c_str(), fname.c_str(), prof.name.c_str(), r.time_s, r.bound_s, ref_s,
                      (unsigned long long)r.mads, (unsigned long long)r.drops, (unsigned long long)r.timeouts,
                      (unsigned long long)r.retries, r.peak, prof.sma_queue);
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
