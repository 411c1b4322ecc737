#include "core/fabric/sadiscovery.h"

#include <cstdio>
#include <cstring>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "core/base/config.h"
#include "core/base/error.h"
#include "core/rpc/gmppath.h"
#include "core/fabric/reforder.h"
#include "core/rpc/satransactor.h"
#include "iba/introspect.h"
#include "iba/sa.h"

namespace ibcore {

namespace {


// Where the SA is: --sa-path, else the SM LID of the local port.
IBPath sa_destination(Scheduler& s) {
  if (s.transport().settings().sa_path.empty()) return s.sa_path();
  MadTransactor mad(s.transport());  // only reads the port's SM LID / SL
  return sa_path_from_config(mad);
}

std::string lid_str(uint16_t lid) { return "LID " + std::to_string(lid); }

// "what: layer: layer" for the errors list.
std::string explain(const std::exception& e, const std::string& what) {
  std::string s = what;
  if (auto* me = dynamic_cast<const MADError*>(&e))
    for (const auto& l : me->layers()) s += ": " + l;
  else
    s += std::string(": ") + e.what();
  return s;
}

// One SubnAdmGet of the record that carries SMP attribute smp_attr of the
// object at lid (amod as the SMP's attribute modifier): the record's bytes.
class RecordReader {
public:
  RecordReader(Scheduler& s, IBPath sa) : s_(s), sa_(std::move(sa)) {}

  Task<std::vector<uint8_t>> record(uint16_t smp_attr, uint16_t lid, uint32_t amod) {
    const SAMapping* m = sa_mapping(smp_attr);
    std::vector<uint8_t> rec;
    uint64_t mask = SATransactor::make_query(*m, lid, amod, true, rec);
    MadRequest req;
    req.cls = iba::find_class(iba::mgmt::SUBN_ADM);
    req.method = iba::method::GET;
    req.attr_id = m->record_attr;
    req.payload = rec;
    req.comp_mask = mask;
    auto rep = co_await s_.call(req, sa_);
    auto data = MadTransactor::payload_of(rep);
    co_return std::vector<uint8_t>(data.begin(), data.end());
  }

  // The SMP attribute embedded in the record of smp_attr.
  Task<std::vector<uint8_t>> attribute(uint16_t smp_attr, uint16_t lid, uint32_t amod) {
    auto r = co_await record(smp_attr, lid, amod);
    co_return embedded(*sa_mapping(smp_attr), r);
  }

  static std::vector<uint8_t> embedded(const SAMapping& m, std::span<const uint8_t> rec, const char* name = nullptr) {
    auto f = iba::find_field(*m.record, name ? name : m.embedded);
    size_t off = f->bit_off / 8, n = f->width() / 8;
    std::vector<uint8_t> out(n, 0);
    if (off < rec.size()) std::memcpy(out.data(), rec.data() + off, std::min(n, rec.size() - off));
    return out;
  }

  Scheduler& sched() { return s_; }
  const IBPath& sa() const { return sa_; }

private:
  Scheduler& s_;
  IBPath sa_;
};

constexpr uint16_t ATTR_NODE_INFO = iba::attr_id<iba::SMPNodeInfo>, ATTR_PORT_INFO = iba::attr_id<iba::SMPPortInfo>,
                   ATTR_SWITCH_INFO = iba::attr_id<iba::SMPSwitchInfo>,
                   ATTR_LFT = iba::attr_id<iba::SMPLinearForwardingTable>,
                   ATTR_MFT = iba::attr_id<iba::SMPMulticastForwardingTable>;

class SAWalker {
public:
  SAWalker(Scheduler& s, Subnet& db, const DiscoveryOptions& o) : s_(s), db_(db), opt_(o), rr_(s, sa_destination(s)) {}

  DiscoveryResult run() {
    if (!opt_.from.empty())
      throw MADError("SA discovery starts at the local port: a DR start path cannot be used with --discovery SA");
    uint16_t lid = s_.transport().local_lid();
    if (!lid) throw MADError("SA discovery needs a local port with a LID (the SM has not configured it)");
    res_.mode_used = DiscoveryMode::SA;
    uint64_t sent0 = s_.engine().sent();
    s_.spawn(visit(lid, NO_INDEX, 0, 0));
    s_.run();
    if (start_error_) std::rethrow_exception(start_error_);
    resolve_links();
    assign_dr_paths();
    db_.mads_used = res_.mads = s_.engine().sent() - sent0;
    db_.set_reference(replay_reference(db_, opt_.progress));
    return std::move(res_);
  }

