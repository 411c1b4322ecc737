// core/health/pmscrape.h (the exporter's PM reads) against a fake PMA: which
// attributes a port's counters are read from for each ClassPortInfo
// capability set (with and without PortCountersExtended, AllPortSelect and
// the additional extended counters), the AllPortSelect sum that proves a
// switch's error counters zero or sends its ports to their own reads, one
// ClassPortInfo and one sum per LID however many ports ask, and failures.
// ibsim has one capability set (switches: AllPortSelect + extended width;
// CAs: extended width), so the other branches are proven here.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "core/health/pmmetrics.h"
#include "core/health/pmscrape.h"
#include "core/rpc/sched.h"
#include "core_fake_transport.h"
#include "sa_test_helpers.h"
#include "iba/introspect.h"
#include "iba/mad.h"

namespace {

namespace H = ibcore::health;
using coretest::FakeTransport;
using coretest::Sent;

using coretest::be16;

// A PMA at LID 9 with ports 1..4 (and port 0).
struct FakePma {
  uint16_t cap = 0;
  uint32_t cap2 = 0;
  bool cpi_fails = false;  // ClassPortInfo answered with an error status
  bool sum_fails = false;  // AllPortSelect answered with an error status
  int drop_ext = 0;        // PortCountersExtended requests left unanswered (the first ones)
  bool vl_refused = false; // PortVLXmitWaitCounters answered with "unsupported attribute"
  int drop_vl = 0;         // PortVLXmitWaitCounters requests left unanswered (the first ones)
  std::map<uint8_t, iba::PMPortVLXmitWaitCounters> vl;
  std::map<uint8_t, iba::PMPortCounters> pc;
  std::map<uint8_t, iba::PMPortCountersExtended> ext;
  // Requests by (attribute, port select).
  std::map<std::pair<uint16_t, uint8_t>, int> asked;

  FakePma() {
    for (uint8_t p = 0; p <= 4; ++p) {
      pc[p].set_portSelect(p);
      ext[p].set_portSelect(p);
      vl[p].set_portSelect(p);
    }
  }
  int count(uint16_t attr) const {
    int n = 0;
    for (const auto& [k, v] : asked) n += k.first == attr ? v : 0;
    return n;
  }

  void answer(FakeTransport& t, const Sent& s) {
    const uint8_t* m = s.mad.data();
    ASSERT_EQ(m[1], 0x04);  // PerfMgt
    uint16_t attr = be16(m + 16);
    uint8_t sel = m[64 + 1];
    if (attr == 0x0001) {
      ++asked[{attr, 0}];
      if (cpi_fails) return t.reply(s, 0x000c);  // unsupported attribute
      iba::MADClassPortInfo c;
      c.set_baseVersion(1).set_classVersion(1).set_capabilityMask(cap).set_capabilityMask2(cap2);
      return t.reply(s, 0, c.buf.data(), c.SIZE);
    }
    ++asked[{attr, sel}];
    if (attr == 0x0012) {
      if (sel == 0xff) {
        if (sum_fails) return t.reply(s, 0x000c);
        // The sum of every port, each field saturating.
        iba::PMPortCounters sum;
        for (const iba::FieldDesc& f : iba::PMPortCounters::DESC.field_list()) {
          if (f.kind == iba::Kind::Rsv) continue;
          uint64_t max = f.width >= 64 ? ~0ull : (1ull << f.width) - 1, v = 0;
          for (const auto& [p, c] : pc) v = std::min(max, v + iba::get_bits(c.buf.data(), f.bit_off, f.width));
          iba::set_bits(sum.buf.data(), f.bit_off, f.width, v);
        }
        sum.set_portSelect(0xff);
        return t.reply(s, 0, sum.buf.data(), sum.SIZE);
      }
      return t.reply(s, 0, pc.at(sel).buf.data(), pc.at(sel).SIZE);
    }
    if (attr == 0x001D) {
      if (drop_ext > 0) {
        --drop_ext;
        return;
      }
      return t.reply(s, 0, ext.at(sel).buf.data(), ext.at(sel).SIZE);
    }
    if (attr == 0x001C) {
      if (vl_refused) return t.reply(s, 0x000c);
      if (drop_vl > 0) {
        --drop_vl;
        return;
      }
      return t.reply(s, 0, vl.at(sel).buf.data(), vl.at(sel).SIZE);
    }
    FAIL() << "unexpected attribute " << attr;
  }
};

struct PmScrape : ::testing::Test {
  FakeTransport t;
  FakePma pma;
  std::vector<H::PortCountersRead> got;
  uint64_t pc_reads = 0, ext_reads = 0, sums = 0, clean_sums = 0, cpis = 0, shared_failed = 0;

