#include "core/fabric/discovery.h"

#include <cerrno>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <optional>
#include <cstring>
#include <span>
#include <unordered_set>

#include "core/base/config.h"
#include "core/base/error.h"
#include "core/fabric/routes.h"
#include "core/fabric/sadiscovery.h"
#include "core/out/log.h"
#include "core/fabric/reforder.h"

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

// Record a failed query (and the reference's line for it, if any).
void add_failure(DiscoveryResult& r, const std::exception& e, const std::string& what) {
  std::string ref = reference_smp_warning(e);
  if (!ref.empty()) r.reference_lines[r.errors.size()] = std::move(ref);
  r.errors.push_back(failure_text(e, what));
}


// The walk keeps a queue of small work items (core/rpc/sched.h WorkQueue) that
// a bounded pool of workers drains, so memory stays proportional to the
// fabric (a few bytes per queued query) rather than to a coroutine frame per
// query not yet sent.  FIFO order makes the walk breadth first.
class Walker {
public:
  Walker(Scheduler& s, Subnet& db, const DiscoveryOptions& o)
      // One worker per MAD the window holds: more only queue MADs in the
      // engine, which then sends them one at a time from each reply's
      // completion instead of in a burst after the replies are read
      // (k=32: ten times the pump rounds, +8% instructions).
      : s_(s), db_(db), opt_(o), q_(s, s.engine().max_outstanding(), [this](Item it) { return work(it); }) {
    local_lid_ = s.transport().local_lid();
  }

  DiscoveryResult run() {
    DiscoveryMode m = opt_.mode;
    if (m == DiscoveryMode::Auto || m == DiscoveryMode::SA) m = local_lid_ ? DiscoveryMode::LID : DiscoveryMode::DR;
    if (m == DiscoveryMode::LID && !local_lid_) m = DiscoveryMode::DR;
    use_lid_ = m == DiscoveryMode::LID;
    res_.mode_used = m;
    uint64_t sent0 = s_.engine().sent(), resent0 = s_.engine().resent();

    s_.spawn(start());
    s_.run();
    if (start_error_) std::rethrow_exception(start_error_);
    db_.mads_used = res_.mads = s_.engine().sent() - sent0;
    // Counted by the engine: MADs other code sends on the same scheduler
    // while the walk runs (ibqueryerrors' PM reads) are in mads, not in
    // queries, so mads - queries is not the resends.
    res_.resent = s_.engine().resent() - resent0;
    res_.flow = s_.engine().flow_stats();
    if (!discovered_) db_.set_reference(replay_reference(db_, opt_.progress));
    return std::move(res_);
  }

  std::vector<uint32_t> tables_;

private:
  // One query to make.  PortInfo items also probe through the port when it
  // is LinkUp (a NodeInfo one hop further: how links and nodes are found).
  enum class Ask : uint8_t {
    NodeDescription,
    SwitchInfo,
    SwitchPortInfo0,   // a switch's PortInfo 0 (its LID), then its other queries
    SwitchPortInfo,    // PortInfo of a switch's external port
    CaPortInfo,        // PortInfo of a CA's or router's port
    MlnxExtPortInfo,
    LftBlock,          // a block of a switch's linear forwarding table
  };
  struct Item {
    Ask what;
    uint8_t port = 0;        // the port asked about
    uint8_t entry = 0;       // the port the node was entered by
    uint32_t node = NO_INDEX;
    uint32_t from = NO_INDEX;  // CaPortInfo: the port slot the CA was reached from (NO_INDEX: its own route)
    uint32_t block = 0;        // LftBlock: the block
  };

  // Table blocks are queued "later": a worker takes one only when no walk
  // item waits, so the walk is never held up by them.
  void push(const Item& it) { q_.push(it, it.what == Ask::LftBlock); }

