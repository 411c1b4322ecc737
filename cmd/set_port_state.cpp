// set_port_state: disable, enable or reset (to Init) a set of ports in one
// go, each switch reached by a directed route that crosses none of the
// links being changed.  So disabling a link never cuts off the route used
// to change the next port of the set, and a set that partitions the fabric
// works as long as every target is on this side of the partition (the
// design of python-rdma's set_port_state).
//
// Order of work: discover the subnet; resolve every TARGET[@PORT]; take the
// links of all those ports out of the graph; find a shortest DR path to
// each target node in what is left (only switches forward DR SMPs); read
// each port's PortInfo through its path; only when every target has a path
// and answered, send the SubnSets (PortPhysicalState Disabled or Polling,
// or PortState Down), each through its own path.
#include <cinttypes>
#include <cstdio>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "iba/refprint_smp.h"
#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/base/error.h"
#include "core/health/health.h"
#include "core/out/print.h"
#include "core/health/json_health.h"
#include "core/fabric/netcache.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/obtain.h"
#include "core/transport/path.h"
#include "core/rpc/rpc.h"
#include "core/fabric/subnet.h"
#include "core/transport/open.h"

namespace {

using namespace ibcore;
namespace H = ibcore::health;

// IBA PortInfo values written by a Set.
constexpr unsigned PHYS_POLLING = 2;   // PortPhysicalState: enable (the link trains)
constexpr unsigned PHYS_DISABLED = 3;  // PortPhysicalState: disable
constexpr unsigned STATE_DOWN = 1;     // PortState: down (the link retrains to Init)
constexpr size_t MAX_DR_HOPS = 63;

class SetPortState : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    auto* d = app.add_flag("--disable", disable_, "set PortPhysicalState to Disabled (the link goes down)");
    auto* e = app.add_flag("--enable", enable_, "set PortPhysicalState to Polling (the link trains and comes up)");
    auto* i = app.add_flag("--init", init_, "set PortState to Down: the link retrains and comes back in Init");
    d->excludes(e)->excludes(i);
    e->excludes(i);
    app.callback([this] {
      if (!disable_ && !enable_ && !init_) throw CLI::ValidationError("one of --disable, --enable, --init is required");
    });
    app.add_flag("-n,--dry-run", dry_run_, "resolve targets and paths, read the ports, change nothing");
    app.add_flag("-G", guid_form_, "targets are port GUIDs");
    app.add_flag("-D", dr_form_, "targets are DR paths");
    app.add_flag("-L", lid_form_, "targets are LIDs");
    app.add_option("targets", args_, "TARGET[@PORT]: a LID, port/node GUID, DR path or node description, "
                                     "then the port number (required for switches)")
        ->required();
    ibtool::add_common_options(app, config(), ibtool::opt::Smp | ibtool::opt::NodeNameMap |
                                        ibtool::opt::Outstanding | ibtool::opt::Json);
  }

