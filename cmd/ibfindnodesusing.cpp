// ibfindnodesusing (+.pl): which destinations the forwarding tables route
// through a link, in both directions: the LIDs the given switch forwards out
// of the given port, and (when the other end is a switch) the LIDs that
// switch forwards back over the same link.  The reference no longer ships
// it; the output is ibtool's own, one LID a line, sorted.
#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/fabric/discovery.h"
#include "core/fabric/tableread.h"
#include "core/base/error.h"
#include "core/health/health.h"
#include "core/out/print.h"
#include "core/fabric/netcache.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/obtain.h"
#include "core/transport/open.h"
#include "iba/introspect.h"
#include "core/out/log.h"

namespace {

using namespace ibcore;

class IbFindNodesUsing : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_option("switch", switch_, "the switch: node GUID, node name, LID, DR path or port GUID")->required();
    app.add_option("port", port_, "the switch port")->required();
    ibtool::add_common_options(app, config(), ibtool::opt::Smp | ibtool::opt::Discovery | ibtool::opt::Cache |
                                        ibtool::opt::NodeNameMap | ibtool::opt::Outstanding | ibtool::opt::Config |
                                        ibtool::opt::Json | ibtool::opt::Strict);
  }

  // Its work may fail anywhere (discovery, a MAD, a file): the library's report.
  bool reports_errors() const override { return true; }
  int run() override {
    Subnet db = obtain_subnet(config());
    NodeNameMap map = NodeNameMap::open(config().node_name_map);
    uint32_t sw = health::find_node(db, map, switch_, NodeType::Switch);
    if (sw == NO_INDEX) {
      ibcore::log::error("E: switch %s not found\n", switch_.c_str());
      return 1;
    }
    const Node& s = db.node(sw);
    if (port_ < 1 || unsigned(port_) > s.nports) {
      ibcore::log::error("E: switch %s has no port %d\n", switch_.c_str(), port_);
      return 1;
    }
    const Port* r = db.peer(db.port(s, unsigned(port_)));
    std::vector<uint32_t> need{sw};
    if (r && db.node_of(*r).is_switch()) need.push_back(r->node);
    bool missing = false;
    for (uint32_t n : need)
      if (!db.find_tables(n) || !db.find_tables(n)->lft_valid) missing = true;
    if (missing) {
      const EndPort& ep = get_end_port(config().ca, config().port);
      auto owner = open_transport(ep, config());
      Transport& umad = *owner;
      Scheduler sched(umad, unsigned(std::max(0, config().outstanding)));
      DiscoveryResult res;
      read_switch_tables(sched, db, need, true, false, discovery_mode(config()), &res);
      for (auto& e : res.errors) ibcore::log::warn("W: %s\n", e.c_str());
      if (!config().cache_file.empty()) save_cache(db, config().cache_file, CacheFormat::Ibtool);
    }
    bool back = r && db.node_of(*r).is_switch();
    Printer p;
    p.open_object().open_array("directions");
    direction(p, db, map, sw, unsigned(port_));
    if (back) direction(p, db, map, r->node, r->num);
    p.close_array().close_object().finish();
    return strict_status(db, sw, r, back);
  }

  // --strict: a link no LID is routed through (or whose forwarding tables
  // could not be read) fails.
  int strict_status(const Subnet& db, uint32_t sw, const Port* r, bool back) const {
    auto lids = [&](uint32_t n, unsigned port) {
      const SwitchTables* t = db.find_tables(n);
      return t && t->lft_valid ? size_t(std::count(t->lft.begin() + (t->lft.empty() ? 0 : 1), t->lft.end(), port)) : 0;
    };
    if (lids(sw, unsigned(port_)) + (back ? lids(r->node, r->num) : 0)) return 0;
    return ibtool::strict_exit(config(), 0, "no LID is routed through the link");
  }

  // A node's keys: "nodeGUID", "name", "nodeDescription" and "portNum"
  // (port >= 0); the text shows the GUID (guid_fmt, if any), the name
  // quoted and the port.
  static void node_keys(Printer& p, const Subnet& db, const NodeNameMap& map, uint32_t node, int port,
                        const char* guid_fmt) {
    const Node& n = db.node(node);
    std::string d = n.description();
    p.guid(guid_fmt ? PRINT_ANY : PRINT_JSON, "nodeGUID", guid_fmt, n.guid).str(PRINT_ANY, "name", " \"%s\"", map.remap(n.guid, d));
    p.str(PRINT_JSON, "nodeDescription", nullptr, d);
    if (port >= 0) p.uint(PRINT_ANY, "portNum", " port %u", unsigned(port));
  }

  // One direction of the link: {"switch": {node keys}, "remote": the same
  // of the other end (or null), "lftAvailable", "destinations": [{"LID",
  // then "portGUID" and the node keys ("portNum" not for a switch) when a
  // port has the LID}]}; the text: the link's line, then a line a LID.
  static void direction(Printer& p, const Subnet& db, const NodeNameMap& map, uint32_t sw, unsigned port) {
    const Node& s = db.node(sw);
    const SwitchTables* t = db.find_tables(sw);
    p.open_object().open_object("switch");
    node_keys(p, db, map, sw, int(port), "Switch 0x%016x");
    p.close_object();
    if (const Port* r = db.peer(db.port(s, port))) {
      p.open_object("remote");
      node_keys(p, db, map, r->node, int(r->num), " -> 0x%016x");
      p.close_object();
    } else {
      p.null("remote");
    }
    p.text(":\n");
    bool have = t && t->lft_valid;
    p.boolean(PRINT_JSON, "lftAvailable", nullptr, have).open_array("destinations");
    if (!have) p.text("  (forwarding table not available)\n");
    for (size_t lid = 1; have && lid < t->lft.size(); ++lid) {
      if (t->lft[lid] != port) continue;
      p.open_object().uint(PRINT_ANY, "LID", "  lid %u", lid);
      uint32_t pi = db.port_by_lid(uint16_t(lid));
      if (pi == NO_INDEX) {
        p.text(" (no port known)");
      } else {
        const Port& dp = db.port(pi);
        p.guid(PRINT_ANY, "portGUID", " 0x%016x", dp.guid);
        // (the text shows the port's GUID, not its node's)
        node_keys(p, db, map, dp.node, db.node_of(dp).is_switch() ? -1 : int(dp.num), nullptr);
      }
      p.text("\n").close_object();
    }
    p.close_array().close_object();
  }

private:
  std::string switch_;
  int port_ = 0;
};

}  // namespace

IBTOOL_COMMAND({.name = "ibfindnodesusing",
                .aliases = {"ibfindnodesusing.pl"},
                .summary = "list the destinations routed through a switch port, both directions",
                .description =
                    "Reads the linear forwarding table of the switch (and of the switch at the other end "
                    "of the link) and lists every LID routed out of the port (and back over the link), "
                    "with the port and node it belongs to.  --json (-j; --pretty indents): one document (its members and types: --json-schema).",
                .usage = "[options] <switch_guid|switch_name|lid|dr_path> <port>",
                .examples = "  ibfindnodesusing \"edge p0 e0\" 5",
                .make = [] { return std::make_unique<IbFindNodesUsing>(); }});
