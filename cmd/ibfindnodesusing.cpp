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
#include "core/base/error.h"
#include "core/health/health.h"
#include "core/out/json.h"
#include "core/health/json_health.h"
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
    if (json_enabled()) {
      TextOut o(stdout);
      JsonOut j(o, json_pretty());
      j.obj().key("directions").arr();
      json_direction(j, db, map, sw, unsigned(port_));
      if (back) json_direction(j, db, map, r->node, r->num);
      j.end().end().finish();
      return strict_status(db, sw, r, back);
    }
    print(db, map, sw, unsigned(port_));
    if (back) print(db, map, r->node, r->num);
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

  // --json, one direction of the link: {"switch": {"nodeGUID", "name",
  // "nodeDescription", "portNum"}, "remote": the same of the other end (or
  // null), "lftAvailable", "destinations": [{"LID", then "portGUID",
  // "nodeGUID", "name", "nodeDescription" and "portNum" (not for a switch)
  // when a port has the LID}]}.
  static void json_direction(JsonOut& j, const Subnet& db, const NodeNameMap& map, uint32_t sw, unsigned port) {
    const Node& s = db.node(sw);
    const SwitchTables* t = db.find_tables(sw);
    j.obj().key("switch").obj();
    json_port_keys(j, db, sw, int(port), 0, map);
    j.end().key("remote");
    if (const Port* r = db.peer(db.port(s, port))) {
      j.obj();
      json_port_keys(j, db, r->node, int(r->num), 0, map);
      j.end();
    } else {
      j.null();
    }
    bool have = t && t->lft_valid;
    j.kb("lftAvailable", have).key("destinations").arr();
    for (size_t lid = 1; have && lid < t->lft.size(); ++lid) {
      if (t->lft[lid] != port) continue;
      j.obj().kv("LID", lid);
      uint32_t pi = db.port_by_lid(uint16_t(lid));
      if (pi != NO_INDEX) {
        const Port& p = db.port(pi);
        j.kguid("portGUID", p.guid);
        json_port_keys(j, db, p.node, db.node_of(p).is_switch() ? -1 : int(p.num), 0, map);
      }
      j.end();
    }
    j.end().end();
  }

  static void print(const Subnet& db, const NodeNameMap& map, uint32_t sw, unsigned port) {
    const Node& s = db.node(sw);
    const SwitchTables* t = db.find_tables(sw);
    std::printf("Switch 0x%016" PRIx64 " \"%s\" port %u", s.guid, map.remap(s.guid, s.description()).c_str(), port);
    if (const Port* r = db.peer(db.port(s, port))) {
      const Node& rn = db.node_of(*r);
      std::printf(" -> 0x%016" PRIx64 " \"%s\" port %u", rn.guid, map.remap(rn.guid, rn.description()).c_str(),
                  unsigned(r->num));
    }
    std::printf(":\n");
    if (!t || !t->lft_valid) {
      std::printf("  (forwarding table not available)\n");
      return;
    }
    for (size_t lid = 1; lid < t->lft.size(); ++lid) {
      if (t->lft[lid] != port) continue;
      uint32_t pi = db.port_by_lid(uint16_t(lid));
      if (pi == NO_INDEX) {
        std::printf("  lid %zu (no port known)\n", lid);
        continue;
      }
      const Port& p = db.port(pi);
      const Node& n = db.node_of(p);
      std::printf("  lid %zu 0x%016" PRIx64 " \"%s\"", lid, p.guid, map.remap(n.guid, n.description()).c_str());
      if (!n.is_switch()) std::printf(" port %u", unsigned(p.num));
      std::printf("\n");
    }
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
                    "with the port and node it belongs to.  --json (-j; --pretty indents): {\"directions\": [the "
                    "switch port's direction, then the other switch's back over the link: {\"switch\": "
                    "{\"nodeGUID\", \"name\", \"nodeDescription\", \"portNum\"}, \"remote\": the same of "
                    "the other end or null, \"lftAvailable\", \"destinations\": [{\"LID\", and when a port "
                    "has it \"portGUID\", \"nodeGUID\", \"name\", \"nodeDescription\", \"portNum\" (not "
                    "for a switch)}]}]}.",
                .usage = "[options] <switch_guid|switch_name|lid|dr_path> <port>",
                .examples = "  ibfindnodesusing \"edge p0 e0\" 5",
                .make = [] { return std::make_unique<IbFindNodesUsing>(); }});
