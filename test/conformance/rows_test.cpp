// The rows format, the normalisations and the diff of the harness.
#include "test/conformance/rows.h"

#include <gtest/gtest.h>

namespace {

using conformance::parse_rows;

TEST(Rows, ParseOptions) {
  auto rows = parse_rows(
      "# comment\n"
      "topology: example net.1\n"
      "\n"
      "smpquery nodeinfo 1\n"
      "ibaddr -G 0x1 | ibtool: ibaddr 0000:0000:0000:0001 | legacy\n"
      "ibnetdiscover | normalize=timestamp | legacy=ibdiscover.pl | timeout=30\n"
      "topology: irregular\n"
      "ibstat | env=SIM_HOST=narrow link host | mode=sysfs\n"
      "smpquery nodedesc -D '0,1' \"a \\\"b\\\"\"\n",
      "x.rows");
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].topology, "example net.1");
  EXPECT_EQ(rows[0].reference, (std::vector<std::string>{"smpquery", "nodeinfo", "1"}));
  EXPECT_EQ(rows[0].ibtool, rows[0].reference);
  EXPECT_EQ(rows[0].line, 4);
  EXPECT_EQ(rows[1].ibtool, (std::vector<std::string>{"ibaddr", "0000:0000:0000:0001"}));
  EXPECT_EQ(rows[1].legacy, (std::vector<std::string>{"ibaddr"}));
  EXPECT_EQ(rows[2].normalize, (std::vector<std::string>{"timestamp"}));
  EXPECT_EQ(rows[2].legacy, (std::vector<std::string>{"ibdiscover.pl"}));
  EXPECT_EQ(rows[2].timeout, 30);
  EXPECT_EQ(rows[3].topology, "irregular");
  EXPECT_TRUE(rows[3].sysfs);
  ASSERT_EQ(rows[3].env.size(), 1u);
  EXPECT_EQ(rows[3].env[0].second, "narrow link host");
  EXPECT_EQ(rows[4].reference, (std::vector<std::string>{"smpquery", "nodedesc", "-D", "0,1", "a \"b\""}));
}

TEST(Rows, Errors) {
  EXPECT_THROW(parse_rows("smpquery nodeinfo 1\n", "x"), std::runtime_error);  // no topology
  EXPECT_THROW(parse_rows("topology: irregular\nibstat | frobnicate\n", "x"), std::runtime_error);
  EXPECT_THROW(parse_rows("topology: irregular\nibstat | normalize=everything\n", "x"), std::runtime_error);
  EXPECT_THROW(parse_rows("topology: irregular\nibstat 'open\n", "x"), std::runtime_error);
  try {
    parse_rows("topology: irregular\n\nibstat | bogus\n", "f.rows");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("f.rows:3"), std::string::npos) << e.what();
  }
}

TEST(Rows, GoldenRows) {
  auto rows = parse_rows(
      "topology: irregular\n"
      "smpquery pi 1 | ibtool: smpquery --compat current pi 1 | golden=d/pi_1.out\n"
      "smpquery pi 1 9 | golden=d/pi_1_9.out | status=255\n"
      "smpquery pi 2\n",
      "x.rows");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].golden, "d/pi_1.out");
  EXPECT_EQ(rows[0].golden_status, 0);
  EXPECT_EQ(rows[1].golden_status, 255);
  EXPECT_TRUE(rows[2].golden.empty());
  EXPECT_THROW(parse_rows("topology: irregular\nibstat | golden=\n", "x"), std::runtime_error);
  EXPECT_THROW(parse_rows("topology: irregular\nibstat | status=1\n", "x"), std::runtime_error);
}

TEST(Rows, ConsoleLinesGiveFabricsOfTheirOwn) {
  auto rows = parse_rows(
      "topology: example net.2sw2path4hca\n"
      "ibqueryerrors\n"
      "console: PerformanceSet \"Switch1\"[3] PortCounters.SymbolErrorCounter=5\n"
      "ibqueryerrors | legacy\n"
      "console:   Error \"Hca1\"[1] 10   \n"
      "ibqueryerrors -r\n"
      "topology: example net.2sw2path4hca\n"
      "ibqueryerrors -c\n"
      "console: Unlink \"Hca4\"[1] | with a bar\n"
      "ibqueryerrors -s X\n",
      "f.rows");
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_TRUE(rows[0].console.empty());
  EXPECT_EQ(rows[1].console, (std::vector<std::string>{"PerformanceSet \"Switch1\"[3] PortCounters.SymbolErrorCounter=5"}));
  EXPECT_EQ(rows[1].legacy, (std::vector<std::string>{"ibqueryerrors"}));  // row options still parse
  // Console lines accumulate up to the next topology line.
  EXPECT_EQ(rows[2].console, (std::vector<std::string>{"PerformanceSet \"Switch1\"[3] PortCounters.SymbolErrorCounter=5",
                                                       "Error \"Hca1\"[1] 10"}));
  EXPECT_TRUE(rows[3].console.empty());
  // A console command is taken whole (" | " is not a row option there).
  EXPECT_EQ(rows[4].console, (std::vector<std::string>{"Unlink \"Hca4\"[1] | with a bar"}));
  // Clean rows share a fabric; each fault list has one of its own.
  using conformance::fabric_key;
  EXPECT_EQ(fabric_key(rows[0]), fabric_key(rows[3]));
  EXPECT_EQ(fabric_key(rows[0]), "example net.2sw2path4hca");
  EXPECT_NE(fabric_key(rows[0]), fabric_key(rows[1]));
  EXPECT_NE(fabric_key(rows[1]), fabric_key(rows[2]));
  EXPECT_NE(fabric_key(rows[2]), fabric_key(rows[4]));
  // Errors: a console line needs a topology and a command.
  EXPECT_THROW(parse_rows("console: Unlink \"Hca4\"[1]\nibstat\n", "x"), std::runtime_error);
  EXPECT_THROW(parse_rows("topology: irregular\nconsole:   \nibstat\n", "x"), std::runtime_error);
}

