// core/health's baseline: ibnetdiscover topology text parsed into links,
// and the links of a baseline checked against a subnet database.
#include <gtest/gtest.h>

#include <string>

#include "core/health/health.h"
#include "test/unit/subnet_test_fabric.h"

namespace H = ibcore::health;

namespace {

// ibnetdiscover's topology for the TestFabric (links seen from both ends,
// port GUIDs after CA ports, comments), plus two links the database lacks:
// Switch1 port 4 to a host that is gone, Switch1 port 6 to Switch2 port 6.
const char* const kTopo =
    "#\n# Topology file: generated on Sun Nov 22 06:57:00 2026\n#\n"
    "# Initiated from node 0000000000200000 port 0000000000200000\n\n"
    "vendid=0x0\ndevid=0x0\nsysimgguid=0x200000\nswitchguid=0x200000(200000)\n"
    "Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0 lid 1 lmc 0\n"
    "[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"Hca1\" lid 2 4xSDR\n"
    "[2]\t\"H-0000000000100000\"[2](100002) \t\t# \"Hca1\" lid 4 4xSDR\n"
    "[3]\t\"S-0000000000200001\"[3]\t\t# \"Switch2\" lid 3 4xSDR\n"
    "[4]\t\"H-0000000000100009\"[1](10000a) \t\t# \"Gone host\" lid 9 4xSDR\n"
    "[5]\t\"S-0000000000200001\"[5]\t\t# \"Switch2\" lid 3 4xSDR\n"
    "[6]\t\"S-0000000000200001\"[6]\t\t# \"Switch2\" lid 3 4xSDR\n\n"
    "vendid=0x0\ndevid=0x0\nsysimgguid=0x200001\nswitchguid=0x200001(200001)\n"
    "Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 lid 3 lmc 0\n"
    "[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 5 4xSDR\n"
    "[2]\t\"H-0000000000100003\"[2](100005) \t\t# \"Hca2\" lid 6 4xSDR\n"
    "[3]\t\"S-0000000000200000\"[3]\t\t# \"Switch1\" lid 1 4xSDR\n"
    "[5]\t\"S-0000000000200000\"[5]\t\t# \"Switch1\" lid 1 4xSDR\n"
    "[6]\t\"S-0000000000200000\"[6]\t\t# \"Switch1\" lid 1 4xSDR\n\n"
    "vendid=0x0\ndevid=0x0\nsysimgguid=0x100009\ncaguid=0x100009\n"
    "Ca\t2 \"H-0000000000100009\"\t\t# \"Gone host\"\n"
    "[1](10000a) \t\"S-0000000000200000\"[4]\t\t# lid 9 lmc 0 \"Switch1\" lid 1 4xSDR\n\n"
    "vendid=0x0\ndevid=0x0\nsysimgguid=0x100000\ncaguid=0x100000\n"
    "Ca\t2 \"H-0000000000100000\"\t\t# \"Hca1\"\n"
    "[1](100001) \t\"S-0000000000200000\"[1]\t\t# lid 2 lmc 0 \"Switch1\" lid 1 4xSDR\n"
    "[2](100002) \t\"S-0000000000200000\"[2]\t\t# lid 4 lmc 0 \"Switch1\" lid 1 4xSDR\n\n"
    "vendid=0x0\ndevid=0x0\nsysimgguid=0x100003\ncaguid=0x100003\n"
    "Ca\t2 \"H-0000000000100003\"\t\t# \"Hca2\"\n"
    "[1](100004) \t\"S-0000000000200001\"[1]\t\t# lid 5 lmc 0 \"Switch2\" lid 3 4xSDR\n"
    "[2](100005) \t\"S-0000000000200001\"[2]\t\t# lid 6 lmc 0 \"Switch2\" lid 3 4xSDR\n";

std::string name(uint64_t, const std::string& d) { return d; }

}  // namespace

TEST(HealthBaseline, TopologyTextGivesEachLinkOnce) {
  auto links = H::parse_topology(kTopo);
  ASSERT_EQ(links.size(), 8u);
  // Sorted by (GUID, port) of the lower end; descriptions from the headers.
  EXPECT_EQ(links[0].guid[0], 0x100000u);
  EXPECT_EQ(links[0].port[0], 1u);
  EXPECT_EQ(links[0].guid[1], 0x200000u);
  EXPECT_EQ(links[0].port[1], 1u);
  EXPECT_EQ(links[0].desc[0], "Hca1");
  EXPECT_EQ(links[0].desc[1], "Switch1");
  bool gone = false;
  for (auto& l : links)
    if (l.guid[0] == 0x100009) {
      gone = true;
      EXPECT_EQ(l.desc[0], "Gone host");
      EXPECT_EQ(l.port[1], 4u);
    }
  EXPECT_TRUE(gone);
  EXPECT_TRUE(H::parse_topology("hello\nworld\n").empty());
  EXPECT_TRUE(H::parse_topology("").empty());
  // Malformed lines are skipped, never a crash.
  EXPECT_TRUE(H::parse_topology("Switch 8 \"S-zz\"\n[1] \"H-00\n[x] \"H-1\"[1]\n[2]\n").empty());
}

TEST(HealthBaseline, TheDatabaseAgainstItsOwnLinksIsClean) {
  auto f = TestFabric::two_switches();
  auto own = H::links_of(f.db);
  EXPECT_EQ(own.size(), 6u);
  EXPECT_TRUE(H::check_links(f.db, own, name).empty());
}

TEST(HealthBaseline, MissingLinksAreNamedByBothEnds) {
  auto f = TestFabric::two_switches();
  auto found = H::check_links(f.db, H::parse_topology(kTopo), name);
  ASSERT_EQ(found.size(), 2u);
  std::string a = H::describe(f.db, found[0], "Switch1");
  std::string b = H::describe(f.db, found[1], "Switch1");
  EXPECT_EQ(a,
            "\"Switch1\" (0x0000000000200000) port 4 lid 1: link to \"Gone host\" (0x0000000000100009) port 1 (in the "
            "baseline) is down: this port is Down/Polling; \"Gone host\" (0x0000000000100009) is not in the subnet");
  EXPECT_EQ(b,
            "\"Switch1\" (0x0000000000200000) port 6 lid 1: link to \"Switch2\" (0x0000000000200001) port 6 (in the "
            "baseline) is down: this port is Down/Polling; \"Switch2\" (0x0000000000200001) port 6 is Down/Polling");
}

TEST(HealthBaseline, ANodeWithNoLiveEndIsReportedOnce) {
  auto f = TestFabric::two_switches();
  H::ExpectedLink l;
  l.guid[0] = 0x300000, l.port[0] = 1, l.desc[0] = "far switch";
  l.guid[1] = 0x300001, l.port[1] = 2, l.desc[1] = "far host";
  auto found = H::check_links(f.db, {l, l}, name);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].what, "node \"far switch\" (0x0000000000300000) of the baseline is not in the subnet");
  EXPECT_EQ(found[1].what, "node \"far host\" (0x0000000000300001) of the baseline is not in the subnet");
}
