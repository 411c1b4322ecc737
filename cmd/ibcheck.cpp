// The ibcheck* family: fabric and port health checks with ibtool's own,
// stable output (the reference no longer ships these scripts).  Every check
// runs over the subnet database (one parallel discovery, or --cache), PM
// counters are read for all ports at once on the MAD scheduler, and every
// finding names the node (description, GUID), the port and the LID.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "iba/refprint_smp.h"
#include "cmd/common.h"
#include "cmd/health_options.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/fabric/discovery.h"
#include "core/base/error.h"
#include "core/out/log.h"
#include "core/rpc/gmppath.h"
#include "core/health/health.h"
#include "core/out/json.h"
#include "core/out/print.h"
#include "core/health/json_health.h"
#include "core/health/portcheck.h"
#include "core/fabric/netcache.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/obtain.h"
#include "core/rpc/rpc.h"
#include "core/rpc/sched.h"
#include "core/fabric/subnet.h"
#include "core/transport/open.h"

namespace {

using namespace ibcore;
namespace H = ibcore::health;

enum class Mode { Errors, Errs, Net, Node, Port, PortState, PortWidth, State, Width };

bool is_target_mode(Mode m) {
  return m == Mode::Errs || m == Mode::Node || m == Mode::Port || m == Mode::PortState || m == Mode::PortWidth;
}
bool needs_port(Mode m) { return m == Mode::Port || m == Mode::PortState || m == Mode::PortWidth; }

class IbCheck : public ibtool::HealthCommand {
public:
  explicit IbCheck(Mode m)
      : HealthCommand("print only the findings, no summary or OK lines",
                      "accepted for compatibility (output is never colored)"),
        mode_(m) {}

private:
  using Item = H::CheckItem;

  void own_options(CLI::App& app) override {
    if (mode_ == Mode::Errors || mode_ == Mode::Errs || mode_ == Mode::Net || mode_ == Mode::Port) {
      app.add_option("-T,--threshold-file", threshold_file_,
                     "error thresholds (Name=value lines), default: " + std::string(H::DEFAULT_THRESHOLDS))
          ->option_text("<file>");
      app.add_flag("-s,--show-thresholds", show_thresholds_, "print the thresholds in use");
    }
    if (mode_ == Mode::Net || mode_ == Mode::State)
      app.add_option("--baseline", baseline_,
                     "the healthy subnet: a cache (ibtool --cache, ibnetdiscover --cache) or an ibnetdiscover "
                     "topology file; every link of it that is missing or down is reported by both ends")
          ->option_text("<file>");
    if (is_target_mode(mode_))
      at_.add(app, true,
              needs_port(mode_)         ? ibtool::HealthTarget::Port::Required
              : mode_ == Mode::Errs     ? ibtool::HealthTarget::Port::Optional
                                        : ibtool::HealthTarget::Port::None);
  }

  // --json: {"findings": [print_finding's objects], "ports": [every port
  // checked: {"nodeGUID", "name", "nodeDescription", "portNum", "LID",
  // "ok", "portState", "portPhysicalState", "linkWidthActive",
  // "linkSpeedActive"}] (-v), "thresholds": {counter: limit} (modes that
  // read counters), "summary": {"nodesChecked", "badNodes", "portsChecked",
  // "badPorts"}}; ibchecknode's in check_node().  Held until the end (a
  // run that fails leaves stdout empty); the text goes out as it comes.
  int run() override {
    Printer p(stdout, Printer::Doc::Whole);
    out_ = &p;
    p.open_object();
    int rc = check();
    p.close_object().finish();
    return rc;
  }