  std::vector<uint32_t> switches_;  // for the tables

private:
  struct PendingLink {
    uint32_t from;     // port slot
    uint16_t to_lid;
    uint8_t to_port;
  };

  void fail(const std::exception& e, const std::string& what) { res_.errors.push_back(explain(e, what)); }

  // The node at lid (reached through port slot via into its port entry, or
  // the start when via == NO_INDEX), hops links from the start.
  Task<> visit(uint16_t lid, uint32_t via, uint32_t hops, uint8_t entry) {
    if (!asked_.insert(lid).second) co_return;
    std::vector<uint8_t> rec;
    try {
      rec = co_await rr_.record(ATTR_NODE_INFO, lid, 0);
    } catch (MADError& e) {
      if (via == NO_INDEX) {
        e.annotate("Failed to read the NodeRecord of the local port (" + lid_str(lid) + ") from the SA");
        start_error_ = std::current_exception();
      } else {
        fail(e, "NodeRecord of " + lid_str(lid));
      }
      co_return;
    } catch (const std::exception& e) {
      if (via == NO_INDEX) start_error_ = std::current_exception();
      else fail(e, "NodeRecord of " + lid_str(lid));
      co_return;
    }
    const SAMapping& m = *sa_mapping(ATTR_NODE_INFO);
    auto ni_bytes = RecordReader::embedded(m, rec, "nodeInfo");
    auto nd_bytes = RecordReader::embedded(m, rec, "nodeDescription");
    iba::SMPNodeInfo ni;
    ni.load(ni_bytes);
    auto [n, created] = db_.add_node(ni_bytes);
    uint8_t lp = uint8_t(ni.localPortNum());
    Node& x = db_.node(n);
    if (!x.is_switch() && (lp == 0 || lp > x.nports)) {
      res_.errors.push_back("NodeRecord of " + lid_str(lid) + " names port " + std::to_string(lp) + " of a node with " +
                            std::to_string(x.nports) + " ports");
      co_return;
    }
    if (x.is_switch()) lp = 0;
    lid_node_[lid] = n;
    db_.touch_port(n, lp, ni.portGUID());
    if (created) db_.set_desc(n, nd_bytes);
    // The port we came in by: its link is known already.
    if (via != NO_INDEX && entry <= x.nports) linked_.insert(db_.port_index(n, entry));
    if (via == NO_INDEX) {
      db_.from_node = n;
      db_.from_port = lp;
    }
    if (x.is_switch()) {
      if (!created) co_return;
      switches_.push_back(n);
      s_.spawn(switch_info(n, lid));
      co_await port(n, lid, 0, 0);
      for (unsigned p = 1; p <= db_.node(n).nports; ++p) s_.spawn(port(n, lid, uint8_t(p), hops));
    } else if (!db_.port(db_.node(n), lp).has_info) {
      // A CA or router: the port at this LID (another of its ports may
      // come through another LID).
      co_await port(n, lid, lp, hops);
    }
  }

  Task<> switch_info(uint32_t n, uint16_t lid) {
    try {
      auto si = co_await rr_.attribute(ATTR_SWITCH_INFO, lid, 0);
      db_.set_switch_info(n, si);
    } catch (const std::exception& e) {
      fail(e, "SwitchInfoRecord of " + lid_str(lid));
    }
  }