  void SetUp() override {
    t.settings().timeout_ms = 20;
    t.settings().retries = 0;
    t.responder = [this](FakeTransport& tr, const Sent& s) { pma.answer(tr, s); };
  }
  // Ports 1..4 at LID 9, all at once (sw: a switch's ports).
  void read_all(bool sw, H::RetryBudget* retry = nullptr, H::CounterGroups want = {}) {
    ibcore::Scheduler s(t, 16);
    H::PmAccess pm(s, ibcore::IBPath(), /*skip_sl=*/true);
    H::PortCountersReader r(pm, retry, want);
    got.assign(5, {});
    auto one = [&](uint8_t p) -> ibcore::Task<> { co_await r.read(9, p, sw, got[p]); };
    for (uint8_t p = 1; p <= 4; ++p) s.spawn(one(p));
    s.run();
    pc_reads = r.port_counters_reads();
    ext_reads = r.ext_reads();
    sums = r.all_port_sums();
    clean_sums = r.clean_sums();
    cpis = r.class_port_infos();
    shared_failed = r.shared_failures();
  }
};

constexpr uint16_t kSwitchCaps = H::PM_CAP_ALL_PORT_SELECT | H::PM_CAP_EXT_WIDTH | H::PM_CAP_XMIT_WAIT;

TEST_F(PmScrape, ACleanSumProvesEveryPortsErrorsZeroAndTheDataComeFromTheExtendedCounters) {
  pma.cap = kSwitchCaps;
  pma.ext[3].set_portXmitData(5000000000ull);  // beyond PortCounters' 32 bits
  pma.pc[3].set_portXmitData(0xffffffffu);     // (the 32-bit copy, saturated: not an error)
  read_all(true);
  EXPECT_EQ(pma.count(0x0001), 1);  // one ClassPortInfo for the four ports
  EXPECT_EQ((pma.asked[{0x0012, 0xff}]), 1);
  EXPECT_EQ(pma.count(0x0012), 1);  // no port's own PortCounters
  EXPECT_EQ(pma.count(0x001D), 4);
  EXPECT_EQ(sums, 1u);
  EXPECT_EQ(clean_sums, 1u);
  EXPECT_EQ(pc_reads, 0u);
  EXPECT_EQ(ext_reads, 4u);
  EXPECT_EQ(cpis, 1u);
  for (uint8_t p = 1; p <= 4; ++p) {
    EXPECT_EQ(got[p].source, H::CounterSource::Split);
    EXPECT_TRUE(got[p].pc_ok);
    EXPECT_TRUE(got[p].pc_from_sum);
    EXPECT_TRUE(got[p].ext_ok);
    EXPECT_TRUE(H::pc_errors_zero(got[p].pc));
    EXPECT_EQ(got[p].pc.portSelect(), p);
    EXPECT_EQ(got[p].failed, 0u);
  }
  EXPECT_EQ(got[3].ext.portXmitData(), 5000000000ull);
}

TEST_F(PmScrape, AnErrorInTheSumSendsEveryPortToItsOwnRead) {
  pma.cap = kSwitchCaps;
  pma.pc[2].set_symbolErrorCounter(5);
  pma.pc[0].set_portXmitWait(7);  // port 0 counts in the sum as well
  read_all(true);
  EXPECT_EQ((pma.asked[{0x0012, 0xff}]), 1);
  EXPECT_EQ(pma.count(0x0012), 5);  // the sum and the four ports
  EXPECT_EQ(clean_sums, 0u);
  EXPECT_EQ(pc_reads, 4u);
  for (uint8_t p = 1; p <= 4; ++p) {
    EXPECT_TRUE(got[p].pc_ok);
    EXPECT_FALSE(got[p].pc_from_sum);
    EXPECT_EQ(got[p].source, H::CounterSource::Split);
  }
  EXPECT_EQ(got[2].pc.symbolErrorCounter(), 5u);
  EXPECT_EQ(got[1].pc.symbolErrorCounter(), 0u);
}

TEST_F(PmScrape, QP1DroppedAndXmitWaitInTheSumAreErrorsToo) {
  pma.cap = kSwitchCaps;
  pma.pc[4].set_QP1Dropped(1);
  read_all(true);
  EXPECT_EQ(clean_sums, 0u);
  EXPECT_EQ(got[4].pc.QP1Dropped(), 1u);
  iba::PMPortCounters c;
  c.set_portXmitWait(1);
  EXPECT_FALSE(H::pc_errors_zero(c));
  c = {};
  c.set_portRcvPkts(1).set_portXmitData(3);  // data counters are not errors
  EXPECT_TRUE(H::pc_errors_zero(c));
}

TEST_F(PmScrape, ASumThatFailsSendsThePortsToTheirOwnReads) {
  pma.cap = kSwitchCaps;
  pma.sum_fails = true;
  read_all(true);
  EXPECT_EQ((pma.asked[{0x0012, 0xff}]), 1);
  EXPECT_EQ(pc_reads, 4u);
  EXPECT_EQ(shared_failed, 1u);
  for (uint8_t p = 1; p <= 4; ++p) {
    EXPECT_TRUE(got[p].pc_ok);
    EXPECT_EQ(got[p].failed, 0u);
  }
}

TEST_F(PmScrape, WithoutAllPortSelectEachPortIsRead) {
  pma.cap = H::PM_CAP_EXT_WIDTH;
  read_all(true);
  EXPECT_EQ((pma.asked.count({0x0012, 0xff})), 0u);
  EXPECT_EQ(pc_reads, 4u);
  EXPECT_EQ(ext_reads, 4u);
}

TEST_F(PmScrape, ACaPortIsNeverSummed) {
  pma.cap = kSwitchCaps;  // (a CA's PMA announcing AllPortSelect)
  read_all(false);
  EXPECT_EQ(sums, 0u);
  EXPECT_EQ((pma.asked.count({0x0012, 0xff})), 0u);
  EXPECT_EQ(pc_reads, 4u);
  EXPECT_EQ(ext_reads, 4u);
}

TEST_F(PmScrape, WithoutTheExtendedCountersPortCountersHasEverything) {
  pma.cap = H::PM_CAP_ALL_PORT_SELECT;
  pma.pc[1].set_portXmitData(1234);
  read_all(true);
  EXPECT_EQ(pma.count(0x001D), 0);
  EXPECT_EQ(sums, 0u);  // the data counters are needed per port anyway
  EXPECT_EQ(pc_reads, 4u);
  for (uint8_t p = 1; p <= 4; ++p) {
    EXPECT_EQ(got[p].source, H::CounterSource::PortCounters);
    EXPECT_TRUE(got[p].pc_ok);
    EXPECT_FALSE(got[p].ext_ok);
  }
  EXPECT_EQ(got[1].pc.portXmitData(), 1234u);
}

TEST_F(PmScrape, TheAdditionalExtendedCountersMakeOneReadPerPort) {
  pma.cap = kSwitchCaps;
  pma.cap2 = H::PM_CAP2_ADDL_PORT_COUNTERS_EXT;
  pma.ext[2].set_symbolErrorCounter(70000).set_portXmitWait(1ull << 40);
  pma.pc[2].set_symbolErrorCounter(5);  // (PortCounters is not asked)
  read_all(true);
  EXPECT_EQ(pma.count(0x0012), 0);
  EXPECT_EQ(pma.count(0x001D), 4);
  for (uint8_t p = 1; p <= 4; ++p) {
    EXPECT_EQ(got[p].source, H::CounterSource::Extended);
    EXPECT_FALSE(got[p].pc_ok);
    EXPECT_TRUE(got[p].ext_ok);
  }
  EXPECT_EQ(got[2].ext.symbolErrorCounter(), 70000u);
  EXPECT_EQ(got[2].ext.portXmitWait(), 1ull << 40);
  EXPECT_TRUE(H::ext_field_valid(got[2].caps, "symbolErrorCounter"));
  EXPECT_TRUE(H::ext_field_valid(got[2].caps, "QP1Dropped"));
}

TEST_F(PmScrape, TheAdditionalBitWithoutExtendedWidthMeansNothing) {
  pma.cap = H::PM_CAP_ALL_PORT_SELECT;
  pma.cap2 = H::PM_CAP2_ADDL_PORT_COUNTERS_EXT;
  read_all(true);
  EXPECT_EQ(pma.count(0x001D), 0);
  EXPECT_EQ(got[1].source, H::CounterSource::PortCounters);
}

TEST_F(PmScrape, AClassPortInfoThatFailsIsAskedOnceAndNothingElse) {
  pma.cpi_fails = true;
  read_all(true);
  EXPECT_EQ(pma.count(0x0001), 1);
  EXPECT_EQ(pma.asked.size(), 1u);
  EXPECT_EQ(shared_failed, 1u);
  for (uint8_t p = 1; p <= 4; ++p) {
    EXPECT_TRUE(got[p].caps.failed);
    EXPECT_FALSE(got[p].pc_ok);
    EXPECT_FALSE(got[p].ext_ok);
  }
}

TEST_F(PmScrape, WhichExtendedFieldsAPmaFills) {
  H::PmaCaps noietf;
  noietf.mask = H::PM_CAP_EXT_WIDTH_NOIETF;
  EXPECT_TRUE(H::ext_field_valid(noietf, "portXmitData"));
  EXPECT_TRUE(H::ext_field_valid(noietf, "portRcvPkts"));
  EXPECT_FALSE(H::ext_field_valid(noietf, "portUnicastXmitPkts"));
  EXPECT_FALSE(H::ext_field_valid(noietf, "portMulticastRcvPkts"));
  EXPECT_FALSE(H::ext_field_valid(noietf, "symbolErrorCounter"));
  EXPECT_FALSE(H::ext_field_valid(noietf, "counterSelect2"));
  H::PmaCaps full;
  full.mask = H::PM_CAP_EXT_WIDTH;
  EXPECT_TRUE(H::ext_field_valid(full, "portMulticastRcvPkts"));
  EXPECT_FALSE(H::ext_field_valid(full, "VL15Dropped"));
  EXPECT_FALSE(H::ext_field_valid(H::PmaCaps{}, "portXmitData"));
  EXPECT_TRUE(H::is_pc_data_field("portRcvData"));
  EXPECT_FALSE(H::is_pc_data_field("portXmitWait"));
}

}  // namespace