  // A directed route: the hops after the local port, plus one more hop
  // when extra >= 0.  Built in place (one allocation) and moved into the
  // MAD (core/rpc/sched.h MadAwait takes its path by value).
  static IBPath dr(const std::vector<uint8_t>& hops, int extra = -1) {
    IBPath p;
    p.drPath.resize(hops.size() + 1 + (extra >= 0 ? 1 : 0), 0);
    std::copy(hops.begin(), hops.end(), p.drPath.begin() + 1);
    if (extra >= 0) p.drPath.back() = uint8_t(extra);
    return p;
  }
  // The LID a query to node n goes to (0: by its DR path).
  uint16_t lid_for(uint32_t n, unsigned port_hint = 0) const {
    const Node& x = db_.node(n);
    if (!use_lid_ || n == db_.from_node) return 0;
    if (x.is_switch()) return x.smalid;
    if (port_hint && port_hint <= x.nports && db_.port(x, port_hint).has_info) return db_.port(x, port_hint).base_lid;
    return 0;
  }
  // The path for a query to node n: LID routed when allowed and known,
  // unless by_dr.  A LID routed query that fails is asked again by DR
  // (by_dr): the SM's routes can be stale or incomplete (a link that just
  // went away, an SM still sweeping), the directed route is what the walk
  // itself took.
  IBPath path_for(uint32_t n, unsigned port_hint = 0, bool by_dr = false) const {
    uint16_t lid = by_dr ? 0 : lid_for(n, port_hint);
    if (lid) {
      IBPath p;
      p.DLID = lid;
      p.SLID = local_lid_;
      return p;
    }
    return dr(db_.node(n).dr);
  }
  // The routes a query to node n tries, in stages: 0 its LID (when LID
  // routing is used and the LID is known), 1 its directed route, 2 another
  // directed route, through a neighbour known to be linked to it (when the
  // link its own route ends with went away mid-run; a route that works is
  // kept as the node's route).  next_route gives the path of the first
  // stage from `stage` on that has one, and moves stage past it; nullopt
  // when none is left.
  std::optional<IBPath> next_route(uint32_t n, unsigned port_hint, int& stage) {
    for (; stage <= 2; ++stage) {
      if (stage == 0) {
        if (!lid_for(n, port_hint)) continue;
        ++stage;
        return path_for(n, port_hint);
      }
      if (stage == 1) {
        ++stage;
        return dr(db_.node(n).dr);
      }
      auto h = other_route(n);
      if (!h) continue;
      db_.node(n).dr = *h;
      ++stage;
      return dr(*h);
    }
    return std::nullopt;
  }
  // Whether the stage just tried (stage - 1) was the last one for node n.
  bool last_stage(uint32_t n, int stage) const { return stage > 2 || (stage == 2 && !other_route(n)); }

  // Ask attribute T (modifier amod) of node n by each route next_route
  // gives from stage `from` on, until one answers.  When the last one fails
  // too, the failure goes into the result's errors as what() says it, and
  // nullopt is returned.
  template <class T, class What>
  Task<std::optional<T>> ask(uint32_t n, unsigned port_hint, int from, uint32_t amod, What what) {
    unsigned retried = 0;
    for (int stage = from;;) {
      std::optional<IBPath> route = next_route(n, port_hint, stage);
      if (!route) break;
      try {
        co_return co_await s_.SubnGet<T>(std::move(*route), amod);
      } catch (const std::exception& e) {
        if (last_stage(n, stage)) {
          if (again(e, retried++)) {
            stage = from;
            continue;
          }
          fail(e, what());
        }
      }
    }
    co_return std::nullopt;
  }
  // A directed route to node n other than its own: its own route plus a
  // neighbour's route through another of its links, where that neighbour
  // is a switch (or the start node) whose route does not pass through n.
  std::optional<std::vector<uint8_t>> other_route(uint32_t n) const {
    const Node& x = db_.node(n);
    for (unsigned q = 1; q <= x.nports; ++q) {
      const Port& p = db_.port(x, q);
      if (p.peer == NO_INDEX) continue;
      const Port& r = db_.port(p.peer);
      const Node& m = db_.node(r.node);
      if (!m.is_switch() && r.node != db_.from_node) continue;  // CAs do not forward DR SMPs
      std::vector<uint8_t> h = m.dr;
      h.push_back(r.num);
      if (h == x.dr) continue;
      bool through_n = r.node == n;
      for (size_t k = 0; k < m.dr.size() && !through_n; ++k) {
        uint32_t at = db_.port_by_dr(std::span<const uint8_t>(m.dr.data(), k));
        through_n = at != NO_INDEX && db_.port(at).node == n;
      }
      if (!through_n) return h;
    }
    return std::nullopt;
  }

