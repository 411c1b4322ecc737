#include "core/fabric/subnet.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace ibcore {

namespace {

Raw64 to_raw(std::span<const uint8_t> in) {
  Raw64 r{};
  std::memcpy(r.data(), in.data(), std::min(in.size(), r.size()));
  return r;
}

}  // namespace

std::string Node::description() const {
  const char* p = reinterpret_cast<const char*>(desc.data());
  return std::string(p, strnlen(p, desc.size()));
}
uint64_t Node::system_guid() const { return iba::SMPNodeInfo::systemImageGUID_at(info.data()); }
uint64_t Node::node_port_guid() const { return iba::SMPNodeInfo::portGUID_at(info.data()); }
uint32_t Node::vendor_id() const { return uint32_t(iba::SMPNodeInfo::vendorID_at(info.data())); }
uint16_t Node::device_id() const { return uint16_t(iba::SMPNodeInfo::deviceID_at(info.data())); }

std::pair<uint32_t, bool> Subnet::add_node(std::span<const uint8_t> node_info) {
  Raw64 ni = to_raw(node_info);
  uint64_t guid = iba::SMPNodeInfo::nodeGUID_at(ni.data());
  auto it = by_node_guid_.find(guid);
  if (it != by_node_guid_.end()) return {it->second, false};
  Node n;
  n.guid = guid;
  unsigned type = unsigned(iba::SMPNodeInfo::nodeType_at(ni.data()));
  n.type = NodeType(type <= 3 ? type : 0);
  n.nports = uint8_t(iba::SMPNodeInfo::numPorts_at(ni.data()));
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
  p.base_lid = uint16_t(iba::SMPPortInfo::LID_at(p.info.data()));
  p.lmc = uint8_t(iba::SMPPortInfo::LMC_at(p.info.data()));
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

// --- the reference's view -------------------------------------------------------------

std::vector<uint32_t> Subnet::reference_order(NodeType t) const {
  std::vector<uint32_t> v;
  for (uint32_t i = 0; i < nodes_.size(); ++i)
    if (t == NodeType::Unknown || nodes_[i].type == t) v.push_back(i);
  if (ref_.rank.size() == nodes_.size())
    std::sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) { return ref_.rank[a] > ref_.rank[b]; });
  else
    std::reverse(v.begin(), v.end());
  return v;
}

std::optional<std::vector<uint8_t>> Subnet::ref_dr(uint32_t n) const {
  if (ref_.rank.size() != nodes_.size()) return std::nullopt;  // no view
  bool parents = ref_.parent.size() == nodes_.size();
  std::vector<uint8_t> hops;
  for (uint32_t cur = parents ? ref_.parent[n] : NO_INDEX; cur != NO_INDEX; cur = ref_.parent[ports_[cur].node]) {
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

uint64_t Subnet::ref_port_guid(const Node& n) const {
  uint32_t i = ports_[n.port0].node;
  return ref_.port_guid.size() == nodes_.size() ? ref_.port_guid[i] : n.node_port_guid();
}

Raw64 Subnet::ref_node_info(const Node& n) const {
  Raw64 r = n.info;
  uint32_t i = ports_[n.port0].node;
  if (ref_.entry.size() == nodes_.size()) iba::SMPNodeInfo::set_localPortNum_at(r.data(), ref_.entry[i]);
  if (ref_.port_guid.size() == nodes_.size()) iba::SMPNodeInfo::set_portGUID_at(r.data(), ref_.port_guid[i]);
  return r;
}

Raw64 Subnet::ref_port_info(const Port& p) const {
  Raw64 r = p.info;
  uint32_t slot = nodes_[p.node].port0 + p.num;
  if (ref_.local_port.size() == ports_.size()) iba::SMPPortInfo::set_localPortNum_at(r.data(), ref_.local_port[slot]);
  return r;
}

// --- formatting ---------------------------------------------------------------------

const char* width_compat(unsigned w) {
  const char* name = iba::enums::name_of(iba::enums::link_widths(), w);
  return name ? name : "??";
}

const char* speed_compat(unsigned s) {
  const char* name = iba::enums::name_of(iba::enums::link_speeds(), s);
  return name ? name : "???";
}

unsigned ext_speeds(const Subnet& db, const Port& p, iba::SpeedOf which) {
  const Node& n = db.node_of(p);
  const Port* cap = n.is_switch() ? &db.port(n, 0) : &p;
  if (!cap->has_info || !p.has_info) return 0;
  return iba::ext_speeds(p.port_info(), cap->port_info(), which);
}

unsigned ext_speed_active(const Subnet& db, const Port& p) { return ext_speeds(db, p, iba::SpeedOf::Active); }

const char* port_speed_compat(const Subnet& db, const Port& p) {
  const Node& n = db.node_of(p);
  if (n.is_switch() && !db.port(n, 0).has_info) return speed_compat(0);
  unsigned ispeed = p.speed_active();
  unsigned espeed = ext_speed_active(db, p);
  if (ispeed != 4 && !espeed) return speed_compat(ispeed);
  if (espeed == 0) return (p.mlnx_speed & 1) ? "FDR10" : speed_compat(ispeed);
  const char* name = iba::enums::name_of(iba::enums::link_speeds_ext(), espeed);
  return name ? name : "???";
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
