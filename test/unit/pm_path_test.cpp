// PM paths of core/health/health.h (PmAccess) against a fake SA: the PathRecord of
// a LID whose port GUID is known names both ends by GID as well as by LID
// (OpenSM then finds them by GUID instead of scanning every port), an SA
// that refuses that pairing is asked again by LIDs alone, one query per LID
// however many ask, the path table (one GetTable from the source) answers
// the LIDs it holds, and the SL always comes from the SA.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/base/config.h"
#include "core/health/health.h"
#include "core/rpc/gmppath.h"
#include "core/rpc/sched.h"
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
  // GetTable (the paths from the source to every port): the records of
  // these destination LIDs, SL 4, as one reassembled message; refused with
  // ERR_REQ_INVALID when refuse_table.
  std::vector<uint16_t> table_lids;
  bool refuse_table = false;
  std::vector<std::pair<uint64_t, iba::SAPathRecord>> queries;
  std::vector<uint8_t> methods;

  void answer(FakeTransport& t, const Sent& s) {
    const uint8_t* m = s.mad.data();
    // (The local PortInfo the engine asks when the SA stays silent, to
    // follow a new master SM: left unanswered, no other SM is known.)
    if (silent && m[1] == 0x81) return;
    ASSERT_EQ(m[1], 0x03);
    ASSERT_EQ(be16(m + 16), 0x0035);
    uint64_t mask = be64(m + 48);
    iba::SAPathRecord q;
    q.load({m + 56, q.SIZE});
    queries.push_back({mask, q});
    methods.push_back(m[3]);
    if (silent) return;
    if (m[3] == 0x12) {  // GetTable
      auto rm = coretest::sa_reply(s.mad, nullptr, q.SIZE);
      if (refuse_table) {
        rm.data[4] = 0x02;
        t.inbox.push_back(rm);
        return;
      }
      rm.data[4] = 0;
      std::vector<uint8_t> msg(rm.data.begin(), rm.data.begin() + 56);
      for (uint16_t d : table_lids) {
        iba::SAPathRecord r = q;
        r.set_DLID(d).set_SL(4).set_PKey(0xffff).set_MTU(4).set_rate(3).set_packetLifeTime(18);
        r.set_DGID(iba::Gid::from(kPrefix, 0x20000 + d));
        msg.insert(msg.end(), r.buf.begin(), r.buf.end());
      }
      std::copy_n(msg.begin(), std::min<size_t>(msg.size(), 256), rm.data.begin());
      if (msg.size() > 256) rm.big = msg;
      t.inbox.push_back(rm);
      return;
    }
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
    t.responder = [this](FakeTransport& tr, const Sent& s) { sa.answer(tr, s); };
  }
  uint64_t table_paths = 0;
  // PmAccess::path of each LID of `lids` (one task each, all at once),
  // after asking for the path table when `table`; `guid` is given as the
  // port GUID of every LID when not 0.
  std::vector<Got> resolve_all(const std::vector<uint16_t>& lids, uint64_t guid, bool table) {
    ibcore::Scheduler s(t, 8);
    ibcore::IBPath sa_path;
    sa_path.DLID = 1;
    sa_path.dqpn = 1;
    sa_path.qkey = ibcore::GSI_QKEY;
    ibcore::health::PmAccess pm(s, sa_path);
    if (table) pm.read_path_table();
    std::vector<Got> got(lids.size());
    for (size_t i = 0; i < lids.size(); ++i) {
      if (guid) pm.set_port_guid(lids[i], guid);
      s.spawn(get(pm, lids[i], got[i].path, got[i].error));
    }
    s.run();
    path_queries = pm.path_queries();
    table_paths = pm.table_paths();
    return got;
  }
  // LID `lid` asked by `askers` tasks at once.
  std::vector<Got> resolve(uint16_t lid, uint64_t guid, int askers) {
    return resolve_all(std::vector<uint16_t>(static_cast<size_t>(askers), lid), guid, false);
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

TEST_F(PmPath, ATimeoutIsNotAskedAgainAndEveryAskerGetsThePlainPath) {
  // (issue 36: a GMP to a LID does not need the SA; test/unit/sa_down_test.cpp)
  sa.silent = true;
  t.settings().timeout_ms = 5;
  t.settings().retries = 0;
  auto got = resolve(7, 0x20007, 2);
  EXPECT_EQ(sa.queries.size(), 1u);
  for (const auto& g : got) {
    EXPECT_EQ(g.error, "");
    EXPECT_EQ(g.path.DLID, 7);
    EXPECT_EQ(g.path.SL, 0);
  }
  ibcore::forget_sa_unavailable();
}

TEST_F(PmPath, TheTableGivesThePathsItHasAndTheRestAreAskedAlone) {
  sa.table_lids = {5, 6, 7, 8, 11};  // 5 records: more than one MAD holds
  auto got = resolve_all({7, 9, 7}, 0, true);
  ASSERT_EQ(sa.queries.size(), 2u);
  EXPECT_EQ(sa.methods[0], 0x12);  // the table first, naming the source only
  EXPECT_EQ(sa.queries[0].first, cm(D, "SGID") | cm(D, "SLID"));
  EXPECT_EQ(sa.queries[0].second.SGID(), iba::Gid::from(kPrefix, 0x10001));
  EXPECT_EQ(sa.methods[1], 0x01);  // then LID 9 alone
  EXPECT_EQ(sa.queries[1].second.DLID(), 9u);
  EXPECT_EQ(path_queries, 2u);
  EXPECT_EQ(table_paths, 5u);
  EXPECT_EQ(got[0].error, "");
  EXPECT_EQ(got[0].path.DLID, 7);
  EXPECT_EQ(got[0].path.SL, 4);  // from the table
  EXPECT_EQ(got[1].path.DLID, 9);
  EXPECT_EQ(got[1].path.SL, 3);  // asked alone
  EXPECT_EQ(got[2].path.SL, 4);
}

TEST_F(PmPath, ARefusedTableLeavesEveryLidToItsOwnQuery) {
  sa.refuse_table = true;
  auto got = resolve_all({7, 9}, 0, true);
  ASSERT_EQ(sa.queries.size(), 3u);
  EXPECT_EQ(sa.methods[0], 0x12);
  EXPECT_EQ(table_paths, 0u);
  for (const auto& g : got) {
    EXPECT_EQ(g.error, "");
    EXPECT_EQ(g.path.SL, 3);
  }
}

}  // namespace