  // The path of a probe out of port p of node n: always directed route
  // (the link is what is being found).  A LID route with a one-hop DR tail
  // would also do by IBA 14.2.2, but simulators (ibsim) do not route it.
  IBPath probe_path(uint32_t n, unsigned p) const { return dr(db_.node(n).dr, int(p)); }

  void fail(const std::exception& e, const std::string& what) { add_failure(res_, e, what); }
  // Whether a query that failed with e is asked again (DiscoveryOptions::retry).
  bool again(const std::exception& e, unsigned retried) const { return opt_.retry && opt_.retry(e, retried); }

  // What a node's PortInfo tells the MAD engine's flow control (the narrow
  // interface of core/rpc/rpc.h): the node at directed route p has this LID
  // (LID-routed SMPs to it count against the same node) and answers within
  // its RespTimeValue.
  void learn_timing(const IBPath& p, const iba::SMPPortInfo& pi) {
    s_.engine().learn_node(p, uint16_t(pi.LID()), uint8_t(pi.respTimeValue()));
  }

  static std::string node_str(const Node& x) {
    char b[64];
    std::snprintf(b, sizeof b, "node 0x%016llx", (unsigned long long)x.guid);
    return b;
  }

  Task<> start() {
    IBPath p = dr(opt_.from);
    iba::SMPNodeInfo ni;
    ++res_.queries;
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
  void new_node(uint32_t n, uint8_t entry, uint32_t from) {
    push({.what = Ask::NodeDescription, .entry = entry, .node = n});
    if (db_.node(n).is_switch()) push({.what = Ask::SwitchPortInfo0, .entry = entry, .node = n});
    else push({.what = Ask::CaPortInfo, .port = entry, .entry = entry, .node = n, .from = from});
  }

  // After the PortInfo of port p of node n: the FDR10 speed where the
  // device has it, and whether to probe through the port.
  bool port_read(uint32_t n, uint8_t p, bool probe_wanted) {
    if (need_mlnx_ext(n, p)) push({.what = Ask::MlnxExtPortInfo, .port = p, .node = n});
    return probe_wanted && db_.port(db_.port_index(n, p)).phys_state() == PHYS_LINKUP;
  }

  // One item: one MAD (a PortInfo and the probe it leads to: two), with its
  // retries by other routes.
  Task<> work(Item it) {
    ++res_.queries;
    if (it.what == Ask::LftBlock) {
      co_await read_lft_block(it.node, it.block);
      co_return;
    }
    ++walking_;
    const uint32_t n = it.node;
    auto node = [this, n] { return node_str(db_.node(n)); };
    bool probe = false;  // probe through port it.port of node n next
    switch (it.what) {
      case Ask::NodeDescription:
        if (auto d = co_await ask<iba::SMPNodeDescription>(n, it.entry, 0, 0, [&] { return "NodeDescription of " + node(); }))
          db_.set_desc(n, d->bytes());
        break;
      case Ask::SwitchInfo:
        if (auto si = co_await ask<iba::SMPSwitchInfo>(n, 0, 0, 0, [&] { return "SwitchInfo of " + node(); })) {
          db_.set_switch_info(n, si->bytes());
          if (opt_.read_lft) queue_lft(n);
        }
        break;
      case Ask::SwitchPortInfo0:
        // PortInfo 0 first: it carries the switch's LID (then LID routing
        // can be used for the rest).  By directed route.
        if (auto pi = co_await ask<iba::SMPPortInfo>(n, 0, 1, 0, [&] { return "PortInfo 0 of " + node(); })) {
          db_.set_port_info(n, 0, pi->bytes());
          learn_timing(dr(db_.node(n).dr), *pi);
          if (opt_.on_port_lid) opt_.on_port_lid(db_, n, 0);
        }
        push({.what = Ask::SwitchInfo, .entry = it.entry, .node = n});
        for (unsigned p = 1; p <= db_.node(n).nports; ++p)
          push({.what = Ask::SwitchPortInfo, .port = uint8_t(p), .entry = it.entry, .node = n});
        if (opt_.read_lft || opt_.read_mft) tables_.push_back(n);
        break;
      case Ask::SwitchPortInfo:
        if (auto pi = co_await ask<iba::SMPPortInfo>(n, 0, 0, it.port, [&] {
              return "PortInfo " + std::to_string(it.port) + " of " + node();
            })) {
          db_.set_port_info(n, it.port, pi->bytes());
          probe = port_read(n, it.port, it.port != it.entry);
        }
        break;
      case Ask::CaPortInfo:
        // Asked through the port itself (its PortInfo then names it as
        // the local port, as the reference's does).
        for (unsigned retried = 0, asking = 1; asking; ++retried) {
          asking = 0;
          try {
            IBPath p = it.from == NO_INDEX ? dr(db_.node(n).dr)
                                           : dr(db_.node(db_.port(it.from).node).dr, db_.port(it.from).num);
            auto pi = co_await s_.SubnGet<iba::SMPPortInfo>(IBPath(p), it.port);
            db_.set_port_info(n, it.port, pi.bytes());
            learn_timing(p, pi);
            if (n == db_.from_node && it.port == db_.from_port)
              s_.engine().learn_subnet_timeout(uint8_t(pi.subnetTimeOut()));
            if (opt_.on_port_lid) opt_.on_port_lid(db_, n, it.port);
            // Only the start node (a CA) is left through its own port.
            probe = port_read(n, it.port, n == db_.from_node && it.port == db_.from_port);
          } catch (const std::exception& e) {
            asking = again(e, retried);
            if (!asking) fail(e, "PortInfo " + std::to_string(it.port) + " of " + node());
          }
        }
        break;
      case Ask::MlnxExtPortInfo:
        try {
          auto e = co_await s_.SubnGet<iba::SMPMlnxExtPortInfo>(path_for(n, it.port), it.port);
          db_.port(db_.port_index(n, it.port)).mlnx_speed =
              uint8_t((e.linkSpeedActive() & 1) | ((e.linkSpeedSupported() & 1) << 1));
        } catch (const std::exception&) {
          // Not every firmware answers it; the speed then shows without FDR10.
        }
        break;
      case Ask::LftBlock:  // (handled above)
        break;
    }
    if (probe && probe_needed(n, it.port)) {
      // NodeInfo through the port: finds the link and maybe a new node.
      ++res_.queries;
      for (unsigned retried = 0, asking = 1; asking; ++retried) {
        asking = 0;
        try {
          auto ni = co_await s_.SubnGet<iba::SMPNodeInfo>(probe_path(n, it.port));
          probed(n, it.port, ni);
        } catch (const std::exception& e) {
          asking = again(e, retried);
          if (!asking) fail(e, "NodeInfo through port " + std::to_string(it.port) + " of " + node());
        }
      }
    }
    if (--walking_ == 0 && q_.waiting() == 0) walk_done();
  }

  // Every node and link is known (no walk item queued or in progress; only
  // table blocks may be left): the reference order is final, the blocks
  // still queued are read in its switch order.
  void walk_done() {
    if (discovered_) return;
    discovered_ = true;
    db_.set_reference(replay_reference(db_, opt_.progress));
    auto& blocks = q_.later_items();
    if (!blocks.empty()) {
      std::vector<uint32_t> rank(db_.node_count(), NO_INDEX);
      uint32_t r = 0;
      for (uint32_t n : db_.reference_order(NodeType::Switch)) rank[n] = r++;
      std::stable_sort(blocks.begin(), blocks.end(), [&](const Item& a, const Item& b) { return rank[a.node] < rank[b.node]; });
    }
    if (opt_.on_discovered) opt_.on_discovered();
  }

  // --- linear forwarding tables (read_lft) --------------------------------------

  // Queue the table blocks of switch n (its SwitchInfo is in).
  void queue_lft(uint32_t n) {
    const Node& x = db_.node(n);
    unsigned last = std::min(opt_.lft_last, iba::lft_last_lid(x.switch_info()));
    SwitchTables& t = db_.tables(n);
    t.lft.assign(size_t(last) + 1, LFT_NO_ROUTE);
    t.lft_valid = false;
    if (lft_left_.size() <= n) lft_left_.resize(size_t(n) + 1, 0);
    lft_tried_.insert(n);
    if (opt_.lft_first > last) {
      lft_finished(n, true);
      return;
    }
    lft_left_[n] = last / 64 - opt_.lft_first / 64 + 1;
    for (unsigned b = opt_.lft_first / 64; b <= last / 64; ++b) push({.what = Ask::LftBlock, .node = n, .block = b});
  }

  Task<> read_lft_block(uint32_t n, uint32_t block) {
    auto l = co_await ask<iba::SMPLinearForwardingTable>(n, 0, 0, block, [&] {
      return "LinearForwardingTable block " + std::to_string(block) + " of " + node_str(db_.node(n));
    });
    if (l) {
      std::vector<uint8_t>& lft = db_.tables(n).lft;
      size_t at = size_t(block) * 64;
      if (at < lft.size()) std::memcpy(lft.data() + at, l->bytes().data(), std::min<size_t>(64, lft.size() - at));
    } else {
      lft_bad_.insert(n);
    }
    if (--lft_left_[n] == 0) lft_finished(n, !lft_bad_.count(n));
  }

  void lft_finished(uint32_t n, bool ok) {
    db_.tables(n).lft_valid = ok;
    if (opt_.on_lft) opt_.on_lft(n);
  }

public:
  // Switches whose table the walk tried (the rest, SwitchInfo having failed,
  // are left to read_switch_tables).
  std::unordered_set<uint32_t> lft_tried_;

private:

  bool need_mlnx_ext(uint32_t n, uint8_t p) const {
    if (!opt_.mlx_epi) return false;
    const Node& x = db_.node(n);
    if (!mlnx_ext_supported(x.device_id(), x.vendor_id())) return false;
    const Port& port = db_.port(x, p);
    return port.phys_state() == PHYS_LINKUP && port.speed_active() == 4 && ext_speed_active(db_, port) == 0;
  }

  // Whether port p of node n still needs its probe: not when the link was
  // found from its other end, or past the hop limit.
  bool probe_needed(uint32_t n, uint8_t p) const {
    if (db_.port(db_.port_index(n, p)).peer != NO_INDEX) return false;
    return !opt_.max_hops || db_.node(n).dr.size() + 1 <= opt_.max_hops;
  }

  // The NodeInfo that came back through port p of node n.
  void probed(uint32_t n, uint8_t p, const iba::SMPNodeInfo& ni) {
    uint32_t slot = db_.port_index(n, p);
    auto [m, created] = db_.add_node(ni.bytes());
    uint8_t rp = uint8_t(ni.localPortNum());
    Node& y = db_.node(m);
    if (rp > y.nports) {
      res_.errors.push_back("NodeInfo of " + node_str(y) + " names port " + std::to_string(rp) + " beyond its " +
                            std::to_string(y.nports) + " ports");
      return;
    }
    db_.touch_port(m, rp, ni.portGUID());
    db_.link(slot, db_.port_index(m, rp));
    if (created) {
      y.dr.reserve(db_.node(n).dr.size() + 1);
      y.dr = db_.node(n).dr;
      y.dr.push_back(p);
      new_node(m, rp, slot);
    } else if (!y.is_switch() && !db_.port(y, rp).has_info) {
      // A CA/router reached through another of its ports.
      push({.what = Ask::CaPortInfo, .port = rp, .entry = rp, .node = m, .from = slot});
    }
  }

  Scheduler& s_;
  Subnet& db_;
  const DiscoveryOptions& opt_;
  DiscoveryResult res_;
  std::exception_ptr start_error_;
  uint16_t local_lid_ = 0;
  bool use_lid_ = false;
  WorkQueue<Item> q_;
  unsigned walking_ = 0;      // walk items taken by workers and not finished
  bool discovered_ = false;   // walk_done() ran
  std::vector<uint32_t> lft_left_;  // by node: table blocks not finished
  std::unordered_set<uint32_t> lft_bad_;
};

// --- forwarding tables -------------------------------------------------------------

// SwitchInfo of a switch read before its tables (their sizes).
Task<> read_swinfo(Scheduler& s, Subnet& db, uint32_t n, DiscoveryMode mode, DiscoveryResult* res) {
  try {
    auto si = co_await s.SubnGet<iba::SMPSwitchInfo>(switch_path(db, n, s.transport().local_lid(), mode));
    db.set_switch_info(n, si.bytes());
  } catch (const std::exception& e) {
    if (res) add_failure(*res, e, "SwitchInfo of switch " + std::to_string(n));
  }
}

}  // namespace

