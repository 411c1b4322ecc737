// A fabric of subnet management agents in memory, for driving the SMP walker
// (core/fabric/discovery) through coretest::FakeTransport without ibsim.
//
// Nodes are switches and CAs joined by links.  answer() plays the SMAs: a
// directed-route SMP is followed hop by hop from the local port along its
// initial path (byte 7 hop count, bytes 128.. the path), and is dropped, as
// on a real fabric, where a hop leaves by a port that has no link or does
// not exist, or where an intermediate hop is not a switch (only switches
// forward directed routes); a LID-routed SMP reaches the node owning the
// destination LID (any LID of a port's LMC range).  The node reached answers
// NodeInfo, NodeDescription, SwitchInfo and PortInfo from its own data, with
// LocalPortNum the port the SMP entered by.  A directed-route SMP with
// DrSLID set (IBA 14.2.2) goes LID-routed to the node its DLID names and
// directed from there, unless drops_hybrid (the test bed's simulator drops
// them all) or the directed part would start at a switch in no_tail.  MADs can be lost at random
// (loss), and a node can be made deaf to PortInfo (a node that answers
// NodeInfo but not PortInfo).
//
// M_Key protection (IBA 14.2.4), per node (its ports share one key): with
// a non-zero mkey, an SMP whose M_Key differs is checked against the
// protection level (PortInfo M_KeyProtectBits) at the node it reaches
// (directed routes pass intermediate switches unchecked): a Set is dropped
// at every level, a Get at levels 2 and 3; a Get at level 1 is answered
// with PortInfo's M_Key field zero (level 0 shows it).  Dropped means no
// reply at all (the requester times out); the node's MKeyViolations
// counts them.  SubnSet(PortInfo) is answered, and sets the node's M_Key,
// protection level and lease period from the payload.
#pragma once

#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "iba/smp.h"
#include "test/unit/core_fake_transport.h"

namespace coretest {

class FakeSmpFabric {
public:
  struct Node {
    bool sw = false;
    uint64_t guid = 0;
    unsigned nports = 0;
    std::string desc;
    std::vector<uint16_t> lid;                       // per port (switch: [0] only)
    uint8_t lmc = 0;
    std::vector<std::pair<int, unsigned>> peer;     // per port: (node, port), node -1 = no link
    bool answers_portinfo = true;
    uint64_t mkey = 0;        // 0: not protected
    uint8_t mkey_protect = 0; // PortInfo M_KeyProtectBits, 0-3
    uint16_t mkey_lease = 0;
    uint16_t mkey_violations = 0;
  };

  std::vector<Node> nodes;
  int local = 0;            // the node the tool runs on
  unsigned local_port = 1;  // its port
  double loss = 0;          // probability that a MAD (request) is lost
  std::mt19937 rng{1234};
  bool drops_hybrid = false;   // drop every SMP with DrSLID set (as ibsim does)
  std::vector<int> no_tail;    // switches that drop those whose directed part starts at them
  unsigned hybrid = 0, hybrid_dropped = 0;  // SMPs with DrSLID set answered / dropped
  // What happened: SMPs answered, lost, and dropped because their route
  // went on through a CA (a walker bug) or through a port without a link.
  unsigned answered = 0, lost = 0, through_ca = 0, no_link = 0, mkey_dropped = 0;

  int add_switch(std::string desc, unsigned nports, uint16_t lid, uint8_t lmc = 0) {
    Node n;
    n.sw = true;
    n.guid = 0x0002c90000000000ull + 0x100 * (nodes.size() + 1);
    n.nports = nports;
    n.desc = std::move(desc);
    n.lid.assign(nports + 1, 0);
    n.lid[0] = lid;
    n.lmc = lmc;
    n.peer.assign(nports + 1, {-1, 0});
    nodes.push_back(n);
    return int(nodes.size() - 1);
  }
  // A CA; lids: one per port (ports 1..N).
  int add_ca(std::string desc, std::vector<uint16_t> lids, uint8_t lmc = 0) {
    Node n;
    n.guid = 0x0008f10000000000ull + 0x100 * (nodes.size() + 1);
    n.nports = unsigned(lids.size());
    n.desc = std::move(desc);
    n.lid.assign(1, 0);
    n.lid.insert(n.lid.end(), lids.begin(), lids.end());
    n.lmc = lmc;
    n.peer.assign(n.nports + 1, {-1, 0});
    nodes.push_back(n);
    return int(nodes.size() - 1);
  }
  void link(int a, unsigned pa, int b, unsigned pb) {
    nodes[a].peer[pa] = {b, pb};
    nodes[b].peer[pb] = {a, pa};
  }
  void unlink(int a, unsigned pa) {
    auto [b, pb] = nodes[a].peer[pa];
    nodes[a].peer[pa] = {-1, 0};
    if (b >= 0) nodes[b].peer[pb] = {-1, 0};
  }
  uint64_t port_guid(int n, unsigned port) const { return nodes[n].sw ? nodes[n].guid : nodes[n].guid + port; }

