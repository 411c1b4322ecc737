#include "core/discovery.h"

#include <algorithm>
#include <cstdio>

#include "core/error.h"

namespace ibcore {

namespace {

// Mellanox devices whose ports answer MlnxExtPortInfo (the FDR10 speed).
bool mlnx_ext_supported(uint16_t devid, uint32_t vendid) {
  if ((devid >= 0xc738 && devid <= 0xc73b) || devid == 0xc839 || devid == 0xcb20 || devid == 0xcf08 ||
      devid == 0xcf09 || devid == 0xd2f0)
    return true;
  if ((devid >= 0x1003 && devid <= 0x101b) || devid == 0xa2d2) return true;
  if (vendid == 0x119f) {
    static const uint16_t bull[] = {0x1b02, 0x1b50, 0x1ba0, 0x1bf0, 0x1b33, 0x1b73, 0x1b40, 0x1b41,
                                    0x1b60, 0x1b61, 0x1b83, 0x1b93, 0x1b94, 0x1bb4, 0x1bb5};
    if (std::find(std::begin(bull), std::end(bull), devid) != std::end(bull)) return true;
    if ((devid >= 0x1bd0 && devid <= 0x1bd5) || (devid >= 0x1bc4 && devid <= 0x1bc6)) return true;
  }
  return false;
}

class Walker {
public:
  Walker(Scheduler& s, Subnet& db, const DiscoveryOptions& o) : s_(s), db_(db), opt_(o) {
    Transport& t = s.transport();
    local_lid_ = t.local_lid();
  }

  DiscoveryResult run() {
    use_lid_ = false;
    DiscoveryMode m = opt_.mode == DiscoveryMode::Auto ? config().discovery : opt_.mode;
    if (m == DiscoveryMode::Auto || m == DiscoveryMode::SA) m = local_lid_ ? DiscoveryMode::LID : DiscoveryMode::DR;
    if (m == DiscoveryMode::LID && !local_lid_) m = DiscoveryMode::DR;
    use_lid_ = m == DiscoveryMode::LID;
    res_.mode_used = m;
    uint64_t sent0 = s_.engine().sent();

    // The start node, synchronously within the scheduler: its failure is fatal.
    s_.spawn(start());
    s_.run();
    if (start_error_) std::rethrow_exception(start_error_);
    db_.mads_used = res_.mads = s_.engine().sent() - sent0;
    db_.compute_reference_order(opt_.progress);
    return std::move(res_);
  }

private:
  IBPath dr(const std::vector<uint8_t>& hops) const {
    IBDRPath p(hops);
    p.ca = ca_;
    p.port = port_;
    return p;
  }
  // The path for a query to node n: LID routed when allowed and known.
  IBPath path_for(uint32_t n, unsigned port_hint = 0) const {
    const Node& x = db_.node(n);
    uint16_t lid = 0;
    if (use_lid_) {
      if (x.is_switch()) lid = x.smalid;
      else if (port_hint && port_hint <= x.nports && db_.port(x, port_hint).has_info)
        lid = db_.port(x, port_hint).base_lid;
    }
    if (lid && n != db_.from_node) {
      IBPath p;
      p.ca = ca_;
      p.port = port_;
      p.DLID = lid;
      p.SLID = local_lid_;
      return p;
    }
    return dr(x.dr);
  }
  // The path of a probe out of port p of node n: always directed route
  // (the link is what is being found).  A LID route with a one-hop DR tail
  // would also do by IBA 14.2.2, but simulators (ibsim) do not route it.
  IBPath probe_path(uint32_t n, unsigned p) const {
    std::vector<uint8_t> h = db_.node(n).dr;
    h.push_back(uint8_t(p));
    return dr(h);
  }

  void fail(const std::exception& e, const std::string& what) {
    std::string msg = what;
    if (auto* me = dynamic_cast<const MADError*>(&e)) {
      for (auto& l : me->layers()) msg += ": " + l;
    } else {
      msg += std::string(": ") + e.what();
    }
    res_.errors.push_back(std::move(msg));
  }

