// set_nodedesc on a fake sysfs tree (IBTOOL_SYSFS_ROOT): set, read back,
// show with -v, select with -C, and the errors (a file that cannot be
// written, a device without node_desc, a device that does not exist, a
// description that does not fit).  Also what it says under umad2sim, whose
// fake tree has no node_desc files.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test/testbed/fabric.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string hostname() {
  char h[HOST_NAME_MAX + 1] = {};
  gethostname(h, sizeof h - 1);
  return h;
}

class SetNodeDesc : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/set_nodedesc_test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    fs::permissions(root_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
    for (const char* d : {"mlx5_0", "mlx5_1"}) {
      fs::create_directories(root_ / "class/infiniband" / d);
      std::ofstream(root_ / "class/infiniband" / d / "node_desc") << "factory " << d << "\n";
    }
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  fs::path desc_file(const char* dev) const { return root_ / "class/infiniband" / dev / "node_desc"; }
  testbed::Result ibtool(std::vector<std::string> args, const char* as = "set_nodedesc") const {
    args.insert(args.begin(), {IBTOOL_PATH, as});
    return testbed::run_process(args, {{"IBTOOL_SYSFS_ROOT", root_.string()}, {"LD_PRELOAD", ""}}, root_.string(), 60);
  }

  fs::path root_;
};

TEST_F(SetNodeDesc, SetsEveryDeviceAndReadsBack) {
  auto r = ibtool({"node01 HCA-1"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(slurp(desc_file("mlx5_0")), "node01 HCA-1");
  EXPECT_EQ(slurp(desc_file("mlx5_1")), "node01 HCA-1");
  r = ibtool({"-v"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "mlx5_0: node01 HCA-1\nmlx5_1: node01 HCA-1\n");
}

TEST_F(SetNodeDesc, DefaultIsTheHostName) {
  auto r = ibtool({});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(desc_file("mlx5_0")), hostname());
  EXPECT_EQ(slurp(desc_file("mlx5_1")), hostname());
}

TEST_F(SetNodeDesc, OneDeviceWithCa) {
  auto r = ibtool({"-C", "mlx5_1", "second"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(desc_file("mlx5_0")), "factory mlx5_0\n");
  EXPECT_EQ(slurp(desc_file("mlx5_1")), "second");
  r = ibtool({"-v", "-C", "mlx5_0"});
  EXPECT_EQ(r.out, "mlx5_0: factory mlx5_0\n");
}

TEST_F(SetNodeDesc, LegacyNamePrintsTheScriptsNotice) {
  auto r = ibtool({"-v"}, "set_nodedesc.sh");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "\n*** WARNING ***: this command is deprecated.\n\n"
            "mlx5_0: factory mlx5_0\nmlx5_1: factory mlx5_1\n");
}

TEST_F(SetNodeDesc, UnknownDevice) {
  auto r = ibtool({"-C", "nosuch0", "x"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "E: no RDMA device named 'nosuch0'; devices: mlx5_0 mlx5_1\n");
  EXPECT_EQ(slurp(desc_file("mlx5_0")), "factory mlx5_0\n");
}

TEST_F(SetNodeDesc, NoDevices) {
  fs::remove_all(root_ / "class");
  auto r = ibtool({"x"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no RDMA devices found in " + root_.string() + "/class/infiniband"), std::string::npos) << r.err;
}

TEST_F(SetNodeDesc, DeviceWithoutNodeDescFile) {
  fs::remove(desc_file("mlx5_0"));
  auto r = ibtool({"new"});
  EXPECT_EQ(r.status, 1);
  // The other device is still set; the failing one is named with its file
  // and the reason, and the file is not created.
  EXPECT_EQ(slurp(desc_file("mlx5_1")), "new");
  EXPECT_FALSE(fs::exists(desc_file("mlx5_0")));
  EXPECT_EQ(r.err, "E: Cannot set the node description of mlx5_0 (" + desc_file("mlx5_0").string() +
                       "): open failed: No such file or directory\n");
  r = ibtool({"-v"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "mlx5_1: new\n");
  EXPECT_NE(r.err.find("Cannot read the node description of mlx5_0"), std::string::npos) << r.err;
}

TEST_F(SetNodeDesc, FileThatCannotBeWritten) {
  // As on a real host without root: node_desc is 0644 root's.  Run as
  // nobody when we are root (root writes a 0444 file anyway).
  fs::permissions(desc_file("mlx5_0"), fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  testbed::Result r;
  if (geteuid() == 0) {
    r = testbed::run_process({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", IBTOOL_PATH,
                              "set_nodedesc", "-C", "mlx5_0", "new"},
                             {{"IBTOOL_SYSFS_ROOT", root_.string()}, {"LD_PRELOAD", ""}}, root_.string(), 60);
  } else {
    r = ibtool({"-C", "mlx5_0", "new"});
  }
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_EQ(r.err, "E: Cannot set the node description of mlx5_0 (" + desc_file("mlx5_0").string() +
                       "): open failed: Permission denied\n");
  EXPECT_EQ(slurp(desc_file("mlx5_0")), "factory mlx5_0\n");
}

TEST_F(SetNodeDesc, WriteError) {
  // A write that fails after the open (here: a full device).
  fs::remove(desc_file("mlx5_1"));
  fs::create_symlink("/dev/full", desc_file("mlx5_1"));
  auto r = ibtool({"-C", "mlx5_1", "new"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "E: Cannot set the node description of mlx5_1 (" + desc_file("mlx5_1").string() +
                       "): write failed: No space left on device\n");
}

TEST_F(SetNodeDesc, TooLong) {
  std::string d(65, 'x');
  auto r = ibtool({d});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "E: The node description '" + d + "' is 65 bytes long; NodeDescription holds at most 64\n");
  EXPECT_EQ(slurp(desc_file("mlx5_0")), "factory mlx5_0\n");
  r = ibtool({std::string(64, 'y')});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(desc_file("mlx5_0")), std::string(64, 'y'));
}

TEST_F(SetNodeDesc, Umad2simHasNoNodeDescFiles) {
  // umad2sim's fake sysfs (what the simulated fabric offers) has no
  // node_desc: -v says so for its device and fails.
  testbed::FabricOptions o;
  o.start_sm = false;
  o.tag = "nodedesc";
  testbed::Fabric f("Hca 1 \"host\"\n[1] \"sw\"[1]\n\nSwitch 2 \"sw\"\n[1] \"host\"[1]\n", o);
  auto r = f.run({IBTOOL_PATH, "set_nodedesc", "-v"}, {{"IBTOOL_SYSFS_ROOT", ""}});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("Cannot read the node description of ibsim0 (/sys/class/infiniband/ibsim0/node_desc): "
                       "open failed: No such file or directory"),
            std::string::npos)
      << r.err;
}

}  // namespace