namespace {

// The scrape's retry policy: an unanswered query is asked again while the
// budget lasts (each port then has everything), and not once it is spent.
TEST_F(PmScrape, UnansweredQueriesAreAskedAgainWithinTheBudget) {
  pma.cap = kSwitchCaps;
  pma.drop_ext = 6;  // more than the four ports' first tries
  H::RetryBudget budget(H::RetryBudget::Clock::now() + std::chrono::seconds(30));
  read_all(true, &budget);
  EXPECT_EQ(budget.retries(), 6u);
  EXPECT_EQ(budget.given_up(), 0u);
  for (uint8_t p = 1; p <= 4; ++p) {
    EXPECT_TRUE(got[p].ext_ok) << int(p);
    EXPECT_EQ(got[p].failed, 0u);
  }
  EXPECT_EQ(pma.count(0x001D), 10);
}

TEST_F(PmScrape, ASpentBudgetLeavesTheFailure) {
  pma.cap = kSwitchCaps;
  pma.drop_ext = 1;
  H::RetryBudget spent(H::RetryBudget::Clock::now());
  read_all(true, &spent);
  EXPECT_EQ(spent.retries(), 0u);
  EXPECT_EQ(spent.given_up(), 1u);
  int failed = 0;
  for (uint8_t p = 1; p <= 4; ++p) failed += !got[p].ext_ok;
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(pma.count(0x001D), 4);
}

}  // namespace

