// The MAD engine's flow control (core/rpc/flow.h FlowLimits) on a virtual
// clock (flow_fake.h): a burst to one switch is capped at the node's cap,
// DR SMPs through one switch at its processor's cap; a dropped SMP is sent
// again after the computed timeout (not after 1 s), -t still forces one;
// the window halves on drops and grows back; the SA's BUSY is backed off.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>

#include "core/rpc/sched.h"
#include "flow_fake.h"
#include "iba/sa.h"
#include "iba/smp.h"

using namespace ibcore;
using flowtest::VClockFabric;

namespace {

IBPath lid(uint16_t l) {
  IBPath p;
  p.DLID = l;
  return p;
}

Task<> get_port_info(Scheduler& s, IBPath p, unsigned port, int& ok, int& failed) {
  try {
    co_await s.SubnGet<iba::SMPPortInfo>(std::move(p), port);
    ++ok;
  } catch (const MADError&) {
    ++failed;
  }
}

uint32_t amod_of(const uint8_t* mad) { return uint32_t(iba::MADHeader::attributeModifier_at(mad)); }

}  // namespace

// Every port's PortInfo of one 40-port switch at once: without the caps its
// SMA's FIFO (4) overflows; with them from the start (or by default, for
// the walk's first replies) it never holds more than 4; held only from the
// first timeout on, the first burst loses SMPs but their resends do not.
TEST(FlowControl, BurstToOneSwitchIsCapped) {
  uint64_t uncapped_drops = 0;
  for (int mode : {0, 1, 2, 3}) {  // no caps, caps from the start, the default, from the first loss
    SCOPED_TRACE(mode);
    VClockFabric f;
    Scheduler s(f, 64);
    MadEngine& e = s.engine();
    e.limits().proc_start = 0;  // (this mechanism alone: no processor levels, issue 35)
    if (mode == 0) e.limits().node_cap = e.limits().smi_cap = 0;
    if (mode == 1) e.limits().caps_from_start = true;
    if (mode == 3) e.limits().start_replies = 0;
    int ok = 0, failed = 0;
    for (unsigned p = 1; p <= 40; ++p) s.spawn(get_port_info(s, lid(5), p, ok, failed));
    s.run();
    EXPECT_EQ(ok + failed, 40);
    if (mode == 1 || mode == 2) {
      EXPECT_EQ(ok, 40);
      EXPECT_EQ(f.drops, 0u);
      EXPECT_LE(f.procs["L5"].peak, 4u);
      EXPECT_EQ(f.sent.size(), 40u);
      EXPECT_GT(e.flow_stats().held, 0u);
    } else if (mode == 0) {
      uncapped_drops = f.drops;
      EXPECT_GT(f.drops, 36u);  // the first burst's, and its resends'
      EXPECT_GT(e.flow_stats().timeouts, 0u);
    } else {
      EXPECT_EQ(ok, 40);
      EXPECT_EQ(f.drops, 36u);  // the first burst only: the resends are capped
      EXPECT_TRUE(e.flow_stats().caps);
      EXPECT_LT(f.drops, uncapped_drops);
    }
  }
}

// With grow <= 1 the caps hold for the first start_replies SMP replies;
// when none was lost they are lifted at once (a fabric that keeps up runs
// at full speed: the 40 then go out at once), and a loss among them keeps
// them (the node cap lower: the SMP was lost with 2 more of ours at its
// node).
TEST(FlowControl, CapsLiftedAfterTheFirstRepliesWithoutLoss) {
  for (bool lose : {false, true}) {
    SCOPED_TRACE(lose);
    VClockFabric f;
    f.default_q = 0;  // (no drops but the one below)
    bool lost = false;
    f.answer = [&](const uint8_t* req, const IBPath&, uint8_t*) {
      if (lose && amod_of(req) == 3 && !lost) return !(lost = true);
      return true;
    };
    Scheduler s(f, 64);
    s.engine().limits().proc_start = 0;  // (this mechanism alone: no processor levels, issue 35)
    s.engine().limits().node_cap = 4;  // (the default; said, as the figures depend on it)
    s.engine().limits().node_start = 0;  // (every node at 4 from the start: the figures below)
    s.engine().limits().start_replies = 8;
    s.engine().limits().grow = 0;
    int ok = 0, failed = 0;
    for (unsigned p = 1; p <= 8; ++p) s.spawn(get_port_info(s, lid(5), p, ok, failed));
    s.run();
    EXPECT_EQ(s.engine().flow_stats().caps, lose);
    for (unsigned p = 1; p <= 40; ++p) s.spawn(get_port_info(s, lid(6), p, ok, failed));
    s.run();
    EXPECT_EQ(ok, 48);
    EXPECT_EQ(f.procs["L5"].peak, 4u);
    if (lose) {
      EXPECT_EQ(s.engine().flow_stats().node_cap, 2u);
      EXPECT_EQ(f.procs["L6"].peak, 2u);
    } else
      EXPECT_EQ(f.procs["L6"].peak, 40u);
  }
}

