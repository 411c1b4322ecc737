// The output level (issue 27): compat = current in ibdiag.conf (read in any
// spelling of -z), IBTOOL_COMPAT and --compat, each overriding the one
// before; at current, smpquery portinfo and saquery PortInfoRecord end with
// XDR's three lines as upstream prints them (the golden rows of
// test/conformance/rows/compat_current.rows check the bytes against
// upstream's own output), at 44 (the default) not on ibsim's ports.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>

#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

class Compat : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    f_ = std::make_unique<testbed::Fabric>(testbed::generate("example net.2sw2path4hca"));
    std::ofstream(f_->dir() + "/current.conf") << "# ibtool's output level\ncompat = current\n";
  }
  static void TearDownTestSuite() { f_.reset(); }
  static testbed::Result ibtool(std::vector<std::string> args, const testbed::Env& env = {}) {
    args.insert(args.begin(), IBTOOL_PATH);
    return f_->run(args, env, 60);
  }
  // Whether a run succeeded with (true) or without XDR's lines.
  static bool xdr_lines(const testbed::Result& r) {
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out.find("LinkSpeedExtActive2:.............No Extended Speed 2\n") != std::string::npos &&
           r.out.find("LinkSpeedExtEnabled2:............0\n") != std::string::npos;
  }
  static inline std::unique_ptr<testbed::Fabric> f_;
};

TEST_F(Compat, EverySourceOfTheSettingInItsOrder) {
  std::string conf = f_->dir() + "/current.conf";
  EXPECT_FALSE(xdr_lines(ibtool({"smpquery", "pi", "1"})));
  for (std::vector<std::string> z : std::vector<std::vector<std::string>>{
           {"-z", conf}, {"-z" + conf}, {"--config=" + conf}, {"--conf", conf}}) {
    std::vector<std::string> a = {"smpquery"};
    a.insert(a.end(), z.begin(), z.end());
    a.insert(a.end(), {"pi", "1"});
    EXPECT_TRUE(xdr_lines(ibtool(a))) << z[0];
  }
  EXPECT_TRUE(xdr_lines(ibtool({"saquery", "-z", conf, "PIR", "1/1"})));
  // The environment over the file, the line over both.
  EXPECT_FALSE(xdr_lines(ibtool({"smpquery", "-z", conf, "pi", "1"}, {{"IBTOOL_COMPAT", "44"}})));
  EXPECT_TRUE(xdr_lines(ibtool({"smpquery", "pi", "1"}, {{"IBTOOL_COMPAT", "current"}})));
  EXPECT_FALSE(xdr_lines(ibtool({"smpquery", "--compat", "44", "pi", "1"}, {{"IBTOOL_COMPAT", "current"}})));
  EXPECT_FALSE(xdr_lines(ibtool({"saquery", "--compat=44", "-z", conf, "PIR", "1/1"})));
  // The same run at both levels differs by those three lines only.
  auto a = ibtool({"smpquery", "pi", "1", "1"});
  auto b = ibtool({"smpquery", "--compat", "current", "pi", "1", "1"});
  EXPECT_EQ(b.out, a.out +
                       "LinkSpeedExtActive2:.............No Extended Speed 2\n"
                       "LinkSpeedExtSupported2:..........0\n"
                       "LinkSpeedExtEnabled2:............0\n");
}

}  // namespace
