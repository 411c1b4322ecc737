#include "core/discovery.h"

#include <algorithm>
#include <cstdio>
#include <deque>

#include "core/error.h"
#include "core/sadiscovery.h"

namespace ibcore {

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

namespace {

// "what: layer: layer..." for a failed query.
std::string failure_text(const std::exception& e, const std::string& what) {
  std::string msg = what;
  if (auto* me = dynamic_cast<const MADError*>(&e)) {
    for (auto& l : me->layers()) msg += ": " + l;
  } else {
    msg += std::string(": ") + e.what();
  }
  return msg;
}

// The walk keeps its own queue of small work items and a bounded pool of
// worker coroutines that drain it, so memory stays proportional to the
// fabric (a few bytes per queued query) rather than to a coroutine frame per
// query not yet sent.  FIFO order makes the walk breadth first.
class Walker {
public:
  Walker(Scheduler& s, Subnet& db, const DiscoveryOptions& o) : s_(s), db_(db), opt_(o) {
    local_lid_ = s.transport().local_lid();
    max_workers_ = s.engine().max_outstanding() + 8;
  }

  DiscoveryResult run() {
    DiscoveryMode m = opt_.mode == DiscoveryMode::Auto ? config().discovery : opt_.mode;
    if (m == DiscoveryMode::Auto || m == DiscoveryMode::SA) m = local_lid_ ? DiscoveryMode::LID : DiscoveryMode::DR;
    if (m == DiscoveryMode::LID && !local_lid_) m = DiscoveryMode::DR;
    use_lid_ = m == DiscoveryMode::LID;
    res_.mode_used = m;
    uint64_t sent0 = s_.engine().sent();

    s_.spawn(start());
    s_.run();
    if (start_error_) std::rethrow_exception(start_error_);
    db_.mads_used = res_.mads = s_.engine().sent() - sent0;
    db_.compute_reference_order(opt_.progress);
    return std::move(res_);
  }

  std::vector<uint32_t> tables_;

private:
  enum Kind : uint8_t { ND, SI, SW_PI0, SW_PORT, CA_PORT };
  struct Item {
    Kind kind;
    uint8_t port;
    uint8_t entry;    // SW_*: the port the switch was entered by
    uint32_t node;
    uint32_t via;     // CA_PORT: the port slot the CA port was reached from (NO_INDEX: node's path)
  };

  void push(Item it) {
    q_.push_back(it);
    if (workers_ < max_workers_) {
      ++workers_;
      s_.spawn(worker());
    }
  }

