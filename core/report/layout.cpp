#include "core/report/layout.h"

#include <algorithm>
#include <deque>
#include <map>
#include <numeric>

namespace ibcore::reporting {

namespace {

constexpr double kSpacing = 36;   // between items of the widest tier
constexpr double kTierGap = 140;  // between tiers
constexpr double kMargin = 40;
constexpr double kHostStep = 14;  // a folded host's column

}  // namespace

Layout lay_out(const Subnet& db, const std::vector<Link>& links) {
  Layout L;
  const size_t N = db.node_count();
  // Neighbours (by node), each link once per end.
  std::vector<std::vector<uint32_t>> adj(N);
  for (const Link& l : links) {
    uint32_t a = db.port(l.a).node, b = db.port(l.b).node;
    adj[a].push_back(b);
    adj[b].push_back(a);
  }
  for (auto& v : adj) std::sort(v.begin(), v.end(), [&](uint32_t x, uint32_t y) { return db.node(x).guid < db.node(y).guid; });

  // Tiers: hops from the nearest CA or router (multi-source BFS).
  constexpr unsigned UNSEEN = ~0u;
  std::vector<unsigned> dist(N, UNSEEN);
  std::deque<uint32_t> q;
  for (uint32_t i = 0; i < N; ++i)
    if (!db.node(i).is_switch()) {
      dist[i] = 0;
      q.push_back(i);
    }
  while (!q.empty()) {
    uint32_t i = q.front();
    q.pop_front();
    for (uint32_t j : adj[i])
      if (dist[j] == UNSEEN && db.node(j).is_switch()) {
        dist[j] = dist[i] + 1;
        q.push_back(j);
      }
  }
  unsigned top = 0;
  for (uint32_t i = 0; i < N; ++i)
    if (dist[i] != UNSEEN) top = std::max(top, dist[i]);
  bool orphans = false;
  for (uint32_t i = 0; i < N; ++i)
    if (dist[i] == UNSEEN) {
      dist[i] = top + 1;
      orphans = true;
    }
  L.depth = top + (orphans ? 1 : 0);
  L.tier = dist;

  // Nodes by GUID: every order below starts from it.
  std::vector<uint32_t> by_guid(N);
  std::iota(by_guid.begin(), by_guid.end(), 0u);
  std::sort(by_guid.begin(), by_guid.end(), [&](uint32_t a, uint32_t b) { return db.node(a).guid < db.node(b).guid; });

  // Which switch a CA folds behind: the peer of its first linked port,
  // when every linked port of it ends at a switch.
  std::vector<uint32_t> leaf(N, NO_INDEX);
  for (uint32_t i = 0; i < N; ++i) {
    const Node& n = db.node(i);
    if (n.is_switch()) continue;
    uint32_t first = NO_INDEX;
    bool all_sw = true;
    for (unsigned p = 1; p <= n.nports; ++p) {
      const Port* q2 = db.peer(db.port(n, p));
      if (!q2) continue;
      if (!db.node_of(*q2).is_switch()) all_sw = false;
      if (first == NO_INDEX) first = q2->node;
    }
    if (all_sw && first != NO_INDEX) leaf[i] = first;
  }

  // Switch tiers, ordered.
  std::vector<std::vector<uint32_t>> tiers(L.depth + 1);
  for (uint32_t i : by_guid)
    if (db.node(i).is_switch()) tiers[dist[i]].push_back(i);
  std::vector<double> pos(N, 0);
  auto place = [&](const std::vector<uint32_t>& t) {
    for (size_t k = 0; k < t.size(); ++k) pos[t[k]] = (double(k) + 0.5) / double(t.size());
  };
  for (auto& t : tiers) place(t);
  // Barycentre sweeps: up (by the tier below), then down (by the tier
  // above); a switch with no neighbour there keeps its place.
  auto reorder = [&](std::vector<uint32_t>& t, unsigned other) {
    std::vector<std::pair<double, uint32_t>> key;
    key.reserve(t.size());
    for (uint32_t i : t) {
      double s = 0;
      unsigned c = 0;
      for (uint32_t j : adj[i])
        if (db.node(j).is_switch() && dist[j] == other) {
          s += pos[j];
          ++c;
        }
      key.push_back({c ? s / c : pos[i], i});
    }
    std::stable_sort(key.begin(), key.end(), [&](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first < b.first;
      return db.node(a.second).guid < db.node(b.second).guid;
    });
    for (size_t k = 0; k < t.size(); ++k) t[k] = key[k].second;
    place(t);
  };
  // Up from the leaves, the leaves by the tier above (switches with the
  // same neighbours, a fat tree's pod, stay together in GUID order), up
  // again: more sweeps down from the top interleave the pods (each core
  // reaches every pod).
  for (unsigned t = 2; t <= L.depth; ++t) reorder(tiers[t], t - 1);
  if (L.depth >= 2) reorder(tiers[1], 2);
  for (unsigned t = 2; t <= L.depth; ++t) reorder(tiers[t], t - 1);

  // Items: the switches, tier by tier; then the host groups (by their
  // leaf's order); then the CAs and routers not folded.
  L.item_of.assign(N, NO_INDEX);
  std::vector<std::vector<uint32_t>> group(N);  // leaf -> hosts
  for (uint32_t i : by_guid)
    if (leaf[i] != NO_INDEX) group[leaf[i]].push_back(i);
  size_t widest = 1;
  for (auto& t : tiers) widest = std::max(widest, t.size());
  std::vector<uint32_t> lone;
  for (uint32_t i : by_guid)
    if (!db.node(i).is_switch() && leaf[i] == NO_INDEX) lone.push_back(i);
  widest = std::max(widest, lone.size());
  L.width = double(widest) * kSpacing + 2 * kMargin;
  const double inner = double(widest) * kSpacing;
  // Rows from the top: tier depth .. 1, then the host groups, then the lone nodes.
  // Rows further apart as the picture widens (a k=32 fat tree's 512
  // switches a row would be a thin strip), at most about 3:1.
  const double gap = std::max(kTierGap, inner * 0.35 / double(std::max(1u, L.depth)));
  auto row_y = [&](unsigned t) { return kMargin + double(L.depth - t) * gap; };
  L.x.assign(N, 0);
  L.y.assign(N, 0);
  for (unsigned t = L.depth; t >= 1; --t) {
    for (uint32_t i : tiers[t]) {
      Item it;
      it.kind = Item::Kind::Switch;
      it.node = i;
      it.tier = t;
      it.x = kMargin + pos[i] * inner;
      it.y = row_y(t);
      L.x[i] = it.x;
      L.y[i] = it.y;
      L.item_of[i] = uint32_t(L.items.size());
      L.items.push_back(std::move(it));
    }
  }
  const double hosts_y = row_y(0);
  double bottom = hosts_y;
  for (unsigned t = 1; t <= L.depth; ++t)
    for (uint32_t s : tiers[t]) {
      if (group[s].empty()) continue;
      if (group[s].size() == 1) {
        // One host: itself, under its switch (no group of one).
        uint32_t h = group[s][0];
        Item it;
        it.kind = Item::Kind::Node;
        it.node = h;
        it.x = L.x[h] = L.x[s];
        it.y = L.y[h] = hosts_y;
        L.item_of[h] = uint32_t(L.items.size());
        L.items.push_back(std::move(it));
        continue;
      }
      Item it;
      it.kind = Item::Kind::Hosts;
      it.node = s;
      it.hosts = group[s];
      it.tier = 0;
      it.x = L.x[s];
      it.y = hosts_y;
      uint32_t idx = uint32_t(L.items.size());
      for (size_t k = 0; k < it.hosts.size(); ++k) {
        uint32_t h = it.hosts[k];
        L.item_of[h] = idx;
        L.x[h] = it.x;
        L.y[h] = hosts_y + kHostStep * double(k + 1);
        bottom = std::max(bottom, L.y[h]);
      }
      L.items.push_back(std::move(it));
    }
  const double lone_y = bottom + gap / 2;
  for (size_t k = 0; k < lone.size(); ++k) {
    uint32_t i = lone[k];
    Item it;
    it.kind = Item::Kind::Node;
    it.node = i;
    it.tier = 0;
    it.x = kMargin + (double(k) + 0.5) / double(lone.size()) * inner;
    it.y = lone_y;
    L.x[i] = it.x;
    L.y[i] = it.y;
    L.item_of[i] = uint32_t(L.items.size());
    L.items.push_back(std::move(it));
  }
  L.height = (lone.empty() ? bottom : lone_y) + kMargin;

  // Edges: the links between two items, grouped by the pair (in order of
  // the pair, then of the links).
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> by_pair;
  for (uint32_t k = 0; k < links.size(); ++k) {
    uint32_t a = L.item_of[db.port(links[k].a).node], b = L.item_of[db.port(links[k].b).node];
    if (a > b) std::swap(a, b);
    by_pair[{a, b}].push_back(k);
  }
  L.edges.reserve(by_pair.size());
  for (auto& [k, v] : by_pair) L.edges.push_back({k.first, k.second, std::move(v)});
  return L;
}

}  // namespace ibcore::reporting