  int check() {
    Printer& p = *out_;
    if (mode_ == Mode::Errors || mode_ == Mode::Errs || mode_ == Mode::Net || mode_ == Mode::Port) {
      if (!thr_.load(threshold_file_) && threshold_file_ != H::DEFAULT_THRESHOLDS)
        throw Error("Cannot read thresholds file " + threshold_file_);
      if (show_thresholds_) {
        p.text("## Thresholds:");
        for (int i = 0; i < H::N_ERR; ++i) p.text(" %s=%" PRIu64, H::ERROR_COUNTERS.name(i), thr_.limit[i]);
        p.text("\n");
      }
    }
    map_ = NodeNameMap::open(config().node_name_map);
    if (mode_ == Mode::Node) return check_node();
    std::vector<H::ExpectedLink> base;
    if (!baseline_.empty()) base = H::load_baseline(baseline_);

    // A --cache gives the topology; the states checked are read live.
    ObtainOptions oo;
    oo.live_links = true;
    db_ = obtain_subnet(config(), oo);
    std::vector<uint32_t> nodes;
    std::vector<Item> items;
    if (is_target_mode(mode_)) {
      uint32_t node = db_.port(H::find_target_port(db_, at_.target, at_.form())).node;
      nodes.push_back(node);
      const Node& n = db_.node(node);
      if (needs_port(mode_) || (mode_ == Mode::Errs && at_.port >= 0)) {
        if (at_.port < 0 || unsigned(at_.port) > n.nports || (at_.port == 0 && !n.is_switch()))
          throw Error("Node \"" + name(node) + "\" has no port " + std::to_string(at_.port));
        items.push_back({node, unsigned(at_.port)});
      } else {
        for (unsigned p = n.is_switch() ? 1 : 1; p <= n.nports; ++p)
          if (H::port_checkable(db_, n, p)) items.push_back({node, p});
        if (n.is_switch() && n.enhsp0) items.insert(items.begin(), {node, 0});
      }
    } else {
      nodes = db_.reference_order(NodeType::Unknown);
      std::reverse(nodes.begin(), nodes.end());  // discovery order
      for (uint32_t i : nodes) {
        const Node& n = db_.node(i);
        if (n.is_switch() && n.enhsp0 && mode_ == Mode::Errors) items.push_back({i, 0});
        for (unsigned p = 1; p <= n.nports; ++p)
          if (H::port_checkable(db_, n, p)) items.push_back({i, p});
      }
    }

    H::CheckPlan plan;
    plan.state = mode_ == Mode::Net || mode_ == Mode::State || mode_ == Mode::Port || mode_ == Mode::PortState;
    plan.width = mode_ == Mode::Net || mode_ == Mode::Width || mode_ == Mode::Port || mode_ == Mode::PortWidth;
    plan.speed = mode_ == Mode::Net || mode_ == Mode::Port;
    plan.errors = mode_ == Mode::Net || mode_ == Mode::Errors || mode_ == Mode::Errs || mode_ == Mode::Port;
    plan.ids = mode_ == Mode::Net;
    plan.target = is_target_mode(mode_);
    plan.named = needs_port(mode_);
    std::vector<H::Finding> found = H::run_checks(config(), db_, nodes, items, plan, thr_, base, map_);
    std::set<uint32_t> bad_nodes;
    std::set<std::pair<uint32_t, int>> bad_ports;
    for (const auto& f : found)
      if (f.node != NO_INDEX) {
        bad_nodes.insert(f.node);
        if (f.port >= 0) bad_ports.insert({f.node, f.port});
      }
    p.open_array("findings");
    for (const auto& f : found) print_finding(p, db_, f, map_, config().verbose != 0);
    p.close_array();
    if (config().verbose) {
      // Every port checked: the text names the good ones ("OK" and their
      // state), the document all of them.
      p.open_array("ports");
      for (const Item& it : items) {
        const Node& n = db_.node(it.node);
        bool ok = !bad_ports.count({it.node, int(it.port)});
        p.open_object();
        print_port_keys(p, db_, it.node, int(it.port), H::port_lid(db_, n, it.port), map_, ok);
        if (ok) p.text(": OK%s\n", port_summary(it).c_str());
        p.boolean(PRINT_JSON, "ok", nullptr, ok);
        if (it.port)
          p.json_value(nullptr, [&](JsonOut& j) {
            json_port_info_fields(j, db_.port(n, it.port),
                                  {"portState", "portPhysicalState", "linkWidthActive", "linkSpeedActive"});
          });
        p.close_object();
      }
      p.close_array();
    }
    if (plan.errors) p.json_value(nullptr, [&](JsonOut& j) { json_thresholds(j, thr_); });
    if (!brief_ && is_target_mode(mode_) && found.empty() && !config().verbose)
      for (const Item& it : items) {
        H::Finding ok;
        ok.node = it.node;
        ok.port = items.size() == 1 || needs_port(mode_) ? int(it.port) : -1;
        ok.lid = H::port_lid(db_, db_.node(it.node), it.port);
        ok.what = "OK";
        p.text("%s\n", H::describe(db_, ok, name(it.node)).c_str());
        if (ok.port < 0) break;
      }
    // (-b: the document's summary only)
    const PrintKind k = brief_ ? PRINT_JSON : PRINT_ANY;
    p.open_object("summary");
    p.uint(k, "nodesChecked", "## Summary: %zu nodes checked, ", nodes.size());
    p.uint(k, "badNodes", "%zu bad nodes found\n", bad_nodes.size());
    p.uint(k, "portsChecked", "##          %zu ports checked, ", items.size());
    p.uint(k, "badPorts", "%zu bad ports found\n", bad_ports.size());
    p.close_object();
    return status(found, items);
  }

