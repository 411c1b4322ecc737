// Work in turns over nodes (core/rpc/turns.h, issues 38 and 35): one step
// of each node in turn, a node's own steps in their order, new nodes at the
// end of the round; table blocks over a few nodes at a time; with a limit,
// a node's next step only once one taken is done.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/rpc/turns.h"

namespace {

using Q = ibcore::RoundRobin<std::pair<uint32_t, int>>;

std::string drain(Q& q, size_t width = 0) {
  std::string s;
  while (!q.empty()) {
    auto [node, k] = width ? q.pop_within(width) : q.pop();
    s += std::to_string(node) + "." + std::to_string(k) + " ";
  }
  return s;
}

TEST(WalkOrder, OneStepOfEachNodeInTurn) {
  Q q;
  for (int k = 0; k < 3; ++k) q.push(7, {7, k});  // a switch's ports, queued together
  q.push(2, {2, 0});
  q.push(9, {9, 0});
  q.push(9, {9, 1});
  EXPECT_EQ(q.size(), 6u);
  EXPECT_EQ(drain(q), "7.0 2.0 9.0 7.1 9.1 7.2 ");
}

TEST(WalkOrder, ANodeSeenLaterJoinsTheEndOfTheRound) {
  Q q;
  q.push(1, {1, 0});
  q.push(1, {1, 1});
  q.push(2, {2, 0});
  EXPECT_EQ(q.pop(), std::make_pair(1u, 0));
  q.push(3, {3, 0});  // found meanwhile
  q.push(1, {1, 2});
  EXPECT_EQ(drain(q), "2.0 1.1 3.0 1.2 ");
  // Emptied and used again (its slots reused).
  q.push(4, {4, 0});
  q.push(1, {1, 3});
  EXPECT_EQ(drain(q), "4.0 1.3 ");
}

TEST(WalkOrder, BlocksGoInTurnOverAFewNodesAtATimeInTheirOrder) {
  Q q;
  for (uint32_t n : {5u, 6u, 7u})
    for (int k = 0; k < 3; ++k) q.push(n, {n, k});
  q.order_by([](uint32_t n) { return n == 7 ? 0 : n; });  // (the reference's order: 7 first)
  EXPECT_EQ(drain(q, 2), "7.0 5.0 7.1 5.1 7.2 5.2 6.0 6.1 6.2 ");
}

TEST(WalkOrder, WithALimitANodeWaitsForItsStepToBeDone) {
  Q q(1);
  for (int k = 0; k < 3; ++k) q.push(7, {7, k});  // a switch's ports' reads, queued together
  q.push(2, {2, 0});
  uint32_t node = 0;
  EXPECT_EQ(q.pop(&node), std::make_pair(7u, 0));
  EXPECT_EQ(node, 7u);
  EXPECT_EQ(q.pop(), std::make_pair(2u, 0));
  EXPECT_FALSE(q.ready()) << "node 7's next waits for its first";
  EXPECT_FALSE(q.empty());
  q.push(9, {9, 0});  // found meanwhile
  EXPECT_EQ(q.pop(), std::make_pair(9u, 0));
  q.done(7);
  ASSERT_TRUE(q.ready());
  EXPECT_EQ(q.pop(), std::make_pair(7u, 1));
  q.done(2);
  q.push(2, {2, 1});  // a node below its limit joins the round at once
  EXPECT_EQ(q.pop(), std::make_pair(2u, 1));
  EXPECT_FALSE(q.ready());
  q.done(7);
  EXPECT_EQ(drain(q), "7.2 ");
}

}  // namespace