// Widened by loss alone (delay_rise 0, grow 2), the processor caps are
// doubled at the start_replies-th reply and at most once per timeout after
// that, and all
// caps are lifted at lift_scale: after 8 replies, 2-hop directed routes
// through one switch go 4 at a time (4 x 2/3 <= 1.5 x 2) instead of 2, or
// all 40 at once when 2 is already lift_scale; the node cap is not
// widened (40 LID-routed to one node still go 4 at a time).
TEST(FlowControl, CapsWidenedStepByStepAfterTheFirstReplies) {
  for (double lift : {16.0, 2.0}) {
    SCOPED_TRACE(lift);
    VClockFabric f;
    f.default_q = 0;
    Scheduler s(f, 64);
    s.engine().limits().proc_start = 0;  // (this mechanism alone: no processor levels, issue 35)
    s.engine().limits().node_cap = 4;
    s.engine().limits().node_start = 0;  // (every node at 4 from the start: the figures below)
    s.engine().limits().start_replies = 8;
    s.engine().limits().lift_scale = lift;
    s.engine().limits().delay_rise = 0;
    size_t most = 0;
    f.answer = [&](const uint8_t*, const IBPath&, uint8_t*) {
      most = std::max(most, s.engine().in_flight());
      return true;
    };
    int ok = 0, failed = 0;
    for (unsigned p = 1; p <= 8; ++p) s.spawn(get_port_info(s, IBPath::from_string("0,1," + std::to_string(p)), 1, ok, failed));
    s.run();
    EXPECT_EQ(most, 2u);
    EXPECT_EQ(s.engine().flow_stats().scale, 2.0);
    EXPECT_EQ(s.engine().flow_stats().caps, lift > 2);
    most = 0;
    for (unsigned p = 1; p <= 40; ++p) s.spawn(get_port_info(s, IBPath::from_string("0,1," + std::to_string(p)), 1, ok, failed));
    s.run();
    EXPECT_EQ(most, lift > 2 ? 4u : 40u);
    for (unsigned p = 1; p <= 40; ++p) s.spawn(get_port_info(s, lid(6), p, ok, failed));
    s.run();
    EXPECT_EQ(ok, 88);
    EXPECT_EQ(f.procs["L6"].peak, lift > 2 ? 4u : 40u);
    EXPECT_EQ(s.engine().flow_stats().scale, 2.0);  // (all this took less than a timeout)
  }
}

// 40 PortInfos through directed routes `via` + port (1-40), the caps held
// from the first SMP (no processor levels), the limits as set(l) makes
// them: the most in flight at once.
template <class Set>
size_t most_in_flight(const std::string& via, Set set) {
  VClockFabric f;
  f.default_q = 0;
  Scheduler s(f, 64);
  s.engine().limits().proc_start = 0;  // (these mechanisms alone: no processor levels, issue 35)
  s.engine().limits().caps_from_start = true;
  set(s.engine().limits());
  size_t most = 0;
  f.answer = [&](const uint8_t*, const IBPath&, uint8_t*) {
    most = std::max(most, s.engine().in_flight());
    return true;
  };
  int ok = 0, failed = 0;
  for (unsigned p = 1; p <= 40; ++p) s.spawn(get_port_info(s, IBPath::from_string(via + std::to_string(p)), 1, ok, failed));
  s.run();
  EXPECT_EQ(ok, 40);
  return most;
}

// The processor cap counts an SMP by its share of the visits it makes
// (smi_share): a directed route of 4 hops visits 7 processors, 2 of them at
// the first switch, so 6 pass it at once (6 x 2/7 <= 1.75); one of 2 hops
// visits 3, so only 2 do; counted as 1 each (smi_share 0), 4 whatever
// their length.
TEST(FlowControl, ProcessorShareCountsLongRoutesLess) {
  for (double share : {1.75, 0.0}) {
    for (std::string via : {"0,1,2,3,", "0,1,"}) {
      SCOPED_TRACE(std::to_string(share) + " " + via);
      const size_t most = most_in_flight(via, [&](FlowLimits& l) {
        l.dr_heads = false;  // (nor the first switch's cap on the routes of 2 hops)
        l.smi_share = share;
      });
      EXPECT_EQ(most, share == 0 ? 4u : via.size() > 4 ? 6u : 2u);
    }
  }
}

// FlowLimits::dr_heads: the directed routes of 2 hops (the first switch's
// neighbours' probes, its hosts' PortInfos) leave the first switch by
// their last hop; they count within its node cap however far its
// processor shares were widened (smi_share 8 here: as a share of 2 of
// its 3 visits, 12 would pass at once), so its queue holds no more of
// ours than the cap.
TEST(FlowControl, TheFirstSwitchHoldsItsNeighboursRoutesInItsCap) {
  for (bool heads : {true, false}) {
    SCOPED_TRACE(heads);
    const size_t most = most_in_flight("0,1,", [&](FlowLimits& l) {
      l.smi_share = 8;
      l.dr_heads = heads;
    });
    if (heads)
      EXPECT_LE(most, FlowLimits().node_cap);
    else
      EXPECT_GT(most, 2 * FlowLimits().node_cap);
  }
}

// MADs held by a busy node wait with it: the ones to other nodes behind
// them in line go out at once (and the engine does not look at the held
// ones again until that node answers one: drain() parks them).
TEST(FlowControl, HeldMadsDoNotHoldUpOthers) {
  VClockFabric f;
  f.default_q = 0;
  Scheduler s(f, 64);
  s.engine().limits().proc_start = 0;  // (this mechanism alone: no processor levels, issue 35)
  s.engine().limits().caps_from_start = true;
  s.engine().limits().node_cap = 4;
  s.engine().limits().node_start = 0;  // (every node at 4 from the start: the figures below)
  std::vector<VClockFabric::ns> busy_done, other_done;
  auto one = [&](uint16_t l, unsigned port, std::vector<VClockFabric::ns>& done) -> Task<> {
    co_await s.SubnGet<iba::SMPPortInfo>(lid(l), port);
    done.push_back(f.elapsed());
  };
  for (unsigned p = 1; p <= 40; ++p) s.spawn(one(5, p, busy_done));
  for (uint16_t l = 10; l < 30; ++l) s.spawn(one(l, 1, other_done));
  s.run();
  ASSERT_EQ(busy_done.size(), 40u);
  ASSERT_EQ(other_done.size(), 20u);
  // 40 to one node, 4 at a time at 50 us each: 0.5 ms; the others in the
  // first 4 node services' time.
  EXPECT_LT(*std::max_element(other_done.begin(), other_done.end()), busy_done[8]);
  EXPECT_EQ(f.procs["L5"].peak, 4u);
  EXPECT_EQ(s.engine().flow_stats().held, 36u);
}

