// Following a new master SM (issue 16): an SA MAD that times out on the SM
// LID the port knows is sent once more to the SM the local port's PortInfo
// names now (MasterSMLID), in the synchronous mode and under the
// scheduler; later SA paths go there directly; nothing is followed when the
// port names no other SM, for MADs that are not SA MADs, or with --sa-path.
#include <gtest/gtest.h>

#include "core/base/config.h"
#include "core/base/error.h"
#include "core/rpc/rpc.h"
#include "core/rpc/sched.h"
#include "core_fake_transport.h"
#include "iba/introspect.h"
#include "iba/pm.h"
#include "iba/sa.h"
#include "iba/smp.h"

using namespace ibcore;
using coretest::FakeTransport;
using coretest::Sent;

namespace {

// A port whose sysfs view names SM LID `port_sm` (never refreshed, as under
// umad2sim) while the fabric's master SM is `master`: the local PortInfo
// says `master`, and only an SA MAD sent to `master` is answered.
struct TwoSms {
  struct Port : FakeTransport {
    uint16_t port_sm = 1;
    uint16_t sm_lid() const override { return port_sm; }
    uint8_t sm_sl() const override { return 0; }
    uint16_t local_lid() const override { return 7; }
  } t;
  uint16_t master = 5;
  uint8_t master_sl = 3;
  bool smps_answered = true;
  unsigned sa_to_old = 0, sa_to_new = 0, probes = 0;

  TwoSms() {
    t.settings().timeout_ms = 20;
    t.settings().retries = 1;
    t.responder = [this](FakeTransport& tr, const Sent& s) {
      const uint8_t cls = s.mad[1];
      if (cls == 0x81 && s.mad[16] == 0 && s.mad[17] == 0x15) {  // PortInfo, DR
        ++probes;
        if (!smps_answered) return;
        iba::SMPPortInfo pi;
        pi.set_LID(7).set_masterSMLID(master).set_masterSMSL(master_sl);
        tr.reply(s, 0, pi.bytes().data(), pi.bytes().size(), 64);
      } else if (cls == 0x03) {
        if (s.path.DLID != master) {
          ++sa_to_old;
          return;  // the old SM is gone
        }
        ++sa_to_new;
        iba::SANodeRecord r;
        r.set_LID(9);
        tr.reply(s, 0, r.bytes().data(), r.bytes().size(), 56);
      }
    };
  }
};

struct SmFollow : ::testing::Test {
  void SetUp() override { forget_followed_sm(); }
  void TearDown() override { forget_followed_sm(); }
};

iba::SANodeRecord query() {
  iba::SANodeRecord q;
  q.set_LID(9);
  return q;
}

}  // namespace

TEST_F(SmFollow, SyncSaQueryFollowsTheNewMaster) {
  TwoSms f;
  MadTransactor mad(f.t);
  EXPECT_EQ(mad.sa_path().DLID, 1);
  auto r = mad.SubnAdmGet(query(), iba::component_mask(iba::SANodeRecord::DESC, "LID"));
  EXPECT_EQ(r.LID(), 9u);
  EXPECT_EQ(f.sa_to_old, 2u);  // the first try and its one resend
  EXPECT_EQ(f.probes, 1u);
  EXPECT_EQ(f.sa_to_new, 1u);
  EXPECT_EQ(mad.engine().sm_follows(), 1u);
  // The resend carried the new master's SL.
  EXPECT_EQ(f.t.sent.back().path.DLID, 5);
  EXPECT_EQ(f.t.sent.back().path.SL, 3);
  // From now on the SA path is the new master's, for any transactor on the
  // port, while the port still names the old SM ...
  MadTransactor again(f.t);
  EXPECT_EQ(again.sa_path().DLID, 5);
  EXPECT_EQ(again.sa_path().SL, 3);
  auto before = f.t.sent.size();
  again.SubnAdmGet(query(), iba::component_mask(iba::SANodeRecord::DESC, "LID"));
  EXPECT_EQ(f.t.sent.size(), before + 1);  // straight there, no timeout
  // A path made before (a resolver's cached SA path) goes there too.
  IBPath old_path;
  old_path.DLID = 1;
  old_path.dqpn = 1;
  old_path.qkey = GSI_QKEY;
  before = f.t.sent.size();
  again.SubnAdmGet(query(), iba::component_mask(iba::SANodeRecord::DESC, "LID"), &old_path);
  EXPECT_EQ(f.t.sent.size(), before + 1);
  EXPECT_EQ(f.t.sent.back().path.DLID, 5);
  // ... and not once the port names another SM itself.
  f.t.port_sm = 11;
  EXPECT_EQ(again.sa_path().DLID, 11);
}

