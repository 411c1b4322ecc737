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
    if (list) {
      p.json_value("nodes", [&](JsonOut& j) {
        JsonNetOptions jo;
        jo.ports = false;
        j.arr();
        for (uint32_t i : db.reference_order(type_)) json_node(j, db, db.node(i), map, jo);
        j.end();
      });
      p.text_to([&](FILE* f) {
        TopologyPrinter pr(db, map, f, false, false);
        pr.list(1u << unsigned(type_));
      });
    } else {
      const Node& n = db.node(found);
      p.json_value("node", [&](JsonOut& j) {
        JsonNetOptions jo;
        jo.linked_only = true;
        json_node(j, db, n, map, jo);
      });
      p.text_to([&](FILE* f) {
        char* text = nullptr;
        size_t len = 0;
        FILE* mem = open_memstream(&text, &len);
        if (!mem) throw Error("Out of memory");
        TopologyPrinter block(db, map, mem, false, false);
        if (n.is_switch()) block.out_switch(n, nullptr, nullptr);
        else block.out_ca(n, nullptr, nullptr);
        block.out_node_ports(n, n.is_switch());
        std::fclose(mem);
        std::string out(text, len);
        std::free(text);
        std::fputs(out.c_str() + (out.starts_with("\n") ? 1 : 0), f);
      });
    }
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
  "  --json (-j; --pretty indents): the list as {\"nodes\": [the nodes as ibnetdiscover --json -l " \
  "writes them: {\"nodeGUID\", \"nodeType\", \"nodeTypeRaw\", \"nodeDescription\", \"name\", " \
  "\"numPorts\", \"LID\" (switches), \"nodeInfo\"}]}; one node as {\"node\": {the same keys and " \
  "\"ports\": [its linked ports as ibnetdiscover --json writes them]}}."

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