TEST(Rows, ConsoleFailuresAreRecognised) {
  using conformance::console_failed;
  EXPECT_FALSE(console_failed("Switch1[3] PortCounters.SymbolErrorCounter has been set to 5\n"));
  EXPECT_FALSE(console_failed(""));  // Link, Unlink, Guid print nothing
  EXPECT_FALSE(console_failed("# Net status - Sun Nov 22 05:10:59 2026\n\nCa 2 \"Hca4\"\n#  dumped 1 nodes\n"));
  EXPECT_FALSE(console_failed("ibwarn: [20577] process_packet: lid 3 got trap repress - dropping\n"));
  EXPECT_TRUE(console_failed("command 'Bogus \"x\"' unknown - skipped\n"));
  EXPECT_TRUE(console_failed("# nodeid \"Nope\" (Nope) not found\n"));
  EXPECT_TRUE(console_failed("sim> # field Bogus cannot be found in attribute PortCounters\n"));
  EXPECT_TRUE(console_failed("bad params. Usage: route from-lid lid\n"));
}

TEST(Rows, NormalisationsTouchOnlyTheirField) {
  using conformance::normalize;
  EXPECT_EQ(normalize("timestamp", "#\n# Topology file: generated on Sat Nov 22 03:56:38 2026\n#\nSwitch 8\n"),
            "#\n# Topology file: generated on <time>\n#\nSwitch 8\n");
  EXPECT_EQ(normalize("activity", "sminfo: sm lid 1 sm guid 0x100001, activity count 1234 priority 0 state 3\n"),
            "sminfo: sm lid 1 sm guid 0x100001, activity count <n> priority 0 state 3\n");
  EXPECT_EQ(normalize("activity", "\t\tActCount..............116\n\t\tSmState...............3\n"),
            "\t\tActCount..............<n>\n\t\tSmState...............3\n");
  std::string pq =
      "PortXmitData:....................1234\n"
      "PortRcvPkts:.....................56\n"
      "PortUnicastXmitPkts:.............7\n"
      "SymbolErrorCounter:..............9\n"
      "LinkDownedCounter:...............3\n";
  EXPECT_EQ(normalize("counters", pq),
            "PortXmitData:....................<n>\n"
            "PortRcvPkts:.....................<n>\n"
            "PortUnicastXmitPkts:.............<n>\n"
            "SymbolErrorCounter:..............9\n"
            "LinkDownedCounter:...............3\n");
  // ibqueryerrors --data: the human form after the value too, error counters kept.
  EXPECT_EQ(normalize("counters",
                      "   GUID 0x10000a port 1: [VL15Dropped == 3] [PortXmitData == 1008 (3.938KB)] "
                      "[PortRcvPkts == 15 (15.000)]\n"),
            "   GUID 0x10000a port 1: [VL15Dropped == 3] [PortXmitData == <n> (<n>)] [PortRcvPkts == <n> (<n>)]\n");
  EXPECT_EQ(normalize("counters", "[PortXmitData == 1008 (3.938KB)] [SymbolErrorCounter == 5 (5.000)]\n"),
            "[PortXmitData == <n> (<n>)] [SymbolErrorCounter == 5 (5.000)]\n");
  // ibsim's relay errors, which the runs under a fault raise themselves.
  EXPECT_EQ(normalize("relay", "   GUID 0x100001 port 1: [PortRcvSwitchRelayErrors == 29] [SymbolErrorCounter == 2]\n"),
            "   GUID 0x100001 port 1: [PortRcvSwitchRelayErrors == <n>] [SymbolErrorCounter == 2]\n");
  // ibping's statistics: the run's time and the round trips only.
  EXPECT_EQ(normalize("elapsed",
                      "--- h (Lid 9) ibping statistics ---\n"
                      "2 packets transmitted, 0 received, 100% packet loss, time 2910 ms\n"
                      "rtt min/avg/max = 0.161/0.180/0.199 ms\n"),
            "--- h (Lid 9) ibping statistics ---\n"
            "2 packets transmitted, 0 received, 100% packet loss, time <n> ms\n"
            "rtt min/avg/max = <n> ms\n");
  // Without the option nothing changes.
  EXPECT_EQ(normalize("timestamp", pq), pq);
}

TEST(Rows, UnifiedDiff) {
  using conformance::unified_diff;
  EXPECT_EQ(unified_diff("a\nb\n", "a\nb\n", "x", "y"), "");
  std::string d = unified_diff("1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nfive\n6\n7\n8\n", "ref", "ibtool");
  EXPECT_EQ(d,
            "--- ref\n+++ ibtool\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
  // Only a trailing newline differs.
  std::string n = unified_diff("a\n", "a", "ref", "ibtool");
  EXPECT_NE(n.find("no newline at end of ibtool"), std::string::npos) << n;
  // Everything missing.
  std::string e = unified_diff("a\nb\n", "", "ref", "ibtool");
  EXPECT_NE(e.find("-a\n-b\n"), std::string::npos) << e;
}

}  // namespace
