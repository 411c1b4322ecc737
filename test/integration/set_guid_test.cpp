// set_guid against OpenSM's SA on a simulated fabric: set an alias GUID and
// read it back with the reference saquery and with ibtool's own query, let
// the SM choose one (GUID 0), delete, and the error cases (malformed port,
// index and GUID, index 0 and beyond GUIDCap, the SA refusing a GUID the
// port already has, deleting what is not there, a LID the SA does not know).
//
// Only the SA's view is checked: ibsim does not implement SubnSet(GUIDInfo),
// so the GUIDInfo the SM then writes to the port does not stick there.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

// The CA port with GUID 0x100004 in net.2sw2path4hca (GUIDCap 32 in
// ibsim); its LID is read from the fabric.
constexpr const char* PORT_GUID = "0000:0000:0010:0004";

class SetGuid : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    fabric_ = new testbed::Fabric(testbed::generate("example net.2sw2path4hca"));
    auto r = fabric_->run({"ibaddr", "-L", "-G", "0x100004"});  // "LID start 4 end 4"
    auto p = r.out.find("LID start ");
    if (p != std::string::npos) lid_ = std::to_string(std::stoul(r.out.substr(p + 10)));
  }
  static void TearDownTestSuite() {
    delete fabric_;
    fabric_ = nullptr;
  }

  static testbed::Result ib(std::vector<std::string> args) {
    args.insert(args.begin(), {IBTOOL_PATH, "set_guid"});
    return fabric_->run(args);
  }
  // The GUID at index i of LID 4 in the reference saquery's GIR output.
  static std::string ref_guid(int i) {
    auto r = fabric_->run({"saquery", "GIR", lid_ + "/" + std::to_string(i / 8)});
    EXPECT_EQ(r.status, 0) << r.err;
    std::string label = "GUID " + std::to_string(i % 8) + ".";
    auto p = r.out.find(label);
    if (p == std::string::npos) return "(no " + label + " in:\n" + r.out + ")";
    p = r.out.find("0x", p);
    return r.out.substr(p, 18);
  }

  void SetUp() override { ASSERT_FALSE(lid_.empty()) << "no LID for port GUID 0x100004"; }

  static testbed::Fabric* fabric_;
  static std::string lid_;
};

testbed::Fabric* SetGuid::fabric_ = nullptr;
std::string SetGuid::lid_;

TEST_F(SetGuid, SetReadBackAndDelete) {
  auto r = ib({lid_, "1", "0x0002c9030000ab01"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("GUIDInfo Record dump:\n\t\tLID........................" + lid_ +
                        "\n\t\tBlock......................0\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\t\tGUID 1.....................0x0002c9030000ab01\n"), std::string::npos) << r.out;
  EXPECT_EQ(ref_guid(1), "0x0002c9030000ab01");
  // Our own query shows the same record as the reference.
  auto ours = fabric_->run({IBTOOL_PATH, "saquery", "GIR", lid_ + "/0"});
  auto theirs = fabric_->run({"saquery", "GIR", lid_ + "/0"});
  EXPECT_EQ(ours.out, theirs.out);
  EXPECT_EQ(ib({"--list", lid_}).out.substr(0, theirs.out.size()), theirs.out);

  // Deleting with the wrong GUID named changes nothing.
  r = ib({"--delete", lid_, "1", "0x1234"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("holds 0x0002c9030000ab01, not 0x0000000000001234"), std::string::npos) << r.err;
  EXPECT_EQ(ref_guid(1), "0x0002c9030000ab01");

  r = ib({"--delete", lid_, "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\t\tGUID 1.....................0x0000000000000000\n"), std::string::npos) << r.out;
  EXPECT_EQ(ref_guid(1), "0x0000000000000000");

  r = ib({"--delete", lid_, "1"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("LID " + lid_ + " has no alias GUID at index 1"), std::string::npos) << r.err;
}

TEST_F(SetGuid, SecondBlockAndPortByGuid) {
  auto r = ib({PORT_GUID, "9", "0x0002c9030000ab09"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\t\tBlock......................1\n"), std::string::npos) << r.out;
  EXPECT_EQ(ref_guid(9), "0x0002c9030000ab09");
  ASSERT_EQ(ib({"--delete", lid_, "9", "0x0002c9030000ab09"}).status, 0);
  EXPECT_EQ(ref_guid(9), "0x0000000000000000");
}

TEST_F(SetGuid, ZeroLetsTheSMChoose) {
  auto r = ib({lid_, "2", "0"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string g = ref_guid(2);
  EXPECT_NE(g, "0x0000000000000000");
  EXPECT_NE(r.out.find("GUID 2....................." + g + "\n"), std::string::npos) << r.out;
  EXPECT_EQ(ib({"--delete", lid_, "2"}).status, 0);
  EXPECT_EQ(ref_guid(2), "0x0000000000000000");
}

TEST_F(SetGuid, SARefusesAGuidThePortAlreadyHas) {
  ASSERT_EQ(ib({lid_, "3", "0x0002c9030000ab03"}).status, 0);
  auto r = ib({lid_, "4", "0x0002c9030000ab03"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("The SA did not take alias GUID 0x0002c9030000ab03 at index 4 of LID " + lid_), std::string::npos)
      << r.err;
  EXPECT_EQ(ref_guid(4), "0x0000000000000000");
  EXPECT_EQ(ib({"--delete", lid_, "3"}).status, 0);
}

TEST_F(SetGuid, BadInputIsAUsageError) {
  struct Case {
    std::vector<std::string> args;
    std::string msg;
  };
  const Case cases[] = {
      {{lid_, "x", "0x5"}, "bad index 'x'"},
      {{lid_, "300", "0x5"}, "bad index '300'"},
      {{lid_, "0", "0x5"}, "index 0 is the port's own GUID"},
      {{lid_, "40", "0x5"}, "(GUIDCap 32: indexes 1..31)"},
      {{lid_, "1", "0xzz"}, "bad GUID '0xzz'"},
      {{lid_, "1", "banana"}, "bad GUID 'banana'"},
      {{"nosuch", "1", "0x5"}, "bad port 'nosuch'"},
      {{lid_, "1"}, "usage: set_guid <port> <index> <guid>"},
      {{"--delete", lid_}, "usage: set_guid --delete"},
      {{"--list", "--delete", lid_, "1"}, "--list and --delete exclude each other"},
  };
  for (const auto& c : cases) {
    auto r = ib(c.args);
    EXPECT_EQ(r.status, 2) << c.msg << "\n" << r.err;
    EXPECT_EQ(r.out, "") << c.msg;
    EXPECT_NE(r.err.find(c.msg), std::string::npos) << r.err;
  }
  EXPECT_EQ(ref_guid(1), "0x0000000000000000");
}

TEST_F(SetGuid, UnknownLidNamesTheSAError) {
  auto r = ib({"99", "1", "0x0002c9030000ab01"});
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("The SA knows no port at LID 99"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ERR_NO_RECORDS"), std::string::npos) << r.err;
}

}  // namespace