  // 1 when anything was found; with --strict also when nothing was
  // checked (no connected port, nor any ID to check).
  int status(const std::vector<H::Finding>& found, const std::vector<Item>& items) const {
    if (!found.empty()) return 1;
    if (items.empty()) return ibtool::strict_exit(config(), 0, "no port checked");
    return 0;
  }

  std::string name(uint32_t n) const { return map_.remap(db_.node(n).guid, db_.node(n).description()); }

  std::string port_summary(const Item& it) const {
    const Port& p = db_.port(db_.node(it.node), it.port);
    if (!p.has_info || it.port == 0) return "";
    auto pi = p.port_info();
    return " (" + std::string(iba::ref::port_state_word(pi.portState())) + "/" + iba::ref::phys_state_word(pi.portPhysicalState()) +
           ", " + H::width_str(pi.linkWidthActive()) + " " + H::speed_str(pi.linkSpeedActive()) + ")";
  }

  int check_node() {
    Printer& out = *out_;
    IBPath p = IBPath::from_string(at_.target, at_.form());
    auto owner = ibcore::open_transport(get_end_port(config().ca, config().port), config());
    ibcore::Transport& umad = *owner;
    MadTransactor mad(umad);
    if (!p.is_dr() && !p.DLID) {
      // A GUID: its LID from the SA.
      IBPath sa = H::sa_path_for_pm(umad);
      auto [q, mask] = GmpPathResolver::path_query(p, umad.local_lid(), umad.local_gid());
      iba::SAPathRecord pr = mad.SubnAdmGet(q, mask, &sa);
      p = IBPath();
      p.DLID = pr.DLID();
    }
    try {
      auto ni = mad.SubnGet<iba::SMPNodeInfo>(p);
      iba::SMPNodeDescription nd;
      std::string desc;
      try {
        nd = mad.SubnGet<iba::SMPNodeDescription>(p);
        const auto b = nd.bytes();
        desc = clean_nodedesc(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
      } catch (const MADError&) {
      }
      // {"destination", "ok": true, "nodeGUID", "name", "nodeDescription"}.
      out.json_value("destination", [&](JsonOut& j) { p.json(j); }).boolean(PRINT_JSON, "ok", nullptr, true);
      out.guid(PRINT_JSON, "nodeGUID", nullptr, ni.nodeGUID());
      out.str(brief_ ? PRINT_JSON : PRINT_ANY, "name", "\"%s\"", map_.remap(ni.nodeGUID(), desc));
      if (!brief_) out.text(" (0x%016" PRIx64 ") %s: OK\n", ni.nodeGUID(), p.describe().c_str());
      out.str(PRINT_JSON, "nodeDescription", nullptr, desc);
      return 0;
    } catch (const MADError& e) {
      // {"destination", "ok": false, "finding", "check", "error"}.
      out.json_value("destination", [&](JsonOut& j) { p.json(j); }).boolean(PRINT_JSON, "ok", nullptr, false);
      out.text("%s: ", p.describe().c_str());
      out.str(PRINT_ANY, "finding", "%s\n", "node does not answer NodeInfo: " + e.layers().back());
      out.str(PRINT_JSON, "check", nullptr, "nodeAnswers").str(PRINT_JSON, "error", nullptr, e.layers().back());
      if (config().verbose) ibcore::log::text(ibcore::log::Level::error, e.dump_str(config().verbose - 1));
      return 1;
    }
  }

  Mode mode_;
  bool show_thresholds_ = false;
  std::string threshold_file_ = H::DEFAULT_THRESHOLDS;
  std::string baseline_;
  ibtool::HealthTarget at_;
  H::Thresholds thr_;
  NodeNameMap map_;
  Subnet db_;
  Printer* out_ = nullptr;  // run()'s
};

const char* const kFindingFormat =
    "  Each finding is one line on stdout:  \"<node description>\" (0x<node GUID>) port <n> lid <lid>: "
    "<what is wrong>.  -v adds an OK line (with state, width and speed) for every port checked; -b leaves "
    "out the summary.  The summary is two lines: \"## Summary: N nodes checked, M bad nodes found\" and "
    "\"##          P ports checked, Q bad ports found\".  Exit status 1 when anything was found (with "
    "--strict also when no port was checked), 0 otherwise, 255 when the check could not run.  --json (-j; --pretty indents): one document (its members and types: --json-schema) (-b "
    "changes nothing in it); the exit status as for the text.";

std::string desc(const char* what) { return std::string(what) + kFindingFormat; }

}  // namespace

IBTOOL_COMMAND({.name = "ibcheckerrors",
                .aliases = {},
                .summary = "check the error counters of every port in the subnet against thresholds",
                .description = [] { return desc(
                    "Reads the PortCounters of every connected port of the subnet (all at once; a switch whose "
                    "AllPortSelect sum shows no error counted has its ports' reads skipped) and reports each "
                    "error counter above its threshold (0 unless the thresholds file, the format of "
                    "ibqueryerrors' and ibswportwatch's, raises it; a saturated counter says so).  "); },
                .usage = "[options]",
                .examples = "  ibcheckerrors -T /etc/infiniband-diags/error_thresholds",
                .make = [] { return std::make_unique<IbCheck>(Mode::Errors); }});
IBTOOL_COMMAND({.name = "ibcheckerrs",
                .aliases = {},
                .summary = "check the error counters of one node or port against thresholds",
                .description = [] { return desc("Like ibcheckerrors for the node at <lid|guid|dr_path>, every connected port "
                                    "or only <port>.  "); },
                .usage = "[options] <lid|guid|dr_path> [<port>]",
                .examples = "  ibcheckerrs 2 3",
                .make = [] { return std::make_unique<IbCheck>(Mode::Errs); }});
IBTOOL_COMMAND({.name = "ibchecknet",
                .aliases = {},
                .summary = "check every port, link, counter and ID of the subnet",
                .description = [] { return desc(
                    "Runs every check over the whole subnet: port states (LinkUp ports must be Active, "
                    "connected ports LinkUp), link width and speed against what both ends enable and "
                    "support, error counters against thresholds, and IDs (duplicate or zero GUIDs, a "
                    "duplicate node found by reading NodeInfo through LinkUp ports whose peer discovery "
                    "could not place, missing LIDs, LID ranges overlapping with their LMC).  With --baseline "
                    "<file> (a cache written by ibtool --cache or ibnetdiscover --cache, or a topology file "
                    "written by ibnetdiscover), every link of the baseline that is missing or down is reported "
                    "by both ends (\"link to \"<peer>\" (0x<GUID>) port <m> (in the baseline) is down: <why>\"), "
                    "and a baseline node none of whose links has a live end as \"node ... of the baseline is "
                    "not in the subnet\"; without it a removed link leaves nothing to check.  "); },
                .usage = "[options]",
                .examples = "  ibchecknet -v",
                .make = [] { return std::make_unique<IbCheck>(Mode::Net); }});
IBTOOL_COMMAND({.name = "ibchecknode",
                .aliases = {},
                .summary = "check that a node answers",
                .description = "Reads NodeInfo (and the node description) of <lid|guid|dr_path>.  Prints "
                               "\"<name>\" (0x<GUID>) <path>: OK, or the failure, on stdout.  Exit status 1 when the "
                               "node does not answer.  --json (-j; --pretty indents): one document, \"ok\" false "
                               "with the finding when the node does not answer (its members and types: --json-schema).",
                .usage = "[options] <lid|guid|dr_path>",
                .examples = "  ibchecknode 2",
                .make = [] { return std::make_unique<IbCheck>(Mode::Node); }});
IBTOOL_COMMAND({.name = "ibcheckport",
                .aliases = {},
                .summary = "check one port: state, link width and speed, error counters",
                .description = [] { return desc("Checks port <port> of the node at <lid|guid|dr_path>: its state (it must "
                                    "be Active/LinkUp), its link's width and speed against both ends, and its "
                                    "error counters.  "); },
                .usage = "[options] <lid|guid|dr_path> <port>",
                .examples = "  ibcheckport 2 3",
                .make = [] { return std::make_unique<IbCheck>(Mode::Port); }});
IBTOOL_COMMAND({.name = "ibcheckportstate",
                .aliases = {},
                .summary = "check one port's logical and physical state",
                .description = [] { return desc("Checks that port <port> of the node at <lid|guid|dr_path> is LinkUp and "
                                    "Active (a port without a link is reported too: it was named).  "); },
                .usage = "[options] <lid|guid|dr_path> <port>",
                .examples = "  ibcheckportstate 2 3",
                .make = [] { return std::make_unique<IbCheck>(Mode::PortState); }});
IBTOOL_COMMAND({.name = "ibcheckportwidth",
                .aliases = {},
                .summary = "check one port's link width against both ends",
                .description = [] { return desc("Checks that the link of port <port> runs at the widest width both ends have "
                                    "enabled and support, and is not 1X when both support more.  "); },
                .usage = "[options] <lid|guid|dr_path> <port>",
                .examples = "  ibcheckportwidth 2 3",
                .make = [] { return std::make_unique<IbCheck>(Mode::PortWidth); }});
IBTOOL_COMMAND({.name = "ibcheckstate",
                .aliases = {},
                .summary = "check the state of every port in the subnet",
                .description = [] { return desc("Checks every connected port of the subnet: LinkUp ports must be Active, "
                                    "ports with a peer must be LinkUp.  --baseline <file> reports the links of "
                                    "a healthy subnet's cache or topology file that are missing or down, as "
                                    "ibchecknet does.  "); },
                .usage = "[options]",
                .examples = "  ibcheckstate",
                .make = [] { return std::make_unique<IbCheck>(Mode::State); }});
IBTOOL_COMMAND({.name = "ibcheckwidth",
                .aliases = {},
                .summary = "check the width of every link in the subnet",
                .description = [] { return desc("Checks every link: it must run at the widest width both ends have enabled "
                                    "and support, and not at 1X when both ends support more.  "); },
                .usage = "[options]",
                .examples = "  ibcheckwidth",
                .make = [] { return std::make_unique<IbCheck>(Mode::Width); }});
