// core/health/scan.h, the fabric counter scan every counter-reading command
// consumes, against fake PMAs at each LID of a hand-built subnet
// (subnet_test_fabric.h: Switch1 LID 1, Switch2 LID 3, Hca1 LIDs 2 and 4,
// Hca2 LIDs 5 and 6): the LID a port is read at, the threshold test, the
// node kinds and ports selected, ErrorScan's AllPortSelect first (a
// switch's ports read only when its sum shows a counter beyond threshold)
// and its details, reads ahead of a walk, PortScan's sums and clear_node's
// AllPortSelect clear with its port-by-port fallback.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "core/base/regex.h"
#include "core/health/checks.h"
#include "core/health/scan.h"
#include "core/rpc/sched.h"
#include "core_fake_transport.h"
#include "sa_test_helpers.h"
#include "iba/introspect.h"
#include "iba/mad.h"
#include "subnet_test_fabric.h"

namespace {

namespace H = ibcore::health;
using coretest::FakeTransport;
using coretest::Sent;

using coretest::be16;

constexpr uint16_t kCpi = 0x0001, kPc = 0x0012, kRcvDetails = 0x0015, kXmitDetails = 0x0016, kExt = 0x001D;
constexpr uint16_t kSwitchCaps = H::PM_CAP_ALL_PORT_SELECT | H::PM_CAP_XMIT_WAIT;

// A PMA at every LID of the fabric: its capabilities, its ports' counters
// (every port 0 unless set), and what was asked of it.
struct Pmas {
  std::map<uint16_t, uint16_t> caps;                          // by LID (0: none)
  std::map<std::pair<uint16_t, uint8_t>, iba::PMPortCounters> pc;  // (LID, port)
  std::set<uint16_t> refuse_all_port_set;                     // LIDs whose AllPortSelect Set fails
  std::vector<std::tuple<uint16_t, uint16_t, uint8_t, uint8_t>> asked;  // (LID, attribute, port, method)

  int count(uint16_t lid, uint16_t attr, uint8_t port = 0xfe, uint8_t method = 0x01) const {
    int n = 0;
    for (auto [l, a, p, m] : asked) n += l == lid && a == attr && (port == 0xfe || p == port) && m == method;
    return n;
  }
  void answer(FakeTransport& t, const Sent& s) {
    const uint8_t* m = s.mad.data();
    ASSERT_EQ(m[1], 0x04);  // PerfMgt
    const uint16_t lid = s.path.DLID, attr = be16(m + 16);
    const uint8_t method = m[3], sel = attr == kCpi ? 0 : m[64 + 1];
    asked.push_back({lid, attr, sel, method});
    if (attr == kCpi) {
      iba::MADClassPortInfo c;
      c.set_baseVersion(1).set_classVersion(1).set_capabilityMask(caps[lid]);
      return t.reply(s, 0, c.buf.data(), c.SIZE);
    }
    if (method == 0x02) {  // Set: a clear
      if (sel == 0xff && refuse_all_port_set.count(lid)) return t.reply(s, 0x000c);
      return t.reply(s, 0, m + 64, 192);
    }
    if (attr == kPc) {
      iba::PMPortCounters r;
      if (sel == 0xff) {
        for (const auto& [k, c] : pc)
          if (k.first == lid)
            for (int i = 0; i < H::N_ERR; ++i) {
              const iba::FieldDesc* f = nullptr;
              for (const iba::FieldDesc& d : iba::PMPortCounters::DESC.field_list())
                if (std::string_view(d.name) == H::ERROR_COUNTERS.field(i)) f = &d;
              iba::set_bits(r.buf.data(), f->bit_off, f->width,
                            iba::get_bits(r.buf.data(), f->bit_off, f->width) + H::ERROR_COUNTERS.value(c, i));
            }
      } else if (auto it = pc.find({lid, sel}); it != pc.end()) {
        r = it->second;
      }
      r.set_portSelect(sel);
      return t.reply(s, 0, r.buf.data(), r.SIZE);
    }
    if (attr == kRcvDetails || attr == kXmitDetails || attr == kExt) {
      uint8_t b[192] = {};
      b[1] = sel;
      b[5] = 7;  // the first details counter (bits 32..47): 7
      return t.reply(s, 0, b, sizeof b);
    }
    FAIL() << "unexpected attribute " << attr;
  }
};

struct FabricScan : ::testing::Test {
  FakeTransport t;
  Pmas pmas;
  TestFabric f = TestFabric::two_switches();
  ibcore::NodeNameMap map;
  H::Thresholds thr;