// Directed routes to 40 nodes behind one switch all pass its SMI: at most
// smi_cap at once there, none dropped, and the LID of that switch (learned
// from discovery) counts against the same processor.
TEST(FlowControl, DirectedRoutesThroughOneSmiAreCapped) {
  VClockFabric f;
  f.lid_node[7] = "D0,1";
  Scheduler s(f, 64);
  s.engine().limits().caps_from_start = true;
  s.engine().learn_node(IBPath::from_string("0,1"), 7, std::nullopt);
  int ok = 0, failed = 0;
  for (unsigned p = 1; p <= 40; ++p) {
    s.spawn(get_port_info(s, IBPath::from_string("0,1," + std::to_string(p)), 1, ok, failed));
    if (p % 4 == 0) s.spawn(get_port_info(s, lid(7), p, ok, failed));
  }
  s.run();
  EXPECT_EQ(ok, 50);
  EXPECT_EQ(f.drops, 0u);
  EXPECT_LE(f.procs["D0,1"].peak, 4u);
}

// PortInfo of ports 1-40 at LIDs 11-50, all answered in the end; the sends
// of port `amod`'s, in order.
static std::vector<const VClockFabric::Sent*> forty_port_infos(VClockFabric& f, Scheduler& s, unsigned amod) {
  int ok = 0, failed = 0;
  for (unsigned p = 1; p <= 40; ++p) s.spawn(get_port_info(s, lid(uint16_t(10 + p)), p, ok, failed));
  s.run();
  EXPECT_EQ(ok, 40);
  std::vector<const VClockFabric::Sent*> tries;
  for (auto& x : f.sent)
    if (amod_of(x.mad.data()) == amod) tries.push_back(&x);
  return tries;
}

// One SMP dropped after the round trip is known: sent again after the
// computed timeout (the round trip's, at least min_timeout_ms: 20 ms),
// not after the 1000 ms a path without a response time used to get.  With
// -t the timeout is what -t says.
TEST(FlowControl, DroppedSmpResentAfterComputedTimeout) {
  for (int forced : {0, 300}) {
    VClockFabric f;
    f.settings().timeout_ms = forced;
    bool dropped = false;
    f.answer = [&](const uint8_t* req, const IBPath&, uint8_t*) {
      if (amod_of(req) == 30 && !dropped) return !(dropped = true);
      return true;
    };
    Scheduler s(f, 8);
    s.engine().limits().tail_probe = 0;  // (the losses for the timeouts or the order to see: no tail probe)
    EXPECT_EQ(s.engine().computed_timeout_ms(lid(9), iba::mgmt::SUBN_LID_ROUTED), 1000);  // nothing measured yet
    const auto tries = forty_port_infos(f, s, 30);
    ASSERT_EQ(tries.size(), 2u);
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(tries[1]->at - tries[0]->at).count();
    if (forced) {
      EXPECT_EQ(waited, 300);
    } else {
      EXPECT_EQ(waited, 20);
      EXPECT_EQ(tries[0]->timeout_ms, 20);
      EXPECT_GT(s.engine().srtt_ms(), 0);
      EXPECT_LT(s.engine().srtt_ms(), 5);
    }
    EXPECT_EQ(s.engine().flow_stats().timeouts, 1u);
    EXPECT_EQ(s.engine().flow_stats().drops(), 1u);
  }
}

// FlowLimits::tail_probe: a MAD dropped near the end of a run, the MADs
// sent after it answered, nothing left to ask.  It is sent again once it
// has waited twice the longest round trip (1 ms at least), not after its
// 20 ms timeout; its probe answered, it counts as lost.  A MAD that is
// only slow (10 ms at its node) is sent again too, and the first send's
// answer completes it: not a loss.  The last MAD sent, dropped, alone in
// flight: everything waits for it, and it is sent again too (the irregular
// fabric's random-100, the exporter: a PortInfo lost alone waited 20 ms,
// 0.052 s against the reference's strategy's 0.043).  Two sent last, both dropped: nothing
// sent after either was answered, and neither is alone (a responder that
// stalls answers nothing meanwhile): their timeouts.
TEST(FlowControl, ATailAloneInFlightIsSentAgainBeforeItsTimeout) {
  for (bool slow : {false, true}) {
    SCOPED_TRACE(slow);
    VClockFabric f;
    bool dropped = false;
    if (slow) f.lid_node[40] = "slow";
    if (slow) f.proc("slow").service = std::chrono::milliseconds(10);
    f.answer = [&](const uint8_t* req, const IBPath&, uint8_t*) {
      if (!slow && amod_of(req) == 30 && !dropped) return !(dropped = true);
      return true;
    };
    Scheduler s(f, 8);
    const auto tries = forty_port_infos(f, s, 30);
    ASSERT_EQ(tries.size(), 2u);
    const auto waited = tries[1]->at - tries[0]->at;
    EXPECT_GE(waited, std::chrono::milliseconds(1));
    EXPECT_LT(waited, std::chrono::milliseconds(slow ? 10 : 5));
    const FlowStats st = s.engine().flow_stats();
    EXPECT_EQ(st.tail_probes, 1u);
    EXPECT_EQ(st.timeouts, 0u);
    EXPECT_EQ(st.tail_lost, slow ? 0u : 1u);
    EXPECT_EQ(st.drops(), slow ? 0u : 1u);
    if (slow) continue;
    // The last one sent (port 40), dropped, alone: probed.
    VClockFabric g;
    bool lost = false;
    g.answer = [&](const uint8_t* req, const IBPath&, uint8_t*) {
      if (amod_of(req) == 40 && !lost) return !(lost = true);
      return true;
    };
    Scheduler t(g, 1);
    const auto last = forty_port_infos(g, t, 40);
    ASSERT_EQ(last.size(), 2u);
    // (a quarter of the least timeout at least: nothing was answered after it)
    EXPECT_GE(last[1]->at - last[0]->at, std::chrono::milliseconds(t.engine().limits().min_timeout_ms / 4));
    EXPECT_LT(last[1]->at - last[0]->at, std::chrono::milliseconds(last[0]->timeout_ms));
    EXPECT_EQ(t.engine().flow_stats().tail_probes, 1u);
    EXPECT_EQ(t.engine().flow_stats().timeouts, 0u);
    EXPECT_EQ(t.engine().flow_stats().tail_lost, 1u);
    // The last two (ports 39 and 40), out together, both dropped: their timeouts.
    VClockFabric h;
    std::set<unsigned> gone;
    h.answer = [&](const uint8_t* req, const IBPath&, uint8_t*) {
      const unsigned a = amod_of(req);
      return !((a == 39 || a == 40) && gone.insert(a).second);
    };
    Scheduler u(h, 2);
    EXPECT_EQ(forty_port_infos(h, u, 40).size(), 2u);
    EXPECT_EQ(u.engine().flow_stats().tail_probes, 0u);
    EXPECT_EQ(u.engine().flow_stats().timeouts, 2u);
  }
}

