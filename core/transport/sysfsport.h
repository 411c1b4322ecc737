// A port as the kernel's sysfs shows it, file by file (ibstatus): each file's
// words joined by single spaces, as the classic script reads them, or
// nothing when the file cannot be read.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ibcore {

// Where the kernel lists its InfiniBand devices.
inline constexpr const char* SYSFS_IB = "/sys/class/infiniband";

// The names in a directory, sorted, without the dot entries (none when it
// cannot be read).
std::vector<std::string> list_dir(const std::string& dir);

// One port's files under SYSFS_IB/<dev>/ports/<port> (nullopt: not readable).
struct SysfsPort {
  std::string dev, port;
  std::optional<std::string> gid, lid, sm_lid, state, phys_state, rate, link_layer;
};
SysfsPort read_sysfs_port(const std::string& dev, const std::string& port);

}  // namespace ibcore
