// Fabric health commands on simulated fabrics with faults injected through
// ibsim's console: each fault is reported (and only it) with a non-zero
// exit status; the clean fabric reports nothing and exits 0.
//
// Which fault each command can see, and where it is tested (net.2sw2path4hca
// unless said otherwise; "clean" means the command must stay silent and
// exit 0 with that fault present, because the fault is not its business):
//
//   command           counters          Unlink              Guid dup     w=1 link (irregular)
//   ibcheckerrors     finding           relay errors it causes -         clean
//   ibcheckerrs       finding (node/port) target gone: error -           -
//   ibchecknet        finding           finding (--baseline) finding      finding
//   ibchecknode       -                 does not answer     -            -
//   ibcheckport       finding           finding (port down) -            finding (that port)
//   ibcheckportstate  clean             finding (port down) -            clean (that port)
//   ibcheckportwidth  clean             -                   -            finding (that port)
//   ibcheckstate      clean             finding (--baseline) -           clean
//   ibcheckwidth      clean             clean               -            finding
//   ibclearerrors     clears them       -                   -            -
//   ibclearcounters   clears data too   -                   -            -
//   ibdatacounters    data counters     (fewer ports)       -            -
//   ibdatacounts      data counters     target gone: error  -            -
//   ibidsverify       clean             clean               finding      -
//   ibswportwatch     finding           -                   -            -
//   ibqueryerrors     = reference       = reference         -            = reference (rows)
//   set_port_state, init_all_ports: they make the faults (ports disabled,
//   links reset); health_port_state_test.cpp reads the result back.
// Every command also runs on the clean fabric (CleanFabricReportsNothing).
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "test/integration/ibtool_bin.h"
#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

using ittest::ib;

// The findings of an ibcheck*/ibidsverify run: stdout lines that are neither
// the summary ("## ...") nor an OK line.
std::vector<std::string> findings(const std::string& out) {
  std::vector<std::string> v;
  std::istringstream in(out);
  std::string l;
  while (std::getline(in, l))
    if (!l.empty() && l.rfind("##", 0) != 0 && l.find(": OK") == std::string::npos) v.push_back(l);
  return v;
}
using Lines = std::vector<std::string>;

// Data counters move with every MAD of a run: blank their values.
std::string blank_data(const std::string& s) {
  static const std::regex re(R"(\[(Port(?:Unicast|Multicast)?(?:Xmit|Rcv)(?:Data|Pkts)) == \d+ \([^)]*\)\])");
  return std::regex_replace(s, re, "[$1 == <n>]");
}

// A counter's value in an ibdatacounts line ("PortXmitData=123").
long long counter(const std::string& out, const std::string& line_has, const std::string& name) {
  std::istringstream in(out);
  std::string l;
  while (std::getline(in, l))
    if (l.find(line_has) != std::string::npos) {
      std::smatch m;
      if (std::regex_search(l, m, std::regex(" " + name + "=(\\d+)"))) return std::stoll(m[1]);
    }
  return -1;
}

// net.2sw2path4hca as the testbed lays it out (Hca1 first): Hca1 lid 1,
// Switch1 (0x200000) lid 2, Switch2 (0x200001) lid 3, Hca2 (0x100003) lid 4,
// Hca3 (0x100006) lid 5, Hca4 (0x100009) lid 6.  Switch1 ports 3 and 5 link
// to Switch2 ports 3 and 5; Hca2 and Hca4 hang off Switch2 ports 1 and 2.
class HealthExample : public ::testing::Test {
protected:
  static void SetUpTestSuite() { fabric_ = new testbed::Fabric(testbed::generate("example net.2sw2path4hca")); }
  static void TearDownTestSuite() {
    delete fabric_;
    fabric_ = nullptr;
  }
  static testbed::Fabric* fabric_;
};
testbed::Fabric* HealthExample::fabric_ = nullptr;

