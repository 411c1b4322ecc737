#include "iba/refprint_smp.h"
#include "core/health/baseline.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <unordered_map>

#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/fabric/discovery.h"
#include "core/base/error.h"
#include "core/rpc/gmppath.h"
#include "core/fabric/netcache.h"
#include "core/fabric/nodemap.h"
#include "core/base/textfile.h"
#include "iba/smp.h"
#include "iba/introspect.h"
#include "iba/sa.h"

namespace ibcore::health {

// --- links against a baseline ----------------------------------------------------------

std::vector<ExpectedLink> links_of(const Subnet& db) {
  std::vector<ExpectedLink> out;
  for (uint32_t i = 0; i < db.port_slots(); ++i) {
    const Port& p = db.port(i);
    const Port* q = db.peer(p);
    if (!p.exists || !q || p.peer < i) continue;  // each link once, from its lower slot
    const Node &a = db.node_of(p), &b = db.node_of(*q);
    ExpectedLink l;
    l.guid[0] = a.guid, l.port[0] = p.num, l.desc[0] = a.description();
    l.guid[1] = b.guid, l.port[1] = q->num, l.desc[1] = b.description();
    out.push_back(std::move(l));
  }
  return out;
}

namespace {
// The GUID in an ibnetdiscover node id ("S-0002c90300001234", "H-...", "R-...").
std::optional<uint64_t> id_guid(std::string_view id) {
  if (id.size() < 3 || id[1] != '-') return std::nullopt;
  std::string hex(id.substr(2));
  char* end = nullptr;
  uint64_t g = std::strtoull(hex.c_str(), &end, 16);
  if (hex.empty() || *end) return std::nullopt;
  return g;
}
// The text between the quote at s[pos] and the next quote; pos moves past it.
std::optional<std::string_view> quoted(std::string_view s, size_t& pos) {
  if (pos >= s.size() || s[pos] != '"') return std::nullopt;
  size_t e = s.find('"', pos + 1);
  if (e == std::string_view::npos) return std::nullopt;
  std::string_view r = s.substr(pos + 1, e - pos - 1);
  pos = e + 1;
  return r;
}
std::optional<unsigned> bracketed(std::string_view s, size_t& pos) {
  if (pos >= s.size() || s[pos] != '[') return std::nullopt;
  size_t e = s.find(']', pos);
  if (e == std::string_view::npos) return std::nullopt;
  std::string n(s.substr(pos + 1, e - pos - 1));
  char* end = nullptr;
  unsigned long v = std::strtoul(n.c_str(), &end, 10);
  if (n.empty() || *end || v > 255) return std::nullopt;
  pos = e + 1;
  return unsigned(v);
}
}  // namespace

std::vector<ExpectedLink> parse_topology(std::string_view text) {
  std::map<uint64_t, std::string> desc;
  std::map<std::pair<std::pair<uint64_t, unsigned>, std::pair<uint64_t, unsigned>>, bool> links;
  std::optional<uint64_t> cur;
  for_each_line(text, [&](std::string_view line) {
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string_view::npos) return;
    line.remove_prefix(i);
    if (line.starts_with("Switch") || line.starts_with("Ca") || line.starts_with("Rt")) {
      // Node header: type, port count, "id", then # "description" ...
      size_t q = line.find('"');
      cur.reset();
      if (q == std::string_view::npos) return;
      auto id = quoted(line, q);
      if (!id) return;
      cur = id_guid(*id);
      if (!cur) return;
      size_t h = line.find('#', q);
      if (h != std::string_view::npos) {
        size_t d = line.find('"', h);
        if (auto s = d == std::string_view::npos ? std::nullopt : quoted(line, d)) desc[*cur] = std::string(*s);
      }
      desc.try_emplace(*cur);
    } else if (line[0] == '[' && cur) {
      // [port](portguid)? "id"[port](portguid)? # ...
      size_t p = 0;
      auto lp = bracketed(line, p);
      size_t q = line.find('"', p);
      if (!lp || q == std::string_view::npos) return;
      auto id = quoted(line, q);
      auto rg = id ? id_guid(*id) : std::nullopt;
      auto rp = bracketed(line, q);
      if (!rg || !rp) return;
      std::pair<uint64_t, unsigned> a{*cur, *lp}, b{*rg, *rp};
      links[a < b ? std::make_pair(a, b) : std::make_pair(b, a)] = true;
    }
  });
  std::vector<ExpectedLink> out;
  for (auto& [k, v] : links) {
    ExpectedLink l;
    l.guid[0] = k.first.first, l.port[0] = k.first.second, l.desc[0] = desc[k.first.first];
    l.guid[1] = k.second.first, l.port[1] = k.second.second, l.desc[1] = desc[k.second.first];
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<ExpectedLink> load_baseline(const std::string& file) {
  std::string bytes;
  if (!read_file(file, bytes)) throw Error("Cannot read baseline " + file);
  std::span<const uint8_t> raw(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  bool is_cache = true;
  try {
    detect_cache_format(raw, file);
  } catch (const CacheError&) {
    is_cache = false;
  }
  if (is_cache) return links_of(decode_cache(raw, file));
  auto links = parse_topology(bytes);
  if (links.empty())
    throw Error("Baseline " + file + " is neither a subnet cache nor an ibnetdiscover topology file with links");
  return links;
}

std::vector<Finding> check_links(const Subnet& db, const std::vector<ExpectedLink>& base,
                                 const std::function<std::string(uint64_t, const std::string&)>& name) {
  std::vector<Finding> out;
  auto gs = [](uint64_t g) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%016" PRIx64, g);
    return std::string(b);
  };
  // "Name" (0x...) for a baseline end, named as the live node when present.
  auto end_name = [&](const ExpectedLink& l, int e) {
    uint32_t n = db.node_by_guid(l.guid[e]);
    std::string d = n != NO_INDEX ? db.node(n).description() : l.desc[e];
    return "\"" + name(l.guid[e], d) + "\" (" + gs(l.guid[e]) + ")";
  };
  std::set<uint64_t> named, absent;
  for (const ExpectedLink& l : base) {
    uint32_t n[2] = {db.node_by_guid(l.guid[0]), db.node_by_guid(l.guid[1])};
    const Port* p[2] = {nullptr, nullptr};
    for (int e = 0; e < 2; ++e)
      if (n[e] != NO_INDEX && l.port[e] <= db.node(n[e]).nports && db.port(db.node(n[e]), l.port[e]).exists)
        p[e] = &db.port(db.node(n[e]), l.port[e]);
    if (p[0] && p[1] && p[0]->peer == db.port_index(n[1], l.port[1]) && p[0]->phys_state() == PHYS_LINKUP &&
        (!p[1]->has_info || p[1]->phys_state() == PHYS_LINKUP))
      continue;
    for (int e = 0; e < 2; ++e)
      if (n[e] == NO_INDEX) absent.insert(l.guid[e]);
    int me = n[0] != NO_INDEX ? 0 : n[1] != NO_INDEX ? 1 : -1;
    if (me < 0) continue;  // neither end is here: reported as missing nodes below
    int other = 1 - me;
    named.insert(l.guid[other]);
    // Why the link is not up, from both ends.
    std::vector<std::string> why;
    auto port_why = [&](int e) -> std::string {
      std::string who = e == me ? "this port" : end_name(l, e) + " port " + std::to_string(l.port[e]);
      if (n[e] == NO_INDEX) return end_name(l, e) + " is not in the subnet";
      if (!p[e]) return who + " is not in the subnet";
      if (p[e]->has_info && p[e]->phys_state() != PHYS_LINKUP)
        return who + " is " + iba::ref::port_state_word(p[e]->state()) + "/" + iba::ref::phys_state_word(p[e]->phys_state());
      if (const Port* q = db.peer(*p[e])) {
        uint64_t og = db.node_of(*q).guid;
        if (og != l.guid[1 - e] || q->num != l.port[1 - e])
          return who + " links to \"" + name(og, db.node_of(*q).description()) + "\" (" + gs(og) + ") port " +
                 std::to_string(q->num);
      }
      return "";
    };
    for (int e : {me, other})
      if (auto w = port_why(e); !w.empty()) why.push_back(w);
    std::string what = "link to " + end_name(l, other) + " port " + std::to_string(l.port[other]) +
                       " (in the baseline) is down";
    for (size_t k = 0; k < why.size(); ++k) what += (k ? "; " : ": ") + why[k];
    Finding f;
    if (p[me]) {
      f = make_finding(db, n[me], l.port[me], what);
    } else {
      f.node = n[me];
      f.port = int(l.port[me]);
      f.what = what;
    }
    f.check = "baseline";
    f.fact("baselinePeerNodeGUID", gs(l.guid[other])).fact("baselinePeerPortNum", uint64_t(l.port[other]));
    f.fact("linkUp", false);
    out.push_back(std::move(f));
  }
  // Baseline nodes with no live end on any of their links.
  std::map<uint64_t, std::string> descs;
  for (const ExpectedLink& l : base)
    for (int e = 0; e < 2; ++e) descs.try_emplace(l.guid[e], l.desc[e]);
  for (uint64_t g : absent) {
    if (named.count(g)) continue;
    Finding f;
    f.what = "node \"" + name(g, descs[g]) + "\" (" + gs(g) + ") of the baseline is not in the subnet";
    f.check = "baseline";
    f.fact("baselineNodeGUID", gs(g)).fact("baselineNodeDescription", descs[g]).fact("inSubnet", false);
    out.push_back(f);
  }
  return out;
}

}  // namespace ibcore::health
