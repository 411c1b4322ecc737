#include "core/subnet.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>

namespace ibcore {

namespace {

uint64_t be64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}
void put_be64(uint8_t* p, uint64_t v) {
  for (int i = 7; i >= 0; --i) {
    p[i] = uint8_t(v);
    v >>= 8;
  }
}
Raw64 to_raw(std::span<const uint8_t> in) {
  Raw64 r{};
  std::memcpy(r.data(), in.data(), std::min(in.size(), r.size()));
  return r;
}

// PortInfo image offsets (IBA 14.2.5.6).
constexpr size_t PI_LID = 16, PI_CAPMASK = 20, PI_LOCALPORT = 28, PI_LMC = 34;
// NodeInfo image offsets (IBA 14.2.5.3).
constexpr size_t NI_TYPE = 2, NI_NPORTS = 3, NI_SYSGUID = 4, NI_GUID = 12, NI_PORTGUID = 20, NI_DEVID = 30,
                 NI_LOCALPORT = 36, NI_VENDID = 37;

}  // namespace

std::string Node::description() const {
  const char* p = reinterpret_cast<const char*>(desc.data());
  return std::string(p, strnlen(p, desc.size()));
}
uint64_t Node::system_guid() const { return be64(info.data() + NI_SYSGUID); }
uint64_t Node::node_port_guid() const { return be64(info.data() + NI_PORTGUID); }
uint32_t Node::vendor_id() const {
  return (uint32_t(info[NI_VENDID]) << 16) | (uint32_t(info[NI_VENDID + 1]) << 8) | info[NI_VENDID + 2];
}
uint16_t Node::device_id() const { return uint16_t((info[NI_DEVID] << 8) | info[NI_DEVID + 1]); }

std::pair<uint32_t, bool> Subnet::add_node(std::span<const uint8_t> node_info) {
  Raw64 ni = to_raw(node_info);
  uint64_t guid = be64(ni.data() + NI_GUID);
  auto it = by_node_guid_.find(guid);
  if (it != by_node_guid_.end()) return {it->second, false};
  Node n;
  n.guid = guid;
  n.type = NodeType(ni[NI_TYPE] <= 3 ? ni[NI_TYPE] : 0);
  n.nports = ni[NI_NPORTS];
  n.info = ni;
  n.port0 = uint32_t(ports_.size());
  uint32_t idx = uint32_t(nodes_.size());
  ports_.resize(ports_.size() + n.nports + 1);
  for (unsigned i = 0; i <= n.nports; ++i) {
    Port& p = ports_[n.port0 + i];
    p.node = idx;
    p.num = uint8_t(i);
  }
  nodes_.push_back(std::move(n));
  by_node_guid_.emplace(guid, idx);
  return {idx, true};
}

void Subnet::set_desc(uint32_t n, std::span<const uint8_t> desc) {
  nodes_[n].desc = to_raw(desc);
  nodes_[n].has_desc = true;
}

void Subnet::set_switch_info(uint32_t n, std::span<const uint8_t> swinfo) {
  Node& x = nodes_[n];
  x.swinfo = to_raw(swinfo);
  x.has_swinfo = true;
  x.enhsp0 = x.switch_info().enhancedPort0() != 0;
}

void Subnet::touch_port(uint32_t n, unsigned num, uint64_t port_guid) {
  Node& x = nodes_[n];
  if (num > x.nports) return;
  Port& p = ports_[x.port0 + num];
  if (!p.exists) {
    p.exists = true;
    p.guid = port_guid;
    by_port_guid_.emplace(port_guid, x.port0 + (x.is_switch() ? 0 : num));
  }
}

void Subnet::set_port_info(uint32_t n, unsigned num, std::span<const uint8_t> pinfo) {
  Node& x = nodes_[n];
  if (num > x.nports) return;
  uint32_t pi = x.port0 + num;
  Port& p = ports_[pi];
  p.info = to_raw(pinfo);
  p.has_info = true;
  if (!p.exists) {
    p.exists = true;
    p.guid = x.node_port_guid();
    by_port_guid_.emplace(p.guid, x.port0 + (x.is_switch() ? 0 : num));
  }
  p.base_lid = uint16_t((p.info[PI_LID] << 8) | p.info[PI_LID + 1]);
  p.lmc = p.info[PI_LMC] & 7;
  if (x.is_switch()) {
    if (num == 0) {
      x.smalid = p.base_lid;
      x.smalmc = p.lmc;
      // Ports read before port 0 take its LID now.
      for (unsigned i = 1; i <= x.nports; ++i) {
        Port& q = ports_[x.port0 + i];
        if (q.has_info) {
          q.base_lid = x.smalid;
          q.lmc = x.smalmc;
        }
      }
      index_lid(pi);
    } else {
      p.base_lid = x.smalid;
      p.lmc = x.smalmc;
    }
  } else {
    index_lid(pi);
  }
}

void Subnet::index_lid(uint32_t pi) {
  const Port& p = ports_[pi];
  if (p.base_lid == 0 || p.base_lid > iba::UNICAST_LID_LAST) return;
  uint32_t end = std::min<uint32_t>(uint32_t(p.base_lid) + (1u << p.lmc), iba::MLID_BASE);
  if (by_lid_.size() < end) by_lid_.resize(end, NO_INDEX);
  for (uint32_t l = p.base_lid; l < end; ++l)
    if (by_lid_[l] == NO_INDEX) by_lid_[l] = pi;
}