  static std::string node_str(const Node& x) {
    char b[64];
    std::snprintf(b, sizeof b, "node 0x%016llx", (unsigned long long)x.guid);
    return b;
  }

  Task<> start() {
    IBPath p = dr(opt_.from);
    iba::SMPNodeInfo ni;
    try {
      ni = co_await s_.SubnGet<iba::SMPNodeInfo>(p);
    } catch (MADError& e) {
      e.annotate("Failed to query the start node at " + p.describe());
      start_error_ = std::current_exception();
      co_return;
    } catch (...) {
      start_error_ = std::current_exception();
      co_return;
    }
    auto [n, created] = db_.add_node(ni.bytes());
    (void)created;
    db_.from_node = n;
    db_.from_port = uint8_t(ni.localPortNum());
    db_.node(n).dr = opt_.from;
    db_.touch_port(n, ni.localPortNum(), ni.portGUID());
    new_node(n, uint8_t(ni.localPortNum()));
  }

  // Queue the queries of a node seen for the first time.
  void new_node(uint32_t n, uint8_t entry) {
    const Node& x = db_.node(n);
    s_.spawn(node_desc(n));
    if (x.is_switch()) {
      s_.spawn(switch_node(n, entry));
    } else {
      s_.spawn(ca_port(n, entry, db_.node(n).dr));
    }
  }

  Task<> node_desc(uint32_t n) {
    try {
      auto d = co_await s_.SubnGet<iba::SMPNodeDescription>(path_for(n, db_.node(n).local_port_num()));
      db_.set_desc(n, d.bytes());
    } catch (const std::exception& e) {
      fail(e, "NodeDescription of " + node_str(db_.node(n)));
    }
  }

  Task<> switch_node(uint32_t n, uint8_t entry) {
    // PortInfo 0 first: it carries the switch's LID (then LID routing can be used).
    try {
      auto pi = co_await s_.SubnGet<iba::SMPPortInfo>(dr(db_.node(n).dr), 0);
      db_.set_port_info(n, 0, pi.bytes());
    } catch (const std::exception& e) {
      fail(e, "PortInfo 0 of " + node_str(db_.node(n)));
    }
    s_.spawn(switch_info(n));
    const Node& x = db_.node(n);
    for (unsigned p = 1; p <= x.nports; ++p) s_.spawn(switch_port(n, uint8_t(p), entry));
    if (opt_.read_lft || opt_.read_mft) tables_.push_back(n);
  }

  Task<> switch_info(uint32_t n) {
    try {
      auto si = co_await s_.SubnGet<iba::SMPSwitchInfo>(path_for(n));
      db_.set_switch_info(n, si.bytes());
    } catch (const std::exception& e) {
      fail(e, "SwitchInfo of " + node_str(db_.node(n)));
    }
  }

  Task<> switch_port(uint32_t n, uint8_t p, uint8_t entry) {
    iba::SMPPortInfo pi;
    try {
      pi = co_await s_.SubnGet<iba::SMPPortInfo>(path_for(n), p);
    } catch (const std::exception& e) {
      fail(e, "PortInfo " + std::to_string(p) + " of " + node_str(db_.node(n)));
      co_return;
    }
    db_.set_port_info(n, p, pi.bytes());
    if (need_mlnx_ext(n, p)) co_await mlnx_ext(n, p);
    if (p != entry && pi.portPhysicalState() == PHYS_LINKUP) co_await probe(n, p);
  }

  // PortInfo of CA/router port p, asked through that port (hops reach it).
  Task<> ca_port(uint32_t n, uint8_t p, std::vector<uint8_t> hops) {
    iba::SMPPortInfo pi;
    try {
      pi = co_await s_.SubnGet<iba::SMPPortInfo>(dr(hops), p);
    } catch (const std::exception& e) {
      fail(e, "PortInfo " + std::to_string(p) + " of " + node_str(db_.node(n)));
      co_return;
    }
    db_.set_port_info(n, p, pi.bytes());
    if (need_mlnx_ext(n, p)) co_await mlnx_ext(n, p);
    // Only the start node (a CA) is left through its own port.
    if (n == db_.from_node && p == db_.from_port && pi.portPhysicalState() == PHYS_LINKUP) co_await probe(n, p);
  }