  void SetUp() override {
    t.settings().timeout_ms = 20;
    t.settings().retries = 0;
    t.responder = [this](FakeTransport& tr, const Sent& s) { pmas.answer(tr, s); };
    pmas.caps[1] = pmas.caps[3] = kSwitchCaps;
  }
  void set_counter(uint16_t lid, uint8_t port, const char* field, uint64_t v) {
    iba::PMPortCounters& c = pmas.pc[{lid, port}];
    iba::FieldRef r = iba::field_named(iba::PMPortCounters::DESC, field);
    iba::set_bits(c.buf.data(), r.bit_off, r.width(), v);
  }
  uint32_t node(const char* desc) const {
    for (uint32_t n = 0; n < f.db.node_count(); ++n)
      if (f.db.node(n).description() == desc) return n;
    return ibcore::NO_INDEX;
  }
};

// The rows a scan handed over.
struct Rows : H::ErrorSink {
  std::vector<H::ErrorRow> rows;
  void row(const H::ErrorRow& r) override { rows.push_back(r); }
  std::vector<unsigned> ports(uint32_t node) const {
    std::vector<unsigned> v;
    for (const auto& r : rows)
      if (r.node == node) v.push_back(r.port);
    return v;
  }
  const H::ErrorRow* find(uint32_t node, unsigned port) const {
    for (const auto& r : rows)
      if (r.node == node && r.port == port) return &r;
    return nullptr;
  }
};

TEST_F(FabricScan, APortIsReadAtItsSwitchsLidOrItsOwn) {
  const auto& db = f.db;
  EXPECT_EQ(H::port_lid(db, db.node(node("Switch1")), 5), 1);
  EXPECT_EQ(H::port_lid(db, db.node(node("Switch2")), 0), 3);
  EXPECT_EQ(H::port_lid(db, db.node(node("Hca1")), 2), 4);
  EXPECT_EQ(H::port_lid(db, db.node(node("Hca2")), 1), 5);
}

TEST_F(FabricScan, TheThresholdTestLeavesOutIgnoredCountersAndXmitWaitWithoutItsBit) {
  iba::PMPortCounters pc;
  pc.set_symbolErrorCounter(3).set_portRcvErrors(1).set_portXmitWait(9);
  H::PmaCaps with, without;
  with.mask = H::PM_CAP_XMIT_WAIT;
  thr.limit[H::SymbolErrorCounter] = 2;
  EXPECT_EQ(H::beyond(thr, pc, with), (1u << H::SymbolErrorCounter) | (1u << H::PortRcvErrors) | (1u << H::PortXmitWait));
  EXPECT_EQ(H::beyond(thr, pc, without), (1u << H::SymbolErrorCounter) | (1u << H::PortRcvErrors));
  EXPECT_EQ(H::beyond(thr, pc, without, uint16_t(1u << H::PortRcvErrors)), 1u << H::SymbolErrorCounter);
  EXPECT_EQ(H::error_value(pc, without, H::PortXmitWait), 0u);
  thr.limit[H::SymbolErrorCounter] = 3;
  EXPECT_EQ(H::beyond(thr, pc, without, uint16_t(1u << H::PortRcvErrors)), 0u);
}

TEST_F(FabricScan, PortSelectionByKindNameAndState) {
  const auto& db = f.db;
  H::PortSelect all;
  EXPECT_EQ(all.node(db, node("Hca1")), true);
  H::PortSelect sw;
  sw.kinds = H::KIND_SWITCH;
  EXPECT_EQ(sw.node(db, node("Hca1")), false);
  EXPECT_EQ(sw.node(db, node("Switch2")), true);
  ibcore::Regex re("^Hca2$");
  H::PortSelect named;
  named.node_regex = &re;
  EXPECT_EQ(named.node(db, node("Hca1")), false);
  EXPECT_EQ(named.node(db, node("Hca2")), true);
  // Switch1 port 4 is Down: read unless Down ports are left out; port 0 always.
  const uint32_t s1 = node("Switch1");
  EXPECT_FALSE(all.state_only(db, db.port_index(s1, 4)));
  H::PortSelect up;
  up.down_ports = false;
  EXPECT_TRUE(up.state_only(db, db.port_index(s1, 4)));
  EXPECT_FALSE(up.state_only(db, db.port_index(s1, 3)));
  EXPECT_FALSE(up.state_only(db, db.port_index(s1, 0)));
}

TEST_F(FabricScan, ASwitchsSumComesFirstAndItsPortsOnlyWhenItShowsAnError) {
  set_counter(1, 3, "symbolErrorCounter", 5);  // Switch1 port 3
  ibcore::Scheduler s(t, 16);
  H::PmAccess pm(s, ibcore::IBPath(), /*skip_sl=*/true);
  pm.use_subnet(&f.db);
  H::ErrorScanOptions o;
  o.thr = &thr;
  o.map = &map;
  H::ErrorScan scan(pm, o);
  Rows rows;
  const std::vector<uint32_t> nodes{node("Switch1"), node("Switch2"), node("Hca1")};
  std::vector<H::NodeScan> found = scan.run(f.db, nodes, rows);
  // Switch2: its clean sum, no port read; Switch1: the sum, then each port.
  EXPECT_EQ(rows.ports(node("Switch2")), std::vector<unsigned>{0xff});
  EXPECT_EQ(pmas.count(3, kPc), 1);
  EXPECT_EQ(pmas.count(3, kPc, 0xff), 1);
  std::vector<unsigned> s1{0xff};
  for (unsigned p = 1; p <= 8; ++p) s1.push_back(p);
  EXPECT_EQ(rows.ports(node("Switch1")), s1);
  const H::ErrorRow* bad = rows.find(node("Switch1"), 3);
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->over, 1u << H::SymbolErrorCounter);
  EXPECT_TRUE(bad->reported());
  EXPECT_FALSE(rows.find(node("Switch1"), 2)->reported());
  EXPECT_TRUE(found[0].bad);
  EXPECT_EQ(found[0].bad_ports, 1u);
  EXPECT_EQ(found[0].ports_checked, 8u);
  EXPECT_FALSE(found[1].bad);
  EXPECT_EQ(found[1].ports_checked, 8u);
  // Hca1 (no AllPortSelect): each port at its own LID.
  EXPECT_EQ(rows.ports(node("Hca1")), (std::vector<unsigned>{1, 2}));
  EXPECT_EQ(pmas.count(2, kPc, 1), 1);
  EXPECT_EQ(pmas.count(4, kPc, 2), 1);
  EXPECT_EQ(found[2].ports_checked, 2u);
  // A threshold above the count: Switch1's sum is clean too.
  thr.limit[H::SymbolErrorCounter] = 5;
  pmas.asked.clear();
  Rows again;
  H::ErrorScan scan2(pm, o);
  found = scan2.run(f.db, {node("Switch1")}, again);
  EXPECT_EQ(again.ports(node("Switch1")), std::vector<unsigned>{0xff});
  EXPECT_EQ(pmas.count(1, kPc), 1);
  EXPECT_FALSE(found[0].bad);
}

