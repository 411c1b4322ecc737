// ibportstate's set operations against the reference (infiniband-diags).
//
// A set changes the fabric, so the reference and ibtool cannot take turns
// on one fabric as the conformance rows do: here each gets a fabric of its
// own, started from the same topology, and both run the same sequence of
// commands; after every step stdout and the exit status must be identical
// (so each step also starts from the same state on both).  OpenSM is
// stopped once the subnet is up: its sweeps would otherwise react to the
// changed ports at different moments on the two fabrics.
//
// The fabric is ibsim's net.2sw2path4hca: Hca1 (local, LID 1) - Switch1
// (LID 2, DR 0,1) port 1; Hca3 on Switch1 port 2; Switch1 ports 3 and 5 -
// Switch2 (LID 3, DR 0,1,3) ports 3 and 5; Hca2 (LID 4) and Hca4 on Switch2
// ports 1 and 2; switch ports 4, 6-8 are not connected.  ibsim does not
// train links: a port set to Polling stays there, and no packet crosses a
// port that is not LinkUp (the steps that then fail must fail alike).
#include <gtest/gtest.h>
#include <signal.h>

#include <memory>
#include <string>
#include <vector>

#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& a : v) s += (s.empty() ? "" : " ") + a;
  return s;
}

class IbPortStateSets : public ::testing::Test {
protected:
  void SetUp() override {
    std::string topo = testbed::generate("example net.2sw2path4hca");
    ref_ = std::make_unique<testbed::Fabric>(topo, testbed::FabricOptions{.tag = "pstate-ref"});
    ibt_ = std::make_unique<testbed::Fabric>(topo, testbed::FabricOptions{.tag = "pstate-ibt"});
    // Stop both SMs (our own children; the Fabric reaps them when it stops).
    ::kill(-ref_->opensm_pid(), SIGKILL);
    ::kill(-ibt_->opensm_pid(), SIGKILL);
  }

  // One step: the reference on its fabric, ibtool on the other; want is
  // the reference's exit status.
  void step(int want, const std::vector<std::string>& args) {
    SCOPED_TRACE("ibportstate " + join(args));
    std::vector<std::string> r = {"ibportstate"}, t = {IBTOOL_PATH, "ibportstate"};
    r.insert(r.end(), args.begin(), args.end());
    t.insert(t.end(), args.begin(), args.end());
    auto a = ref_->run(r, {}, 60);
    auto b = ibt_->run(t, {}, 60);
    ASSERT_FALSE(a.timed_out);
    ASSERT_FALSE(b.timed_out);
    EXPECT_EQ(a.status, b.status) << "reference stderr:\n" << a.err << "ibtool stderr:\n" << b.err;
    EXPECT_EQ(a.out, b.out) << "reference stderr:\n" << a.err << "ibtool stderr:\n" << b.err;
    // What the reference did, so that a step cannot pass by both tools
    // failing alike where the step is meant to work (or the reverse).
    EXPECT_EQ(a.status, want) << a.out << a.err;
  }

  std::unique_ptr<testbed::Fabric> ref_, ibt_;
};

TEST_F(IbPortStateSets, SwitchPortDisableOffOnResetEnable) {
  step(0, {"-D", "0,1", "2"});  // active: the peer (Hca3) is read by DR
  step(0, {"-D", "0,1", "2", "disable"});
  step(255, {"-t", "200", "-D", "0,1", "2"});  // the peer is now out of reach
  step(0, {"-D", "0,1", "2", "off"});
  step(0, {"-D", "0,1", "2", "on"});  // Disabled -> Polling
  step(0, {"-D", "0,1", "2", "on"});  // already enabled: nothing is set
  step(0, {"-D", "0,1", "2", "reset"});
  step(0, {"2", "2", "enable"});  // by LID
  step(255, {"-D", "0,1", "2"});  // Polling: still no peer (ibsim does not train)
}

TEST_F(IbPortStateSets, SwitchPortSpeedsWidthsLidsAndStates) {
  step(0, {"-D", "0,1", "4", "speed", "2", "width", "1"});
  step(0, {"-D", "0,1", "4", "speed", "15", "width", "255"});
  step(0, {"2", "4", "espeed", "1"});
  step(0, {"2", "6", "fdr10", "1"});
  step(0, {"-D", "0,1", "4", "lid", "0x20", "smlid", "0x21", "lmc", "2", "vls", "3", "mtu", "2"});
  step(0, {"-D", "0,1", "4", "down"});
  step(255, {"-D", "0,1", "4", "arm"});  // Down -> Armed: the SMA refuses the set
  step(255, {"-D", "0,1", "4", "active", "speed", "1"});
  step(0, {"-D", "0,1", "4", "query", "width", "2"});
  step(255, {"-D", "0,1", "4", "mkeylease", "5"});  // refused on a switch port
  step(0, {"-D", "0,1", "0", "mkeylease", "7", "mkeyprot", "0"});
  step(0, {"-D", "0,1,3", "7", "disable", "lid", "0x33"});
  step(0, {"-D", "0,1", "4"});
  step(0, {"3", "7"});
}

TEST_F(IbPortStateSets, CaPortStatesLidsAndKeys) {
  // Hca4 (DR 0,1,3,2) and Hca2 (DR 0,1,3,1, LID 4).
  step(0, {"-D", "0,1,3,2", "1", "arm"});
  step(0, {"-D", "0,1,3,2", "1", "active"});
  step(0, {"-D", "0,1,3,2", "1", "down"});
  step(0, {"-D", "0,1,3,2", "1"});
  step(0, {"-D", "0,1,3,1", "1", "lid", "0x40", "lmc", "1", "smlid", "2"});
  step(255, {"-t", "200", "4", "1"});  // LID 4 is gone
  step(0, {"-D", "0,1,3,1", "1", "mkey", "0x1234", "mkeylease", "10"});
  step(0, {"-K", "-D", "0,1,3,1", "1"});
  step(0, {"-D", "0,1,3,1", "1", "speed", "1", "espeed", "0", "fdr10", "0", "width", "2", "vls", "1", "mtu", "4"});
  step(255, {"-D", "0,1,3,2", "1", "disable"});  // the reply cannot come back
  step(255, {"-t", "200", "-D", "0,1,3,2", "1"});
}

}  // namespace
