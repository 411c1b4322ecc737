// The SMP walker (core/fabric/discovery) on an in-memory fabric of SMAs
// (test/unit/fake_smp_fabric.h) instead of ibsim: fabrics with loops and
// parallel links, lost MADs, LMC ranges on LID-routed walks, a CA in the
// middle of a route, a node that answers NodeInfo but not PortInfo.  Each
// walk is checked against the fabric it ran on: every node reachable by
// directed routes is found once, every link between them is known from both
// ends, and no SMP was sent on a route that goes on through a CA.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "core/base/config.h"
#include "core/fabric/discovery.h"
#include "core/fabric/reforder.h"
#include "core/rpc/sched.h"
#include "core/fabric/subnet.h"
#include "test/unit/fake_smp_fabric.h"

namespace {

using coretest::FakeSmpFabric;
using coretest::FakeTransport;

// The tool's local port, with its LID (0: no LID, a DR-only walk).  It
// keeps every MAD it hands to the engine, in the order handed.
struct LocalPort : FakeTransport {
  uint16_t lid = 0;
  std::vector<std::array<uint8_t, 256>> delivered;
  uint16_t local_lid() const override { return lid; }
  bool recv(ibcore::RecvMad& out, int timeout_ms) override {
    if (!FakeTransport::recv(out, timeout_ms)) return false;
    delivered.push_back(out.data);
    return true;
  }
};


struct Walk {
  ibcore::Subnet db;
  ibcore::DiscoveryResult r;
  LocalPort t;
  double seconds = 0;
  unsigned overtakes = 0;  // FlowLimits::overtakes (0: no real queue reorders; these replies come in any order)
  // FlowLimits::tail_probe (0: none; these replies come on the wall clock, and a host that
  // stalls longer than the probe's wait sends a MAD again that was not lost)
  double tail_probe = ibcore::FlowLimits().tail_probe;
};

// Walk f from its local port; lid: the local port's LID (LID-routed walk).
// settings: the local port's (timeouts, retries).
void walk(FakeSmpFabric& f, Walk& w, ibcore::DiscoveryMode mode, unsigned outstanding = 8,
          const ibcore::PortSettings& settings = {}) {
  w.t.settings() = settings;
  w.t.lid = mode == ibcore::DiscoveryMode::LID ? f.nodes[f.local].lid[f.local_port] : 0;
  w.t.responder = [&f](FakeTransport& t, const coretest::Sent& s) { f.answer(t, s); };
  w.t.shuffle = true;  // replies in any order
  ibcore::Scheduler sched(w.t, outstanding);
  // Every node at the node cap from the start (FlowLimits::node_start 0):
  // the replies here come in shuffled order on the wall clock, and the
  // reply-order checks below count on as many at a node as the cap allows.
  sched.engine().limits().node_start = 0;
  sched.engine().limits().proc_start = 0;  // (nor processor levels, issue 35: they hold fewer there)
  sched.engine().limits().overtakes = w.overtakes;
  sched.engine().limits().tail_probe = w.tail_probe;
  ibcore::DiscoveryOptions o;
  o.mode = mode;
  o.mlx_epi = false;
  auto t0 = std::chrono::steady_clock::now();
  w.r = ibcore::discover(sched, w.db, o);
  w.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The database holds exactly the nodes of f reachable by SMPs, each once,
// and every link between two of them that the walk can see (a switch port's,
// or the port of a CA it reached the CA by), from both ends.
void expect_matches(const FakeSmpFabric& f, const ibcore::Subnet& db) {
  auto reach = f.reachable();
  EXPECT_EQ(db.node_count(), reach.size());
  for (int n : reach) {
    const auto& x = f.nodes[n];
    uint32_t i = db.node_by_guid(x.guid);
    ASSERT_NE(i, ibcore::NO_INDEX) << x.desc << " not found";
    const ibcore::Node& d = db.node(i);
    EXPECT_EQ(d.is_switch(), x.sw) << x.desc;
    EXPECT_EQ(d.nports, x.nports) << x.desc;
    EXPECT_EQ(d.description(), x.desc);
    for (unsigned p = 1; p <= x.nports; ++p) {
      auto [m, mp] = x.peer[p];
      if (m < 0 || std::find(reach.begin(), reach.end(), m) == reach.end()) continue;
      // (Two CAs linked back to back are seen only from the local one.)
      if (!x.sw && !f.nodes[m].sw && n != f.local && m != f.local) continue;
      const ibcore::Port* q = db.peer(db.port(d, p));
      if (!x.sw) {
        // A CA's link is known through the port the walk reached it by.
        const ibcore::Port& own = db.port(d, p);
        if (!own.exists) continue;
        q = db.peer(own);
      }
      ASSERT_NE(q, nullptr) << x.desc << " port " << p << " has no peer";
      EXPECT_EQ(db.node_of(*q).guid, f.nodes[m].guid) << x.desc << " port " << p;
      EXPECT_EQ(q->num, mp) << x.desc << " port " << p;
    }
  }
}

// Four switches in a ring with a diagonal and two parallel links, a CA on
// each switch (the local one on S1) and a dual-port CA on S2 and S3.
FakeSmpFabric loops() {
  FakeSmpFabric f;
  int s1 = f.add_switch("S1", 8, 10), s2 = f.add_switch("S2", 8, 11), s3 = f.add_switch("S3", 8, 12),
      s4 = f.add_switch("S4", 8, 13);
  f.link(s1, 1, s2, 1);
  f.link(s2, 2, s3, 2);
  f.link(s3, 3, s4, 3);
  f.link(s4, 4, s1, 4);
  f.link(s1, 5, s3, 5);  // diagonal
  f.link(s1, 6, s2, 6);  // parallel to S1-S2
  f.link(s1, 7, s2, 7);  // and another
  int h1 = f.add_ca("H1 local", {1}), h2 = f.add_ca("H2", {2}), h3 = f.add_ca("H3", {3}), h4 = f.add_ca("H4", {4});
  int d = f.add_ca("D dual", {5, 6});
  f.link(h1, 1, s1, 8);
  f.link(h2, 1, s2, 8);
  f.link(h3, 1, s3, 8);
  f.link(h4, 1, s4, 8);
  f.link(d, 1, s2, 3);
  f.link(d, 2, s3, 4);
  f.local = h1;
  f.local_port = 1;
  return f;
}

unsigned nodeinfo_sent(const Walk& w) {
  unsigned n = 0;
  for (const auto& s : w.t.sent) n += s.mad[16] == 0 && s.mad[17] == 0x11;
  return n;
}

// Replies in any order (which no real queue gives) with losses judged by
// order: the first send taken as lost whose reply then comes says the
// fabric reorders, and losses are for the timeouts alone to say from then
// on: only the sends taken as lost before that reply are sent again, and
// the walk finds what it finds in order.
TEST(DiscoveryWalk, ReorderingFabricIsJudgedByTimeoutsAlone) {
  for (int seed = 0; seed < 4; ++seed) {
    FakeSmpFabric f = loops();
    Walk w;
    w.overtakes = 2;
    w.tail_probe = 0;  // (resends by order only: a MAD alone in flight on a loaded host is probed)
    w.t.rng.seed(unsigned(seed));
    walk(f, w, ibcore::DiscoveryMode::DR, 8);
    EXPECT_TRUE(w.r.errors.empty()) << w.r.errors.front();
    expect_matches(f, w.db);
    EXPECT_EQ(w.r.resent, w.r.flow.overtaken);  // (nothing is lost here)
    EXPECT_LE(w.r.resent, 3u);
  }
}

TEST(DiscoveryWalk, LoopsAndParallelLinksFoundOnce) {
  for (unsigned outstanding : {1u, 8u}) {
    FakeSmpFabric f = loops();
    Walk w;
    walk(f, w, ibcore::DiscoveryMode::DR, outstanding);
    EXPECT_TRUE(w.r.errors.empty()) << w.r.errors.front();
    expect_matches(f, w.db);
    EXPECT_EQ(f.through_ca, 0u);
    // Nothing is lost here: a MAD is sent again only when this process
    // stalled past one of its timers (a loaded runner under the
    // sanitizers: CI once saw 1), never without one.
    EXPECT_LE(w.r.resent, w.r.flow.timeouts + w.r.flow.tail_probes + w.r.flow.overtaken + w.r.flow.busy);
    // One MAD at a time, NodeInfo is asked of the local node and once
    // through each of the 13 links (from the end found first): a link
    // already known from its other end is not probed again, so no loop is
    // walked twice.  With many in flight both ends of a link can be probed
    // before either answer is in, but never more than twice.
    // (A send again after a stall is not a question asked again.)
    const unsigned asked = nodeinfo_sent(w) - unsigned(w.r.resent);
    if (outstanding == 1) {
      EXPECT_GE(nodeinfo_sent(w), 1u + 13u);
      EXPECT_LE(asked, 1u + 13u);
    } else {
      EXPECT_LE(asked, 1u + 2 * 13u);
    }
  }
}

// The database keeps the images as received: each node's NodeInfo is the
// first NodeInfo reply the walker took from that node and each PortInfo
// the reply for that port, byte for byte, after the walk and the replay of
// the reference's order.  What the reference would have recorded instead
// (another entry port, so another LocalPortNum) is in the view only.
TEST(DiscoveryWalk, ImagesAreTheRepliesAndTheReplayLeavesThem) {
  FakeSmpFabric f = loops();
  Walk w;
  walk(f, w, ibcore::DiscoveryMode::DR, 8);
  ASSERT_TRUE(w.r.errors.empty()) << w.r.errors.front();
  const ibcore::Subnet& db = w.db;
  ASSERT_EQ(db.reference().rank.size(), db.node_count()) << "the walk attached the replay's view";
  using Image = std::array<uint8_t, 64>;
  std::map<uint32_t, Image> first_ni;                   // node -> first NodeInfo reply
  std::map<uint32_t, std::vector<Image>> port_replies;  // port slot -> PortInfo replies
  for (const auto& m : w.t.delivered) {
    if (m[1] != 0x81 || (m[3] & 0x80) == 0 || (m[4] & 0x7f) || m[5]) continue;  // DR GetResp, status 0
    std::vector<uint8_t> hops(m.begin() + 129, m.begin() + 129 + m[7]);
    uint32_t slot = db.port_by_dr(hops);
    ASSERT_NE(slot, ibcore::NO_INDEX);
    uint32_t n = db.port(slot).node;
    Image data;
    std::copy(m.begin() + 64, m.begin() + 128, data.begin());
    unsigned attr = unsigned(m[16]) << 8 | m[17], mod = m[23];
    if (attr == 0x0011) first_ni.emplace(n, data);
    if (attr == 0x0015) {
      unsigned port = db.node(n).is_switch() || mod ? mod : db.port(slot).num;
      port_replies[db.port_index(n, port)].push_back(data);
    }
  }
  unsigned ports_checked = 0, ports_differing = 0, nodes_differing = 0;
  for (uint32_t n = 0; n < db.node_count(); ++n) {
    const ibcore::Node& x = db.node(n);
    ASSERT_TRUE(first_ni.count(n)) << x.description();
    EXPECT_EQ(x.info, first_ni[n]) << x.description() << ": NodeInfo is not the first reply";
    ibcore::Raw64 ref = db.ref_node_info(x);
    EXPECT_EQ(iba::SMPNodeInfo::localPortNum_at(ref.data()), db.reference().entry[n]);
    nodes_differing += ref != x.info;
    for (unsigned k = 0; k <= x.nports; ++k) {
      const ibcore::Port& p = db.port(x, k);
      if (!p.has_info) continue;
      const auto& got = port_replies[x.port0 + k];
      ASSERT_FALSE(got.empty()) << x.description() << " port " << k;
      EXPECT_NE(std::find(got.begin(), got.end(), p.info), got.end())
          << x.description() << " port " << k << ": PortInfo is not a reply";
      ++ports_checked;
      ports_differing += db.ref_port_info(p) != p.info;
    }
  }
  EXPECT_GT(ports_checked, 30u);
  // The fabric makes the reference's view differ from what the walker got
  // (so the images would show it, had the replay written it there).
  EXPECT_GT(ports_differing + nodes_differing, 0u);
  std::printf("%u PortInfo and %u NodeInfo images differ from the reference's view\n", ports_differing,
              nodes_differing);
}

TEST(DiscoveryWalk, LostMadsGiveTheSameFabric) {
  ibcore::PortSettings c;
  c.timeout_ms = 10;
  c.retries = 12;
  for (double loss : {0.3, 0.5}) {
    FakeSmpFabric f = loops();
    f.loss = loss;
    Walk w;
    walk(f, w, ibcore::DiscoveryMode::DR, 16, c);
    EXPECT_TRUE(w.r.errors.empty()) << "loss " << loss << ": " << w.r.errors.front();
    expect_matches(f, w.db);
    EXPECT_GT(f.lost, 0u);
    EXPECT_GE(w.r.resent, f.lost) << "every lost MAD was sent again";
    EXPECT_EQ(w.r.mads, w.r.queries + w.r.resent);
    std::printf("loss %.0f%%: %u lost, %llu resent, %.2f s\n", loss * 100, f.lost,
                (unsigned long long)w.r.resent, w.seconds);
  }
}

TEST(DiscoveryWalk, LidRoutedWalkWithLmcRanges) {
  FakeSmpFabric f;
  int s1 = f.add_switch("S1", 4, 8, 2), s2 = f.add_switch("S2", 4, 12, 2);
  int h1 = f.add_ca("H1 local", {16}, 2), h2 = f.add_ca("H2", {20}, 2), h3 = f.add_ca("H3", {24}, 2);
  f.link(s1, 1, s2, 1);
  f.link(h1, 1, s1, 2);
  f.link(h2, 1, s2, 2);
  f.link(h3, 1, s2, 3);
  f.local = h1;
  Walk w;
  walk(f, w, ibcore::DiscoveryMode::LID);
  EXPECT_TRUE(w.r.errors.empty()) << w.r.errors.front();
  expect_matches(f, w.db);
  EXPECT_EQ(w.r.mode_used, ibcore::DiscoveryMode::LID);
  unsigned lid_routed = 0;
  for (const auto& s : w.t.sent) lid_routed += s.mad[1] == 0x01;
  EXPECT_GT(lid_routed, 0u) << "a LID walk asks known nodes by LID";
  for (int n : {h2, h3, s2}) {
    const auto& x = f.nodes[n];
    const ibcore::Node& d = w.db.node(w.db.node_by_guid(x.guid));
    const ibcore::Port& p = w.db.port(d, x.sw ? 0 : 1);
    EXPECT_EQ(p.lmc, 2) << x.desc;
    EXPECT_EQ(w.db.lid_of(p), x.lid[x.sw ? 0 : 1]) << x.desc;
    // Every LID of the range names the port.
    for (unsigned k = 0; k < 4; ++k)
      EXPECT_EQ(w.db.port_by_lid(uint16_t(x.lid[x.sw ? 0 : 1] + k)), w.db.port_index(w.db.node_by_guid(x.guid), x.sw ? 0 : 1))
          << x.desc << " lid +" << k;
  }
}

TEST(DiscoveryWalk, NoRouteGoesOnThroughACa) {
  // S1 - D(port 1) ; D(port 2) - S2 - H3: S2 and H3 are reachable only
  // through the dual-port CA, which does not forward directed routes.
  FakeSmpFabric f;
  int s1 = f.add_switch("S1", 4, 10), s2 = f.add_switch("S2", 4, 11);
  int h1 = f.add_ca("H1 local", {1}), d = f.add_ca("D dual", {2, 3}), h3 = f.add_ca("H3", {4});
  f.link(h1, 1, s1, 1);
  f.link(d, 1, s1, 2);
  f.link(d, 2, s2, 1);
  f.link(h3, 1, s2, 2);
  f.local = h1;
  for (auto mode : {ibcore::DiscoveryMode::DR, ibcore::DiscoveryMode::LID}) {
    f.through_ca = 0;
    Walk w;
    walk(f, w, mode);
    expect_matches(f, w.db);
    EXPECT_EQ(f.through_ca, 0u) << "an SMP was routed on through a CA";
    EXPECT_EQ(w.db.node_by_guid(f.nodes[s2].guid), ibcore::NO_INDEX);
    EXPECT_EQ(w.db.node_by_guid(f.nodes[h3].guid), ibcore::NO_INDEX);
  }
}

TEST(DiscoveryWalk, NodeAnsweringNodeInfoButNotPortInfo) {
  ibcore::PortSettings c;
  c.timeout_ms = 10;
  c.retries = 1;
  FakeSmpFabric f = loops();
  int s3 = 2;
  f.nodes[s3].answers_portinfo = false;
  Walk w;
  walk(f, w, ibcore::DiscoveryMode::DR, 8, c);
  // A partial result with the failures named, never a hang: S3 itself is
  // known (its NodeInfo answered), and what lies only behind it (H3) is not.
  EXPECT_FALSE(w.r.errors.empty());
  EXPECT_NE(w.db.node_by_guid(f.nodes[s3].guid), ibcore::NO_INDEX);
  EXPECT_EQ(w.db.node_by_guid(f.nodes[6].guid), ibcore::NO_INDEX) << "H3 hangs off S3 only";
  EXPECT_NE(w.db.node_by_guid(f.nodes[3].guid), ibcore::NO_INDEX) << "S4 is reachable through S1";
  EXPECT_LT(w.seconds, 10.0);
  bool named = false;
  for (const auto& e : w.r.errors) named |= e.find("PortInfo") != std::string::npos;
  EXPECT_TRUE(named) << w.r.errors.front();
}

// The node a directed-route SMP reaches in f (-1: none): its initial path
// followed from the local port, as FakeSmpFabric::answer does.
int reached(const FakeSmpFabric& f, const std::array<uint8_t, 256>& m) {
  int cur = f.local;
  for (unsigned i = 1; i <= m[7]; ++i) {
    int next = f.nodes[size_t(cur)].peer[m[128 + i]].first;
    if (next < 0) return -1;
    cur = next;
  }
  return cur;
}

// A node whose own route fails is asked by another route through a
// neighbour, and that route becomes the node's only once it has answered:
// a route that failed too is not kept (its descendants would be asked by
// it next).
TEST(DiscoveryWalk, AnotherRouteIsKeptOnlyWhenItAnswered) {
  ibcore::PortSettings c;
  c.timeout_ms = 10;
  c.retries = 1;
  FakeSmpFabric f = loops();
  int s3 = 2;
  f.nodes[s3].answers_portinfo = false;  // every route to it fails for PortInfo
  Walk w;
  walk(f, w, ibcore::DiscoveryMode::DR, 8, c);
  std::vector<std::vector<uint8_t>> tried;  // the routes of S3's PortInfo queries, in order
  for (const auto& s : w.t.sent)
    if (s.mad[1] == 0x81 && s.mad[16] == 0 && s.mad[17] == 0x15 && reached(f, s.mad) == s3)
      tried.emplace_back(s.mad.begin() + 129, s.mad.begin() + 129 + s.mad[7]);
  ASSERT_FALSE(tried.empty());
  ASSERT_NE(std::find_if(tried.begin(), tried.end(), [&](const auto& r) { return r != tried.front(); }),
            tried.end())
      << "no other route was tried";
  uint32_t n = w.db.node_by_guid(f.nodes[s3].guid);
  ASSERT_NE(n, ibcore::NO_INDEX);
  EXPECT_EQ(w.db.node(n).dr, tried.front()) << "S3's route is not the one the walk found it by";
}

}  // namespace

namespace {

// SMPs of a walk with DrSLID set (hybrid routes), and of those the ones to
// the switch whose LID is lid.
unsigned hybrid_sent(const Walk& w, uint16_t lid = 0) {
  unsigned n = 0;
  for (const auto& s : w.t.sent)
    n += s.mad[1] == 0x81 && (s.mad[32] != 0xff || s.mad[33] != 0xff) && (!lid || s.path.DLID == lid);
  return n;
}

}  // namespace

// Issue 38: in a LID walk, probes and the queries before a node's LID is
// known go LID-routed to the switch their last hop leaves, with a one-hop
// directed tail; the fabric found is the one plain directed routes find.
TEST(DiscoveryWalk, HybridRoutesFindTheSameFabric) {
  FakeSmpFabric f = loops();
  Walk w;
  walk(f, w, ibcore::DiscoveryMode::LID);
  EXPECT_TRUE(w.r.errors.empty()) << w.r.errors.front();
  expect_matches(f, w.db);
  EXPECT_GE(f.hybrid, 6u);  // (not through S1, behind the local port: no gain there)
  EXPECT_EQ(f.hybrid_dropped, 0u);
  EXPECT_NE(w.r.routes.find("one-hop directed tail"), std::string::npos) << w.r.routes;
  // Every SMP with DrSLID set has one directed hop, from a switch by its LID.
  for (const auto& s : w.t.sent)
    if (s.mad[1] == 0x81 && s.mad[32] != 0xff) {
      EXPECT_EQ(s.mad[7], 1u);
      EXPECT_NE(s.path.DLID, 0u);
    }
  FakeSmpFabric g = loops();
  Walk plain;
  walk(g, plain, ibcore::DiscoveryMode::DR);
  EXPECT_EQ(g.hybrid + hybrid_sent(plain), 0u);
  EXPECT_NE(plain.r.routes.find("--discovery DR"), std::string::npos) << plain.r.routes;
  EXPECT_EQ(plain.db.node_count(), w.db.node_count());
}

// Where nothing routes them (the test bed's ibsim), the trials of the
// hybrid form (3, each asking again what the walk knows) get no answer and
// the walk uses directed routes only: the same fabric, no failure
// reported.  This walk ends before the trials' 100 ms: they are abandoned
// then, not waited for, and their loss is not taken for a full queue.
TEST(DiscoveryWalk, HybridRoutesFallBackWhereNothingRoutesThem) {
  FakeSmpFabric f = loops();
  f.drops_hybrid = true;
  Walk w;
  walk(f, w, ibcore::DiscoveryMode::LID);
  EXPECT_TRUE(w.r.errors.empty()) << w.r.errors.front();
  expect_matches(f, w.db);
  EXPECT_EQ(f.hybrid, 0u);
  EXPECT_EQ(f.hybrid_dropped, 3u);  // the trials, each sent once
  EXPECT_EQ(hybrid_sent(w), 3u);
  EXPECT_NE(w.r.routes.find("directed routes (hybrid routes: no trial answered before the walk ended)"),
            std::string::npos)
      << w.r.routes;
  EXPECT_LT(w.seconds, 0.1);  // (not the trials' timeout)
  EXPECT_EQ(w.r.flow.trial_timeouts, 0u);
  EXPECT_EQ(w.r.flow.timeouts, 0u);
  EXPECT_EQ(w.r.flow.scale_lo, 1.0);
  EXPECT_EQ(w.r.flow.window_lo, 8u);
  // Each trial asked a node the walk had found already, through the port
  // its switch was entered by: three MADs more than the queries, and no
  // query asked again.
  EXPECT_EQ(w.r.resent, 0u);
  EXPECT_EQ(w.r.mads, w.r.queries + 3);
}

// A switch that does not route them: the hybrid routes through it time
// out and its own ports are probed by directed route from then on; the
// rest of the fabric keeps the hybrid routes.
TEST(DiscoveryWalk, HybridRoutesFallBackPerSwitch) {
  FakeSmpFabric f = loops();
  const int s2 = 1;
  ASSERT_EQ(f.nodes[s2].desc, "S2");
  f.no_tail = {s2};
  ibcore::PortSettings ps;
  ps.timeout_ms = 30;
  ps.retries = 1;
  Walk w;
  walk(f, w, ibcore::DiscoveryMode::LID, 8, ps);
  EXPECT_TRUE(w.r.errors.empty()) << w.r.errors.front();
  expect_matches(f, w.db);
  EXPECT_GE(f.hybrid_dropped, 1u);
  const uint16_t s2_lid = f.nodes[s2].lid[0];
  // Only the ones sent before the first came back timed out (at most the
  // window's 8, each sent twice).
  EXPECT_EQ(hybrid_sent(w, s2_lid), f.hybrid_dropped);
  EXPECT_LE(f.hybrid_dropped, 16u);
  EXPECT_GT(f.hybrid, 0u);  // the other switches' answered
  EXPECT_NE(w.r.routes.find("directed routes through 1 switches where they timed out"), std::string::npos)
      << w.r.routes;
}
