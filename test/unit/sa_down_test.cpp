// GMPs to LIDs without the SA (issue 36): an SA that does not answer, or
// answers BUSY through the engine's back-offs, leaves a LID its plain LID
// path (SL 0, QP1, GSI Q_Key), both for the single-target resolver
// (GmpPathResolver: perfquery, ibping, ibsysstat, vendstat, ibccquery) and
// for the fabric scans' PmAccess (the health family, the exporter); it is
// asked once per process, not once per port; an SA that answers "no such
// port" is still an error; a GUID still needs the SA.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "core/base/config.h"
#include "core/health/health.h"
#include "core/rpc/gmppath.h"
#include "core/rpc/rpc.h"
#include "core/rpc/sched.h"
#include "core_fake_transport.h"
#include "iba/sa.h"
#include "iba/smp.h"
#include "sa_test_helpers.h"

namespace {

using coretest::be16;
using coretest::FakeTransport;
using coretest::Sent;

constexpr uint64_t kPrefix = 0xfe80000000000000ull;

// A fake port on a virtual clock: a wait for a reply that is not there
// passes its timeout at once (the BUSY back-offs and timeouts cost no
// real time).
struct Port : FakeTransport {
  ibcore::Clock::time_point t{};
  uint16_t local_lid() const override { return 1; }
  iba::Gid local_gid() const override { return iba::Gid::from(kPrefix, 0x10001); }
  ibcore::Clock::time_point now() const override { return t; }
  bool recv(ibcore::RecvMad& out, int timeout_ms) override {
    if (inbox.empty()) t += std::chrono::milliseconds(timeout_ms > 0 ? timeout_ms : 1);
    return FakeTransport::recv(out, 0);
  }
};

// The SA: how it answers PathRecord queries.  The local port's PortInfo
// (the engine asks it to follow a new SM when the SA is silent) names the
// same SM, LID 1, as a port whose SM died does.
enum class Sa { Answers, Silent, Busy, NoRecords };

struct Fabric {
  Port t;
  Sa sa = Sa::Answers;
  int sa_mads = 0;     // SA MADs received (resends included)
  int gmps = 0;        // PerfMgt MADs received
  std::vector<ibcore::IBPath> pm_paths;  // the paths they came on

  Fabric() {
    ibcore::forget_sa_unavailable();
    t.responder = [this](FakeTransport& tr, const Sent& s) { answer(tr, s); };
  }
  ~Fabric() { ibcore::forget_sa_unavailable(); }

