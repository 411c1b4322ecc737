// smpdump, ibportstate and check_lft_balance with --sa on ibsim + OpenSM:
// every read is an SA record query and no SMP is sent (counted from the -d
// trace of every MAD the transport sends); what the SA cannot do (an
// attribute it keeps no record of, a change to a port) is refused before
// anything is sent.  smpdump's and ibportstate's outputs are compared with
// the reference's SMP runs in the conformance rows (smpdump.rows,
// ibportstate.rows); check_lft_balance --sa, which reads the fabric itself,
// with the reference run on files dump_fts and ibnetdiscover wrote (rows
// cannot write a command's output to a file).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "test/integration/ibtool_bin.h"
#include "test/integration/mad_trace.h"
#include "test/integration/sim_ports.h"
#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

using ittest::IBTOOL;

using madtrace::rpcs;

class SmpCommandsSA : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    testbed::FabricOptions o;
    o.tag = "smpsa";
    fab_ = std::make_unique<testbed::Fabric>(testbed::generate("example net.2sw2path4hca"), o);
    ca_ = simports::lid(*fab_, "Hca2");
    ASSERT_FALSE(ca_.empty());
  }
  static void TearDownTestSuite() { fab_.reset(); }

  static testbed::Result run(const std::vector<std::string>& args) {
    std::vector<std::string> argv{IBTOOL};
    argv.insert(argv.end(), args.begin(), args.end());
    return fab_->run(argv);
  }

  // cmd -d ARGS with and without --sa: the same stdout and status, SA
  // queries and no SMP with --sa, SMPs without (so the counter can fail).
  static void no_smp(const std::string& cmd, const std::vector<std::string>& args) {
    std::vector<std::string> sa{cmd, "-d", "--sa", "--smkey", "1"}, smp{cmd, "-d"};
    sa.insert(sa.end(), args.begin(), args.end());
    smp.insert(smp.end(), args.begin(), args.end());
    auto s = run(sa);
    auto m = run(smp);
    std::string what = cmd;
    for (const auto& a : args) what += " " + a;
    EXPECT_EQ(s.out, m.out) << what << "\n" << s.err;
    EXPECT_EQ(s.status, m.status) << what;
    EXPECT_EQ(rpcs(s.err, "SubnGet(") + rpcs(s.err, "SubnSet("), 0) << what << "\n" << s.err;
    EXPECT_GT(rpcs(s.err, "SubnAdmGet"), 0) << what << "\n" << s.err;
    EXPECT_GT(rpcs(m.err, "SubnGet("), 0) << what << "\n" << m.err;
  }

  static inline std::unique_ptr<testbed::Fabric> fab_;
  static inline std::string ca_;  // LID of Hca2 (behind both switches)
};

TEST_F(SmpCommandsSA, SmpdumpSendsNoSMP) {
  no_smp("smpdump", {ca_, "0x11"});
  no_smp("smpdump", {ca_, "0x15", "1"});
  no_smp("smpdump", {"-D", "0,1,3", "0x15", "2"});
  no_smp("smpdump", {"-D", "0,1", "0x19", "0"});
  no_smp("smpdump", {ca_, "0x16"});
}

TEST_F(SmpCommandsSA, SmpdumpRefusesAttributesWithoutRecord) {
  // MlnxExtPortInfo and an undefined ID: no SA record holds them.
  for (const char* attr : {"0xff90", "0x77"}) {
    auto r = run({"smpdump", "-d", "--sa", ca_, attr});
    EXPECT_NE(r.status, 0) << attr;
    EXPECT_EQ(r.out, "") << attr;
    EXPECT_NE(r.err.find("has no SA record"), std::string::npos) << r.err;
    EXPECT_EQ(rpcs(r.err, ""), 0) << "a MAD was sent: " << r.err;
  }
}

TEST_F(SmpCommandsSA, IbportstateQueriesSendNoSMP) {
  no_smp("ibportstate", {ca_, "1"});
  no_smp("ibportstate", {"-D", "0,1", "3"});  // an active switch port: its peer is read too
  no_smp("ibportstate", {"-D", "0,1,3", "0", "query"});
}