void Subnet::reindex_lids() {
  by_lid_.clear();
  for (uint32_t i = 0; i < ports_.size(); ++i) {
    const Port& p = ports_[i];
    if (!p.exists) continue;
    const Node& x = nodes_[p.node];
    if (x.is_switch() ? p.num == 0 : p.num != 0) index_lid(i);
  }
}

void Subnet::finish_load() {
  by_port_guid_.clear();
  for (uint32_t i = 0; i < ports_.size(); ++i) {
    const Port& p = ports_[i];
    if (!p.exists) continue;
    const Node& x = nodes_[p.node];
    by_port_guid_.emplace(p.guid, x.port0 + (x.is_switch() ? 0 : p.num));
  }
  reindex_lids();
}

void Subnet::rename_node(uint32_t n, uint64_t guid) {
  by_node_guid_.erase(nodes_[n].guid);
  nodes_[n].guid = guid;
  by_node_guid_[guid] = n;
}

void Subnet::set_port_guid(uint32_t port, uint64_t guid) {
  Port& p = ports_[port];
  auto it = by_port_guid_.find(p.guid);
  uint32_t key = nodes_[p.node].is_switch() ? nodes_[p.node].port0 : port;
  if (it != by_port_guid_.end() && it->second == key) by_port_guid_.erase(it);
  p.guid = guid;
  if (p.exists) by_port_guid_.emplace(guid, key);
}

void Subnet::link(uint32_t pa, uint32_t pb) {
  unlink(pa);
  unlink(pb);
  ports_[pa].peer = pb;
  ports_[pb].peer = pa;
}

void Subnet::unlink(uint32_t p) {
  uint32_t q = ports_[p].peer;
  if (q != NO_INDEX && ports_[q].peer == p) ports_[q].peer = NO_INDEX;
  ports_[p].peer = NO_INDEX;
}

uint32_t Subnet::node_by_guid(uint64_t guid) const {
  auto it = by_node_guid_.find(guid);
  return it == by_node_guid_.end() ? NO_INDEX : it->second;
}

uint32_t Subnet::port_by_guid(uint64_t guid) const {
  auto it = by_port_guid_.find(guid);
  return it == by_port_guid_.end() ? NO_INDEX : it->second;
}

uint32_t Subnet::port_by_lid(uint16_t lid) const { return lid < by_lid_.size() ? by_lid_[lid] : NO_INDEX; }

uint32_t Subnet::port_by_dr(std::span<const uint8_t> hops) const {
  if (from_node == NO_INDEX) return NO_INDEX;
  uint32_t cur = port_index(from_node, from_port);
  for (uint8_t h : hops) {
    const Port& p = ports_[cur];
    uint32_t out = port_index(p.node, h);
    if (out == NO_INDEX || ports_[out].peer == NO_INDEX) return NO_INDEX;
    cur = ports_[out].peer;
  }
  return cur;
}

uint16_t Subnet::lid_of(const Port& p) const {
  const Node& x = nodes_[p.node];
  return x.is_switch() ? x.smalid : p.base_lid;
}

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
    x.info[NI_LOCALPORT] = fp;
    if (!x.is_switch() && fp <= x.nports && ports_[x.port0 + fp].exists)
      put_be64(x.info.data() + NI_PORTGUID, ports_[x.port0 + fp].guid);
    // PortInfo.localPortNum: the port the reference's query entered by.
    for (unsigned k = 0; k <= x.nports; ++k)
      if (ports_[x.port0 + k].has_info)
        ports_[x.port0 + k].info[PI_LOCALPORT] = x.is_switch() ? st[i].entry : uint8_t(k);
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

// --- formatting ---------------------------------------------------------------------

const char* width_compat(unsigned w) {
  switch (w) {
    case 1: return "1x";
    case 2: return "4x";
    case 4: return "8x";
    case 8: return "12x";
    case 16: return "2x";
  }
  return "??";
}

const char* speed_compat(unsigned s) {
  switch (s) {
    case 1: return "SDR";
    case 2: return "DDR";
    case 4: return "QDR";
  }
  return "???";
}

unsigned ext_speed_active(const Subnet& db, const Port& p) {
  const Node& n = db.node_of(p);
  const Port* cap = n.is_switch() ? &db.port(n, 0) : &p;
  if (!cap->has_info) return 0;
  uint32_t capmask = (uint32_t(cap->info[PI_CAPMASK]) << 24) | (uint32_t(cap->info[PI_CAPMASK + 1]) << 16) |
                     (uint32_t(cap->info[PI_CAPMASK + 2]) << 8) | cap->info[PI_CAPMASK + 3];
  if (!(capmask & 0x4000)) return 0;
  return (p.info[62] >> 4) & 0xf;
}

const char* port_speed_compat(const Subnet& db, const Port& p) {
  const Node& n = db.node_of(p);
  if (n.is_switch() && !db.port(n, 0).has_info) return speed_compat(0);
  unsigned ispeed = p.speed_active();
  unsigned espeed = ext_speed_active(db, p);
  if (ispeed != 4 && !espeed) return speed_compat(ispeed);
  switch (espeed) {
    case 0: return (p.mlnx_speed & 1) ? "FDR10" : speed_compat(ispeed);
    case 1: return "FDR";
    case 2: return "EDR";
    case 4: return "HDR";
    case 8: return "NDR";
  }
  return "???";
}

const char* node_type_word(NodeType t) {
  switch (t) {
    case NodeType::Switch: return "Switch";
    case NodeType::CA: return "Ca";
    case NodeType::Router: return "Router";
    default: return "???";
  }
}

}  // namespace ibcore
