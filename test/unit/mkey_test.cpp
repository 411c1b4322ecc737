// M_Key protection (issue 16), against the in-memory SMAs of
// fake_smp_fabric.h, which enforce it as IBA 14.2.4 says (ibsim never checks
// M_Keys): a protected port drops SMPs without its key, so the tool times
// out and says that an M_Key violation may be why and how to give the key
// (-y, or m_key in ibdiag.conf); with the key the same reads work; --sa
// reads go to the SA, which needs no M_Key.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "core/base/config.h"
#include "core/fabric/discovery.h"
#include "core/base/error.h"
#include "core/rpc/rpc.h"
#include "core/rpc/satransactor.h"
#include "core/rpc/sched.h"
#include "fake_smp_fabric.h"
#include "sa_test_helpers.h"
#include "iba/pm.h"
#include "iba/sa.h"
#include "iba/smp.h"

using namespace ibcore;
using coretest::FakeSmpFabric;
using coretest::FakeTransport;
using coretest::Sent;

namespace {

constexpr uint64_t KEY = 0x00000000cafe1234ull;

// Us (CA, lid 1) -- switch (lid 2) -- CA "far" (lid 3), far's port guarded.
struct Fabric {
  FakeSmpFabric f;
  int us, sw, far;
  struct Port : FakeTransport {
    uint16_t local_lid() const override { return 1; }
  } t;
  unsigned smps = 0, sa_mads = 0;

  explicit Fabric(uint8_t level) {
    us = f.add_ca("us", {1});
    sw = f.add_switch("sw", 4, 2);
    far = f.add_ca("far", {3});
    f.link(us, 1, sw, 1);
    f.link(sw, 2, far, 1);
    f.local = us;
    f.nodes[size_t(far)].mkey = KEY;
    f.nodes[size_t(far)].mkey_protect = level;
    // Our port: short timeouts, no key until a test gives one (-y).
    t.settings().timeout_ms = 10;
    t.settings().retries = 1;
    t.responder = [this](FakeTransport& tr, const Sent& s) {
      if (s.mad[1] == 0x03) {
        ++sa_mads;
        sa(tr, s);
      } else {
        ++smps;
        f.answer(tr, s);
      }
    };
  }

  // A small SA: NodeRecords and PortInfoRecords by LID, from the fabric's
  // own data (the SM read them with its key).
  void sa(FakeTransport& tr, const Sent& s) {
    uint16_t attr = uint16_t(s.mad[16] << 8 | s.mad[17]);
    const uint8_t* q = s.mad.data() + 56;
    if (attr == 0x0011) {
      iba::SANodeRecord in;
      in.load({q, in.SIZE});
      int n = in.LID() == 3 ? far : in.LID() == 2 ? sw : us;
      const auto& x = f.nodes[size_t(n)];
      iba::SANodeRecord r;
      r.set_LID(in.LID());
      auto ni = r.nodeInfo();
      ni.set_nodeType(x.sw ? 2 : 1).set_numPorts(x.nports).set_nodeGUID(x.guid).set_localPortNum(1);
      ni.set_portGUID(f.port_guid(n, 1));
      r.set_nodeInfo(ni);
      reply(tr, s, r.bytes().data(), r.SIZE);
    } else if (attr == 0x0012) {
      iba::SAPortInfoRecord r;
      r.load({q, r.SIZE});
      auto pi = r.portInfo();
      pi.set_LID(r.endportLID()).set_localPortNum(r.portNum()).set_MKeyProtectBits(f.nodes[size_t(far)].mkey_protect);
      r.set_portInfo(pi);
      reply(tr, s, r.bytes().data(), r.SIZE);
    }
  }
  static void reply(FakeTransport& tr, const Sent& s, const uint8_t* rec, size_t size) {
    tr.inbox.push_back(coretest::sa_reply(s.mad, rec, size));
  }
};

IBPath lid(uint16_t l) {
  IBPath p;
  p.DLID = l;
  return p;
}

// What report() prints for e (the command's E: lines) when its target is
// known to exist, as a command learns it from the SA after the timeout
// (note_target_presence): the fake fabric's nodes all exist.
std::string reported(const std::exception& e) {
  if (auto* t = dynamic_cast<const MADTimeoutError*>(&e)) {
    MADTimeoutError known = *t;
    known.target = MADError::Target::Exists;
    return report_text(known);
  }
  return report_text(e);
}

size_t count_lines(const std::string& s) { return size_t(std::count(s.begin(), s.end(), '\n')); }

struct MKey : ::testing::Test {};

}  // namespace