IBPath dr_path_of(const Subnet& db, uint32_t n) { return IBDRPath(db.node(n).dr); }

IBPath switch_path(const Subnet& db, uint32_t n, uint16_t local_lid, DiscoveryMode mode) {
  const Node& x = db.node(n);
  if (local_lid && x.smalid && n != db.from_node && mode != DiscoveryMode::DR) {
    IBPath p;
    p.DLID = x.smalid;
    p.SLID = local_lid;
    return p;
  }
  return dr_path_of(db, n);
}

DiscoveryResult discover(Scheduler& sched, Subnet& db, const DiscoveryOptions& opt) {
  if (opt.mode == DiscoveryMode::SA) return discover_sa(sched, db, opt);  // records only
  Walker w(sched, db, opt);
  DiscoveryResult r = w.run();
  // The MFTs, and the LFTs of switches whose SwitchInfo the walk could not read.
  if (opt.read_mft && !w.tables_.empty()) read_switch_tables(sched, db, w.tables_, false, true, opt.mode, &r);
  if (opt.read_lft) {
    std::vector<uint32_t> left;
    for (uint32_t n : w.tables_)
      if (!w.lft_tried_.count(n)) left.push_back(n);
    if (!left.empty()) read_switch_tables(sched, db, left, true, false, opt.mode, &r);
  }
  return r;
}

