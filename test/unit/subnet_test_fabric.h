// A small subnet database built by hand for unit tests (no simulator):
// the net.2sw2path4hca-like fabric Switch1 (start, port 0) -- Switch2 over
// ports 3 and 5, Hca1 on Switch1 ports 1/2, Hca2 on Switch2 ports 1/2.
#pragma once

#include <cstdint>
#include <string>

#include "core/fabric/subnet.h"

struct TestFabric {
  ibcore::Subnet db;

  static iba::SMPNodeInfo ni(uint8_t type, uint8_t nports, uint64_t guid, uint64_t port_guid, uint8_t local) {
    iba::SMPNodeInfo n;
    n.set_baseVersion(1).set_classVersion(1).set_nodeType(type).set_numPorts(nports);
    n.set_systemImageGUID(guid).set_nodeGUID(guid).set_portGUID(port_guid).set_localPortNum(local);
    return n;
  }
  static iba::SMPPortInfo pi(uint16_t lid, uint8_t lmc, bool up) {
    iba::SMPPortInfo p;
    p.set_LID(lid).set_LMC(lmc).set_linkWidthActive(2).set_linkSpeedActive(1).set_VLCap(4);
    p.set_portState(up ? 4 : 1).set_portPhysicalState(up ? 5 : 2);
    return p;
  }
  uint32_t add(uint8_t type, uint8_t nports, uint64_t guid, uint64_t port_guid, const char* desc) {
    auto [n, created] = db.add_node(ni(type, nports, guid, port_guid, 0).bytes());
    iba::SMPNodeDescription d;
    d.set_nodeString(desc);
    db.set_desc(n, d.bytes());
    return n;
  }
  void link(uint32_t a, unsigned pa, uint32_t b, unsigned pb) { db.link(db.port_index(a, pa), db.port_index(b, pb)); }

  // reversed: add the nodes and links in another order (same fabric).
  static TestFabric two_switches(bool reversed = false) {
    TestFabric f;
    uint32_t s1, s2, h1, h2;
    if (!reversed) {
      s1 = f.add(2, 8, 0x200000, 0x200000, "Switch1");
      s2 = f.add(2, 8, 0x200001, 0x200001, "Switch2");
      h1 = f.add(1, 2, 0x100000, 0x100001, "Hca1");
      h2 = f.add(1, 2, 0x100003, 0x100004, "Hca2");
    } else {
      h2 = f.add(1, 2, 0x100003, 0x100004, "Hca2");
      h1 = f.add(1, 2, 0x100000, 0x100001, "Hca1");
      s2 = f.add(2, 8, 0x200001, 0x200001, "Switch2");
      s1 = f.add(2, 8, 0x200000, 0x200000, "Switch1");
    }
    auto& db = f.db;
    db.set_port_info(s1, 0, pi(1, 0, true).bytes());
    db.set_port_info(s2, 0, pi(3, 0, true).bytes());
    for (unsigned p = 1; p <= 8; ++p) {
      bool up = p == 1 || p == 2 || p == 3 || p == 5;
      db.set_port_info(s1, p, pi(0, 0, up).bytes());
      db.set_port_info(s2, p, pi(0, 0, up).bytes());
    }
    db.touch_port(h1, 1, 0x100001);
    db.touch_port(h1, 2, 0x100002);
    db.touch_port(h2, 1, 0x100004);
    db.touch_port(h2, 2, 0x100005);
    db.set_port_info(h1, 1, pi(2, 0, true).bytes());
    db.set_port_info(h1, 2, pi(4, 0, true).bytes());
    db.set_port_info(h2, 1, pi(5, 0, true).bytes());
    db.set_port_info(h2, 2, pi(6, 1, true).bytes());
    if (!reversed) {
      f.link(s1, 1, h1, 1);
      f.link(s1, 2, h1, 2);
      f.link(s1, 3, s2, 3);
      f.link(s1, 5, s2, 5);
      f.link(s2, 1, h2, 1);
      f.link(s2, 2, h2, 2);
    } else {
      f.link(h2, 2, s2, 2);
      f.link(h2, 1, s2, 1);
      f.link(s2, 5, s1, 5);
      f.link(s2, 3, s1, 3);
      f.link(h1, 2, s1, 2);
      f.link(h1, 1, s1, 1);
    }
    db.from_node = s1;
    db.from_port = 0;
    db.node(s1).dr = {};
    db.node(s2).dr = {3};
    db.node(h1).dr = {1};
    db.node(h2).dr = {3, 1};
    return f;
  }
};
