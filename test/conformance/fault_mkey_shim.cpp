// An M_Key-protected node on the simulated fabric, for the fault matrix
// (fault_matrix.cpp): ibsim answers every SMP and never checks M_Keys, so
// this small LD_PRELOAD library, loaded in front of umad2sim in a client
// (the reference tool or ibtool alike), plays the protected SMA's refusal:
// an SMP that reaches the protected node with a wrong M_Key is never sent,
// as from a port at M_KeyProtectBits 2 or 3 (IBA 14.2.4: Gets and Sets
// without the key are dropped and only counted).  The client learns it the
// way it learns of any MAD ibsim drops: the simulator hands the request
// back with status ETIMEDOUT (as the kernel does when a send times out), so
// the shim sends it on made unroutable (a directed route whose first hop
// leaves by a port that does not exist, a LID no switch forwards) instead
// of swallowing it.  Nothing else changes: other nodes, GMPs and
// the SM (which runs without the shim, as an SM that holds the key) see the
// fabric as it is.
//
// Which node an SMP reaches: a LID-routed SMP by its destination LID; a
// directed-route SMP by following its initial path through the topology
// file, hop by hop, from the node the client is attached to (SIM_HOST, or
// the first node of the file, as ibsim does), as the switches would.
//
// Environment (all four needed, else the shim passes everything):
//   FM_MKEY_TOPO  the ibsim net file (`Switch N "name"` / `Hca N "name"`
//                 headers, `[port] "peer"[peerport]` lines)
//   FM_MKEY_NODE  the protected node's name
//   FM_MKEY_LID   its LID (decimal or 0x hex)
//   FM_MKEY_KEY   its M_Key (an SMP carrying exactly this key passes)
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace {

// struct ib_user_mad (rdma/ib_user_mad.h): the MAD follows 64 bytes of
// header; the destination LID (network order) is at 28 (addr.lid).
constexpr size_t kUmadHeader = 64, kLidOffset = 28, kMadSize = 256;
// A unicast LID no switch has a route for (the test fabrics are small).
constexpr uint16_t kNoRoute = 0xbfff;

struct Topology {
  struct Node {
    std::string name;
    bool sw = false;
    std::map<unsigned, std::pair<std::string, unsigned>> peer;  // port -> (node, port)
  };
  std::map<std::string, Node> nodes;
  std::string first;
};

struct State {
  bool enabled = false;
  Topology topo;
  std::string node, host;
  uint16_t lid = 0;
  uint64_t key = 0;
  bool umad_fd[65536] = {};
};

State* g_state = nullptr;

// The quoted name after position p in line; advances p past it.
bool quoted(const std::string& line, size_t& p, std::string& out) {
  size_t a = line.find('"', p);
  if (a == std::string::npos) return false;
  size_t b = line.find('"', a + 1);
  if (b == std::string::npos) return false;
  out = line.substr(a + 1, b - a - 1);
  p = b + 1;
  return true;
}

bool load_topology(const char* path, Topology& t) {
  FILE* f = std::fopen(path, "r");
  if (!f) return false;
  char buf[4096];
  Topology::Node* cur = nullptr;
  while (std::fgets(buf, sizeof buf, f)) {
    std::string line = buf;
    size_t p = 0;
    while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
    if (line.compare(p, 6, "Switch") == 0 || line.compare(p, 3, "Hca") == 0 || line.compare(p, 2, "Rt") == 0) {
      std::string name;
      size_t q = p;
      if (!quoted(line, q, name)) continue;
      Topology::Node& n = t.nodes[name];
      n.name = name;
      n.sw = line.compare(p, 6, "Switch") == 0;
      if (t.first.empty()) t.first = name;
      cur = &n;
    } else if (line[p] == '[' && cur) {
      unsigned port = unsigned(std::strtoul(line.c_str() + p + 1, nullptr, 10));
      std::string peer;
      size_t q = p;
      if (!quoted(line, q, peer)) continue;
      size_t br = line.find('[', q);
      if (br == std::string::npos) continue;
      cur->peer[port] = {peer, unsigned(std::strtoul(line.c_str() + br + 1, nullptr, 10))};
    }
  }
  std::fclose(f);
  return !t.first.empty();
}

State* state() {
  if (g_state) return g_state;
  auto* s = new State;
  const char *topo = std::getenv("FM_MKEY_TOPO"), *node = std::getenv("FM_MKEY_NODE"),
             *lid = std::getenv("FM_MKEY_LID"), *key = std::getenv("FM_MKEY_KEY");
  if (topo && node && lid && key && load_topology(topo, s->topo)) {
    s->enabled = true;
    s->node = node;
    s->lid = uint16_t(std::strtoul(lid, nullptr, 0));
    s->key = std::strtoull(key, nullptr, 0);
    const char* host = std::getenv("SIM_HOST");
    s->host = host && *host ? host : s->topo.first;
  }
  g_state = s;
  return s;
}

uint64_t be64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return v;
}