namespace {

// A target that stays silent is down, not lossy: its query is asked again
// at most MAX_RETRIES times however much budget is left.
TEST_F(PmScrape, ASilentTargetIsAskedAgainABoundedNumberOfTimes) {
  pma.cap = kSwitchCaps;
  pma.drop_ext = 1000;
  H::RetryBudget budget(H::RetryBudget::Clock::now() + std::chrono::seconds(30));
  read_all(true, &budget);
  EXPECT_EQ(budget.retries(), 4 * H::RetryBudget::MAX_RETRIES);
  EXPECT_EQ(budget.given_up(), 4u);
  for (uint8_t p = 1; p <= 4; ++p) EXPECT_FALSE(got[p].ext_ok);
}

}  // namespace

namespace {

// Which counters stand at their maximum, and the CounterSelect that resets
// just those.
TEST(PmSaturation, CountersAtTheirMaximumAndTheirSelectBits) {
  H::PortCountersRead c;
  c.source = H::CounterSource::Split;
  c.pc_ok = true;
  c.pc.set_symbolErrorCounter(0xffff).set_portXmitWait(0xffffffffu).set_portXmitData(0xffffffffu);
  H::Saturation s = H::saturation(c);
  EXPECT_EQ(s.count, 2u);  // (the data counters come from PortCountersExtended here)
  EXPECT_EQ(s.select, 1u);  // SymbolErrorCounter
  EXPECT_TRUE(s.xmit_wait);
  c.source = H::CounterSource::PortCounters;
  s = H::saturation(c);
  EXPECT_EQ(s.count, 3u);
  EXPECT_EQ(s.select, 1u | 1u << 12);  // and PortXmitData
  c.pc_ok = false;
  EXPECT_EQ(H::saturation(c).count, 0u);
}

}  // namespace

