#include "core/transport/oob.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <memory>

#include "core/base/error.h"

namespace ibcore::oob {

std::string format_dest(const Dest& d) {
  char b[MSG_LEN];
  std::snprintf(b, sizeof b, "%04x:%06x:%06x:%08x:%016llx", unsigned(d.lid), unsigned(d.qpn), unsigned(d.psn),
                unsigned(d.rkey), (unsigned long long)d.vaddr);
  return std::string(b, sizeof b);  // with the NUL, as perftest sends it
}

Dest parse_dest(const std::string& s) {
  unsigned lid, qpn, psn, rkey;
  unsigned long long va;
  char tail;
  if (std::sscanf(s.c_str(), "%x:%x:%x:%x:%llx%c", &lid, &qpn, &psn, &rkey, &va, &tail) != 5 || lid > 0xffff ||
      qpn > 0xffffff || psn > 0xffffff)
    throw ibcore::Error("The peer sent a malformed address message: '" + s + "'");
  return {uint16_t(lid), qpn, psn, rkey, va};
}

Tcp::~Tcp() {
  if (fd_ >= 0) ::close(fd_);
}

Tcp Tcp::accept_one(int port, int timeout_s) {
  int l = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  bool v6 = l >= 0;
  if (!v6) l = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (l < 0) throw ibcore::SysError(errno, "socket");
  Tcp guard;
  guard.fd_ = l;
  int one = 1, zero = 0;
  ::setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  int r;
  if (v6) {
    ::setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_port = htons(uint16_t(port));
    a.sin6_addr = in6addr_any;
    r = ::bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a);
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(port));
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    r = ::bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a);
  }
  if (r < 0 || ::listen(l, 1) < 0)
    throw ibcore::SysError(errno, r < 0 ? "bind" : "listen", "Cannot listen on TCP port " + std::to_string(port));
  pollfd p{l, POLLIN, 0};
  int n = ::poll(&p, 1, timeout_s < 0 ? -1 : timeout_s * 1000);
  if (n <= 0) throw ibcore::Error("No client connected to TCP port " + std::to_string(port) + " in time");
  Tcp t;
  t.fd_ = ::accept4(l, nullptr, nullptr, SOCK_CLOEXEC);
  if (t.fd_ < 0) throw ibcore::SysError(errno, "accept");
  return t;
}

Tcp Tcp::connect_to(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  std::string ps = std::to_string(port);
  if (int e = ::getaddrinfo(host.c_str(), ps.c_str(), &hints, &res))
    throw ibcore::Error("Cannot resolve " + host + ": " + ::gai_strerror(e));
  std::unique_ptr<addrinfo, void (*)(addrinfo*)> hold(res, ::freeaddrinfo);
  int err = 0;
  for (addrinfo* a = res; a; a = a->ai_next) {
    Tcp t;
    t.fd_ = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (t.fd_ < 0) continue;
    if (::connect(t.fd_, a->ai_addr, a->ai_addrlen) == 0) return t;
    err = errno;
  }
  throw ibcore::SysError(err ? err : ECONNREFUSED, "connect",
                         "Cannot connect to rdma_bw server " + host + " port " + ps);
}

void Tcp::write_all(const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::send(fd_, s.data() + done, s.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw ibcore::SysError(errno, "send", "Lost the TCP connection to the peer");
    done += size_t(n);
  }
}

std::string Tcp::read_exact(size_t len, int timeout_s) {
  std::string s(len, '\0');
  size_t got = 0;
  while (got < len) {
    pollfd p{fd_, POLLIN, 0};
    int n = ::poll(&p, 1, timeout_s * 1000);
    if (n == 0) throw ibcore::Error("The peer said nothing for " + std::to_string(timeout_s) + " s");
    if (n < 0 && errno == EINTR) continue;
    ssize_t r = ::recv(fd_, s.data() + got, len - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) throw ibcore::Error("The peer closed the TCP connection");
    got += size_t(r);
  }
  return s;
}

}  // namespace ibcore::oob
