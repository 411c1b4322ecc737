// ibidsverify: check the subnet's IDs: GUIDs unique and non-zero (with a
// live probe for a node discovery could not place because its GUID is
// already taken), LIDs assigned to active ports, LID ranges (with LMC)
// aligned and not overlapping.
#include <cstdio>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/health_options.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/base/error.h"
#include "core/health/health.h"
#include "core/health/json_health.h"
#include "core/fabric/netcache.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/obtain.h"
#include "core/rpc/sched.h"
#include "core/transport/transport.h"

namespace {

using namespace ibcore;
namespace H = ibcore::health;

class IbIdsVerify : public ibtool::HealthCommand {
public:
  IbIdsVerify()
      : HealthCommand("leave out the summary line", "accepted for compatibility", ibtool::opt::Disc | ibtool::opt::Json) {}
  void own_options(CLI::App& app) override {
    app.add_flag("-R", rediscover_, "accepted for compatibility (the subnet is always discovered unless --cache)");
  }
  int run() override {
    Subnet db = obtain_subnet(config());
    NodeNameMap map = NodeNameMap::open(config().node_name_map);
    std::vector<H::Finding> found = H::check_ids(db);
    if (db.cache_file.empty()) {  // (a cached database: its nodes are not asked)
      H::PmSession ses(config(), false, false);
      H::probe_duplicate_guids(ses.sched(), db, found);
      ses.sched().run();
    }
    // {"findings": [print_finding's objects], "summary": {"nodes",
    // "endPortsChecked", "problems"}}; the text: a line a finding, then
    // the summary line (not with -b).
    Printer p;
    p.open_object().open_array("findings");
    for (const auto& f : found) print_finding(p, db, f, map);
    p.close_array();
    size_t ports = 0;
    for (uint32_t i = 0; i < db.node_count(); ++i) {
      const Node& n = db.node(i);
      if (n.is_switch()) ports += db.port(n, 0).exists;
      else
        for (unsigned pn = 1; pn <= n.nports; ++pn) ports += db.port(n, pn).exists;
    }
    const PrintKind summary = brief_ ? PRINT_JSON : PRINT_ANY;
    p.open_object("summary").uint(summary, "nodes", "## Summary: %u nodes", db.node_count());
    p.uint(summary, "endPortsChecked", ", %u end ports checked", ports);
    p.uint(summary, "problems", ", %u problems found\n", found.size()).close_object();
    p.close_object().finish();
    return found.empty() ? 0 : 1;
  }

private:
  bool rediscover_ = false;
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
                    "Exit status 1 when a problem was found.  --json (-j; --pretty indents): one document (its members and types: --json-schema) (-b changes nothing in it).",
                .usage = "[options]",
                .examples = "  ibidsverify",
                .make = [] { return std::make_unique<IbIdsVerify>(); }});