// The IBA's bound (RespTimeValue of the node, SubnetTimeOut both ways) is
// the timeout before any round trip is measured, and the most a computed one
// reaches.
TEST(FlowControl, IbaFieldsBoundTheTimeout) {
  VClockFabric f;
  Scheduler s(f, 8);
  MadEngine& e = s.engine();
  IBPath dr = IBPath::from_string("0,1,2");
  EXPECT_EQ(e.computed_timeout_ms(dr, iba::mgmt::SUBN_DIRECTED_ROUTE), 1000);
  e.learn_subnet_timeout(16);                   // 268.4 ms each way
  e.learn_node(dr, 12, uint8_t(18));            // 1073.7 ms
  EXPECT_EQ(e.computed_timeout_ms(dr, iba::mgmt::SUBN_DIRECTED_ROUTE), 1611);
  EXPECT_EQ(e.computed_timeout_ms(lid(12), iba::mgmt::SUBN_LID_ROUTED), 1611);  // the same node by its LID
  e.learn_node(dr, 12, uint8_t(10));            // 4.2 ms + 536.9: 542 ms
  EXPECT_EQ(e.computed_timeout_ms(lid(12), iba::mgmt::SUBN_LID_ROUTED), 542);
}

// Drops shrink the window (halved, once per round trip); replies grow it
// back to the hard maximum.
TEST(FlowControl, WindowShrinksOnDropsAndGrowsBack) {
  VClockFabric f;
  f.default_q = 0;  // no FIFO limit: only the drops below
  unsigned n = 0;
  f.answer = [&](const uint8_t*, const IBPath&, uint8_t*) { return !(++n <= 600 && n % 100 == 0); };
  Scheduler s(f, 64);
  s.engine().limits().tail_probe = 0;  // (the losses for the timeouts or the order to see: no tail probe)
  unsigned lo = 64;
  int ok = 0, failed = 0;
  auto one = [&](uint16_t l) -> Task<> {
    co_await get_port_info(s, lid(l), 1, ok, failed);
    lo = std::min(lo, s.engine().window());
  };
  for (unsigned i = 0; i < 1000; ++i) s.spawn(one(uint16_t(2 + i)));
  s.run();
  EXPECT_EQ(ok, 1000);
  FlowStats st = s.engine().flow_stats();
  EXPECT_EQ(st.timeouts, 6u);
  EXPECT_EQ(st.drops(), 6u);
  EXPECT_LE(st.window_lo, 32u);
  EXPECT_EQ(st.window_lo, lo);
  EXPECT_LT(s.engine().window(), 64u);
  // Replies without drops: back to the hard maximum.
  for (unsigned i = 0; i < 3000; ++i) s.spawn(one(uint16_t(2 + i)));
  s.run();
  EXPECT_EQ(ok, 4000);
  EXPECT_EQ(s.engine().window(), 64u);
  EXPECT_EQ(s.engine().flow_stats().window_hi, 64u);
}

// The engine's slots (a TID's low 16 bits): a MAD takes the slot freed
// last, else the lowest never used, as when every slot was made at the
// start.  Three PortInfos at once take 0, 1 and 2 and are answered in
// that order; the next four take 2, 1, 0 and then 3.
TEST(FlowControl, MadsTakeTheSlotFreedLastElseTheLowestUnused) {
  VClockFabric f;
  f.default_q = 0;
  Scheduler s(f);
  int ok = 0, failed = 0;
  for (uint16_t l = 2; l < 5; ++l) s.spawn(get_port_info(s, lid(l), 1, ok, failed));
  s.run();
  for (uint16_t l = 2; l < 6; ++l) s.spawn(get_port_info(s, lid(l), 1, ok, failed));
  s.run();
  EXPECT_EQ(ok, 7);
  std::vector<unsigned> slots;
  for (const auto& x : f.sent) slots.push_back(unsigned(iba::MADHeader::transactionID_at(x.mad.data()) & 0xffff));
  EXPECT_EQ(slots, (std::vector<unsigned>{0, 1, 2, 2, 1, 0, 3}));
}

