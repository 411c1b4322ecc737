// PM paths of core/health.h (PmAccess) against a fake SA: the PathRecord of
// a LID whose port GUID is known names both ends by GID as well as by LID
// (OpenSM then finds them by GUID instead of scanning every port), an SA
// that refuses that pairing is asked again by LIDs alone, one query per LID
// however many ask, and the SL always comes from the SA.
#include <gtest/gtest.h>

#include <vector>

#include "core/config.h"
#include "core/health.h"
#include "core/sched.h"
#include "core_fake_transport.h"
#include "iba/sa.h"
#include "sa_test_helpers.h"

namespace {

using coretest::be16;
using coretest::be64;
using coretest::cm;
using coretest::FakeTransport;
using coretest::Sent;

constexpr uint64_t kPrefix = 0xfe80000000000000ull;

struct LocalFake : FakeTransport {
  uint16_t local_lid() const override { return 1; }
  iba::Gid local_gid() const override { return iba::Gid::from(kPrefix, 0x10001); }
};

// The fake SA: answers PathRecords with SL 3, or with `refuse_gid` an
// ERR_REQ_INVALID status to any query naming a DGID (a GUID it does not
// pair with the LID).  Records every query's component mask and record.
struct FakeSA {
  bool refuse_gid = false;
  bool silent = false;  // answer nothing (timeouts)
  std::vector<std::pair<uint64_t, iba::SAPathRecord>> queries;

  void answer(FakeTransport& t, const Sent& s) {
    const uint8_t* m = s.mad.data();
    ASSERT_EQ(m[1], 0x03);
    ASSERT_EQ(be16(m + 16), 0x0035);
    uint64_t mask = be64(m + 48);
    iba::SAPathRecord q;
    q.load({m + 56, q.SIZE});
    queries.push_back({mask, q});
    if (silent) return;
    const auto& D = iba::SAPathRecord::DESC;
    if (refuse_gid && (mask & cm(D, "DGID"))) {
      auto rm = coretest::sa_reply(s.mad, nullptr, q.SIZE);
      rm.data[4] = 0x02;  // ERR_REQ_INVALID
      t.inbox.push_back(rm);
      return;
    }
    iba::SAPathRecord r = q;
    r.set_SL(3).set_PKey(0xffff).set_MTU(4).set_rate(3).set_packetLifeTime(18).set_hopLimit(0);
    if (!(mask & cm(D, "DGID"))) r.set_DGID(iba::Gid::from(kPrefix, 0x20000 + q.DLID()));
    auto rm = coretest::sa_reply(s.mad, r.buf.data(), r.SIZE);
    t.inbox.push_back(rm);
  }
};

ibcore::Task<> get(ibcore::health::PmAccess& pm, uint16_t lid, ibcore::IBPath& out, std::string& err) {
  try {
    out = co_await pm.path(lid);
  } catch (const ibcore::MADError& e) {
    err = e.layers().front();
  }
}

struct PmPath : ::testing::Test {
  LocalFake t;
  FakeSA sa;
  struct Got {
    ibcore::IBPath path;
    std::string error;  // the outermost layer of a failure
  };
  uint64_t path_queries = 0;

  void SetUp() override {
    ibcore::config().sa_path.clear();
    t.responder = [this](FakeTransport& tr, const Sent& s) { sa.answer(tr, s); };
  }
  void TearDown() override {
    ibcore::config().timeout_ms = 0;
    ibcore::config().retries = 3;
  }
  // PmAccess::path of LID `lid` asked by `askers` tasks at once, the LID's
  // port GUID given first when not 0.
  std::vector<Got> resolve(uint16_t lid, uint64_t guid, int askers) {
    ibcore::Scheduler s(t, 8);
    ibcore::IBPath sa_path;
    sa_path.DLID = 1;
    sa_path.dqpn = 1;
    sa_path.qkey = ibcore::GSI_QKEY;
    ibcore::health::PmAccess pm(s, sa_path);
    if (guid) pm.set_port_guid(lid, guid);
    std::vector<Got> got(static_cast<size_t>(askers));
    for (auto& g : got) s.spawn(get(pm, lid, g.path, g.error));
    s.run();
    path_queries = pm.path_queries();
    return got;
  }
};

const auto& D = iba::SAPathRecord::DESC;

TEST_F(PmPath, AKnownGuidIsAskedByGidAndLidOncePerLid) {
  auto got = resolve(7, 0x20007, 2);
  ASSERT_EQ(sa.queries.size(), 1u);
  EXPECT_EQ(path_queries, 1u);
  EXPECT_EQ(sa.queries[0].first,
            cm(D, "DLID") | cm(D, "SLID") | cm(D, "DGID") | cm(D, "SGID") | cm(D, "numbPath"));
  EXPECT_EQ(sa.queries[0].second.DLID(), 7u);
  EXPECT_EQ(sa.queries[0].second.SLID(), 1u);
  EXPECT_EQ(sa.queries[0].second.DGID(), iba::Gid::from(kPrefix, 0x20007));
  EXPECT_EQ(sa.queries[0].second.SGID(), iba::Gid::from(kPrefix, 0x10001));
  for (const auto& g : got) {
    EXPECT_EQ(g.error, "");
    EXPECT_EQ(g.path.DLID, 7);
    EXPECT_EQ(g.path.SL, 3);
    EXPECT_FALSE(g.path.has_grh);  // hop limit 0: inside the subnet
  }
}

TEST_F(PmPath, AnUnknownGuidIsAskedByLidsAlone) {
  auto got = resolve(9, 0, 1);
  ASSERT_EQ(sa.queries.size(), 1u);
  EXPECT_EQ(sa.queries[0].first, cm(D, "DLID") | cm(D, "SLID") | cm(D, "numbPath"));
  EXPECT_EQ(got[0].error, "");
  EXPECT_EQ(got[0].path.SL, 3);
}

TEST_F(PmPath, AGidTheSaRefusesIsAskedAgainByLid) {
  sa.refuse_gid = true;
  auto got = resolve(7, 0x99999, 1);  // stale: not the GUID of LID 7
  ASSERT_EQ(sa.queries.size(), 2u);
  EXPECT_TRUE(sa.queries[0].first & cm(D, "DGID"));
  EXPECT_EQ(sa.queries[1].first, cm(D, "DLID") | cm(D, "SLID") | cm(D, "numbPath"));
  EXPECT_EQ(got[0].error, "");
  EXPECT_EQ(got[0].path.DLID, 7);
  EXPECT_EQ(got[0].path.SL, 3);
}

TEST_F(PmPath, ATimeoutIsNotAskedAgainAndReachesEveryAsker) {
  sa.silent = true;
  ibcore::config().timeout_ms = 5;
  ibcore::config().retries = 0;
  auto got = resolve(7, 0x20007, 2);
  EXPECT_EQ(sa.queries.size(), 1u);
  EXPECT_EQ(got[0].error, "Failed getting path record for LID 7.");
  EXPECT_EQ(got[1].error, got[0].error);
}

}  // namespace
