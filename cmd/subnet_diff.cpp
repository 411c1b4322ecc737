// subnet_diff (alias ibdiscover.pl): compare two subnet caches, or a cache
// with the live fabric, and report the end ports, nodes, links, link rates
// and LIDs that differ.  ibtool's own format (the reference no longer ships
// this tool): one line per difference, sorted by GUID and port, so the
// output is stable; exit status 0 when equal, 1 when different.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/out/json.h"
#include "core/out/print.h"
#include "core/fabric/netcache.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/obtain.h"
#include "iba/enums.h"
#include "iba/refprint_smp.h"

namespace {

using namespace ibcore;

// How a difference names its nodes and ports, text and document at once:
// a node as 0x<GUID> "<name>" ({"nodeGUID", "name", "nodeDescription"}), a
// port as its node and [<num>] ({"portGUID", the node's keys, "portNum"}),
// with its port GUID in front where the line shows it.
struct Names {
  const NodeNameMap& map;
  void node(Printer& p, const Node& n) const {
    std::string d = n.description();
    p.guid(PRINT_ANY, "nodeGUID", "0x%016" PRIx64, n.guid).str(PRINT_ANY, "name", " \"%s\"", map.remap(n.guid, d));
    p.str(PRINT_JSON, "nodeDescription", nullptr, d);
  }
  void port(Printer& p, const char* key, const Subnet& s, const Port& x, bool show_guid) const {
    p.open_object(key).guid(show_guid ? PRINT_ANY : PRINT_JSON, "portGUID", "0x%016" PRIx64 " ", x.guid);
    node(p, s.node_of(x));
    p.uint(PRINT_ANY, "portNum", "[%u]", x.num).close_object();
  }
};

std::string rate(const Subnet& s, const Port& p) {
  unsigned es = ext_speed_active(s, p);
  return iba::ref::fmt_link_width(p.width_active()) + " " +
         (es ? iba::ref::fmt_link_speed_ext(es) : iba::ref::fmt_link_speed(p.speed_active()));
}

// Key of a port: (node GUID, port number).
using Key = std::pair<uint64_t, unsigned>;

// End ports (CA and router ports, switch port 0) by port GUID.
std::map<uint64_t, uint32_t> end_ports(const Subnet& s) {
  std::map<uint64_t, uint32_t> m;
  for (uint32_t i = 0; i < s.node_count(); ++i) {
    const Node& n = s.node(i);
    unsigned first = n.is_switch() ? 0 : 1, last = n.is_switch() ? 0 : n.nports;
    for (unsigned k = first; k <= last; ++k)
      if (s.port(n, k).exists) m.emplace(s.port(n, k).guid, s.port_index(i, k));
  }
  return m;
}

// Every LID of every end port (base LID .. base + 2^LMC - 1) -> the port.
std::map<unsigned, uint32_t> lid_map(const Subnet& s) {
  std::map<unsigned, uint32_t> m;
  for (auto& [g, i] : end_ports(s)) {
    const Port& p = s.port(i);
    if (!p.base_lid) continue;
    for (unsigned l = p.base_lid; l < p.base_lid + (1u << p.lmc) && l < iba::MLID_BASE; ++l) m.emplace(l, i);
  }
  return m;
}

// Links as (smaller end, larger end) keys.
std::map<std::pair<Key, Key>, std::pair<uint32_t, uint32_t>> link_map(const Subnet& s) {
  std::map<std::pair<Key, Key>, std::pair<uint32_t, uint32_t>> m;
  for (uint32_t i = 0; i < s.port_slots(); ++i) {
    const Port& p = s.port(i);
    const Port* r = s.peer(p);
    if (!p.exists || !r) continue;
    Key a{s.node_of(p).guid, p.num}, b{s.node_of(*r).guid, r->num};
    if (b < a) continue;
    m[{a, b}] = {i, p.peer};
  }
  return m;
}

class SubnetDiff : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_option("old", old_, "the earlier subnet (a cache file of either format)")->required();
    app.add_option("new", new_, "the later subnet (a cache file); default: discover the live fabric");
    ibtool::add_common_options(app, config(), ibtool::opt::Smp | ibtool::opt::Discovery | ibtool::opt::NodeNameMap |
                                        ibtool::opt::Outstanding | ibtool::opt::Config | ibtool::opt::Json);
  }

  int run() override {
    try {
      Subnet a = load_cache(old_);
      Subnet b;
      if (!new_.empty()) {
        b = load_cache(new_);
      } else {
        ObtainOptions o;
        o.use_config_cache = false;
        b = obtain_subnet(config(), o);
      }
      NodeNameMap map = NodeNameMap::open(config().node_name_map);
      return diff(a, b, Names{map}) ? 1 : 0;
    } catch (const std::exception& e) {
      ibcore::report(e);
      return 2;
    }
  }

  // One difference: what changed and where (the ports are slots of `s`,
  // a changed LID's new port one of `s2`).
  enum class What { Node, EndPort, Lid, Link, Rate };
  struct Diff {
    char sign;  // '-' removed, '+' added, '~' changed
    What what;
    const Subnet* s;
    uint32_t x, y;     // the node (Node), the port (EndPort, Lid), the ends (Link, Rate)
    const Subnet* s2;  // a changed LID's new port's subnet (its slot y)
    unsigned lid;
    std::string old_rate, new_rate;
    Diff(char sign_, What what_, const Subnet* s_, uint32_t x_, uint32_t y_ = NO_INDEX, const Subnet* s2_ = nullptr,
         unsigned lid_ = 0, std::string o = {}, std::string n = {})
        : sign(sign_), what(what_), s(s_), x(x_), y(y_), s2(s2_), lid(lid_), old_rate(std::move(o)),
          new_rate(std::move(n)) {}
  };

  static bool diff(const Subnet& a, const Subnet& b, const Names& nm) {
    std::vector<Diff> out;
    // Nodes, by node GUID.
    std::set<uint64_t> ga, gb;
    for (auto& n : a.nodes()) ga.insert(n.guid);
    for (auto& n : b.nodes()) gb.insert(n.guid);
    for (uint64_t g : ga)
      if (!gb.count(g)) out.push_back({'-', What::Node, &a, a.node_by_guid(g)});
    for (uint64_t g : gb)
      if (!ga.count(g)) out.push_back({'+', What::Node, &b, b.node_by_guid(g)});
    // End ports, by port GUID.
    auto ea = end_ports(a), eb = end_ports(b);
    for (auto& [g, i] : ea)
      if (!eb.count(g)) out.push_back({'-', What::EndPort, &a, i});
    for (auto& [g, i] : eb)
      if (!ea.count(g)) out.push_back({'+', What::EndPort, &b, i});
    // LIDs (every LID of an LMC range): gone, new, or now another port's.
    auto la = lid_map(a), lb = lid_map(b);
    for (auto& [l, i] : la) {
      auto it = lb.find(l);
      if (it == lb.end()) out.push_back({'-', What::Lid, &a, i, NO_INDEX, nullptr, l});
      else if (a.port(i).guid != b.port(it->second).guid)
        out.push_back({'~', What::Lid, &a, i, it->second, &b, l});
    }
    for (auto& [l, i] : lb)
      if (!la.count(l)) out.push_back({'+', What::Lid, &b, i, NO_INDEX, nullptr, l});
    // Links and rates.
    auto ka = link_map(a), kb = link_map(b);
    for (auto& [k, ends] : ka) {
      auto it = kb.find(k);
      if (it == kb.end()) {
        out.push_back({'-', What::Link, &a, ends.first, ends.second});
        continue;
      }
      std::string ra = rate(a, a.port(ends.first)), rb = rate(b, b.port(it->second.first));
      if (ra != rb) out.push_back({'~', What::Rate, &b, it->second.first, it->second.second, nullptr, 0, ra, rb});
    }
    for (auto& [k, ends] : kb)
      if (!ka.count(k)) out.push_back({'+', What::Link, &b, ends.first, ends.second});
    // {"differences": [{"change", "what", the difference's keys}]}; the
    // text: a line each.
    Printer p;
    p.open_object().open_array("differences");
    for (const Diff& d : out) print_diff(p, nm, d);
    p.close_array().close_object().finish();
    return !out.empty();
  }

  // "<sign> <what> ..." and {"change", "what", then "node" (node), "port"
  // (endPort; LID removed or added), "LID" with "old" and "new" ports (LID
  // changed), "ends" (link, rate) with "old" and "new" rates (rate)}.
  static void print_diff(Printer& p, const Names& nm, const Diff& d) {
    static const char* const CHANGE[] = {"removed", "added", "changed"};
    static const char* const WHAT[] = {"node", "endPort", "LID", "link", "rate"};
    static const char* const WORD[] = {"node", "end port", "LID", "link", "rate"};
    const Subnet& s = *d.s;
    p.open_object().str(PRINT_JSON, "change", nullptr, CHANGE[d.sign == '-' ? 0 : d.sign == '+' ? 1 : 2]);
    p.str(PRINT_JSON, "what", nullptr, WHAT[int(d.what)]).text("%c %s ", d.sign, WORD[int(d.what)]);
    switch (d.what) {
    case What::Node: {
      const Node& n = s.node(d.x);
      const char* t = iba::enums::name_of(iba::enums::node_types(), unsigned(n.type));
      p.text("%s ", node_type_word(n.type)).open_object("node");
      p.enumeration(PRINT_JSON, "nodeType", nullptr, t ? t : "Unknown", unsigned(n.type));
      nm.node(p, n);
      p.close_object();
      break;
    }
    case What::EndPort: nm.port(p, "port", s, s.port(d.x), true); break;
    case What::Lid:
      p.uint(PRINT_ANY, "LID", "%u ", d.lid);
      if (d.sign != '~') {
        nm.port(p, "port", s, s.port(d.x), true);
        break;
      }
      nm.port(p, "old", s, s.port(d.x), true);
      p.text(" -> ");
      nm.port(p, "new", *d.s2, d.s2->port(d.y), true);
      break;
    case What::Link:
    case What::Rate:
      p.open_array("ends");
      nm.port(p, nullptr, s, s.port(d.x), false);
      p.text(" <-> ");
      nm.port(p, nullptr, s, s.port(d.y), false);
      p.close_array();
      if (d.what == What::Rate) p.str(PRINT_ANY, "old", " %s", d.old_rate).str(PRINT_ANY, "new", " -> %s", d.new_rate);
      break;
    }
    p.text("\n").close_object();
  }