TEST_F(SmFollow, SchedulerSaQueriesFollowWithOneProbe) {
  TwoSms f;
  Scheduler s(f.t, 8);
  int ok = 0, failed = 0;
  auto one = [&](Scheduler& sc) -> Task<> {
    try {
      auto r = co_await sc.SubnAdmGet(query(), iba::component_mask(iba::SANodeRecord::DESC, "LID"));
      if (r.LID() == 9) ++ok;
    } catch (const MADError&) {
      ++failed;
    }
  };
  for (int i = 0; i < 5; ++i) s.spawn(one(s));
  s.run();
  EXPECT_EQ(ok, 5);
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(f.probes, 1u);  // the five timed out together: one PortInfo asked for all
  EXPECT_EQ(f.sa_to_new, 5u);
}

// A MAD sent to the old SM before the follow, whose timeout comes after the
// probe was answered (its path resends more often), goes to the followed SM
// with no second probe: the probe's answer is known already.
TEST_F(SmFollow, LateTimeoutAfterTheFollowAsksNoSecondProbe) {
  TwoSms f;
  Scheduler s(f.t, 8);
  auto sa = [](int retries) {
    IBPath p;
    p.DLID = 1;
    p.dqpn = 1;
    p.qkey = GSI_QKEY;
    p.retries = retries;
    return p;
  };
  int ok = 0;
  auto one = [&](Scheduler& sc, IBPath p) -> Task<> {
    auto r = co_await sc.SubnAdmGet(query(), iba::component_mask(iba::SANodeRecord::DESC, "LID"), p);
    if (r.LID() == 9) ++ok;
  };
  s.spawn(one(s, sa(0)));  // times out first: the probe
  s.spawn(one(s, sa(6)));  // times out seven tries later
  s.run();
  EXPECT_EQ(ok, 2);
  EXPECT_EQ(f.probes, 1u);
  EXPECT_EQ(f.sa_to_old, 1u + 7u);
  EXPECT_EQ(f.sa_to_new, 2u);
  EXPECT_EQ(s.engine().sm_follows(), 2u);
}

TEST_F(SmFollow, SameSmStillNamedTimesOut) {
  TwoSms f;
  f.master = 1;  // the standby has not taken over yet: the port still names LID 1
  f.t.responder = [&f, inner = f.t.responder](FakeTransport& tr, const Sent& s) {
    if (s.mad[1] == 0x03) {
      ++f.sa_to_old;
      return;  // LID 1 is dead
    }
    inner(tr, s);
  };
  MadTransactor mad(f.t);
  EXPECT_THROW(mad.SubnAdmGet(query(), iba::component_mask(iba::SANodeRecord::DESC, "LID")), MADTimeoutError);
  EXPECT_EQ(f.probes, 1u);
  EXPECT_EQ(f.sa_to_old, 2u);  // no third try to the same SM
  EXPECT_EQ(mad.engine().sm_follows(), 0u);
  EXPECT_FALSE(followed_sm(f.t));
}

TEST_F(SmFollow, ProbeUnansweredKeepsTheTimeout) {
  TwoSms f;
  f.smps_answered = false;
  MadTransactor mad(f.t);
  try {
    mad.SubnAdmGet(query(), iba::component_mask(iba::SANodeRecord::DESC, "LID"));
    FAIL() << "no exception";
  } catch (const MADTimeoutError& e) {
    // The SA MAD's own timeout, not the probe's.
    EXPECT_NE(std::string(e.what()).find("SubnAdmGet(1) SAFormat(3.2) SANodeRecord"), std::string::npos) << e.what();
  }
  EXPECT_EQ(f.probes, 2u);  // the probe and its resend
  EXPECT_EQ(f.sa_to_new, 0u);
}

TEST_F(SmFollow, NotForOtherClassesOrAnExplicitSaPath) {
  TwoSms f;
  MadTransactor mad(f.t);
  IBPath pma;
  pma.DLID = 1;  // the SM's LID, but a PM GMP
  pma.dqpn = 1;
  pma.qkey = GSI_QKEY;
  EXPECT_THROW(mad.PerformanceGet<iba::PMPortCounters>(pma), MADTimeoutError);
  EXPECT_EQ(f.probes, 0u);
  f.t.settings().sa_path = "1";
  EXPECT_THROW(mad.SubnAdmGet(query(), iba::component_mask(iba::SANodeRecord::DESC, "LID")), MADTimeoutError);
  EXPECT_EQ(f.probes, 0u);
  EXPECT_EQ(f.sa_to_new, 0u);
  // --sa: no SMP may leave the port, not even the PortInfo probe.
  f.t.settings().sa_path.clear();
  f.t.settings().use_sa = true;
  EXPECT_THROW(mad.SubnAdmGet(query(), iba::component_mask(iba::SANodeRecord::DESC, "LID")), MADTimeoutError);
  EXPECT_EQ(f.probes, 0u);
  for (const auto& s : f.t.sent) EXPECT_TRUE(s.mad[1] != 0x01 && s.mad[1] != 0x81) << int(s.mad[1]);
}
