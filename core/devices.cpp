// Device and end port enumeration through libibumad, and the end port
// selection rules of SPEC.md (Addressing: "The local end port ...").
#include "core/devices.h"

#include <infiniband/umad.h>

#include <endian.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "core/error.h"
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

const std::vector<Device>& get_devices() {
  static std::vector<Device> devs;
  static std::once_flag once;
  std::call_once(once, [] {
    char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
    int n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
    if (n < 0) return;  // no umad support at all: no devices
    for (int i = 0; i < n; ++i) devs.push_back(read_device(names[i]));
  });
  return devs;
}

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

}  // namespace ibcore