TEST_F(HealthExample, CleanFabricReportsNothing) {
  auto& f = *fabric_;
  ASSERT_EQ(f.run({"ibnetdiscover", "--cache", "clean.cache"}).status, 0);
  for (std::vector<std::string> a :
       {std::vector<std::string>{"ibchecknet"}, {"ibchecknet", "--baseline", "clean.cache"},
        {"ibcheckstate", "--baseline", "clean.cache"}, {"ibcheckerrors"}, {"ibcheckerrs", "4"},
        {"ibcheckerrs", "2", "3"}, {"ibcheckport", "2", "3"}, {"ibcheckportstate", "3", "2"},
        {"ibcheckportwidth", "2", "5"}, {"ibcheckstate"}, {"ibcheckwidth"}, {"ibidsverify"}, {"ibchecknode", "2"},
        {"ibswportwatch", "-p", "0.1", "-n", "1", "2", "3"}, {"ibdatacounters"}, {"ibdatacounts", "4"},
        {"ibclearerrors"}, {"ibclearcounters"}}) {
    auto r = f.run(ib(a));
    std::string c = a[0];
    EXPECT_EQ(r.status, 0) << c << "\n" << r.out << r.err;
    if (c == "ibdatacounters" || c == "ibdatacounts") {
      EXPECT_NE(r.out.find(", 0 failed"), std::string::npos) << r.out;
    } else if (c == "ibswportwatch") {
      EXPECT_EQ(r.out.find("error"), std::string::npos) << r.out;
    } else if (c == "ibclearerrors" || c == "ibclearcounters") {
      EXPECT_EQ(findings(r.out), Lines{}) << c;
    } else {
      EXPECT_EQ(findings(r.out), Lines{}) << c << " " << (a.size() > 1 ? a[1] : "");
    }
  }
  // ibqueryerrors: the reference's output, byte for byte.
  auto ref = testbed::again_if_segv([&] { return f.run({"ibqueryerrors"}); }, "ibqueryerrors");
  auto me = f.run(ib({"ibqueryerrors"}));
  EXPECT_EQ(me.out, ref.out);
  EXPECT_EQ(me.status, 0);
  EXPECT_EQ(ref.status, 0);
}

