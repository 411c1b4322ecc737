// The end port chosen when none is named (core/transport/devices
// find_end_port): the first Active one, of any device or of the device
// named, else the first port, which a command that needs an Active port
// (rdma_bw) then refuses by name (issue 27; test/integration/verbs_test.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "core/transport/devices.h"

namespace {

ibcore::Device device(const char* name, std::vector<int> states, uint64_t guid) {
  ibcore::Device d;
  d.name = name;
  d.node_guid = guid;
  for (size_t i = 0; i < states.size(); ++i) {
    ibcore::EndPort p;
    p.ca = name;
    p.port = int(i + 1);
    p.state = states[i];
    p.port_guid = guid + i + 1;
    d.ports.push_back(p);
  }
  return d;
}

TEST(EndPort, TheFirstActivePortWhenNoneIsNamed) {
  // Port 1 unconnected (Down), port 2 up.
  std::vector<ibcore::Device> devs = {device("mlx5_0", {1, 4}, 0x100)};
  EXPECT_EQ(ibcore::find_end_port(devs, "", 0).port, 2);
  EXPECT_EQ(ibcore::find_end_port(devs, "mlx5_0", 0).port, 2);
  // Named: as asked, Active or not.
  EXPECT_EQ(ibcore::find_end_port(devs, "", 1).port, 1);
  EXPECT_EQ(ibcore::find_end_port(devs, "mlx5_0/1", 0).port, 1);
  // A first device with nothing Active: the second device's Active port.
  devs.insert(devs.begin(), device("mlx5_1", {1, 2}, 0x200));
  const ibcore::EndPort& p = ibcore::find_end_port(devs, "", 0);
  EXPECT_EQ(p.ca, "mlx5_0");
  EXPECT_EQ(p.port, 2);
  // Nothing Active anywhere: the first port, whose state the caller sees.
  std::vector<ibcore::Device> down = {device("mlx5_2", {1, 1}, 0x300)};
  EXPECT_EQ(ibcore::find_end_port(down, "", 0).port, 1);
  EXPECT_EQ(ibcore::find_end_port(down, "", 0).state, 1);
}

}  // namespace
