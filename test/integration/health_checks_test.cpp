// Fabric health commands on simulated fabrics with faults injected through
// ibsim's console: each fault is reported (and only it) with a non-zero
// exit status; the clean fabric reports nothing and exits 0.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

std::vector<std::string> ib(std::vector<std::string> args) {
  args.insert(args.begin(), IBTOOL_PATH);
  return args;
}

int lines_with(const std::string& out, const std::string& what) {
  int n = 0;
  size_t pos = 0;
  while ((pos = out.find(what, pos)) != std::string::npos) {
    ++n;
    pos += what.size();
  }
  return n;
}

// Data counters move with every MAD of a run: blank their values.
std::string blank_data(const std::string& s) {
  static const std::regex re(R"(\[(Port(?:Unicast|Multicast)?(?:Xmit|Rcv)(?:Data|Pkts)) == \d+ \([^)]*\)\])");
  return std::regex_replace(s, re, "[$1 == <n>]");
}

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
  for (const char* c : {"ibchecknet", "ibcheckerrors", "ibcheckstate", "ibcheckwidth", "ibidsverify", "ibqueryerrors"}) {
    auto r = f.run(ib({c}));
    EXPECT_EQ(r.status, 0) << c << "\n" << r.out << r.err;
    EXPECT_EQ(r.out.find("\"Hca"), std::string::npos) << c << "\n" << r.out;
  }
  auto r = f.run(ib({"ibcheckport", "2", "3"}));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(": OK"), std::string::npos) << r.out;
  r = f.run(ib({"ibchecknode", "2"}));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

TEST_F(HealthExample, ErrorCountersAreReportedThenCleared) {
  auto& f = *fabric_;
  f.console("PerformanceSet \"Switch1\"[3] PortCounters.SymbolErrorCounter=5");
  f.console("PerformanceSet \"Hca2\"[1] PortCounters.PortRcvErrors=7");
  // ibqueryerrors: the reference's output, byte for byte (data values aside).
  for (std::vector<std::string> a : {std::vector<std::string>{"ibqueryerrors"}, {"ibqueryerrors", "-r"},
                                     {"ibqueryerrors", "--data", "-c"}, {"ibqueryerrors", "--switch"},
                                     {"ibqueryerrors", "-s", "PortRcvErrors"}, {"ibqueryerrors", "-G", "0x100004"},
                                     {"ibqueryerrors", "-D", "0,1"}}) {
    auto ref = f.run(a);
    auto me = f.run(ib(a));
    EXPECT_EQ(blank_data(me.out), blank_data(ref.out)) << a.back();
    EXPECT_EQ(me.status, ref.status) << a.back();
  }
  auto r = f.run(ib({"ibcheckerrors"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_EQ(lines_with(r.out, "is 5 (threshold 0)"), 1) << r.out;
  EXPECT_NE(r.out.find("\"Switch1\" (0x0000000000200000) port 3 lid 2: SymbolErrorCounter is 5"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"Hca2\" (0x0000000000100003) port 1 lid 4: PortRcvErrors is 7"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 bad ports found"), std::string::npos) << r.out;
  r = f.run(ib({"ibcheckerrs", "4"}));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out.find("Switch1"), std::string::npos) << r.out;
  r = f.run(ib({"ibcheckport", "2", "3"}));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("SymbolErrorCounter is 5"), std::string::npos) << r.out;
  r = f.run(ib({"ibswportwatch", "-p", "0.1", "-n", "1", "2", "3"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("SymbolErrorCounter=5"), std::string::npos) << r.out;
  r = f.run(ib({"ibchecknet"}));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("2 bad nodes found"), std::string::npos) << r.out;
  // Thresholds raise the bar.
  r = f.sh("printf 'SymbolErrorCounter=10\\nPortRcvErrors=10\\n' > thr && " + std::string(IBTOOL_PATH) +
           " ibcheckerrors -T thr");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  // Clearing.
  r = f.run(ib({"ibclearerrors"}));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  r = f.run(ib({"ibcheckerrors"}));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  r = f.run(ib({"ibqueryerrors"}));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

TEST_F(HealthExample, DuplicateGuidIsFound) {
  auto& f = *fabric_;
  f.console("Guid \"Hca3\" 0x100003");  // Hca2's GUIDs
  auto r = f.run(ib({"ibidsverify"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_EQ(lines_with(r.out, "already used by"), 1) << r.out;
  EXPECT_NE(r.out.find("node GUID 0x0000000000100003"), std::string::npos) << r.out;
  r = f.run(ib({"ibchecknet"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("already used by"), std::string::npos) << r.out;
  f.console("Guid \"Hca3\" 0x100006");
  r = f.run(ib({"ibidsverify"}));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

TEST_F(HealthExample, UnlinkedNodeDoesNotAnswer) {
  auto& f = *fabric_;
  auto r = f.run(ib({"ibchecknode", "6"}));  // Hca4
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  f.console("Unlink \"Hca4\"[1]");
  r = f.run(ib({"ibchecknode", "-t", "200", "6"}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("does not answer"), std::string::npos) << r.out;
  f.console("Link \"Hca4\"[1] \"Switch2\"[2]");
}

TEST(HealthIrregular, NarrowLinkIsReportedOnce) {
  testbed::Fabric f(testbed::generate("irregular"));
  for (const char* c : {"ibcheckwidth", "ibchecknet"}) {
    auto r = f.run(ib({c}));
    EXPECT_EQ(r.status, 1) << c << r.out << r.err;
    EXPECT_EQ(lines_with(r.out, "link width 1X"), 1) << c << r.out;
    EXPECT_NE(r.out.find("\"leaf switch with spare ports\""), std::string::npos) << r.out;
  }
  auto r = f.run(ib({"ibcheckstate"}));
  EXPECT_EQ(r.status, 0) << r.out;
  testbed::Fabric wide(testbed::generate("irregular-wide"));
  r = wide.run(ib({"ibcheckwidth"}));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

}  // namespace
