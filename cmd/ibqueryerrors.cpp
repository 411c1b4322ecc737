// ibqueryerrors: report the ports whose PortCounters error counters exceed
// their thresholds, over the whole fabric (or one node), in the reference's
// output format.  Every node is scanned concurrently on the MAD scheduler,
// on a live fabric while discovery still walks (read_ahead); the PM path to
// each LID comes from the SA (core/health/health.h PmAccess: the path table, else
// one PathRecord per LID naming its GIDs).
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/fabric/discovery.h"
#include "core/base/error.h"
#include "core/health/errorreport.h"
#include "core/health/health.h"
#include "core/out/print.h"
#include "core/fabric/json_net.h"
#include "core/fabric/netcache.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/obtain.h"
#include "core/rpc/sched.h"
#include "core/fabric/subnet.h"
#include "core/transport/transport.h"
#include "iba/enums.h"
#include "core/out/log.h"

namespace {

using namespace ibcore;
namespace H = ibcore::health;


using ibcore::strfmt;

class IbQueryErrors : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_option("-s,--suppress", suppress_arg_, "suppress errors listed")->option_text("<err1,err2,...>");
    app.add_flag("-c,--suppress-common", suppress_common_, "suppress some of the common counters");
    app.add_option("-G,--port-guid", guid_arg_, "report the node containing the port specified by <port_guid>")
        ->option_text("<port_guid>");
    app.add_option("-S", guid_arg_, "Same as \"-G\" for backward compatibility")->option_text("<port_guid>");
    app.add_option("-D,--Direct", dr_arg_, "report the node containing the port specified by <dr_path>")
        ->option_text("<dr_path>");
    app.add_flag("--skip-sl", skip_sl_, "don't obtain SL to all destinations");
    app.add_flag("-r,--report-port", report_port_, "report port link information");
    app.add_option("--threshold-file", threshold_file_, "specify an alternate threshold file, default: " +
                                                            std::string(H::DEFAULT_THRESHOLDS))
        ->option_text("<val>");
    app.add_flag("-R,--GNDN", gndn_, "(This option is obsolete and does nothing)");
    app.add_flag("--data", show_data_, "include data counters for ports with errors");
    app.add_flag("--switch", only_switch_, "print data for switches only");
    app.add_flag("--ca", only_ca_, "print data for CA's only");
    app.add_flag("--router", only_router_, "print data for routers only");
    app.add_flag("--details", details_, "include transmit discard details");
    app.add_flag("--counters", counters_only_, "print data counters only");
    app.add_flag("-k,--clear-errors", clear_errors_, "Clear error counters after read");
    app.add_flag("-K,--clear-counts", clear_counts_, "Clear data counters after read");
    app.add_option("--load-cache", load_cache_, "filename of ibnetdiscover cache to load")->option_text("<file>");
    app.add_option("-o,--outstanding_smps", config().outstanding,
                   "specify the number of outstanding SMP's which should be issued during the scan")
        ->option_text("<val>");
    ibtool::add_common_options(app, config(), ibtool::opt::Mad | ibtool::opt::MKey | ibtool::opt::NodeNameMap |
                                        ibtool::opt::SaPath | ibtool::opt::SMKey | ibtool::opt::Cache |
                                        ibtool::opt::Json | ibtool::opt::Strict);
  }