  bool need_mlnx_ext(uint32_t n, uint8_t p) const {
    if (!opt_.mlx_epi) return false;
    const Node& x = db_.node(n);
    if (!mlnx_ext_supported(x.device_id(), x.vendor_id())) return false;
    const Port& port = db_.port(x, p);
    return port.phys_state() == PHYS_LINKUP && port.speed_active() == 4 && ext_speed_active(db_, port) == 0;
  }

  Task<> mlnx_ext(uint32_t n, uint8_t p) {
    try {
      auto e = co_await s_.SubnGet<iba::SMPMlnxExtPortInfo>(path_for(n, p), p);
      db_.port(db_.port_index(n, p)).mlnx_speed = uint8_t(e.linkSpeedActive());
    } catch (const std::exception&) {
      // Not every firmware answers it; the speed then shows without FDR10.
    }
  }

  // NodeInfo through port p of node n: finds the link and maybe a new node.
  Task<> probe(uint32_t n, uint8_t p) {
    uint32_t slot = db_.port_index(n, p);
    if (db_.port(slot).peer != NO_INDEX) co_return;  // found from the other end already
    size_t hops = db_.node(n).dr.size() + 1;
    if (opt_.max_hops && hops > opt_.max_hops) co_return;
    iba::SMPNodeInfo ni;
    try {
      ni = co_await s_.SubnGet<iba::SMPNodeInfo>(probe_path(n, p));
    } catch (const std::exception& e) {
      fail(e, "NodeInfo through port " + std::to_string(p) + " of " + node_str(db_.node(n)));
      co_return;
    }
    auto [m, created] = db_.add_node(ni.bytes());
    uint8_t rp = uint8_t(ni.localPortNum());
    Node& y = db_.node(m);
    if (rp > y.nports) {
      res_.errors.push_back("NodeInfo of " + node_str(y) + " names port " + std::to_string(rp) +
                            " beyond its " + std::to_string(y.nports) + " ports");
      co_return;
    }
    db_.touch_port(m, rp, ni.portGUID());
    db_.link(slot, db_.port_index(m, rp));
    if (created) {
      y.dr = db_.node(n).dr;
      y.dr.push_back(p);
      new_node(m, rp);
    } else if (!y.is_switch()) {
      // A CA/router reached through another of its ports.
      if (!db_.port(y, rp).has_info) {
        std::vector<uint8_t> h = db_.node(n).dr;
        h.push_back(p);
        s_.spawn(ca_port(m, rp, std::move(h)));
      }
    }
  }

  Scheduler& s_;
  Subnet& db_;
  const DiscoveryOptions& opt_;
  DiscoveryResult res_;
  std::exception_ptr start_error_;
  uint16_t local_lid_ = 0;
  bool use_lid_ = false;
  std::string ca_;
  int port_ = 0;

public:
  std::vector<uint32_t> tables_;
};

// --- forwarding tables -------------------------------------------------------------

class TableReader {
public:
  TableReader(Scheduler& s, Subnet& db, DiscoveryResult* res) : s_(s), db_(db), res_(res) {}

  IBPath path(uint32_t n) const {
    const Node& x = db_.node(n);
    uint16_t local = s_.transport().local_lid();
    if (local && x.smalid && n != db_.from_node && config().discovery != DiscoveryMode::DR) {
      IBPath p;
      p.DLID = x.smalid;
      p.SLID = local;
      return p;
    }
    return dr_path_of(db_, n);
  }