TEST_F(MKey, GetWithoutTheKeyIsDroppedAtLevels2And3) {
  for (uint8_t level : {2, 3}) {
    Fabric fab(level);
    MadTransactor mad(fab.t);
    // The unguarded nodes answer ...
    EXPECT_EQ(mad.SubnGet<iba::SMPNodeInfo>(lid(2)).nodeType(), 2u);
    // ... the guarded one drops LID-routed and directed-route Gets alike.
    try {
      mad.SubnGet<iba::SMPNodeInfo>(lid(3));
      FAIL() << "level " << int(level) << ": answered without the key";
    } catch (const MADTimeoutError& e) {
      std::string out = reported(e);
      // The timeout line, then one line naming the violation and -y.
      EXPECT_EQ(count_lines(out), 2u) << out;
      EXPECT_NE(out.find("E: RPC SubnGet(1) SMPFormat(1.1) SMPNodeInfo(17) timed out to lid 3\n"), std::string::npos)
          << out;
      EXPECT_NE(out.find("M_Key violation"), std::string::npos) << out;
      EXPECT_NE(out.find("give the key with -y KEY (or m_key in ibdiag.conf)"), std::string::npos) << out;
    }
    EXPECT_THROW(mad.SubnGet<iba::SMPPortInfo>(IBPath::from_string("0,1,2"), 1), MADTimeoutError);
    EXPECT_EQ(fab.f.mkey_dropped, 4u);  // two tries each
    EXPECT_EQ(fab.f.nodes[size_t(fab.far)].mkey_violations, 4u);
  }
}

TEST_F(MKey, GetWithTheKeyFromDashY) {
  Fabric fab(3);
  fab.t.settings().mkey = KEY;  // what -y KEY sets
  MadTransactor mad(fab.t);
  auto ni = mad.SubnGet<iba::SMPNodeInfo>(lid(3));
  EXPECT_EQ(ni.nodeGUID(), fab.f.nodes[size_t(fab.far)].guid);
  auto pi = mad.SubnGet<iba::SMPPortInfo>(IBPath::from_string("0,1,2"), 1);
  EXPECT_EQ(pi.MKey(), KEY);  // the owner of the key sees it
  EXPECT_EQ(pi.MKeyProtectBits(), 3u);
  EXPECT_EQ(fab.f.mkey_dropped, 0u);
  // A path's own key wins over the configured one.
  IBPath wrong = lid(3);
  wrong.mkey = KEY + 1;
  EXPECT_THROW(mad.SubnGet<iba::SMPNodeInfo>(wrong), MADTimeoutError);
}

TEST_F(MKey, KeyFromIbdiagConf) {
  Fabric fab(2);
  Config conf;
  parse_ibdiag_conf("# site settings\nCA=mlx5_0\nm_key=0xcafe1234\n", conf);
  fab.t.settings() = conf;  // what open_transport(ep, conf) gives the port
  ASSERT_EQ(fab.t.settings().mkey, KEY);
  MadTransactor mad(fab.t);
  EXPECT_EQ(mad.SubnGet<iba::SMPNodeInfo>(lid(3)).nodeGUID(), fab.f.nodes[size_t(fab.far)].guid);
  // A wrong key from the file: the hint says to check it.
  parse_ibdiag_conf("m_key=0x1\n", conf);
  fab.t.settings() = conf;
  try {
    mad.SubnGet<iba::SMPNodeInfo>(lid(3));
    FAIL() << "answered with a wrong key";
  } catch (const MADTimeoutError& e) {
    std::string out = reported(e);
    EXPECT_NE(out.find("carrying a wrong M_Key; check the key given with -y KEY (or m_key in ibdiag.conf)"),
              std::string::npos)
        << out;
  }
}

TEST_F(MKey, Level1AnswersGetsHidingTheKeyAndDropsSets) {
  Fabric fab(1);
  MadTransactor mad(fab.t);
  IBPath far = IBPath::from_string("0,1,2");
  auto pi = mad.SubnGet<iba::SMPPortInfo>(far, 1);
  EXPECT_EQ(pi.MKey(), 0u);  // level 1: the key reads 0 without it
  EXPECT_EQ(pi.MKeyProtectBits(), 1u);
  // A Set without the key is dropped; the hint names the Set.
  iba::SMPPortInfo set = pi;
  set.set_MKey(0).set_MKeyProtectBits(0);
  try {
    mad.SubnSet(set, far, 1);
    FAIL() << "Set answered without the key";
  } catch (const MADTimeoutError& e) {
    std::string out = reported(e);
    EXPECT_NE(out.find("drops an SMP Set carrying no M_Key"), std::string::npos) << out;
  }
  EXPECT_EQ(fab.f.nodes[size_t(fab.far)].mkey, KEY);  // unchanged
  // With the key the Set goes through (and lifts the protection).
  fab.t.settings().mkey = KEY;
  pi = mad.SubnGet<iba::SMPPortInfo>(far, 1);
  EXPECT_EQ(pi.MKey(), KEY);
  set = pi;
  set.set_MKey(0).set_MKeyProtectBits(0);
  auto after = mad.SubnSet(set, far, 1);
  EXPECT_EQ(after.MKey(), 0u);
  EXPECT_EQ(fab.f.nodes[size_t(fab.far)].mkey, 0u);
  fab.t.settings().mkey.reset();
  EXPECT_EQ(mad.SubnGet<iba::SMPNodeInfo>(lid(3)).nodeType(), 1u);
}