private:
  using NodeOut = H::ReportedNode;
  using PortOut = H::ReportedPort;
  using ErrOut = H::ReportedError;
  using Detail = H::ReportedDetail;

  // Its work may fail anywhere (discovery, a MAD, a file): the library's report.
  bool reports_errors() const override { return true; }
  int run() override {
    // Suppression list: known names only, in the order given.
    for (size_t pos = 0; pos <= suppress_arg_.size() && !suppress_arg_.empty();) {
      size_t c = suppress_arg_.find(',', pos);
      std::string k = suppress_arg_.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
      pos = c == std::string::npos ? suppress_arg_.size() + 1 : c + 1;
      int i = H::ERROR_COUNTERS.index(k);
      if (i >= 0) suppressed_.push_back(i);
    }
    if (suppress_common_) suppressed_.push_back(H::PortRcvSwitchRelayErrors);
    thresholds_ok_ = thr_.load(threshold_file_);

    NodeNameMap map = NodeNameMap::open(config().node_name_map);
    unsigned types = (only_switch_ ? unsigned(H::KIND_SWITCH) : 0u) | (only_ca_ ? unsigned(H::KIND_CA) : 0u) | (only_router_ ? unsigned(H::KIND_ROUTER) : 0u);
    if (!types) types = H::KIND_ALL;
    bool selected = !guid_arg_.empty() || !dr_arg_.empty();

    Subnet db;
    std::optional<H::PmSession> ses;
    auto t0 = std::chrono::steady_clock::now();
    if (!load_cache_.empty()) {
      db = load_cache(load_cache_);
    } else {
      // Live: the PM queries share discovery's scheduler.  For a whole
      // fabric scan each node's path, ClassPortInfo and all-ports
      // PortCounters are read as soon as the walk knows its LID, while the
      // walk goes on (the same MADs the scan below would send, earlier:
      // ErrorScan::obtain).
      ses.emplace(config(), skip_sl_);
      scan_.emplace(ses->pm(), scan_options(map, types));
      ObtainOptions oo;
      oo.discovery.mlx_epi = config().mlx_epi;
      if (!selected) {
        scan_->obtain(config(), oo, db);
      } else {
        oo.sched = &ses->sched();
        db = obtain_subnet(config(), oo);
        ses->pm().use_subnet(&db);
      }
    }
    auto t1 = std::chrono::steady_clock::now();

    // The node(s) to report.
    std::vector<uint32_t> nodes;
    single_node_ = selected;
    if (selected) {
      uint32_t n = NO_INDEX;
      std::string what;
      if (!guid_arg_.empty()) {
        uint64_t g = std::strtoull(guid_arg_.c_str(), nullptr, 0);
        // Port GUIDs only, as the reference: a GUID of no port (e.g. a node
        // or system image GUID) selects nothing and reports 0 nodes.
        uint32_t p = db.port_by_guid(g);
        if (p != NO_INDEX) n = db.port(p).node;
        what = guid_arg_;
      } else {
        auto hops = parse_dr_path(dr_arg_);
        if (!hops) throw Error("Invalid DR path " + dr_arg_);
        std::vector<uint8_t> h(hops->begin() + 1, hops->end());
        uint32_t p = db.port_by_dr(h);
        if (p != NO_INDEX) n = db.port(p).node;
        what = dr_arg_;
      }
      if (n == NO_INDEX) {
        // The reference asks the SA for the port first and, when the SA
        // does not know it, warns and scans the whole fabric (which found
        // no such port either: the GUID matched nothing).
        if (!guid_arg_.empty()) {
          ibcore::log::warn("ibwarn: [%d] ib_path_query_via: sa call path_query failed\n", int(::getpid()));
          ibcore::log::warn("ibwarn: [%d] main: Failed to resolve %s; attempting full scan\n", int(::getpid()),
                            what.c_str());
          ibcore::log::warn("Failed to find node: %s\n", what.c_str());
        } else {
          ibcore::text_or_log(ibcore::log::Level::warn, "Failed to find node: %s\n", what.c_str());
        }
        matched_nothing_ = true;
      } else {
        nodes.push_back(n);
      }
    } else {
      nodes = db.reference_order(NodeType::Unknown);
    }
    // Type filter.
    std::vector<uint32_t> todo;
    for (uint32_t n : nodes)
      if (types & H::kind_of(db.node(n))) todo.push_back(n);

    std::vector<NodeOut> outs(todo.size());
    if (!todo.empty()) {
      if (!ses) {
        ses.emplace(config(), skip_sl_);
        scan_.emplace(ses->pm(), scan_options(map, types));
        ses->pm().use_subnet(&db);
        if (!selected) ses->pm().read_path_table();
      }
      H::ErrorReport sink(db, map, todo, outs, counters_only_, config().verbose);
      std::vector<H::NodeScan> found = scan_->run(db, todo, sink);
      for (size_t i = 0; i < todo.size(); ++i) outs[i].scan = found[i];
      if (config().verbose)
        ibcore::log::info("I: ibqueryerrors: %zu nodes, %llu MADs in all (%llu PathRecord queries, %llu paths from "
                     "the table; %zu LIDs read during discovery), discovery %.3f s, then %.3f s\n",
                     todo.size(), (unsigned long long)ses->sched().engine().sent(),
                     (unsigned long long)ses->pm().path_queries(), (unsigned long long)ses->pm().table_paths(),
                     scan_->ahead_lids(),
                     std::chrono::duration<double>(t1 - t0).count(),
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
    }

    // {"nodes": [the nodes the text reports, each {"nodeGUID", "nodeType",
    // "name", "nodeDescription", "ports": [{"portNum" (255: all ports
    // summed, "allPorts" true), "portGUID", "errors": {name: value},
    // "details": {...} (--details), "data": {...} (--data, --counters),
    // "link": {the port as iblinkinfo --json writes it} (-r)}]}],
    // "summary": {"nodesChecked", "badNodes", "portsChecked", "badPorts",
    // "pmaFailures", "goneNodes" (nodes of a --cache topology that no longer
    // answer), "thresholds": {name: value} (null when the file could not be
    // read), "suppressed": [names]}}; the text: each node's lines as the
    // scan made them, then the summary.
    Printer p;
    p.open_object().open_array("nodes");
    unsigned nodes_checked = unsigned(todo.size()), bad_nodes = 0, ports_checked = 0, bad_ports = 0, failures = 0,
             gone = 0;
    for (size_t i = 0; i < outs.size(); ++i) {
      const NodeOut& o = outs[i];
      print_node(p, db, map, db.node(todo[i]), o);
      gone += o.scan.gone;
      nodes_checked -= o.scan.gone;
      bad_nodes += o.scan.bad;
      ports_checked += o.scan.ports_checked;
      bad_ports += o.scan.bad_ports;
      failures += o.scan.pma_failures;
    }
    p.close_array().open_object("summary");
    p.uint(PRINT_ANY, "nodesChecked", "\n## Summary: %u nodes checked, ", nodes_checked);
    p.uint(PRINT_ANY, "badNodes", "%u bad nodes found\n", bad_nodes);
    p.uint(PRINT_ANY, "portsChecked", "##          %u ports checked, ", ports_checked);
    p.uint(PRINT_ANY, "badPorts", "%u ports have errors beyond threshold\n", bad_ports);
    p.uint(PRINT_JSON, "pmaFailures", nullptr, failures).uint(PRINT_JSON, "goneNodes", nullptr, gone);
    // (The text names the counters as the reference does, the document by
    // their iba/pm.h names.)
    if (thresholds_ok_) {
      p.text("## Thresholds: ").open_object("thresholds");
      for (int i = 0; i < H::N_ERR; ++i)
        if (thr_.set[i]) p.text("[%s = ", H::ERROR_COUNTERS.name(i)).uint(PRINT_ANY, H::ERROR_COUNTERS.field(i), "%" PRIu64 "]", thr_.limit[i]);
      p.close_object().text("\n");
    } else {
      p.text("## (null)\n").null("thresholds");
    }
    if (failures) p.text("##          %u PMA query failures\n", failures);
    if (gone) p.text("##          %u nodes of the cache gone from the fabric\n", gone);
    p.text("## Suppressed:").open_array("suppressed");
    for (int i : suppressed_) p.text(" %s", H::ERROR_COUNTERS.name(i)).str(PRINT_JSON, nullptr, nullptr, H::ERROR_COUNTERS.field(i));
    p.close_array().text("\n").close_object().close_object().finish();
    std::fflush(stdout);
    return strict_status(bad_ports ? 1 : 0, nodes_checked, failures, gone);
  }

  // --strict: a selection that matched nothing, no node checked, or nodes
  // that did not answer make the run fail.
  int strict_status(int status, unsigned nodes_checked, unsigned failures, unsigned gone) const {
    std::string why;
    if (matched_nothing_) why = "no node matched " + (guid_arg_.empty() ? dr_arg_ : guid_arg_);
    else if (!nodes_checked && !gone) why = "no node checked";
    else if (failures) why = std::to_string(failures) + " PMA query failures";
    else if (gone) why = std::to_string(gone) + " nodes of the cache gone from the fabric";
    return why.empty() ? status : ibtool::strict_exit(config(), status, why);
  }

  // A reported node: the reference's lines ("Errors for ...", a line a
  // port, -r's link line) and the document's object.
  void print_node(Printer& p, const Subnet& db, const NodeNameMap& map, const Node& n, const NodeOut& o) const {
    if (o.ports.empty()) return;
    const std::string d = n.description(), name = map.remap(n.guid, d);
    const char* tn = iba::enums::name_of(iba::enums::node_types(), unsigned(n.type));
    // ("Errors for 0x<GUID> "<name>"": a CA's line has no GUID.)
    p.open_object().text(counters_only_ ? "Data Counters for " : "Errors for ");
    p.guid(counters_only_ || n.is_switch() ? PRINT_ANY : PRINT_JSON, "nodeGUID", "0x%" PRIx64 " ", n.guid);
    p.enumeration(PRINT_JSON, "nodeType", nullptr, tn ? tn : "Unknown", unsigned(n.type));
    p.str(PRINT_ANY, "name", "\"%s\"\n", name).str(PRINT_JSON, "nodeDescription", nullptr, d);
    p.open_array("ports");
    for (const PortOut& po : o.ports) {
      p.open_object().uint(PRINT_JSON, "portNum", nullptr, po.port);
      p.boolean(PRINT_JSON, "allPorts", nullptr, po.port == 0xff);
      p.guid(PRINT_ANY, "portGUID", "   GUID 0x%" PRIx64, po.guid);
      if (po.port == 0xff) p.text(" port ALL:");
      else p.text(" port %u:", po.port);
      // (The text names the counters as the reference does, each one's
      // details after it; the document by their iba/pm.h names, the
      // details apart.)
      if (!counters_only_) {
        p.open_object("errors");
        for (const ErrOut& e : po.errors) {
          p.uint(PRINT_ANY, H::ERROR_COUNTERS.field(e.counter), strfmt(" [%s == %%u]", H::ERROR_COUNTERS.name(e.counter)).c_str(), e.v);
          for (const Detail& x : e.details) p.text(" [%s == %" PRIu64 "]", x.label, x.v);
        }
        p.close_object();
      }
      if (details_) {
        p.open_object("details");
        for (const ErrOut& e : po.errors)
          for (const Detail& x : e.details) p.uint(PRINT_JSON, x.field, nullptr, x.v);
        p.close_object();
      }
      if (show_data_ || counters_only_) {
        p.open_object("data");
        for (auto [i, v] : po.data)
          p.uint(PRINT_ANY, H::DATA_COUNTERS.field(i),
                 strfmt(" [%s == %%u (%s)]", H::DATA_COUNTERS.name(i), H::human_count(v, i < 2).c_str()).c_str(), v);
        p.close_object();
      }
      p.text("\n");
      // -r: the port and its link (the text in the error report only; the
      // document as iblinkinfo --json writes a port)
      if (report_port_ && po.port != 0xff) {
        if (!counters_only_) p.lit(H::link_line(db, map, n, po.port, !single_node_));
        if (po.port <= n.nports)
          p.json_value("link", [&](JsonOut& j) { json_port(j, db, db.port(n, po.port), map, false); });
      }
      p.close_object();
    }
    p.close_array().close_object();
  }

  // The scan's options: the report's thresholds, suppressions, reads and
  // clears.
  H::ErrorScanOptions scan_options(const NodeNameMap& map, unsigned types) const {
    H::ErrorScanOptions o;
    o.thr = &thr_;
    o.map = &map;
    for (int i : suppressed_) o.ignore |= uint16_t(1u << i);
    o.details = details_;
    o.data = show_data_;
    o.counters_only = counters_only_;
    o.clear = (clear_errors_ ? H::SELECT_ERRORS : 0) | (clear_counts_ ? H::SELECT_DATA : 0);
    o.clear_ext = clear_counts_;
    o.clear_details = clear_errors_ && details_;
    o.kinds = types;
    return o;
  }

  std::string suppress_arg_, guid_arg_, dr_arg_, load_cache_;
  std::string threshold_file_ = H::DEFAULT_THRESHOLDS;
  bool suppress_common_ = false, skip_sl_ = false, report_port_ = false, gndn_ = false, show_data_ = false,
       only_switch_ = false, only_ca_ = false, only_router_ = false, details_ = false, counters_only_ = false,
       clear_errors_ = false, clear_counts_ = false;
  std::vector<int> suppressed_;
  H::Thresholds thr_;
  bool thresholds_ok_ = true;
  bool single_node_ = false;  // a node selected with -G/-S/-D
  bool matched_nothing_ = false;  // that selection matched no node
  std::optional<H::ErrorScan> scan_;  // the fabric counter scan (run()'s session's)
};

}  // namespace