// The SA answers BUSY while it holds more than 2 requests: each is sent
// again after a back-off (never at once), all succeed, and the window
// shrinks.
TEST(FlowControl, SaBusyIsHonoured) {
  VClockFabric f;
  f.default_q = 0;
  struct Busy {
    VClockFabric::ns at;
    unsigned slot;
  };
  std::vector<Busy> busy;
  auto slot_of = [](const uint8_t* mad) { return unsigned(iba::MADHeader::transactionID_at(mad) & 0xffff); };
  f.answer = [&](const uint8_t* req, const IBPath&, uint8_t* rep) {
    if (iba::MADHeader::mgmtClass_at(req) != iba::mgmt::SUBN_ADM) return true;
    if (f.proc("L1").leaving.size() > 2) {
      rep[5] = 0x01;  // BUSY
      busy.push_back({f.elapsed(), slot_of(req)});
    }
    return true;
  };
  Scheduler s(f, 16);
  int ok = 0;
  auto one = [&](uint16_t l) -> Task<> {
    iba::SANodeRecord q;
    q.set_LID(l);
    co_await s.SubnAdmGet(q, 1);
    ++ok;
  };
  for (uint16_t l = 1; l <= 12; ++l) s.spawn(one(l));
  s.run();
  EXPECT_EQ(ok, 12);
  const FlowStats st = s.engine().flow_stats();
  ASSERT_GT(st.busy, 0u);
  EXPECT_EQ(st.busy, busy.size());
  EXPECT_LT(st.window_lo, 16u);
  EXPECT_EQ(f.sent.size(), 12u + st.busy);
  // Each MAD answered BUSY went out again 10 ms or more later, not at once.
  for (const Busy& b : busy) {
    bool again = false;
    for (auto& x : f.sent)
      if (x.at > b.at && slot_of(x.mad.data()) == b.slot) {
        EXPECT_GE(x.at - b.at, std::chrono::milliseconds(10));
        again = true;
        break;
      }
    EXPECT_TRUE(again);
  }
}

// With min_visit_us, the caps hold only where processors take time: directed routes of 1 and
// 4 hops measured, the least round trip growing by 50 us per processor
// visit keeps them; processors that take none (a simulator: only the 1 us
// links) lift them, and a burst to one switch then goes out at once.
TEST(FlowControl, CapsHoldWhereProcessorsTakeTime) {
  for (int service_us : {50, 0}) {
    VClockFabric f;
    f.default_q = 0;
    f.default_service = std::chrono::microseconds(service_us);
    Scheduler s(f, 64);
    s.engine().limits().proc_start = 0;  // (this mechanism alone: no processor levels, issue 35)
    s.engine().limits().min_visit_us = 4;  // (the default, 0, never lifts them)
    s.engine().limits().node_cap = 4;
    s.engine().limits().node_start = 0;  // (every node at 4 from the start: the figures below)
    s.engine().limits().caps_from_start = true;
    int ok = 0, failed = 0;
    // One at a time first: round trips without queueing, 8 of each length.
    for (int i = 0; i < 8; ++i) {
      s.spawn(get_port_info(s, IBPath::from_string("0,1"), 1, ok, failed));
      s.run();
      s.spawn(get_port_info(s, IBPath::from_string("0,1,2,3,4"), 1, ok, failed));
      s.run();
    }
    const FlowStats st = s.engine().flow_stats();
    EXPECT_NEAR(st.visit_us, service_us + 1.0, 1.0);
    EXPECT_EQ(st.caps, service_us > 0);
    for (unsigned p = 1; p <= 40; ++p) s.spawn(get_port_info(s, lid(5), p, ok, failed));
    s.run();
    EXPECT_EQ(ok, 56);
    if (service_us) {
      EXPECT_EQ(f.procs["L5"].peak, 4u);
      EXPECT_GT(s.engine().flow_stats().held, 0u);
    } else {
      EXPECT_EQ(s.engine().flow_stats().held, 0u);  // all 40 sent at once
    }
  }
}

// Issue 35: a node whose queue holds 1 SMP, asked 40 at once.  The first
// burst (4, the node cap) loses 3; each was lost with others of ours at
// that node, so the node cap comes below their number, to 1, and nothing
// after that is lost: every query is answered.  (A node cap that stayed 4
// lost 3 of every 4 sends there, and some queries for good.)
TEST(FlowControl, NodeCapComesDownToAQueueOfOne) {
  for (bool from_start : {true, false}) {
    SCOPED_TRACE(from_start);
    VClockFabric f;
    f.proc("L5").q = 1;
    Scheduler s(f, 64);
    s.engine().limits().node_cap = 4;
    s.engine().limits().caps_from_start = from_start;
    int ok = 0, failed = 0;
    for (unsigned p = 1; p <= 40; ++p) s.spawn(get_port_info(s, lid(5), p, ok, failed));
    s.run();
    EXPECT_EQ(ok, 40);
    EXPECT_EQ(failed, 0);
    EXPECT_GE(f.drops, 1u);
    EXPECT_LE(f.drops, 3u);
    const FlowStats st = s.engine().flow_stats();
    EXPECT_EQ(st.node_cap, 1u);
    // Each loss seen once: by its timeout, or sooner by order (overtaken).
    EXPECT_EQ(st.timeouts + st.overtaken, f.drops);
    EXPECT_EQ(f.sent.size(), 40u + f.drops);
  }
}

// A lost SMP that was alone at its destination was lost on its way (or
// behind someone else's MADs): the processor caps come down instead, by
// loss_cut at most once per round trip, and the node cap stays.
TEST(FlowControl, LossAloneAtItsNodeCutsTheProcessorCaps) {
  VClockFabric f;
  f.default_q = 0;
  Scheduler s(f, 64);
  s.engine().limits().tail_probe = 0;  // (the losses for the timeouts or the order to see: no tail probe)
  s.engine().limits().caps_from_start = true;
  s.engine().limits().node_cap = 4;
  unsigned n = 0;
  f.answer = [&](const uint8_t*, const IBPath&, uint8_t*) { return ++n != 20; };
  int ok = 0, failed = 0;
  for (unsigned p = 1; p <= 60; ++p) s.spawn(get_port_info(s, IBPath::from_string("0,1," + std::to_string(p)), 1, ok, failed));
  s.run();
  EXPECT_EQ(ok, 60);
  const FlowStats st = s.engine().flow_stats();
  EXPECT_EQ(st.node_cap, 4u);
  EXPECT_EQ(st.scale, 0.5);
  EXPECT_EQ(st.scale_lo, 0.5);
}