  // PortInfoRecord of port p of node n (at lid), then the link out of it.
  Task<> port(uint32_t n, uint16_t lid, uint8_t p, uint32_t hops) {
    try {
      auto pi = co_await rr_.attribute(ATTR_PORT_INFO, lid, p);
      db_.set_port_info(n, p, pi);
    } catch (const std::exception& e) {
      fail(e, "PortInfoRecord " + std::to_string(p) + " of " + lid_str(lid));
      co_return;
    }
    if (p == 0) co_return;
    const Node& x = db_.node(n);
    uint32_t slot = db_.port_index(n, p);
    if (db_.port(slot).phys_state() != PHYS_LINKUP) co_return;
    // Links are followed out of switches and out of the start node, as the
    // SMP walk does (a CA is a leaf).
    if (!x.is_switch() && n != db_.from_node) co_return;
    if (db_.port(slot).peer != NO_INDEX || linked_.count(slot)) co_return;
    if (opt_.max_hops && hops + 1 > opt_.max_hops) co_return;
    iba::SALinkRecord q;
    q.set_fromLID(lid).set_fromPort(p);
    const auto& D = iba::SALinkRecord::DESC;
    iba::SALinkRecord lr;
    try {
      lr = co_await s_.SubnAdmGet(q, iba::component_mask(D, "fromLID") | iba::component_mask(D, "fromPort"), rr_.sa());
    } catch (const std::exception& e) {
      fail(e, "LinkRecord of port " + std::to_string(p) + " of " + lid_str(lid));
      co_return;
    }
    uint16_t to_lid = uint16_t(lr.toLID());
    uint8_t to_port = uint8_t(lr.toPort());
    linked_.insert(slot);
    links_.push_back({slot, to_lid, to_port});
    co_await visit(to_lid, slot, hops + 1, to_port);
    auto it = lid_node_.find(to_lid);
    if (it != lid_node_.end()) {
      uint32_t m = it->second;
      const Node& y = db_.node(m);
      // The far end need not ask for this link again.
      if (to_port <= y.nports) linked_.insert(db_.port_index(m, to_port));
      // A CA reached through a second LID: its other port.
      if (!y.is_switch() && to_port >= 1 && to_port <= y.nports && !db_.port(y, to_port).has_info &&
          asked_port_.insert(db_.port_index(m, to_port)).second)
        co_await port(m, to_lid, to_port, hops + 1);
    }
  }

  void resolve_links() {
    for (const auto& l : links_) {
      auto it = lid_node_.find(l.to_lid);
      if (it == lid_node_.end()) continue;  // its NodeRecord failed (reported)
      const Node& y = db_.node(it->second);
      if (l.to_port > y.nports || (!y.is_switch() && l.to_port == 0)) {
        res_.errors.push_back("LinkRecord names port " + std::to_string(l.to_port) + " of " + lid_str(l.to_lid) +
                              " which has " + std::to_string(y.nports) + " ports");
        continue;
      }
      uint32_t to = db_.port_index(it->second, l.to_port);
      if (!db_.port(to).exists) db_.touch_port(it->second, l.to_port, db_.port(to).guid);
      db_.link(l.from, to);
    }
  }

  // Node::dr for every node: the shortest directed route from the start
  // through switches (what the SMP walk would have found first).
  void assign_dr_paths() {
    if (db_.from_node == NO_INDEX) return;
    std::vector<uint8_t> seen(db_.node_count(), 0);
    std::deque<uint32_t> q{db_.from_node};
    seen[db_.from_node] = 1;
    db_.node(db_.from_node).dr.clear();
    while (!q.empty()) {
      uint32_t n = q.front();
      q.pop_front();
      const Node& x = db_.node(n);
      if (!x.is_switch() && n != db_.from_node) continue;
      for (unsigned p = 1; p <= x.nports; ++p) {
        const Port& pt = db_.port(x, p);
        if (pt.peer == NO_INDEX) continue;
        uint32_t m = db_.port(pt.peer).node;
        if (seen[m]) continue;
        seen[m] = 1;
        std::vector<uint8_t> dr = db_.node(n).dr;
        dr.push_back(uint8_t(p));
        db_.node(m).dr = std::move(dr);
        q.push_back(m);
      }
    }
  }

  Scheduler& s_;
  Subnet& db_;
  const DiscoveryOptions& opt_;
  RecordReader rr_;
  DiscoveryResult res_;
  std::exception_ptr start_error_;
  std::unordered_set<uint16_t> asked_;
  std::unordered_set<uint32_t> asked_port_, linked_;
  std::unordered_map<uint16_t, uint32_t> lid_node_;
  std::vector<PendingLink> links_;
};

class SATableReader {
public:
  SATableReader(Scheduler& s, Subnet& db, DiscoveryResult* res) : db_(db), res_(res), rr_(s, sa_destination(s)) {}