IBTOOL_COMMAND({.name = "ibqueryerrors",
                .aliases = {},
                .summary = "query the fabric's port error counters and report those beyond thresholds",
                .description =
                    "Discovers the fabric (or loads a cache) and reads the PortCounters of every port, "
                    "all nodes concurrently and, on a live fabric, each node as soon as discovery knows its "
                    "LID.  Each destination LID's path comes from the SA: one PathRecord table from this "
                    "port to every port, then a PathRecord per LID the table lacks (--skip-sl: SL 0, no "
                    "PathRecord).  A port is reported when an error "
                    "counter exceeds its threshold (0 unless the thresholds file, lines Name=value, "
                    "raises it).  Switches whose PMA supports AllPortSelect are read summed first "
                    "(\"port ALL\"), their ports only when the sum shows errors.  --data adds the "
                    "data counters, --counters prints only data counters, -r the link of each "
                    "reported port, --details the transmit discard and receive error details; "
                    "-k/-K clear error/data counters after reading.  Exit status 1 when a port has "
                    "errors beyond threshold.  --json (-j; --pretty indents): the reported nodes, each with "
                    "its reported ports (port 255 with allPorts true: the AllPortSelect sum), and the "
                    "summary (its members and types: --json-schema).",
                .usage = "[options]",
                .examples = "  ibqueryerrors -c -r            # common counters suppressed, link info shown\n"
                            "  ibqueryerrors --threshold-file t  # thresholds from t\n"
                            "  ibqueryerrors -G 0x0002c90300001234  # only that node",
                .make = [] { return std::make_unique<IbQueryErrors>(); }});
