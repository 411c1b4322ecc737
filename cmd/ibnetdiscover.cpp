// ibnetdiscover: discover the fabric and print its topology (or lists, a
// ports report, a diff against a cache) exactly as infiniband-diags does.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/base/config.h"
#include "core/fabric/discovery.h"
#include "core/base/error.h"
#include "core/fabric/json_net.h"
#include "core/fabric/netcache.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/netprint.h"
#include "core/fabric/obtain.h"
#include "core/fabric/subnet.h"
#include "core/out/log.h"
#include "core/out/print.h"

namespace {

using namespace ibcore;

constexpr ibtool::FlagName DIFF_KEYS[] = {{"sw", DIFF_SW},   {"ca", DIFF_CA},   {"router", DIFF_ROUTER},
                                          {"port", DIFF_PORT}, {"lid", DIFF_LID}, {"nodedesc", DIFF_NODEDESC}};

class IbNetDiscover : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_flag("-f,--full", full_, "show full information (ports' speed and width, vlcap)");
    app.add_flag("-s,--show", show_, "show more information");
    app.add_flag_callback("-l,--list", [this] { list_ = LIST_ALL; }, "list of connected nodes");
    app.add_flag("-g,--grouping", group_, "show grouping");
    app.add_flag_callback("-H,--Hca_list", [this] { list_ = 1u << 1; }, "list of connected CAs");
    app.add_flag_callback("-S,--Switch_list", [this] { list_ = 1u << 2; }, "list of connected switches");
    app.add_flag_callback("-R,--Router_list", [this] { list_ = 1u << 3; }, "list of connected routers");
    app.add_option("--node-name-map", config().node_name_map, "node name map file")->option_text("<file>");
    app.add_option("--cache", cache_, "filename to cache ibnetdiscover data to")->option_text("<file>");
    app.add_option("--load-cache", load_cache_, "filename of ibnetdiscover cache to load")->option_text("<file>");
    app.add_option("--diff", diff_cache_, "filename of ibnetdiscover cache to diff")->option_text("<file>");
    app.add_option_function<std::string>(
           "--diffcheck", [this](const std::string& s) { diffcheck_arg_ = s; },
           "specify checks to execute for --diff (sw, ca, router, port, lid, nodedesc)")
        ->option_text("<key(s)>")
        ->check(ibtool::diffcheck_check(DIFF_KEYS));
    app.add_flag("-p,--ports", ports_, "obtain a ports report");
    app.add_flag("-m,--max_hops", max_hops_, "report max hops discovered by the library");
    app.add_option("-o,--outstanding_smps,--outstanding", config().outstanding,
                   "specify the number of outstanding SMP's which should be issued during the scan")
        ->option_text("<val>");
    app.add_option("topology-file", outfile_, "write the output to this file instead of stdout");
    // The reference ignores further arguments; unknown options stay errors.
    app.add_option("ignored", ignored_args_, "further arguments are ignored, as the reference does");
    ibtool::add_common_options(app, config(), ibtool::opt::Mad | ibtool::opt::MKey | ibtool::opt::Discovery | ibtool::opt::Sa |
                                        ibtool::opt::SaPath | ibtool::opt::Json);
  }

  const char* no_json_form() const override {
    return ports_ || !diff_cache_.empty() || group_ ? "does not apply to -p, --diff or -g" : nullptr;
  }

  int run() override {
    try {
      FILE* f = stdout;
      if (!outfile_.empty()) {
        f = std::fopen(outfile_.c_str(), "w");
        if (!f) {
          throw ibtool::RefFail{"can't open file " + outfile_ + " for writing"};
        }
      }
      NodeNameMap map = NodeNameMap::open(config().node_name_map);
      Subnet diff_db;
      bool have_diff = false;
      if (!diff_cache_.empty()) {
        try {
          diff_db = load_cache(diff_cache_);
          have_diff = true;
        } catch (const std::exception& e) {
          ibtool::ref_fail(e, "loading cached fabric for diff failed\n");
        }
      }
      Subnet db;
      if (!load_cache_.empty()) {
        try {
          db = load_cache(load_cache_);
        } catch (const std::exception& e) {
          ibtool::ref_fail(e, "loading cached fabric failed\n");
        }
      } else {
        DiscoveryOptions o;
        o.mlx_epi = config().mlx_epi;
        o.progress = show_;
        db = discover_live(config(), o);
        if (show_)
          for (auto& l : db.reference().progress) ibcore::text_or_log(ibcore::log::Level::info, "%s\n", l.c_str());
      }
      unsigned flags = DIFF_DEFAULT;
      if (!diffcheck_arg_.empty()) ibtool::parse_flag_list(diffcheck_arg_, DIFF_KEYS, flags);
      // --json: {"maxHops" and "madsUsed" (-m: the MADs ibtool sent),
      // "initiatedFrom", "nodes": [switches, CAs, routers, in the
      // topology's order]}, each node with its linked ports (the nodes of
      // the types listed, without ports, with -l/-H/-S/-R); the text: the
      // topology (or the list, the ports report, the differences) as the
      // reference prints it; both from one description (core/fabric/netprint).
      ibcore::Printer p(f);
      p.open_object();
      TopologyPrinter pr(db, map, p, full_, group_);
      if (ports_) pr.ports_report();
      else if (list_) pr.list(list_, true, max_hops_);
      else if (have_diff) pr.diff(diff_db, db, flags);
      else pr.topology(max_hops_, !load_cache_.empty());
      p.close_object().finish();
      std::fflush(stdout);
      if (f != stdout) std::fclose(f);
      if (!cache_.empty()) {
        try {
          save_cache(db, cache_, CacheFormat::Reference);
        } catch (const std::exception& e) {
          ibtool::ref_fail(e, "caching ibnetdiscover data failed\n");
        }
      }
      return 0;
    } catch (const std::exception& e) {
      ibtool::ref_fail(e, "discover failed\n");
    }
  }

