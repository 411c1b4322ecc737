// The MAD engine's timers against the TID's sequence number wrapping: a
// TID's low half is the send's sequence number (16 bits, wrapping after
// 65,535 sends) and its slot, so a pair (slot, sequence) comes back in a
// long run.  A timer must time the send it was set for, not whichever send
// holds that pair when it fires (dump_fts on a k=32 fabric sends 276,516
// MADs in 84 ms of the model's time: a timer set 40 ms earlier found a
// new send there and took it as lost, three times a run).
#include <gtest/gtest.h>

#include <chrono>

#include "core/rpc/sched.h"
#include "flow_fake.h"
#include "iba/mad.h"
#include "iba/smp.h"

namespace engine_timer_test {

using namespace ibcore;

Task<> ask_in_turn(Scheduler& s, unsigned n, unsigned& ok) {
  IBPath p;
  p.DLID = 5;
  for (unsigned i = 0; i < n; ++i) {
    co_await s.SubnGet<iba::SMPPortInfo>(p, 1);
    ++ok;
  }
}

// One MAD in flight at a time, so every send has slot 0 and a send's
// sequence number returns 65,535 sends later.  Each round trip takes 2 ms;
// with -t T the first send's timer fires at T + 20 ms (the engine's margin
// over the kernel's), while the send 65,535 later, with the same TID, is
// out: T = 131,051 ms puts the one inside the other.  No send may be taken
// as lost: every one was answered in 2 ms.
TEST(EngineTimers, ATimerTimesItsOwnSendAfterTheSequenceWraps) {
  flowtest::VClockFabric f;
  f.hop = std::chrono::nanoseconds(0);
  f.default_service = std::chrono::milliseconds(2);
  f.settings().timeout_ms = 131051;
  Scheduler s(f, 1);
  const unsigned n = 65535 + 200;
  unsigned ok = 0;
  s.spawn(ask_in_turn(s, n, ok));
  s.run();
  EXPECT_EQ(ok, n);
  // The premise: the send 65,535 after the first has the first's TID and
  // is out when the first's timer fires.
  ASSERT_GT(f.sent.size(), 65535u);
  const auto tid_low = [&](size_t k) { return uint32_t(iba::MADHeader::transactionID_at(f.sent[k].mad.data())); };
  EXPECT_EQ(tid_low(0), tid_low(65535));
  const auto fires = f.sent[0].at + std::chrono::milliseconds(f.settings().timeout_ms + 20);
  EXPECT_LE(f.sent[65535].at, fires);
  EXPECT_GT(f.sent[65535].at + std::chrono::milliseconds(2), fires);
  EXPECT_EQ(s.engine().resent(), 0u);
  EXPECT_EQ(f.sent.size(), size_t(n));
  EXPECT_EQ(s.engine().flow_stats().timeouts, 0u);
}

}  // namespace engine_timer_test