void read_switch_tables(Scheduler& sched, Subnet& db, const std::vector<uint32_t>& switches, bool lft, bool mft,
                        DiscoveryMode mode, DiscoveryResult* res) {
  if (mode == DiscoveryMode::SA)
    return read_switch_tables_sa(sched, db, switches, lft, mft, res);
  // SwitchInfo first where discovery did not read it (it sizes the tables).
  std::vector<uint32_t> sws;
  for (uint32_t n : switches)
    if (db.node(n).is_switch()) {
      sws.push_back(n);
      if (!db.node(n).has_swinfo) sched.spawn(read_swinfo(sched, db, n, mode, res));
    }
  sched.run();
  // Then every block of every table, from a bounded pool of workers.
  uint16_t local = sched.transport().local_lid();
  struct Read {
    uint32_t node;
    LftRead lft;
    MftRead mft;
    bool want_lft = false, want_mft = false;
  };
  std::vector<Read> reads(sws.size());
  TableReads tr;
  for (size_t i = 0; i < sws.size(); ++i) {
    Read& r = reads[i];
    r.node = sws[i];
    const Node& x = db.node(r.node);
    if (!x.has_swinfo) continue;
    auto si = x.switch_info();
    SwitchTables& t = db.tables(r.node);
    IBPath path = switch_path(db, r.node, local, mode);
    if (lft && !t.lft_valid) {
      tr.add_lft(path, 0, iba::lft_last_lid(si), r.lft);
      r.want_lft = true;
    }
    if (mft && !t.mft_valid) {
      unsigned n_entries = iba::mft_entries(si);
      if (n_entries) tr.add_mft(path, MLID_BASE, MLID_BASE + n_entries - 1, x.nports, r.mft);
      r.want_mft = true;
    }
  }
  tr.spawn(sched);
  sched.run();
  for (Read& r : reads) {
    SwitchTables& t = db.tables(r.node);
    auto failed = [&](const std::exception_ptr& e, const std::string& what) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& ex) {
        if (res) add_failure(*res, ex, what);
      }
    };
    if (r.want_lft) {
      if (r.lft.error) {
        failed(r.lft.error, "LinearForwardingTable block " + std::to_string(r.lft.failed_block));
      } else {
        t.lft = std::move(r.lft.lft);
        t.lft_valid = true;
      }
    }
    if (r.want_mft) {
      if (r.mft.error) {
        failed(r.mft.error, "MulticastForwardingTable");
      } else {
        t.mft = std::move(r.mft.masks);
        t.mft_valid = true;
      }
    }
  }
}

