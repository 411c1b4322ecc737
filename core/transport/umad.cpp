#include "core/transport/umad.h"

#include <infiniband/umad.h>
#include <poll.h>

#include <arpa/inet.h>
#include <algorithm>
#include <chrono>
#include <mutex>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <endian.h>

#include "core/base/config.h"
#include "core/base/error.h"
#include "core/out/log.h"
#include "iba/mad.h"

namespace ibcore {

namespace {

constexpr size_t RBUF_MAD = 256;

bool is_smp_class(uint8_t c) { return c == iba::mgmt::SUBN_LID_ROUTED || c == iba::mgmt::SUBN_DIRECTED_ROUTE; }

void init_umad_lib() {
  static bool done = [] {
    if (umad_init() < 0) throw SysError(errno ? errno : EIO, "umad_init");
    return true;
  }();
  (void)done;
}

// Ports given up while an answer could still come (Umad::~Umad).
struct Retired {
  int portid;
  std::vector<int> agents;
  std::chrono::steady_clock::time_point at;
};
// (Never destroyed: at exit the kernel closes them, after any answer.)
std::vector<Retired>& retired() {
  static auto* v = new std::vector<Retired>;
  return *v;
}
std::mutex g_ports_mu;  // guards retired() and g_open_ports
int g_open_ports = 0;   // Umads alive

void close_port(int portid, const std::vector<int>& agents) {
  for (int a : agents) umad_unregister(portid, a);
  umad_close_port(portid);
}

// Retired ports old enough that no answer is coming (or every one: all),
// closed while no other port is open (see ~Umad).  How many were closed.
size_t close_retired(bool all = false) {
  std::lock_guard<std::mutex> lock(g_ports_mu);
  if (g_open_ports) return 0;
  auto now = std::chrono::steady_clock::now();
  return std::erase_if(retired(), [&](const Retired& r) {
    if (!all && now - r.at < std::chrono::seconds(10)) return false;
    close_port(r.portid, r.agents);
    return true;
  });
}

}  // namespace

void Umad::open(const std::string& ca, int port) {
  init_umad_lib();
  close_retired();
  const char* name = ca.empty() ? nullptr : ca.c_str();
  portid_ = umad_open_port(name, port);
  // Ports kept for late answers may be what stands in the way (ibsim takes
  // a handful of clients: a daemon scraping every second under loss kept
  // ten, and its next scrape could not open its port): given up then.
  if (portid_ < 0 && close_retired(true)) portid_ = umad_open_port(name, port);
  if (portid_ < 0)
    throw SysError(-portid_ > 0 ? -portid_ : ENODEV, "umad_open_port",
                   "Cannot open end port " + (ca.empty() ? std::string("(default)") : ca) +
                       (port ? "/" + std::to_string(port) : std::string()));
  {
    std::lock_guard<std::mutex> lock(g_ports_mu);
    ++g_open_ports;
  }
  fd_ = umad_get_fd(portid_);
  sbuf_ = std::calloc(1, umad_size() + RBUF_MAD);
  rbuf_ = std::calloc(1, umad_size() + RBUF_MAD);
  if (!sbuf_ || !rbuf_) throw SysError(ENOMEM, "calloc");
}

Umad::Umad(const EndPort& ep) {
  open(ep.ca, ep.port);
  ca_ = ep.ca;
  port_ = ep.port;
  lid_ = ep.lid;
  sm_lid_ = ep.sm_lid;
  sm_sl_ = ep.sm_sl;
  gid_ = ep.gid();
}

Umad::Umad(const std::string& ca, int port) {
  open(ca, port);
  umad_port_t p{};
  if (umad_get_port(ca.empty() ? nullptr : ca.c_str(), port, &p) == 0) {
    ca_ = p.ca_name;
    port_ = p.portnum;
    lid_ = uint16_t(p.base_lid);
    sm_lid_ = uint16_t(p.sm_lid);
    sm_sl_ = uint8_t(p.sm_sl);
    gid_ = iba::Gid::from(be64toh(p.gid_prefix), be64toh(p.port_guid));
    umad_release_port(&p);
  } else {
    ca_ = ca;
    port_ = port;
  }
}

// Before the port is given up: the answers still due to requests whose
// own timeout has not ended, read and dropped, for 200 ms at most.  A
// kernel would drop them itself; ibsim's umad2sim hands one that arrives
// while the process exits to a receiver thread that its exit handler then
// waits for forever (the handler holds the lock the thread needs), and
// one that arrives after the agents are gone to a null queue.
void Umad::drain() {
  using Clock = std::chrono::steady_clock;
  const auto limit = Clock::now() + std::chrono::milliseconds(200);
  while (true) {
    const auto now = Clock::now();
    auto due = now;
    for (const auto& [tid, until] : out_) due = std::max(due, until);
    due = std::min(due, limit);
    if (due <= now) return;
    RecvMad m;
    recv(m, int(std::chrono::ceil<std::chrono::milliseconds>(due - now).count()));
  }
}

Umad::~Umad() {
  if (portid_ >= 0 && !out_.empty()) {
    try {
      drain();
    } catch (...) {
    }
  }
  if (portid_ >= 0) {
    std::lock_guard<std::mutex> lock(g_ports_mu);
    --g_open_ports;
    std::vector<int> agents;
    for (auto& [k, a] : agents_) agents.push_back(a);
    // A request not answered yet (a node that never answered, a resent
    // one's second reply, a trial given up) may still be: the port and its
    // agents stay until it cannot be, or until the process ends.  With the
    // kernel's umad nothing is lost either way, but ibsim's umad2sim
    // crashes on an answer for a class no agent has (a null queue in its
    // receiver thread), and its unregistering clears the class for every
    // port of the device, so a retired port is closed only while no other
    // is open.
    if (!out_.empty()) {
      auto& v = retired();
      v.push_back({portid_, std::move(agents), std::chrono::steady_clock::now()});
      // (A process that keeps a port open for good while it gives up
      // others never reaches a moment with none open: at most 16 kept.)
      if (v.size() > 16) {
        close_port(v.front().portid, v.front().agents);
        v.erase(v.begin());
      }
    } else {
      close_port(portid_, agents);
    }
  }
  std::free(sbuf_);
  std::free(rbuf_);
}

int Umad::client_agent(uint8_t mgmt_class, uint8_t class_version) {
  uint32_t key = uint32_t(mgmt_class) << 8 | class_version;
  auto it = agents_.find(key);
  if (it != agents_.end()) return it->second;
  // The SA class uses RMPP (the kernel reassembles GetTable replies).
  int rmpp = mgmt_class == iba::mgmt::SUBN_ADM ? 1 : 0;
  int a = umad_register(portid_, mgmt_class, class_version, uint8_t(rmpp), nullptr);
  if (a < 0) {
    char b[64];
    std::snprintf(b, sizeof b, "Cannot register a MAD agent for class 0x%02x version %u", mgmt_class,
                  class_version);
    throw SysError(-a > 0 ? -a : EINVAL, "umad_register", b);
  }
  agents_[key] = a;
  return a;
}

int Umad::server_agent(uint8_t mgmt_class, uint8_t class_version, uint32_t method_mask, uint32_t oui) {
  long mask[16 / sizeof(long)] = {};
  for (int m = 0; m < 32; ++m)
    if (method_mask & (1u << m)) mask[m / (8 * sizeof(long))] |= 1L << (m % (8 * sizeof(long)));
  int a;
  if (iba::mgmt::vendor_oui(mgmt_class)) {
    uint8_t o[3] = {uint8_t(oui >> 16), uint8_t(oui >> 8), uint8_t(oui)};
    a = umad_register_oui(portid_, mgmt_class, 0, o, mask);
  } else {
    a = umad_register(portid_, mgmt_class, class_version, 0, mask);
  }
  if (a < 0) {
    char b[64];
    std::snprintf(b, sizeof b, "Cannot register a MAD server for class 0x%02x version %u", mgmt_class,
                  class_version);
    throw SysError(-a > 0 ? -a : EINVAL, "umad_register", b);
  }
  // Replies to our own requests of this class also come to this agent.
  agents_.emplace(uint32_t(mgmt_class) << 8 | class_version, a);
  return a;
}

void Umad::send(int agent, const uint8_t* mad, size_t len, const IBPath& path, int timeout_ms) {
  uint8_t cls = mad[1];
  std::memset(sbuf_, 0, umad_size());
  std::memcpy(umad_get_mad(sbuf_), mad, len);
  int dlid, dqp, qkey;
  if (is_smp_class(cls)) {
    dqp = 0;
    qkey = 0;
    if (path.is_dr())
      dlid = path.drSLID != LID_PERMISSIVE && path.DLID ? path.DLID : LID_PERMISSIVE;
    else
      dlid = path.DLID;
  } else {
    dqp = path.dqpn ? int(path.dqpn) : 1;
    qkey = int(path.qkey ? path.qkey : GSI_QKEY);
    dlid = path.DLID;
  }
  if (dlid == 0) throw MADError("No destination LID for " + path.describe() + " (resolve it first)");
  umad_set_addr(sbuf_, dlid, dqp, path.SL, qkey);
  umad_set_pkey(sbuf_, pkey_index_of(path, cls, settings().pkey_index));
  if (path.has_grh && !is_smp_class(cls)) {
    ib_mad_addr_t a{};
    a.grh_present = 1;
    std::memcpy(a.gid, path.DGID.raw.data(), 16);
    a.hop_limit = path.hop_limit ? path.hop_limit : 255;
    a.traffic_class = path.traffic_class;
    a.flow_label = htonl(path.flow_label);
    umad_set_grh(sbuf_, &a);
  }
  int r = umad_send(portid_, agent, sbuf_, int(len), timeout_ms, 0);
  if (r < 0) throw SysError(-r > 0 ? -r : EIO, "umad_send");
  if (!(iba::MADHeader::method_at(mad) & iba::method::RESPONSE)) {
    const auto now = std::chrono::steady_clock::now();
    if (out_.size() >= 4096)  // (requests never answered, their time long past)
      std::erase_if(out_, [&](const auto& e) { return e.second < now; });
    out_[uint32_t(iba::MADHeader::transactionID_at(mad))] =
        now + std::chrono::milliseconds(timeout_ms > 0 ? timeout_ms : 1000);
  }
}

bool Umad::recv(RecvMad& out, int timeout_ms) {
  if (timeout_ms != -1) {
    pollfd pfd{fd_, POLLIN, 0};
    int n = ::poll(&pfd, 1, timeout_ms);
    if (n < 0) {
      if (errno == EINTR) return false;
      throw SysError(errno, "poll");
    }
    if (n == 0) return false;
  }
  int len = int(RBUF_MAD);
  void* buf = rbuf_;
  std::vector<uint8_t> big;
  // After our own poll said readable, no second poll inside libibumad.
  int agent = umad_recv(portid_, buf, &len, timeout_ms == -1 ? -1 : 0);
  if (agent == -ENOSPC) {
    // An RMPP reassembled message larger than one MAD: read it whole.
    big.resize(umad_size() + size_t(len));
    buf = big.data();
    agent = umad_recv(portid_, buf, &len, -1);
  }
  if (agent < 0) {
    if (agent == -EAGAIN || agent == -EWOULDBLOCK || agent == -EINTR) return false;
    throw SysError(-agent, "umad_recv");
  }
  const auto* um = static_cast<const ib_user_mad_t*>(buf);
  out.agent = agent;
  out.status = umad_status(buf);
  size_t n = size_t(len);
  const uint8_t* mad = static_cast<const uint8_t*>(umad_get_mad(buf));
  if ((iba::MADHeader::method_at(mad) & iba::method::RESPONSE) || out.status)
    out_.erase(uint32_t(iba::MADHeader::transactionID_at(mad)));
  if (n > iba::MAD_SIZE) {
    out.big.assign(mad, mad + n);
    n = iba::MAD_SIZE;
  } else {
    out.big.clear();
  }
  out.len = n;
  std::memcpy(out.data.data(), mad, n);
  const ib_mad_addr_t& a = um->addr;
  out.addr.qpn = ntohl(a.qpn);
  out.addr.qkey = ntohl(a.qkey);
  out.addr.lid = ntohs(a.lid);
  out.addr.sl = a.sl;
  out.addr.path_bits = a.path_bits;
  out.addr.grh_present = a.grh_present;
  out.addr.gid_index = a.gid_index;
  out.addr.hop_limit = a.hop_limit;
  out.addr.traffic_class = a.traffic_class;
  out.addr.flow_label = ntohl(a.flow_label);
  out.addr.pkey_index = a.pkey_index;
  std::memcpy(out.addr.gid.raw.data(), a.gid, 16);
  return true;
}

// --- SplitTransport ---------------------------------------------------------------------

int SplitTransport::add(Transport* t, int native) {
  for (size_t i = 0; i < agents_.size(); ++i)
    if (agents_[i].t == t && agents_[i].native == native) return int(i);
  agents_.push_back({t, native});
  return int(agents_.size() - 1);
}

Transport& SplitTransport::smi() {
  if (!smi_) {
    smi_ = open_smi_();
    smi_->settings() = settings();
  }
  return *smi_;
}

Transport& SplitTransport::gsi() {
  if (!gsi_) {
    gsi_ = open_gsi_();
    gsi_->settings() = settings();
  }
  return *gsi_;
}

int SplitTransport::client_agent(uint8_t mgmt_class, uint8_t class_version) {
  Transport* t = is_smp_class(mgmt_class) ? &smi() : &gsi();
  return add(t, t->client_agent(mgmt_class, class_version));
}

int SplitTransport::server_agent(uint8_t mgmt_class, uint8_t class_version, uint32_t method_mask, uint32_t oui) {
  Transport* t = is_smp_class(mgmt_class) ? &smi() : &gsi();
  return add(t, t->server_agent(mgmt_class, class_version, method_mask, oui));
}

void SplitTransport::send(int agent, const uint8_t* mad, size_t len, const IBPath& path, int timeout_ms) {
  if (agent < 0 || size_t(agent) >= agents_.size()) throw Error("SplitTransport: unknown agent " + std::to_string(agent));
  const Agent& a = agents_[size_t(agent)];
  a.t->send(a.native, mad, len, path, timeout_ms);
}

bool SplitTransport::take(Transport& t, RecvMad& out) {
  if (!t.recv(out, 0)) return false;
  out.agent = add(&t, out.agent);
  return true;
}

bool SplitTransport::recv(RecvMad& out, int timeout_ms) {
  // Only the devices opened so far (a device nobody sent on has nothing).
  if (!smi_ || !gsi_) {
    Transport* only = smi_ ? smi_.get() : gsi_ ? gsi_.get() : nullptr;
    if (!only) return false;
    if (!only->recv(out, timeout_ms)) return false;
    out.agent = add(only, out.agent);
    return true;
  }
  smi_first_ = !smi_first_;
  Transport& a = smi_first_ ? *smi_ : *gsi_;
  Transport& b = smi_first_ ? *gsi_ : *smi_;
  if (take(a, out) || take(b, out)) return true;
  if (timeout_ms == 0) return false;
  // Wait on both devices' descriptors; without them (a test double), on
  // each in turn for a slice of the time.
  int fa = a.fd(), fb = b.fd();
  if (fa >= 0 && fb >= 0) {
    pollfd p[2] = {{fa, POLLIN, 0}, {fb, POLLIN, 0}};
    int n = ::poll(p, 2, timeout_ms);
    if (n < 0 && errno != EINTR) throw SysError(errno, "poll");
    if (n <= 0) return false;
    return take(a, out) || take(b, out);
  }
  int slice = timeout_ms < 0 ? 5 : std::max(1, timeout_ms / 2);
  if (a.recv(out, slice)) {
    out.agent = add(&a, out.agent);
    return true;
  }
  if (b.recv(out, slice)) {
    out.agent = add(&b, out.agent);
    return true;
  }
  return false;
}

}  // namespace ibcore
