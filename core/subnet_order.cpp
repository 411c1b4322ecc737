// The reference's node order (Subnet::compute_reference_order and the
// lookups over its result): infiniband-diags' discovery replayed on the
// discovered graph, so every printer and cache writer gives the reference's
// order whatever order the replies came in.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <deque>

#include "core/subnet.h"

namespace ibcore {

// --- the reference's order ----------------------------------------------------------
//
// infiniband-diags' discovery keeps one FIFO of SMPs; with replies arriving
// in the order sent (a healthy fabric), every reply is handled in FIFO order
// whatever the number in flight.  Handling a NodeInfo reply for a new node
// creates it and queues NodeDescription, and for a switch SwitchInfo and
// PortInfo(0); a non-switch queues PortInfo of the port reached.  Handling
// switch PortInfo(0) queues PortInfo(1..N).  Handling PortInfo(p) of a LinkUp
// port that is not the port the switch was entered by (or the local port of
// a CA start node) queues a NodeInfo one hop further.  Replaying that FIFO on
// the discovered graph gives its node creation order exactly.
void Subnet::compute_reference_order(bool with_progress) {
  ref_port_order_.clear();
  ref_progress_.clear();
  ref_mads_ = 0;
  for (Node& n : nodes_) {
    n.order = NO_INDEX;
    n.ref_parent = NO_INDEX;
  }
  if (from_node == NO_INDEX) return;

  enum Kind : uint8_t { NI, ND, SI, PI };
  struct Ev {
    Kind kind;
    uint8_t port;       // PI: port number; NI: the port reached
    uint32_t node;      // the node the SMP goes to
    uint32_t via;       // NI: the port slot probed from (NO_INDEX = start)
    uint32_t hops;      // DR hop count of the SMP
  };
  struct St {
    uint32_t hops = 0;
    uint8_t entry = 0;  // the port the first path enters by
    bool desc_done = false;
  };
  std::vector<St> st(nodes_.size());
  std::vector<uint8_t> pi_done(ports_.size(), 0);
  std::vector<uint8_t> first_port(nodes_.size(), 0);
  std::deque<Ev> q;
  uint32_t created = 0, maxhops = 0;

  // The DR path of an SMP sent through port slot via (NO_INDEX: to the
  // start node), from the parent links.
  auto path_str = [&](uint32_t via) {
    std::vector<uint8_t> hops;
    for (uint32_t cur = via; cur != NO_INDEX; cur = nodes_[ports_[cur].node].ref_parent)
      hops.push_back(ports_[cur].num);
    std::string s = "0";
    for (auto it = hops.rbegin(); it != hops.rend(); ++it) s += "," + std::to_string(*it);
    return s;
  };

  q.push_back({NI, from_port, from_node, NO_INDEX, 0});
  while (!q.empty()) {
    Ev e = q.front();
    q.pop_front();
    ++ref_mads_;
    Node& x = nodes_[e.node];
    switch (e.kind) {
      case NI: {
        bool is_new = x.order == NO_INDEX;
        if (is_new) {
          x.order = created++;
          st[e.node].hops = e.hops;
          st[e.node].entry = e.port;
          first_port[e.node] = e.port;
          x.ref_parent = e.via;
        }
        if (with_progress) {
          const Port& p = ports_[x.port0 + e.port];
          uint16_t lid = pi_done[x.port0 + e.port] ? p.base_lid : 0;
          uint8_t lmc = pi_done[x.port0 + e.port] ? p.lmc : 0;
          const char* tn = x.type == NodeType::Switch ? "Switch"
                           : x.type == NodeType::CA   ? "Channel Adapter"
                           : x.type == NodeType::Router ? "Router"
                                                        : "???";
          char buf[512];
          std::snprintf(buf, sizeof buf, "DR path slid 0; dlid 0; %s -> %s %s {%016" PRIx64 "} portnum %d lid %d-%d \"%s\"",
                        path_str(e.via).c_str(), is_new ? "new" : "known", tn, x.guid,
                        x.is_switch() ? 0 : int(e.port), lid, lid + (1 << lmc) - 1,
                        st[e.node].desc_done ? x.description().c_str() : "");
          ref_progress_.push_back(buf);
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
        st[e.node].desc_done = true;
        break;
      case SI:
        break;
      case PI: {
        uint32_t pi = x.port0 + e.port;
        if (!ports_[pi].has_info) break;
        if (!pi_done[pi]) {
          pi_done[pi] = 1;
          ref_port_order_.push_back(pi);
        }
        if (x.is_switch() && e.port == 0) {
          for (unsigned i = 1; i <= x.nports; ++i) q.push_back({PI, uint8_t(i), e.node, NO_INDEX, e.hops});
          break;
        }
        const Port& p = ports_[pi];
        if (e.port == 0 || p.phys_state() != PHYS_LINKUP) break;
        bool go = x.is_switch() ? e.port != st[e.node].entry
                                : (e.node == from_node && e.port == from_port);
        if (!go) break;
        uint32_t h = e.hops + 1;
        maxhops = std::max(maxhops, h);
        if (p.peer == NO_INDEX) {
          ++ref_mads_;  // a probe nobody answers
          break;
        }
        const Port& r = ports_[p.peer];
        q.push_back({NI, r.num, r.node, pi, h});
        break;
      }
    }
  }
  max_hops = maxhops;

  // The first reply's NodeInfo (and switch PortInfo localPortNum) as the
  // reference stores them.
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    Node& x = nodes_[i];
    if (x.order == NO_INDEX) continue;
    uint8_t fp = first_port[i];
    iba::SMPNodeInfo::set_localPortNum_at(x.info.data(), fp);
    if (!x.is_switch() && fp <= x.nports && ports_[x.port0 + fp].exists)
      iba::SMPNodeInfo::set_portGUID_at(x.info.data(), ports_[x.port0 + fp].guid);
    // PortInfo.localPortNum: the port the reference's query entered by.
    for (unsigned k = 0; k <= x.nports; ++k)
      if (ports_[x.port0 + k].has_info)
        iba::SMPPortInfo::set_localPortNum_at(ports_[x.port0 + k].info.data(), x.is_switch() ? st[i].entry : k);
  }
  // Nodes the replay did not reach (a partial graph) go last, in index order.
  for (Node& n : nodes_)
    if (n.order == NO_INDEX) n.order = created++;
}

std::optional<std::vector<uint8_t>> Subnet::ref_dr(uint32_t n) const {
  if (nodes_[n].order == NO_INDEX) return std::nullopt;
  std::vector<uint8_t> hops;
  for (uint32_t cur = nodes_[n].ref_parent; cur != NO_INDEX; cur = nodes_[ports_[cur].node].ref_parent) {
    hops.push_back(ports_[cur].num);
    if (hops.size() > nodes_.size()) return std::nullopt;  // a cycle: not from the replay
  }
  if (n != from_node && hops.empty()) return std::nullopt;  // not reached by the replay
  std::reverse(hops.begin(), hops.end());
  return hops;
}

std::string Subnet::ref_dr_string(uint32_t n) const {
  auto h = ref_dr(n);
  if (!h) return {};
  std::string s = "0";
  for (uint8_t x : *h) s += "," + std::to_string(x);
  return s;
}

std::vector<uint32_t> Subnet::reference_order(NodeType t) const {
  std::vector<uint32_t> v;
  for (uint32_t i = 0; i < nodes_.size(); ++i)
    if (t == NodeType::Unknown || nodes_[i].type == t) v.push_back(i);
  std::sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) { return nodes_[a].order > nodes_[b].order; });
  return v;
}

}  // namespace ibcore
