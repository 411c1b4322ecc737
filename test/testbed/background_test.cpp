// Background processes of a fabric (start_background, start_sm): they run
// under umad2sim in the scratch directory with their output in files, stop
// on request with their status, and never outlive the fabric.
#include <gtest/gtest.h>
#include <signal.h>

#include <string>

#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

using testbed::Fabric;

TEST(Background, RunsStopsAndDiesWithTheFabric) {
  pid_t left = -1;
  {
    testbed::FabricOptions no_sm;
    no_sm.start_sm = false;
    Fabric f(testbed::generate("example net.2sw2path4hca"), no_sm);
    auto b = f.start_background({"/bin/sh", "-c", "echo \"$IBSIM_SOCKNAME\"; echo oops >&2; exec sleep 100"}, {}, "sh");
    ASSERT_GT(b.pid, 0);
    ASSERT_TRUE(Fabric::wait_until([&] { return !Fabric::read_file(b.err).empty(); }, 10));
    EXPECT_EQ(Fabric::read_file(b.out), f.sockname() + "\n");
    EXPECT_EQ(Fabric::read_file(b.err), "oops\n");
    const pid_t pid = b.pid;
    EXPECT_EQ(f.stop_background(b), 128 + SIGTERM);
    EXPECT_EQ(b.pid, -1);
    EXPECT_EQ(::kill(-pid, 0), -1);  // the group is gone
    // One left running: the fabric stops it.
    auto c = f.start_background({"sleep", "100"});
    left = c.pid;
    EXPECT_EQ(::kill(left, 0), 0);
  }
  EXPECT_EQ(::kill(left, 0), -1);
  EXPECT_FALSE(Fabric::wait_until([] { return false; }, 0.1));
}

TEST(Background, ASecondSmGoesStandbyUnderAHigherPriorityMaster) {
  testbed::FabricOptions o;
  o.opensm_conf = {"sm_priority 10"};
  Fabric f(testbed::generate("example net.2sw2path4hca"), o);
  auto sm = f.start_sm({.host = "Hca2", .conf = {"sm_priority 1"}});
  ASSERT_TRUE(Fabric::wait_until(
      [&] { return Fabric::read_file(sm.log).find("Entering STANDBY state") != std::string::npos; }, 60))
      << Fabric::read_file(sm.log);
  EXPECT_EQ(Fabric::read_file(sm.log).find("Entering MASTER state"), std::string::npos);
  EXPECT_NE(f.stop_background(sm), -1);
}