namespace {

// A walk's worth of directed routes of 3 hops, all through switch D0,1, to
// n nodes (16 ports each of 0,1,x), then run.
void walk_through_one_switch(Scheduler& s, unsigned first, unsigned n, int& ok, int& failed) {
  for (unsigned i = first; i < first + n; ++i)
    s.spawn(get_port_info(s, IBPath::from_string("0,1," + std::to_string(1 + i / 16) + "," + std::to_string(1 + i % 16)),
                          1, ok, failed));
  s.run();
}

}  // namespace

// Issue 35: the caps come back when the round trips lengthen.  A fabric
// that keeps up (processors that take no time, no route sharing one) has
// its caps widened and lifted; then its switches slow down and one of
// them, which every route of the second walk passes, serves the SM's own
// SMPs as well: the round trips rise, the local port's does not (the
// queue is a switch's), and the caps hold again (the 0,1 switch then
// takes what its shares allow, a few at once).  With watch_rtt off they
// stay lifted and the whole window (16) passes it at once.
TEST(FlowControl, CapsReturnWhenABackgroundLoadStartsMidRun) {
  for (bool watch : {true, false}) {
    SCOPED_TRACE(watch);
    VClockFabric f;
    f.default_q = 0;
    f.default_service = std::chrono::microseconds(0);
    Scheduler s(f, 16);
    MadEngine& e = s.engine();
    e.limits().proc_start = 0;  // (this mechanism alone: no processor levels, issue 35)
    e.limits().start_replies = 16;
    e.limits().delay_samples = 16;
    e.limits().lift_scale = 2;
    e.limits().watch_rtt = watch;
    int ok = 0, failed = 0;
    IBPath local;
    local.drPath = {0};
    s.spawn(get_port_info(s, local, 1, ok, failed));  // (the local port's own SMA: never slowed)
    for (unsigned i = 1; i <= 250; ++i)
      s.spawn(get_port_info(s, IBPath::from_string("0," + std::to_string(i) + ",1"), 1, ok, failed));
    s.run();
    ASSERT_EQ(ok, 251);
    EXPECT_FALSE(e.flow_stats().caps);  // lifted
    EXPECT_GE(e.flow_stats().scale_hi, 2);
    // The switches slow down, and the 0,1 switch serves the SM too.
    f.default_service = std::chrono::microseconds(20);
    for (auto& [name, p] : f.procs)
      if (name != "D0") p.service = f.default_service;
    f.background("D0,1", std::chrono::microseconds(60));
    size_t answered = 0, most_late = 0;
    f.answer = [&](const uint8_t*, const IBPath&, uint8_t*) {
      if (++answered > 300) most_late = std::max(most_late, e.in_flight());
      return true;
    };
    walk_through_one_switch(s, 0, 600, ok, failed);
    EXPECT_EQ(ok, 851);
    EXPECT_EQ(failed, 0);
    const FlowStats st = e.flow_stats();
    if (watch) {
      EXPECT_GE(st.caps_back, 1u);
      EXPECT_GT(st.probes, 0u);
      EXPECT_LE(most_late, 8u);
    } else {
      EXPECT_FALSE(st.caps);
      EXPECT_EQ(st.caps_back, 0u);
      EXPECT_GE(most_late, 12u);
    }
  }
}

// Issue 35: forwarding and answering at different speeds.  Switches that
// forward a hop in 5 us but take 500 us to answer: by visits a 3-hop route
// weighs 2/5 of the first switch, so 3 pass it at once and it idles; by
// time (the slope of the least round trips gives the forwarding time, the
// gap between replies queued together at a node the answer time) it
// weighs 2 x 5 / (4 x 5 + 500), and the walk runs as wide as the window.
// The other way round (forwarding 500 us, answering 5) the replies' gaps
// say 500 too, and the shares stay the visits'.
TEST(FlowControl, UnequalForwardAndAnswerTimes) {
  for (bool slow_answers : {true, false}) {
    for (bool by_time : {true, false}) {
      SCOPED_TRACE(std::to_string(slow_answers) + " " + std::to_string(by_time));
      VClockFabric f;
      f.default_q = 0;
      f.default_service = std::chrono::microseconds(slow_answers ? 500 : 5);
      f.default_forward = std::chrono::microseconds(slow_answers ? 5 : 500);
      Scheduler s(f, 64);
      MadEngine& e = s.engine();
      e.limits().proc_start = 0;  // (this mechanism alone: no processor levels, issue 35)
      e.limits().caps_from_start = true;
      e.limits().time_shares = by_time;
      int ok = 0, failed = 0;
      // Round trips of 1 and 3 hops, one at a time, and 8 bursts of 4 to one node.
      for (int i = 0; i < 8; ++i) {
        s.spawn(get_port_info(s, IBPath::from_string("0,1"), 1, ok, failed));
        s.run();
        s.spawn(get_port_info(s, IBPath::from_string("0,1,2,3"), 1, ok, failed));
        s.run();
      }
      for (unsigned n = 2; n <= 9; ++n) {
        for (unsigned p = 1; p <= 4; ++p) s.spawn(get_port_info(s, IBPath::from_string("0,1," + std::to_string(n)), p, ok, failed));
        s.run();
      }
      const FlowStats st = e.flow_stats();
      EXPECT_NEAR(st.forward_us, slow_answers ? 6 : 501, 1.5);
      if (by_time) {
        if (slow_answers)
          EXPECT_NEAR(st.answer_us, 500, 25);
        else
          EXPECT_TRUE(st.answer_us < 0 || st.answer_us > 490) << st.answer_us;
      }
      size_t most = 0;
      f.answer = [&](const uint8_t*, const IBPath&, uint8_t*) {
        most = std::max(most, e.in_flight());
        return true;
      };
      walk_through_one_switch(s, 0, 200, ok, failed);
      EXPECT_EQ(ok, 248);
      if (slow_answers && by_time) {
        EXPECT_GE(most, 48u);
      } else if (slow_answers) {
        EXPECT_LE(most, 3u);
      } else {
        EXPECT_LE(most, 4u);  // (by visits 3; by time r is about 1)
      }
    }
  }
}