namespace {

// The read plan for the wanted counter groups (the exporter's collectors):
// a group nobody wants costs no MAD.
H::CounterGroups groups(bool errors, bool data, bool congestion) {
  H::CounterGroups g;
  g.errors = errors;
  g.data = data;
  g.congestion = congestion;
  return g;
}

TEST_F(PmScrape, NothingWantedSendsNoMad) {
  pma.cap = kSwitchCaps;
  read_all(true, nullptr, groups(false, false, false));
  EXPECT_TRUE(pma.asked.empty());
  EXPECT_EQ(cpis, 0u);
  for (uint8_t p = 1; p <= 4; ++p) EXPECT_TRUE(got[p].ok());
}

TEST_F(PmScrape, DataAloneReadsOnlyTheExtendedCounters) {
  pma.cap = kSwitchCaps;
  pma.pc[2].set_symbolErrorCounter(5);  // (an error: not wanted, not read)
  read_all(true, nullptr, groups(false, true, false));
  EXPECT_EQ(pma.count(0x0012), 0);  // no sum, no PortCounters
  EXPECT_EQ(pma.count(0x001D), 4);
  EXPECT_EQ(pma.count(0x0001), 1);
  for (uint8_t p = 1; p <= 4; ++p) {
    EXPECT_TRUE(got[p].ext_ok);
    EXPECT_FALSE(got[p].pc_wanted);
    EXPECT_TRUE(got[p].ok());
  }
}

TEST_F(PmScrape, ErrorsAloneReadNoExtendedCountersAndIgnoreXmitWaitInTheSum) {
  pma.cap = kSwitchCaps;
  pma.pc[3].set_portXmitWait(1000);  // congestion is not an error
  read_all(true, nullptr, groups(true, false, false));
  EXPECT_EQ(pma.count(0x001D), 0);
  EXPECT_EQ(pma.count(0x0012), 1);  // the sum alone: clean for the errors
  EXPECT_EQ(clean_sums, 1u);
  for (uint8_t p = 1; p <= 4; ++p) EXPECT_TRUE(got[p].pc_ok && got[p].pc_from_sum && got[p].ok());
}

TEST_F(PmScrape, CongestionAloneReadsPortCountersWhereTheSumShowsXmitWait) {
  pma.cap = kSwitchCaps;
  pma.pc[3].set_portXmitWait(1000);
  pma.pc[2].set_symbolErrorCounter(5);  // (not wanted: the sum is judged by PortXmitWait)
  read_all(true, nullptr, groups(false, false, true));
  EXPECT_EQ(pma.count(0x001D), 0);
  EXPECT_EQ(pma.count(0x0012), 5);  // the sum shows a wait: every port read
  EXPECT_EQ(got[3].pc.portXmitWait(), 1000u);
  pma = FakePma();
  pma.cap = kSwitchCaps;
  pma.pc[2].set_symbolErrorCounter(5);
  read_all(true, nullptr, groups(false, false, true));
  EXPECT_EQ(pma.count(0x0012), 1);  // no wait anywhere: the sum alone
}

TEST_F(PmScrape, WhereTheExtendedCountersHoldEverythingAnyGroupIsOneExtendedRead) {
  pma.cap = kSwitchCaps;
  pma.cap2 = H::PM_CAP2_ADDL_PORT_COUNTERS_EXT;
  read_all(true, nullptr, groups(false, false, true));
  EXPECT_EQ(pma.count(0x0012), 0);
  EXPECT_EQ(pma.count(0x001D), 4);
}

TEST_F(PmScrape, WithoutTheExtendedCountersErrorsAloneUseTheSum) {
  pma.cap = H::PM_CAP_ALL_PORT_SELECT;
  read_all(true, nullptr, groups(true, false, false));
  EXPECT_EQ(pma.count(0x001D), 0);
  EXPECT_EQ(pma.count(0x0012), 1);  // (with the data counters wanted: 4 reads, no sum)
  pma = FakePma();
  pma.cap = H::PM_CAP_ALL_PORT_SELECT;
  read_all(true, nullptr, groups(false, true, false));
  EXPECT_EQ(pma.count(0x0012), 4);
  EXPECT_EQ(sums, 0u);
}

TEST(PmSaturation, OnlyTheWantedGroupsCount) {
  H::PortCountersRead c;
  c.source = H::CounterSource::PortCounters;
  c.pc_ok = true;
  c.pc.set_symbolErrorCounter(0xffff).set_portXmitWait(0xffffffffu).set_portXmitData(0xffffffffu);
  H::CounterGroups errors;
  errors.data = errors.congestion = false;
  EXPECT_EQ(H::saturation(c, errors).count, 1u);
  EXPECT_FALSE(H::saturation(c, errors).xmit_wait);
  H::CounterGroups data;
  data.errors = data.congestion = false;
  EXPECT_EQ(H::saturation(c, data).select, 1u << 12);
  EXPECT_EQ(H::counter_group("portXmitWait"), H::CounterGroup::Congestion);
  EXPECT_EQ(H::counter_group("portMulticastRcvPkts"), H::CounterGroup::Data);
  EXPECT_EQ(H::counter_group("QP1Dropped"), H::CounterGroup::Errors);
  EXPECT_EQ(H::counter_group("counterSelect2"), H::CounterGroup::None);
}

}  // namespace

