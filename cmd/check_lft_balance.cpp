// check_lft_balance: report switches whose forwarding tables spread the
// routed LIDs unevenly over their ports, from a dump_lfts output file and an
// ibnetdiscover cache, as infiniband-diags' script does.
//
// The reference is a Perl script that asks `iblinkinfo --load-cache CACHE -S
// GUID` about each switch and matches the text; here the same questions (is
// the port's line there and without "Down", does it say "Active") are
// answered from the cache directly.  Its quirks are kept where they decide
// the output: ports are only looked at as 001..036; a port's count is keyed
// by the text of the dump line; host names are compared as Perl numbers (so
// "a port leading to a host" holds for nearly every name).
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
      if (lines) *lines = lft_dump(live);
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

  // The unicast tables of db's switches as dump_lfts prints them (the
  // reference's switch order, every LID up to LinearFDBTop), one line each.
  std::vector<std::string> lft_dump(const Subnet& db) const {
    char* buf = nullptr;
    size_t len = 0;
    FILE* f = open_memstream(&buf, &len);
    if (!f) throw Error("open_memstream failed");
    std::vector<LidDest> dests = lid_dests_from_db(db, map_);
    {
    ibcore::Printer p(f, false, false);
    UnicastDump dump(p, false, false);
    for (uint32_t id : db.reference_order(NodeType::Switch)) {
      const Node& n = db.node(id);
      const SwitchTables* t = db.find_tables(id);
      if (!n.has_swinfo || !t || !t->lft_valid) {
        ibcore::log::error("E: the SA gave no linear forwarding table of switch 0x%016llx\n",
                     (unsigned long long)n.guid);
        continue;
      }
      unsigned top = iba::lft_range(n.switch_info(), 0, 0).last;
      dump.table({n.guid, map_.remap(n.guid, n.description()), 0, {},
                  "DR path slid 0; dlid 0; " + dr_path_of(db, id).dr_string()},
                 t->lft, 0, top, dests);
    }
    p.finish();
    }
    std::fclose(f);
    std::vector<std::string> lines;
    std::string text(buf, len);
    std::free(buf);
    for (size_t a = 0, b; a < text.size(); a = b + 1) {
      b = text.find('\n', a);
      if (b == std::string::npos) b = text.size();
      lines.push_back(text.substr(a, b - a));
    }
    return lines;
  }

  // The switches' report: text, or with --json {"switches": [...]}.
  int analyse(const std::vector<std::string>& lines) {
    Printer p;
    out_ = &p;
    p.open_object().open_array("switches");
    int rc = analyse_lines(lines);
    p.close_array().close_object().finish();
    out_ = nullptr;
    return rc;
  }

  int analyse_lines(const std::vector<std::string>& lines) {
    // The script's patterns, matched by PCRE2 as Perl matches them.
    static const Regex re_dr("Unicast lids .+ of switch DR path slid .+ guid (.+) \\((.+)\\)");
    static const Regex re_lid("Unicast lids .+ of switch Lid .+ guid (.+) \\((.+)\\)");
    static const Regex re_host(".+ (.+) : \\(.+ portguid .+: '(.+)'\\)");
    static const Regex re_path(".+ (.+) : \\(path #. out of .: portguid .+\\)");
    for (const std::string& line : lines) {
      Regex::Match m;
      if (line.find("Unicast") != std::string::npos) {
        if (!host_ports_.empty()) process_host_ports();
        if (switch_name_) output_switch();
        if (re_dr.search(line, m)) {
          switch_guid_ = m.group(1);
          switch_name_ = m.group(2);
        }
        if (re_lid.search(line, m)) {
          switch_guid_ = m.group(1);
          switch_name_ = m.group(2);
        }
        maybe_hosts_.clear();
        counts_.clear();
        host_ports_.clear();
        lids_per_port_ = 0;
        lids_per_port_calculated_ = 0;
      } else if (line.find("Channel") != std::string::npos || line.find("Router") != std::string::npos) {
        std::optional<std::string> port, host;
        if (re_host.search(line, m)) {
          port = m.group(1);
          host = m.group(2);
        }
        host_ = host;
        ++counts_[port.value_or("")];
        if (!host_ports_.empty()) process_host_ports();
        host_ports_.assign(1, port);
        if (lids_per_port_ == 0) ++lids_per_port_;
        else ++lids_per_port_calculated_;
      } else if (line.find("path") != std::string::npos) {
        std::optional<std::string> port;
        if (re_path.search(line, m)) port = m.group(1);
        ++counts_[port.value_or("")];
        if (lids_per_port_calculated_ == 0) ++lids_per_port_;
        host_ports_.push_back(port);
      } else {
        if (lids_per_port_) ++lids_per_port_calculated_;
      }
    }
    if (!host_ports_.empty()) process_host_ports();
    output_switch();
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

  // Every host port line of the last host names the same port: the host
  // may hang directly off this switch.
  void process_host_ports() {
    if (host_ports_.size() != lids_per_port_) return;
    double first = perl_number(host_ports_[0]);
    for (auto& p : host_ports_)
      if (perl_number(p) != first) return;
    maybe_hosts_.push_back(host_);
  }

  // The switch port's iblinkinfo line: exists, says "Down", says "Active".
  struct LinkLine {
    bool exists = false, down = false, active = false;
  };
  LinkLine link_line(unsigned port) const {
    LinkLine l;
    if (!have_db_ || !switch_guid_) return l;
    uint32_t n = db_.node_by_guid(std::strtoull(switch_guid_->c_str(), nullptr, 16));
    if (n == NO_INDEX) return l;
    const Node& sw = db_.node(n);
    if (!sw.is_switch() || port < 1 || port > sw.nports) return l;
    l.exists = true;
    const Port& p = db_.port(sw, port);
    std::string peer;
    if (const Port* r = db_.peer(p)) {
      const Node& rn = db_.node_of(*r);
      peer = map_.remap(rn.guid, rn.description());
    }
    unsigned state = p.has_info ? p.state() : 1;
    l.down = state == 1 || peer.find("Down") != std::string::npos;
    l.active = state == 4 || peer.find("Active") != std::string::npos;
    return l;
  }

  unsigned count(const std::string& port) {
    auto it = counts_.find(port);
    return it == counts_.end() ? 0 : it->second;
  }

  bool directly_connected(const std::string& port) {
    if (count(port) != lids_per_port_ || maybe_hosts_.empty()) return false;
    LinkLine l = link_line(unsigned(std::stoul(port)));
    if (!l.exists || !l.active) return false;
    // The script's name capture never matches iblinkinfo's layout: an
    // undefined name, 0 as a number, is compared with each host's name.
    for (auto& h : maybe_hosts_)
      if (perl_number(h) == 0) return true;
    return false;
  }

  void output_switch() {
    unsigned min_u = 999999, max_u = 0, min2 = 999999, max2 = 0;
    std::vector<std::string> out_ports;
    unsigned on_switch = 0;
    bool unbalanced = false;
    for (unsigned i = 1; i <= 36; ++i) {
      char b[8];
      std::snprintf(b, sizeof b, "%03u", i);
      std::string port = b;
      unsigned c = count(port);
      counts_.emplace(port, 0);
      if (c == 0) {
        LinkLine l = link_line(i);
        if (!l.exists || l.down) continue;
      }
      ++on_switch;
      if (directly_connected(port)) continue;
      out_ports.push_back(port);
      min_u = std::min(min_u, c);
      max_u = std::max(max_u, c);
    }
    if (max_u > min_u + 1) unbalanced = true;
    if (heuristic_ && unbalanced && on_switch > 12) {
      std::vector<std::string> dbl;
      for (auto& p : out_ports) {
        unsigned c = count(p);
        if (c == max_u || c + 1 == max_u || c == 0) continue;
        dbl.push_back(p);
      }
      long half = long(on_switch / 2), n = long(dbl.size());
      if (n == half || n == half + 1 || n == half - 1) {
        for (auto& p : dbl) {
          min2 = std::min(min2, count(p));
          max2 = std::max(max2, count(p));
        }
        if (!(max2 > min2 + 1)) unbalanced = false;
      }
    }
    if (heuristic_ && unbalanced && on_switch > 12) {
      bool all_zero = true;
      for (auto& p : out_ports) {
        unsigned c = count(p);
        if (c == max_u || c + 1 == max_u) continue;
        if (c != 0) {
          all_zero = false;
          break;
        }
      }
      if (all_zero) unbalanced = false;
    }
    if (!verbose_ && !unbalanced) return;
    print_switch(unbalanced, out_ports);
  }

  // One switch: {"nodeGUID" (as the dump names it: a GUID string, or the
  // dump's text when it is not a number), "name", "unbalanced", "ports":
  // [{"portNum", "LIDs" (routed out of it)}]}; the text: the script's
  // "Switch Port Usage" line and a line a port.
  void print_switch(bool unbalanced, const std::vector<std::string>& ports) {
    Printer& p = *out_;
    p.open_object().boolean(PRINT_FP, nullptr, "%s", unbalanced, "Unbalanced ", "").text("Switch Port Usage: ");
    const std::string g = switch_guid_.value_or("");
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(g.c_str(), &end, 16);
    if (!g.empty() && end && *end == 0 && errno == 0) p.guid(PRINT_JSON, "nodeGUID", nullptr, v);
    else p.str(PRINT_JSON, "nodeGUID", nullptr, g);
    p.str(PRINT_ANY, "name", "%s, ", switch_name_.value_or("")).str(PRINT_FP, nullptr, "%s\n", g);
    p.boolean(PRINT_JSON, "unbalanced", nullptr, unbalanced).open_array("ports");
    for (auto& port : ports) {
      p.open_object().str(PRINT_FP, nullptr, "Port %s: ", port).uint(PRINT_JSON, "portNum", nullptr, std::stoul(port));
      p.uint(PRINT_ANY, "LIDs", "%u\n", count(port)).close_object();
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

  std::optional<std::string> switch_guid_, switch_name_, host_;
  std::map<std::string, unsigned> counts_;
  std::vector<std::optional<std::string>> maybe_hosts_, host_ports_;
  unsigned lids_per_port_ = 0, lids_per_port_calculated_ = 0;
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
                    "given with -l or -i still wins for its part).  --json (-j; --pretty indents): {\"switches\": "
                    "[the switches the text reports, {\"nodeGUID\", \"name\" (as the dump names them), "
                    "\"unbalanced\", \"ports\": [{\"portNum\", \"LIDs\" (routed out of it)}]}]}.",
                .usage = "-l lft-output -i ibnetdiscover-cache [-e] [-v] | --sa [-e] [-v]",
                .examples = "  dump_lfts.sh > lft-output\n"
                            "  ibnetdiscover --cache fabric.cache\n"
                            "  check_lft_balance -l lft-output -i fabric.cache\n"
                            "  check_lft_balance --sa -v",
                .make = [] { return std::make_unique<CheckLftBalance>(); }});