TEST_F(MKey, Level0ShowsTheKeyButStillGuardsSets) {
  Fabric fab(0);
  MadTransactor mad(fab.t);
  auto pi = mad.SubnGet<iba::SMPPortInfo>(lid(3), 1);
  EXPECT_EQ(pi.MKey(), KEY);
  iba::SMPPortInfo set = pi;
  set.set_MKey(0);
  EXPECT_THROW(mad.SubnSet(set, lid(3), 1), MADTimeoutError);
  EXPECT_EQ(fab.f.nodes[size_t(fab.far)].mkey, KEY);
}

TEST_F(MKey, SaReadsNeedNoKey) {
  Fabric fab(3);
  MadTransactor mad(fab.t);
  SmpSource src(mad, /*use_sa=*/true);
  ASSERT_TRUE(src.uses_sa());
  auto ni = src.SubnGet<iba::SMPNodeInfo>(lid(3));
  EXPECT_EQ(ni.nodeGUID(), fab.f.nodes[size_t(fab.far)].guid);
  auto pi = src.SubnGet<iba::SMPPortInfo>(lid(3), 1);
  EXPECT_EQ(pi.LID(), 3u);
  EXPECT_EQ(fab.smps, 0u);  // not one SMP
  EXPECT_GT(fab.sa_mads, 0u);
  EXPECT_EQ(fab.f.mkey_dropped, 0u);
  // The same reads by SMP fail.
  SmpSource direct(mad, /*use_sa=*/false);
  EXPECT_THROW(direct.SubnGet<iba::SMPNodeInfo>(lid(3)), MADTimeoutError);
}

TEST_F(MKey, DiscoveryFindsTheGuardedNodeOnlyWithTheKey) {
  for (bool with_key : {false, true}) {
    Fabric fab(2);
    if (with_key) fab.t.settings().mkey = KEY;
    else fab.t.settings().mkey.reset();
    Scheduler sched(fab.t, 8);
    Subnet db;
    DiscoveryOptions o;
    o.mode = DiscoveryMode::DR;
    o.mlx_epi = false;
    discover(sched, db, o);
    EXPECT_EQ(db.node_by_guid(fab.f.nodes[size_t(fab.far)].guid) != NO_INDEX, with_key);
    EXPECT_EQ(db.node_count(), with_key ? 3u : 2u);
  }
}

TEST_F(MKey, HintOnlyForATargetKnownToExist) {
  Fabric fab(3);
  MadTransactor mad(fab.t);
  try {
    mad.SubnGet<iba::SMPNodeInfo>(lid(3));
    FAIL() << "answered without the key";
  } catch (const MADTimeoutError& e) {
    // Not known (nobody asked the SA): the timeout line alone.
    EXPECT_EQ(report_text(e), "E: RPC SubnGet(1) SMPFormat(1.1) SMPNodeInfo(17) timed out to lid 3\n");
    // Known to be absent: said so, and no M_Key hint.
    MADTimeoutError absent = e;
    absent.target = MADError::Target::Absent;
    std::string out = report_text(absent);
    EXPECT_EQ(out.find("M_Key"), std::string::npos) << out;
    EXPECT_NE(out.find("E: no port of the subnet has that LID"), std::string::npos) << out;
    EXPECT_NE(reported(e).find("M_Key violation"), std::string::npos);
  }
}

TEST_F(MKey, HintOnlyForSmpTimeouts) {
  Fabric fab(3);
  MadTransactor mad(fab.t);
  // A PM GMP that gets no reply: no M_Key line (GMPs carry none).
  IBPath pma = lid(3);
  pma.dqpn = 1;
  pma.qkey = GSI_QKEY;
  try {
    mad.PerformanceGet<iba::PMPortCounters>(pma);
    FAIL();
  } catch (const MADTimeoutError& e) {
    EXPECT_EQ(reported(e).find("M_Key"), std::string::npos);
  }
  // The MADError's own lines (what -v dumps per node, the lines conformance
  // rows may compare) stay as they were: the hint is report()'s.
  try {
    mad.SubnGet<iba::SMPNodeInfo>(lid(3));
    FAIL();
  } catch (const MADTimeoutError& e) {
    EXPECT_EQ(e.dump_str(0), "E: RPC SubnGet(1) SMPFormat(1.1) SMPNodeInfo(17) timed out to lid 3\n");
  }
}