// The per-VL counters (the exporter's vl collector): PortVLXmitWaitCounters,
// one query per port for the data VLs it runs, no ClassPortInfo (the IBA
// gives them no capability bit); a PMA that answers with a MAD status has
// not got them: asked once, its ports not failed.
namespace {

struct PmScrapeVl : PmScrape {
  std::vector<H::VlCountersRead> vl;
  uint64_t vl_reads = 0, vl_unsupported = 0;
  // Ports 1..4 at LID 9, all at once, each with vls_of[port] data VLs.
  void read_vl(std::vector<unsigned> vls_of, H::RetryBudget* retry = nullptr) {
    ibcore::Scheduler s(t, 16);
    H::PmAccess pm(s, ibcore::IBPath(), /*skip_sl=*/true);
    H::PortCountersReader r(pm, retry, H::CounterGroups{false, false, false});
    vl.assign(5, {});
    auto one = [&](uint8_t p) -> ibcore::Task<> { co_await r.read_vl(9, p, vls_of[p], vl[p]); };
    for (uint8_t p = 1; p <= 4; ++p) s.spawn(one(p));
    s.run();
    vl_reads = r.vl_reads();
    vl_unsupported = r.vl_unsupported();
  }
};

TEST(PmVl, TheDataVlsAPortRunsFromOperationalVls) {
  EXPECT_EQ(H::operational_data_vls(1), 1u);   // VL0
  EXPECT_EQ(H::operational_data_vls(2), 2u);   // VL0-1
  EXPECT_EQ(H::operational_data_vls(3), 4u);   // VL0-3
  EXPECT_EQ(H::operational_data_vls(4), 8u);   // VL0-7
  EXPECT_EQ(H::operational_data_vls(5), 15u);  // VL0-14
  for (unsigned reserved : {0u, 6u, 7u, 15u}) EXPECT_EQ(H::operational_data_vls(reserved), 0u) << reserved;
}

TEST_F(PmScrapeVl, OneQueryPerPortForTheVlsItRuns) {
  pma.vl[1].set_portVLXmitWait(0, 11);
  pma.vl[1].set_portVLXmitWait(7, 65535);  // (16 bits: where it stops)
  pma.vl[2].set_portVLXmitWait(1, 22);
  pma.vl[3].set_portVLXmitWait(14, 33);
  read_vl({0, 8, 2, 15, 0});  // port 4 runs no data VL: not asked
  EXPECT_EQ(pma.count(0x0001), 0);  // no ClassPortInfo
  EXPECT_EQ(pma.count(0x0012) + pma.count(0x001D), 0);
  EXPECT_EQ(pma.count(0x001C), 3);
  EXPECT_EQ((pma.asked[{0x001C, 4}]), 0);
  EXPECT_EQ(vl_reads, 3u);
  EXPECT_EQ(vl_unsupported, 0u);
  for (uint8_t p = 1; p <= 3; ++p) {
    EXPECT_TRUE(vl[p].wanted) << int(p);
    EXPECT_TRUE(vl[p].ok) << int(p);
    EXPECT_FALSE(vl[p].unsupported) << int(p);
    EXPECT_EQ(vl[p].failed, 0u);
    EXPECT_EQ(vl[p].xmit_wait.portSelect(), p);
  }
  EXPECT_EQ(vl[1].vls, 8u);
  EXPECT_EQ(vl[1].xmit_wait.portVLXmitWait(0), 11u);
  EXPECT_EQ(vl[1].xmit_wait.portVLXmitWait(7), 65535u);
  EXPECT_EQ(vl[2].xmit_wait.portVLXmitWait(1), 22u);
  EXPECT_EQ(vl[3].xmit_wait.portVLXmitWait(14), 33u);
  EXPECT_FALSE(vl[4].wanted);
  EXPECT_FALSE(vl[4].ok);
}

TEST_F(PmScrapeVl, APmaWithoutThemIsAskedOnceAndNoPortFails) {
  pma.vl_refused = true;
  read_vl({0, 8, 8, 8, 8});
  EXPECT_EQ(pma.count(0x001C), 1);  // the LID's first port alone
  EXPECT_EQ(vl_reads, 1u);
  EXPECT_EQ(vl_unsupported, 1u);
  for (uint8_t p = 1; p <= 4; ++p) {
    EXPECT_TRUE(vl[p].unsupported) << int(p);
    EXPECT_FALSE(vl[p].wanted) << int(p);  // (not a failure: the exporter's ib_port_scrape_ok stays 1)
    EXPECT_FALSE(vl[p].ok) << int(p);
    EXPECT_EQ(vl[p].failed, 0u) << int(p);
    EXPECT_TRUE(vl[p].error.empty()) << vl[p].error;
  }
}

TEST_F(PmScrapeVl, AnUnansweredFirstQueryIsAFailureNotUnsupported) {
  pma.drop_vl = 1;  // the first port's query, no retry budget
  read_vl({0, 8, 8, 8, 8});
  EXPECT_EQ(pma.count(0x001C), 4);
  EXPECT_EQ(vl_unsupported, 0u);
  unsigned failed = 0, ok = 0;
  for (uint8_t p = 1; p <= 4; ++p) {
    EXPECT_FALSE(vl[p].unsupported) << int(p);
    EXPECT_TRUE(vl[p].wanted) << int(p);
    failed += vl[p].failed;
    ok += vl[p].ok;
    if (vl[p].failed) {
      EXPECT_EQ(vl[p].timeouts, 1u);
      EXPECT_NE(vl[p].error.find("PortVLXmitWaitCounters"), std::string::npos) << vl[p].error;
    }
  }
  EXPECT_EQ(failed, 1u);
  EXPECT_EQ(ok, 3u);
  // Within a retry budget it is asked again and answered.
  pma = FakePma();
  pma.drop_vl = 1;
  H::RetryBudget budget(H::RetryBudget::Clock::now() + std::chrono::seconds(30));
  read_vl({0, 8, 8, 8, 8}, &budget);
  EXPECT_EQ(budget.retries(), 1u);
  for (uint8_t p = 1; p <= 4; ++p) EXPECT_TRUE(vl[p].ok) << int(p);
}

// The metric: one counter family whose series carry a vl label (the
// exporter adds it), named and explained like the port's PortXmitWait.
TEST(PmVl, TheMetricOfThePerVlCounters) {
  auto m = H::counter_metrics({&iba::PMPortVLXmitWaitCounters::DESC});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].field, "portVLXmitWait");
  EXPECT_EQ(m[0].name, "ib_port_vl_transmit_wait_total");
  EXPECT_EQ(m[0].scale, 1u);
  EXPECT_NE(m[0].help.find("on this VL"), std::string::npos) << m[0].help;
  EXPECT_NE(m[0].help.find("PortVLXmitWaitCounters.PortVLXmitWait (16 bits)"), std::string::npos) << m[0].help;
  // (the whole-port counter it refines)
  EXPECT_EQ(H::counter_metric_name("portXmitWait"), "ib_port_transmit_wait_total");
}

}  // namespace

