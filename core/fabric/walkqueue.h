// The order the discovery walk (core/fabric/walk.h) takes its steps
// in: round robin over the nodes they query (issue 38).  Only the walk
// includes it.
//
// Why not one FIFO: a switch's steps are queued together (its SwitchInfo
// and every port's PortInfo and probe, 33 on a k=32 switch), so a FIFO
// hands the workers a few switches' steps at a time.  The MAD engine's
// caps let each switch's processor take only a few SMPs at once (its node
// cap, its processor share), so the rest wait on those caps, the window
// holds a fraction of what it could, and the other switches idle.  Taking
// one step of each node in turn gives the workers steps of as many nodes
// as there are workers: each node within its own caps, many in flight.
// A node's own steps keep their order, and a node seen for the first time
// joins the end of the round (breadth first, as before).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace ibcore::walkorder {

template <class Step>
class RoundRobin {
public:
  static constexpr uint32_t NONE = UINT32_MAX;

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
    }
    if (head_[node] == NONE) {
      head_[node] = i;
      ring_.push_back(node);
    } else {
      next_[tail_[node]] = i;
    }
    tail_[node] = i;
    ++size_;
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // The next step: the first of the node whose turn it is; that node goes
  // to the end of the round when it has more.
  Step pop() {
    const uint32_t node = ring_.front();
    ring_.pop_front();
    Step s = take(node);
    if (head_[node] != NONE) ring_.push_back(node);
    return s;
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

  std::vector<Step> steps_;       // a pool, reused through free_
  std::vector<uint32_t> next_;    // by pool slot: the node's next step, or the next free slot
  std::vector<uint32_t> head_, tail_;  // by node: its first and last queued step
  std::deque<uint32_t> ring_;     // the nodes with steps queued, in turn
  uint32_t free_ = NONE;
  size_t size_ = 0;
  size_t at_ = 0;                 // pop_within's turn
};

}  // namespace ibcore::walkorder
