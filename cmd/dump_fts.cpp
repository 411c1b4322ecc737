// dump_fts: discover the fabric, then dump the unicast (or -M multicast)
// forwarding table of every switch, in the reference's order and layout.
// Every table block of every switch is read in parallel on the scheduler
// (LID routed once the switch has a LID), each block once; destinations come
// from the discovered subnet, so no per-LID queries are needed.
//
// dump_lfts / dump_lfts.sh and dump_mfts / dump_mfts.sh are the reference's
// wrapper scripts: dump_fts (with -M for the MFTs) followed by a notice.
#include <chrono>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/fabric/discovery.h"
#include "core/base/error.h"
#include "core/out/json.h"
#include "core/out/print.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/routes.h"
#include "core/fabric/ftsdump.h"
#include "core/fabric/sadiscovery.h"
#include "core/fabric/tableread.h"
#include "core/rpc/sched.h"
#include "core/transport/open.h"
#include "core/out/log.h"

namespace {

using namespace ibcore;

unsigned loose_uint(const std::string& s) { return unsigned(std::strtoul(s.c_str(), nullptr, 0)); }

enum class Wrapper { None, Lfts, Mfts };

class DumpFts : public ibtool::Command {
public:
  explicit DumpFts(Wrapper w) : wrapper_(w) {}

  void options(CLI::App& app) override {
    app.add_flag("-a,--all", all_, "show all lids, even invalid entries");
    app.add_flag("-n,--no_dests", no_dests_, "do not try to resolve destinations");
    app.add_flag("-M,--Multicast", multicast_, "show multicast forwarding tables");
    // (the wrappers print a notice after the tables: no JSON there)
    ibtool::add_common_options(app, config(), ibtool::opt::Mad | ibtool::opt::MKey | ibtool::opt::NodeNameMap |
                                        ibtool::opt::Outstanding | ibtool::opt::Discovery | ibtool::opt::Sa |
                                        (wrapper_ == Wrapper::None ? ibtool::opt::Json : 0u));
    app.add_option("args", args_, "[<startlid> [<endlid>]]");
  }

  // A bad option is a usage error (status 2, usage on stderr, no notice) for
  // the wrappers too: the scripts would print their notice and exit 0, but a
  // usage error never exits 0 here (SPEC.md, Errors).
  int run() override {
    if (wrapper_ == Wrapper::Mfts) multicast_ = true;
    // getopt takes "-1" for an option the tool does not have: usage.
    if (std::any_of(args_.begin(), args_.end(), [](const std::string& a) { return a.size() > 1 && a[0] == '-'; })) {
      ibcore::log::text(ibcore::log::Level::info, app().help().c_str());
      return 2;
    }
    int rc = dump();
    if (wrapper_ == Wrapper::None) return rc;
    notice();
    return 0;
  }

private:
  void notice() const {
    std::fflush(stdout);
    std::printf("\n*** WARNING ***: this command has been replaced by dump_fts%s\n\n\n",
                wrapper_ == Wrapper::Mfts ? " -M" : "");
    std::fflush(stdout);
  }

  void table_failed(const Node& n, const std::string& name, const std::exception_ptr& err) {
    std::fflush(stdout);
    if (err) {
      try {
        std::rethrow_exception(err);
      } catch (const std::exception& e) {
        ibcore::report(e);
      }
    }
    ibcore::log::error("E: could not read the %s forwarding table of switch 0x%016llx (%s)\n",
                 multicast_ ? "multicast" : "linear", (unsigned long long)n.guid, name.c_str());
  }

  int dump() {
    const std::string tool = "dump_fts";
    unsigned start = args_.size() > 0 ? loose_uint(args_[0]) : 0;
    unsigned end = args_.size() > 1 ? loose_uint(args_[1]) : 0;
    std::unique_ptr<ibcore::Transport> umad;
    try {
      umad = ibcore::open_transport(get_end_port(config().ca, config().port), config());
    } catch (const std::exception& e) {
      ibcore::report(e);
      // The reference's discovery library fails here: nothing on stdout.
      ibcore::log::info("Failed to discover fabric\n");
      return 255;
    }
    // --json: {"destinations" (json_dests), "switches": [one object a table
    // (core/fabric/routes.h UnicastDump, mft_table)]}, closed whatever happens;
    // the text: the reference's tables, from the same description.
    out_ = std::make_unique<Printer>();
    out_->open_object();
    struct Close {
      Printer& p;
      ~Close() { p.close_all(); }
    } close{*out_};
    try {
      Scheduler sched(*umad, unsigned(std::max(0, config().outstanding)));
      // --sa / --discovery SA: the tables come from LFT/MFT records, no SMP.
      const bool via_sa = config().use_sa || config().discovery == DiscoveryMode::SA;
      if (!multicast_ && !via_sa) return dump_lfts(sched, start, end);
      return dump_tables(sched, *umad, start, end, via_sa);
    } catch (const std::exception& e) {
      int rc = ibcore::report(e);
      std::fflush(stdout);
      ibcore::text_or_log(ibcore::log::Level::error, "%s: iberror: failed: discover failed\n", tool.c_str());
      return rc ? rc : 255;
    }
  }

