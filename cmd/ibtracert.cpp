// ibtracert: trace the unicast route (or with -m the multicast route of an
// MLID) between two ports, hop by hop, as infiniband-diags prints it.
// Both ends are first asked for NodeInfo by LID (a route that does not work
// fails there unless -f); then the route is walked with directed route SMPs
// from the local port: to the source, then from the source to the
// destination, reading one forwarding table block per switch.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/obtain.h"
#include "core/health/checks.h"
#include "core/out/print.h"
#include "core/fabric/routes.h"
#include "core/out/textout.h"
#include "iba/enums.h"
#include "core/rpc/satransactor.h"
#include "core/base/textfile.h"
#include "core/out/log.h"

namespace {

using namespace ibcore;

const char* type_word(const TraceNode& n) {
  switch (NodeType(n.ni.nodeType())) {
    case NodeType::CA: return "ca";
    case NodeType::Switch: return "switch";
    case NodeType::Router: return "router";
    default: return "???";
  }
}

class IbTracert : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_flag("-f,--force", force_, "force");
    app.add_flag("-n,--no_info", no_info_, "simple format");
    app.add_option_function<std::string>(
           "-m,--mlid", [this](const std::string& s) { mlid_ = unsigned(std::strtoul(s.c_str(), nullptr, 0)); },
           "multicast trace of the mlid")
        ->option_text("<mlid>");
    app.add_option("--ports-file", ports_file_, "port pairs file")->option_text("<file>");
    flags_.bind(app, ibtool::tflag::Lid | ibtool::tflag::Guid | ibtool::tflag::SmPort);
    ibtool::add_common_options(app, config(), ibtool::opt::Mad | ibtool::opt::MKey | ibtool::opt::NodeNameMap | ibtool::opt::Sa |
                                        ibtool::opt::Json);
    app.add_option("args", args_, "<src-addr> <dest-addr>");
  }

  bool reports_errors() const override { return true; }
  const char* no_json_form() const override {
    return ports_file_.empty() ? nullptr : "is for one trace (not --ports-file)";
  }

  int run() override {
    const std::string tool = app().get_name();
    bool dash = std::any_of(args_.begin(), args_.end(), [](const std::string& a) { return a.size() > 1 && a[0] == '-'; });
    if (dash || (ports_file_.empty() && args_.size() < 2)) {
      throw ibtool::UsageFail{};
    }
    std::unique_ptr<ibtool::Session> s;
    try {
      s = std::make_unique<ibtool::Session>(ibtool::open_session(config()));
    } catch (const std::exception& e) {
      const auto& c = config();
      ibtool::ref_fail(e, "Failed to open '" + (c.ca.empty() ? std::string("(null)") : c.ca) + "' port '" +
                              std::to_string(c.port) + "'");
    }
    map_ = NodeNameMap::open(config().node_name_map);
    // --sa: every read below is an SA record read (no SMP is sent).
    // -s names the SM, whose SA answers.
    src_ = std::make_unique<SmpSource>(*s->mad, std::nullopt,
                                       flags_.sm_port ? std::optional(sa_path_for(*s->mad, flags_.sm_port))
                                                      : std::nullopt);
    if (ports_file_.empty()) {
      trace(*s, args_[0], args_[1], "Failed to get route information");
      return 0;
    }
    // A line at a time: a pipe's pairs are traced as they come.
    ibcore::LineReader in(ports_file_);
    if (!in) throw ibtool::RefFail{"cannot open ports-file " + ports_file_};
    std::string_view line;
    unsigned n = 0, lineno = 0;
    while (in.next(line)) {
      ++lineno;
      std::vector<std::string> w = ibcore::split_words(line);
      if (w.empty() || w[0][0] == '#') continue;
      std::string a = w[0], b = w.size() > 1 ? w[1] : std::string();
      trace(*s, a, b, "Failed to get route information at line " + std::to_string(lineno));
      ++n;
    }
    std::printf("%u lid/guid pairs processed from %s\n", n, ports_file_.c_str());
    return 0;
  }

