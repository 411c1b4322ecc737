// init_all_ports: drop every link of the subnet back to Init (python-rdma's
// tool for recovering a subnet from a deadlock or other fabric trouble: in
// Init a link carries management traffic only, until the SM activates it
// again).
//
// Each link is reset once, by a SubnSet of PortInfo with PortState Down to
// one of its ends (the link retrains and both ends come back in Init).  The
// SMPs go by directed route along the paths discovery found, which form a
// tree rooted at the local port: a link is reset only after every link
// beyond it, so no reset can cut off a route that is still needed.  Links
// that are not on any route are reset first (all at once), then the tree
// links level by level from the deepest up, each level in parallel; the
// local port's own link is last.
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "iba/refprint_smp.h"
#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/fabric/discovery.h"
#include "core/base/error.h"
#include "core/health/health.h"
#include "core/out/print.h"
#include "core/health/json_health.h"
#include "core/fabric/netcache.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/obtain.h"
#include "core/rpc/sched.h"
#include "core/fabric/subnet.h"
#include "core/transport/open.h"
#include "core/out/log.h"

namespace {

using namespace ibcore;
namespace H = ibcore::health;

constexpr unsigned STATE_DOWN = 1, STATE_INIT = 2;

class InitAllPorts : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_flag("-n,--dry-run", dry_run_, "list the links that would be reset, change nothing");
    app.add_flag("-b,--brief", brief_, "leave out the summary line");
    ibtool::add_common_options(app, config(), ibtool::opt::Smp | ibtool::opt::NodeNameMap |
                                        ibtool::opt::Outstanding | ibtool::opt::Json);
  }