  // The nodes reachable from the local one the way SMPs travel (through
  // switches only), the local node included.
  std::vector<int> reachable() const {
    std::vector<int> seen{local}, todo{local};
    while (!todo.empty()) {
      int n = todo.back();
      todo.pop_back();
      if (n != local && !nodes[n].sw) continue;
      for (unsigned p = 1; p <= nodes[n].nports; ++p) {
        if (n == local && !nodes[n].sw && p != local_port) continue;
        int m = nodes[n].peer[p].first;
        if (m < 0 || std::find(seen.begin(), seen.end(), m) != seen.end()) continue;
        seen.push_back(m);
        todo.push_back(m);
      }
    }
    return seen;
  }

  // The transport's responder: FakeTransport::responder = [&](auto& t, auto& s) { f.answer(t, s); }
  void answer(FakeTransport& t, const Sent& s) {
    const uint8_t* m = s.mad.data();
    if (m[3] != 0x01 && m[3] != 0x02) return;  // only Get and Set
    if (loss > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < loss) {
      ++lost;
      return;
    }
    int cur = local;
    unsigned in = local_port;
    if (m[1] == 0x81) {
      unsigned hops = m[7];
      if (be16(m + 32) != 0xffff) {
        // The first part LID-routed, to where the directed part begins.
        if (!owner(s.path.DLID, cur, in)) return;
        if (drops_hybrid || std::find(no_tail.begin(), no_tail.end(), cur) != no_tail.end()) {
          ++hybrid_dropped;
          return;
        }
        ++hybrid;
      }
      for (unsigned i = 1; i <= hops; ++i) {
        unsigned p = m[128 + i];
        if (i > 1 && !nodes[cur].sw) {
          ++through_ca;
          return;
        }
        if (p == 0 || p > nodes[cur].nports || (!nodes[cur].sw && p != in) || nodes[cur].peer[p].first < 0) {
          ++no_link;
          return;
        }
        auto [nn, np] = nodes[cur].peer[p];
        cur = nn;
        in = np;
      }
      if (hops == 0 && nodes[cur].sw) in = 0;
    } else if (m[1] == 0x01) {
      if (!owner(s.path.DLID, cur, in)) return;
    } else {
      return;
    }
    // M_Key check at the node reached.
    Node& x = nodes[size_t(cur)];
    bool hide_key = false;
    if (x.mkey && be64(m + 24) != x.mkey) {
      if (m[3] == 0x02 || x.mkey_protect >= 2) {
        ++mkey_dropped;
        if (x.mkey_violations < 0xffff) ++x.mkey_violations;
        return;
      }
      hide_key = x.mkey_protect == 1;
    }
    if (m[3] == 0x02) {
      if (be16(m + 16) != 0x0015) {
        t.reply(s, 0x0c);  // only PortInfo can be set here
        return;
      }
      iba::SMPPortInfo pi;
      pi.load(std::span<const uint8_t>(m + 64, iba::SMPPortInfo::SIZE));
      x.mkey = pi.MKey();
      x.mkey_protect = uint8_t(pi.MKeyProtectBits());
      x.mkey_lease = uint16_t(pi.MKeyLeasePeriod());
    }
    reply(t, s, cur, in, hide_key);
  }

private:
  bool owner(uint16_t lid, int& node, unsigned& port) const {
    for (size_t n = 0; n < nodes.size(); ++n) {
      const Node& x = nodes[n];
      for (unsigned p = x.sw ? 0 : 1; p < x.lid.size(); ++p) {
        uint16_t base = x.lid[p];
        if (base && lid >= base && lid < base + (1u << x.lmc)) {
          node = int(n);
          port = p;
          return true;
        }
      }
    }
    return false;
  }