TEST_F(FabricScan, DetailsAreReadForTheCountersBeyondThresholdOnly) {
  set_counter(2, 1, "portXmitDiscards", 4);  // Hca1 port 1
  ibcore::Scheduler s(t, 16);
  H::PmAccess pm(s, ibcore::IBPath(), true);
  H::ErrorScanOptions o;
  o.thr = &thr;
  o.map = &map;
  o.details = true;
  H::ErrorScan scan(pm, o);
  Rows rows;
  scan.run(f.db, {node("Hca1")}, rows);
  const H::ErrorRow* r = rows.find(node("Hca1"), 1);
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->xmit.has_value());
  EXPECT_EQ(r->xmit->portInactiveDiscards(), 7u);
  EXPECT_FALSE(r->rcv.has_value());
  EXPECT_EQ(pmas.count(2, kXmitDetails), 1);
  EXPECT_EQ(pmas.count(2, kRcvDetails), 0);
  EXPECT_EQ(pmas.count(4, kXmitDetails), 0);
}

TEST_F(FabricScan, WhatIsReadAheadOfTheWalkIsNotAskedAgain) {
  ibcore::Scheduler s(t, 16);
  H::PmAccess pm(s, ibcore::IBPath(), true);
  H::ErrorScanOptions o;
  o.thr = &thr;
  o.map = &map;
  o.kinds = H::KIND_SWITCH;
  H::ErrorScan scan(pm, o);
  // (as discovery's on_port_lid calls it: Switch1's port 0, a CA port,
  // which --switch leaves out, Switch1 again)
  scan.ahead(f.db, node("Switch1"), 0);
  scan.ahead(f.db, node("Hca1"), 1);
  scan.ahead(f.db, node("Switch1"), 3);
  s.run();
  EXPECT_EQ(scan.ahead_lids(), 1u);
  EXPECT_EQ(pmas.count(1, kPc, 0xff), 1);
  EXPECT_EQ(pmas.count(2, kCpi), 0);
  Rows rows;
  auto found = scan.run(f.db, {node("Switch1")}, rows);
  EXPECT_EQ(pmas.count(1, kPc, 0xff), 1);
  EXPECT_EQ(pmas.count(1, kCpi), 1);
  EXPECT_EQ(rows.ports(node("Switch1")), std::vector<unsigned>{0xff});
  EXPECT_EQ(found[0].ports_checked, 8u);
}

