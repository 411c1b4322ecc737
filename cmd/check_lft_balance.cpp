// check_lft_balance: report switches whose forwarding tables spread the
// routed LIDs unevenly over their ports, from a dump_lfts output file and an
// ibnetdiscover cache, as infiniband-diags' script does.
//
// The judgement is the script's, in core/fabric/lftbalance.
//
// With --sa the files are not needed: the fabric and the switches' LFTs
// come from the SA (discovery mode SA, LinearForwardingTableRecords), no
// SMP is sent, and the LFTs are looked at as dump_lfts would print them.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/fabric/discovery.h"
#include "core/base/error.h"
#include "core/out/print.h"
#include "core/fabric/lftbalance.h"
#include "core/fabric/netcache.h"
#include "core/fabric/nodemap.h"
#include "core/base/regex.h"
#include "core/fabric/routes.h"
#include "core/rpc/sched.h"
#include "core/fabric/subnet.h"
#include "core/base/textfile.h"
#include "core/transport/open.h"
#include "core/out/log.h"

namespace {

using namespace ibcore;

class CheckLftBalance : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_option("-l", lft_file_, "dump_lfts output (generate with \"dump_lfts.sh > lft-output\")")
        ->option_text("<lft-output>");
    app.add_option("-i", cache_file_, "ibnetdiscover cache (generate with \"ibnetdiscover --cache FILE\")")
        ->option_text("<ibnetdiscover-cache>");
    app.add_flag("-e", heuristic_, "turn on heuristic(s) to look at switch balances deeper");
    app.add_flag("-v", verbose_, "verbose output, output all switches");
    ibtool::add_common_options(app, config(), ibtool::opt::Ca | ibtool::opt::Port | ibtool::opt::Debug |
                                        ibtool::opt::Timeout | ibtool::opt::Retries | ibtool::opt::Sa |
                                        ibtool::opt::SaPath | ibtool::opt::Outstanding | ibtool::opt::Json);
    app.add_option("args", ignored_, "ignored (as the reference ignores words after its options)");
  }

  int run() override {
    map_ = NodeNameMap::open("");
    std::vector<std::string> lines;
    if (config().use_sa) {
      // The files, if given, win over what the SA would give.
      if (!cache_file_.empty()) read_cache();
      if ((lft_file_.empty() || cache_file_.empty()) && !from_sa(lft_file_.empty() ? &lines : nullptr)) return 1;
      if (!lft_file_.empty()) read_lft_file(lines);
      return analyse(lines);
    }
    if (lft_file_.empty() || cache_file_.empty()) {
      ibcore::log::info("%s\n", lft_file_.empty() ? "Must specify dump lfts file" : "Must specify ibnetdiscover cache");
      return usage();
    }
    read_lft_file(lines);
    read_cache();
    return analyse(lines);
  }