private:
  static constexpr unsigned LIST_ALL = (1u << 1) | (1u << 2) | (1u << 3);
  bool full_ = false, show_ = false, group_ = false, ports_ = false, max_hops_ = false;
  unsigned list_ = 0;
  std::string cache_, load_cache_, diff_cache_, diffcheck_arg_, outfile_;
  std::vector<std::string> ignored_args_;
};

}  // namespace

IBTOOL_COMMAND({.name = "ibnetdiscover",
                .aliases = {},
                .summary = "discover the InfiniBand topology and print it",
                .description =
                    "Discovers the fabric from the local port (many SMPs in flight; directed "
                    "route, or LID routed once LIDs are known; --discovery SA reads the SA's "
                    "records instead and sends no SMP) and prints the topology in the "
                    "reference's format: switches, then CAs, then routers, each with its linked "
                    "ports.  -g groups chassis (nodes sharing a system image GUID) first.  "
                    "-l/-H/-S/-R list nodes instead, -p prints a ports report, --diff "
                    "compares with a cache file.  -m reports the hop count and the number of "
                    "SMPs the reference's walk of this fabric takes, as the reference prints "
                    "them (ibtool itself sends fewer).  --cache writes the fabric in infiniband-diags' "
                    "cache format (byte-compatible); --load-cache reads such a file (or an ibtool "
                    "cache) instead of discovering.  --json (-j; --pretty indents) writes one JSON document "
                    "instead (its members and types: --json-schema; -f: each port's whole PortInfo).  Field "
                    "names are the IBA's (as query shows them), GUIDs strings, enumerations names with "
                    "<field>Raw beside.",
                .usage = "[options] [topology-file]",
                .examples = "  ibnetdiscover -l\n"
                            "  ibnetdiscover --cache fabric.cache\n"
                            "  ibnetdiscover --load-cache fabric.cache --diff old.cache",
                .make = [] { return std::make_unique<IbNetDiscover>(); }});
