// ibprintca, ibprintrt, ibprintswitch (+ .pl): print one node of a type as
// its block of the ibnetdiscover topology (ids, header line, linked ports),
// or list the nodes of that type.  The reference no longer ships these; the
// blocks are in ibnetdiscover's format, the list in ibnetdiscover -H/-R/-S's.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/health/health.h"
#include "core/out/json.h"
#include "core/out/print.h"
#include "core/fabric/json_net.h"
#include "core/fabric/netcache.h"
#include "core/fabric/netprint.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/obtain.h"
#include "iba/introspect.h"
#include "core/out/log.h"

namespace {

using namespace ibcore;

class IbPrint : public ibtool::Command {
public:
  IbPrint(NodeType t, const char* what) : type_(t), what_(what) {}

  void options(CLI::App& app) override {
    app.add_option("node", node_,
                   std::string("the ") + what_ + " to print: node GUID, port GUID, node name, LID or DR path");
    app.add_flag("-l,--list", list_, std::string("list the ") + what_ + "s");
    app.add_flag("-R,--Recalc", config().refresh_cache, "rediscover even when --cache names a file");
    ibtool::add_common_options(app, config(), ibtool::opt::Smp | ibtool::opt::Discovery | ibtool::opt::Cache |
                                        ibtool::opt::NodeNameMap | ibtool::opt::Outstanding | ibtool::opt::Config |
                                        ibtool::opt::Json);
  }

  // Its work may fail anywhere (discovery, a MAD, a file): the library's report.
  bool reports_errors() const override { return true; }
  int run() override {
    Subnet db = obtain_subnet(config());
    NodeNameMap map = NodeNameMap::open(config().node_name_map);
    bool list = list_ || node_.empty();
    uint32_t found = NO_INDEX;
    if (!list) {
      found = health::find_node(db, map, node_, type_);
      if (found == NO_INDEX) {
        ibcore::log::error("E: %s %s not found\n", what_, node_.c_str());
        return 1;
      }
    }
    // The list: {"nodes": [as ibnetdiscover --json -l writes them]}, the
    // text ibnetdiscover -l's lines; a node: {"node": {as ibnetdiscover
    // --json writes it, linked ports}}, the text its block as ibnetdiscover
    // prints it, without the blank line that separates blocks there.
    Printer p;
    p.open_object();
    TopologyPrinter pr(db, map, p, false, false);
    if (list) pr.list(1u << unsigned(type_));
    else pr.node(db.node(found), "node", false);
    p.close_object().finish();
    return 0;
  }

private:
  NodeType type_;
  const char* what_;
  std::string node_;
  bool list_ = false;
};

// The three pages' JSON schema (a macro so that each description is one
// literal).
#define IBPRINT_JSON \
  "  --json (-j; --pretty indents): the list or the node as one document (its members and " \
  "types: --json-schema), the nodes and ports as ibnetdiscover --json writes them."

}  // namespace

IBTOOL_COMMAND({.name = "ibprintca",
                .aliases = {"ibprintca.pl"},
                .summary = "print a channel adapter's topology block, or list the CAs",
                .description = "With a CA (node GUID, port GUID or node name): its block of the ibnetdiscover "
                               "topology (ids, header, linked ports).  With -l or no argument: the CA "
                               "list." IBPRINT_JSON,
                .usage = "[options] [<ca_guid>|<node_name>]",
                .examples = "  ibprintca -l\n  ibprintca 0x0002c9030000abcd",
                .make = [] { return std::make_unique<IbPrint>(NodeType::CA, "CA"); }});

IBTOOL_COMMAND({.name = "ibprintrt",
                .aliases = {"ibprintrt.pl"},
                .summary = "print a router's topology block, or list the routers",
                .description = "With a router (node GUID, port GUID or node name): its block of the "
                               "ibnetdiscover topology.  With -l or no argument: the router list." IBPRINT_JSON,
                .usage = "[options] [<rt_guid>|<node_name>]",
                .examples = "  ibprintrt -l",
                .make = [] { return std::make_unique<IbPrint>(NodeType::Router, "router"); }});

IBTOOL_COMMAND({.name = "ibprintswitch",
                .aliases = {"ibprintswitch.pl"},
                .summary = "print a switch's topology block, or list the switches",
                .description = "With a switch (node GUID or node name): its block of the ibnetdiscover "
                               "topology.  With -l or no argument: the switch list." IBPRINT_JSON,
                .usage = "[options] [<switch_guid>|<node_name>]",
                .examples = "  ibprintswitch -l\n  ibprintswitch \"edge p0 e0\"",
                .make = [] { return std::make_unique<IbPrint>(NodeType::Switch, "switch"); }});