  void answer(FakeTransport& tr, const Sent& s) {
    const uint8_t* m = s.mad.data();
    if (m[1] == 0x04) {  // PerfMgt: answered (the PMA is alive)
      ++gmps;
      pm_paths.push_back(s.path);
      tr.reply(s, 0);
      return;
    }
    if (m[1] == 0x81) {
      iba::SMPPortInfo pi;
      pi.set_LID(1).set_masterSMLID(1);
      tr.reply(s, 0, pi.buf.data(), pi.SIZE);
      return;
    }
    if (m[1] != 0x03) return;
    ++sa_mads;
    ASSERT_EQ(be16(m + 16), 0x0035);  // PathRecord
    iba::SAPathRecord q;
    q.load({m + 56, q.SIZE});
    switch (sa) {
      case Sa::Silent:
        return;
      case Sa::Busy: {
        auto r = coretest::sa_reply(s.mad, q.buf.data(), q.SIZE);
        r.data[5] = 0x01;  // BUSY
        tr.inbox.push_back(r);
        return;
      }
      case Sa::NoRecords:
        tr.inbox.push_back(coretest::sa_reply(s.mad, nullptr, q.SIZE));
        return;
      case Sa::Answers: {
        iba::SAPathRecord r = q;
        r.set_SL(3).set_PKey(0x8001).set_MTU(4).set_rate(3).set_packetLifeTime(18);
        tr.inbox.push_back(coretest::sa_reply(s.mad, r.buf.data(), r.SIZE));
        return;
      }
    }
  }
};

void expect_plain(const ibcore::IBPath& p, uint16_t lid) {
  EXPECT_EQ(p.DLID, lid);
  EXPECT_EQ(p.SLID, 1);
  EXPECT_EQ(p.SL, 0);
  EXPECT_EQ(p.pkey, 0xffff);  // the default P_Key (-Y's index)
  EXPECT_EQ(p.dqpn, 1u);
  EXPECT_EQ(p.qkey, ibcore::GSI_QKEY);
  EXPECT_FALSE(p.has_grh);
}

// --- the single-target resolver ---------------------------------------------------

TEST(SaDown, ASilentSaLeavesALidItsPlainPathWithinAShortBound) {
  Fabric f;
  f.sa = Sa::Silent;
  ibcore::MadTransactor mad(f.t);
  ibcore::GmpPathResolver res(mad);
  const auto t0 = f.t.now();
  ibcore::IBPath p = res.resolve(ibcore::IBPath::from_string("2"));
  expect_plain(p, 2);
  EXPECT_TRUE(res.fell_back());
  // Asked with the short bound: one resend, not the port's three.
  EXPECT_EQ(f.sa_mads, 2);
  EXPECT_LT(f.t.now() - t0, std::chrono::milliseconds(1500));
  // The PMA answers on that path.
  auto cpi = mad.PerformanceGet<iba::MADClassPortInfo>(p);
  (void)cpi;
  EXPECT_EQ(f.gmps, 1);
}

TEST(SaDown, AnSaKnownDeadIsNotAskedAgainByTheProcess) {
  Fabric f;
  f.sa = Sa::Silent;
  ibcore::MadTransactor mad(f.t);
  ibcore::GmpPathResolver one(mad);
  (void)one.resolve(ibcore::IBPath::from_string("2"));
  const int asked = f.sa_mads;
  // Another resolver, other LIDs (a scan's ports): no SA MAD at all.
  ibcore::GmpPathResolver two(mad);
  for (const char* lid : {"3", "4", "5"}) expect_plain(two.resolve(ibcore::IBPath::from_string(lid)), 3 + (lid[0] - '3'));
  EXPECT_EQ(f.sa_mads, asked);
  // Once the memory is old, the SA is asked again (a long-lived process).
  f.t.t += ibcore::SA_RETRY_AFTER;
  f.sa = Sa::Answers;
  ibcore::GmpPathResolver three(mad);
  ibcore::IBPath p = three.resolve(ibcore::IBPath::from_string("6"));
  EXPECT_EQ(p.SL, 3);
  EXPECT_FALSE(three.fell_back());
  EXPECT_EQ(f.sa_mads, asked + 1);
}

TEST(SaDown, AnSaBusyThroughItsBackOffsGetsTheSameFallback) {
  Fabric f;
  f.sa = Sa::Busy;
  ibcore::MadTransactor mad(f.t);
  ibcore::GmpPathResolver res(mad);
  ibcore::IBPath p = res.resolve(ibcore::IBPath::from_string("7"));
  expect_plain(p, 7);
  // Backed off and sent again 8 times first (the engine's BUSY rule).
  EXPECT_EQ(f.sa_mads, 9);
  EXPECT_EQ(mad.engine().flow_stats().busy, 8u);
  // Known unavailable now.
  ibcore::GmpPathResolver again(mad);
  (void)again.resolve(ibcore::IBPath::from_string("8"));
  EXPECT_EQ(f.sa_mads, 9);
}

TEST(SaDown, AnSaThatSaysNoSuchPortIsStillAnError) {
  Fabric f;
  f.sa = Sa::NoRecords;
  ibcore::MadTransactor mad(f.t);
  ibcore::GmpPathResolver res(mad);
  try {
    res.resolve(ibcore::IBPath::from_string("50"));
    FAIL() << "no error";
  } catch (const ibcore::MADClassError& e) {
    EXPECT_EQ(e.layers()[0], "Failed getting path record for end port 50.");
    EXPECT_EQ(e.class_code(), 3u);
  }
  EXPECT_FALSE(ibcore::sa_known_unavailable(f.t, 1));
}

TEST(SaDown, AGuidStillNeedsTheSa) {
  Fabric f;
  f.sa = Sa::Silent;
  f.t.settings().retries = 0;
  ibcore::MadTransactor mad(f.t);
  ibcore::GmpPathResolver res(mad);
  EXPECT_THROW(res.resolve(ibcore::IBPath::from_string("0x0000000000100003", ibcore::IBPath::Form::GUID)),
               ibcore::MADTimeoutError);
}

TEST(SaDown, APortThatKnowsNoSmSendsOnPlainPaths) {
  struct NoSm : Port {
    uint16_t sm_lid() const override { return 0; }
  };
  ibcore::forget_sa_unavailable();
  NoSm t;
  int sa = 0;
  t.responder = [&](FakeTransport&, const Sent& s) { sa += s.mad[1] == 0x03; };
  ibcore::MadTransactor mad(t);
  ibcore::GmpPathResolver res(mad);
  expect_plain(res.resolve(ibcore::IBPath::from_string("4")), 4);
  EXPECT_EQ(sa, 0);
  // The fabric scans too (PmSession's SA path is empty then).
  EXPECT_EQ(ibcore::health::sa_path_for_pm(t).DLID, 0);
  ibcore::forget_sa_unavailable();
}

// --- the fabric scans' PM access ----------------------------------------------------

ibcore::Task<> get(ibcore::health::PmAccess& pm, uint16_t lid, ibcore::IBPath& out, std::string& err) {
  try {
    out = co_await pm.path(lid);
  } catch (const ibcore::MADError& e) {
    err = e.layers().front();
  }
}

struct Scan {
  std::vector<ibcore::IBPath> paths;
  std::vector<std::string> errors;
  uint64_t queries = 0;
};

Scan scan(Fabric& f, const std::vector<uint16_t>& lids, bool table = false) {
  ibcore::Scheduler s(f.t, 8);
  ibcore::health::PmAccess pm(s, ibcore::health::sa_path_for_pm(f.t));
  if (table) pm.read_path_table();
  Scan out;
  out.paths.resize(lids.size());
  out.errors.resize(lids.size());
  for (size_t i = 0; i < lids.size(); ++i) s.spawn(get(pm, lids[i], out.paths[i], out.errors[i]));
  s.run();
  out.queries = pm.path_queries();
  return out;
}

const std::vector<uint16_t> kLids = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};

