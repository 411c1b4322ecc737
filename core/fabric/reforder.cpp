// The reference's view of a subnet: its discovery replayed on the graph
// (core/fabric/reforder.h says how), and the view of images that already are its
// records.
#include "core/fabric/reforder.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <deque>

namespace ibcore {

RefView recorded_view(const Subnet& db) {
  RefView v;
  size_t nn = db.node_count();
  v.entry.resize(nn);
  v.port_guid.resize(nn);
  v.local_port.resize(db.port_slots());
  for (uint32_t i = 0; i < nn; ++i) {
    const Node& x = db.node(i);
    v.entry[i] = x.local_port_num();
    v.port_guid[i] = x.node_port_guid();
    for (unsigned k = 0; k <= x.nports; ++k) v.local_port[x.port0 + k] = uint8_t(db.port(x, k).local_port_num());
  }
  return v;
}

void record_entry(RefView& v, const Subnet& db, uint32_t n, uint8_t entry) {
  const Node& x = db.node(n);
  v.entry[n] = entry;
  if (!x.is_switch() && entry <= x.nports && db.port(x, entry).exists) v.port_guid[n] = db.port(x, entry).guid;
  for (unsigned k = 0; k <= x.nports; ++k)
    if (db.port(x, k).has_info) v.local_port[x.port0 + k] = x.is_switch() ? entry : uint8_t(k);
}

RefView replay_reference(const Subnet& db, bool with_progress) {
  if (db.from_node == NO_INDEX) return {};
  RefView v = recorded_view(db);
  const size_t nn = db.node_count();
  v.rank.assign(nn, NO_INDEX);
  v.parent.assign(nn, NO_INDEX);

  enum Kind : uint8_t { NI, ND, SI, PI };
  struct Ev {
    Kind kind;
    uint8_t port;       // PI: port number; NI: the port reached
    uint32_t node;      // the node the SMP goes to
    uint32_t via;       // NI: the port slot probed from (NO_INDEX = start)
    uint32_t hops;      // DR hop count of the SMP
  };
  std::vector<uint8_t> entry(nn, 0);       // the port the first path enters by
  std::vector<uint8_t> desc_done(nn, 0);
  std::vector<uint8_t> pi_done(db.port_slots(), 0);
  std::deque<Ev> q;
  uint32_t created = 0;

  // The DR path of an SMP sent through port slot via (NO_INDEX: to the
  // start node), from the parent links.
  auto path_str = [&](uint32_t via) {
    std::vector<uint8_t> hops;
    for (uint32_t cur = via; cur != NO_INDEX; cur = v.parent[db.port(cur).node]) hops.push_back(db.port(cur).num);
    std::string s = "0";
    for (auto it = hops.rbegin(); it != hops.rend(); ++it) s += "," + std::to_string(*it);
    return s;
  };

  q.push_back({NI, db.from_port, db.from_node, NO_INDEX, 0});
  while (!q.empty()) {
    Ev e = q.front();
    q.pop_front();
    ++v.mads;
    const Node& x = db.node(e.node);
    switch (e.kind) {
      case NI: {
        bool is_new = v.rank[e.node] == NO_INDEX;
        if (is_new) {
          v.rank[e.node] = created++;
          entry[e.node] = e.port;
          v.parent[e.node] = e.via;
        }
        if (with_progress) {
          uint32_t slot = x.port0 + e.port;
          const Port& p = db.port(slot);
          uint16_t lid = pi_done[slot] ? p.base_lid : 0;
          uint8_t lmc = pi_done[slot] ? p.lmc : 0;
          const char* tn = x.type == NodeType::Switch ? "Switch"
                           : x.type == NodeType::CA   ? "Channel Adapter"
                           : x.type == NodeType::Router ? "Router"
                                                        : "???";
          char buf[512];
          std::snprintf(buf, sizeof buf, "DR path slid 0; dlid 0; %s -> %s %s {%016" PRIx64 "} portnum %d lid %d-%d \"%s\"",
                        path_str(e.via).c_str(), is_new ? "new" : "known", tn, x.guid,
                        x.is_switch() ? 0 : int(e.port), lid, lid + (1 << lmc) - 1,
                        desc_done[e.node] ? x.description().c_str() : "");
          v.progress.push_back(buf);
        }
        if (is_new) {
          q.push_back({ND, 0, e.node, NO_INDEX, e.hops});
          if (x.is_switch()) {
            q.push_back({SI, 0, e.node, NO_INDEX, e.hops});
            q.push_back({PI, 0, e.node, NO_INDEX, e.hops});
          }
        }
        if (!x.is_switch()) q.push_back({PI, e.port, e.node, NO_INDEX, e.hops});
        break;
      }
      case ND:
        desc_done[e.node] = 1;
        break;
      case SI:
        break;
      case PI: {
        uint32_t pi = x.port0 + e.port;
        const Port& p = db.port(pi);
        if (!p.has_info) break;
        if (!pi_done[pi]) {
          pi_done[pi] = 1;
          v.port_order.push_back(pi);
        }
        if (x.is_switch() && e.port == 0) {
          for (unsigned i = 1; i <= x.nports; ++i) q.push_back({PI, uint8_t(i), e.node, NO_INDEX, e.hops});
          break;
        }
        if (e.port == 0 || p.phys_state() != PHYS_LINKUP) break;
        bool go = x.is_switch() ? e.port != entry[e.node] : (e.node == db.from_node && e.port == db.from_port);
        if (!go) break;
        uint32_t h = e.hops + 1;
        v.max_hops = std::max(v.max_hops, h);
        if (p.peer == NO_INDEX) {
          ++v.mads;  // a probe nobody answers
          break;
        }
        const Port& r = db.port(p.peer);
        q.push_back({NI, r.num, r.node, pi, h});
        break;
      }
    }
  }

  // What the reference's first replies said, for the nodes it reached; the
  // others (a partial graph) go last, in index order.
  for (uint32_t i = 0; i < nn; ++i)
    if (v.rank[i] != NO_INDEX) record_entry(v, db, i, entry[i]);
  for (uint32_t i = 0; i < nn; ++i)
    if (v.rank[i] == NO_INDEX) v.rank[i] = created++;
  return v;
}

}  // namespace ibcore