// Issue 35: a node's cap starts at node_start (2) and rises, up to
// node_cap, only on evidence.  A node whose queue holds 2 and that takes
// 50 us an SMP, asked 40 at once: the replies of the first two queued
// there (the second came 50 us after the first), so its cap stays 2 and
// nothing is lost; started at node_cap (4, node_start 0) the first burst
// overflows that queue.  A node 200 us away that answers in 5 us: each
// reply came back as fast as the first, so its cap rises to 4 (4 in
// flight at once), still without a loss.
TEST(FlowControl, NodeCapStartsLowAndRisesOnEvidence) {
  for (unsigned start : {2u, 0u}) {
    SCOPED_TRACE(start);
    VClockFabric f;
    f.proc("L5").q = 2;
    Scheduler s(f, 64);
    s.engine().limits().proc_start = 0;  // (this mechanism alone: no processor levels, issue 35)
    s.engine().limits().node_cap = 4;
    s.engine().limits().node_start = start;
    int ok = 0, failed = 0;
    for (unsigned p = 1; p <= 40; ++p) s.spawn(get_port_info(s, lid(5), p, ok, failed));
    s.run();
    EXPECT_EQ(ok, 40);
    if (start) {
      EXPECT_EQ(f.drops, 0u);
      EXPECT_EQ(f.procs["L5"].peak, 2u);
      EXPECT_EQ(s.engine().flow_stats().timeouts, 0u);
    } else {
      EXPECT_GT(f.drops, 0u);
    }
  }
  VClockFabric f;
  f.default_q = 0;
  f.default_service = std::chrono::microseconds(5);
  f.hop = std::chrono::microseconds(200);
  Scheduler s(f, 64);
  size_t most = 0;
  f.answer = [&](const uint8_t*, const IBPath&, uint8_t*) {
    most = std::max(most, s.engine().in_flight());
    return true;
  };
  int ok = 0, failed = 0;
  for (unsigned p = 1; p <= 40; ++p) s.spawn(get_port_info(s, lid(5), p, ok, failed));
  s.run();
  EXPECT_EQ(ok, 40);
  EXPECT_EQ(f.drops, 0u);
  EXPECT_EQ(most, 4u);
}

// Issue 35: a management processor answers in order, so an SMP still out
// when two sent after it on its route were answered was lost: sent again
// a round trip after the drop (FlowLimits::overtakes), not after the
// computed timeout (100 ms; 1000 ms before any round trip is known).
TEST(FlowControl, LossSeenByOrder) {
  for (unsigned overtakes : {2u, 0u}) {
    SCOPED_TRACE(overtakes);
    VClockFabric f;
    bool dropped = false;
    f.answer = [&](const uint8_t* req, const IBPath&, uint8_t*) {
      if (amod_of(req) == 3 && !dropped) return !(dropped = true);
      return true;
    };
    Scheduler s(f, 64);
    s.engine().limits().tail_probe = 0;  // (the losses for the timeouts or the order to see: no tail probe)
    s.engine().limits().overtakes = overtakes;
    int ok = 0, failed = 0;
    for (unsigned p = 1; p <= 40; ++p) s.spawn(get_port_info(s, lid(5), p, ok, failed));
    s.run();
    EXPECT_EQ(ok, 40);
    std::vector<const VClockFabric::Sent*> tries;
    for (auto& x : f.sent)
      if (amod_of(x.mad.data()) == 3) tries.push_back(&x);
    ASSERT_EQ(tries.size(), 2u);
    const auto waited = tries[1]->at - tries[0]->at;
    const FlowStats st = s.engine().flow_stats();
    if (overtakes) {
      EXPECT_LT(waited, std::chrono::milliseconds(2));  // (a few of the node's 50 us answers)
      EXPECT_EQ(st.overtaken, 1u);
      EXPECT_EQ(st.timeouts, 0u);
    } else {
      EXPECT_GE(waited, std::chrono::milliseconds(20));
      EXPECT_EQ(st.overtaken, 0u);
      EXPECT_EQ(st.timeouts, 1u);
    }
    EXPECT_EQ(st.drops(), 1u);
    EXPECT_EQ(f.sent.size(), 41u);
  }
}

// The most SMPs in flight when six PortInfos go by each of routes at
// once, under a node cap of 2 alone, after learn(engine) said what the
// layers above know.
size_t peak_under_node_cap_2(const std::vector<IBPath>& routes, const std::function<void(MadEngine&)>& learn) {
  VClockFabric f;
  f.default_q = 0;
  Scheduler s(f, 64);
  MadEngine& e = s.engine();
  e.limits().proc_start = 0;
  e.limits().caps_from_start = true;
  e.limits().node_cap = 2;
  e.limits().node_start = 0;
  e.limits().smi_cap = 0;  // (the node cap alone)
  learn(e);
  size_t most = 0;
  f.answer = [&](const uint8_t*, const IBPath&, uint8_t*) {
    most = std::max(most, e.in_flight());
    return true;
  };
  int ok = 0, failed = 0;
  for (unsigned p = 1; p <= 6; ++p)
    for (const IBPath& r : routes) s.spawn(get_port_info(s, r, p, ok, failed));
  s.run();
  EXPECT_EQ(ok, int(6 * routes.size()));
  return most;
}

