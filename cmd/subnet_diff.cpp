// subnet_diff (alias ibdiscover.pl): compare two subnet caches, or a cache
// with the live fabric, and report the end ports, nodes, links, link rates
// and LIDs that differ.  ibtool's own format (the reference no longer ships
// this tool): one line per difference, sorted by GUID and port, so the
// output is stable; exit status 0 when equal, 1 when different.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/config.h"
#include "core/error.h"
#include "core/netcache.h"
#include "core/nodemap.h"
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
};

std::string rate(const Subnet& s, const Port& p) {
  unsigned es = ext_speed_active(s, p);
  return iba::ref::fmt_link_width(p.width_active()) + " " +
         (es ? iba::ref::fmt_link_speed_ext(es) : iba::ref::fmt_link_speed(p.speed_active()));
}

// Key of a port: (node GUID, port number).
using Key = std::pair<uint64_t, unsigned>;

std::map<Key, uint32_t> port_map(const Subnet& s) {
  std::map<Key, uint32_t> m;
  for (uint32_t i = 0; i < s.node_count(); ++i) {
    const Node& n = s.node(i);
    for (unsigned k = n.is_switch() ? 0 : 1; k <= n.nports; ++k)
      if (s.port(n, k).exists) m[{n.guid, k}] = s.port_index(i, k);
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
    ibtool::add_common_options(app, ibtool::opt::Smp | ibtool::opt::Discovery | ibtool::opt::NodeNameMap |
                                        ibtool::opt::Outstanding | ibtool::opt::Config);
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
        b = obtain_subnet(o);
      }
      NodeNameMap map = NodeNameMap::open(ibcore::config().node_name_map);
      return diff(a, b, Names{map}) ? 1 : 0;
    } catch (const std::exception& e) {
      ibcore::report(e);
      return 2;
    }
  }

  static bool diff(const Subnet& a, const Subnet& b, const Names& nm) {
    std::vector<std::string> out;
    // Nodes.
    std::set<uint64_t> ga, gb;
    for (auto& n : a.nodes()) ga.insert(n.guid);
    for (auto& n : b.nodes()) gb.insert(n.guid);
    for (uint64_t g : ga)
      if (!gb.count(g)) out.push_back("- node " + std::string(node_type_word(a.node(a.node_by_guid(g)).type)) + " " +
                                      nm.node(a, a.node(a.node_by_guid(g))));
    for (uint64_t g : gb)
      if (!ga.count(g)) out.push_back("+ node " + std::string(node_type_word(b.node(b.node_by_guid(g)).type)) + " " +
                                      nm.node(b, b.node(b.node_by_guid(g))));
    // End ports and LIDs.
    auto pa = port_map(a), pb = port_map(b);
    for (auto& [k, i] : pa) {
      auto it = pb.find(k);
      const Port& p = a.port(i);
      bool end = !a.node_of(p).is_switch() || p.num == 0;
      char g[24];
      std::snprintf(g, sizeof g, "0x%016" PRIx64, p.guid);
      if (it == pb.end()) {
        if (end && gb.count(k.first)) out.push_back("- end port " + std::string(g) + " " + nm.port(a, p));
        continue;
      }
      const Port& q = b.port(it->second);
      if (end && p.guid != q.guid) {
        char h[24];
        std::snprintf(h, sizeof h, "0x%016" PRIx64, q.guid);
        out.push_back("~ port GUID " + nm.port(b, q) + " " + g + " -> " + h);
      }
      if (end && (p.base_lid != q.base_lid || p.lmc != q.lmc))
        out.push_back("~ LID " + nm.port(b, q) + " " + std::to_string(p.base_lid) + "/" + std::to_string(p.lmc) +
                      " -> " + std::to_string(q.base_lid) + "/" + std::to_string(q.lmc));
    }
    for (auto& [k, i] : pb) {
      const Port& q = b.port(i);
      bool end = !b.node_of(q).is_switch() || q.num == 0;
      if (end && !pa.count(k) && ga.count(k.first)) {
        char g[24];
        std::snprintf(g, sizeof g, "0x%016" PRIx64, q.guid);
        out.push_back("+ end port " + std::string(g) + " " + nm.port(b, q));
      }
    }
    // Links and rates.
    auto la = link_map(a), lb = link_map(b);
    for (auto& [k, ends] : la) {
      auto it = lb.find(k);
      const Port& p = a.port(ends.first);
      const Port& r = a.port(ends.second);
      if (it == lb.end()) {
        out.push_back("- link " + nm.port(a, p) + " <-> " + nm.port(a, r));
        continue;
      }
      const Port& q = b.port(it->second.first);
      std::string ra = rate(a, p), rb = rate(b, q);
      if (ra != rb) out.push_back("~ rate " + nm.port(b, q) + " <-> " + nm.port(b, b.port(it->second.second)) + " " + ra +
                                  " -> " + rb);
    }
    for (auto& [k, ends] : lb)
      if (!la.count(k)) out.push_back("+ link " + nm.port(b, b.port(ends.first)) + " <-> " + nm.port(b, b.port(ends.second)));
    for (auto& l : out) std::printf("%s\n", l.c_str());
    return !out.empty();
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
                    "or ibnetdiscover --cache) and a later one (another cache, or the live fabric): nodes "
                    "(+/- node), end ports (+/- end port), port GUIDs, LIDs and LMCs (~ LID), links "
                    "(+/- link) and link rates (~ rate).  One line per difference, sorted; exit status 0 "
                    "when equal, 1 when they differ, 2 on errors.",
                .usage = "[options] <old.cache> [<new.cache>]",
                .examples = "  ibnetdiscover --cache before.cache\n  subnet_diff before.cache",
                .make = [] { return std::make_unique<SubnetDiff>(); }});