std::string reference_smp_warning(const std::exception& e) {
  auto* me = dynamic_cast<const MADError*>(&e);
  if (!me || me->req.size() < iba::SMPFormatDirected::SIZE) return {};
  iba::SMPFormatDirected q;
  q.load(me->req);
  unsigned hops = unsigned(q.hopCount());
  if (q.mgmtClass() != iba::mgmt::SUBN_DIRECTED_ROUTE || hops > 63) return {};
  // libibnetdisc's portid2str of its walk's paths (DR from the local port:
  // its slid and dlid are 0).
  std::string path = "DR path slid 0; dlid 0; ";
  for (unsigned i = 0; i <= hops; ++i) path += (i ? "," : "") + std::to_string(q.initialPath(i));
  unsigned attr = unsigned(q.attributeID());
  unsigned mod = unsigned(q.attributeModifier());
  char b[400];
  if (dynamic_cast<const MADTimeoutError*>(me))
    std::snprintf(b, sizeof b, "./libibnetdisc/query_smp.c:186; umad (%s Attr 0x%x:%u) bad status %d; %s",
                  path.c_str(), attr, mod, ETIMEDOUT, std::strerror(ETIMEDOUT));
  else if (me->status & 0x7fff)
    std::snprintf(b, sizeof b, "./libibnetdisc/query_smp.c:193; mad (%s Attr 0x%x:%u) bad status 0x%x", path.c_str(),
                  attr, mod, unsigned(me->status & 0x7fff));
  else
    return {};
  return b;
}

void report_discovery_stats(const DiscoveryResult& r, std::chrono::steady_clock::time_point started) {
  if (!log::verbosity()) return;
  ibcore::log::info("I: discovery: %llu MADs sent for %llu queries (%llu resent), %.3f s\n",
               (unsigned long long)r.mads, (unsigned long long)r.queries, (unsigned long long)r.resent,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  report_flow(r.flow);
}

void report_discovery_errors(const DiscoveryResult& r, size_t from) {
  for (size_t i = from; i < r.errors.size(); ++i) {
    auto ref = r.reference_lines.find(i);
    if (ref != r.reference_lines.end()) ibcore::log::info("%s\n", ref->second.c_str());
    if (ref == r.reference_lines.end() || log::verbosity())
      ibcore::log::warn("W: discovery: %s\n", r.errors[i].c_str());
  }
}

}  // namespace ibcore
