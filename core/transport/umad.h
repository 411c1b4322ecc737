// The MAD transport: sends and receives raw 256-byte MADs.  Transport is
// the interface the RPC layer and the scheduler use (tests plug in a fake);
// Umad implements it over libibumad (a real /dev/infiniband/umad* or
// ibsim's umad2sim).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/transport/path.h"
#include "iba/mad.h"

namespace ibcore {

// Where a received MAD came from (the header fields of ib_mad_addr), in host
// order.  Kept small and allocation free; to_path() builds an IBPath.
struct MadAddr {
  uint32_t qpn = 0;
  uint32_t qkey = 0;
  uint16_t lid = 0;
  uint8_t sl = 0;
  uint8_t path_bits = 0;
  bool grh_present = false;
  uint8_t gid_index = 0;
  uint8_t hop_limit = 0;
  uint8_t traffic_class = 0;
  uint32_t flow_label = 0;
  uint16_t pkey_index = 0;
  iba::Gid gid;
  // The received packet's headers as a path (SLID = lid, DGID = ours...);
  // reverse(true) it to reply.
  IBPath to_path() const;
};

// One received MAD (or a send the kernel gave up on: status != 0).
struct RecvMad {
  std::array<uint8_t, iba::MAD_SIZE> data{};
  size_t len = 0;
  int status = 0;   // 0, or an errno (ETIMEDOUT) for a failed send
  std::vector<uint8_t> big;  // the whole message when longer than one MAD
                             // (RMPP reassembled by the kernel); data holds
                             // its first 256 bytes
  int agent = -1;
  MadAddr addr;
};

// The P_Key table index a MAD of mgmt_class goes out with on path: 0 for
// SMPs (QP0 has no P_Key check), else the path's (a reply: the request's),
// else the end port's (-Y/--pkey-idx: Config::pkey_index).
uint16_t pkey_index_of(const IBPath& path, uint8_t mgmt_class, uint16_t port_pkey_index);

class Transport {
public:
  virtual ~Transport() = default;
  // The settings MADs on this end port go out with (core/base/config.h): -t,
  // --retries, the keys, -Y, --sa / --sa-path, --outstanding, -d.  The
  // engines on the port (MadEngine and everything above it) read them here,
  // as python-rdma's end port object carries its own.  open_transport()
  // sets them from the invocation's Config; a transport made directly (a
  // test's fake) has the defaults until its owner sets them.
  const Config& settings() const { return settings_; }
  Config& settings() { return settings_; }
  // The agent for sending requests of (mgmt_class, class_version) and
  // getting their replies; registered on first use.
  virtual int client_agent(uint8_t mgmt_class, uint8_t class_version) = 0;
  // Register to receive unsolicited requests of a class (servers, e.g.
  // ibping): method_mask bit m = accept method m.  oui for vendor classes
  // 0x30-0x4f.  Returns the agent.
  virtual int server_agent(uint8_t mgmt_class, uint8_t class_version, uint32_t method_mask,
                           uint32_t oui = 0) = 0;
  // Send one MAD of len bytes along path.  timeout_ms > 0 asks the kernel to
  // hold the send until the reply arrives or the time passes (then it comes
  // back from recv() with status ETIMEDOUT); 0 for replies.
  virtual void send(int agent, const uint8_t* mad, size_t len, const IBPath& path, int timeout_ms) = 0;
  // Receive one MAD, waiting up to timeout_ms (0 = do not wait, -1 =
  // forever).  false when nothing arrived in time.
  virtual bool recv(RecvMad& out, int timeout_ms) = 0;
  // A file descriptor that polls readable when recv() has something, or -1.
  virtual int fd() const { return -1; }
  // The local end port's LID (for SLID / drSLID) and port GID.
  virtual uint16_t local_lid() const { return 0; }
  virtual iba::Gid local_gid() const { return {}; }
  // The SM's LID and SL as the port knows them (for the SA path).
  virtual uint16_t sm_lid() const { return 0; }
  virtual uint8_t sm_sl() const { return 0; }
  // Whether LID-routed SMPs may be used from this port.  Not from a
  // planarized HCA (XDR: upstream builds directed routes instead).
  virtual bool lid_routed_smps() const { return true; }

private:
  Config settings_;
};

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

// The transport for a local end port, as --transport says (cfg.transport),
// carrying cfg as its settings():
// libibumad on it (on a planarized HCA the SMI/GSI pair it belongs to:
// SMPs through one device, GMPs through the other), or GMPs over a verbs
// UD QP (core/transport/vmad.h), or (auto, the default) umad when it opens and verbs
// otherwise.  Throws SysError/Error when it cannot be opened.
std::unique_ptr<Transport> open_transport(const EndPort& ep, const Config& cfg);

// The decision of open_transport over two openers: umad() throws SysError
// when the umad device cannot be opened; verbs(why) gets umad's error (or
// nothing when verbs is forced) for the message an SMP agent request gets.
std::unique_ptr<Transport> choose_transport(
    TransportKind kind, const std::function<std::unique_ptr<Transport>()>& umad,
    const std::function<std::unique_ptr<Transport>(const std::string& umad_error)>& verbs);

}  // namespace ibcore