  // The unicast tables by SMP: read during the discovery walk (a switch's
  // blocks as soon as its SwitchInfo is in), and each switch printed, in
  // the reference's order, as soon as its table and those before it are in,
  // so output overlaps the reads still in flight.  A printed table is freed.
  int dump_lfts(Scheduler& sched, unsigned start, unsigned end) {
    Subnet db;
    NodeNameMap map = NodeNameMap::open(config().node_name_map);
    std::vector<uint32_t> sws;   // print order (known once the walk is done)
    std::vector<char> done;      // by node: its table is read or failed
    std::vector<LidDest> dests;
    std::unique_ptr<TablePrinter> printer;
    size_t next = 0;
    auto print_ready = [&] {
      if (!printer) return;
      for (; next < sws.size() && sws[next] < done.size() && done[sws[next]]; ++next) {
        uint32_t id = sws[next];
        const Node& n = db.node(id);
        TablePrinter::Table t;
        t.guid = n.guid;
        t.name = map.remap(n.guid, n.description());
        SwitchTables* st = n.has_swinfo ? &db.tables(id) : nullptr;
        if (st && st->lft_valid) {
          iba::LidRange lr = iba::lft_range(n.switch_info(), start, end);
          t.start = lr.first;
          t.end = lr.last;
          t.where = where_of(db, id);
          t.route = route_of(db, id);
          t.lid = n.smalid;
          t.lft = std::move(st->lft);
          t.ok = true;
        }
        printer->add(std::move(t));
      }
    };
    DiscoveryOptions o;
    o.mode = discovery_mode(config());
    o.mlx_epi = false;
    o.read_lft = true;
    o.lft_first = start;
    o.lft_last = end ? end : MLID_BASE - 1;
    o.on_lft = [&](uint32_t n) {
      if (done.size() <= n) done.resize(size_t(n) + 1, 0);
      done[n] = 1;
      print_ready();
    };
    o.on_discovered = [&] {
      sws = db.reference_order(NodeType::Switch);
      if (!no_dests_) dests = lid_dests_from_db(db, map);
      json_open(dests);
      printer = std::make_unique<TablePrinter>(dests, all_, no_dests_, *out_);
      print_ready();
    };
    DiscoveryResult r;
    auto t0 = std::chrono::steady_clock::now();
    try {
      r = discover(sched, db, o);
    } catch (...) {
      if (printer) printer->finish();
      throw;
    }
    // Switches whose SwitchInfo the walk could not read had their tables
    // read (or not) after it.
    if (!printer) o.on_discovered();
    done.resize(db.node_count(), 0);
    std::fill(done.begin(), done.end(), 1);
    print_ready();
    int rc = printer->finish();
    report_discovery_errors(r);
    ibcore::report_discovery_stats(r, t0);
    return rc;
  }