  void fail(const std::exception& e, const std::string& what) {
    if (!res_) return;
    std::string msg = what;
    if (auto* me = dynamic_cast<const MADError*>(&e))
      for (auto& l : me->layers()) msg += ": " + l;
    else
      msg += std::string(": ") + e.what();
    res_->errors.push_back(std::move(msg));
  }

  Task<> need_swinfo(uint32_t n, bool lft, bool mft) {
    if (!db_.node(n).has_swinfo) {
      try {
        auto si = co_await s_.SubnGet<iba::SMPSwitchInfo>(path(n));
        db_.set_switch_info(n, si.bytes());
      } catch (const std::exception& e) {
        fail(e, "SwitchInfo");
        co_return;
      }
    }
    auto si = db_.node(n).switch_info();
    SwitchTables& t = db_.tables(n);
    if (lft && !t.lft_valid) {
      unsigned top = unsigned(si.linearFDBTop());
      if (top >= 0xc000) top = 0xbfff;
      t.lft.assign(top + 1, 0xff);
      t.lft_valid = true;
      for (unsigned b = 0; b * 64 <= top; ++b) s_.spawn(lft_block(n, b));
    }
    if (mft && !t.mft_valid) {
      unsigned cap = unsigned(si.multicastFDBCap());
      unsigned top = unsigned(si.multicastFDBTop());
      unsigned n_entries = cap;
      if (top >= 0xc000 && top - 0xc000 + 1 < n_entries) n_entries = top - 0xc000 + 1;
      if (top && top < 0xc000) n_entries = 0;  // nothing programmed
      t.mft.assign(n_entries, {});
      t.mft_valid = true;
      unsigned nports = db_.node(n).nports;
      for (unsigned blk = 0; blk * 32 < n_entries; ++blk)
        for (unsigned pos = 0; pos * 16 <= nports; ++pos) s_.spawn(mft_block(n, blk, pos));
    }
  }

  Task<> lft_block(uint32_t n, unsigned b) {
    try {
      auto l = co_await s_.SubnGet<iba::SMPLinearForwardingTable>(path(n), b);
      SwitchTables& t = db_.tables(n);
      for (unsigned i = 0; i < 64 && b * 64 + i < t.lft.size(); ++i) t.lft[b * 64 + i] = uint8_t(l.portBlock(i));
    } catch (const std::exception& e) {
      db_.tables(n).lft_valid = false;
      fail(e, "LinearForwardingTable block " + std::to_string(b));
    }
  }

  Task<> mft_block(uint32_t n, unsigned blk, unsigned pos) {
    try {
      auto m = co_await s_.SubnGet<iba::SMPMulticastForwardingTable>(path(n), (pos << 28) | blk);
      SwitchTables& t = db_.tables(n);
      for (unsigned i = 0; i < 32 && blk * 32 + i < t.mft.size(); ++i)
        t.mft[blk * 32 + i][pos] = uint16_t(m.portMaskBlock(i));
    } catch (const std::exception& e) {
      db_.tables(n).mft_valid = false;
      fail(e, "MulticastForwardingTable block " + std::to_string(blk));
    }
  }

private:
  Scheduler& s_;
  Subnet& db_;
  DiscoveryResult* res_;
};

}  // namespace

IBPath dr_path_of(const Subnet& db, uint32_t n) { return IBDRPath(db.node(n).dr); }

DiscoveryResult discover(Scheduler& sched, Subnet& db, const DiscoveryOptions& opt) {
  Walker w(sched, db, opt);
  DiscoveryResult r = w.run();
  if (!w.tables_.empty()) read_switch_tables(sched, db, w.tables_, opt.read_lft, opt.read_mft, &r);
  return r;
}

void read_switch_tables(Scheduler& sched, Subnet& db, const std::vector<uint32_t>& switches, bool lft, bool mft,
                        DiscoveryResult* res) {
  TableReader tr(sched, db, res);
  for (uint32_t n : switches)
    if (db.node(n).is_switch()) sched.spawn(tr.need_swinfo(n, lft, mft));
  sched.run();
}

}  // namespace ibcore
