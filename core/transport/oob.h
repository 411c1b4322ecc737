// The out-of-band exchange of two RDMA ends over TCP (rdma_bw, after
// perftest): each tells the other its LID, QPN, PSN, rkey and buffer address
// in perftest's "LID:QPN:PSN:RKEY:VADDR" message, on a TCP connection one
// end accepts and the other makes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ibcore::oob {

// What each end tells the other (perftest's rdma_bw message).
struct Dest {
  uint16_t lid = 0;
  uint32_t qpn = 0, psn = 0, rkey = 0;
  uint64_t vaddr = 0;
};
constexpr size_t MSG_LEN = sizeof "0000:000000:000000:00000000:0000000000000000";

// The message (MSG_LEN bytes, with the NUL, as perftest sends it).
std::string format_dest(const Dest& d);
// A peer's message; Error naming it when malformed.
Dest parse_dest(const std::string& s);

// One TCP connection (closed with the object).  Errors are SysError/Error
// naming what failed.
class Tcp {
public:
  ~Tcp();
  Tcp(Tcp&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  // The first client on port (IPv6 and IPv4), within timeout_s (< 0: forever).
  static Tcp accept_one(int port, int timeout_s);
  // A connection to host:port (any of its addresses).
  static Tcp connect_to(const std::string& host, int port);
  void write_all(const std::string& s);
  // len bytes, each within timeout_s of the one before.
  std::string read_exact(size_t len, int timeout_s);

private:
  Tcp() = default;
  int fd_ = -1;
};

}  // namespace ibcore::oob