TEST(SaDownScan, ASilentSaIsAskedOnceForTheWholeScan) {
  Fabric f;
  f.sa = Sa::Silent;
  const auto t0 = f.t.now();
  Scan r = scan(f, kLids);
  EXPECT_EQ(r.queries, 1u);
  EXPECT_EQ(f.sa_mads, 2);  // the one query and its one resend
  for (size_t i = 0; i < kLids.size(); ++i) {
    EXPECT_EQ(r.errors[i], "");
    expect_plain(r.paths[i], kLids[i]);
  }
  // One bounded query's time, not one per port.
  EXPECT_LT(f.t.now() - t0, std::chrono::milliseconds(1500));
  // The next scan of the process asks nothing.
  Scan again = scan(f, kLids);
  EXPECT_EQ(again.queries, 0u);
  EXPECT_EQ(f.sa_mads, 2);
}

TEST(SaDownScan, ABusySaIsBackedOffOnceForTheWholeScan) {
  Fabric f;
  f.sa = Sa::Busy;
  Scan r = scan(f, kLids);
  EXPECT_EQ(r.queries, 1u);
  EXPECT_EQ(f.sa_mads, 9);
  for (size_t i = 0; i < kLids.size(); ++i) expect_plain(r.paths[i], kLids[i]);
}

TEST(SaDownScan, ASilentSaTableLeavesEveryLidItsPlainPath) {
  Fabric f;
  f.sa = Sa::Silent;
  Scan r = scan(f, kLids, true);
  EXPECT_EQ(r.queries, 1u);  // the table alone
  EXPECT_EQ(f.sa_mads, 1);   // (sent once: its own bound)
  for (size_t i = 0; i < kLids.size(); ++i) expect_plain(r.paths[i], kLids[i]);
}

TEST(SaDownScan, ALiveSaGivesEveryLidItsRecordAfterTheFirst) {
  Fabric f;
  Scan r = scan(f, kLids);
  EXPECT_EQ(r.queries, kLids.size());
  for (size_t i = 0; i < kLids.size(); ++i) {
    EXPECT_EQ(r.paths[i].DLID, kLids[i]);
    EXPECT_EQ(r.paths[i].SL, 3);
  }
}

TEST(SaDownScan, AnSaThatSaysNoSuchPortLeavesTheErrorAndTheOthersAsk) {
  Fabric f;
  f.sa = Sa::NoRecords;
  Scan r = scan(f, {2, 3});
  EXPECT_EQ(r.queries, 2u);
  EXPECT_EQ(r.errors[0], "Failed getting path record for LID 2.");
  EXPECT_EQ(r.errors[1], "Failed getting path record for LID 3.");
}

}  // namespace
