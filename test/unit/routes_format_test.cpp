// The forwarding table layouts of core/fabric/routes.h, on tables built by hand:
// the cases the example fabrics of the conformance rows cannot show (LMC
// path numbering around invalid entries, an end LID that starts a block,
// switches with more than 9 / 16 ports in the multicast layouts).  Expected
// texts were taken from infiniband-diags 44's ibroute on ibsim fabrics with
// the same tables.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

#include "test/unit/mem_file.h"
#include "core/fabric/routes.h"
#include "core/out/print.h"

namespace {

using namespace ibcore;

using Capture = testutil::MemFile;

TableHead sw2() { return {0x200001, "Switch2", 0, {}, "Lid 9"}; }
TableHead s36() { return {0x200000, "S36", 0, {}, "Lid 2"}; }

LidDest ca(uint64_t guid, uint16_t base, uint8_t lmc, const char* name) {
  LidDest d;
  d.known = true;
  d.type = NodeType::CA;
  d.port_guid = guid;
  d.base_lid = base;
  d.lmc = lmc;
  d.name = name;
  return d;
}

TEST(RoutesFormat, UnicastLmcPathsAndIllegalEntries) {
  // LMC 2 hosts at 4 and 12; lid 5 unrouted; lid 15 reached while the last
  // port named in full is another one (the reference names it in full).
  std::vector<uint8_t> lft(24, LFT_NO_ROUTE);
  lft[1] = 2;
  lft[4] = 3;
  lft[6] = 3;
  lft[7] = 5;
  lft[15] = 1;
  lft[16] = 2;
  lft[17] = 2;
  std::map<unsigned, LidDest> dests{{4, ca(0x100001, 4, 2, "Hca1")},
                                    {15, ca(0x100004, 12, 2, "Hca2")},
                                    {16, ca(0x100007, 16, 2, "Hca3")}};
  int asked = 0;
  Capture c;
  unsigned n;
  {
    Printer p(c.f, false, false);
    UnicastDump d(p, true, false);
    n = d.table(sw2(), lft, 0, 17, [&](unsigned lid) {
      ++asked;
      auto it = dests.find(lid);
      return it == dests.end() ? nullptr : &it->second;
    });
  }
  EXPECT_EQ(n, 18u);
  EXPECT_EQ(c.text(),
            "Unicast lids [0x0-0x11] of switch Lid 9 guid 0x0000000000200001 (Switch2):\n"
            "  Lid  Out   Destination\n"
            "       Port     Info \n"
            "0x0000 255 : (path #0 - illegal port)\n"
            "0x0001 002 : (unknown node and type)\n"
            "0x0002 255 : (illegal port)\n"
            "0x0003 255 : (illegal port)\n"
            "0x0004 003 : (Channel Adapter portguid 0x0000000000100001: 'Hca1')\n"
            "0x0005 255 : (path #1 - illegal port)\n"
            "0x0006 003 : (path #3 out of 4: portguid 0x0000000000100001)\n"
            "0x0007 005 : (path #4 out of 4: portguid 0x0000000000100001)\n"
            "0x0008 255 : (illegal port)\n"
            "0x0009 255 : (illegal port)\n"
            "0x000a 255 : (illegal port)\n"
            "0x000b 255 : (illegal port)\n"
            "0x000c 255 : (illegal port)\n"
            "0x000d 255 : (illegal port)\n"
            "0x000e 255 : (illegal port)\n"
            "0x000f 001 : (Channel Adapter portguid 0x0000000000100004: 'Hca2')\n"
            "0x0010 002 : (Channel Adapter portguid 0x0000000000100007: 'Hca3')\n"
            "0x0011 002 : (path #2 out of 4: portguid 0x0000000000100007)\n"
            "18 lids dumped \n");
  // LIDs inside the last named port's range are not looked up.
  EXPECT_EQ(asked, 4);
}

TEST(RoutesFormat, UnicastEndStartingABlockIsLeftOut) {
  std::vector<uint8_t> lft(0x42, 7);
  for (auto [start, end, rows] : {std::tuple{0x3eu, 0x40u, 2u}, {0x40u, 0x40u, 0u}, {0x3fu, 0x41u, 3u}}) {
    Capture c;
    Printer p(c.f, false, false);
    UnicastDump d(p, true, true);
    EXPECT_EQ(d.table(sw2(), lft, start, end, [](unsigned) -> const LidDest* { return nullptr; }), rows)
        << start << "-" << end;
  }
}

TEST(RoutesFormat, UnicastBriefAndValidOnly) {
  std::vector<uint8_t> lft{LFT_NO_ROUTE, 1, 0};
  Capture c;
  {
    Printer p(c.f, false, false);
    UnicastDump d(p, false, true, "node info not available fabric scan");
    d.table(sw2(), lft, 0, 2, [](unsigned) -> const LidDest* { return nullptr; });
  }
  EXPECT_EQ(c.text(),
            "Unicast lids [0x0-0x2] of switch Lid 9 guid 0x0000000000200001 (Switch2):\n"
            "  Lid  Out   Destination\n"
            "       Port     Info \n"
            "0x0001 001 \n0x0002 000 \n2 valid lids dumped \n");
}

MftRead wide_mft() {
  MftRead m;
  m.first = MLID_BASE;
  m.masks.resize(7);
  m.masks[0][0] = 0x8001;
  m.masks[0][1] = 0x0001;
  m.masks[0][2] = 0x0001;
  m.masks[1][0] = 0x0002;
  m.masks[1][1] = 0x0010;
  m.masks[6][2] = 0x0001;
  return m;
}

TEST(RoutesFormat, MulticastWideSwitch) {
  Capture c;
  {
    Printer p(c.f, false, false);
    mft_table(p, s36(), wide_mft(), 0xc000, 0xc006, 36, false, false);
  }
  EXPECT_EQ(c.text(),
            "Multicast mlids [0xc000-0xc006] of switch Lid 2 guid 0x0000000000200000 (S36):\n"
            "            0                   1                   2                   3             \n"
            "     Ports: 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 \n"
            " MLid\n"
            "0xc000      x                             x x                               x         \n"
            "0xc001        x                                     x                                 \n"
            "0xc006                                                                      x         \n"
            "3 valid mlids dumped \n");
}

TEST(RoutesFormat, MulticastBriefAndAll) {
  Capture c;
  {
    Printer p(c.f, false, false);
    mft_table(p, s36(), wide_mft(), 0xc001, 0xc002, 36, true, true);
  }
  EXPECT_EQ(c.text(),
            "Multicast mlids [0xc001-0xc002] of switch Lid 2 guid 0x0000000000200000 (S36):\n"
            " MLid       Port Mask\n"
            "0xc001      000200100000\n"
            "0xc002      000000000000\n"
            "2 mlids dumped \n");
  Capture n;
  {
    Printer p(n.f, false, false);
    mft_table(p, {0x200000, "Switch1", 0, {}, "Lid 2"}, MftRead{}, 0xc000, 0xc3ff, 8, false, false);
  }
  EXPECT_EQ(n.text(),
            "Multicast mlids [0xc000-0xc3ff] of switch Lid 2 guid 0x0000000000200000 (Switch1):\n"
            "     Ports: 0 1 2 3 4 5 6 7 8 \n"
            " MLid\n"
            "0 valid mlids dumped \n");
}

// The same descriptions' other side: the JSON objects.
TEST(RoutesFormat, UnicastJson) {
  std::vector<uint8_t> lft(8, LFT_NO_ROUTE);
  lft[4] = 3;
  lft[5] = 3;
  lft[6] = 1;
  LidDest h1 = ca(0x100001, 4, 1, "Hca1");
  auto resolve = [&](unsigned lid) -> const LidDest* { return lid == 4 || lid == 5 ? &h1 : nullptr; };
  Capture c;
  {
    Printer p(c.f, true, false);
    UnicastDump d(p, false, false);
    d.table({0x200001, "Switch2", 9, {}, "Lid 9"}, lft, 4, 6, resolve);
    p.finish();
  }
  std::string dest =
      R"({"portGUID":"0x0000000000100001","nodeType":"CA","nodeTypeRaw":1,"name":"Hca1","baseLID":4,"LMC":1})";
  std::string text = c.text();
  EXPECT_NE(text.find(R"("name":"Switch2","LID":9,"route":)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("startLID":4,"endLID":6,"lft":[{"LID":4,"port":3,"destination":)" + dest +
                      R"(},{"LID":5,"port":3,"destination":)" + dest +
                      R"(},{"LID":6,"port":1,"destination":null}]})"),
            std::string::npos)
      << text;
  // dump_fts: no destination in the entries; all: entries without a route.
  Capture b;
  {
    Printer p(b.f, true, false);
    UnicastDump d(p, true, false, "unknown", false);
    d.table({0x200001, "Switch2", 0, {}, "Lid 9"}, lft, 6, 7, resolve);
    p.finish();
  }
  EXPECT_NE(b.text().find(R"("startLID":6,"endLID":7,"lft":[{"LID":6,"port":1},{"LID":7,"port":null}]})"),
            std::string::npos)
      << b.text();
  EXPECT_EQ(b.text().find("Unicast"), std::string::npos);
}

TEST(RoutesFormat, MulticastJson) {
  Capture c;
  {
    Printer p(c.f, true, false);
    mft_table(p, s36(), wide_mft(), 0xc000, 0xc002, 36, false, true);
    p.finish();
  }
  EXPECT_NE(c.text().find(R"("startMLID":49152,"endMLID":49154,"mft":[{"MLID":49152,"ports":[0,15,16,32]},)"
                          R"({"MLID":49153,"ports":[1,20]}]})"),
            std::string::npos)
      << c.text();
}

}  // namespace
