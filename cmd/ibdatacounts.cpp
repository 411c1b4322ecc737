// ibdatacounters (whole subnet) / ibdatacounts (one node or port): the data
// counters of every port, read concurrently.
#include <algorithm>
#include <set>
#include <cinttypes>
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
#include "core/out/print.h"
#include "core/health/json_health.h"
#include "core/fabric/netcache.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/obtain.h"
#include "core/rpc/sched.h"
#include "core/transport/transport.h"

namespace {

using namespace ibcore;
namespace H = ibcore::health;

class IbDataCounts : public ibtool::HealthCommand {
public:
  explicit IbDataCounts(bool one) : HealthCommand("leave out the summary line"), one_(one) {}

private:
  void own_options(CLI::App& app) override {
    if (one_) at_.add(app, false, ibtool::HealthTarget::Port::Optional);
  }

  struct Item {
    uint32_t node;
    unsigned port;
    uint16_t lid;
    std::vector<std::pair<int, uint64_t>> counters;  // (health data counter, value)
    std::string error;                              // the failure
    bool gone = false;                              // its node left the fabric since the --cache was written
  };

  int run() override {
    // A --cache gives the topology; which ports are connected is read live.
    ObtainOptions oo;
    oo.live_links = true;
    Subnet db = obtain_subnet(config(), oo);
    NodeNameMap map = NodeNameMap::open(config().node_name_map);
    std::vector<uint32_t> nodes;
    if (one_) {
      uint32_t slot = H::find_target_port(db, at_.target, at_.form());
      nodes.push_back(db.port(slot).node);
    } else {
      nodes = db.reference_order(NodeType::Unknown);
      std::reverse(nodes.begin(), nodes.end());
    }
    std::vector<Item> items;
    for (uint32_t ni : nodes) {
      const Node& n = db.node(ni);
      for (unsigned p = 1; p <= n.nports; ++p) {
        if (one_ && at_.port >= 0 && unsigned(at_.port) != p) continue;
        const Port& x = db.port(n, p);
        if (!x.exists || !x.has_info || x.phys_state() != PHYS_LINKUP) continue;
        items.push_back({ni, p, H::port_lid(db, n, p), {}, {}});
      }
    }
    if (one_ && at_.port >= 0 && items.empty()) throw Error("Port " + std::to_string(at_.port) + " is not connected");
    H::PmSession ses(config());
    ses.pm().use_subnet(&db);
    // The fabric counter scan, for the data counters only: the 8 of
    // PortCountersExtended where the PMA has it, else PortCounters' 4.
    H::PortScanOptions so;
    so.want = H::data_groups();
    H::PortScan scan(ses.pm(), so);
    std::vector<H::PortRow> rows;
    for (const Item& it : items) rows.push_back(H::PortScan::row(db, it.node, it.port));
    scan.spawn(db, rows);
    ses.sched().run();
    unsigned failed = 0;
    for (size_t k = 0; k < items.size(); ++k) {
      Item& it = items[k];
      const H::PortRow& r = rows[k];
      it.gone = r.gone;
      if (r.c.ok()) {
        const bool ext = r.c.source != H::CounterSource::PortCounters;
        for (int i = 0; i < (ext ? int(H::N_DATA) : 4); ++i)
          it.counters.push_back({i, ext ? H::DATA_COUNTERS.value(r.c.ext, i) : H::DATA_COUNTERS.value(r.c.pc, i)});
      } else if (!r.gone) {
        it.error = "query failed: " + H::last_layer(r.c.why());
        ++failed;
      }
    }
    // {"ports": [{"nodeGUID", "name", "nodeDescription", "portNum", "LID",
    // "counters": {name: value}} or "error"], "summary": {...}}; the text:
    // a line a port, then the summary line (not with -b).
    Printer p;
    p.open_object().open_array("ports");
    for (auto& it : items) {
      p.open_object();
      print_port_keys(p, db, it.node, int(it.port), 0, map);
      p.uint(it.lid ? PRINT_ANY : PRINT_FP, "LID", " lid %u", it.lid).text(":");
      if (it.gone) {
        // (data, not a failure: "gone": true and the file it came from)
        p.text(" %s", H::gone_text(db, it.lid).c_str());
        p.boolean(PRINT_JSON, "gone", nullptr, true).str(PRINT_JSON, "cacheFile", nullptr, db.cache_file);
      } else if (!it.error.empty()) {
        p.str(PRINT_ANY, "error", " %s", it.error);
      } else {
        p.open_object("counters");
        for (auto [i, v] : it.counters) p.uint(PRINT_ANY, H::DATA_COUNTERS.field(i), (" " + std::string(H::DATA_COUNTERS.name(i)) + "=%u").c_str(), v);
        p.close_object();
      }
      p.text("\n").close_object();
    }
    std::set<uint32_t> gone_nodes;
    for (const auto& it : items)
      if (it.gone) gone_nodes.insert(it.node);
    const unsigned gone = unsigned(gone_nodes.size());
    const PrintKind summary = brief_ ? PRINT_JSON : PRINT_ANY;
    p.close_array().open_object("summary").uint(summary, "nodes", "## Summary: %u nodes", nodes.size());
    p.uint(summary, "portsRead", ", %u ports read", items.size()).uint(summary, "failed", ", %u failed\n", failed);
    p.uint(gone && !brief_ ? PRINT_ANY : PRINT_JSON, "goneNodes", "##          %u nodes of the cache gone from the fabric\n", gone);
    p.close_object().close_object().finish();
    return status(failed, items.size(), gone);
  }

