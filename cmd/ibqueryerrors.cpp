// ibqueryerrors: report the ports whose PortCounters error counters exceed
// their thresholds, over the whole fabric (or one node), in the reference's
// output format.  Every node is scanned concurrently on the MAD scheduler,
// on a live fabric while discovery still walks (read_ahead); the PM path to
// each LID comes from the SA (core/health/health.h PmAccess: the path table, else
// one PathRecord per LID naming its GIDs).
#include <unistd.h>

#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/fabric/discovery.h"
#include "core/base/error.h"
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
#include "iba/refprint_smp.h"
#include "core/fabric/netprint.h"
#include "core/out/log.h"

namespace {

using namespace ibcore;
namespace H = ibcore::health;

constexpr unsigned PRINT_SWITCH = 1, PRINT_CA = 2, PRINT_ROUTER = 4, PRINT_ALL = 7;

// The name of the field desc declares at bit_off (--json's key for it).
const char* declared_at(const iba::StructDesc& desc, uint32_t bit_off) {
  for (const iba::FieldDesc& f : desc.field_list())
    if (f.bit_off == bit_off && f.kind != iba::Kind::Rsv) return f.name;
  throw std::logic_error(std::string("no field at bit ") + std::to_string(bit_off) + " of " + desc.name);
}

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
  // A counter beyond its threshold and, with --details, the non-zero fields
  // of its details attribute (label: the reference's text name, field: the
  // iba/pm.h name --json uses).
  struct Detail {
    const char* label;
    const char* field;
    uint64_t v;
  };
  struct ErrOut {
    int counter;
    uint64_t v;
    std::vector<Detail> details;
  };
  // A reported port: its line (and its object of the document), described
  // once by print_node().
  struct PortOut {
    unsigned port;  // 0xff: all ports summed (AllPortSelect)
    uint64_t guid;
    std::vector<ErrOut> errors;
    std::vector<std::pair<int, uint64_t>> data;  // (health data counter, value)
  };
  struct NodeOut {
    std::vector<PortOut> ports;  // the ports reported
    bool bad = false;
    bool gone = false;  // a node of a cached topology that is no longer there
    unsigned ports_checked = 0, bad_ports = 0, pma_failures = 0;
  };

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
    unsigned types = (only_switch_ ? PRINT_SWITCH : 0) | (only_ca_ ? PRINT_CA : 0) | (only_router_ ? PRINT_ROUTER : 0);
    if (!types) types = PRINT_ALL;
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
      // walk goes on (the same MADs the scan below would send, earlier).
      ses.emplace(config(), skip_sl_);
      reader_.emplace(ses->pm(), nullptr, errors_only());
      reader_->errors_from_port_counters(true);
      if (!selected) ses->pm().read_path_table();
      DiscoveryOptions o;
      o.mlx_epi = config().mlx_epi;
      if (!selected && !counters_only_)
        o.on_port_lid = [&](const Subnet& d, uint32_t n, unsigned port) { read_ahead(d, types, n, port); };
      ObtainOptions oo;
      oo.discovery = o;
      oo.sched = &ses->sched();
      db = obtain_subnet(config(), oo);
      ses->pm().use_subnet(&db);
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
    for (uint32_t n : nodes) {
      NodeType t = db.node(n).type;
      unsigned bit = t == NodeType::Switch ? unsigned(PRINT_SWITCH) : t == NodeType::CA ? unsigned(PRINT_CA) : t == NodeType::Router ? unsigned(PRINT_ROUTER) : 0u;
      if (types & bit) todo.push_back(n);
    }

