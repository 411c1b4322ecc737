// ibclearcounters / ibclearerrors: clear the PortCounters (all, or only the
// error counters) of every port of the subnet, all nodes at once.
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/health_options.h"
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

class IbClear : public ibtool::HealthCommand {
public:
  explicit IbClear(bool all) : HealthCommand(nullptr), all_(all) {}
  int run() override {
    Subnet db = obtain_subnet(config());
    NodeNameMap map = NodeNameMap::open(config().node_name_map);
    H::PmSession ses(config());
    H::PmAccess& pm = ses.pm();
    pm.use_subnet(&db);
    Scheduler& sched = ses.sched();
    // The fabric counter scan's PMA capabilities and clears.
    H::PortCountersReader reader(pm);
    unsigned nodes = 0, ports = 0, failed = 0, gone = 0;
    struct Failure {
      uint32_t node;
      unsigned port;
      uint16_t lid;
      std::string error;
    };
    std::vector<Failure> fails;
    auto one = [&](uint32_t ni) -> Task<> {
      // (a named std::function: a temporary passed to a coroutine is one
      // GCC's coroutines may lose)
      const std::function<void(uint16_t, unsigned, const MADError*)> done = [&](uint16_t lid, unsigned p,
                                                                                const MADError* e) {
        if (!e) {
          ++ports;
          return;
        }
        ++failed;
        fails.push_back({ni, p, lid, "clearing failed: " + e->layers().back()});
      };
      H::Cleared c = co_await H::clear_node(reader, db, ni, map, all_ ? 0xffff : H::SELECT_ERRORS, all_, done);
      if (c == H::Cleared::Gone) ++gone;
      else if (c == H::Cleared::Done) ++nodes;
    };
    for (uint32_t i = 0; i < db.node_count(); ++i) sched.spawn(one(i));
    sched.run();
    // {"cleared": "all"|"errors", "failures": [{the port's keys, "error"}],
    // "summary": {"nodes", "portsCleared", "failed", "goneNodes"}}; the
    // text: a line a failed port, then the summary.
    Printer p;
    p.open_object().str(PRINT_JSON, "cleared", nullptr, all_ ? "all" : "errors").open_array("failures");
    for (auto& f : fails) {
      const Node& n = db.node(f.node);
      p.open_object();
      print_port_keys(p, db, f.node, int(f.port), f.lid, map, false);
      p.text("\"%s\" port %u lid %u: ", map.remap(n.guid, n.description()).c_str(), f.port, unsigned(f.lid));
      p.str(PRINT_ANY, "error", "%s\n", f.error).close_object();
    }
    p.close_array().open_object("summary").text("## Summary: ");
    p.uint(PRINT_ANY, "nodes", "%u nodes, ", nodes).uint(PRINT_ANY, "portsCleared", "%u ports ", ports);
    p.text("%s", all_ ? "counters cleared" : "error counters cleared").uint(PRINT_ANY, "failed", ", %u failed\n", failed);
    p.uint(gone ? PRINT_ANY : PRINT_JSON, "goneNodes", "##          %u nodes of the cache gone from the fabric\n", gone);
    p.close_object().close_object().finish();
    return status(failed, ports, gone);
  }

  // 1 when a port failed; with --strict also when nothing was cleared or
  // nodes of the cache are gone.
  int status(unsigned failed, unsigned ports, unsigned gone) const {
    if (failed) return 1;
    if (!ports) return ibtool::strict_exit(config(), 0, "no port cleared");
    if (gone) return ibtool::strict_exit(config(), 0, std::to_string(gone) + " nodes of the cache gone from the fabric");
    return 0;
  }

private:
  bool all_;
};

}  // namespace

IBTOOL_COMMAND({.name = "ibclearcounters",
                .aliases = {},
                .summary = "clear every PortCounters counter on every port of the subnet",
                .description = "Clears all PortCounters (errors and data; PortCountersExtended too where the "
                               "PMA has them) of every port, all nodes concurrently (a switch's ports in one AllPortSelect clear "
                               "where its PMA has it).  Prints a line per port "
                               "that failed and \"## Summary: N nodes, P ports counters cleared, F failed\".  "
                               "A node of a --cache topology that no longer answers is warned about (\"W: ... gone: ...\") and "
                               "counted on a line \"##          N nodes of the cache gone from the fabric\".  "
                               "Exit status 1 when a port failed; with --strict also when no port was cleared or "
                               "nodes of the cache are gone.  --json (-j; --pretty indents): "
                               "one document (its members and types: --json-schema).",
                .usage = "[options]",
                .examples = "  ibclearcounters",
                .make = [] { return std::make_unique<IbClear>(true); }});
IBTOOL_COMMAND({.name = "ibclearerrors",
                .aliases = {},
                .summary = "clear the error counters on every port of the subnet",
                .description = "Clears the PortCounters error counters (CounterSelect 0x0fff and PortXmitWait) "
                               "of every port, all nodes concurrently (a switch's ports in one AllPortSelect clear where its PMA "
                               "has it); data counters are kept.  Prints a line "
                               "per port that failed and \"## Summary: N nodes, P ports error counters cleared, "
                               "F failed\".  Exit status 1 when a port failed.  --json (-j; --pretty indents): "
                               "one document (its members and types: --json-schema).",
                .usage = "[options]",
                .examples = "  ibclearerrors",
                .make = [] { return std::make_unique<IbClear>(false); }});
