// SA discovery (core/fabric/sadiscovery.h) against a fake transport that plays an
// SA answering from a known subnet database: not one SMP may leave, every
// query is a SubnAdmGet naming one record, and the database it builds
// prints the same topology as the one the SA was answering from.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "core/fabric/reforder.h"
#include "core_fake_transport.h"
#include "subnet_test_fabric.h"
#include "core/base/config.h"
#include "core/fabric/netprint.h"
#include "core/fabric/discovery.h"
#include "core/fabric/sadiscovery.h"
#include "iba/introspect.h"
#include "iba/sa.h"
#include "sa_test_helpers.h"
#include "test/topology_text.h"

namespace {

using coretest::FakeTransport;
using coretest::Sent;

using coretest::be16;
using coretest::be64;
using coretest::cm;

// The SA of the fabric in `db`.
struct DbSA {
  explicit DbSA(const ibcore::Subnet& d) : db(d) {}
  const ibcore::Subnet& db;
  int smps = 0, tables = 0, gets = 0;
  std::set<std::pair<uint16_t, std::string>> asked;  // (attr, query bytes): nothing asked twice
  int repeats = 0;

  void send(FakeTransport& t, const Sent& s, const void* rec, size_t size, bool found) {
    t.inbox.push_back(coretest::sa_reply(s.mad, found ? rec : nullptr, size));
  }