private:
  // One link to reset: the SMP goes to `node` (reached by its DR path) and
  // sets port `port`.
  struct Reset {
    uint32_t node;
    unsigned port;
    int level;  // order of work: higher first
  };

  std::string name(uint32_t n) const { return map_.remap(db_.node(n).guid, db_.node(n).description()); }

  std::string where(uint32_t node, unsigned port) const {
    H::Finding f;
    f.node = node;
    f.port = int(port);
    f.lid = H::port_lid(db_, db_.node(node), port);
    std::string s = H::describe(db_, f, name(node));  // ends in ": " (no finding text)
    return s.substr(0, s.size() - 2);
  }

  // Whether an SMP can be sent to node n along its discovery path and then
  // set one of its ports: switches always; a CA or router only for the
  // port it is reached by (its SMA sets only that port), i.e. the local
  // port of the local node.
  bool can_set(uint32_t n, unsigned port) const {
    const Node& x = db_.node(n);
    if (x.is_switch()) return true;
    return n == db_.from_node && port == db_.from_port;
  }

  // Its work may fail anywhere (discovery, a MAD, a file): the library's report.
  bool reports_errors() const override { return true; }
  int run() override {
    map_ = NodeNameMap::open(config().node_name_map);
    ObtainOptions oo;
    oo.use_config_cache = false;  // live state only
    // Directed route only: LID routes through links that are down (or were
    // just changed) stay broken until the SM reroutes.
    oo.discovery.mode = DiscoveryMode::DR;
    db_ = obtain_subnet(config(), oo);
    if (db_.from_node == NO_INDEX) throw Error("Discovery did not find the local node");

    // The tree of discovery paths: a node's path is its parent's plus one
    // hop, so the link into a node is the tree link at the node's depth.
    std::vector<uint32_t> tree_link(db_.port_slots(), 0);  // port slot -> depth + 1 of the child (0: not a tree link)
    for (uint32_t i = 0; i < db_.node_count(); ++i) {
      const auto& dr = db_.node(i).dr;
      if (i == db_.from_node || dr.empty()) continue;
      std::vector<uint8_t> up(dr.begin(), dr.end() - 1);
      uint32_t parent_slot = up.empty() ? db_.port_index(db_.from_node, db_.from_port) : db_.port_by_dr(up);
      if (parent_slot == NO_INDEX) continue;
      uint32_t out = db_.port_index(db_.port(parent_slot).node, dr.back());
      if (out == NO_INDEX || db_.port(out).peer == NO_INDEX) continue;
      tree_link[out] = tree_link[db_.port(out).peer] = uint32_t(dr.size());
    }

    std::vector<Reset> todo;
    size_t links = 0, skipped = 0, unreachable = 0;
    std::vector<std::pair<uint32_t, unsigned>> problem_ports;  // links no end of which can be reset
    for (uint32_t s = 0; s < db_.port_slots(); ++s) {
      const Port& a = db_.port(s);
      if (a.peer == NO_INDEX || a.peer < s || a.num == 0) continue;  // each link once
      const Port& b = db_.port(a.peer);
      ++links;
      unsigned sa = a.has_info ? a.state() : 0, sb = b.has_info ? b.state() : 0;
      if ((sa == STATE_DOWN || sa == STATE_INIT) && (sb == STATE_DOWN || sb == STATE_INIT) && a.has_info &&
          b.has_info) {
        ++skipped;  // already in Init
        continue;
      }
      uint32_t depth = tree_link[s];
      Reset r{NO_INDEX, 0, 0};
      if (depth) {
        // A tree link: through the parent end (the shallower node).
        const Port& parent = db_.node(a.node).dr.size() < db_.node(b.node).dr.size() ||
                                     (a.node == db_.from_node)
                                 ? a
                                 : b;
        if (can_set(parent.node, parent.num)) r = {parent.node, parent.num, int(depth)};
      } else {
        // Off the tree: either end, neither route uses it; reset these first.
        if (can_set(a.node, a.num)) r = {a.node, a.num, 1 << 20};
        else if (can_set(b.node, b.num)) r = {b.node, b.num, 1 << 20};
      }
      if (r.node == NO_INDEX) {
        ++unreachable;
        problem_ports.push_back({a.node, a.num});
        continue;
      }
      todo.push_back(r);
    }
    std::stable_sort(todo.begin(), todo.end(), [](const Reset& x, const Reset& y) { return x.level > y.level; });

    auto owner = ibcore::open_transport(get_end_port(config().ca, config().port), config());
    ibcore::Transport& umad = *owner;
    Scheduler sched(umad);
    size_t done = 0, failed = 0;
    std::vector<std::string> errors(todo.size());
    std::vector<std::optional<iba::SMPPortInfo>> states(todo.size());  // the reply's (-n: the current)
    auto one = [&](size_t i) -> Task<> {
      const Reset& r = todo[i];
      IBDRPath path(db_.node(r.node).dr);
      try {
        iba::SMPPortInfo pi = co_await sched.SubnGet<iba::SMPPortInfo>(path, r.port);
        if (dry_run_) {
          states[i] = pi;
          co_return;
        }
        pi.set_portState(STATE_DOWN);
        pi.set_portPhysicalState(0);
        pi.set_linkSpeedEnabled(0);
        pi.set_linkWidthEnabled(0);
        iba::SMPPortInfo after = co_await sched.SubnSet(pi, path, r.port);
        states[i] = after;
        ++done;
      } catch (MADError& e) {
        e.annotate("Resetting " + where(r.node, r.port) + " via DR path " + path.dr_string() + " failed.");
        errors[i] = e.dump_str(config().verbose);
        ++failed;
      }
    };
    // {"dryRun", "resets": [{the end's "nodeGUID", "name", "nodeDescription",
    // "portNum", "LID", "DRPath", "ok", "portState", "portPhysicalState"}],
    // "notResettable": [an end of each such link], "summary": {...}}, written
    // when the run is over; the text: a line a port reset (a level at a
    // time), a line a link that cannot be, the summary (not with -b).
    Printer p(stdout, Printer::Doc::Whole);
    p.open_object().boolean(PRINT_JSON, "dryRun", nullptr, dry_run_).open_array("resets");
    auto reset = [&](size_t i) {
      const Reset& r = todo[i];
      print_port_action(p, db_, r.node, r.port, map_, IBDRPath(db_.node(r.node).dr),
                        dry_run_ ? "would reset to Init" : "reset to Init", "ok", states[i].has_value(),
                        states[i] ? &*states[i] : nullptr);
    };
    // One level at a time: a level's routes use only links of lower levels.
    for (size_t i = 0; i < todo.size();) {
      size_t j = i;
      while (j < todo.size() && todo[j].level == todo[i].level) sched.spawn(one(j++));
      sched.run();
      for (; i < j; ++i) {
        reset(i);
        if (!errors[i].empty()) ibcore::log::text(ibcore::log::Level::info, errors[i].c_str());
      }
      std::fflush(stdout);
    }
    p.close_array().open_array("notResettable");
    for (auto [n, pn] : problem_ports) {
      p.open_object();
      print_port_keys(p, db_, n, int(pn), H::port_lid(db_, db_.node(n), pn), map_);
      p.text(": no end of this link can be reset by this tool (CA to CA link)\n").close_object();
    }
    const PrintKind k = brief_ ? PRINT_JSON : PRINT_ANY;
    p.close_array().open_object("summary").uint(k, "links", "## Summary: %u links", links);
    if (dry_run_) p.uint(k, "wouldReset", ", %u would be reset", todo.size() - failed);
    else p.uint(k, "reset", ", %u reset to Init", done);
    p.uint(k, "alreadyInit", ", %u already in Init", skipped).uint(k, "failed", ", %u failed", failed);
    p.uint(k, "notResettable", ", %u not resettable\n", unreachable).close_object();
    p.close_object().finish();
    return failed || unreachable ? 1 : 0;
  }

  bool dry_run_ = false, brief_ = false;
  Subnet db_;
  NodeNameMap map_;
};

}  // namespace