private:
  std::string old_, new_;
};

}  // namespace

IBTOOL_COMMAND({.name = "subnet_diff",
                .aliases = {"ibdiscover.pl"},
                .summary = "compare two subnet caches, or a cache with the live fabric",
                .description =
                    "Reports what differs between an earlier subnet (a cache file written by ibtool --cache "
                    "or ibnetdiscover --cache) and a later one (another cache, or the live fabric), one line "
                    "per difference, in this order, each part sorted: nodes by node GUID (\"- node <type> "
                    "<GUID> \"<name>\"\" only in the earlier, \"+ node ...\" only in the later), end ports by "
                    "port GUID (\"-/+ end port <port GUID> <node GUID> \"<name>\"[<port>]\"), LIDs, every LID "
                    "of an LMC range (\"-/+ LID <lid> <port GUID> <port>\", \"~ LID <lid> <old port> -> <new "
                    "port>\" when another port has it), links (\"-/+ link <port> <-> <port>\") and the rates of "
                    "links in both (\"~ rate <port> <-> <port> <old> -> <new>\").  Nothing when they are the "
                    "same.  Exit status 0 when equal, 1 when they differ, 2 on errors.  --json (-j; --pretty "
                    "indents): the differences in the text's order, one document (its members and types: --json-schema).",
                .usage = "[options] <old.cache> [<new.cache>]",
                .examples = "  ibnetdiscover --cache before.cache\n  subnet_diff before.cache",
                .make = [] { return std::make_unique<SubnetDiff>(); },
                .own = true});