  void fail(const std::exception& e, const std::string& what) {
    if (res_) res_->errors.push_back(explain(e, what));
  }

  Task<> tables(uint32_t n, bool lft, bool mft) {
    uint16_t lid = db_.node(n).smalid;
    if (!lid) {
      if (res_) res_->errors.push_back("switch " + std::to_string(n) + " has no LID: its tables are not in the SA");
      co_return;
    }
    if (!db_.node(n).has_swinfo) {
      try {
        db_.set_switch_info(n, co_await rr_.attribute(ATTR_SWITCH_INFO, lid, 0));
      } catch (const std::exception& e) {
        fail(e, "SwitchInfoRecord of " + lid_str(lid));
        co_return;
      }
    }
    auto si = db_.node(n).switch_info();
    SwitchTables& t = db_.tables(n);
    if (lft && !t.lft_valid) {
      unsigned top = iba::lft_last_lid(si);
      t.lft.assign(top + 1, 0xff);
      t.lft_valid = true;
      for (unsigned b = 0; b * 64 <= top; ++b) rr_.sched().spawn(lft_block(n, lid, b));
    }
    if (mft && !t.mft_valid) {
      unsigned entries = iba::mft_entries(si);
      t.mft.assign(entries, {});
      t.mft_valid = true;
      for (unsigned blk = 0; blk * 32 < entries; ++blk)
        for (unsigned pos = 0; pos * 16 <= db_.node(n).nports; ++pos) rr_.sched().spawn(mft_block(n, lid, blk, pos));
    }
  }

  Task<> lft_block(uint32_t n, uint16_t lid, unsigned b) {
    try {
      iba::SMPLinearForwardingTable l;
      l.load(co_await rr_.attribute(ATTR_LFT, lid, b));
      SwitchTables& t = db_.tables(n);
      for (unsigned i = 0; i < 64 && b * 64 + i < t.lft.size(); ++i) t.lft[b * 64 + i] = uint8_t(l.portBlock(i));
    } catch (const std::exception& e) {
      db_.tables(n).lft_valid = false;
      fail(e, "LinearForwardingTableRecord block " + std::to_string(b) + " of " + lid_str(lid));
    }
  }

  Task<> mft_block(uint32_t n, uint16_t lid, unsigned blk, unsigned pos) {
    try {
      iba::SMPMulticastForwardingTable m;
      m.load(co_await rr_.attribute(ATTR_MFT, lid, (pos << 28) | blk));
      SwitchTables& t = db_.tables(n);
      for (unsigned i = 0; i < 32 && blk * 32 + i < t.mft.size(); ++i)
        t.mft[blk * 32 + i][pos] = uint16_t(m.portMaskBlock(i));
    } catch (const MADError& e) {
      // OpenSM has no record for a block no group uses: that block is empty.
      if ((e.status & 0xff00) >> 8 == 3) co_return;
      db_.tables(n).mft_valid = false;
      fail(e, "MulticastForwardingTableRecord block " + std::to_string(blk) + " of " + lid_str(lid));
    } catch (const std::exception& e) {
      db_.tables(n).mft_valid = false;
      fail(e, "MulticastForwardingTableRecord block " + std::to_string(blk) + " of " + lid_str(lid));
    }
  }

private:
  Subnet& db_;
  DiscoveryResult* res_;
  RecordReader rr_;
};

}  // namespace

DiscoveryResult discover_sa(Scheduler& sched, Subnet& db, const DiscoveryOptions& opt) {
  SAWalker w(sched, db, opt);
  DiscoveryResult r = w.run();
  if (opt.read_lft || opt.read_mft) read_switch_tables_sa(sched, db, w.switches_, opt.read_lft, opt.read_mft, &r);
  return r;
}

void read_switch_tables_sa(Scheduler& sched, Subnet& db, const std::vector<uint32_t>& switches, bool lft, bool mft,
                           DiscoveryResult* res) {
  SATableReader tr(sched, db, res);
  for (uint32_t n : switches)
    if (db.node(n).is_switch()) sched.spawn(tr.tables(n, lft, mft));
  sched.run();
}

}  // namespace ibcore