// MadEngine::learn_route: a second directed route to a node (the walk's
// hybrid route to a switch just found, while what goes by the LID the SA
// gave it counts against its plain route, Walk::sa_lids) counts against
// the same node: with a node cap of 2, SMPs by both routes and by the
// LID are at most 2 in flight together.  Without it the second route is
// a node of its own: 2 there besides the plain route's and the LID's 2.
TEST(FlowControl, ARouteLearnedAsTheNodesSharesItsCap) {
  for (bool learned : {true, false}) {
    SCOPED_TRACE(learned ? "learned" : "not learned");
    const IBPath plain = IBPath::from_string("0,1,2,3"), other = IBPath::from_string("0,1,4,5");
    const size_t most = peak_under_node_cap_2({plain, other, lid(9)}, [&](MadEngine& e) {
      e.learn_node(plain, 9, std::nullopt);
      if (learned) e.learn_route(other, plain);
    });
    EXPECT_EQ(most, learned ? 2u : 4u);
  }
}

// FlowControl::learn_dest: a probe's route, before its node answers, is
// said to end at LID 9 (the SA's LinkRecord of the port it leaves by): it
// shares the cap of the node SMPs by LID 9 go to.  Its node's PortInfo
// then says LID 9 (learn_node): still one node.  Said LID 12 (a stale
// SA): the route is LID 12's node, LID 9's another.
TEST(FlowControl, AProbeCountsAtTheNodeTheSaSaysItReaches) {
  struct Case {
    const char* name;
    uint16_t dest, node;  // learn_dest's LID, learn_node's (0: not said)
    uint16_t other;       // the LID asked beside the route
    size_t peak;          // 2: one node's cap; 4: two nodes
  };
  for (const Case& c : {Case{"not learned", 0, 0, 9, 4}, Case{"learned", 9, 0, 9, 2}, Case{"confirmed", 9, 9, 9, 2},
                        Case{"stale, its own LID", 9, 12, 12, 2}, Case{"stale, the SA's LID", 9, 12, 9, 4}}) {
    SCOPED_TRACE(c.name);
    const IBPath probe = IBPath::from_string("0,1,2,3");
    const size_t most = peak_under_node_cap_2({probe, lid(c.other)}, [&](MadEngine& e) {
      if (c.dest) e.learn_dest(probe, c.dest);
      if (c.node) e.learn_node(probe, c.node, std::nullopt);
    });
    EXPECT_EQ(most, c.peak);
  }
}

// Order says nothing across routes: SMPs to one node by a directed route
// through a slow switch and by its LID (which no switch forwards in
// software) come back out of order, and none is taken as lost.
TEST(FlowControl, OrderIsJudgedOnOneRouteOnly) {
  VClockFabric f;
  f.default_q = 0;
  // (The fake books a FIFO in send order; the LID route's own processor
  // stands for SMPs that reach the node's queue before those still on
  // their way through the switch.)
  f.lid_node[7] = "X";
  f.proc("D0,1").forward = std::chrono::microseconds(2000);
  Scheduler s(f, 64);
  s.engine().limits().tail_probe = 0;  // (the losses for the timeouts or the order to see: no tail probe)
  MadEngine& e = s.engine();
  const IBPath dr = IBPath::from_string("0,1,2");
  e.learn_node(dr, 7, std::nullopt);  // (one node: one key for both routes)
  e.limits().node_cap = e.limits().smi_cap = 0;  // (all 16 at once)
  int ok = 0, failed = 0;
  for (unsigned p = 1; p <= 16; ++p) s.spawn(get_port_info(s, p % 2 ? dr : lid(7), p, ok, failed));
  s.run();
  EXPECT_EQ(ok, 16);
  EXPECT_EQ(e.flow_stats().overtaken, 0u);
  EXPECT_EQ(f.sent.size(), 16u);
}

// A GMP's path from a PathRecord carries the IBA's bound (PacketLifeTime
// 19: 2.1 s each way); a PMA's lost GMP is sent again after the class's
// own measured round trips (at least min_timeout_ms), not after that
// bound.  A MAD lost before any round trip was measured is timed again
// by the first one (FlowControl::rearm).
TEST(FlowControl, GmpResentAfterItsRoundTrips) {
  VClockFabric f;
  bool dropped = false;
  f.answer = [&](const uint8_t* req, const IBPath&, uint8_t*) {
    if (iba::MADHeader::mgmtClass_at(req) == iba::mgmt::PERF && !dropped)
      return !(dropped = true);
    return true;
  };
  Scheduler s(f, 8);
  s.engine().limits().tail_probe = 0;  // (the losses for the timeouts or the order to see: no tail probe)
  s.engine().limits().overtakes = 0;  // (the timeout alone)
  int ok = 0;
  auto one = [&](uint16_t l) -> Task<> {
    IBPath p = lid(l);
    p.packet_life_time = 19;
    p.dqpn = 1;
    co_await s.PerformanceGet<iba::MADClassPortInfo>(std::move(p));
    ++ok;
  };
  for (uint16_t l = 10; l < 30; ++l) s.spawn(one(l));
  s.run();
  EXPECT_EQ(ok, 20);
  ASSERT_TRUE(dropped);
  ASSERT_EQ(f.sent.size(), 21u);
  // The resend: the one MAD sent twice (same slot and sequence low half).
  std::map<uint16_t, std::vector<VClockFabric::ns>> by_lid;
  for (auto& x : f.sent) by_lid[x.path.DLID].push_back(x.at);
  size_t twice = 0;
  for (auto& [l, at] : by_lid)
    if (at.size() == 2) {
      ++twice;
      EXPECT_GE(at[1] - at[0], std::chrono::milliseconds(20));
      EXPECT_LT(at[1] - at[0], std::chrono::milliseconds(200));  // (the bound: 4.3 s)
    }
  EXPECT_EQ(twice, 1u);
  EXPECT_EQ(s.engine().flow_stats().timeouts, 1u);
}
