// RDMA devices and end ports, enumerated through libibumad (which works on
// real sysfs and under umad2sim), and parsing of end port descriptions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "iba/struct.h"

namespace ibcore {

struct EndPort {
  std::string ca;            // device name, e.g. "mlx4_0"
  int port = 0;              // port number (1-based)
  uint64_t port_guid = 0;
  uint64_t subnet_prefix = 0;
  uint16_t lid = 0;          // base LID
  uint8_t lmc = 0;
  uint16_t sm_lid = 0;
  uint8_t sm_sl = 0;
  int state = 0;             // 1 Down .. 4 Active (IBA PortState)
  int phys_state = 0;        // 5 LinkUp ...
  int rate = 0;              // Gb/s as libibumad reports it
  uint32_t capmask = 0;
  std::string link_layer;    // "InfiniBand" / "Ethernet" / "IB"
  uint8_t subnet_timeout = 18;  // for MAD timeouts when nothing better is known

  iba::Gid gid() const { return iba::Gid::from(subnet_prefix, port_guid); }
};

struct Device {
  std::string name;
  int node_type = 0;         // 1 CA, 2 switch, 3 router
  std::string ca_type;
  std::string fw_ver;
  std::string hw_ver;
  uint64_t node_guid = 0;
  uint64_t system_guid = 0;
  int numports = 0;          // as the device reports it (switches: their
                             // external ports; only port 0 is an end port)
  std::vector<EndPort> ports;
};

// All devices that could be read (cached after the first call); no
// devices is an empty list.  A device libibumad cannot read is left out
// (get_device_list says which), so one failing device does not hide the
// others (as upstream since rdma-core v54).
const std::vector<Device>& get_devices();

// Up to this many devices (upstream libibumad's limit since rdma-core v60).
constexpr size_t MAX_DEVICES = 128;

struct UnreadableDevice {
  std::string name;
  std::string error;
  // Whether it looks like an RDMA end point (its port 1 has GID 0 or the
  // CM capability bit): upstream's ibstat warns about those and ignores the
  // others (non-RDMA devices in the infiniband class).
  bool rdma_endpoint = false;
};
struct DeviceList {
  std::vector<Device> devices;
  std::vector<UnreadableDevice> unreadable;
};
const DeviceList& get_device_list();
// The list from these device names and a reader that throws for a device
// it cannot read (get_device_list: libibumad's umad_get_ca; tests: a fake).
DeviceList list_devices(const std::vector<std::string>& names,
                        const std::function<Device(const std::string&)>& read);
// The sysfs test for an RDMA end point (see UnreadableDevice).
bool is_rdma_endpoint(const std::string& dev);

// Choose the end port from -C/-P:  ca may be empty (default), a device name
// ("mlx4_0": its first active port, else its first port, unless port != 0), "device/port", a port GID, a
// port GUID, or a node GUID (first port of that device).  Default: the
// first active port, else the first port.  Throws ibcore::Error with a
// message that names what exists when nothing matches.
const EndPort& get_end_port(const std::string& ca = "", int port = 0);

// The same selection over a given device list (get_end_port uses
// get_devices()); the returned reference points into devs.
const EndPort& find_end_port(const std::vector<Device>& devs, const std::string& ca, int port);

// --- planarized HCAs -----------------------------------------------------------------
// A planarized HCA shows one IB port as two devices with the same port
// GUID: the SMI device (SMPs, QP0) and the GSI device (GMPs, QP1), whose
// port announces IsSMDisabled (upstream libibumad's umad_get_smi_gsi_pairs,
// rdma-core v55).  Any other port is both.
struct PortPair {
  const EndPort* smi = nullptr;
  const EndPort* gsi = nullptr;
  bool split() const { return smi != gsi; }
};
// The pair ep belongs to (pointers into devs; both ep when it is not split).
PortPair smi_gsi_pair(const std::vector<Device>& devs, const EndPort& ep);

// --- sysfs node descriptions ------------------------------------------------------
// What libibumad does not read for us comes from sysfs directly.  The root
// is "/sys", or $IBTOOL_SYSFS_ROOT when set (tests build a fake tree there;
// libibumad itself always reads /sys).  umad2sim redirects /sys to its own
// fake tree, which has no node_desc files.

// The sysfs root in use.
std::string sysfs_root();
// The RDMA device names in <root>/class/infiniband, sorted; empty when the
// directory is missing.
std::vector<std::string> sysfs_device_names();
// <root>/class/infiniband/<dev>/node_desc
std::string node_desc_path(const std::string& dev);
// A device's node description as the file holds it (the kernel ends it with
// a newline).  Throws SysError naming the device and the file.
std::string read_node_desc(const std::string& dev);
// Set a device's node description (what the SMA answers to a SubnGet of
// NodeDescription; the IBA attribute is get-only, so this is the only way).
// Throws Error when desc is longer than the 64 bytes of the attribute,
// SysError naming the device and the file when it cannot be written.
void write_node_desc(const std::string& dev, std::string_view desc);
// The length check write_node_desc makes (Error when desc does not fit).
constexpr size_t NODE_DESC_MAX = 64;
void check_node_desc(std::string_view desc);

}  // namespace ibcore