TEST_F(HealthExample, ErrorCountersAreReportedThenCleared) {
  auto& f = *fabric_;
  f.console("PerformanceSet \"Switch1\"[3] PortCounters.SymbolErrorCounter=5");
  f.console("PerformanceSet \"Hca2\"[1] PortCounters.PortRcvErrors=7");
  f.console("PerformanceSet \"Hca3\"[1] PortCounters.PortXmitDiscards=3");
  // --details: the details attributes of the counters beyond threshold.
  f.console("PerformanceSet \"Hca2\"[1] PortRcvErrorDetails.PortLocalPhysicalErrors=4");
  f.console("PerformanceSet \"Hca2\"[1] PortRcvErrorDetails.PortDLIDMappingErrors=6");
  f.console("PerformanceSet \"Hca3\"[1] PortXmitDiscardDetails.PortInactiveDiscards=2");
  f.console("PerformanceSet \"Hca3\"[1] PortXmitDiscardDetails.PortSwHOQLifetimeLimitDiscards=1");
  // Details of a port whose counter is within threshold are not read.
  f.console("PerformanceSet \"Hca4\"[1] PortRcvErrorDetails.PortLoopingErrors=9");
  // ibqueryerrors: the reference's output, byte for byte (data values aside).
  for (std::vector<std::string> a :
       {std::vector<std::string>{"ibqueryerrors"}, {"ibqueryerrors", "-r"}, {"ibqueryerrors", "--data", "-c"},
        {"ibqueryerrors", "--switch"}, {"ibqueryerrors", "-s", "PortRcvErrors"}, {"ibqueryerrors", "-G", "0x100004"},
        {"ibqueryerrors", "-D", "0,1"}, {"ibqueryerrors", "--details"}, {"ibqueryerrors", "--details", "-r"},
        {"ibqueryerrors", "--details", "-s", "PortRcvErrors"}}) {
    auto ref = testbed::again_if_segv([&] { return f.run(a); }, "ibqueryerrors");
    auto me = f.run(ib(a));
    std::string what = a.size() > 1 ? a[1] : a[0];
    EXPECT_EQ(blank_data(me.out), blank_data(ref.out)) << what;
    EXPECT_EQ(me.status, ref.status) << what;
  }
  {
    // --details names the fields as the reference does (its labels of the
    // two details attributes are crossed).
    auto r = f.run(ib({"ibqueryerrors", "--details", "--ca"}));
    EXPECT_NE(r.out.find("port 1: [PortRcvErrors == 7] [PortInactiveDiscards == 4] "
                         "[PortSwHOQLifetimeLimitDiscards == 6]\n"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("port 1: [PortXmitDiscards == 3] [PortLocalPhysicalErrors == 2] "
                         "[PortDLIDMappingErrors == 1]\n"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("== 9"), std::string::npos) << r.out;
  }
  {
    // -G with a switch's port GUID: the reference does not return (it waits
    // forever in its single-node discovery), so ibtool alone, with a time
    // limit; it must print what the reference prints for the same node
    // selected by DR path.
    auto r = f.run(ib({"ibqueryerrors", "-G", "0x200000"}), {}, 60);
    ASSERT_FALSE(r.timed_out);
    auto ref = testbed::again_if_segv([&] { return f.run({"ibqueryerrors", "-D", "0,1"}); }, "ibqueryerrors -D 0,1");
    EXPECT_EQ(r.out, ref.out);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("Errors for 0x200000 \"Switch1\"\n   GUID 0x200000 port ALL: [SymbolErrorCounter == 5]\n"
                         "   GUID 0x200000 port 3: [SymbolErrorCounter == 5]\n"),
              std::string::npos)
        << r.out;
  }

  auto r = f.run(ib({"ibcheckerrors"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  // Ordered as discovery found the nodes.
  EXPECT_EQ(findings(r.out), (Lines{"\"Switch1\" (0x0000000000200000) port 3 lid 2: SymbolErrorCounter is 5 (threshold 0)",
                                    "\"Hca3\" (0x0000000000100006) port 1 lid 5: PortXmitDiscards is 3 (threshold 0)",
                                    "\"Hca2\" (0x0000000000100003) port 1 lid 4: PortRcvErrors is 7 (threshold 0)"}))
      << r.out;
  EXPECT_NE(r.out.find("3 bad ports found"), std::string::npos) << r.out;
  r = f.run(ib({"ibcheckerrs", "4"}));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(findings(r.out), Lines{"\"Hca2\" (0x0000000000100003) port 1 lid 4: PortRcvErrors is 7 (threshold 0)"});
  r = f.run(ib({"ibcheckerrs", "2", "5"}));  // the other inter-switch port: clean
  EXPECT_EQ(r.status, 0) << r.out;
  r = f.run(ib({"ibcheckport", "2", "3"}));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(findings(r.out),
            Lines{"\"Switch1\" (0x0000000000200000) port 3 lid 2: SymbolErrorCounter is 5 (threshold 0)"});
  r = f.run(ib({"ibswportwatch", "-p", "0.1", "-n", "1", "2", "3"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("errors beyond threshold: SymbolErrorCounter=5\n"), std::string::npos) << r.out;
  r = f.run(ib({"ibchecknet"}));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(findings(r.out).size(), 3u) << r.out;
  EXPECT_NE(r.out.find("3 bad nodes found"), std::string::npos) << r.out;
  // Not their business: state, width, IDs.
  for (std::vector<std::string> a : {std::vector<std::string>{"ibcheckstate"}, {"ibcheckwidth"}, {"ibidsverify"},
                                     {"ibcheckportstate", "2", "3"}, {"ibcheckportwidth", "2", "3"}}) {
    r = f.run(ib(a));
    EXPECT_EQ(r.status, 0) << a[0] << "\n" << r.out << r.err;
    EXPECT_EQ(findings(r.out), Lines{}) << a[0];
  }
  // Thresholds raise the bar.
  r = f.sh("printf 'SymbolErrorCounter=10\\nPortRcvErrors=10\\nPortXmitDiscards=3\\n' > thr && " +
           std::string(IBTOOL_PATH) + " ibcheckerrors -T thr");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  // Clearing.
  r = f.run(ib({"ibclearerrors"}));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(", 0 failed"), std::string::npos) << r.out;
  r = f.run(ib({"ibcheckerrors"}));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  r = f.run(ib({"ibqueryerrors"}));
  EXPECT_EQ(r.status, 0) << r.out << r.err;

  // ibqueryerrors -k clears the error counters after reading them, and with
  // --details the details attributes too (read back with the reference's
  // perfquery).
  f.console("PerformanceSet \"Hca2\"[1] PortCounters.PortRcvErrors=7");
  auto rcverr = [&] { return f.run({"perfquery", "--rcverr", "4", "1"}).out; };
  const std::regex four("PortLocalPhysicalErrors:\\.+4\n"), zero("PortLocalPhysicalErrors:\\.+0\n");
  ASSERT_TRUE(std::regex_search(rcverr(), four)) << rcverr();
  r = f.run(ib({"ibqueryerrors", "-k"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("[PortRcvErrors == 7]"), std::string::npos) << r.out;
  r = f.run(ib({"ibqueryerrors"}));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(rcverr(), four)) << rcverr();
  f.console("PerformanceSet \"Hca2\"[1] PortCounters.PortRcvErrors=7");
  r = f.run(ib({"ibqueryerrors", "-k", "--details"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("[PortRcvErrors == 7] [PortInactiveDiscards == 4]"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(rcverr(), zero)) << rcverr();
  EXPECT_EQ(f.run(ib({"ibqueryerrors"})).status, 0);
  f.console("PerformanceSet \"Hca4\"[1] PortRcvErrorDetails.PortLoopingErrors=0");
}

TEST_F(HealthExample, DataCountersAreReadAndCleared) {
  auto& f = *fabric_;
  f.console("PerformanceSet \"Hca3\"[1] PortCountersExtended.PortXmitData=5000000");
  f.console("PerformanceSet \"Hca3\"[1] PortCounters.PortXmitData=5000000");
  auto r = f.run(ib({"ibdatacounts", "5", "1"}));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  long long before = counter(r.out, "\"Hca3\" (0x0000000000100006) port 1 lid 5:", "PortXmitData");
  EXPECT_GE(before, 5000000) << r.out;
  r = f.run(ib({"ibdatacounters"}));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_GE(counter(r.out, "\"Hca3\" (0x0000000000100006) port 1 lid 5:", "PortXmitData"), 5000000) << r.out;
  // ibclearerrors keeps data counters; ibclearcounters does not.
  ASSERT_EQ(f.run(ib({"ibclearerrors"})).status, 0);
  r = f.run(ib({"ibdatacounts", "5", "1"}));
  EXPECT_GE(counter(r.out, "port 1 lid 5:", "PortXmitData"), 5000000) << r.out;
  ASSERT_EQ(f.run(ib({"ibclearcounters"})).status, 0);
  r = f.run(ib({"ibdatacounts", "5", "1"}));
  long long after = counter(r.out, "port 1 lid 5:", "PortXmitData");
  EXPECT_GE(after, 0) << r.out;
  EXPECT_LT(after, 5000000) << r.out;
}

TEST_F(HealthExample, DuplicateGuidIsFound) {
  auto& f = *fabric_;
  f.console("Guid \"Hca3\" 0x100003");  // Hca2's GUIDs
  // Found where Hca3 hangs (Switch1 port 2).  Which of the two nodes the
  // database kept the GUID's description from depends on which answered
  // first, so the name after "already used by" is not asserted.
  const std::string at = "\"Switch1\" (0x0000000000200000) port 2 lid 2: the node on this link (\"Hca3\", DR path "
                         "0,1,2) has node GUID 0x0000000000100003 port GUID 0x0000000000100004, already used by \"Hca";
  auto r = f.run(ib({"ibidsverify"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  ASSERT_EQ(findings(r.out).size(), 1u) << r.out;
  EXPECT_EQ(findings(r.out)[0].rfind(at, 0), 0u) << r.out;
  r = f.run(ib({"ibchecknet"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  ASSERT_EQ(findings(r.out).size(), 1u) << r.out;
  EXPECT_EQ(findings(r.out)[0].rfind(at, 0), 0u) << r.out;
  for (const char* c : {"ibcheckerrors", "ibcheckwidth"}) {
    r = f.run(ib({c}));
    EXPECT_EQ(r.status, 0) << c << r.out << r.err;
  }
  f.console("Guid \"Hca3\" 0x100006");
  r = f.run(ib({"ibidsverify"}));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

// A removed link: the state checks see it against a baseline of the healthy
// subnet (a cache of either format, or ibnetdiscover's topology file),
// naming both ends; the port commands see the port down; the node behind it
// does not answer.
// How many times OpenSM has logged SUBNET UP (once per completed sweep).
size_t subnet_ups(const testbed::Fabric& f) {
  std::string log = f.opensm_log();
  size_t n = 0;
  for (size_t p = log.find("SUBNET UP"); p != std::string::npos; p = log.find("SUBNET UP", p + 1)) ++n;
  return n;
}

// A link that goes away makes OpenSM sweep again, and while it does the SA
// answers PathRecords with ERR_NO_RECORDS: wait until it has logged SUBNET
// UP again and its log has been quiet for half a second (bounded).
void wait_for_resweep(const testbed::Fabric& f, size_t ups_before) {
  using namespace std::chrono;
  auto deadline = steady_clock::now() + seconds(60);
  while (subnet_ups(f) <= ups_before && steady_clock::now() < deadline) std::this_thread::sleep_for(milliseconds(100));
  size_t size = f.opensm_log().size();
  for (int quiet = 0; quiet < 5 && steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(milliseconds(100));
    size_t now = f.opensm_log().size();
    quiet = now == size ? quiet + 1 : 0;
    size = now;
  }
}

TEST(HealthUnlink, RemovedLinksAreReportedByBothEnds) {
  testbed::Fabric f(testbed::generate("example net.2sw2path4hca"));
  ASSERT_EQ(f.run({"ibnetdiscover", "--cache", "ref.cache"}).status, 0);
  ASSERT_EQ(f.sh("ibnetdiscover > ref.topo").status, 0);
  ASSERT_EQ(f.run(ib({"ibnetdiscover", "--cache", "ibtool.cache"})).status, 0);
  size_t ups = subnet_ups(f);
  f.console("Unlink \"Hca4\"[1]");
  f.console("Unlink \"Switch1\"[3]");
  wait_for_resweep(f, ups);
  const Lines expect{
      "\"Switch1\" (0x0000000000200000) port 3 lid 2: link to \"Switch2\" (0x0000000000200001) port 3 (in the "
      "baseline) is down: this port is Down/Polling; \"Switch2\" (0x0000000000200001) port 3 is Down/Polling",
      "\"Switch2\" (0x0000000000200001) port 2 lid 3: link to \"Hca4\" (0x0000000000100009) port 1 (in the "
      "baseline) is down: this port is Down/Polling; \"Hca4\" (0x0000000000100009) is not in the subnet"};
  for (const char* base : {"ref.cache", "ref.topo", "ibtool.cache"})
    for (const char* c : {"ibchecknet", "ibcheckstate"}) {
      auto r = f.run(ib({c, "--baseline", base}));
      EXPECT_EQ(r.status, 1) << c << " " << base << "\n" << r.out << r.err;
      EXPECT_EQ(findings(r.out), expect) << c << " " << base;
    }
  // The same findings as data (issue 28 item 3): which check, the baseline's
  // other end, the link down.
  {
    auto r = f.run(ib({"ibchecknet", "--baseline", "ibtool.cache", "--json"}));
    auto d = nlohmann::json::parse(r.out)["findings"];
    ASSERT_EQ(d.size(), 2u) << r.out;
    EXPECT_EQ(d[0]["check"], "baseline");
    EXPECT_EQ(d[0]["baselinePeerNodeGUID"], "0x0000000000200001");
    EXPECT_EQ(d[0]["baselinePeerPortNum"], 3);
    EXPECT_EQ(d[0]["linkUp"], false);
    EXPECT_EQ(d[1]["baselinePeerNodeGUID"], "0x0000000000100009");
  }
  // Without a baseline there is nothing to miss: a down port without a peer
  // is an unused port.
  auto r = f.run(ib({"ibcheckstate"}));
  EXPECT_EQ(r.status, 0) << r.out;
  // The port itself, named.
  for (const char* c : {"ibcheckportstate", "ibcheckport"}) {
    r = f.run(ib({c, "3", "2"}));
    EXPECT_EQ(r.status, 1) << c << r.out << r.err;
    EXPECT_EQ(findings(r.out), Lines{"\"Switch2\" (0x0000000000200001) port 2 lid 3: port state Down/Polling, expected "
                                     "Active/LinkUp (no link)"})
        << c;
    // As data: the field found wrong, its value, what was expected.
    r = f.run(ib({c, "3", "2", "--json"}));
    auto d = nlohmann::json::parse(r.out)["findings"];
    ASSERT_EQ(d.size(), 1u) << c << r.out;
    EXPECT_EQ(d[0]["check"], "portState") << c;
    EXPECT_EQ(d[0]["field"], "portPhysicalState") << c;
    EXPECT_EQ(d[0]["value"], "Polling") << c;
    EXPECT_EQ(d[0]["expected"], "LinkUp") << c;
    EXPECT_EQ(d[0]["portState"], "Down") << c;
    EXPECT_EQ(d[0]["linked"], false) << c;
  }
  r = f.run(ib({"ibchecknode", "-t", "200", "6"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("does not answer"), std::string::npos) << r.out;
  for (const char* c : {"ibcheckerrs", "ibdatacounts"}) {
    r = f.run(ib({c, "6"}));
    EXPECT_NE(r.status, 0) << c << r.out;
    EXPECT_NE(r.err.find("No node in the subnet matches 6"), std::string::npos) << c << r.err;
  }
  // Not their business.  (ibcheckerrors is: the switches count the packets
  // to the vanished LID they drop as PortRcvSwitchRelayErrors.)
  for (const char* c : {"ibcheckwidth", "ibidsverify"}) {
    r = f.run(ib({c}));
    EXPECT_EQ(r.status, 0) << c << r.out << r.err;
    EXPECT_EQ(findings(r.out), Lines{}) << c;
  }
  auto ref = testbed::again_if_segv([&] { return f.run({"ibqueryerrors"}); }, "ibqueryerrors");
  r = f.run(ib({"ibqueryerrors"}));
  EXPECT_EQ(r.out, ref.out);
  EXPECT_EQ(r.status, ref.status);
  // A baseline that is neither format: one clear error.
  ASSERT_EQ(f.sh("echo hello > junk").status, 0);
  r = f.run(ib({"ibchecknet", "--baseline", "junk"}));
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("neither a subnet cache nor an ibnetdiscover topology file"), std::string::npos) << r.err;
}

TEST(HealthIrregular, NarrowLinkIsReportedOnce) {
  testbed::Fabric f(testbed::generate("irregular"));
  for (const char* c : {"ibcheckwidth", "ibchecknet"}) {
    auto r = f.run(ib({c}));
    EXPECT_EQ(r.status, 1) << c << r.out << r.err;
    ASSERT_EQ(findings(r.out).size(), 1u) << c << r.out;
    EXPECT_NE(findings(r.out)[0].find("\"leaf switch with spare ports\""), std::string::npos) << r.out;
    EXPECT_NE(findings(r.out)[0].find(" port 3 lid "), std::string::npos) << r.out;
    EXPECT_NE(findings(r.out)[0].find(": link width 1X, both ends support 12X"), std::string::npos) << r.out;
    // As data (issue 28 item 3).
    r = f.run(ib({c, "--json"}));
    auto d = nlohmann::json::parse(r.out)["findings"];
    ASSERT_EQ(d.size(), 1u) << c << r.out;
    EXPECT_EQ(d[0]["check"], "linkWidth") << c;
    EXPECT_EQ(d[0]["field"], "linkWidthActive") << c;
    EXPECT_EQ(d[0]["value"], "1x") << c;
    EXPECT_EQ(d[0]["expected"], "12x") << c;
    EXPECT_EQ(d[0]["expectedBecause"], "supported") << c;
    EXPECT_EQ(d[0]["portNum"], 3) << c;
  }
  // The same port named, by the port commands (the switch by its name's
  // GUID is not a target form: use its LID from ibswitches).
  auto sw = f.run(ib({"ibswitches"}));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(sw.out, m, std::regex("\"leaf switch with spare ports\" base port 0 lid (\\d+)")))
      << sw.out;
  std::string lid = m[1];
  for (const char* c : {"ibcheckportwidth", "ibcheckport"}) {
    auto r = f.run(ib({c, lid, "3"}));
    EXPECT_EQ(r.status, 1) << c << r.out << r.err;
    ASSERT_EQ(findings(r.out).size(), 1u) << c << r.out;
    EXPECT_NE(findings(r.out)[0].find(": link width 1X, both ends support 12X"), std::string::npos) << r.out;
  }
  for (std::vector<std::string> a : {std::vector<std::string>{"ibcheckstate"}, {"ibcheckerrors"},
                                     {"ibcheckportstate", lid, "3"}}) {
    auto r = f.run(ib(a));
    EXPECT_EQ(r.status, 0) << a[0] << r.out;
  }
  testbed::Fabric wide(testbed::generate("irregular-wide"));
  for (const char* c : {"ibcheckwidth", "ibchecknet"}) {
    auto r = wide.run(ib({c}));
    EXPECT_EQ(r.status, 0) << c << r.out << r.err;
    EXPECT_EQ(findings(r.out), Lines{}) << c;
  }
}

// --cache on the commands that load it (issue 28): a result that rests on
// the file says so on stderr, with the file's age; past --cache-max-age the
// fabric is discovered again and the file rewritten; a cached node that
// has left the fabric is reported as gone, not as a failure of its PMA.
TEST(HealthCache, CacheIsNamedAgedAndGoneNodesAreGone) {
  testbed::Fabric f(testbed::generate("example net.2sw2path4hca"));
  auto noted = [](const testbed::Result& r) {
    return std::regex_search(r.err, std::regex("I: topology from cache m\\.cache, written \\d+ s ago"));
  };
  auto r = f.run(ib({"ibqueryerrors", "--cache", "m.cache"}));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(noted(r)) << "a live run said it used a cache: " << r.err;
  r = f.run(ib({"ibqueryerrors", "--cache", "m.cache"}));
  EXPECT_TRUE(noted(r)) << r.err;
  for (const char* c : {"ibcheckerrors", "ibhosts", "iblinkinfo"}) {
    r = f.run(ib({c, "--cache", "m.cache"}));
    EXPECT_TRUE(noted(r)) << c << ": " << r.err;
  }
  // 0: always rediscover; a file older than the limit is rewritten.
  r = f.run(ib({"ibqueryerrors", "--cache", "m.cache", "--cache-max-age", "0"}));
  EXPECT_FALSE(noted(r)) << r.err;
  ASSERT_EQ(f.sh("touch -d '10 minutes ago' m.cache").status, 0);
  r = f.run(ib({"ibqueryerrors", "--cache", "m.cache"}));
  EXPECT_FALSE(noted(r)) << "a 10 min old cache was used: " << r.err;
  EXPECT_EQ(f.sh("test -n \"$(find m.cache -mmin -1)\"").status, 0) << "the stale cache was not rewritten";
  r = f.run(ib({"ibqueryerrors", "--cache", "m.cache", "--cache-max-age", "x"}));
  EXPECT_NE(r.status, 0);

  // Hca3 (lid 5) leaves the fabric after the cache was written.
  size_t ups = subnet_ups(f);
  f.console("Unlink \"Hca3\"[1]");
  wait_for_resweep(f, ups);
  r = f.run(ib({"ibqueryerrors", "--cache", "m.cache", "-t", "200"}));
  EXPECT_TRUE(noted(r)) << r.err;
  EXPECT_NE(r.err.find("W: \"Hca3\" (0x0000000000100006) gone: no answer at LID 5 (topology from cache m.cache, "
                       "written "),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("query failed"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("PMA query failures"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("## Summary: 5 nodes checked"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("##          1 nodes of the cache gone from the fabric\n"), std::string::npos) << r.out;
  r = f.run(ib({"ibqueryerrors", "--cache", "m.cache", "-t", "200", "--json"}));
  EXPECT_NE(r.out.find("\"goneNodes\":1"), std::string::npos) << r.out;
  r = f.run(ib({"ibcheckerrors", "--cache", "m.cache", "-t", "200"}));
  EXPECT_NE(r.out.find("\"Hca3\" (0x0000000000100006) port 1 lid 5: gone: no answer at LID 5"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("query failed"), std::string::npos) << r.out;
  // (a node gone is data, not a failed read: issue 36)
  r = f.run(ib({"ibdatacounters", "--cache", "m.cache", "-t", "200"}));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\"Hca3\" (0x0000000000100006) port 1 lid 5: gone: no answer at LID 5"), std::string::npos)
      << r.out;
  r = f.run(ib({"ibcheckerrors", "--cache", "m.cache", "-t", "200", "--json"}));
  EXPECT_NE(r.out.find("\"check\":\"gone\",\"cacheFile\":\"m.cache\""), std::string::npos) << r.out;
  // ibclear*: the node is gone (a warning, a summary line), no clear failed;
  // --strict makes it a failure.
  for (const char* c : {"ibclearerrors", "ibclearcounters"}) {
    r = f.run(ib({c, "--cache", "m.cache", "-t", "200"}));
    EXPECT_EQ(r.status, 0) << c << r.out << r.err;
    EXPECT_NE(r.err.find("W: \"Hca3\" (0x0000000000100006) gone: no answer at LID 5"), std::string::npos) << c << r.err;
    EXPECT_EQ(r.out.find("clearing failed"), std::string::npos) << c << r.out;
    EXPECT_NE(r.out.find(", 0 failed\n##          1 nodes of the cache gone from the fabric\n"), std::string::npos)
        << c << r.out;
    r = f.run(ib({c, "--cache", "m.cache", "-t", "200", "--strict"}));
    EXPECT_EQ(r.status, 1) << c << r.out << r.err;
    EXPECT_NE(r.err.find("E: 1 nodes of the cache gone from the fabric (--strict)\n"), std::string::npos) << c << r.err;
    r = f.run(ib({c, "--cache", "m.cache", "-t", "200", "--json"}));
    EXPECT_NE(r.out.find("\"failed\":0,\"goneNodes\":1"), std::string::npos) << c << r.out;
  }
}

// A cache never hides a dead link (issue 36 item 3): with --cache the file
// gives the topology, and the commands that show or check link states read
// them from the fabric.  A CA unlinked after the cache was written: its
// switch port shows Down, the CA is gone (left out of iblinkinfo, a finding
// of the ibcheck* family, data in ibdatacounters' document); --load-cache
// keeps the reference's meaning (the file as it is).  An unwritable --cache
// path costs nothing but a warning after the result.
TEST(HealthCache, LinkStatesAreLiveUnderACache) {
  testbed::Fabric f(testbed::generate("example net.2sw2path4hca"));
  auto plain = f.run(ib({"iblinkinfo"}));
  ASSERT_EQ(plain.status, 0) << plain.err;
  // The unwritable path: the result, then one warning; the status of the result.
  auto r = f.run(ib({"iblinkinfo", "--cache", "/nonexistent/dir/x.cache"}));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, plain.out);
  EXPECT_NE(r.err.find("W: Cannot write cache file /nonexistent/dir/x.cache"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("E: "), std::string::npos) << r.err;
  r = f.run(ib({"ibcheckstate", "--cache", "/nonexistent/dir/x.cache", "--json"}));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NO_THROW((void)nlohmann::json::parse(r.out)) << r.out;

  ASSERT_EQ(f.run(ib({"iblinkinfo", "--cache", "m.cache"})).status, 0);
  // The switch port cabled to Hca3, as iblinkinfo's line begins.
  std::string prefix;
  {
    std::istringstream in(plain.out);
    std::string l;
    while (std::getline(in, l))
      if (l.find("\"Hca3\"") != std::string::npos && l.find("Active/  LinkUp") != std::string::npos)
        prefix = l.substr(0, l.find("==("));
  }
  ASSERT_FALSE(prefix.empty()) << plain.out;
  size_t ups = subnet_ups(f);
  f.console("Unlink \"Hca3\"[1]");
  wait_for_resweep(f, ups);

  auto line_of = [&](const std::string& out) {
    std::istringstream in(out);
    std::string l;
    while (std::getline(in, l))
      if (l.rfind(prefix, 0) == 0) return l;
    return std::string();
  };
  r = f.run(ib({"iblinkinfo", "--cache", "m.cache", "-t", "200"}));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("I: topology from cache m.cache"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("W: \"Hca3\" (0x0000000000100006) gone: no answer at LID 5 (topology from cache m.cache"),
            std::string::npos)
      << r.err;
  std::string l = line_of(r.out);
  EXPECT_NE(l.find("Down/ Polling"), std::string::npos) << l << "\n" << r.out;
  EXPECT_EQ(r.out.find("Hca3"), std::string::npos) << r.out;
  r = f.run(ib({"iblinkinfo", "--cache", "m.cache", "-t", "200", "--json"}));
  auto d = nlohmann::json::parse(r.out);
  ASSERT_EQ(d["goneNodes"].size(), 1u) << r.out;
  EXPECT_EQ(d["goneNodes"][0]["nodeGUID"], "0x0000000000100006");
  EXPECT_EQ(d["goneNodes"][0]["LID"], 5);
  // --load-cache: the reference's meaning, the file as it is.
  r = f.run(ib({"iblinkinfo", "--load-cache", "m.cache"}));
  EXPECT_NE(line_of(r.out).find("Active/  LinkUp"), std::string::npos) << r.out;

  // The state checks: the switch port is down where the cache has a link,
  // Hca3 is gone; nothing passes as 0 bad.
  r = f.run(ib({"ibcheckstate", "--cache", "m.cache", "-t", "200"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("\"Hca3\" (0x0000000000100006) port 1 lid 5: gone: no answer at LID 5"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("port state Down/Polling, expected Active/LinkUp"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("## Summary: 6 nodes checked, 2 bad nodes found"), std::string::npos) << r.out;
  r = f.run(ib({"ibcheckwidth", "--cache", "m.cache", "-t", "200"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_EQ(r.out.find(" 0 bad nodes found"), std::string::npos) << r.out;
  r = f.run(ib({"ibcheckstate", "--cache", "m.cache", "-t", "200", "--json"}));
  d = nlohmann::json::parse(r.out);
  std::set<std::string> checks;
  for (const auto& x : d["findings"]) checks.insert(x["check"].get<std::string>());
  EXPECT_EQ(checks, (std::set<std::string>{"gone", "portState"})) << r.out;

  // ibdatacounters: the gone node as data, not as an error string.
  r = f.run(ib({"ibdatacounters", "--cache", "m.cache", "-t", "200", "--json"}));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  d = nlohmann::json::parse(r.out);
  EXPECT_EQ(d["summary"]["goneNodes"], 1) << r.out;
  EXPECT_EQ(d["summary"]["failed"], 0) << r.out;
  unsigned gone = 0;
  for (const auto& p : d["ports"]) {
    EXPECT_FALSE(p.contains("error")) << p;
    if (p.value("gone", false)) {
      ++gone;
      EXPECT_EQ(p["nodeGUID"], "0x0000000000100006") << p;
      EXPECT_EQ(p["cacheFile"], "m.cache") << p;
    }
  }
  EXPECT_EQ(gone, 1u) << r.out;
  r = f.run(ib({"ibdatacounters", "--cache", "m.cache", "-t", "200", "--strict"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
}

}  // namespace
