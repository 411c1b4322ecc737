// ibhosts, ibswitches, ibrouters, ibnodes: one line per node, derived from
// the topology text exactly as the reference's scripts derive it (so a saved
// topology file gives the same lines as the live fabric).
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/fabric/json_net.h"
#include "core/fabric/netcache.h"
#include "core/fabric/netprint.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/obtain.h"
#include "core/base/textfile.h"
#include "core/out/log.h"
#include "core/out/print.h"

namespace {

enum class Kind { Hosts, Switches, Routers };

// awk's substr(s, m[, n]) (1-based m; without n: to the end).
std::string awk_substr(const std::string& s, long m, long n = -1) {
  long len = long(s.size());
  long start = m < 1 ? 1 : m;
  long end = n < 0 ? len + 1 : std::min(len + 1, m + n);  // exclusive, 1-based
  if (end <= start) return {};
  return s.substr(size_t(start - 1), size_t(end - start));
}

// The text after the first '#' and the blanks following it.
std::string after_hash(const std::string& l) {
  size_t h = l.find('#');
  if (h == std::string::npos) return l;  // awk: match()=0, RLENGTH=-1 -> substr(l, -1) = whole line
  size_t e = h + 1;
  while (e < l.size() && (l[e] == ' ' || l[e] == '\t')) ++e;
  return l.substr(e);
}

std::string id_of(const std::vector<std::string>& f) { return f.size() > 2 ? awk_substr(f[2], 4, 16) : ""; }

// The lines of kind's nodes in text; returns how many nodes it listed.
unsigned emit(FILE* out, const std::string& text, Kind kind) {
  unsigned listed = 0;
  ibcore::for_each_line(text, [&](std::string_view line) {
    std::string l(line);
    auto f = ibcore::split_words(l);
    std::string f1 = f.size() > 0 ? f[0] : "", f2 = f.size() > 1 ? f[1] : "";
    bool node = (kind == Kind::Hosts && l.rfind("Ca", 0) == 0) || (kind == Kind::Routers && l.rfind("Rt", 0) == 0) ||
                (kind == Kind::Switches && l.rfind("Switch", 0) == 0);
    listed += node;
    if (kind == Kind::Hosts && l.rfind("Ca", 0) == 0)
      std::fprintf(out, "%s\t: 0x%s ports %s %s\n", f1.c_str(), id_of(f).c_str(), f2.c_str(), after_hash(l).c_str());
    if (kind == Kind::Routers && l.rfind("Rt", 0) == 0)
      std::fprintf(out, "%s\t: 0x%s ports %s %s\n", f1.c_str(), id_of(f).c_str(), f2.c_str(), after_hash(l).c_str());
    if (kind == Kind::Switches && l.rfind("Switch", 0) == 0) {
      std::string desc = after_hash(l);
      size_t pos = desc.find("port 0");
      long pi = pos == std::string::npos ? 0 : long(pos) + 1;
      std::string pinfo = awk_substr(desc, pi);
      desc = pi >= 2 ? desc.substr(0, size_t(pi - 2)) : std::string();
      const char* types[] = {"base port 0", "enhanced port 0"};
      std::string type;
      for (const char* t : types) {
        size_t ti = desc.find(t);
        if (ti != std::string::npos) {
          type = t;
          desc = ti >= 1 ? desc.substr(0, ti - 1) : std::string();
          break;
        }
      }
      if (type.empty())
        std::fprintf(out, "%s\t: 0x%s ports %s %s %s\n", f1.c_str(), id_of(f).c_str(), f2.c_str(), desc.c_str(),
                    pinfo.c_str());
      else
        std::fprintf(out, "%s\t: 0x%s ports %s %s %s %s\n", f1.c_str(), id_of(f).c_str(), f2.c_str(), desc.c_str(),
                    type.c_str(), pinfo.c_str());
    }
    if (l.rfind("ib", 0) == 0) {
      std::fprintf(out, "%s\n", l.c_str());
      return;
    }
    for (const char* w : {"ibpanic:", "ibwarn:", "iberror:"})
      if (l.find(w) != std::string::npos) std::fprintf(out, "%s\n", l.c_str());
  });
  return listed;
}

class IbHosts : public ibtool::Command {
public:
  explicit IbHosts(std::vector<Kind> kinds) : kinds_(std::move(kinds)) {}
  void options(CLI::App& app) override {
    app.add_option("topology-file", topofile_, "read this topology file (ibnetdiscover output) instead of discovering");
    ibtool::add_common_options(app, config(), ibtool::opt::Ca | ibtool::opt::Port | ibtool::opt::Timeout | ibtool::opt::MKey |
                                        ibtool::opt::Debug | ibtool::opt::Verbose | ibtool::opt::Discovery |
                                        ibtool::opt::Cache | ibtool::opt::Outstanding | ibtool::opt::Retries |
                                        ibtool::opt::Sa | ibtool::opt::SaPath | ibtool::opt::Json | ibtool::opt::Strict);
  }
  int usage_status() const override { return 255; }

