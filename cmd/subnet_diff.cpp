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

struct Names {
  const NodeNameMap& map;
  std::string node(const Subnet&, const Node& n) const {
    char b[48];
    std::snprintf(b, sizeof b, "0x%016" PRIx64, n.guid);
    return std::string(b) + " \"" + map.remap(n.guid, n.description()) + "\"";
  }
  std::string port(const Subnet& s, const Port& p) const { return node(s, s.node_of(p)) + "[" + std::to_string(p.num) + "]"; }
  // --json: a node's keys, a port as an object.
  void node_keys(JsonOut& j, const Node& n) const {
    std::string d = n.description();
    j.kguid("nodeGUID", n.guid).ks("name", map.remap(n.guid, d)).ks("nodeDescription", d);
  }
  void port_obj(JsonOut& j, const Subnet& s, const Port& p) const {
    j.obj().kguid("portGUID", p.guid);
    node_keys(j, s.node_of(p));
    j.kv("portNum", p.num).end();
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

std::string hex(uint64_t g) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%016" PRIx64, g);
  return b;
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

  // One difference: its text line and, for --json, the keys of its object
  // after "change" and "what".
  struct Diff {
    std::string line;
    std::function<void(JsonOut&)> keys;
  };
  struct Out {
    std::vector<Diff> v;
    void push_back(std::string line, std::function<void(JsonOut&)> keys) {
      v.push_back({std::move(line), std::move(keys)});
    }
    bool empty() const { return v.empty(); }
  };

  static bool diff(const Subnet& a, const Subnet& b, const Names& nm) {
    Out out;
    // Nodes, by node GUID.
    std::set<uint64_t> ga, gb;
    for (auto& n : a.nodes()) ga.insert(n.guid);
    for (auto& n : b.nodes()) gb.insert(n.guid);
    auto node_line = [&](char sign, const Subnet& s, uint64_t g) {
      const Node& n = s.node(s.node_by_guid(g));
      out.push_back(std::string(1, sign) + " node " + node_type_word(n.type) + " " + nm.node(s, n),
                    [pm = &nm, pn = &n](JsonOut& j) {
                      const char* t = iba::enums::name_of(iba::enums::node_types(), unsigned(pn->type));
                      j.key("node").obj().kenum("nodeType", t ? t : "Unknown", unsigned(pn->type));
                      pm->node_keys(j, *pn);
                      j.end();
                    });
    };
    for (uint64_t g : ga)
      if (!gb.count(g)) node_line('-', a, g);
    for (uint64_t g : gb)
      if (!ga.count(g)) node_line('+', b, g);
    // End ports, by port GUID.
    auto ea = end_ports(a), eb = end_ports(b);
    for (auto& [g, i] : ea)
      if (!eb.count(g)) out.push_back("- end port " + hex(g) + " " + nm.port(a, a.port(i)), port_keys(nm, a, i));
    for (auto& [g, i] : eb)
      if (!ea.count(g)) out.push_back("+ end port " + hex(g) + " " + nm.port(b, b.port(i)), port_keys(nm, b, i));
    // LIDs (every LID of an LMC range): gone, new, or now another port's.
    auto lport = [&](const Subnet& s, uint32_t i) { return hex(s.port(i).guid) + " " + nm.port(s, s.port(i)); };
    auto la = lid_map(a), lb = lid_map(b);
    for (auto& [l, i] : la) {
      auto it = lb.find(l);
      if (it == lb.end()) out.push_back("- LID " + std::to_string(l) + " " + lport(a, i), lid_keys(nm, l, a, i));
      else if (a.port(i).guid != b.port(it->second).guid)
        out.push_back("~ LID " + std::to_string(l) + " " + lport(a, i) + " -> " + lport(b, it->second),
                      // (captured by copy under new names: clang 14 cannot capture a structured binding)
                      [pm = &nm, pa = &a, pb = &b, l = l, i = i, n = it->second](JsonOut& j) {
                        j.kv("LID", l).key("old");
                        pm->port_obj(j, *pa, pa->port(i));
                        j.key("new");
                        pm->port_obj(j, *pb, pb->port(n));
                      });
    }
    for (auto& [l, i] : lb)
      if (!la.count(l)) out.push_back("+ LID " + std::to_string(l) + " " + lport(b, i), lid_keys(nm, l, b, i));
    // Links and rates.
    auto ka = link_map(a), kb = link_map(b);
    for (auto& [k, ends] : ka) {
      auto it = kb.find(k);
      const Port& p = a.port(ends.first);
      const Port& r = a.port(ends.second);
      if (it == kb.end()) {
        out.push_back("- link " + nm.port(a, p) + " <-> " + nm.port(a, r), link_keys(nm, a, ends.first, ends.second));
        continue;
      }
      const Port& q = b.port(it->second.first);
      std::string ra = rate(a, p), rb = rate(b, q);
      if (ra != rb)
        out.push_back("~ rate " + nm.port(b, q) + " <-> " + nm.port(b, b.port(it->second.second)) + " " + ra + " -> " +
                          rb,
                      [k = link_keys(nm, b, it->second.first, it->second.second), ra, rb](JsonOut& j) {
                        k(j);
                        j.ks("old", ra).ks("new", rb);
                      });
    }
    for (auto& [k, ends] : kb)
      if (!ka.count(k))
        out.push_back("+ link " + nm.port(b, b.port(ends.first)) + " <-> " + nm.port(b, b.port(ends.second)),
                      link_keys(nm, b, ends.first, ends.second));
    // {"differences": [{"change", "what", the difference's keys}]}; the
    // text: its line.
    Printer p;
    p.open_object().open_array("differences");
    for (auto& d : out.v) {
      static const char* const CHANGE[] = {"removed", "added", "changed"};
      char sign = d.line[0];
      // The kind is the line's word(s) after the sign: node, end port, LID, link, rate.
      size_t e = d.line.find(' ', 2);
      std::string what = d.line.compare(2, 9, "end port ") == 0 ? "endPort" : d.line.substr(2, e - 2);
      p.open_object().str(PRINT_JSON, "change", nullptr, CHANGE[sign == '-' ? 0 : sign == '+' ? 1 : 2]);
      p.str(PRINT_JSON, "what", nullptr, what).json_value(nullptr, d.keys);
      p.text_raw(d.line).text("\n").close_object();
    }
    p.close_array().close_object().finish();
    return !out.empty();
  }

  static std::function<void(JsonOut&)> port_keys(const Names& nm, const Subnet& s, uint32_t i) {
    return [pm = &nm, ps = &s, i](JsonOut& j) {
      j.key("port");
      pm->port_obj(j, *ps, ps->port(i));
    };
  }
  static std::function<void(JsonOut&)> lid_keys(const Names& nm, unsigned lid, const Subnet& s, uint32_t i) {
    return [pm = &nm, ps = &s, lid, i](JsonOut& j) {
      j.kv("LID", lid).key("port");
      pm->port_obj(j, *ps, ps->port(i));
    };
  }
  static std::function<void(JsonOut&)> link_keys(const Names& nm, const Subnet& s, uint32_t x, uint32_t y) {
    return [pm = &nm, ps = &s, x, y](JsonOut& j) {
      j.key("ends").arr();
      pm->port_obj(j, *ps, ps->port(x));
      pm->port_obj(j, *ps, ps->port(y));
      j.end();
    };
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
                    "indents): {\"differences\": [in the text's order, {\"change\": \"removed\", \"added\" or "
                    "\"changed\", \"what\": \"node\", \"endPort\", \"LID\", \"link\" or \"rate\", then "
                    "\"node\": {\"nodeType\", \"nodeTypeRaw\", \"nodeGUID\", \"name\", \"nodeDescription\"} (node), "
                    "\"port\": a port (endPort; LID removed or added), \"LID\" with \"old\" and \"new\" ports "
                    "(LID changed), \"ends\": [two ports] (link, rate) with \"old\" and \"new\" rates (rate)}]}, "
                    "a port being {\"portGUID\", \"nodeGUID\", \"name\", \"nodeDescription\", \"portNum\"}.",
                .usage = "[options] <old.cache> [<new.cache>]",
                .examples = "  ibnetdiscover --cache before.cache\n  subnet_diff before.cache",
                .make = [] { return std::make_unique<SubnetDiff>(); },
                .own = true});