  // 1 when a port failed; with --strict also when no port was read, or
  // nodes of the cache are gone.
  int status(unsigned failed, size_t ports, unsigned gone) const {
    if (failed) return 1;
    if (gone) return ibtool::strict_exit(config(), 0, std::to_string(gone) + " nodes of the cache gone from the fabric");
    return ports ? 0 : ibtool::strict_exit(config(), 0, "no connected port to read");
  }

  bool one_;
  ibtool::HealthTarget at_;
};

// Shared by both descriptions (a macro so that each is one literal).
#define IBDATACOUNTS_FORMAT \
    "  One line per connected port: \"<node description>\" (0x<node GUID>) port <n> lid <lid>: followed by " \
    "Name=value for each data counter (PortXmitData and PortRcvData count 4-byte words; the 8 " \
    "PortCountersExtended counters when the PMA has them, else the 4 of PortCounters), then " \
    "\"## Summary: N nodes, P ports read, F failed\" (-b leaves it out).  Exit status 1 when a read failed.  " \
    "With --cache the file gives the nodes and which ports are connected is read from the fabric: the port of " \
    "a node gone since says \"gone: no answer at LID n (topology from cache ...)\", counted on a line " \
    "\"##          N nodes of the cache gone from the fabric\" (not a failure; --strict makes it one).  " \
    "--json (-j; --pretty indents): one document (its members and types: --json-schema)."

}  // namespace

IBTOOL_COMMAND({.name = "ibdatacounters",
                .aliases = {},
                .summary = "show the data counters of every connected port of the subnet",
                .description = "Reads the data counters of every connected port, all at once." IBDATACOUNTS_FORMAT,
                .usage = "[options]",
                .examples = "  ibdatacounters",
                .make = [] { return std::make_unique<IbDataCounts>(false); }});
IBTOOL_COMMAND({.name = "ibdatacounts",
                .aliases = {},
                .summary = "show the data counters of one node or port",
                .description = "Reads the data counters of the connected ports of the node at "
                               "<lid|guid|dr_path>, or only of <port>." IBDATACOUNTS_FORMAT,
                .usage = "[options] <lid|guid|dr_path> [<port>]",
                .examples = "  ibdatacounts 2 3",
                .make = [] { return std::make_unique<IbDataCounts>(true); }});