IBTOOL_COMMAND(
    {.name = "init_all_ports",
     .aliases = {},
     .summary = "drop every link of the subnet back to Init (recovery from deadlock and other fabric trouble)",
     .description =
         "Resets every link of the subnet that is Armed or Active to Init, so that it carries management "
         "traffic only until the SM activates it again: a way to recover a subnet from a credit deadlock or "
         "other fabric trouble.  Each link is reset once, by setting PortState Down on one of its ends through "
         "a switch (or on the local port): the link retrains and both ends come back in Init.\n\n"
         "The subnet is discovered first.  The SMPs go by the directed routes discovery used, which form a "
         "tree rooted at the local port; links off that tree are reset first, then the tree links from the "
         "deepest level up (each level in parallel), the local port's link last, so no reset cuts off a "
         "route still needed.  On real hardware a link may take a moment to retrain; run the command again "
         "if some links were unreachable.  Links already in Init (or Down) are left alone.\n\n"
         "Output: one line per link reset, deepest first:\n"
         "  \"<node description>\" (0x<node GUID>) port <n> lid <lid>: reset to Init via DR path <path>, now "
         "<PortState>/<PortPhysicalState>\n"
         "(the end the SMP went to; the states of its SubnSet reply), a line per link neither end of which "
         "can be reset (a link between two CAs away from the local port), then\n"
         "  ## Summary: <L> links, <R> reset to Init, <I> already in Init, <F> failed, <U> not resettable\n"
         "With -n/--dry-run nothing is changed: each line reads \"would reset to Init\" with the current states "
         "and the summary \"<R> would be reset\".  Failures are reported on stderr.  Exit status: 0 when "
         "every link was reset or already in Init, 1 otherwise.\n\n"
         "--json (-j; --pretty indents): one document (its members and types: --json-schema) (-b changes nothing in it).",
     .usage = "[options]",
     .examples = "  init_all_ports -n\n  init_all_ports",
     .make = [] { return std::make_unique<InitAllPorts>(); },
     .own = true});