// The one fabric counter scan's other users (ibqueryerrors, ibcheck*,
// ibdatacount*, ibclear*): the sum asked once whoever asks for it, the
// reference's error counters from PortCounters, known capabilities, and a
// failure's MADError for the command's own line.
TEST_F(PmScrape, TheSumIsAskedOnceForEveryAskerAndItsReads) {
  pma.cap = kSwitchCaps;
  pma.pc[2].set_symbolErrorCounter(5);
  ibcore::Scheduler s(t, 16);
  H::PmAccess pm(s, ibcore::IBPath(), /*skip_sl=*/true);
  H::PortCountersReader r(pm, nullptr, groups(true, false, false));
  std::vector<H::PortSum> sums(3);
  got.assign(5, {});
  auto ask = [&](int i) -> ibcore::Task<> { sums[i] = co_await r.sum(9); };
  auto one = [&](uint8_t p) -> ibcore::Task<> { co_await r.read(9, p, true, got[p]); };
  for (int i = 0; i < 3; ++i) s.spawn(ask(i));
  for (uint8_t p = 1; p <= 4; ++p) s.spawn(one(p));
  s.run();
  EXPECT_EQ((pma.asked[{0x0012, 0xff}]), 1);
  EXPECT_EQ(pma.count(0x0001), 1);
  for (const H::PortSum& x : sums) {
    EXPECT_TRUE(x.ok);
    EXPECT_EQ(x.pc.symbolErrorCounter(), 5u);
  }
  ASSERT_NE(r.known_sum(9), nullptr);
  EXPECT_EQ(r.known_sum(9)->pc.symbolErrorCounter(), 5u);
  EXPECT_EQ(r.known_sum(8), nullptr);
  EXPECT_EQ(got[2].pc.symbolErrorCounter(), 5u);  // the sum is not clean: the ports read
  EXPECT_FALSE(got[1].pc_from_sum);
}

