// Work taken in turns over the nodes it queries (issues 38 and 35): the
// discovery walk's steps (core/fabric/discovery.cpp) and the fabric
// counter scan's PM reads (core/health/scan.h PortScan) go one node after
// the other, not one node's work in a row.
//
// Why not one FIFO: a node's work is queued together (a switch's
// SwitchInfo and every port's PortInfo and probe, 33 on a k=32 switch; its
// ports' counter reads, at its one PMA), so a FIFO hands the workers a few
// nodes' work at a time.  The MAD engine's caps let each node's processor
// or PMA take only a few MADs at once (its node cap), so the rest wait on
// those caps, the window holds a fraction of what it could, and the other
// nodes idle; and where a queue is smaller than the caps, the burst
// overflows it.  Taking one item of each node in turn gives the workers
// items of as many nodes as there are workers: each node within its own
// caps, many in flight.  A node's own items keep their order, and a node
// seen for the first time joins the end of the round (breadth first).
//
//   RoundRobin<Step>        the order, a data structure (no scheduler):
//                           pop() in turns, pop_within() over the first few
//                           nodes only, and with a limit at most that many
//                           of a node's items taken and not yet done()
//   TurnQueue<Item>         (core/rpc/sched.h) workers on the scheduler
//                           taking a RoundRobin's items, one at a time per
//                           node: the counter scan's reads
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace ibcore {

template <class Step>
class RoundRobin {
public:
  static constexpr uint32_t NONE = UINT32_MAX;

  // limit: at most that many of a node's steps taken by pop() and not yet
  // done() (0: no limit; pop_within() only without one).
  explicit RoundRobin(unsigned limit = 0) : limit_(limit) {}

  // Queue step s, about node `node`.
  void push(uint32_t node, const Step& s) {
    uint32_t i;
    if (free_ != NONE) {
      i = free_;
      free_ = next_[i];
      steps_[i] = s;
      next_[i] = NONE;
    } else {
      i = uint32_t(steps_.size());
      steps_.push_back(s);
      next_.push_back(NONE);
    }
    if (node >= head_.size()) {
      head_.resize(size_t(node) + 1, NONE);
      tail_.resize(size_t(node) + 1, NONE);
      if (limit_) taken_.resize(size_t(node) + 1, 0);
    }
    if (head_[node] == NONE) {
      head_[node] = i;
      if (!at_limit(node)) ring_.push_back(node);
    } else {
      next_[tail_[node]] = i;
    }
    tail_[node] = i;
    ++size_;
  }
  // Steps queued (taken ones not counted).
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // A step can be taken now (with a limit: one of a node below it).
  bool ready() const { return !ring_.empty(); }
  // Nodes whose next step can be taken now.
  size_t ready_nodes() const { return ring_.size(); }
  // The next step (ready() must hold): the first of the node whose turn it
  // is; that node goes to the end of the round when it has more (and,
  // with a limit, is below it).  node: set to the step's node.
  Step pop(uint32_t* node = nullptr) {
    const uint32_t n = ring_.front();
    ring_.pop_front();
    Step s = take(n);
    if (limit_) ++taken_[n];
    if (head_[n] != NONE && !at_limit(n)) ring_.push_back(n);
    if (node) *node = n;
    return s;
  }
  // With a limit: a step of `node` taken by pop() is done; the node's
  // next step, if any, joins the end of the round again.
  void done(uint32_t node) {
    if (!limit_) return;
    const bool was_at_limit = at_limit(node);
    --taken_[node];
    if (was_at_limit && head_[node] != NONE) ring_.push_back(node);
  }
  // The next step, in turn among the first `width` nodes of the round only:
  // the others wait until one of those has no step left (the tables of a
  // few switches at a time, finished in the order the nodes came).
  Step pop_within(size_t width) {
    if (at_ >= std::min(width, ring_.size())) at_ = 0;
    const uint32_t node = ring_[at_];
    Step s = take(node);
    if (head_[node] == NONE) ring_.erase(ring_.begin() + ptrdiff_t(at_));
    else ++at_;
    return s;
  }
  // Put the round in another order (rank: a node's place, lower first).
  template <class Rank>
  void order_by(Rank rank) {
    std::stable_sort(ring_.begin(), ring_.end(), [&](uint32_t a, uint32_t b) { return rank(a) < rank(b); });
    at_ = 0;
  }

private:
  bool at_limit(uint32_t node) const { return limit_ && taken_[node] >= limit_; }
  Step take(uint32_t node) {
    const uint32_t i = head_[node];
    Step s = steps_[i];
    head_[node] = next_[i];
    if (head_[node] == NONE) tail_[node] = NONE;
    next_[i] = free_;
    free_ = i;
    --size_;
    return s;
  }

  unsigned limit_ = 0;
  std::vector<Step> steps_;       // a pool, reused through free_
  std::vector<uint32_t> next_;    // by pool slot: the node's next step, or the next free slot
  std::vector<uint32_t> head_, tail_;  // by node: its first and last queued step
  std::vector<uint32_t> taken_;   // by node, with a limit: its steps taken and not done
  std::deque<uint32_t> ring_;     // the nodes with steps that can be taken, in turn
  uint32_t free_ = NONE;
  size_t size_ = 0;
  size_t at_ = 0;                 // pop_within's turn
};

}  // namespace ibcore
