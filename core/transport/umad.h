// Transports over libibumad (core/transport/transport.h is the interface):
// Umad on one end port (a real /dev/infiniband/umad* or ibsim's umad2sim),
// SplitTransport over a planarized HCA's SMI and GSI devices.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/transport/transport.h"

namespace ibcore {

// libibumad on one end port.  Commands open the end port chosen by -C/-P
// with open_transport(get_end_port(cfg.ca, cfg.port), cfg), or directly:
//   ibcore::Umad umad(ibcore::get_end_port(cfg.ca, cfg.port));
// (a scoped GID path, path.ca/path.port, names the end port too).
class Umad : public Transport {
public:
  // Open the end port (ca empty / port 0: libibumad's default).  Throws
  // SysError when it cannot be opened.
  Umad(const std::string& ca = "", int port = 0);
  // The end port as get_end_port() found it: its LIDs and GID are taken
  // from ep instead of being read from sysfs a second time.
  explicit Umad(const EndPort& ep);
  ~Umad() override;
  Umad(const Umad&) = delete;
  Umad& operator=(const Umad&) = delete;

  int client_agent(uint8_t mgmt_class, uint8_t class_version) override;
  int server_agent(uint8_t mgmt_class, uint8_t class_version, uint32_t method_mask, uint32_t oui = 0) override;
  void send(int agent, const uint8_t* mad, size_t len, const IBPath& path, int timeout_ms) override;
  bool recv(RecvMad& out, int timeout_ms) override;
  int fd() const override { return fd_; }
  uint16_t local_lid() const override { return lid_; }
  uint8_t local_port() const override { return uint8_t(port_); }
  iba::Gid local_gid() const override { return gid_; }
  uint16_t sm_lid() const override { return sm_lid_; }
  uint8_t sm_sl() const override { return sm_sl_; }

  const std::string& ca() const { return ca_; }
  int port() const { return port_; }

private:
  void open(const std::string& ca, int port);
  int portid_ = -1;
  int fd_ = -1;
  std::string ca_;
  int port_ = 0;
  uint16_t lid_ = 0, sm_lid_ = 0;
  uint8_t sm_sl_ = 0;
  iba::Gid gid_;
  std::map<uint32_t, int> agents_;  // (class << 8 | version) -> agent
  // Requests not answered yet (by a response, or a send the kernel gave
  // back timed out), by the TID's low half (ours: the kernel may rewrite
  // the high half), each with the time its own timeout ends: what ~Umad
  // waits for before it gives the port up, and whether an answer may
  // still come after.
  std::unordered_map<uint32_t, std::chrono::steady_clock::time_point> out_;
  void drain();
  void* sbuf_ = nullptr;            // one umad buffer for sends
  void* rbuf_ = nullptr;            // one for receives
};

// One transport over a planarized HCA's two devices (core/transport/devices.h
// PortPair): SMP agents (QP0) on smi, every other class (QP1) on gsi; the
// agents it hands out are its own numbers, so the two devices' agent
// numbers cannot collide.  recv() takes from whichever has a MAD.  Made
// with openers, a device is opened only when a MAD class first needs it:
// a GMP-only command never opens the SMI device (whose umad file may be
// out of reach) and an SMP-only one never the GSI device.
class SplitTransport : public Transport {
public:
  using Opener = std::function<std::unique_ptr<Transport>()>;
  SplitTransport(std::unique_ptr<Transport> smi, std::unique_ptr<Transport> gsi)
      : smi_(std::move(smi)), gsi_(std::move(gsi)) {}
  // Opened on first use; gsi_ep answers local_lid() & co. until then.
  SplitTransport(Opener smi, Opener gsi, const EndPort& gsi_ep)
      : open_smi_(std::move(smi)), open_gsi_(std::move(gsi)), ep_(gsi_ep) {}
  int client_agent(uint8_t mgmt_class, uint8_t class_version) override;
  int server_agent(uint8_t mgmt_class, uint8_t class_version, uint32_t method_mask, uint32_t oui = 0) override;
  void send(int agent, const uint8_t* mad, size_t len, const IBPath& path, int timeout_ms) override;
  bool recv(RecvMad& out, int timeout_ms) override;
  uint16_t local_lid() const override { return gsi_ ? gsi_->local_lid() : ep_.lid; }
  iba::Gid local_gid() const override { return gsi_ ? gsi_->local_gid() : ep_.gid(); }
  uint16_t sm_lid() const override { return gsi_ ? gsi_->sm_lid() : ep_.sm_lid; }
  uint8_t sm_sl() const override { return gsi_ ? gsi_->sm_sl() : ep_.sm_sl; }
  bool lid_routed_smps() const override { return false; }
  Transport& smi();
  Transport& gsi();

private:
  struct Agent {
    Transport* t;
    int native;
  };
  int add(Transport* t, int native);
  bool take(Transport& t, RecvMad& out);
  Opener open_smi_, open_gsi_;
  EndPort ep_;
  std::unique_ptr<Transport> smi_, gsi_;
  std::vector<Agent> agents_;
  bool smi_first_ = false;  // alternate which device recv() asks first
};

}  // namespace ibcore