// The node a directed-route SMP's initial path leads to ("" where it
// leaves by a port without a link, as a switch would drop it).
std::string dr_target(const State& s, const uint8_t* mad) {
  unsigned hops = mad[7];
  std::string cur = s.host;
  for (unsigned i = 1; i <= hops && i < 64; ++i) {
    auto n = s.topo.nodes.find(cur);
    if (n == s.topo.nodes.end()) return "";
    unsigned port = mad[128 + i];
    if (i == 1 && !n->second.sw) port = 1;  // umad2sim shows a client its port 1
    auto pe = n->second.peer.find(port);
    if (pe == n->second.peer.end()) return "";
    cur = pe->second.first;
  }
  return cur;
}

// Whether the protected SMA refuses this MAD (a write of one ib_user_mad).
bool refused(const void* buf, size_t count) {
  State* s = state();
  if (!s->enabled || count < kUmadHeader + kMadSize) return false;
  const auto* u = static_cast<const uint8_t*>(buf);
  const uint8_t* mad = u + kUmadHeader;
  uint8_t cls = mad[1], method = mad[3];
  if (cls != 0x01 && cls != 0x81) return false;
  if (method & 0x80) return false;  // a response (a trap repress, ...)
  if (be64(mad + 24) == s->key) return false;
  if (cls == 0x01) return (uint16_t(u[kLidOffset] << 8 | u[kLidOffset + 1])) == s->lid;
  // Directed route: only a fully directed one (DrSLID and DrDLID
  // permissive) is followed through the file; ibsim does not route others.
  if (!(mad[32] == 0xff && mad[33] == 0xff && mad[34] == 0xff && mad[35] == 0xff)) return false;
  return dr_target(*s, mad) == s->node;
}

template <typename F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" {

int open(const char* path, int flags, ...) {
  static auto real = next<int (*)(const char*, int, ...)>("open");
  mode_t mode = 0;
  if (flags & (O_CREAT | O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    mode = mode_t(va_arg(ap, int));
    va_end(ap);
  }
  int fd = real(path, flags, mode);
  if (fd >= 0 && fd < 65536 && path && std::strncmp(path, "/dev/infiniband/umad", 20) == 0)
    state()->umad_fd[fd] = true;
  return fd;
}

int close(int fd) {
  static auto real = next<int (*)(int)>("close");
  if (fd >= 0 && fd < 65536 && g_state) g_state->umad_fd[fd] = false;
  return real(fd);
}

ssize_t write(int fd, const void* buf, size_t count) {
  static auto real = next<ssize_t (*)(int, const void*, size_t)>("write");
  if (fd >= 0 && fd < 65536 && g_state && g_state->umad_fd[fd] && refused(buf, count)) {
    std::vector<uint8_t> copy(static_cast<const uint8_t*>(buf), static_cast<const uint8_t*>(buf) + count);
    uint8_t* mad = copy.data() + kUmadHeader;
    if (mad[1] == 0x81) {
      mad[128 + 1] = 0xff;  // the first hop leaves by port 255
    } else {
      copy[kLidOffset] = uint8_t(kNoRoute >> 8);
      copy[kLidOffset + 1] = uint8_t(kNoRoute & 0xff);
    }
    return real(fd, copy.data(), count);
  }
  return real(fd, buf, count);
}

}  // extern "C"