  IBPath dr(const std::vector<uint8_t>& hops) const {
    IBDRPath p(hops);
    return p;
  }
  // The path for a query to node n: LID routed when allowed and known.
  IBPath path_for(uint32_t n, unsigned port_hint = 0) const {
    const Node& x = db_.node(n);
    uint16_t lid = 0;
    if (use_lid_ && n != db_.from_node) {
      if (x.is_switch()) lid = x.smalid;
      else if (port_hint && port_hint <= x.nports && db_.port(x, port_hint).has_info)
        lid = db_.port(x, port_hint).base_lid;
    }
    if (lid) {
      IBPath p;
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

  void fail(const std::exception& e, const std::string& what) { res_.errors.push_back(failure_text(e, what)); }

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
    new_node(n, uint8_t(ni.localPortNum()), NO_INDEX);
  }

  // Queue the queries of a node seen for the first time.
  void new_node(uint32_t n, uint8_t entry, uint32_t via) {
    push({ND, 0, entry, n, NO_INDEX});
    if (db_.node(n).is_switch()) push({SW_PI0, 0, entry, n, NO_INDEX});
    else push({CA_PORT, entry, entry, n, via});
  }

  Task<> worker() {
    while (!q_.empty()) {
      Item it = q_.front();
      q_.pop_front();
      switch (it.kind) {
        case ND:
          try {
            auto d = co_await s_.SubnGet<iba::SMPNodeDescription>(path_for(it.node, it.entry));
            db_.set_desc(it.node, d.bytes());
          } catch (const std::exception& e) {
            fail(e, "NodeDescription of " + node_str(db_.node(it.node)));
          }
          break;
        case SI:
          try {
            auto si = co_await s_.SubnGet<iba::SMPSwitchInfo>(path_for(it.node));
            db_.set_switch_info(it.node, si.bytes());
          } catch (const std::exception& e) {
            fail(e, "SwitchInfo of " + node_str(db_.node(it.node)));
          }
          break;
        case SW_PI0:
          // PortInfo 0 first: it carries the switch's LID (then LID routing
          // can be used for the rest).
          try {
            auto pi = co_await s_.SubnGet<iba::SMPPortInfo>(dr(db_.node(it.node).dr), 0);
            db_.set_port_info(it.node, 0, pi.bytes());
          } catch (const std::exception& e) {
            fail(e, "PortInfo 0 of " + node_str(db_.node(it.node)));
          }
          push({SI, 0, it.entry, it.node, NO_INDEX});
          for (unsigned p = 1; p <= db_.node(it.node).nports; ++p)
            push({SW_PORT, uint8_t(p), it.entry, it.node, NO_INDEX});
          if (opt_.read_lft || opt_.read_mft) tables_.push_back(it.node);
          break;
        case SW_PORT: {
          bool ok = false;
          try {
            auto pi = co_await s_.SubnGet<iba::SMPPortInfo>(path_for(it.node), it.port);
            db_.set_port_info(it.node, it.port, pi.bytes());
            ok = true;
          } catch (const std::exception& e) {
            fail(e, "PortInfo " + std::to_string(it.port) + " of " + node_str(db_.node(it.node)));
          }
          if (!ok) break;
          if (need_mlnx_ext(it.node, it.port)) co_await mlnx_ext(it.node, it.port);
          if (it.port != it.entry && db_.port(db_.port_index(it.node, it.port)).phys_state() == PHYS_LINKUP)
            co_await probe(it.node, it.port);
          break;
        }
        case CA_PORT: {
          // Asked through the port itself (its PortInfo then names it as
          // the local port, as the reference's does).
          std::vector<uint8_t> hops;
          if (it.via == NO_INDEX) {
            hops = db_.node(it.node).dr;
          } else {
            const Port& v = db_.port(it.via);
            hops = db_.node(v.node).dr;
            hops.push_back(v.num);
          }
          bool ok = false;
          try {
            auto pi = co_await s_.SubnGet<iba::SMPPortInfo>(dr(hops), it.port);
            db_.set_port_info(it.node, it.port, pi.bytes());
            ok = true;
          } catch (const std::exception& e) {
            fail(e, "PortInfo " + std::to_string(it.port) + " of " + node_str(db_.node(it.node)));
          }
          if (!ok) break;
          if (need_mlnx_ext(it.node, it.port)) co_await mlnx_ext(it.node, it.port);
          // Only the start node (a CA) is left through its own port.
          if (it.node == db_.from_node && it.port == db_.from_port &&
              db_.port(db_.port_index(it.node, it.port)).phys_state() == PHYS_LINKUP)
            co_await probe(it.node, it.port);
          break;
        }
      }
    }
    --workers_;
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
      db_.port(db_.port_index(n, p)).mlnx_speed =
          uint8_t((e.linkSpeedActive() & 1) | ((e.linkSpeedSupported() & 1) << 1));
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
      new_node(m, rp, slot);
    } else if (!y.is_switch() && !db_.port(y, rp).has_info) {
      // A CA/router reached through another of its ports.
      push({CA_PORT, rp, rp, m, slot});
    }
  }

  Scheduler& s_;
  Subnet& db_;
  const DiscoveryOptions& opt_;
  DiscoveryResult res_;
  std::exception_ptr start_error_;
  uint16_t local_lid_ = 0;
  bool use_lid_ = false;
  std::deque<Item> q_;
  unsigned workers_ = 0, max_workers_ = 64;
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
    if (res_) res_->errors.push_back(failure_text(e, what));
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
  DiscoveryMode mode = opt.mode == DiscoveryMode::Auto ? config().discovery : opt.mode;
  if (mode == DiscoveryMode::SA || config().use_sa) return discover_sa(sched, db, opt);  // records only
  Walker w(sched, db, opt);
  DiscoveryResult r = w.run();
  if (!w.tables_.empty()) read_switch_tables(sched, db, w.tables_, opt.read_lft, opt.read_mft, &r);
  return r;
}

void read_switch_tables(Scheduler& sched, Subnet& db, const std::vector<uint32_t>& switches, bool lft, bool mft,
                        DiscoveryResult* res) {
  if (config().discovery == DiscoveryMode::SA || config().use_sa)
    return read_switch_tables_sa(sched, db, switches, lft, mft, res);
  TableReader tr(sched, db, res);
  for (uint32_t n : switches)
    if (db.node(n).is_switch()) sched.spawn(tr.need_swinfo(n, lft, mft));
  sched.run();
}

}  // namespace ibcore
