#include "core/fabric/partialscan.h"

#include <deque>

#include "core/base/error.h"
#include "core/fabric/reforder.h"

namespace ibcore {

namespace {

class Replay {
public:
  Replay(const Subnet& full, const PartialScan& ps) : full_(full), ps_(ps), map_(full.node_count(), NO_INDEX) {}

  Subnet run() {
    uint32_t start, entry;
    if (ps_.start_port != NO_INDEX) {
      const Port& p = full_.port(ps_.start_port);
      start = p.node;
      entry = full_.node(start).is_switch() ? 0 : p.num;
      lid_routed_ = true;
      start_cnt_ = 0;
    } else {
      if (full_.from_node == NO_INDEX) throw Error("No start node in the subnet database");
      start = full_.from_node;
      entry = full_.from_port;
      for (uint8_t h : ps_.start_hops) {
        const Node& x = full_.node(start);
        const Port* r = h <= x.nports ? full_.peer(full_.port(x, h)) : nullptr;
        if (!r) throw Error("The directed route leaves the discovered fabric at port " + std::to_string(h));
        path_.push_back(start);
        start = r->node;
        entry = r->num;
      }
      start_cnt_ = unsigned(ps_.start_hops.size());
    }
    start_ = start;
    q_.push_back({NI, start, uint8_t(entry), NO_INDEX, start_cnt_});
    while (!q_.empty()) {
      Ev e = q_.front();
      q_.pop_front();
      if (e.kind == NI) node_info(e);
      else port_info(e);
    }
    // The partial database keeps the full one's images as received; what the
    // reference's partial scan recorded is its view.
    RefView v = recorded_view(part_);
    for (uint32_t n = 0; n < part_.node_count(); ++n) record_entry(v, part_, n, entry_[n]);
    v.rank.resize(part_.node_count());
    for (uint32_t n = 0; n < part_.node_count(); ++n) v.rank[n] = n;  // created in index order
    v.max_hops = maxhops_;
    part_.set_reference(std::move(v));
    return std::move(part_);
  }

private:
  enum Kind : uint8_t { NI, PI };
  struct Ev {
    Kind kind;
    uint32_t node;   // full database index
    uint8_t port;
    uint32_t via;    // NI: the partial database's port slot probed from
    unsigned cnt;    // DR hop count of the SMP
  };

  uint32_t create(uint32_t m, uint8_t r) {
    const Node& x = full_.node(m);
    auto [n, created] = part_.add_node(x.info);
    (void)created;
    if (x.has_desc) part_.set_desc(n, x.desc);
    if (x.has_swinfo) part_.set_switch_info(n, x.swinfo);
    part_.node(n).dr = x.dr;
    map_[m] = n;
    entry_.resize(part_.node_count(), 0);
    entry_[n] = r;
    return n;
  }

  void touch(uint32_t n, uint32_t m, uint8_t p) {
    const Node& x = full_.node(m);
    if (p <= x.nports && full_.port(x, p).exists) part_.touch_port(n, p, full_.port(x, p).guid);
  }

  void node_info(const Ev& e) {
    const Node& x = full_.node(e.node);
    uint32_t n = map_[e.node];
    bool is_new = n == NO_INDEX;
    if (is_new) {
      n = create(e.node, e.port);
      if (e.via == NO_INDEX) {
        part_.from_node = n;
        part_.from_port = e.port;
      }
    }
    touch(n, e.node, e.port);
    if (e.via != NO_INDEX && e.port <= x.nports) part_.link(e.via, part_.port_index(n, e.port));
    if (is_new && x.is_switch()) q_.push_back({PI, e.node, 0, NO_INDEX, e.cnt});
    if (!x.is_switch()) q_.push_back({PI, e.node, e.port, NO_INDEX, e.cnt});
  }

  void port_info(const Ev& e) {
    const Node& x = full_.node(e.node);
    if (e.port > x.nports) return;
    const Port& fp = full_.port(x, e.port);
    if (!fp.has_info) return;  // it did not answer in the full discovery either
    uint32_t n = map_[e.node];
    touch(n, e.node, e.port);
    part_.set_port_info(n, e.port, fp.info);
    part_.port(part_.port_index(n, e.port)).mlnx_speed = fp.mlnx_speed;
    if (x.is_switch() && e.port == 0) {
      for (unsigned p = 1; p <= x.nports; ++p) q_.push_back({PI, e.node, uint8_t(p), NO_INDEX, e.cnt});
      return;
    }
    if (e.port == 0 || fp.phys_state() != PHYS_LINKUP) return;
    bool is_start = e.node == start_;
    bool go = x.is_switch() ? (is_start || e.port != entry_[n]) : (is_start && e.port == part_.from_port);
    if (!go) return;
    uint32_t via = part_.port_index(n, e.port);
    if (!x.is_switch() && is_start && e.cnt > 1) {
      // A CA start steps back along its route: the node before it, entered
      // by the port the route took into it.  The reference counts the step
      // as a hop discovered, and takes it again each time it meets the CA.
      if (ps_.max_hops && maxhops_ > ps_.max_hops) return;
      ++maxhops_;
      uint32_t prev = path_.empty() ? NO_INDEX : path_.back();
      if (prev == NO_INDEX) return;
      uint8_t hop_in = path_.size() >= 2 ? 0 : uint8_t(full_.from_port);
      if (path_.size() >= 2) {
        uint32_t pp = path_[path_.size() - 2];
        const Port& out = full_.port(full_.node(pp), ps_.start_hops[path_.size() - 2]);
        hop_in = full_.port(out.peer).num;
      }
      q_.push_back({NI, prev, hop_in, via, e.cnt - 1});
      return;
    }
    if (lid_routed_ && !x.is_switch()) return;  // a LID route cannot be extended through a CA
    if (ps_.max_hops && maxhops_ > ps_.max_hops) return;
    unsigned cnt = e.cnt + 1;
    if (cnt - start_cnt_ > maxhops_) ++maxhops_;
    // A directed route cannot go on through a CA other than the local one.
    if (!x.is_switch() && e.cnt > 0) return;
    if (fp.peer == NO_INDEX) return;  // nobody answers
    const Port& r = full_.port(fp.peer);
    q_.push_back({NI, r.node, r.num, via, cnt});
  }

  const Subnet& full_;
  const PartialScan& ps_;
  Subnet part_;
  std::vector<uint32_t> map_;    // full node -> partial node
  std::vector<uint8_t> entry_;   // partial node -> port first entered by
  std::vector<uint32_t> path_;   // full nodes along the start route (before the start)
  std::deque<Ev> q_;
  uint32_t start_ = NO_INDEX;
  unsigned start_cnt_ = 0, maxhops_ = 0;
  bool lid_routed_ = false;
};

}  // namespace

Subnet replay_partial_scan(const Subnet& full, const PartialScan& ps) { return Replay(full, ps).run(); }

}  // namespace ibcore