TEST_F(PmScrape, WithoutAllPortSelectThereIsNoSumAndNoMadForIt) {
  pma.cap = H::PM_CAP_EXT_WIDTH;
  ibcore::Scheduler s(t, 16);
  H::PmAccess pm(s, ibcore::IBPath(), /*skip_sl=*/true);
  H::PortCountersReader r(pm);
  H::PortSum x;
  x.ok = true;
  auto ask = [&]() -> ibcore::Task<> { x = co_await r.sum(9); };
  s.spawn(ask());
  s.run();
  EXPECT_FALSE(x.ok);
  EXPECT_FALSE(x.error);
  EXPECT_EQ(pma.count(0x0012), 0);
  EXPECT_EQ(pma.count(0x0001), 1);
}

TEST_F(PmScrape, TheReferencesErrorCountersComeFromPortCountersEvenWhereTheExtendedHoldThem) {
  pma.cap = kSwitchCaps;
  pma.cap2 = H::PM_CAP2_ADDL_PORT_COUNTERS_EXT;
  pma.pc[3].set_symbolErrorCounter(0xffff);  // saturated in PortCounters' 16 bits
  ibcore::Scheduler s(t, 16);
  H::PmAccess pm(s, ibcore::IBPath(), /*skip_sl=*/true);
  H::PortCountersReader r(pm, nullptr, groups(true, false, true));
  r.errors_from_port_counters(true);
  got.assign(5, {});
  auto one = [&](uint8_t p) -> ibcore::Task<> { co_await r.read(9, p, false, got[p]); };
  for (uint8_t p = 1; p <= 4; ++p) s.spawn(one(p));
  s.run();
  EXPECT_EQ(pma.count(0x001D), 0);
  EXPECT_EQ(pma.count(0x0012), 4);
  EXPECT_EQ(got[3].source, H::CounterSource::Split);
  EXPECT_EQ(got[3].pc.symbolErrorCounter(), 0xffffu);
  // The data counters of one port, asked apart: PortCountersExtended.
  H::PortCountersRead d;
  auto data = [&]() -> ibcore::Task<> { co_await r.read(9, 3, false, d, groups(false, true, false)); };
  s.spawn(data());
  s.run();
  EXPECT_TRUE(d.ok());
  EXPECT_TRUE(d.ext_ok);
  EXPECT_EQ(pma.count(0x001D), 1);
  EXPECT_EQ(pma.count(0x0001), 1);  // still the one ClassPortInfo
}

TEST_F(PmScrape, KnownCapabilitiesAskNoClassPortInfoAndAFailureKeepsItsMadError) {
  pma.cap = H::PM_CAP_EXT_WIDTH;
  ibcore::Scheduler s(t, 16);
  H::PmAccess pm(s, ibcore::IBPath(), /*skip_sl=*/true);
  H::PortCountersReader r(pm);
  H::PmaCaps none;  // a PMA read as one without capabilities
  H::PortCountersRead a;
  auto one = [&]() -> ibcore::Task<> { co_await r.read(9, 1, false, a, groups(true, true, true), &none); };
  s.spawn(one());
  s.run();
  EXPECT_EQ(pma.count(0x0001), 0);
  EXPECT_EQ(pma.count(0x0012), 1);
  EXPECT_TRUE(a.ok());
  EXPECT_FALSE(a.why());
  EXPECT_EQ(r.known_caps(9), nullptr);
  // ClassPortInfo refused: the read's why() is that MADError.
  pma.cpi_fails = true;
  H::PortCountersRead b;
  auto two = [&]() -> ibcore::Task<> { co_await r.read(9, 2, false, b); };
  s.spawn(two());
  s.run();
  EXPECT_FALSE(b.ok());
  ASSERT_TRUE(b.why());
  EXPECT_FALSE(H::error_layers(b.why()).empty());
  EXPECT_FALSE(H::last_layer(b.why()).empty());
  ASSERT_NE(r.known_caps(9), nullptr);
  EXPECT_TRUE(r.known_caps(9)->failed);
}