  // The port switch sw forwards lid to: the first hop of a shortest path
  // (through switches) to the node owning lid; 0 for its own; 0xff none.
  uint8_t route(int sw, uint16_t lid) const {
    int dest;
    unsigned dport;
    if (!owner(lid, dest, dport)) return 0xff;
    if (dest == sw) return 0;
    std::vector<int> first(nodes.size(), -1);
    std::vector<int> todo{sw};
    std::vector<bool> seen(nodes.size(), false);
    seen[size_t(sw)] = true;
    for (size_t k = 0; k < todo.size(); ++k) {
      int n = todo[k];
      if (n != sw && !nodes[size_t(n)].sw) continue;
      for (unsigned p = 1; p <= nodes[size_t(n)].nports; ++p) {
        int m = nodes[size_t(n)].peer[p].first;
        if (m < 0 || seen[size_t(m)]) continue;
        seen[size_t(m)] = true;
        first[size_t(m)] = n == sw ? int(p) : first[size_t(n)];
        if (m == dest) return uint8_t(first[size_t(m)]);
        todo.push_back(m);
      }
    }
    return 0xff;
  }

  static uint16_t be16(const uint8_t* p) { return uint16_t(p[0] << 8 | p[1]); }
  static uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }
  static uint64_t be64(const uint8_t* p) { return uint64_t(be32(p)) << 32 | be32(p + 4); }

  void reply(FakeTransport& t, const Sent& s, int n, unsigned in, bool hide_key = false) {
    const Node& x = nodes[n];
    uint16_t attr = be16(s.mad.data() + 16);
    uint32_t mod = be32(s.mad.data() + 20);
    std::array<uint8_t, 64> data{};
    if (attr == 0x0011) {
      iba::SMPNodeInfo ni;
      ni.set_baseVersion(1).set_classVersion(1).set_nodeType(x.sw ? 2 : 1).set_numPorts(x.nports);
      ni.set_systemImageGUID(x.guid).set_nodeGUID(x.guid).set_portGUID(port_guid(n, in));
      ni.set_partitionCap(x.sw ? 8 : 128).set_deviceID(x.sw ? 0xc738 : 0x1017).set_revision(1);
      ni.set_localPortNum(in).set_vendorID(0x2c9);
      std::memcpy(data.data(), ni.bytes().data(), ni.bytes().size());
    } else if (attr == 0x0010) {
      std::memcpy(data.data(), x.desc.data(), std::min<size_t>(x.desc.size(), 64));
    } else if (attr == 0x0012 && x.sw) {
      uint16_t top = 0;
      for (const auto& y : nodes)
        for (uint16_t l : y.lid)
          if (l) top = std::max<uint16_t>(top, uint16_t(l + (1u << y.lmc) - 1));
      iba::SMPSwitchInfo si;
      si.set_linearFDBCap(49152).set_multicastFDBCap(4096).set_linearFDBTop(top).set_LIDsPerPort(0);
      si.set_lifeTimeValue(18).set_partitionEnforcementCap(8);
      std::memcpy(data.data(), si.bytes().data(), si.bytes().size());
    } else if (attr == 0x0019 && x.sw) {
      // LinearForwardingTable block `mod`: shortest-path routes (BFS
      // through switches), 0xff where no port leads.
      for (unsigned i = 0; i < 64; ++i) data[i] = route(n, uint16_t(mod * 64 + i));
    } else if (attr == 0x0015) {
      if (!x.answers_portinfo) return;
      unsigned port = mod & 0xff;
      if (!x.sw && port == 0) port = in;
      if (port > x.nports) {
        t.reply(s, 0x1c);  // invalid attribute modifier
        return;
      }
      bool up = port == 0 || x.peer[port].first >= 0;
      iba::SMPPortInfo pi;
      pi.set_LID(x.sw ? x.lid[0] : x.lid[port]).set_LMC(x.sw && port ? 0 : x.lmc).set_masterSMLID(1);
      pi.set_localPortNum(in).set_linkWidthEnabled(3).set_linkWidthSupported(3).set_linkWidthActive(up ? 2 : 0);
      pi.set_linkSpeedSupported(7).set_linkSpeedEnabled(7).set_linkSpeedActive(up ? 4 : 0);
      pi.set_portState(up ? 4 : 1).set_portPhysicalState(up ? 5 : 2).set_linkDownDefaultState(2);
      pi.set_neighborMTU(5).set_MTUCap(5).set_VLCap(4).set_capabilityMask(x.sw ? 0 : 0x02510868);
      pi.set_MKey(hide_key ? 0 : x.mkey).set_MKeyProtectBits(x.mkey_protect).set_MKeyLeasePeriod(x.mkey_lease);
      pi.set_MKeyViolations(x.mkey_violations);
      std::memcpy(data.data(), pi.bytes().data(), pi.bytes().size());
    } else {
      t.reply(s, 0x0c);  // unsupported attribute
      return;
    }
    ++answered;
    t.reply(s, 0, data.data(), data.size(), 64);
  }
};

}  // namespace coretest