private:
  // The LID of an address argument (0 when it does not resolve).
  uint16_t lid_of(ibtool::Session& s, const std::string& arg) {
    IBPath t;
    try {
      t = parse_target(arg, flags_.form());
    } catch (const std::exception& e) {
      // Not an address: a node description, or a name of the node name
      // map, as set_port_state and ibprint* take one (unless -G/-L said
      // which form the argument has).
      if (flags_.form().form != IBPath::Form::Auto || flags_.form().combined) {
        ibcore::report(e);
        return 0;
      }
      return lid_by_name(arg);
    }
    try {
      IBPath p = resolve_for_smp(*s.mad, t, flags_.sm_port);
      if (p.is_dr()) {
        auto ni = src_->SubnGet<iba::SMPNodeInfo>(p);
        bool sw = NodeType(ni.nodeType()) == NodeType::Switch;
        auto pi = src_->SubnGet<iba::SMPPortInfo>(p, sw ? 0 : unsigned(ni.localPortNum()));
        return uint16_t(pi.LID());
      }
      return p.DLID;
    } catch (const std::exception& e) {
      ibcore::report(e);
      return 0;
    }
  }

  // The LID of the node named arg in the fabric (discovered once): a
  // switch's, or a CA's or router's first port with one; 0 (with an E:
  // line) when no node has that name.
  uint16_t lid_by_name(const std::string& arg) {
    if (!db_) db_ = obtain_subnet(config());
    uint32_t n = health::find_node(*db_, map_, arg, NodeType::Unknown);
    if (n == NO_INDEX) {
      ibcore::log::error("E: no node of the fabric is named \"%s\" (nor is it a LID, GUID, GID or DR path)\n",
                         arg.c_str());
      return 0;
    }
    const Node& x = db_->node(n);
    for (unsigned p = x.is_switch() ? 0 : 1; p <= x.nports; ++p)
      if (uint16_t lid = health::port_lid(*db_, x, p)) return lid;
    ibcore::log::error("E: node \"%s\" has no LID\n", arg.c_str());
    return 0;
  }

  static IBPath lid_path(ibtool::Session& s, uint16_t lid) {
    IBPath p;
    p.DLID = lid;
    p.SLID = s.umad->local_lid();
    return p;
  }

  std::string name(const TraceNode& n) const { return map_.remap(n.ni.nodeGUID(), n.desc); }

  // A trace that fails: our E: line saying why (when known), then the
  // reference's iberror exit with fail_msg.
  [[noreturn]] static void route_fail(const std::string& why, const std::string& fail_msg) {
    std::fflush(stdout);
    if (!why.empty()) ibcore::log::error("E: %s\n", why.c_str());
    throw ibtool::RefFail{fail_msg};
  }

  void trace(ibtool::Session& s, const std::string& src_arg, const std::string& dst_arg,
             const std::string& fail_msg) {
    uint16_t src = lid_of(s, src_arg), dst = lid_of(s, dst_arg);
    if (!src || !dst) route_fail("can't resolve the source or destination address", fail_msg);
    // Each end by LID before the walk to it, as the reference does: a
    // broken route fails there (unless forced).
    auto reach = [&](uint16_t lid, iba::SMPNodeInfo* ni) {
      try {
        iba::SMPNodeInfo n = src_->SubnGet<iba::SMPNodeInfo>(lid_path(s, lid));
        if (ni) *ni = n;
      } catch (const MADError& e) {
        if (!force_ || mlid_) {
          ibcore::report(e);
          route_fail("can't reach to/from ports", fail_msg);
        }
      }
    };
    reach(src, nullptr);
    Tracer t(*src_);
    TraceNode local;
    try {
      local = t.node_at({0});
    } catch (const MADError& e) {
      ibcore::report(e);
      route_fail("can't query the local port", fail_msg);
    }
    TraceResult to_src = t.unicast(local, src);
    if (to_src.status != TraceStatus::Found)
      route_fail(to_src.detail + "; can't find a route to the src port", fail_msg);
    // -v: the hops from the local port to the source first (always in the
    // full format).
    Printer p;
    if (config().verbose)
      for (size_t i = 1; i < to_src.nodes.size(); ++i) p.lit(hop_line(to_src.nodes[i], to_src.nodes[i - 1].outport, false));
    TraceNode from = to_src.nodes.back();
    from.outport = 0;
    iba::SMPNodeInfo dst_ni;
    reach(dst, &dst_ni);

    if (mlid_) {
      TraceResult r = t.multicast(from, dst_ni.nodeGUID(), mlid_);
      if (r.status != TraceStatus::Found) route_fail(r.detail, fail_msg);
      print_multicast(p, r);
      return;
    }
    TraceResult r = t.unicast(from, dst);
    if (r.status == TraceStatus::Found) {
      print_unicast(p, r.nodes, true);
      return;
    }
    // A partial route: the nodes reached, less the switch that forwards the
    // LID nowhere.
    std::vector<TraceNode> part = r.nodes;
    if (r.status == TraceStatus::BadEntry && part.size() > 1) part.pop_back();
    if (!part.empty()) part.back().outport = 0;
    print_unicast(p, part, false);
    route_fail(r.detail + "; can't find a route from src to dest", fail_msg);
  }

  // A unicast hop: the port left by, then the node entered and its port.
  std::string hop_line(const TraceNode& n, unsigned out, bool brief) const {
    if (brief) return strfmt("[%u] -> {0x%016" PRIx64 "}[%u]\n", out, uint64_t(n.ni.portGUID()), n.inport);
    return strfmt("[%u] -> %s port {0x%016" PRIx64 "}[%u] lid %u-%u \"%s\"\n", out, type_word(n),
               uint64_t(n.ni.portGUID()), n.inport, unsigned(n.lid), unsigned(n.lid) + (1u << n.lmc) - 1,
               name(n).c_str());
  }
  // A unicast end: "From"/"To" with the node's GUID and the port.
  std::string end_line(const char* what, const TraceNode& n) const {
    unsigned port = n.is_switch() ? 0 : n.inport;
    if (no_info_) return strfmt("%s {0x%016" PRIx64 "}[%u]\n", what, uint64_t(n.ni.nodeGUID()), port);
    return strfmt("%s %s {0x%016" PRIx64 "} portnum %u lid %u-%u \"%s\"\n", what, type_word(n),
               uint64_t(n.ni.nodeGUID()), port, unsigned(n.lid), unsigned(n.lid) + (1u << n.lmc) - 1,
               name(n).c_str());
  }

  // A hop of the route: {"nodeGUID", "portGUID", "nodeType", "nodeDescription",
  // "name", "LID", "LMC", "inPort" (the port entered by), "outPort" (left
  // by; 0 at the end)}, or its line of the reference's layout.
  template <class F>
  void hop(Printer& p, const TraceNode& n, unsigned inport, F line) const {
    const char* tn = iba::enums::name_of(iba::enums::node_types(), unsigned(n.ni.nodeType()));
    p.open_object().guid(PRINT_JSON, "nodeGUID", nullptr, n.ni.nodeGUID());
    p.guid(PRINT_JSON, "portGUID", nullptr, n.ni.portGUID());
    p.enumeration(PRINT_JSON, "nodeType", nullptr, tn ? tn : "Unknown", n.ni.nodeType());
    p.str(PRINT_JSON, "nodeDescription", nullptr, n.desc).str(PRINT_JSON, "name", nullptr, name(n));
    p.uint(PRINT_JSON, "LID", nullptr, n.lid).uint(PRINT_JSON, "LMC", nullptr, n.lmc);
    p.uint(PRINT_JSON, "inPort", nullptr, inport).uint(PRINT_JSON, "outPort", nullptr, n.outport);
    p.close_object().lit(line());
  }

  // --json: {"found": whether the route reached the destination, "hops":
  // [hop()'s objects]}.  A partial route is written too, and the run still
  // fails (stderr, status 255).  The text: the From line, a line a hop and
  // (when found) the To line.
  void print_unicast(Printer& p, const std::vector<TraceNode>& nodes, bool to) const {
    p.open_object().boolean(PRINT_JSON, "found", nullptr, to).open_array("hops");
    for (size_t i = 0; i < nodes.size(); ++i) {
      const TraceNode& n = nodes[i];
      if (i == 0) hop(p, n, n.is_switch() ? 0 : n.inport, [&] { return end_line("From", n); });
      else hop(p, n, n.inport, [&] { return hop_line(n, nodes[i - 1].outport, no_info_); });
    }
    if (to) p.lit(end_line("To", nodes.back()));
    p.close_array().close_object().finish();
  }

  // The multicast layout: the ends with the port the walk entered them by
  // ("MLID" in the document, and the first hop's "inPort" is that port).
  void print_multicast(Printer& p, const TraceResult& r) const {
    auto end = [&](const char* what, const TraceNode& n) {
      return strfmt("%s %s 0x%" PRIx64 " port %u lid %u-%u \"%s\"\n", what, type_word(n), uint64_t(n.ni.nodeGUID()),
                 n.inport, unsigned(n.lid), unsigned(n.lid) + (1u << n.lmc) - 1, name(n).c_str());
    };
    p.open_object().boolean(PRINT_JSON, "found", nullptr, true).uint(PRINT_JSON, "MLID", nullptr, mlid_);
    p.open_array("hops");
    for (size_t i = 0; i < r.nodes.size(); ++i) {
      const TraceNode& n = r.nodes[i];
      if (i == 0) {
        hop(p, n, n.inport, [&] { return end("From", n); });
        continue;
      }
      hop(p, n, n.inport, [&] {
        unsigned out = r.nodes[i - 1].outport;
        if (no_info_)
          return strfmt("[%u] -> %s {0x%016" PRIx64 "}[%u]\n", out, type_word(n), uint64_t(n.ni.nodeGUID()), n.inport);
        return strfmt("[%u] -> %s 0x%" PRIx64 "[%u] lid %u \"%s\"\n", out, type_word(n), uint64_t(n.ni.nodeGUID()),
                   n.inport, unsigned(n.lid), name(n).c_str());
      });
    }
    p.lit(end("To", r.nodes.back()));
    p.close_array().close_object().finish();
  }

  ibtool::TargetFlags flags_;
  bool force_ = false, no_info_ = false;
  unsigned mlid_ = 0;
  std::string ports_file_;
  std::vector<std::string> args_;
  NodeNameMap map_;
  std::unique_ptr<SmpSource> src_;
  std::optional<Subnet> db_;  // the fabric, discovered for an address given by name
};

}  // namespace

IBTOOL_COMMAND({.name = "ibtracert",
                .aliases = {},
                .summary = "trace the unicast or multicast route between two ports",
                .description =
                    "Walks the route from the source to the destination port with directed route SMPs, "
                    "reading at each switch the forwarding table entry of the destination LID (-m: the "
                    "multicast forwarding table of the MLID), and prints every hop.  -f keeps walking when "
                    "the destination does not answer by LID; --ports-file traces every pair of a file.  An "
                    "address is any target form (LID, GUID, GID, DR path) or a node description (or its name "
                    "in the node name map), which discovers the fabric to find its LID.  "
                    "--json (-j; --pretty indents; one trace): one document (its members and types: --json-schema), also for a partial route.",
                .usage = "[options] <src-addr> <dest-addr>",
                .examples = "  ibtracert 4 16\n"
                            "  ibtracert -n 4 16\n"
                            "  ibtracert -G 0x8f1040396522d 0x002c9000100d051\n"
                            "  ibtracert \"compute_001 HCA-1\" \"storage (io) 7\"\n"
                            "  ibtracert -m 0xc000 4 16",
                .make = [] { return std::make_unique<IbTracert>(); }});
