// ibtracert on ibsim + OpenSM with a multicast group that has members (two
// hosts join the IPoIB broadcast group, so OpenSM programs the switches'
// MFTs; the conformance rows' fabrics have none): the multicast traces are
// the reference's, with SMPs and with --sa; and --sa sends no SMP at all,
// counted from the -d trace of every MAD the transport sends.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "test/integration/ibtool_bin.h"
#include "test/integration/mad_trace.h"
#include "test/integration/sim_ports.h"
#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

using ittest::IBTOOL;

using madtrace::rpcs;

class IbtracertSA : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    testbed::FabricOptions o;
    o.tag = "tracert";
    fab_ = std::make_unique<testbed::Fabric>(testbed::generate("example net.2sw2path4hca"), o);
    for (const char* h : {"Hca1", "Hca4"}) {
      std::string g = simports::guid(*fab_, h);
      auto r = fab_->run({IBTOOL, "mcm_rereg_test", "-g", g}, {{"SIM_HOST", h}});
      ASSERT_EQ(r.status, 0) << h << ": " << r.out << r.err;
    }
    a_ = simports::lid(*fab_, "Hca1");
    b_ = simports::lid(*fab_, "Hca4");
    ASSERT_FALSE(a_.empty());
    ASSERT_FALSE(b_.empty());
    // OpenSM programs the MFTs on its next sweep after the joins: wait
    // until both ends' multicast route exists (the reference says so).
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (fab_->run({"ibtracert", "-m", "0xc000", a_, b_}).status != 0) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "OpenSM never programmed MLID 0xc000";
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  static void TearDownTestSuite() { fab_.reset(); }

  // The reference's stdout and status, then ibtool's with the same
  // arguments, then ibtool's with --sa.  expect: the status the reference
  // must have, so that the case cannot pass by all three failing alike.
  static void same_as_reference(const std::vector<std::string>& args, int expect) {
    std::vector<std::string> ref{"ibtracert"}, ours{IBTOOL, "ibtracert"}, sa{IBTOOL, "ibtracert", "--sa"};
    for (const auto& a : args) {
      ref.push_back(a);
      ours.push_back(a);
      sa.push_back(a);
    }
    auto r = fab_->run(ref);
    auto o = fab_->run(ours);
    auto s = fab_->run(sa);
    std::string what;
    for (const auto& a : args) what += " " + a;
    EXPECT_EQ(r.status, expect) << "reference ibtracert" << what << "\n" << r.err;
    if (expect == 0) {
      EXPECT_NE(r.out.find("From"), std::string::npos) << "reference ibtracert" << what << "\n" << r.out;
    }
    EXPECT_EQ(o.out, r.out) << "ibtracert" << what << "\n" << o.err;
    EXPECT_EQ(o.status, r.status) << "ibtracert" << what;
    EXPECT_EQ(s.out, r.out) << "ibtracert --sa" << what << "\n" << s.err;
    EXPECT_EQ(s.status, r.status) << "ibtracert --sa" << what;
  }

  static inline std::unique_ptr<testbed::Fabric> fab_;
  static inline std::string a_, b_;  // LIDs of the two members (Hca1, Hca4)
};

TEST_F(IbtracertSA, MulticastTracesAreTheReferences) {
  // Both directions (a CA source leaves by its own port), -n, a switch as
  // source or destination, a non-member end, an MLID without a group.
  same_as_reference({"-m", "0xc000", a_, b_}, 0);
  same_as_reference({"-m", "0xc000", b_, a_}, 0);
  same_as_reference({"-n", "-m", "0xc000", a_, b_}, 0);
  same_as_reference({"--mlid", "0xc000", "1", b_}, 0);
  same_as_reference({"-m", "0xc000", a_, "3"}, 0);
  same_as_reference({"-m", "0xc000", "4", b_}, 0);
  same_as_reference({"-m", "0xc001", a_, b_}, 255);
  same_as_reference({"-m", "0xc000", a_, a_}, 255);
}

TEST_F(IbtracertSA, SaSendsNoSMP) {
  for (std::vector<std::string> args : {std::vector<std::string>{a_, b_}, {"-m", "0xc000", a_, b_}, {"-G", "0x100001", "0x10000a"},
                                        {"-f", a_, "99"}}) {
    std::vector<std::string> sa{IBTOOL, "ibtracert", "-d", "--sa"}, smp{IBTOOL, "ibtracert", "-d"};
    sa.insert(sa.end(), args.begin(), args.end());
    smp.insert(smp.end(), args.begin(), args.end());
    auto s = fab_->run(sa);
    auto m = fab_->run(smp);
    EXPECT_EQ(s.out, m.out) << s.err;
    EXPECT_EQ(s.status, m.status);
    EXPECT_EQ(rpcs(s.err, "SubnGet(") + rpcs(s.err, "SubnSet("), 0) << s.err;
    EXPECT_GT(rpcs(s.err, "SubnAdmGet"), 0) << s.err;
    // The counter can fail: without --sa the same trace is SMPs.
    EXPECT_GT(rpcs(m.err, "SubnGet("), 0) << m.err;
    // And the comparison cannot pass by both failing: these routes exist
    // (-f to a LID nobody has fails, by route, after the first hops).
    if (args[0] != "-f") {
      EXPECT_EQ(m.status, 0) << m.err;
      EXPECT_NE(m.out.find("From"), std::string::npos) << m.out;
    }
  }
}

}  // namespace
