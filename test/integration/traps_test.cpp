// ibsendtrap on ibsim + OpenSM: every trap reaches OpenSM, which logs each
// trap it receives ("Received Generic Notice type:T num:N ... from LID:L"),
// with the details ibsendtrap read from the sending port; and the errors
// (unknown trap, bad port number, a port with no LID).
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <regex>
#include <string>
#include <thread>

#include "test/integration/ibtool_bin.h"
#include "test/integration/sim_ports.h"
#include "test/testbed/fabric.h"

namespace {

using ittest::IBTOOL;

class Traps : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    testbed::FabricOptions o;
    o.tag = "traps";
    fab_ = std::make_unique<testbed::Fabric>(
        "Hca 1 \"Sm\"\n[1] \"Switch1\"[1]\n\n"
        "Hca 1 \"Host\"\n[1] \"Switch1\"[2]\n\n"
        "Switch 8 \"Switch1\"\n[1] \"Sm\"[1]\n[2] \"Host\"[1]\n",
        o);
  }
  static void TearDownTestSuite() { fab_.reset(); }

  static testbed::Result ibtool(std::vector<std::string> args, const std::string& host = "Host") {
    args.insert(args.begin(), {IBTOOL, "ibsendtrap"});
    return fab_->run(args, {{"SIM_HOST", host}});
  }
  // Wait (bounded) for OpenSM's log to gain a line matching re after
  // offset; returns it, or "" when none came.
  static std::string wait_log(size_t from, const std::regex& re) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      std::string log = fab_->opensm_log();
      if (log.size() > from) {
        std::string tail = log.substr(from);
        std::smatch m;
        if (std::regex_search(tail, m, re)) return m.str();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return "";
  }
  static std::string lid_of(const std::string& host) { return simports::lid(*fab_, host); }

  static inline std::unique_ptr<testbed::Fabric> fab_;
};

TEST_F(Traps, EveryTrapReachesTheSM) {
  std::string lid = lid_of("Host");
  ASSERT_FALSE(lid.empty());
  struct Case {
    std::vector<std::string> args;
    int type, number;
  };
  const Case cases[] = {
      {{}, 4, 144},  // the default: node_desc_change
      {{"node_desc_change"}, 4, 144},
      {{"link_speed_enabled_change"}, 4, 144},
      {{"local_link_integrity", "1"}, 1, 129},
      {{"excessive_buffer_overrun"}, 1, 130},
      {{"flow_control_update_expired"}, 1, 131},
      {{"sys_image_guid_change"}, 4, 145},
      {{"mkey_lid"}, 2, 256},
      {{"mkey_dr"}, 2, 256},
      {{"pkey"}, 2, 257},
      {{"qkey"}, 2, 258},
      {{"switch_pkey", "3"}, 2, 259},
  };
  for (const auto& c : cases) {
    std::string name = c.args.empty() ? "node_desc_change" : c.args[0];
    SCOPED_TRACE(name);
    size_t from = fab_->opensm_log().size();
    auto r = ibtool(c.args);
    EXPECT_EQ(r.status, 0) << r.err;
    // ibsim drops the SM's TrapRepress; a real SM path would say
    // "repressed by the SM".
    EXPECT_TRUE(std::regex_match(r.out, std::regex("Sent trap " + std::to_string(c.number) + " \\(" + name +
                                                       "\\) from LID " + lid +
                                                       " to SM LID 1: (repressed by the SM|no TrapRepress within "
                                                       "1000 ms)\n")))
        << r.out << r.err;
    std::regex re("Received Generic Notice type:" + std::to_string(c.type) + " num:" + std::to_string(c.number) +
                  " .* from LID:" + lid + " ");
    EXPECT_NE(wait_log(from, re), "") << "OpenSM did not log the trap; log tail:\n"
                                      << fab_->opensm_log().substr(from);
  }
}

// OpenSM decodes the details and acts on them: it names the change flags
// of a 144 (and re-reads the node description for that flag), the system
// image GUID of a 145 (the node's own), the key, LIDs and QPs of a 258.
TEST_F(Traps, OpenSMReadsTheDetails) {
  std::string lid = lid_of("Host");
  ASSERT_FALSE(lid.empty());
  auto ni = fab_->run({"smpquery", "-D", "nodeinfo", "0"}, {{"SIM_HOST", "Host"}});
  std::smatch m;
  ASSERT_TRUE(std::regex_search(ni.out, m, std::regex("SystemGuid:\\.+(0x[0-9a-f]+)"))) << ni.out;
  std::string sysguid = m[1].str();
  struct Case {
    const char* trap;
    std::string want;
  };
  const Case cases[] = {
      {"node_desc_change", "from LID " + lid + ", GUID 0x[0-9a-f]+, ChangeFlags 0x0001"},
      {"node_desc_change", "Trap 144 Node description update"},
      {"link_speed_enabled_change", "from LID " + lid + ", GUID 0x[0-9a-f]+, ChangeFlags 0x0004"},
      {"sys_image_guid_change", "from LID " + lid + ", GUID 0x[0-9a-f]+, new SysImageGUID " + sysguid},
      {"qkey", "Bad Q_Key:0x80010000 on SL:0 from LID1:1 QP1:0x1 to LID2:" + lid + " QP2:0x1"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.trap) + ": " + c.want);
    size_t from = fab_->opensm_log().size();
    auto r = ibtool({c.trap});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(wait_log(from, std::regex(c.want)), "") << fab_->opensm_log().substr(from);
  }
}

TEST_F(Traps, BadArguments) {
  auto r = ibtool({"no_such_trap"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("unknown trap no_such_trap"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("local_link_integrity"), std::string::npos) << r.err;  // the names are listed

  r = ibtool({"local_link_integrity", "300"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("bad port number 300"), std::string::npos) << r.err;
  r = ibtool({"local_link_integrity", "x"});
  EXPECT_EQ(r.status, 2);
  r = ibtool({"pkey", "1", "extra"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  // No such device.
  r = ibtool({"-C", "nosuchdev", "pkey"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("trap pkey not sent"), std::string::npos) << r.err;
}

// A subnet without an SM: the port has no LID, so nothing is sent.
TEST(TrapsNoSM, PortWithoutLidSendsNothing) {
  testbed::FabricOptions o;
  o.start_sm = false;
  o.tag = "traps-nosm";
  testbed::Fabric f("Hca 1 \"Host\"\n[1] \"Switch1\"[1]\n\nSwitch 8 \"Switch1\"\n[1] \"Host\"[1]\n", o);
  auto r = f.run({IBTOOL, "ibsendtrap", "qkey"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("has no LID"), std::string::npos) << r.err;
}

}  // namespace