  // The multicast tables (SMP or SA), and the unicast tables from the SA.
  int dump_tables(Scheduler& sched, ibcore::Transport& umad, unsigned start, unsigned end, bool via_sa) {
    Subnet db;
    DiscoveryOptions o;
    o.mode = discovery_mode(config());
    o.mlx_epi = false;
    auto t0 = std::chrono::steady_clock::now();
    DiscoveryResult r = discover(sched, db, o);
    report_discovery_errors(r);
    ibcore::report_discovery_stats(r, t0);
    NodeNameMap map = NodeNameMap::open(config().node_name_map);
    // One read a switch, in print order (read i: switch i).
    std::vector<SwitchTableRead> jobs =
        switch_table_reads(db, db.reference_order(NodeType::Switch), umad.local_lid(), config().discovery);
    for (SwitchTableRead& j : jobs) {
      const Node& n = db.node(j.node);
      auto si = n.switch_info();
      iba::LidRange lr = multicast_ ? iba::mft_range(si, start, end) : iba::lft_range(si, start, end);
      j.mft_first = j.lft_first = lr.first;
      j.mft_last = j.lft_last = lr.last;
      // (read by SMP for -M only; without SwitchInfo: nothing to read)
      if (multicast_ && !via_sa && n.has_swinfo) j.want_mft(lr.first, lr.last);
    }
    if (via_sa) {
      size_t known = r.errors.size();
      std::vector<uint32_t> sws;
      for (const SwitchTableRead& j : jobs) sws.push_back(j.node);
      read_switch_tables_sa(sched, db, sws, !multicast_, multicast_, &r);
      report_discovery_errors(r, known);
      for (SwitchTableRead& j : jobs) sa_tables_into(db, j.node, j.lft_first, j.lft_last, j.lft, j.mft);
    }
    std::vector<LidDest> dests;
    if (!multicast_ && !no_dests_) dests = lid_dests_from_db(db, map);
    json_open(dests);
    int rc = 0;
    // Print each switch as soon as its blocks are in and the switches
    // before it are printed: output overlaps the reads still in flight.
    std::vector<char> ready(jobs.size(), via_sa);
    size_t next = 0;
    auto print_ready = [&] {
      for (; next < jobs.size() && ready[next]; ++next) {
        SwitchTableRead& j = jobs[next];
        const Node& n = db.node(j.node);
        std::string name = map.remap(n.guid, n.description());
        std::exception_ptr err = multicast_ ? j.mft.error : j.lft.error;
        if (!n.has_swinfo || err) {
          table_failed(n, name, err);
          rc = 255;
          continue;
        }
        TableHead h{n.guid, name, n.smalid, route_of(db, j.node), where_of(db, j.node)};
        if (multicast_) {
          mft_table(*out_, h, j.mft, j.mft_first, j.mft_last, n.nports, all_, no_dests_);
        } else {
          UnicastDump d(*out_, all_, no_dests_, "node info not available fabric scan", false);
          d.table(h, j.lft.lft, j.lft_first, j.lft_last, dests);
        }
      }
    };
    if (!via_sa)
      read_tables(sched, jobs, [&](size_t i) {
        ready[i] = 1;
        print_ready();
      });
    print_ready();
    return rc;
  }

  // --json: the destinations (once: the entries name only LID and port),
  // then the switches' array is opened.
  void json_open(const std::vector<LidDest>& dests) {
    if (!dests.empty()) json_dests(*out_, dests);
    out_->open_array("switches");
  }

  Wrapper wrapper_;
  std::unique_ptr<Printer> out_;  // dump()'s
  bool all_ = false, no_dests_ = false, multicast_ = false;
  std::vector<std::string> args_;
};

}  // namespace

IBTOOL_COMMAND({.name = "dump_fts",
                .aliases = {},
                .summary = "dump the forwarding tables of every switch of the fabric",
                .description =
                    "Discovers the fabric, then prints the unicast forwarding table (-M: the multicast "
                    "forwarding table) of every switch in ibroute's layout, destinations named from the "
                    "discovered subnet.  Every table block of every switch is read in parallel, LID "
                    "routed, each once.  A LID range limits the dump; -a also lists LIDs without a route.  "
                    "--json (-j; --pretty indents): one document (its members and types: --json-schema); "
                    "each LID of the fabric is named once, in \"destinations\".",
                .usage = "[options] [<startlid> [<endlid>]]",
                .examples = "  dump_fts\n"
                            "  dump_fts -a\n"
                            "  dump_fts -n\n"
                            "  dump_fts 0x10 0x20\n"
                            "  dump_fts -M\n"
                            "  dump_fts -M 0xc010 0xc020",
                .make = [] { return std::make_unique<DumpFts>(Wrapper::None); }});

IBTOOL_COMMAND({.name = "dump_lfts",
                .aliases = {"dump_lfts.sh"},
                .summary = "dump the unicast forwarding tables of every switch (dump_fts)",
                .description = "The reference's wrapper script: dump_fts with the same arguments, followed by "
                               "a notice that dump_fts replaces it.",
                .usage = "[options] [<startlid> [<endlid>]]",
                .examples = "  dump_lfts\n  dump_lfts.sh -n",
                .make = [] { return std::make_unique<DumpFts>(Wrapper::Lfts); }});

IBTOOL_COMMAND({.name = "dump_mfts",
                .aliases = {"dump_mfts.sh"},
                .summary = "dump the multicast forwarding tables of every switch (dump_fts -M)",
                .description = "The reference's wrapper script: dump_fts -M with the same arguments, followed "
                               "by a notice that dump_fts -M replaces it.",
                .usage = "[options] [<startlid> [<endlid>]]",
                .examples = "  dump_mfts\n  dump_mfts.sh -n",
                .make = [] { return std::make_unique<DumpFts>(Wrapper::Mfts); }});
