// The MAD transport interface: sends and receives raw 256-byte MADs.
// Transport is what the RPC layer and the scheduler use (tests and the
// fabric model plug in their own); its implementations are Umad and
// SplitTransport (core/transport/umad.h, libibumad) and VerbsMad
// (core/transport/vmad.h, a UD QP).  open_transport() (core/transport/open.h)
// picks one for a local end port.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
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
// else the end port's (-Y/--pkey-idx: PortSettings::pkey_index).
uint16_t pkey_index_of(const IBPath& path, uint8_t mgmt_class, uint16_t port_pkey_index);

// The clock MADs are timed by.  A Transport says what time it is
// (Transport::now): the machine's steady clock, or a fabric model's virtual
// one (test/model), in which recv()'s waits pass virtual time.
using Clock = std::chrono::steady_clock;

class Transport {
public:
  virtual ~Transport() = default;
  // Now, on the clock the engines on this transport time their MADs with
  // (MadEngine's timeouts, resends and BUSY back-off): the steady clock,
  // unless the transport keeps its own (a model's virtual time, advanced
  // by the waits of recv()).
  virtual Clock::time_point now() const { return Clock::now(); }
  // The settings MADs on this end port go out with (PortSettings,
  // core/base/config.h): -t, --retries, the keys, -Y, --sa / --sa-path,
  // --outstanding, -d.  The engines on the port (MadEngine and everything
  // above it) read them here, as python-rdma's end port object carries its
  // own.  open_transport() sets them from the invocation's Config (its
  // PortSettings part); a transport made directly (a test's fake) has the
  // defaults until its owner sets them.
  const PortSettings& settings() const { return settings_; }
  PortSettings& settings() { return settings_; }
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
  // Its number on its device (0: not known).
  virtual uint8_t local_port() const { return 0; }
  // The SM's LID and SL as the port knows them (for the SA path).
  virtual uint16_t sm_lid() const { return 0; }
  virtual uint8_t sm_sl() const { return 0; }
  // Whether LID-routed SMPs may be used from this port.  Not from a
  // planarized HCA (XDR: upstream builds directed routes instead).
  virtual bool lid_routed_smps() const { return true; }

private:
  PortSettings settings_;
};

}  // namespace ibcore