private:
  struct Target {
    std::string arg;
    uint32_t node = NO_INDEX;
    unsigned port = 0;
    std::vector<uint8_t> hops;
    iba::SMPPortInfo before;
  };

  std::string name(uint32_t n) const { return map_.remap(db_.node(n).guid, db_.node(n).description()); }

  std::string where(const Target& t) const {
    H::Finding f;
    f.node = t.node;
    f.port = int(t.port);
    f.lid = H::port_lid(db_, db_.node(t.node), t.port);
    std::string s = H::describe(db_, f, name(t.node));  // ends in ": " (no finding text)
    return s.substr(0, s.size() - 2);
  }

  // TARGET[@PORT] -> node and port.
  Target resolve(const std::string& arg) {
    Target t;
    t.arg = arg;
    std::string what = arg;
    std::optional<unsigned> port;
    auto at = arg.rfind('@');
    if (at != std::string::npos) {
      what = arg.substr(0, at);
      uint64_t v = 0;
      if (!ibtool::parse_int(arg.substr(at + 1), v) || v > 254)
        throw Error("Bad port number in '" + arg + "' (TARGET@PORT)");
      port = unsigned(v);
    }
    if (what.empty()) throw Error("Missing target in '" + arg + "' (TARGET@PORT)");
    IBPath::Form form = guid_form_ ? IBPath::Form::GUID
                        : dr_form_ ? IBPath::Form::DR
                        : lid_form_ ? IBPath::Form::LID
                                    : IBPath::Form::Auto;
    uint32_t slot = NO_INDEX;
    std::optional<IBPath> p;
    try {
      p = IBPath::from_string(what, form);
    } catch (const Error&) {
      if (form != IBPath::Form::Auto) throw;
    }
    if (p) {
      if (p->is_dr()) {
        std::vector<uint8_t> h(p->drPath.begin() + 1, p->drPath.end());
        slot = db_.port_by_dr(h);
      } else if (p->DLID) {
        slot = db_.port_by_lid(p->DLID);
      } else {
        slot = db_.port_by_guid(p->DGID.guid());
        if (slot == NO_INDEX) {
          uint32_t n = db_.node_by_guid(p->DGID.guid());
          if (n != NO_INDEX) slot = db_.node(n).port0;
        }
      }
      if (slot == NO_INDEX) throw Error("No port in the subnet matches '" + what + "'");
      t.node = db_.port(slot).node;
    } else {
      // A node description (or its name in the node name map).
      for (uint32_t i = 0; i < db_.node_count(); ++i)
        if (name(i) == what || db_.node(i).description() == what) {
          if (t.node != NO_INDEX) throw Error("More than one node is named '" + what + "'");
          t.node = i;
        }
      if (t.node == NO_INDEX) throw Error("'" + what + "' is neither an address nor the name of a node in the subnet");
    }
    const Node& n = db_.node(t.node);
    if (!port) {
      if (n.is_switch())
        throw Error("Switch \"" + name(t.node) + "\": give the port number (" + what + "@PORT)");
      if (slot != NO_INDEX && db_.port(slot).num != 0) port = db_.port(slot).num;
      else if (n.nports == 1) port = 1;
      else
        throw Error("\"" + name(t.node) + "\" has " + std::to_string(n.nports) + " ports: give the port number (" +
                    what + "@PORT)");
    }
    if (*port == 0 || *port > n.nports)
      throw Error("\"" + name(t.node) + "\" has no port " + std::to_string(*port) +
                  (*port == 0 ? " with a link" : ""));
    t.port = *port;
    return t;
  }

  // Shortest DR path (hops after the local port) from the local node to
  // node `to` that uses none of the removed port slots; nullopt if none.
  std::optional<std::vector<uint8_t>> safe_path(uint32_t to, const std::vector<bool>& removed) const {
    const uint32_t from = db_.from_node;
    if (to == from) return std::vector<uint8_t>{};
    struct Prev {
      uint32_t node = NO_INDEX;
      uint8_t port = 0;
      bool seen = false;
    };
    std::vector<Prev> prev(db_.node_count());
    prev[from].seen = true;
    std::deque<std::pair<uint32_t, size_t>> q{{from, 0}};
    while (!q.empty()) {
      auto [u, depth] = q.front();
      q.pop_front();
      const Node& n = db_.node(u);
      if (depth >= MAX_DR_HOPS) continue;
      // The local node sends out of the local port only; other nodes
      // forward DR SMPs when they are switches.
      unsigned lo = 1, hi = n.nports;
      if (u == from && !n.is_switch()) lo = hi = db_.from_port;
      else if (u != from && !n.is_switch()) continue;
      for (unsigned p = lo; p <= hi; ++p) {
        uint32_t s = db_.port_index(u, p);
        if (s == NO_INDEX || removed[s]) continue;
        const Port& x = db_.port(s);
        if (x.peer == NO_INDEX || removed[x.peer]) continue;
        uint32_t v = db_.port(x.peer).node;
        if (prev[v].seen) continue;
        prev[v] = {u, uint8_t(p), true};
        if (v == to) {
          std::vector<uint8_t> hops;
          for (uint32_t w = v; w != from; w = prev[w].node) hops.insert(hops.begin(), prev[w].port);
          return hops;
        }
        q.push_back({v, depth + 1});
      }
    }
    return std::nullopt;
  }

  // Its work may fail anywhere (discovery, a MAD, a file): the library's report.
  bool reports_errors() const override { return true; }
  int run() override {
    map_ = NodeNameMap::open(config().node_name_map);
    ObtainOptions oo;
    oo.use_config_cache = false;  // the live graph only: a stale cache would give wrong paths
    // Directed route only: LID routes through links that are down (or were
    // just changed) stay broken until the SM reroutes.
    oo.discovery.mode = DiscoveryMode::DR;
    db_ = obtain_subnet(config(), oo);
    if (db_.from_node == NO_INDEX) throw Error("Discovery did not find the local node");

    std::vector<Target> ts;
    for (const auto& a : args_) ts.push_back(resolve(a));
    // Take every link being changed out of the graph (both ends).
    std::vector<bool> removed(db_.port_slots(), false);
    for (const auto& t : ts) {
      uint32_t s = db_.port_index(t.node, t.port);
      removed[s] = true;
      if (db_.port(s).peer != NO_INDEX) removed[db_.port(s).peer] = true;
    }
    for (auto& t : ts) {
      const Node& n = db_.node(t.node);
      // A CA or router is changed through the port itself (its SMA only
      // sets the port an SMP arrived on): only the local port qualifies.
      std::optional<std::vector<uint8_t>> hops;
      if (n.is_switch() || (t.node == db_.from_node && t.port == db_.from_port)) hops = safe_path(t.node, removed);
      if (!hops) {
        std::string msg = "No DR path to " + where(t) + " that avoids the links being changed";
        const Port& me = db_.port(n, t.port);
        if (me.peer != NO_INDEX) {
          const Port& peer = db_.port(me.peer);
          const Node& pn = db_.node_of(peer);
          if (pn.is_switch() && safe_path(peer.node, removed))
            msg += "; change its peer instead: \"" + name(peer.node) + "\" port " + std::to_string(peer.num) +
                   " (-G 0x" + hex_guid(pn.guid) + "@" + std::to_string(peer.num) + ")";
        }
        throw Error(msg);
      }
      t.hops = *hops;
    }

    auto owner = ibcore::open_transport(get_end_port(config().ca, config().port), config());
    ibcore::Transport& umad = *owner;
    MadTransactor mad(umad);
    for (auto& t : ts) {
      try {
        t.before = mad.SubnGet<iba::SMPPortInfo>(IBDRPath(t.hops), t.port);
      } catch (MADError& e) {
        e.annotate("Reading PortInfo of " + where(t) + " via DR path " + IBDRPath(t.hops).dr_string() + " failed.");
        throw;
      }
    }

    const char* done = disable_ ? "disabled" : enable_ ? "enabled" : "reset to Init";
    const char* would = disable_ ? "would disable" : enable_ ? "would enable" : "would reset to Init";
    int failed = 0;
    // --json: the text's lines as {"action", "dryRun", "ports": [{the
    // port's keys, "DRPath", "changed", "portState", "portPhysicalState"}]},
    // written when every port has been tried.  The text: a line a port
    // (none for a port that failed: its error is on stderr).
    Printer p;
    p.open_object().str(PRINT_JSON, "action", nullptr, disable_ ? "disable" : enable_ ? "enable" : "init");
    p.boolean(PRINT_JSON, "dryRun", nullptr, dry_run_).open_array("ports");
    auto port = [&](const Target& t, const IBDRPath& path, const char* verb, const iba::SMPPortInfo* state) {
      print_port_action(p, db_, t.node, t.port, map_, path, verb, "changed", !dry_run_ && state, state);
    };
    for (auto& t : ts) {
      IBDRPath path(t.hops);
      if (dry_run_) {
        port(t, path, would, &t.before);
        continue;
      }
      iba::SMPPortInfo set = t.before;
      // Leave everything else as it is (0 = no change for these).
      set.set_portState(init_ ? STATE_DOWN : 0);
      set.set_portPhysicalState(disable_ ? PHYS_DISABLED : enable_ ? PHYS_POLLING : 0);
      set.set_linkSpeedEnabled(0);
      set.set_linkWidthEnabled(0);
      try {
        iba::SMPPortInfo after = mad.SubnSet(set, path, t.port);
        port(t, path, done, &after);
      } catch (MADError& e) {
        e.annotate("Setting the state of " + where(t) + " via DR path " + path.dr_string() + " failed.");
        ibcore::report(e);
        ++failed;
        port(t, path, done, nullptr);
      }
      std::fflush(stdout);
    }
    p.close_array().close_object().finish();
    return failed ? 1 : 0;
  }

  static std::string hex_guid(uint64_t g) {
    char b[20];
    std::snprintf(b, sizeof b, "%016" PRIx64, g);
    return b;
  }

  bool disable_ = false, enable_ = false, init_ = false, dry_run_ = false;
  bool guid_form_ = false, dr_form_ = false, lid_form_ = false;
  std::vector<std::string> args_;
  Subnet db_;
  NodeNameMap map_;
};

}  // namespace

