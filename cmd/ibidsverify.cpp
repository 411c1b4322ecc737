// ibidsverify: check the subnet's IDs: GUIDs unique and non-zero (with a
// live probe for a node discovery could not place because its GUID is
// already taken), LIDs assigned to active ports, LID ranges (with LMC)
// aligned and not overlapping.
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/base/error.h"
#include "core/health/health.h"
#include "core/out/json.h"
#include "core/health/json_health.h"
#include "core/fabric/netcache.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/obtain.h"
#include "core/rpc/sched.h"
#include "core/transport/transport.h"

namespace {

using namespace ibcore;
namespace H = ibcore::health;

class IbIdsVerify : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_flag("-b,--brief", brief_, "leave out the summary line");
    app.add_flag("-N,--nocolor", nocolor_, "accepted for compatibility");
    app.add_flag("-R", rediscover_, "accepted for compatibility (the subnet is always discovered unless --cache)");
    ibtool::add_common_options(app, config(), ibtool::opt::Disc | ibtool::opt::Json);
  }
  // Its work may fail anywhere (discovery, a MAD, a file): the library's report.
  bool reports_errors() const override { return true; }
  int run() override {
    Subnet db = obtain_subnet(config());
    NodeNameMap map = NodeNameMap::open(config().node_name_map);
    std::vector<H::Finding> found = H::check_ids(db);
    if (db.cache_file.empty()) {  // (a cached database: its nodes are not asked)
      H::PmSession ses(config(), false, false);
      H::probe_duplicate_guids(ses.sched(), db, found);
      ses.sched().run();
    }
    std::set<uint32_t> bad;
    bool json = json_enabled();
    TextOut o(stdout);
    JsonOut j(o, json_pretty());
    if (json) j.obj().key("findings").arr();
    for (const auto& f : found) {
      if (json) {
        json_finding(j, db, f, map);
        continue;
      }
      std::string nm = f.node == NO_INDEX ? "" : map.remap(db.node(f.node).guid, db.node(f.node).description());
      std::printf("%s\n", H::describe(db, f, nm).c_str());
      if (f.node != NO_INDEX) bad.insert(f.node);
    }
    size_t ports = 0;
    for (uint32_t i = 0; i < db.node_count(); ++i) {
      const Node& n = db.node(i);
      if (n.is_switch()) ports += db.port(n, 0).exists;
      else
        for (unsigned p = 1; p <= n.nports; ++p) ports += db.port(n, p).exists;
    }
    if (json) {
      j.end().key("summary").obj().kv("nodes", db.node_count()).kv("endPortsChecked", ports);
      j.kv("problems", found.size()).end().end().finish();
    } else if (!brief_)
      std::printf("## Summary: %zu nodes, %zu end ports checked, %zu problems found\n", db.node_count(), ports,
                  found.size());
    return found.empty() ? 0 : 1;
  }

private:
  bool brief_ = false, nocolor_ = false, rediscover_ = false;
};

}  // namespace

IBTOOL_COMMAND({.name = "ibidsverify",
                .aliases = {"ibidsverify.pl"},
                .summary = "check that the subnet's GUIDs and LIDs are unique and valid",
                .description =
                    "Discovers the subnet and checks its IDs: node and port GUIDs non-zero and unique (a node "
                    "whose GUID another node already has is found by reading NodeInfo through every LinkUp port "
                    "whose peer discovery could not place), every active end port has a valid unicast LID, base "
                    "LIDs are aligned to their LMC and no two ports' LID ranges (base .. base + 2^LMC - 1) "
                    "overlap.  One line per problem: \"<node description>\" (0x<node GUID>) port <n> lid "
                    "<lid>: <problem>, then \"## Summary: N nodes, P end ports checked, F problems found\".  "
                    "Exit status 1 when a problem was found.  --json (-j; --pretty indents): {\"findings\": "
                    "[{\"nodeGUID\", \"name\", \"nodeDescription\", \"portNum\", \"LID\" (each when the "
                    "problem names it), \"finding\", \"detail\"}], \"summary\": {\"nodes\", "
                    "\"endPortsChecked\", \"problems\"}} (-b changes nothing in it).",
                .usage = "[options]",
                .examples = "  ibidsverify",
                .make = [] { return std::make_unique<IbIdsVerify>(); }});