  void answer(FakeTransport& t, const Sent& s) {
    const uint8_t* m = s.mad.data();
    if (m[1] != 0x03) {
      ++smps;
      return;  // lost: an SMP must not be sent at all
    }
    if (m[3] != 0x01) {
      ++tables;
      send(t, s, nullptr, 8, false);
      return;
    }
    ++gets;
    uint16_t attr = be16(m + 16);
    uint64_t mask = be64(m + 48);
    const uint8_t* q = m + 56;
    if (!asked.insert({attr, std::string(reinterpret_cast<const char*>(q), 64) + std::to_string(mask)}).second)
      ++repeats;
    if (attr == 0x0011) {  // NodeRecord by LID
      iba::SANodeRecord in;
      in.load({q, in.SIZE});
      EXPECT_EQ(mask, cm(in.DESC, "LID"));
      uint32_t p = db.port_by_lid(uint16_t(in.LID()));
      if (p == ibcore::NO_INDEX) return send(t, s, nullptr, in.SIZE, false);
      const ibcore::Node& n = db.node_of(db.port(p));
      iba::SANodeRecord r;
      r.set_LID(in.LID());
      iba::SMPNodeInfo ni = n.node_info();
      ni.set_portGUID(db.port(p).guid).set_localPortNum(db.port(p).num);
      r.set_nodeInfo(ni);
      iba::SMPNodeDescription nd;
      nd.load(n.desc);
      r.set_nodeDescription(nd);
      return send(t, s, r.raw(), r.SIZE, true);
    }
    if (attr == 0x0012) {  // PortInfoRecord by LID and port
      iba::SAPortInfoRecord in;
      in.load({q, in.SIZE});
      EXPECT_EQ(mask, cm(in.DESC, "endportLID") | cm(in.DESC, "portNum"));
      uint32_t p = db.port_by_lid(uint16_t(in.endportLID()));
      if (p == ibcore::NO_INDEX) return send(t, s, nullptr, in.SIZE, false);
      const ibcore::Node& n = db.node_of(db.port(p));
      if (in.portNum() > n.nports || !db.port(n, in.portNum()).has_info) return send(t, s, nullptr, in.SIZE, false);
      iba::SAPortInfoRecord r = in;
      iba::SMPPortInfo pi;
      pi.load(db.port(n, in.portNum()).info);
      r.set_portInfo(pi);
      return send(t, s, r.raw(), r.SIZE, true);
    }
    if (attr == 0x0014) {  // SwitchInfoRecord
      iba::SASwitchInfoRecord in;
      in.load({q, in.SIZE});
      iba::SASwitchInfoRecord r = in;
      return send(t, s, r.raw(), r.SIZE, db.port_by_lid(uint16_t(in.LID())) != ibcore::NO_INDEX);
    }
    if (attr == 0x0020) {  // LinkRecord from (LID, port)
      iba::SALinkRecord in;
      in.load({q, in.SIZE});
      EXPECT_EQ(mask, cm(in.DESC, "fromLID") | cm(in.DESC, "fromPort"));
      uint32_t p = db.port_by_lid(uint16_t(in.fromLID()));
      if (p == ibcore::NO_INDEX) return send(t, s, nullptr, in.SIZE, false);
      const ibcore::Node& n = db.node_of(db.port(p));
      if (in.fromPort() > n.nports) return send(t, s, nullptr, in.SIZE, false);
      const ibcore::Port* r = db.peer(db.port(n, in.fromPort()));
      if (!r) return send(t, s, nullptr, in.SIZE, false);
      iba::SALinkRecord out = in;
      out.set_toPort(r->num).set_toLID(db.lid_of(*r));
      return send(t, s, out.raw(), out.SIZE, true);
    }
    send(t, s, nullptr, 8, false);
  }
};

struct LocalSwitch : FakeTransport {
  uint16_t local_lid() const override { return 1; }
};

TEST(SADiscovery, SameTopologyAsTheSubnetTheSADescribesAndNoSMP) {
  TestFabric f = TestFabric::two_switches();
  f.db.set_reference(ibcore::replay_reference(f.db));
  DbSA sa{f.db};
  LocalSwitch t;
  t.responder = [&](FakeTransport& tr, const Sent& s) { sa.answer(tr, s); };
  ibcore::Scheduler sched(t, 16);
  ibcore::Subnet db;
  ibcore::DiscoveryResult r = ibcore::discover_sa(sched, db);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_EQ(r.mode_used, ibcore::DiscoveryMode::SA);
  EXPECT_EQ(sa.smps, 0);
  EXPECT_EQ(sa.tables, 0);
  EXPECT_EQ(sa.repeats, 0);
  EXPECT_EQ(uint64_t(sa.gets), r.mads);
  ASSERT_EQ(db.node_count(), f.db.node_count());
  ibcore::NodeNameMap map = ibcore::NodeNameMap::open("");
  EXPECT_EQ(testtext::without_time(ibcore::topology_text(db, map)),
            testtext::without_time(ibcore::topology_text(f.db, map)));
  // DR paths are filled from the graph (commands may address by DR later).
  uint32_t h2 = db.node_by_guid(0x100003);
  ASSERT_NE(h2, ibcore::NO_INDEX);
  EXPECT_EQ(db.node(h2).dr.size(), 2u);
}

TEST(SADiscovery, TheDispatcherPicksSAFromTheMode) {
  TestFabric f = TestFabric::two_switches();
  DbSA sa{f.db};
  LocalSwitch t;
  t.responder = [&](FakeTransport& tr, const Sent& s) { sa.answer(tr, s); };
  ibcore::Scheduler sched(t, 4);
  ibcore::Subnet db;
  ibcore::DiscoveryOptions o;
  o.mode = ibcore::DiscoveryMode::SA;
  ibcore::DiscoveryResult r = ibcore::discover(sched, db, o);
  EXPECT_EQ(r.mode_used, ibcore::DiscoveryMode::SA);
  EXPECT_EQ(sa.smps, 0);
  EXPECT_EQ(db.node_count(), 4u);
}

TEST(SADiscovery, NoLocalLidIsAClearError) {
  TestFabric f = TestFabric::two_switches();
  DbSA sa{f.db};
  FakeTransport t;  // local LID 0
  t.responder = [&](FakeTransport& tr, const Sent& s) { sa.answer(tr, s); };
  ibcore::Scheduler sched(t, 4);
  ibcore::Subnet db;
  try {
    ibcore::discover_sa(sched, db);
    FAIL() << "no error";
  } catch (const ibcore::MADError& e) {
    EXPECT_NE(std::string(e.what()).find("LID"), std::string::npos);
  }
  EXPECT_EQ(sa.smps + sa.gets + sa.tables, 0);
}

TEST(SADiscovery, AFailedRecordIsReportedNotHidden) {
  TestFabric f = TestFabric::two_switches();
  DbSA sa{f.db};
  LocalSwitch t;
  // The SA lost the records of Switch2: its NodeRecord fails.
  t.responder = [&](FakeTransport& tr, const Sent& s) {
    const uint8_t* m = s.mad.data();
    if (m[1] == 0x03 && be16(m + 16) == 0x0011 && be16(m + 56) == 3) return sa.send(tr, s, nullptr, 108, false);
    sa.answer(tr, s);
  };
  ibcore::Scheduler sched(t, 4);
  ibcore::Subnet db;
  ibcore::DiscoveryResult r = ibcore::discover_sa(sched, db);
  EXPECT_EQ(sa.smps, 0);
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors.front().find("NodeRecord of LID 3"), std::string::npos) << r.errors.front();
  EXPECT_EQ(db.node_by_guid(0x200001), ibcore::NO_INDEX);
}

}  // namespace
