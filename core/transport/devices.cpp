// Device and end port enumeration through libibumad, and the end port
// selection rules of SPEC.md (Addressing: "The local end port ...").
#include "core/transport/devices.h"

#include <infiniband/umad.h>

#include <dirent.h>
#include <dlfcn.h>
#include <endian.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <functional>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/base/error.h"
#include "iba/enums.h"
#include "iba/introspect.h"

namespace ibcore {

namespace {

Device read_device(const char* name) {
  umad_ca_t ca;
  std::memset(&ca, 0, sizeof ca);
  if (umad_get_ca(name, &ca) < 0) throw Error(std::string("cannot read device ") + name);
  Device d;
  d.name = ca.ca_name;
  d.node_type = int(ca.node_type);
  d.ca_type = ca.ca_type;
  d.fw_ver = ca.fw_ver;
  d.hw_ver = ca.hw_ver;
  d.node_guid = be64toh(ca.node_guid);
  d.system_guid = be64toh(ca.system_guid);
  d.numports = ca.numports;
  // Switches expose only port 0; CAs and routers ports 1..numports.
  for (int i = 0; i < UMAD_CA_MAX_PORTS; ++i) {
    const umad_port_t* p = ca.ports[i];
    if (!p) continue;
    EndPort e;
    e.ca = d.name;
    e.port = p->portnum;
    e.port_guid = be64toh(p->port_guid);
    e.subnet_prefix = be64toh(p->gid_prefix);
    e.lid = uint16_t(p->base_lid);
    e.lmc = uint8_t(p->lmc);
    e.sm_lid = uint16_t(p->sm_lid);
    e.sm_sl = uint8_t(p->sm_sl);
    e.state = int(p->state);
    e.phys_state = int(p->phys_state);
    e.rate = int(p->rate);
    e.capmask = be32toh(p->capmask);
    e.link_layer = p->link_layer;
    d.ports.push_back(std::move(e));
  }
  umad_release_ca(&ca);
  return d;
}

std::string describe(const std::vector<Device>& devs) {
  if (devs.empty()) return "no RDMA devices found";
  std::string s = "end ports:";
  for (const auto& d : devs)
    for (const auto& p : d.ports)
      s += " " + d.name + "/" + std::to_string(p.port) + " (port GUID " + iba::guid_str(p.port_guid) +
           ", node GUID " + iba::guid_str(d.node_guid) + ")";
  return s;
}

const EndPort* first_active(const Device& d) {
  for (const auto& p : d.ports)
    if (p.state == 4) return &p;
  return d.ports.empty() ? nullptr : &d.ports.front();
}

const EndPort* port_of(const Device& d, int port) {
  for (const auto& p : d.ports)
    if (p.port == port) return &p;
  return nullptr;
}

[[noreturn]] void fail(const std::string& what, const std::vector<Device>& devs) {
  throw Error(what + "; " + describe(devs));
}

const EndPort& pick_in_device(const Device& d, int port, const std::string& asked,
                              const std::vector<Device>& devs) {
  if (port != 0) {
    if (const EndPort* p = port_of(d, port)) return *p;
    fail("device " + d.name + " has no port " + std::to_string(port) + " (asked for '" + asked + "')", devs);
  }
  if (const EndPort* p = first_active(d)) return *p;
  fail("device " + d.name + " has no ports", devs);
}

}  // namespace

bool is_rdma_endpoint(const std::string& dev) {
  std::string port1 = sysfs_root() + "/class/infiniband/" + dev + "/ports/1/";
  if (::access((port1 + "gids/0").c_str(), F_OK) == 0) return true;
  int fd = ::open((port1 + "cap_mask").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char b[32] = {};
  ssize_t n = ::read(fd, b, sizeof b - 1);
  ::close(fd);
  return n > 0 && (std::strtoul(b, nullptr, 0) & iba::enums::CAP_IS_CM);
}

DeviceList list_devices(const std::vector<std::string>& names, const std::function<Device(const std::string&)>& read) {
  DeviceList l;
  for (const auto& n : names) {
    try {
      l.devices.push_back(read(n));
    } catch (const std::exception& e) {
      l.unreadable.push_back({n, e.what(), is_rdma_endpoint(n)});
    }
  }
  return l;
}

const DeviceList& get_device_list() {
  // A function-local static, not std::call_once: an exception must reach
  // the caller as an error, and unwinding through pthread_once's C frames
  // is not something to rely on.
  static const DeviceList list = [] {
    // Up to MAX_DEVICES names (libibumad's own limit, 32 before rdma-core
    // v58, is only the size of the array we pass).
    std::vector<std::array<char, UMAD_CA_NAME_LEN>> buf(MAX_DEVICES);
    int n = umad_get_cas_names(reinterpret_cast<char(*)[UMAD_CA_NAME_LEN]>(buf.data()), int(buf.size()));
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) names.emplace_back(buf[size_t(i)].data());  // n < 0: no umad support at all
    return list_devices(names, [](const std::string& name) { return read_device(name.c_str()); });
  }();
  return list;
}

const std::vector<Device>& get_devices() { return get_device_list().devices; }

const EndPort& find_end_port(const std::vector<Device>& devs, const std::string& ca, int port) {
  if (port < 0) fail("invalid port number " + std::to_string(port), devs);
  if (ca.empty()) {
    if (port != 0) {
      for (const auto& d : devs)
        if (const EndPort* p = port_of(d, port)) return *p;
      fail("no device has port " + std::to_string(port), devs);
    }
    for (const auto& d : devs)
      for (const auto& p : d.ports)
        if (p.state == 4) return p;
    for (const auto& d : devs)
      if (!d.ports.empty()) return d.ports.front();
    fail("no end port", devs);
  }
  // A device name.
  for (const auto& d : devs)
    if (d.name == ca) return pick_in_device(d, port, ca, devs);
  // device/port
  if (auto slash = ca.rfind('/'); slash != std::string::npos) {
    std::string dev = ca.substr(0, slash);
    auto num = iba::parse_uint(std::string_view(ca).substr(slash + 1));
    if (!num || *num == 0 || *num > 255) fail("bad port number in '" + ca + "'", devs);
    if (port != 0 && uint64_t(port) != *num)
      fail("'" + ca + "' names port " + std::to_string(*num) + " but port " + std::to_string(port) +
               " was also given",
           devs);
    for (const auto& d : devs)
      if (d.name == dev) return pick_in_device(d, int(*num), ca, devs);
    fail("no device named '" + dev + "'", devs);
  }
  // A GUID (port GUID first, then node GUID).
  if (auto guid = iba::parse_guid(ca)) {
    for (const auto& d : devs)
      for (const auto& p : d.ports)
        if (p.port_guid == *guid) {
          if (port != 0 && p.port != port)
            fail("port GUID " + ca + " is port " + std::to_string(p.port) + " of " + d.name + ", not port " +
                     std::to_string(port),
                 devs);
          return p;
        }
    for (const auto& d : devs)
      if (d.node_guid == *guid) return pick_in_device(d, port, ca, devs);
    fail("no end port or device has GUID " + ca, devs);
  }
  // A port GID.
  if (auto gid = iba::parse_gid(ca)) {
    for (const auto& d : devs)
      for (const auto& p : d.ports)
        if (p.gid() == *gid) {
          if (port != 0 && p.port != port)
            fail("port GID " + ca + " is port " + std::to_string(p.port) + " of " + d.name + ", not port " +
                     std::to_string(port),
                 devs);
          return p;
        }
    fail("no end port has GID " + ca, devs);
  }
  fail("'" + ca + "' is not a device, device/port, port GID, port GUID or node GUID", devs);
}

const EndPort& get_end_port(const std::string& ca, int port) {
  return find_end_port(get_devices(), ca, port);
}

PortPair smi_gsi_pair(const std::vector<Device>& devs, const EndPort& ep) {
  PortPair pair{&ep, &ep};
  if (!ep.port_guid) return pair;
  const EndPort *smi = nullptr, *gsi = nullptr;
  int same = 0;
  for (const auto& d : devs)
    for (const auto& p : d.ports) {
      if (p.port_guid != ep.port_guid) continue;
      ++same;
      (p.capmask & iba::enums::CAP_IS_SM_DISABLED ? gsi : smi) = &p;
    }
  // Exactly one of each: a planarized port.  Anything else (one device, or
  // a GUID seen twice without the SMI/GSI split) is used as it is.
  if (same == 2 && smi && gsi) pair = {smi, gsi};
  return pair;
}

// --- sysfs node descriptions ----------------------------------------------------------
// Plain open/read/write/opendir (not stdio or iostreams): umad2sim redirects
// exactly these calls to its fake tree.

std::string sysfs_root() {
  const char* r = std::getenv("IBTOOL_SYSFS_ROOT");
  return r && *r ? std::string(r) : std::string("/sys");
}

std::vector<std::string> sysfs_device_names() {
  std::vector<std::string> out;
  std::string dir = sysfs_root() + "/class/infiniband";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (const dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') out.emplace_back(e->d_name);
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string node_desc_path(const std::string& dev) { return sysfs_root() + "/class/infiniband/" + dev + "/node_desc"; }

std::string read_node_desc(const std::string& dev) {
  std::string path = node_desc_path(dev);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw SysError(errno, "open", "Cannot read the node description of " + dev + " (" + path + ")");
  std::string s;
  char b[256];
  for (;;) {
    ssize_t n = ::read(fd, b, sizeof b);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      throw SysError(err, "read", "Cannot read the node description of " + dev + " (" + path + ")");
    }
    if (n == 0) break;
    s.append(b, size_t(n));
  }
  ::close(fd);
  return s;
}

void check_node_desc(std::string_view desc) {
  if (desc.size() > NODE_DESC_MAX)
    throw Error("The node description '" + std::string(desc) + "' is " + std::to_string(desc.size()) +
                " bytes long; NodeDescription holds at most " + std::to_string(NODE_DESC_MAX));
}

void write_node_desc(const std::string& dev, std::string_view desc) {
  check_node_desc(desc);
  std::string path = node_desc_path(dev);
  std::string what = "Cannot set the node description of " + dev + " (" + path + ")";
  // No O_CREAT: a device without the file cannot have its description set.
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) throw SysError(errno, "open", what);
  size_t done = 0;
  while (done < desc.size()) {
    ssize_t n = ::write(fd, desc.data() + done, desc.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : EIO;
      ::close(fd);
      throw SysError(err, "write", what);
    }
    done += size_t(n);
  }
  if (::close(fd) < 0) throw SysError(errno, "close", what);
}

}  // namespace ibcore