private:
  void read_lft_file(std::vector<std::string>& lines) const {
    std::string text;
    if (!read_file(lft_file_, text))
      ibcore::log::info("Couldn't open dump lfts file: %s: %s\n", lft_file_.c_str(), std::strerror(errno));
    for_each_line(text, [&](std::string_view l) { lines.emplace_back(l); });
  }

  void read_cache() {
    try {
      db_ = load_cache(cache_file_);
      have_db_ = true;
    } catch (const std::exception& e) {
      // The script's iblinkinfo calls fail the same way: every port then
      // looks down and unconnected.
      ibcore::report(e);
    }
  }

  // --sa: discover the fabric through the SA (into db_ unless the cache
  // file gave it) and, when lines is set, read every switch's LFT from the
  // SA and put there what dump_lfts prints for it.  False (after saying
  // why) when the fabric cannot be read.
  bool from_sa(std::vector<std::string>* lines) {
    try {
      const EndPort& ep = get_end_port(config().ca, config().port);
      auto owner = open_transport(ep, config());
      Transport& umad = *owner;
      Scheduler sched(umad, unsigned(std::max(0, config().outstanding)));
      Subnet live;
      DiscoveryOptions o;
      o.mode = DiscoveryMode::SA;
      o.mlx_epi = false;
      o.read_lft = lines != nullptr;
      DiscoveryResult r = discover(sched, live, o);
      report_discovery_errors(r);
      if (lines) *lines = lft_dump_lines(live, map_);
      if (!have_db_) {
        db_ = std::move(live);
        have_db_ = true;
      }
      return true;
    } catch (const std::exception& e) {
      ibcore::report(e);
      ibcore::log::error("E: could not read the fabric from the SA (--sa)\n");
      return false;
    }
  }

  // The switches' report: text, or with --json {"switches": [...]}.
  int analyse(const std::vector<std::string>& lines) {
    Printer p;
    out_ = &p;
    p.open_object().open_array("switches");
    LftBalanceOptions o{heuristic_, verbose_};
    for (const SwitchBalance& sw : lft_balance(lines, have_db_ ? &db_ : nullptr, map_, o)) print_switch(sw);
    p.close_array().close_object().finish();
    out_ = nullptr;
    return 0;
  }

  // Bad options: usage on stderr, status 2, as for every command (the script
  // prints its usage on stdout; missing -l/-i below still do, as it does).
  int usage() {
    // (--json: stdout is for the document; the usage goes to stderr.)
    const auto lv = ibcore::log::Level::info;
    ibcore::text_or_log(lv, "Usage: %s -l lft-output -i ibnetdiscover-cache [-e] [-v]\n", app().get_name().c_str());
    ibcore::text_or_log(lv, "  Generate lft-output via \"dump_lfts.sh > lft-output\"\n");
    ibcore::text_or_log(lv, "  Generate ibnetdiscover-cache via \"ibnetdiscover --cache ibnetdiscover-cache\"\n");
    ibcore::text_or_log(lv, "  -e turn on heuristic(s) to look at switch balances deeper\n");
    ibcore::text_or_log(lv, "  -v verbose output, output all switches\n");
    return 2;
  }

  // One switch: {"nodeGUID" (as the dump names it: a GUID string, or the
  // dump's text when it is not a number), "name", "unbalanced", "ports":
  // [{"portNum", "LIDs" (routed out of it)}]}; the text: the script's
  // "Switch Port Usage" line and a line a port.
  void print_switch(const SwitchBalance& sw) {
    Printer& p = *out_;
    const bool unbalanced = sw.unbalanced;
    p.open_object().boolean(PRINT_FP, nullptr, "%s", unbalanced, "Unbalanced ", "").text("Switch Port Usage: ");
    const std::string& g = sw.guid;
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(g.c_str(), &end, 16);
    if (!g.empty() && end && *end == 0 && errno == 0) p.guid(PRINT_JSON, "nodeGUID", nullptr, v);
    else p.str(PRINT_JSON, "nodeGUID", nullptr, g);
    p.str(PRINT_ANY, "name", "%s, ", sw.name).str(PRINT_FP, nullptr, "%s\n", g);
    p.boolean(PRINT_JSON, "unbalanced", nullptr, unbalanced).open_array("ports");
    for (auto& [port, lids] : sw.ports) {
      p.open_object().str(PRINT_FP, nullptr, "Port %s: ", port).uint(PRINT_JSON, "portNum", nullptr, std::stoul(port));
      p.uint(PRINT_ANY, "LIDs", "%u\n", lids).close_object();
    }
    p.close_array().close_object();
  }

  Printer* out_ = nullptr;  // analyse()'s output
  std::string lft_file_, cache_file_;
  std::vector<std::string> ignored_;
  bool heuristic_ = false, verbose_ = false;
  Subnet db_;
  bool have_db_ = false;
  NodeNameMap map_;

};

}  // namespace

IBTOOL_COMMAND({.name = "check_lft_balance",
                .aliases = {},
                .summary = "report switches whose forwarding tables load their ports unevenly",
                .description =
                    "Counts, for every switch of a dump_lfts output, the LIDs routed through each port "
                    "(ports 1..36; ports leading straight to a host and ports that are down without "
                    "routes left out) and reports the switches where two ports differ by more than one "
                    "(-v: every switch; -e: the reference's heuristics for line boards and partly "
                    "populated switches).  Port states come from an ibnetdiscover cache.  With --sa "
                    "the fabric and its tables are read from the SA instead (no SMP is sent; a file "
                    "given with -l or -i still wins for its part).  --json (-j; --pretty indents): one document (its members and types: --json-schema).",
                .usage = "-l lft-output -i ibnetdiscover-cache [-e] [-v] | --sa [-e] [-v]",
                .examples = "  dump_lfts.sh > lft-output\n"
                            "  ibnetdiscover --cache fabric.cache\n"
                            "  check_lft_balance -l lft-output -i fabric.cache\n"
                            "  check_lft_balance --sa -v",
                .make = [] { return std::make_unique<CheckLftBalance>(); }});