    std::vector<NodeOut> outs(todo.size());
    if (!todo.empty()) {
      if (!ses) {
        ses.emplace(config(), skip_sl_);
        reader_.emplace(ses->pm(), nullptr, errors_only());
        reader_->errors_from_port_counters(true);
        ses->pm().use_subnet(&db);
        if (!selected) ses->pm().read_path_table();
      }
      // A bounded pool of workers over the nodes (not a coroutine frame
      // per node waiting to start).
      auto scan = [&](size_t i) -> Task<> {
        if (!clean_ahead(db, todo[i], outs[i])) co_await scan_node(*reader_, db, map, todo[i], outs[i]);
      };
      parallel_for(ses->sched(), todo.size(), ses->sched().engine().max_outstanding() + 8, scan);
      ses->sched().run();
      if (config().verbose)
        ibcore::log::info("I: ibqueryerrors: %zu nodes, %llu MADs in all (%llu PathRecord queries, %llu paths from "
                     "the table; %zu LIDs read during discovery), discovery %.3f s, then %.3f s\n",
                     todo.size(), (unsigned long long)ses->sched().engine().sent(),
                     (unsigned long long)ses->pm().path_queries(), (unsigned long long)ses->pm().table_paths(),
                     ahead_lids_.size(),
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
      gone += o.gone;
      nodes_checked -= o.gone;
      bad_nodes += o.bad;
      ports_checked += o.ports_checked;
      bad_ports += o.bad_ports;
      failures += o.pma_failures;
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
        if (thr_.set[i]) {
          p.text("[%s = %" PRIu64 "]", H::ERROR_COUNTERS.name(i), thr_.limit[i]);
          p.uint(PRINT_JSON, H::ERROR_COUNTERS.field(i), nullptr, thr_.limit[i]);
        }
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
    p.open_object().guid(PRINT_JSON, "nodeGUID", nullptr, n.guid);
    p.enumeration(PRINT_JSON, "nodeType", nullptr, tn ? tn : "Unknown", unsigned(n.type));
    p.str(PRINT_JSON, "name", nullptr, name).str(PRINT_JSON, "nodeDescription", nullptr, d);
    if (counters_only_) p.text("Data Counters for 0x%" PRIx64 " \"%s\"\n", n.guid, name.c_str());
    else if (n.is_switch()) p.text("Errors for 0x%" PRIx64 " \"%s\"\n", n.guid, name.c_str());
    else p.text("Errors for \"%s\"\n", name.c_str());
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
        if (!counters_only_) p.text_raw(link_info(db, map, n, po.port));
        if (po.port <= n.nports)
          p.json_value("link", [&](JsonOut& j) { json_port(j, db, db.port(n, po.port), map, false); });
      }
      p.close_object();
    }
    p.close_array().close_object();
  }

  // The groups the scan reads: the error counters (PortXmitWait among
  // them), or the data counters.
  static H::CounterGroups errors_only() {
    H::CounterGroups g;
    g.data = false;
    return g;
  }
  static H::CounterGroups data_only() {
    H::CounterGroups g;
    g.errors = g.congestion = false;
    return g;
  }

  bool is_suppressed(int i) const {
    for (int s : suppressed_)
      if (s == i) return true;
    return false;
  }

  // Error counter i as the report counts it (PortXmitWait only where the
  // PMA has it).
  static uint64_t error_value(const iba::PMPortCounters& pc, const H::PmaCaps& caps, int i) {
    return i == H::PortXmitWait && !(caps.mask & H::PM_CAP_XMIT_WAIT) ? 0 : H::ERROR_COUNTERS.value(pc, i);
  }

  // The error counters beyond their thresholds into po.errors, in the
  // reference's order; with --details, the details attribute of a counter
  // beyond threshold read for it, its non-zero fields kept.  The reference
  // labels them crosswise: PortXmitDiscardDetails' fields under the
  // PortRcvErrorDetails names and PortRcvErrorDetails' under the
  // PortXmitDiscardDetails names (both read from offset 32 on); the labels
  // are kept for scripts that parse its output.  True when any was.
  Task<bool> read_errors(H::PortCountersReader& reader, const iba::PMPortCounters& pc, const H::PmaCaps& caps,
                         uint16_t lid, uint8_t port, const std::string& name, NodeOut& out, PortOut& po) {
    for (int i = 0; i < H::N_ERR; ++i) {
      if (is_suppressed(i)) continue;
      uint64_t v = error_value(pc, caps, i);
      if (!thr_.exceeds(i, v)) continue;
      ErrOut& e = po.errors.emplace_back(ErrOut{i, v, {}});
      if (!details_ || (i != H::PortXmitDiscards && i != H::PortRcvErrors)) continue;
      try {
        std::array<uint64_t, 4> f{};
        if (i == H::PortXmitDiscards) {
          auto x = co_await reader.details<iba::PMPortXmitDiscardDetails>(lid, port);
          f = {x.portInactiveDiscards(), x.portNeighborMTUDiscards(), x.portSwLifetimeLimitDiscards(),
               x.portSwHOQLifetimeLimitDiscards()};
        } else {
          auto r = co_await reader.details<iba::PMPortRcvErrorDetails>(lid, port);
          f = {r.portLocalPhysicalErrors(), r.portMalformedPacketErrors(), r.portBufferOverrunErrors(),
               r.portDLIDMappingErrors()};
        }
        static const char* const rcv_names[] = {"PortLocalPhysicalErrors", "PortMalformedPktErrors",
                                                "PortBufferOverrunErrors", "PortDLIDMappingErrors"};
        static const char* const xmit_names[] = {"PortInactiveDiscards", "PortNeighborMTUDiscards",
                                                 "PortSwLifetimeLimitDiscards", "PortSwHOQLifetimeLimitDiscards"};
        const char* const* names = i == H::PortXmitDiscards ? rcv_names : xmit_names;
        // (--json names each field as iba/pm.h declares it in the attribute
        // it is in: the four 16-bit counters from bit 32 on)
        const iba::StructDesc& dd =
            i == H::PortXmitDiscards ? iba::PMPortXmitDiscardDetails::DESC : iba::PMPortRcvErrorDetails::DESC;
        for (size_t k = 0; k < f.size(); ++k)
          if (f[k]) e.details.push_back({names[k], declared_at(dd, uint32_t(32 + 16 * k)), f[k]});
      } catch (const MADError& err) {
        warn(out, err, i == H::PortXmitDiscards ? "PortXmitDiscardDetails" : "PortRcvErrorDetails", name, lid, port,
             "query_and_dump");
      }
    }
    co_return !po.errors.empty();
  }

  // The data counters into po.data: the PortCountersExtended ones when the
  // PMA has them (all 8, or the first 4 without PortExtendedWidth support),
  // else the 4 of PortCounters (pc's, when the errors read it).  nonzero:
  // only the counters that are not 0 (as --data).  Throws the read's
  // MADError.
  Task<> read_data(H::PortCountersReader& reader, const H::PmaCaps& caps, uint16_t lid, uint8_t port, bool nonzero,
                   const iba::PMPortCounters* pc, PortOut& po) {
    std::array<uint64_t, H::N_DATA> v{};
    int count = 4;
    if (pc && !caps.ext()) {
      for (int i = 0; i < count; ++i) v[i] = H::DATA_COUNTERS.value(*pc, i);
    } else {
      H::PortCountersRead r;
      co_await reader.read(lid, port, false, r, data_only(), &caps);
      if (!r.ok()) std::rethrow_exception(r.why());
      if (r.source == H::CounterSource::PortCounters) {
        for (int i = 0; i < count; ++i) v[i] = H::DATA_COUNTERS.value(r.pc, i);
      } else {
        if (caps.ext_ietf()) count = H::N_DATA;
        for (int i = 0; i < count; ++i) v[i] = H::DATA_COUNTERS.value(r.ext, i);
      }
    }
    for (int i = 0; i < count; ++i)
      if (v[i] || !nonzero) po.data.emplace_back(i, v[i]);
  }

  // A failed read's MADError to warn(), from its exception.
  static void warn(NodeOut& out, const std::exception_ptr& e, const char* attr, const std::string& name, uint16_t lid,
                   unsigned port, const char* fn) {
    try {
      std::rethrow_exception(e);
    } catch (const MADError& m) {
      warn(out, m, attr, name, lid, port, fn);
    }
  }

  // A failed PMA query: a warning on stderr, counted in the summary.  The
  // lines are the reference's (scripts count them): libibmad's for a
  // timeout, then ibqueryerrors' own, each "ibwarn: [pid] function: ",
  // fn being the reference function that reads that attribute.
  static void warn_timeout(uint16_t lid) {
    ibcore::log::warn("ibwarn: [%d] mad_rpc: _do_madrpc failed; dport (Lid %u)\n", int(::getpid()), unsigned(lid));
  }
  static void warn(NodeOut& out, const MADError& e, const char* attr, const std::string& name, uint16_t lid,
                   unsigned port, const char* fn) {
    if (dynamic_cast<const MADTimeoutError*>(&e)) warn_timeout(lid);
    ibcore::log::warn("ibwarn: [%d] %s: %s query failed on %s, Lid %u port %u\n", int(::getpid()), fn, attr,
                 name.c_str(), unsigned(lid), port);
    if (ibcore::log::verbosity()) ibcore::log::text(ibcore::log::Level::error, e.dump_str(ibcore::log::verbosity() - 1));
    out.pma_failures++;
  }

  // The -r line: this port's link as the reference shows it.
  std::string link_info(const Subnet& db, const NodeNameMap& map, const Node& n, unsigned port) const {
    const Port& p = db.port(n, port);
    if (!p.has_info) return {};
    auto pi = p.port_info();
    uint16_t lid = H::port_lid(db, n, port);
    // A node selected with -G/-S/-D is all the reference discovers (no
    // hops beyond it), so it does not know the peer: the peer is blank.
    const Port* q = single_node_ ? nullptr : db.peer(p);
    std::string s = strfmt("       Link info: %6u %3u[%2s] ==(", unsigned(lid), port, "");
    // (C14-24.2.1: a Down port's other PortInfo components may be invalid.)
    if (p.state() != 1) {
      s += strfmt("%3s %18s %6s/%8s)==>", iba::ref::fmt_link_width(pi.linkWidthActive()).c_str(),
               ibcore::active_speed_text(db, p).c_str(), iba::ref::port_state_word(pi.portState()),
               iba::ref::phys_state_word(pi.portPhysicalState()));
    } else {
      s += strfmt("%3s %18s %6s/%8s)==>", "", "", iba::ref::port_state_word(pi.portState()),
               iba::ref::phys_state_word(pi.portPhysicalState()));
    }
    if (q) {
      const Node& qn = db.node_of(*q);
      std::string cw, cs;
      if (q->has_info) ibcore::could_be(db, p, *q, cw, cs);
      // The peer is named by its port GUID (switch ports: the switch's).
      s += strfmt("  0x%016" PRIx64 " %6u %4u[%2s] \"%s\" (%s %s)", q->guid, unsigned(H::port_lid(db, qn, q->num)),
               unsigned(q->num), "", map.remap(qn.guid, qn.description()).c_str(), cw.c_str(), cs.c_str());
    } else {
      // No peer known: the reference's empty GUID and LID columns.
      s += strfmt("%13s[%2s] \"%s\" (%s %s)", "", "", "", "", "");
    }
    return s + "\n";
  }

  // Read ahead during discovery (DiscoveryOptions::on_port_lid), once per
  // LID, through the scan's reader: the PMA's ClassPortInfo and what
  // scan_node will read first: the switch's AllPortSelect sum where the PMA
  // has it (kept by the reader), else a CA or router port's PortCounters
  // (kept in ahead_ by LID and port).  A bounded pool of workers drains the
  // queue.
  struct AheadItem {
    uint16_t lid;
    uint8_t port;
    bool sw;
  };
  static uint32_t ahead_key(uint16_t lid, uint8_t port) { return uint32_t(lid) << 8 | port; }
  void read_ahead(const Subnet& db, unsigned types, uint32_t n, unsigned port) {
    const Node& x = db.node(n);
    unsigned bit = x.is_switch() ? PRINT_SWITCH : x.type == NodeType::CA ? PRINT_CA : PRINT_ROUTER;
    if (!(types & bit)) return;
    // The LIDs scan_node uses: a switch's port 0 LID; each CA port's own
    // (a CA's first port's for its ClassPortInfo: the port read here for
    // the usual single-port CA; else the scan asks what is missing).
    const Port& p = db.port(x, port);
    uint16_t lid = x.is_switch() ? H::port_lid(db, x, 0) : p.base_lid;
    if (!lid || !ahead_lids_.insert(lid).second) return;
    if (p.guid) reader_->pm().set_port_guid(lid, p.guid);
    if (!ahead_q_)
      ahead_q_.emplace(reader_->pm().sched(), kAheadWorkers, [this](AheadItem it) { return read_ahead_one(it); });
    ahead_q_->push({lid, uint8_t(port), x.is_switch()});
  }
  Task<> read_ahead_one(AheadItem it) {
    const H::PmaCaps caps = usable(co_await reader_->caps(it.lid));
    if (caps.all_port_select()) {
      (void)co_await reader_->sum(it.lid);
      co_return;
    }
    if (it.sw) co_return;  // a switch port by port: the scan reads it
    H::PortCountersRead r;
    co_await reader_->read(it.lid, it.port, false, r, errors_only(), &caps);
    ahead_[ahead_key(it.lid, it.port)] = std::move(r);
  }
  // A CA or router port's PortCounters read ahead, if any.
  const H::PortCountersRead* ahead(uint16_t lid, uint8_t port) const {
    auto a = ahead_.find(ahead_key(lid, port));
    return a != ahead_.end() ? &a->second : nullptr;
  }
  // PM queries in flight for the read-ahead at most: the walk keeps the
  // rest of the scheduler's capacity.
  static constexpr unsigned kAheadWorkers = 24;
  // The capabilities a PMA is read with: none where its ClassPortInfo
  // failed (the reference reads its PortCounters all the same).
  static H::PmaCaps usable(const H::PmaCaps& c) { return c.failed ? H::PmaCaps{} : c; }

  // The LID scan_node queries node n by: a switch's port 0 LID, a CA's or
  // router's first port's.
  static uint16_t scan_lid(const Subnet& db, const Node& n) {
    if (n.is_switch()) return H::port_lid(db, n, 0);
    for (unsigned p = 1; p <= n.nports; ++p)
      if (db.port(n, p).exists) return db.port(n, p).base_lid;
    return 0;
  }

  // A node whose counters were all read ahead and show nothing beyond a
  // threshold is done here as scan_node would end it (its ports counted,
  // nothing printed), without the scan's coroutines.
  bool clean_ahead(const Subnet& db, uint32_t ni, NodeOut& out) const {
    if (counters_only_ || clear_errors_ || clear_counts_) return false;
    const Node& n = db.node(ni);
    uint16_t lid = scan_lid(db, n);
    const H::PmaCaps* caps = lid ? reader_->known_caps(lid) : nullptr;
    if (!caps || caps->failed) return false;
    auto clean = [&](const iba::PMPortCounters& pc) {
      for (int i = 0; i < H::N_ERR; ++i)
        if (!is_suppressed(i) && thr_.exceeds(i, error_value(pc, *caps, i))) return false;
      return true;
    };
    if (caps->all_port_select()) {
      const H::PortSum* s = reader_->known_sum(lid);
      if (!s || !s->ok || !clean(s->pc)) return false;
      out.ports_checked += n.nports;
      return true;
    }
    if (n.is_switch()) return false;
    unsigned checked = 0;
    for (unsigned p = 1; p <= n.nports; ++p) {
      if (!db.port(n, p).exists) continue;
      const H::PortCountersRead* a = ahead(db.port(n, p).base_lid, uint8_t(p));
      if (!a || !a->ok() || !clean(a->pc)) return false;
      ++checked;
    }
    out.ports_checked += checked;
    return true;
  }

  Task<> scan_node(H::PortCountersReader& reader, const Subnet& db, const NodeNameMap& map, uint32_t ni,
                   NodeOut& out) {
    const Node& n = db.node(ni);
    std::string name = map.remap(n.guid, n.description());
    bool sw = n.is_switch();
    unsigned start = sw && n.enhsp0 ? 0 : 1;
    auto port_ok = [&](unsigned p) { return p <= n.nports && db.port(n, p).exists; };
    uint16_t lid = scan_lid(db, n);
    H::PmaCaps got;
    if (lid) got = co_await reader.caps(lid);
    // A node of a cached topology that does not answer may have left the
    // fabric since: that is not its PMA failing.
    if (got.failed && co_await H::gone_from_cache(reader.pm().sched(), db, ni, lid, name)) {
      out.gone = true;
      co_return;
    }
    if (got.failed) {
      if (got.timed_out) warn_timeout(lid);
      ibcore::log::warn("ibwarn: [%d] query_cap_mask: classportinfo query failed on %s, Lid %u port %u\n",
                   int(::getpid()), name.c_str(), unsigned(lid), sw ? 0u : 1u);
      out.pma_failures++;
    }
    const H::PmaCaps caps = usable(got);
    auto lid_of = [&](unsigned p) { return sw ? lid : db.port(n, p).base_lid; };

    if (counters_only_) {
      for (unsigned p = start; p <= n.nports; ++p) {
        if (!port_ok(p)) continue;
        uint16_t l = lid_of(p);
        PortOut po{p, n.guid, {}, {}};
        try {
          co_await read_data(reader, caps, l, uint8_t(p), false, nullptr, po);
          out.ports.push_back(std::move(po));
        } catch (const MADError& e) {
          warn(out, e, caps.ext() ? "IB_GSI_PORT_COUNTERS_EXT" : "IB_GSI_PORT_COUNTERS", name, l, p, "print_data_cnts");
        }
        out.ports_checked++;
      }
    } else {
      auto check_port = [&](unsigned p) -> Task<bool> {
        uint16_t l = lid_of(p);
        uint8_t sel = p == 0xff ? 0xff : uint8_t(p);
        iba::PMPortCounters pc;
        std::exception_ptr failed;
        if (p == 0xff) {
          H::PortSum s = co_await reader.sum(l);
          if (!s.ok) {
            if (s.error) warn(out, s.error, "IB_GSI_PORT_COUNTERS", name, l, p, "print_errors");
            co_return false;
          }
          pc = s.pc;
        } else {
          H::PortCountersRead r;
          if (const H::PortCountersRead* a = ahead(l, sel)) r = *a;
          else co_await reader.read(l, sel, false, r, errors_only(), &caps);
          if (!r.ok()) {
            warn(out, r.why(), "IB_GSI_PORT_COUNTERS", name, l, p, "print_errors");
            co_return false;
          }
          pc = r.pc;
        }
        PortOut po{p, 0, {}, {}};
        if (!co_await read_errors(reader, pc, caps, l, sel, name, out, po)) co_return false;
        uint64_t guid = p == 0xff ? db.port(n, 0).guid : db.port(n, p).guid;
        if (p == 0xff && !guid) guid = n.guid;
        po.guid = guid;
        if (show_data_) {
          try {
            co_await read_data(reader, caps, l, sel, true, &pc, po);
          } catch (const MADError& e) {
            warn(out, e, "IB_GSI_PORT_COUNTERS_EXT", name, l, p, "print_errors");
            co_return false;
          }
        }
        out.ports.push_back(std::move(po));
        out.bad = true;
        if (p != 0xff) out.bad_ports++;
        co_return true;
      };
      bool scan_ports = true;
      if (caps.all_port_select() && lid) {
        if (!co_await check_port(0xff)) {
          out.ports_checked += n.nports;
          scan_ports = false;
        }
      }
      if (scan_ports)
        for (unsigned p = start; p <= n.nports; ++p) {
          if (!port_ok(p)) continue;
          co_await check_port(p);
          out.ports_checked++;
        }
    }

    if ((clear_errors_ || clear_counts_) && lid) {
      // Every port scanned (all at once where the PMA has AllPortSelect);
      // with --details the details attributes too.
      uint16_t sel = (clear_errors_ ? H::SELECT_ERRORS : 0) | (clear_counts_ ? H::SELECT_DATA : 0);
      bool cext = clear_counts_ && caps.ext();
      std::vector<unsigned> ports;
      if (caps.all_port_select()) ports.push_back(0xff);
      else
        for (unsigned p = start; p <= n.nports; ++p)
          if (port_ok(p)) ports.push_back(p);
      for (unsigned p : ports) {
        uint16_t l = p == 0xff ? lid : lid_of(p);
        try {
          co_await reader.clear(l, uint8_t(p), sel, cext);
        } catch (const MADError& e) {
          ibcore::log::info("Failed to reset errors %s port %u\n", name.c_str(), p);
          if (config().verbose) ibcore::log::text(ibcore::log::Level::error, e.dump_str(config().verbose - 1));
        }
        if (clear_errors_ && details_) {
          try {
            co_await reader.clear_details<iba::PMPortXmitDiscardDetails>(l, uint8_t(p), 0xf);
            co_await reader.clear_details<iba::PMPortRcvErrorDetails>(l, uint8_t(p), 0x3f);
          } catch (const MADError& e) {
            if (config().verbose) ibcore::log::text(ibcore::log::Level::error, e.dump_str(config().verbose - 1));
          }
        }
      }
    }
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
  std::optional<H::PortCountersReader> reader_;  // the scan's (run()'s session's)
  std::unordered_map<uint32_t, H::PortCountersRead> ahead_;  // ahead_key(LID, port) -> read ahead
  std::unordered_set<uint16_t> ahead_lids_;    // LIDs queued
  std::optional<WorkQueue<AheadItem>> ahead_q_;
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
                    "errors beyond threshold.  --json (-j; --pretty indents): {\"nodes\": [the reported "
                    "nodes, {\"nodeGUID\", \"nodeType\", \"name\", \"nodeDescription\", \"ports\": "
                    "[{\"portNum\" (255 and \"allPorts\": true for the AllPortSelect sum), \"portGUID\", "
                    "\"errors\": {counter: value}, \"details\" (--details), \"data\" (--data, "
                    "--counters), \"link\" (-r: the port as iblinkinfo --json writes it)}]}], \"summary\": {\"nodesChecked\", \"badNodes\", \"portsChecked\", "
                    "\"badPorts\", \"pmaFailures\", \"goneNodes\", \"thresholds\", \"suppressed\"}}.",
                .usage = "[options]",
                .examples = "  ibqueryerrors -c -r            # common counters suppressed, link info shown\n"
                            "  ibqueryerrors --threshold-file t  # thresholds from t\n"
                            "  ibqueryerrors -G 0x0002c90300001234  # only that node",
                .make = [] { return std::make_unique<IbQueryErrors>(); }});