TEST_F(SmpCommandsSA, IbportstateRefusesSets) {
  // Refused with the usage status before anything is sent; the port is
  // left as it was (the next query still shows it up).
  for (std::vector<std::string> op : {std::vector<std::string>{"disable"}, {"enable"}, {"reset"}, {"speed", "1"},
                                      {"width", "2"}, {"query", "lid", "5"}, {"mkey", "0"}}) {
    std::vector<std::string> argv{"ibportstate", "-d", "--sa", ca_, "1"};
    argv.insert(argv.end(), op.begin(), op.end());
    auto r = run(argv);
    EXPECT_EQ(r.status, 2) << op[0] << "\n" << r.err;
    EXPECT_EQ(r.out, "") << op[0];
    EXPECT_NE(r.err.find("the SA cannot change a port"), std::string::npos) << r.err;
    EXPECT_EQ(rpcs(r.err, ""), 0) << "a MAD was sent: " << r.err;
  }
  auto q = run({"ibportstate", ca_, "1"});
  EXPECT_EQ(q.status, 0) << q.err;
  EXPECT_NE(q.out.find("LinkState:.......................Active"), std::string::npos) << q.out;
}

TEST_F(SmpCommandsSA, IbportstatePeerOfALidsSwitchPort) {
  // From a LID the peer is read over a combined route, which ibsim does
  // not answer; through the SA it is the port the LinkRecord leads to:
  // the same lines as the DR form's peer, under the combined route's name.
  auto sa = run({"ibportstate", "--sa", "-L", "2", "3"});
  auto dr = run({"ibportstate", "-D", "0,1", "3"});
  ASSERT_EQ(sa.status, 0) << sa.err;
  ASSERT_EQ(dr.status, 0) << dr.err;
  auto peer_lines = [](const std::string& s) {
    size_t p = s.find("Peer PortInfo:\n");
    if (p == std::string::npos) return std::string();
    p = s.find('\n', s.find('\n', p) + 1);  // after the peer's header line
    return s.substr(p + 1);
  };
  EXPECT_NE(peer_lines(sa.out), "") << sa.out;
  EXPECT_EQ(peer_lines(sa.out), peer_lines(dr.out)) << sa.out << "\n" << dr.out;
  EXPECT_NE(sa.out.find("# Port info: Lid 2 DR path slid 1; dlid 65535; 0,3 port 3"), std::string::npos) << sa.out;
}

// check_lft_balance --sa (the fabric and the LFTs from the SA) against the
// reference reading the reference dump_fts's output and ibnetdiscover's
// cache of the same fabric.
void same_balance_as_files(const std::string& topology, const std::string& tag) {
  testbed::FabricOptions o;
  o.tag = tag;
  testbed::Fabric f(testbed::generate(topology), o);
  auto d = f.sh("dump_fts > clb.lft");
  ASSERT_EQ(d.status, 0) << d.err;
  auto c = f.run({"ibnetdiscover", "--cache", "clb.cache"});
  ASSERT_EQ(c.status, 0) << c.err;
  for (std::vector<std::string> flags : {std::vector<std::string>{"-v"}, {"-v", "-e"}, {}}) {
    std::vector<std::string> ref{"check_lft_balance"}, ours{IBTOOL, "check_lft_balance", "-d", "--sa"};
    ref.insert(ref.end(), flags.begin(), flags.end());
    ours.insert(ours.end(), flags.begin(), flags.end());
    ref.insert(ref.end(), {"-l", "clb.lft", "-i", "clb.cache"});
    auto r = f.run(ref);
    auto s = f.run(ours);
    std::string what = topology + ":";
    for (const auto& a : flags) what += " " + a;
    if (!flags.empty()) {
      EXPECT_NE(r.out, "") << what;  // -v reports every switch
    }
    EXPECT_EQ(s.out, r.out) << what << "\n" << s.err;
    EXPECT_EQ(s.status, r.status) << what;
    EXPECT_EQ(rpcs(s.err, "SubnGet(") + rpcs(s.err, "SubnSet("), 0) << what << "\n" << s.err;
    EXPECT_GT(rpcs(s.err, "SubnAdmGet"), 0) << what << "\n" << s.err;
  }
}

TEST(LftBalanceSA, FatTreeAsFromFiles) { same_balance_as_files("fattree 4", "clbft"); }
TEST(LftBalanceSA, IrregularAsFromFiles) { same_balance_as_files("irregular", "clbirr"); }

}  // namespace
