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
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
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
#include "core/fabric/sadiscovery.h"
#include "core/rpc/sched.h"
#include "core/transport/open.h"
#include "core/out/log.h"

namespace {

using namespace ibcore;

unsigned loose_uint(const std::string& s) { return unsigned(std::strtoul(s.c_str(), nullptr, 0)); }

enum class Wrapper { None, Lfts, Mfts };

// The part [start, end] of a switch's tables as the SA records gave them,
// in the form the SMP table reads fill (an error when the SA had none).
void sa_tables_into(const Subnet& db, uint32_t node, unsigned start, unsigned end, LftRead& lft, MftRead& mft) {
  const SwitchTables* t = db.find_tables(node);
  if (t && t->lft_valid) {
    lft.lft.assign(size_t(end) + 1, LFT_NO_ROUTE);
    for (unsigned lid = start; lid <= end && lid < t->lft.size(); ++lid) lft.lft[lid] = t->lft[lid];
  } else {
    lft.error = std::make_exception_ptr(Error("the SA returned no LinearForwardingTableRecords for this switch"));
  }
  mft.first = start;
  mft.masks.clear();
  if (t && t->mft_valid) {
    if (start >= MLID_BASE && end >= start) {
      mft.masks.assign(size_t(end - start) + 1, {});
      for (unsigned m = start; m <= end && m - MLID_BASE < t->mft.size(); ++m) mft.masks[m - start] = t->mft[m - MLID_BASE];
    }
  } else {
    mft.error = std::make_exception_ptr(Error("the SA returned no MulticastForwardingTableRecords for this switch"));
  }
}

// Prints unicast tables on a thread of its own, in the order they are
// handed over: formatting and writing a k=32 fat tree's 12M rows takes
// about as long as reading its tables, and done between MADs it would leave
// the MAD window empty (the simulator idle) for the whole of each switch.
class TablePrinter {
public:
  struct Table {
    uint64_t guid = 0;
    std::string name, where;
    IBPath route;  // where, for --json
    uint16_t lid = 0;
    unsigned start = 0, end = 0;
    std::vector<uint8_t> lft;  // empty and !ok: the table could not be read
    bool ok = false;
  };
  // Each table through out: the reference's text, or a switch object of
  // the document (--json).  Only this thread writes to out until finish().
  TablePrinter(const std::vector<LidDest>& dests, bool all, bool no_dests, Printer& out)
      : dests_(dests), all_(all), no_dests_(no_dests), out_(out), t_([this] { loop(); }) {}
  ~TablePrinter() { finish(); }
  void add(Table t) {
    {
      std::lock_guard<std::mutex> l(m_);
      q_.push_back(std::move(t));
    }
    cv_.notify_one();
  }
  // Wait until everything handed over is printed.  Returns 255 when a table
  // could not be read, else 0.
  int finish() {
    {
      std::lock_guard<std::mutex> l(m_);
      if (done_) return rc_;
      done_ = true;
    }
    cv_.notify_one();
    if (t_.joinable()) t_.join();
    return rc_;
  }

private:
  void loop() {
    for (;;) {
      Table t;
      {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return !q_.empty() || done_; });
        if (q_.empty()) return;
        t = std::move(q_.front());
        q_.pop_front();
      }
      if (!t.ok) {
        std::fflush(stdout);
        ibcore::log::error("E: could not read the linear forwarding table of switch 0x%016llx (%s)\n",
                     (unsigned long long)t.guid, t.name.c_str());
        rc_ = 255;
        continue;
      }
      // (the destinations are named once in the JSON: json_dests)
      UnicastDump d(out_, all_, no_dests_, "node info not available fabric scan", false);
      d.table({t.guid, t.name, t.lid, t.route, t.where}, t.lft, t.start, t.end, dests_);
    }
  }

  const std::vector<LidDest>& dests_;
  bool all_, no_dests_;
  Printer& out_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Table> q_;
  bool done_ = false;
  int rc_ = 0;  // (written by the thread only, read after join)
  std::thread t_;
};

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

  // The reference names a switch by the route its walk reached it by.
  static std::string where_of(const Subnet& db, uint32_t node) {
    std::string dr = db.ref_dr_string(node);
    return "DR path slid 0; dlid 0; " + (dr.empty() ? dr_path_of(db, node).dr_string() : dr);
  }
  // The same route as a path (--json's "route").
  static IBPath route_of(const Subnet& db, uint32_t node) {
    auto dr = db.ref_dr(node);
    return dr ? IBPath(IBDRPath(*dr)) : dr_path_of(db, node);
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
    std::vector<uint32_t> sws = db.reference_order(NodeType::Switch);
    uint16_t local = umad.local_lid();

    struct Job {
      uint32_t node;
      unsigned start, end;
      IBPath path;
      LftRead lft;
      MftRead mft;
    };
    std::vector<Job> jobs(sws.size());
    TableReads reads;
    for (size_t i = 0; i < sws.size(); ++i) {
      Job& j = jobs[i];
      j.node = sws[i];
      const Node& n = db.node(j.node);
      j.path = switch_path(db, j.node, local, config().discovery);
      auto si = n.switch_info();
      if (multicast_) {
        iba::LidRange lr = iba::mft_range(si, start, end);
        j.start = lr.first;
        j.end = lr.last;
        // (one read per switch, empty without SwitchInfo: read i = jobs[i])
        if (!via_sa) reads.add_mft(j.path, n.has_swinfo ? j.start : 1, n.has_swinfo ? j.end : 0, n.nports, j.mft);
      } else {
        iba::LidRange lr = iba::lft_range(si, start, end);
        j.start = lr.first;
        j.end = lr.last;
      }
    }
    if (via_sa) {
      size_t known = r.errors.size();
      read_switch_tables_sa(sched, db, sws, !multicast_, multicast_, &r);
      report_discovery_errors(r, known);
      for (Job& j : jobs) sa_tables_into(db, j.node, j.start, j.end, j.lft, j.mft);
    }
    std::vector<LidDest> dests;
    if (!multicast_ && !no_dests_) dests = lid_dests_from_db(db, map);
    json_open(dests);
    int rc = 0;
    // Print each switch as soon as its blocks are in and the switches
    // before it are printed: output overlaps the reads still in flight.
    std::vector<char> ready(jobs.size(), 0);
    for (size_t i = 0; i < jobs.size(); ++i) ready[i] = via_sa || reads.pending(i) == 0;
    size_t next = 0;
    auto print_ready = [&] {
      for (; next < jobs.size() && ready[next]; ++next) {
        Job& j = jobs[next];
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
          mft_table(*out_, h, j.mft, j.start, j.end, n.nports, all_, no_dests_);
        } else {
          UnicastDump d(*out_, all_, no_dests_, "node info not available fabric scan", false);
          d.table(h, j.lft.lft, j.start, j.end, dests);
        }
      }
    };
    reads.on_done = [&](size_t i) {
      ready[i] = 1;
      print_ready();
    };
    if (!via_sa) {
      reads.spawn(sched);
      sched.run();
    }
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
                    "--json (-j; --pretty indents): {\"destinations\": [{\"LID\", \"destination\": "
                    "{\"portGUID\", \"nodeType\", \"name\", \"baseLID\", \"LMC\"}}] (each LID of the "
                    "fabric once; not with -n or -M), \"switches\": [{\"nodeGUID\", \"name\", \"LID\", "
                    "\"route\", \"startLID\", \"endLID\", \"lft\": [{\"LID\", \"port\" (null: no "
                    "route, -a)}]}]}; with -M \"startMLID\", \"endMLID\", \"mft\": [{\"MLID\", "
                    "\"ports\": [numbers]}].",
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
