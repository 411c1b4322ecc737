// A planarized HCA described by a fake sysfs tree (issue 13): two devices
// with the same port GUID, the second announcing IsSMDisabled, mounted on
// /sys/class in a private mount namespace (unshare -rm, as the test bed's
// sysfs mode does) where libibumad reads it.  No umad device exists there,
// so every open fails, and the failure names the device ibtool chose:
// SMPs go to the SMI device and GMPs to the GSI device, whichever of the
// two -C names; without the IsSMDisabled bit the devices are not paired.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test/testbed/fabric.h"

namespace fs = std::filesystem;

namespace {

void put(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text << "\n";
}

// class/infiniband/mlx5_{0,1} and class/infiniband_mad/umad{0,1}.
void make_tree(const fs::path& root, bool planarized) {
  fs::remove_all(root);
  for (int d = 0; d < 2; ++d) {
    fs::path dev = root / "infiniband" / ("mlx5_" + std::to_string(d));
    put(dev / "node_guid", "0002:c903:0000:149" + std::to_string(d));
    put(dev / "sys_image_guid", "0002:c903:0000:1490");
    put(dev / "node_type", "1: CA");
    put(dev / "fw_ver", "28.40.1000");
    put(dev / "hw_rev", "0x0");
    put(dev / "hca_type", "MT4129");
    fs::path p = dev / "ports" / "1";
    put(p / "lid", "0x5");
    put(p / "lid_mask_count", "0");
    put(p / "sm_lid", "0x1");
    put(p / "sm_sl", "0");
    put(p / "state", "4: ACTIVE");
    put(p / "phys_state", "5: LinkUp");
    put(p / "rate", "400 Gb/sec (4X NDR)");
    put(p / "link_layer", "InfiniBand");
    // One IB port: the same port GUID on both devices.
    put(p / "gids" / "0", "fe80:0000:0000:0000:0002:c903:0000:1499");
    put(p / "pkeys" / "0", "0xffff");
    // The GSI device's port has IsSMDisabled (bit 10) when planarized.
    put(p / "cap_mask", d == 1 && planarized ? "0x2651ec48" : "0x2651e848");
    put(root / "infiniband_mad" / ("umad" + std::to_string(d)) / "ibdev", "mlx5_" + std::to_string(d));
    put(root / "infiniband_mad" / ("umad" + std::to_string(d)) / "port", "1");
  }
  put(root / "infiniband_mad" / "abi_version", "5");
}

testbed::Result run_in(const fs::path& tree, std::vector<std::string> args) {
  std::vector<std::string> a = {"unshare", "-rm", "/bin/sh", "-c", "mount --bind \"$0\" /sys/class && exec \"$@\"",
                                tree.string(), IBTOOL_PATH};
  a.insert(a.end(), args.begin(), args.end());
  return testbed::run_process(a, {{"LD_PRELOAD", ""}, {"IBSIM_SOCKNAME", ""}}, "/", 30);
}

class PlanarSysfs : public ::testing::Test {
protected:
  void SetUp() override {
    tree_ = fs::temp_directory_path() / ("ibtool-planar-" + std::to_string(::getpid()));
    // The namespace must be available (it is for the conformance rows' sysfs mode).
    make_tree(tree_, true);
    auto probe = run_in(tree_, {"ibstat", "-l"});
    if (probe.status != 0 && probe.err.find("unshare") != std::string::npos)
      GTEST_SKIP() << "no private mount namespace here: " << probe.err;
    ASSERT_EQ(probe.status, 0) << probe.err;
    ASSERT_EQ(probe.out, "mlx5_0\nmlx5_1\n");
  }
  void TearDown() override { fs::remove_all(tree_); }
  fs::path tree_;
};

TEST_F(PlanarSysfs, SmpsGoToTheSmiDeviceAndGmpsToTheGsiDevice) {
  for (const char* ca : {"mlx5_0", "mlx5_1"}) {
    auto smp = run_in(tree_, {"smpquery", "-C", ca, "nodeinfo", "5"});
    EXPECT_NE(smp.status, 0);
    EXPECT_NE(smp.err.find("Cannot open end port mlx5_0/1"), std::string::npos) << ca << ": " << smp.err;
    EXPECT_EQ(smp.err.find("mlx5_1/1"), std::string::npos) << ca << ": " << smp.err;
    auto gmp = run_in(tree_, {"perfquery", "-C", ca, "5"});
    EXPECT_NE(gmp.status, 0);
    EXPECT_NE(gmp.err.find("Cannot open end port mlx5_1/1"), std::string::npos) << ca << ": " << gmp.err;
    EXPECT_EQ(gmp.err.find("mlx5_0/1"), std::string::npos) << ca << ": " << gmp.err;
  }
}

TEST_F(PlanarSysfs, WithoutIsSMDisabledTheDevicesAreNotPaired) {
  make_tree(tree_, false);
  auto smp = run_in(tree_, {"smpquery", "-C", "mlx5_1", "nodeinfo", "5"});
  EXPECT_NE(smp.err.find("Cannot open end port mlx5_1/1"), std::string::npos) << smp.err;
  auto gmp = run_in(tree_, {"perfquery", "-C", "mlx5_0", "5"});
  EXPECT_NE(gmp.err.find("Cannot open end port mlx5_0/1"), std::string::npos) << gmp.err;
}

}  // namespace
