// End port selection (core/transport/devices.h) over a made-up device list.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "core/transport/devices.h"

namespace {

using ibcore::Device;
using ibcore::EndPort;

std::vector<Device> devices() {
  std::vector<Device> v(2);
  v[0].name = "mlx4_0";
  v[0].node_guid = 0x0002c90300001490;
  v[0].numports = 2;
  for (int p = 1; p <= 2; ++p) {
    EndPort e;
    e.ca = "mlx4_0";
    e.port = p;
    e.port_guid = 0x0002c90300001490 + p;
    e.subnet_prefix = 0xfe80000000000000;
    e.state = p == 2 ? 4 : 1;  // port 1 down, port 2 active
    v[0].ports.push_back(e);
  }
  v[1].name = "mlx5_1";
  v[1].node_guid = 0x0002c90300002000;
  v[1].numports = 1;
  EndPort e;
  e.ca = "mlx5_1";
  e.port = 1;
  e.port_guid = 0x0002c90300002001;
  e.subnet_prefix = 0xfe80000000000000;
  e.state = 4;
  v[1].ports.push_back(e);
  return v;
}

std::string pick(const std::vector<Device>& d, const std::string& ca, int port = 0) {
  const EndPort& e = ibcore::find_end_port(d, ca, port);
  return e.ca + "/" + std::to_string(e.port);
}

TEST(EndPort, Default) {
  auto d = devices();
  EXPECT_EQ(pick(d, ""), "mlx4_0/2");  // first active
  EXPECT_EQ(pick(d, "", 1), "mlx4_0/1");
  auto down = d;
  for (auto& dev : down)
    for (auto& p : dev.ports) p.state = 1;
  EXPECT_EQ(pick(down, ""), "mlx4_0/1");  // none active: first port
}

TEST(EndPort, DeviceAndDevicePort) {
  auto d = devices();
  EXPECT_EQ(pick(d, "mlx4_0"), "mlx4_0/2");
  EXPECT_EQ(pick(d, "mlx4_0", 1), "mlx4_0/1");
  EXPECT_EQ(pick(d, "mlx5_1"), "mlx5_1/1");
  EXPECT_EQ(pick(d, "mlx4_0/1"), "mlx4_0/1");
  EXPECT_EQ(pick(d, "mlx4_0/1", 1), "mlx4_0/1");
  EXPECT_THROW(pick(d, "mlx4_0/1", 2), std::exception);  // contradicting -P
  EXPECT_THROW(pick(d, "mlx4_0/3"), std::exception);
  EXPECT_THROW(pick(d, "mlx4_0/x"), std::exception);
  EXPECT_THROW(pick(d, "mlx4_0", 7), std::exception);
}

TEST(EndPort, Guids) {
  auto d = devices();
  EXPECT_EQ(pick(d, "0x0002c90300001491"), "mlx4_0/1");       // port GUID
  EXPECT_EQ(pick(d, "0002:c903:0000:1491"), "mlx4_0/1");      // colon form
  EXPECT_EQ(pick(d, "0x0002c90300002001"), "mlx5_1/1");
  EXPECT_EQ(pick(d, "0x0002c90300001490"), "mlx4_0/2");       // node GUID: first active
  EXPECT_EQ(pick(d, "0x0002c90300001490", 1), "mlx4_0/1");
  EXPECT_THROW(pick(d, "0x0002c90300001491", 2), std::exception);
  EXPECT_THROW(pick(d, "0x1234"), std::exception);
}

TEST(EndPort, Gids) {
  auto d = devices();
  EXPECT_EQ(pick(d, "fe80::2:c903:0:1492"), "mlx4_0/2");
  EXPECT_EQ(pick(d, "fe80:0000:0000:0000:0002:c903:0000:2001"), "mlx5_1/1");
  EXPECT_THROW(pick(d, "fe80::1"), std::exception);
}

TEST(EndPort, ErrorsNameWhatExists) {
  auto d = devices();
  try {
    pick(d, "nosuchdev");
    FAIL();
  } catch (const std::exception& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("nosuchdev"), std::string::npos) << m;
    EXPECT_NE(m.find("mlx4_0/1"), std::string::npos) << m;
    EXPECT_NE(m.find("mlx5_1/1"), std::string::npos) << m;
  }
  try {
    ibcore::find_end_port({}, "", 0);
    FAIL();
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("no RDMA devices"), std::string::npos) << e.what();
  }
}

}  // namespace

// --- The device list: a device that cannot be read (issue 13, upstream
// rdma-core v54 and v60's ibstat / libibumad) ---------------------------------

namespace {

struct FakeSysfs {
  std::string root;
  std::string was;
  FakeSysfs() {
    char t[] = "/tmp/ibtool-sysfs-XXXXXX";
    root = ::mkdtemp(t);
    const char* old = std::getenv("IBTOOL_SYSFS_ROOT");
    was = old ? old : "";
    ::setenv("IBTOOL_SYSFS_ROOT", root.c_str(), 1);
  }
  ~FakeSysfs() {
    if (was.empty()) ::unsetenv("IBTOOL_SYSFS_ROOT");
    else ::setenv("IBTOOL_SYSFS_ROOT", was.c_str(), 1);
    std::string cmd = "rm -rf '" + root + "'";
    (void)std::system(cmd.c_str());
  }
  void file(const std::string& rel, const std::string& text) {
    std::string path = root + "/" + rel;
    std::string dir = path.substr(0, path.rfind('/'));
    std::string cmd = "mkdir -p '" + dir + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
};

Device named(const std::string& n) {
  Device d;
  d.name = n;
  return d;
}

}  // namespace

TEST(DeviceList, OneFailingDeviceDoesNotHideTheOthers) {
  FakeSysfs fs;
  fs.file("class/infiniband/mlx5_1/ports/1/gids/0", "fe80:0000:0000:0000:0002:c903:0000:2001\n");
  fs.file("class/infiniband/hfi_ctl/ports/1/cap_mask", "0x00000000\n");
  fs.file("class/infiniband/cm_only/ports/1/cap_mask", "0x00010000\n");
  auto l = ibcore::list_devices({"mlx5_0", "mlx5_1", "hfi_ctl", "cm_only", "mlx5_2"}, [](const std::string& n) {
    if (n == "mlx5_0" || n == "mlx5_2") return named(n);
    throw std::runtime_error("cannot read device " + n);
  });
  ASSERT_EQ(l.devices.size(), 2u);
  EXPECT_EQ(l.devices[0].name, "mlx5_0");
  EXPECT_EQ(l.devices[1].name, "mlx5_2");
  ASSERT_EQ(l.unreadable.size(), 3u);
  EXPECT_EQ(l.unreadable[0].name, "mlx5_1");
  EXPECT_TRUE(l.unreadable[0].rdma_endpoint);  // has GID 0
  EXPECT_EQ(l.unreadable[0].error, "cannot read device mlx5_1");
  EXPECT_FALSE(l.unreadable[1].rdma_endpoint);  // neither GID 0 nor CM: not RDMA
  EXPECT_TRUE(l.unreadable[2].rdma_endpoint);   // the CM capability bit
}