  // A discovery that fails is the library's report.
  bool reports_errors() const override { return true; }

  const char* no_json_form() const override {
    return topofile_.empty() ? nullptr : "needs a live discovery (or --cache), not a topology file";
  }

  // {"nodes": [the nodes the text lists, in its order, as ibnetdiscover
  // --json -l writes them (core/fabric/json_net.h, no ports)]}; the text
  // the reference's script's lines, made from ibnetdiscover's text of the
  // fabric (or the topology file).
  int run() override {
    std::string text;
    std::optional<ibcore::Subnet> db;
    if (!topofile_.empty()) {
      if (!ibcore::read_file(topofile_, text)) {
        ibcore::log::error("E: cannot read topology file %s\n", topofile_.c_str());
        return 1;
      }
    } else {
      db.emplace(ibcore::obtain_subnet(config()));
    }
    // The scripts run ibnetdiscover without a node name map option: the
    // default map applies.
    ibcore::NodeNameMap map = ibcore::NodeNameMap::open("");
    unsigned listed = 0;
    ibcore::Printer p;
    p.open_object();
    p.json_value("nodes", [&](ibcore::JsonOut& j) {
      ibcore::JsonNetOptions jo;
      jo.ports = false;
      j.arr();
      for (Kind k : kinds_) {
        ibcore::NodeType t = k == Kind::Hosts      ? ibcore::NodeType::CA
                             : k == Kind::Switches ? ibcore::NodeType::Switch
                                                   : ibcore::NodeType::Router;
        for (uint32_t i : db->reference_order(t)) {
          ibcore::json_node(j, *db, db->node(i), map, jo);
          ++listed;
        }
      }
      j.end();
    });
    p.text_to([&](FILE* f) {
      if (db) text = ibcore::topology_text(*db, map);
      for (Kind k : kinds_) listed += emit(f, text, k);
    });
    p.close_object().finish();
    return strict_status(listed);
  }

  // --strict: a list with nobody on it fails.
  int strict_status(size_t listed) const {
    if (listed) return 0;
    std::string what;
    for (Kind k : kinds_)
      what += std::string(what.empty() ? "" : " or ") +
              (k == Kind::Hosts ? "CA" : k == Kind::Switches ? "switch" : "router");
    return ibtool::strict_exit(config(), 0, "no " + what + " in the fabric");
  }

private:
  std::vector<Kind> kinds_;
  std::string topofile_;
};

}  // namespace

IBTOOL_COMMAND({.name = "ibhosts",
                .aliases = {},
                .summary = "list the channel adapters of the fabric",
                .description = "One line per CA: GUID, number of ports and node description, from a live "
                               "discovery or from a topology file written by ibnetdiscover.  "
                               "--json (-j; --pretty indents, live discovery only): one document (its members and types: --json-schema).",
                .usage = "[options] [<topology-file>]",
                .examples = "  ibhosts\n  ibhosts topology.txt\n  ibhosts --strict   (exit 1 when no CA is found)",
                .make = [] { return std::make_unique<IbHosts>(std::vector<Kind>{Kind::Hosts}); }});

IBTOOL_COMMAND({.name = "ibswitches",
                .aliases = {},
                .summary = "list the switches of the fabric",
                .description = "One line per switch: GUID, number of ports, node description, port 0 type, "
                               "LID and LMC, from a live discovery or from a topology file.  "
                               "--json (-j; --pretty indents, live discovery only): one document (its members and types: --json-schema).",
                .usage = "[options] [<topology-file>]",
                .examples = "  ibswitches\n  ibswitches topology.txt",
                .make = [] { return std::make_unique<IbHosts>(std::vector<Kind>{Kind::Switches}); }});

IBTOOL_COMMAND({.name = "ibrouters",
                .aliases = {},
                .summary = "list the routers of the fabric",
                .description = "One line per router: GUID, number of ports and node description, from a live "
                               "discovery or from a topology file.  "
                               "--json (-j; --pretty indents, live discovery only): one document (its members and types: --json-schema).",
                .usage = "[options] [<topology-file>]",
                .examples = "  ibrouters",
                .make = [] { return std::make_unique<IbHosts>(std::vector<Kind>{Kind::Routers}); }});

IBTOOL_COMMAND({.name = "ibnodes",
                .aliases = {},
                .summary = "list the CAs and then the switches of the fabric",
                .description = "ibhosts followed by ibswitches, from one discovery.  "
                               "--json (-j; --pretty indents, live discovery only): one document (its members and types: --json-schema).",
                .usage = "[options] [<topology-file>]",
                .examples = "  ibnodes",
                .make = [] { return std::make_unique<IbHosts>(std::vector<Kind>{Kind::Hosts, Kind::Switches}); }});