TEST_F(FabricScan, ASumStandsForASwitchsPortsOnlyWhereTwoOrMoreAreRead) {
  const uint32_t s1 = node("Switch1"), s2 = node("Switch2"), h1 = node("Hca1");
  std::vector<H::PortRow> rows{H::PortScan::row(f.db, s1, 1), H::PortScan::row(f.db, s1, 3),
                               H::PortScan::row(f.db, s2, 5), H::PortScan::row(f.db, h1, 2),
                               H::PortScan::row(f.db, s1, 0)};
  H::PortScan::sums_for_switches(f.db, rows);
  EXPECT_TRUE(rows[0].by_sum);
  EXPECT_TRUE(rows[1].by_sum);
  EXPECT_FALSE(rows[2].by_sum);  // Switch2's one port: its own read
  EXPECT_FALSE(rows[3].by_sum);
  EXPECT_FALSE(rows[4].by_sum);  // port 0 is not in the sum
  EXPECT_EQ(rows[3].lid, 4);
  // Read: Switch1's clean sum stands for its two ports.
  ibcore::Scheduler s(t, 16);
  H::PmAccess pm(s, ibcore::IBPath(), true);
  H::PortScanOptions o;
  o.want = H::error_groups();
  o.pc_errors = true;
  H::PortScan scan(pm, o);
  scan.spawn(f.db, rows);
  s.run();
  for (const auto& r : rows) EXPECT_TRUE(r.c.ok());
  EXPECT_TRUE(rows[0].c.pc_from_sum);
  EXPECT_EQ(pmas.count(1, kPc, 1), 0);
  EXPECT_EQ(pmas.count(3, kPc, 5), 1);
}

TEST_F(FabricScan, AClearNamesASwitchsPortsAtOnceAndPortByPortWhenThatFails) {
  ibcore::Scheduler s(t, 16);
  H::PmAccess pm(s, ibcore::IBPath(), true);
  H::PortCountersReader reader(pm);
  std::vector<std::pair<unsigned, bool>> done;
  const std::function<void(uint16_t, unsigned, const ibcore::MADError*)> note =
      [&](uint16_t, unsigned p, const ibcore::MADError* e) { done.push_back({p, e == nullptr}); };
  H::Cleared c = H::Cleared::Nothing;
  auto one = [&](uint32_t n) -> ibcore::Task<> { c = co_await H::clear_node(reader, f.db, n, map, 0xffff, false, note); };
  s.spawn(one(node("Switch1")));
  s.run();
  EXPECT_EQ(c, H::Cleared::Done);
  EXPECT_EQ(done.size(), 8u);
  EXPECT_EQ(pmas.count(1, kPc, 0xff, 0x02), 1);
  EXPECT_EQ(pmas.count(1, kPc, 1, 0x02), 0);
  // Its AllPortSelect Set refused: each port on its own.
  pmas.refuse_all_port_set.insert(3);
  done.clear();
  s.spawn(one(node("Switch2")));
  s.run();
  EXPECT_EQ(done.size(), 8u);
  for (auto [p, ok] : done) EXPECT_TRUE(ok) << p;
  EXPECT_EQ(pmas.count(3, kPc, 0xff, 0x02), 1);
  EXPECT_EQ(pmas.count(3, kPc, 4, 0x02), 1);
  // A CA: each port at its own LID.
  done.clear();
  s.spawn(one(node("Hca2")));
  s.run();
  EXPECT_EQ(done.size(), 2u);
  EXPECT_EQ(pmas.count(5, kPc, 1, 0x02), 1);
  EXPECT_EQ(pmas.count(6, kPc, 2, 0x02), 1);
}

}  // namespace
