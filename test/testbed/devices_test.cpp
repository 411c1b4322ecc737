// End port selection (core/devices.h) over a made-up device list.
#include <gtest/gtest.h>

#include "core/devices.h"

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
