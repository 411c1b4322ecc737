#include "core/report/compare.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/base/error.h"
#include "core/base/textfile.h"

namespace ibcore::reporting {

namespace {

using Key = std::tuple<uint64_t, unsigned, uint64_t, unsigned>;

Key key_of(uint64_t g0, unsigned p0, uint64_t g1, unsigned p1) {
  if (std::tie(g1, p1) < std::tie(g0, p0)) return {g1, p1, g0, p0};
  return {g0, p0, g1, p1};
}

uint64_t guid_of(const nlohmann::json& v) {
  if (!v.is_string()) throw std::runtime_error("a nodeGUID that is not a string");
  return std::strtoull(v.get<std::string>().c_str(), nullptr, 16);
}

}  // namespace

std::string embedded_json(const std::string& text, const std::string& file) {
  size_t i = text.find_first_not_of(" \t\r\n");
  if (i != std::string::npos && text[i] == '{') return text;  // report --json
  static const std::string open = "<script type=\"application/json\" id=\"ibtool-report-data\">";
  size_t a = text.find(open);
  if (a == std::string::npos) throw Error(file + ": not an ibtool report (no report data in it)");
  a += open.size();
  size_t b = text.find("</script>", a);
  if (b == std::string::npos) throw Error(file + ": not an ibtool report (its report data is cut short)");
  return text.substr(a, b - a);
}

Baseline load_report(const std::string& file) {
  std::string text;
  if (!read_file(file, text)) throw Error(file + ": cannot read the baseline report: " + std::strerror(errno));
  Baseline b;
  b.file = file;
  try {
    nlohmann::json d = nlohmann::json::parse(embedded_json(text, file));
    if (!d.is_object() || !d.contains("nodes") || !d.contains("links") || !d["nodes"].is_array())
      throw std::runtime_error("no nodes and links");
    if (d.contains("generated") && d["generated"].is_string()) b.generated = d["generated"].get<std::string>();
    const auto& nodes = d["nodes"];
    for (const auto& n : nodes) {
      uint64_t g = guid_of(n.at("nodeGUID"));
      for (const auto& p : n.at("ports")) {
        if (!p.value("countersKnown", false)) continue;
        auto& m = b.errors[{g, p.at("portNum").get<unsigned>()}];
        if (p.contains("errors"))
          for (auto& [k, v] : p["errors"].items()) m[k] = v.get<uint64_t>();
      }
    }
    for (const auto& l : d["links"]) {
      OldLink o;
      size_t e = 0;
      for (const char* end : {"from", "to"}) {
        const auto& x = l.at(end);
        const auto& n = nodes.at(x.at("node").get<size_t>());
        o.guid[e] = guid_of(n.at("nodeGUID"));
        o.port[e] = x.at("portNum").get<unsigned>();
        o.name[e] = n.value("name", std::string());
        ++e;
      }
      if (std::tie(o.guid[1], o.port[1]) < std::tie(o.guid[0], o.port[0])) {
        std::swap(o.guid[0], o.guid[1]);
        std::swap(o.port[0], o.port[1]);
        std::swap(o.name[0], o.name[1]);
      }
      b.links.push_back(std::move(o));
    }
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(file + ": not an ibtool report (" + e.what() + ")");
  }
  return b;
}

Comparison compare(const Data& d, const Baseline& old) {
  Comparison c;
  c.file = old.file;
  c.generated = old.generated;
  const Subnet& db = d.db;
  std::set<Key> now, was;
  std::vector<Key> keys;
  for (const Link& l : d.links) {
    const Port &a = db.port(l.a), &b = db.port(l.b);
    keys.push_back(key_of(db.node_of(a).guid, a.num, db.node_of(b).guid, b.num));
    now.insert(keys.back());
  }
  for (const OldLink& o : old.links) {
    Key k = key_of(o.guid[0], o.port[0], o.guid[1], o.port[1]);
    was.insert(k);
    if (!now.count(k)) c.gone.push_back(o);
  }
  for (uint32_t i = 0; i < keys.size(); ++i)
    if (!was.count(keys[i])) c.added.push_back(i);
  for (uint32_t s = 0; s < db.port_slots(); ++s) {
    const PortCounters& pc = d.counters[s];
    const Port& p = db.port(s);
    if (!pc.known || p.node == NO_INDEX) continue;
    auto it = old.errors.find({db.node(p.node).guid, p.num});
    if (it == old.errors.end()) continue;
    for (int i = 0; i < health::N_ERR; ++i) {
      auto v = it->second.find(health::ERROR_COUNTERS.field(i));
      uint64_t before = v == it->second.end() ? 0 : v->second;
      if (pc.err[i] > before) c.rose.push_back({s, i, before, pc.err[i]});
    }
  }
  return c;
}

}  // namespace ibcore::reporting