IBTOOL_COMMAND(
    {.name = "set_port_state",
     .aliases = {},
     .summary = "disable, enable or reset to Init a set of ports, by paths that avoid the links being changed",
     .description =
         "Changes the state of every port named on the command line.  A port is TARGET@PORT: TARGET is a LID, "
         "a port or node GUID, a DR path (0,1,3) or a node description; @PORT is the port number, which may be "
         "left out for a CA or router port named by its own LID, GUID or DR path.  Exactly one action: "
         "--disable (PortPhysicalState Disabled), --enable (PortPhysicalState Polling: the link trains and "
         "comes up) or --init (PortState Down: the link retrains and comes back in Init, blocking all but "
         "management traffic until the SM activates it).\n\n"
         "The subnet is discovered first; the links of all the ports of the set are then taken out of the "
         "graph and every target is reached by a shortest directed route over what is left, so disabling a "
         "link never cuts off the route used to change the other ports (a set that partitions the fabric "
         "works when all its targets are on the local side).  Switch ports are changed through the switch; a "
         "CA or router port only when it is the local port (its SMA only changes the port an SMP arrives on); "
         "for a remote CA port the error names the switch port at the other end of the link to use instead.  "
         "Nothing is changed unless every target has such a route and its PortInfo could be read.\n\n"
         "Output: one line per port, in command line order:\n"
         "  \"<node description>\" (0x<node GUID>) port <n> lid <lid>: <disabled|enabled|reset to Init> via "
         "DR path <path>, now <PortState>/<PortPhysicalState>\n"
         "where the states are those of the SubnSet reply.  With -n/--dry-run the action reads \"would "
         "disable\" (\"would enable\", \"would reset to Init\") and the states are the current ones.  A port "
         "whose SubnSet failed is reported on stderr and the others are still changed.  Exit status: 0 when "
         "every port was changed, 1 when a SubnSet failed, 255 when a target or route could not be found or "
         "read (nothing changed).\n\n"
         "--json (-j; --pretty indents): one document (its members and types: --json-schema); errors on stderr "
         "with the same exit status.",
     .usage = "[options] --disable|--enable|--init TARGET[@PORT]...",
     .examples = "  set_port_state --disable 2@3 3@5          # LID 2 port 3 and LID 3 port 5\n"
                 "  set_port_state --enable -D 0,1@3\n"
                 "  set_port_state --init -n Switch1@5",
     .make = [] { return std::make_unique<SetPortState>(); },
     .own = true});
