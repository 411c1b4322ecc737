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
  // A counter as --json lists it: its name and value.
  using Counters = std::vector<std::pair<const char*, uint64_t>>;
  // A reported port (--json): what its text line shows.
  struct PortOut {
    unsigned port;  // 0xff: all ports summed (AllPortSelect)
    uint64_t guid;
    Counters errors, details, data;
  };
  struct NodeOut {
    std::string text;
    std::vector<PortOut> ports;  // --json
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
      int i = H::err_index(k);
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
      if (!selected) ses->pm().read_path_table();
      DiscoveryOptions o;
      o.mlx_epi = config().mlx_epi;
      if (!selected && !counters_only_)
        o.on_port_lid = [&](const Subnet& d, uint32_t n, unsigned port) { read_ahead(ses->pm(), d, types, n, port); };
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
        ses->pm().use_subnet(&db);
        if (!selected) ses->pm().read_path_table();
      }
      // A bounded pool of workers over the nodes (not a coroutine frame
      // per node waiting to start).
      H::PmAccess& pm = ses->pm();
      auto scan = [&](size_t i) -> Task<> {
        if (!clean_ahead(pm, db, todo[i], outs[i])) co_await scan_node(pm, db, map, todo[i], outs[i]);
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
      p.text_raw(o.text);
      if (!o.ports.empty()) p.json_value(nullptr, [&](JsonOut& j) { node_json(j, db, map, db.node(todo[i]), o); });
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
          p.text("[%s = %" PRIu64 "]", H::err_name(i), thr_.limit[i]);
          p.uint(PRINT_JSON, H::err_field(i), nullptr, thr_.limit[i]);
        }
      p.close_object().text("\n");
    } else {
      p.text("## (null)\n").null("thresholds");
    }
    if (failures) p.text("##          %u PMA query failures\n", failures);
    if (gone) p.text("##          %u nodes of the cache gone from the fabric\n", gone);
    p.text("## Suppressed:").open_array("suppressed");
    for (int i : suppressed_) p.text(" %s", H::err_name(i)).str(PRINT_JSON, nullptr, nullptr, H::err_field(i));
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

  // A node of the document: its keys and the ports the text reports.
  void node_json(JsonOut& j, const Subnet& db, const NodeNameMap& map, const Node& n, const NodeOut& out) const {
    auto counters = [&](const char* key, const Counters& c) {
      j.key(key).obj();
      for (auto& [name, v] : c) j.kv(name, v);
      j.end();
    };
    std::string d = n.description();
    const char* tn = iba::enums::name_of(iba::enums::node_types(), unsigned(n.type));
    j.obj().kguid("nodeGUID", n.guid).kenum("nodeType", tn ? tn : "Unknown", unsigned(n.type));
    j.ks("name", map.remap(n.guid, d)).ks("nodeDescription", d).key("ports").arr();
    for (const PortOut& p : out.ports) {
      j.obj().kv("portNum", p.port).kb("allPorts", p.port == 0xff).kguid("portGUID", p.guid);
      if (!counters_only_) counters("errors", p.errors);
      if (details_) counters("details", p.details);
      if (show_data_ || counters_only_) counters("data", p.data);
      // -r: the port and its link, as iblinkinfo --json writes a port
      if (report_port_ && p.port != 0xff && p.port <= n.nports) {
        j.key("link");
        json_port(j, db, db.port(n, p.port), map, false);
      }
      j.end();
    }
    j.end().end();
  }

  bool is_suppressed(int i) const {
    for (int s : suppressed_)
      if (s == i) return true;
    return false;
  }

  // Error counter i as the report counts it (PortXmitWait only where the
  // PMA has it).
  static uint64_t error_value(const iba::PMPortCounters& pc, uint16_t cap, int i) {
    return i == H::PortXmitWait && !(cap & H::PM_CAP_XMIT_WAIT) ? 0 : H::err_value(pc, i);
  }

  // " [Name == v]" for every error counter beyond its threshold, in the
  // reference's order.  With --details, the details attribute of a counter
  // beyond threshold follows it, each non-zero field as " [Name == v]".  The
  // reference labels them crosswise: PortXmitDiscardDetails' fields under
  // the PortRcvErrorDetails names and PortRcvErrorDetails' under the
  // PortXmitDiscardDetails names (both read from offset 32 on); the labels
  // are kept for scripts that parse its output.
  Task<std::string> error_text(H::PmAccess& pm, const iba::PMPortCounters& pc, uint16_t cap, uint16_t lid,
                               uint8_t port, const std::string& name, NodeOut& out, PortOut& po) {
    std::string s;
    for (int i = 0; i < H::N_ERR; ++i) {
      if (is_suppressed(i)) continue;
      uint64_t v = error_value(pc, cap, i);
      if (!thr_.exceeds(i, v)) continue;
      s += strfmt(" [%s == %" PRIu64 "]", H::err_name(i), v);
      po.errors.emplace_back(H::err_field(i), v);
      if (!details_ || (i != H::PortXmitDiscards && i != H::PortRcvErrors)) continue;
      try {
        IBPath p = co_await pm.path(lid);
        std::array<uint64_t, 4> f{};
        if (i == H::PortXmitDiscards) {
          iba::PMPortXmitDiscardDetails q;
          q.set_portSelect(port);
          auto x = co_await pm.sched().PerformanceGet(q, p);
          f = {x.portInactiveDiscards(), x.portNeighborMTUDiscards(), x.portSwLifetimeLimitDiscards(),
               x.portSwHOQLifetimeLimitDiscards()};
        } else {
          iba::PMPortRcvErrorDetails q;
          q.set_portSelect(port);
          auto r = co_await pm.sched().PerformanceGet(q, p);
          f = {r.portLocalPhysicalErrors(), r.portMalformedPacketErrors(), r.portBufferOverrunErrors(),
               r.portDLIDMappingErrors()};
        }
        static const char* const rcv_names[] = {"PortLocalPhysicalErrors", "PortMalformedPktErrors",
                                                "PortBufferOverrunErrors", "PortDLIDMappingErrors"};
        static const char* const xmit_names[] = {"PortInactiveDiscards", "PortNeighborMTUDiscards",
                                                 "PortSwLifetimeLimitDiscards", "PortSwHOQLifetimeLimitDiscards"};
        const char* const* names = i == H::PortXmitDiscards ? rcv_names : xmit_names;
        for (size_t k = 0; k < f.size(); ++k)
          if (f[k]) s += strfmt(" [%s == %" PRIu64 "]", names[k], f[k]);
        // (--json names each field as iba/pm.h declares it in the attribute
        // it is in: the four 16-bit counters from bit 32 on)
        const iba::StructDesc& dd =
            i == H::PortXmitDiscards ? iba::PMPortXmitDiscardDetails::DESC : iba::PMPortRcvErrorDetails::DESC;
        for (size_t k = 0; k < f.size(); ++k)
          if (f[k]) po.details.emplace_back(declared_at(dd, uint32_t(32 + 16 * k)), f[k]);
      } catch (const MADError& e) {
        warn(out, e, i == H::PortXmitDiscards ? "PortXmitDiscardDetails" : "PortRcvErrorDetails", name, lid, port,
             "query_and_dump");
      }
    }
    co_return s;
  }

  // " [Name == v (human)]" for the data counters: the PortCountersExtended
  // ones when the PMA has them (all 8, or the first 4 without
  // PortExtendedWidth support), else the 4 of PortCounters (pc, read here
  // when null).  nonzero: only the counters that are not 0 (as --data).
  Task<std::string> data_text(H::PmAccess& pm, uint16_t cap, uint16_t lid, uint8_t port, bool nonzero,
                              const iba::PMPortCounters* pc, Counters* list) {
    std::array<uint64_t, H::N_DATA> v{};
    int count = 4;
    if (cap & (H::PM_CAP_EXT_WIDTH | H::PM_CAP_EXT_WIDTH_NOIETF)) {
      auto x = co_await pm.counters_ext(lid, port);
      if (cap & H::PM_CAP_EXT_WIDTH) count = H::N_DATA;
      for (int i = 0; i < count; ++i) v[i] = H::data_value(x, i);
    } else {
      iba::PMPortCounters c = pc ? *pc : co_await pm.counters(lid, port);
      for (int i = 0; i < count; ++i) v[i] = H::data_value(c, i);
    }
    std::string s;
    for (int i = 0; i < count; ++i)
      if (v[i] || !nonzero) {
        s += strfmt(" [%s == %" PRIu64 " (%s)]", H::data_name(i), v[i], H::human_count(v[i], i < 2).c_str());
        list->emplace_back(H::data_field(i), v[i]);
      }
    co_return s;
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
  // LID: its path and ClassPortInfo (cached by PmAccess) and the
  // PortCounters scan_node will read first: of all ports where the PMA has
  // AllPortSelect, else (a CA or router port) of that port.  Kept in ahead_
  // by (LID, port select); a bounded pool of workers drains the queue.
  struct Ahead {
    bool done = false;
    iba::PMPortCounters pc;
    std::exception_ptr error;
  };
  struct AheadItem {
    uint16_t lid;
    uint8_t port;
    bool sw;
  };
  static uint32_t ahead_key(uint16_t lid, uint8_t sel) { return uint32_t(lid) << 8 | sel; }
  void read_ahead(H::PmAccess& pm, const Subnet& db, unsigned types, uint32_t n, unsigned port) {
    const Node& x = db.node(n);
    unsigned bit = x.is_switch() ? PRINT_SWITCH : x.type == NodeType::CA ? PRINT_CA : PRINT_ROUTER;
    if (!(types & bit)) return;
    // The LIDs scan_node uses: a switch's port 0 LID; each CA port's own
    // (a CA's first port's for its ClassPortInfo: the port read here for
    // the usual single-port CA; else the scan asks what is missing).
    const Port& p = db.port(x, port);
    uint16_t lid = x.is_switch() ? H::port_lid(db, x, 0) : p.base_lid;
    if (!lid || !ahead_lids_.insert(lid).second) return;
    if (p.guid) pm.set_port_guid(lid, p.guid);
    if (!ahead_q_) ahead_q_.emplace(pm.sched(), kAheadWorkers, [this, &pm](AheadItem it) { return read_ahead_one(pm, it); });
    ahead_q_->push({lid, uint8_t(port), x.is_switch()});
  }
  Task<> read_ahead_one(H::PmAccess& pm, AheadItem it) {
    uint16_t cap = co_await pm.cap_mask(it.lid);
    uint8_t sel = cap & H::PM_CAP_ALL_PORT_SELECT ? 0xff : it.port;
    if (sel != 0xff && it.sw) co_return;  // a switch port by port: the scan reads it
    Ahead r;
    try {
      r.pc = co_await pm.counters(it.lid, sel);
    } catch (const MADError&) {
      r.error = std::current_exception();
    }
    r.done = true;
    ahead_[ahead_key(it.lid, sel)] = r;
  }
  // The PortCounters read ahead for (lid, sel), if any.
  const Ahead* ahead(uint16_t lid, uint8_t sel) const {
    auto a = ahead_.find(ahead_key(lid, sel));
    return a != ahead_.end() && a->second.done ? &a->second : nullptr;
  }
  // PM queries in flight for the read-ahead at most: the walk keeps the
  // rest of the scheduler's capacity.
  static constexpr unsigned kAheadWorkers = 24;


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
  // nothing printed), without the scan's coroutines and strings.
  bool clean_ahead(const H::PmAccess& pm, const Subnet& db, uint32_t ni, NodeOut& out) const {
    if (counters_only_ || clear_errors_ || clear_counts_) return false;
    const Node& n = db.node(ni);
    uint16_t lid = scan_lid(db, n);
    auto cap = pm.known_cap_mask(lid);
    if (!lid || !cap || cap->second) return false;
    auto clean = [&](const Ahead* a) {
      if (!a || a->error) return false;
      for (int i = 0; i < H::N_ERR; ++i)
        if (!is_suppressed(i) && thr_.exceeds(i, error_value(a->pc, cap->first, i))) return false;
      return true;
    };
    if (cap->first & H::PM_CAP_ALL_PORT_SELECT) {
      if (!clean(ahead(lid, 0xff))) return false;
      out.ports_checked += n.nports;
      return true;
    }
    if (n.is_switch()) return false;
    unsigned checked = 0;
    for (unsigned p = 1; p <= n.nports; ++p) {
      if (!db.port(n, p).exists) continue;
      if (!clean(ahead(db.port(n, p).base_lid, uint8_t(p)))) return false;
      ++checked;
    }
    out.ports_checked += checked;
    return true;
  }

  Task<> scan_node(H::PmAccess& pm, const Subnet& db, const NodeNameMap& map, uint32_t ni, NodeOut& out) {
    const Node& n = db.node(ni);
    std::string name = map.remap(n.guid, n.description());
    bool sw = n.is_switch();
    unsigned start = sw && n.enhsp0 ? 0 : 1;
    auto port_ok = [&](unsigned p) { return p <= n.nports && db.port(n, p).exists; };
    uint16_t lid = scan_lid(db, n);
    bool cap_failed = false, cap_timed_out = false;
    uint16_t cap = lid ? co_await pm.cap_mask(lid, &cap_failed, &cap_timed_out) : 0;
    // A node of a cached topology that does not answer may have left the
    // fabric since: that is not its PMA failing.
    if (cap_failed && co_await H::gone_from_cache(pm.sched(), db, ni, lid, name)) {
      out.gone = true;
      co_return;
    }
    if (cap_failed) {
      if (cap_timed_out) warn_timeout(lid);
      ibcore::log::warn("ibwarn: [%d] query_cap_mask: classportinfo query failed on %s, Lid %u port %u\n",
                   int(::getpid()), name.c_str(), unsigned(lid), sw ? 0u : 1u);
      out.pma_failures++;
    }
    bool all_sup = (cap & H::PM_CAP_ALL_PORT_SELECT) != 0;
    bool ext = (cap & (H::PM_CAP_EXT_WIDTH | H::PM_CAP_EXT_WIDTH_NOIETF)) != 0;
    auto lid_of = [&](unsigned p) { return sw ? lid : db.port(n, p).base_lid; };

    if (counters_only_) {
      bool printed = false;
      for (unsigned p = start; p <= n.nports; ++p) {
        if (!port_ok(p)) continue;
        uint16_t l = lid_of(p);
        std::string s;
        PortOut po{p, n.guid, {}, {}, {}};
        try {
          s = co_await data_text(pm, cap, l, uint8_t(p), false, nullptr, &po.data);
          out.ports.push_back(std::move(po));
          if (!printed) out.text += strfmt("Data Counters for 0x%" PRIx64 " \"%s\"\n", n.guid, name.c_str());
          printed = true;
          out.text += strfmt("   GUID 0x%" PRIx64 " port %u:%s\n", n.guid, p, s.c_str());
        } catch (const MADError& e) {
          warn(out, e, ext ? "IB_GSI_PORT_COUNTERS_EXT" : "IB_GSI_PORT_COUNTERS", name, l, p, "print_data_cnts");
        }
        out.ports_checked++;
      }
    } else {
      bool header_done = false;
      auto report = [&](const std::string& errs, const std::string& portname, uint64_t guid) {
        if (!header_done) {
          if (sw) out.text += strfmt("Errors for 0x%" PRIx64 " \"%s\"\n", n.guid, name.c_str());
          else out.text += strfmt("Errors for \"%s\"\n", name.c_str());
          header_done = true;
          out.bad = true;
        }
        out.text += strfmt("   GUID 0x%" PRIx64 " port %s:", guid, portname.c_str()) + errs;
      };
      auto check_port = [&](unsigned p) -> Task<bool> {
        uint16_t l = lid_of(p);
        uint8_t sel = p == 0xff ? 0xff : uint8_t(p);
        iba::PMPortCounters pc;
        try {
          if (const Ahead* a = ahead(l, sel)) {
            if (a->error) std::rethrow_exception(a->error);
            pc = a->pc;
          } else {
            pc = co_await pm.counters(l, sel);
          }
        } catch (const MADError& e) {
          warn(out, e, "IB_GSI_PORT_COUNTERS", name, l, p, "print_errors");
          co_return false;
        }
        PortOut po{p, 0, {}, {}, {}};
        std::string errs = co_await error_text(pm, pc, cap, l, sel, name, out, po);
        if (errs.empty()) co_return false;
        uint64_t guid = p == 0xff ? db.port(n, 0).guid : db.port(n, p).guid;
        if (p == 0xff && !guid) guid = n.guid;
        po.guid = guid;
        if (show_data_) {
          try {
            errs += co_await data_text(pm, cap, l, sel, true, &pc, &po.data);
          } catch (const MADError& e) {
            warn(out, e, "IB_GSI_PORT_COUNTERS_EXT", name, l, p, "print_errors");
            co_return false;
          }
        }
        report(errs, p == 0xff ? "ALL" : std::to_string(p), guid);
        out.ports.push_back(std::move(po));
        out.text += "\n";
        if (p != 0xff) {
          out.bad_ports++;
          if (report_port_) out.text += link_info(db, map, n, p);
        }
        co_return true;
      };
      bool scan_ports = true;
      if (all_sup && lid) {
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
      bool cext = clear_counts_ && ext;
      std::vector<unsigned> ports;
      if (all_sup) ports.push_back(0xff);
      else
        for (unsigned p = start; p <= n.nports; ++p)
          if (port_ok(p)) ports.push_back(p);
      for (unsigned p : ports) {
        uint16_t l = p == 0xff ? lid : lid_of(p);
        try {
          co_await pm.clear(l, uint8_t(p), sel, cext);
        } catch (const MADError& e) {
          ibcore::log::info("Failed to reset errors %s port %u\n", name.c_str(), p);
          if (config().verbose) ibcore::log::text(ibcore::log::Level::error, e.dump_str(config().verbose - 1));
        }
        if (clear_errors_ && details_) {
          try {
            IBPath path = co_await pm.path(l);
            iba::PMPortXmitDiscardDetails x;
            x.set_portSelect(uint8_t(p));
            x.set_counterSelect(0xf);
            (void)co_await pm.sched().PerformanceSet(x, path);
            iba::PMPortRcvErrorDetails r;
            r.set_portSelect(uint8_t(p));
            r.set_counterSelect(0x3f);
            (void)co_await pm.sched().PerformanceSet(r, path);
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
  std::unordered_map<uint32_t, Ahead> ahead_;  // ahead_key(LID, port select) -> read ahead
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
