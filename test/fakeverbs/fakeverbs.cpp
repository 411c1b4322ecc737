// A test-only stand-in for libibverbs (built as libibverbs.so.1 under the
// build tree, found first through LD_LIBRARY_PATH): the verbs ibtool calls,
// over what this machine has instead of an RDMA device.  HACKING.md says
// how to use it.
//
// - Devices: one per CA libibumad lists (so under ibsim's umad2sim, the
//   simulated node's ports, GUIDs and LIDs); ports, GIDs and P_Keys from
//   libibumad too.
// - UD QPs: a send to QP1 goes out through libibumad (under umad2sim it
//   reaches ibsim and OpenSM's SA and the PMAs for real); the reply comes
//   back as a receive completion with the 40 GRH bytes in front, from a
//   thread that reads the umad port.  RMPP ACK/STOP/ABORT sent to QP1 are
//   consumed here, as the responder's kernel RMPP engine would.  A send to
//   another QPN goes to that fake QP if one exists on this machine (any
//   process: the same sockets as RC), checked against its Q_Key and state,
//   and is lost otherwise, as an unanswered UD packet is.
// - RC and UC QPs: each QP is a Unix datagram socket named by its QPN in
//   the abstract namespace, so two processes on this machine connect
//   their QPs as two hosts would.  The QP state machine and the attribute
//   masks of each transition are checked as the kernel checks them
//   (ibv_modify_qp returns EINVAL); packets carry PSNs, the destination
//   LID and QPN, and are checked against the receiving QP's attributes;
//   RDMA WRITE (with and without immediate), SEND and RDMA READ move real
//   bytes between the processes' registered memory, checked against the
//   MR's rkey, bounds and access flags.  A SEND with no receive posted
//   waits for one (RNR retry "forever").  Errors complete with the status
//   a HCA gives (remote access, length, retry exceeded) and move the QP to
//   the error state, flushing what is left.
//
// Nothing here is ibtool's product code; nothing in it is copied from
// rdma-core.  Only the structure layouts of <infiniband/verbs.h> are shared.
#include <infiniband/umad.h>
#include <infiniband/verbs.h>

#include <arpa/inet.h>
#include <endian.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#undef ibv_query_port
#undef ibv_reg_mr

namespace {

using Clock = std::chrono::steady_clock;

bool trace_on() {
  static bool on = std::getenv("FAKEVERBS_TRACE") != nullptr;
  return on;
}
void trace(const char* fmt, ...) {
  if (!trace_on()) return;
  va_list ap;
  va_start(ap, fmt);
  std::fprintf(stderr, "fakeverbs[%d]: ", int(::getpid()));
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  va_end(ap);
}

// --- devices ----------------------------------------------------------------------------

struct PortInfo {
  int num = 0;
  uint16_t lid = 0, sm_lid = 0;
  uint8_t lmc = 0, sm_sl = 0;
  int state = 0, phys_state = 0, rate = 0;
  uint32_t capmask = 0;
  uint64_t prefix = 0, guid = 0;  // host order
  std::vector<uint16_t> pkeys;
};

struct FakeDevice {
  ibv_device dev{};
  std::string ca;
  uint64_t node_guid = 0, sys_guid = 0;  // host order
  std::string fw;
  std::vector<PortInfo> ports;  // index = port number - 1
};

std::mutex g_mu;  // devices, MR table, QPN table

bool read_device(const char* name, FakeDevice& d) {
  umad_ca_t ca{};
  if (umad_get_ca(name, &ca) < 0) return false;
  d.ca = ca.ca_name;
  d.node_guid = be64toh(ca.node_guid);
  d.sys_guid = be64toh(ca.system_guid);
  d.fw = ca.fw_ver;
  for (int p = 1; p <= ca.numports && p < UMAD_CA_MAX_PORTS; ++p) {
    PortInfo pi;
    pi.num = p;
    if (umad_port_t* u = ca.ports[p]) {
      pi.lid = uint16_t(u->base_lid);
      pi.sm_lid = uint16_t(u->sm_lid);
      pi.lmc = uint8_t(u->lmc);
      pi.sm_sl = uint8_t(u->sm_sl);
      pi.state = int(u->state);
      pi.phys_state = u->phys_state;
      pi.rate = u->rate;
      pi.capmask = ntohl(u->capmask);
      pi.prefix = be64toh(u->gid_prefix);
      pi.guid = be64toh(u->port_guid);
      for (unsigned i = 0; i < unsigned(u->pkeys_size); ++i) pi.pkeys.push_back(ntohs(u->pkeys[i]));
    }
    if (pi.pkeys.empty()) pi.pkeys.push_back(0xffff);
    d.ports.push_back(pi);
  }
  umad_release_ca(&ca);
  d.dev.node_type = IBV_NODE_CA;
  d.dev.transport_type = IBV_TRANSPORT_IB;
  std::snprintf(d.dev.name, sizeof d.dev.name, "%s", d.ca.c_str());
  std::snprintf(d.dev.dev_name, sizeof d.dev.dev_name, "uverbs-%s", d.ca.c_str());
  std::snprintf(d.dev.dev_path, sizeof d.dev.dev_path, "/sys/class/infiniband_verbs/uverbs-%s", d.ca.c_str());
  std::snprintf(d.dev.ibdev_path, sizeof d.dev.ibdev_path, "/sys/class/infiniband/%s", d.ca.c_str());
  return true;
}

FakeDevice* dev_of(ibv_device* d) { return reinterpret_cast<FakeDevice*>(d); }

// --- objects ----------------------------------------------------------------------------

struct FakeContext;

struct FakeChannel {
  ibv_comp_channel ch{};
  int wfd = -1;
};

struct FakeCQ {
  ibv_cq cq{};
  std::mutex mu;
  std::deque<ibv_wc> q;
  bool armed = false;
  bool overflow = false;
  FakeChannel* chan = nullptr;
  void add(const ibv_wc& wc) {
    std::lock_guard<std::mutex> l(mu);
    if (q.size() >= size_t(cq.cqe)) {
      overflow = true;  // a HCA raises a CQ error; the consumer sees missing completions
      return;
    }
    q.push_back(wc);
    if (armed && chan) {
      armed = false;
      ibv_cq* p = &cq;
      if (::write(chan->wfd, &p, sizeof p) != sizeof p) trace("channel write failed");
    }
  }
};

struct FakePD {
  ibv_pd pd{};
};

struct FakeMR {
  ibv_mr mr{};
  int access = 0;
};

struct FakeAH {
  ibv_ah ah{};
  ibv_ah_attr attr{};
};

struct RecvWR {
  uint64_t wr_id = 0;
  std::vector<ibv_sge> sg;
};

struct FakeSRQ {
  ibv_srq srq{};
  std::mutex mu;
  std::deque<RecvWR> q;
  uint32_t max_wr = 0, max_sge = 0;
};

// The wire format between RC/UC QPs (one Unix datagram each).
enum Op : uint8_t { OP_SEND = 1, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ_REQ, OP_READ_RESP, OP_ACK, OP_NAK, OP_UD };
struct Pkt {
  uint32_t magic;
  uint8_t op;
  uint8_t nak;  // OP_NAK: an ibv_wc_status for the requester
  uint16_t dlid;
  uint32_t src_qpn, dst_qpn;
  uint32_t psn;      // of the message's first packet
  uint32_t npkts;    // packets the message counts for in the PSN space
  uint64_t msg;      // requester's message number (ACK/NAK/READ_RESP echo it)
  uint64_t raddr;
  uint32_t rkey;
  uint32_t total;    // message length
  uint32_t offset;   // of this fragment
  uint32_t len;      // of this fragment
  uint32_t imm;      // network order, as posted
  uint8_t last;
};
constexpr uint32_t MAGIC = 0x46564231;  // "FVB1"
constexpr size_t GRH = 40;               // the bytes a UD receive starts with
constexpr size_t FRAG = 32768;

struct Outstanding {
  uint64_t msg = 0;
  uint64_t wr_id = 0;
  bool signaled = false;
  ibv_wc_opcode opcode = IBV_WC_SEND;
  uint32_t len = 0;
  std::vector<ibv_sge> local;  // READ: where the data goes
  Clock::time_point sent;
};

struct Inbound {  // a SEND being received across fragments
  bool active = false;
  uint64_t msg = 0;
  RecvWR wr;
  bool too_long = false;
};

struct FakeQP {
  ibv_qp qp{};
  FakeContext* fctx = nullptr;
  std::mutex mu;
  ibv_qp_cap cap{};
  bool sq_sig_all = false;
  // attributes
  uint8_t port = 0;
  uint16_t pkey_index = 0;
  uint32_t qkey = 0;
  int access = 0;
  ibv_ah_attr av{};
  ibv_mtu mtu = IBV_MTU_1024;
  uint32_t dest_qpn = 0, rq_psn = 0, sq_psn = 0;
  uint8_t timeout = 0, retry_cnt = 0, rnr_retry = 0, min_rnr_timer = 0, max_rd_atomic = 0, max_dest_rd_atomic = 0;
  // queues
  std::deque<RecvWR> rq;
  std::deque<Outstanding> out;
  uint64_t next_msg = 1;
  Inbound in;
  std::deque<std::vector<uint8_t>> held;  // SEND fragments waiting for a receive WR
  // RC/UC plumbing.  Packets are queued in outbox while mu is held and sent
  // after it is released (flush_outbox): a send that blocks on a full peer
  // socket must never hold up this QP's own receive thread.
  // Two boxes: requests (sent by the posting thread, blocking) and
  // responses (ACK, NAK, READ data: sent by whoever queued them, never
  // blocking); each flushed under its own mutex so that packets of one box
  // leave in the order they were queued (PSNs).
  std::vector<std::vector<uint8_t>> outbox[2];
  std::mutex flush_mu[2];
  int sock = -1;
  std::thread thr;
  std::atomic<bool> stop{false};
};

struct UmadPort {
  int portid = -1;
  std::map<std::pair<uint8_t, uint8_t>, int> agents;  // (class, version) -> agent
  std::thread thr;
};

struct FakeContext {
  ibv_context ctx{};
  FakeDevice* dev = nullptr;
  std::mutex mu;
  std::map<int, UmadPort> umad;               // port -> its umad port
  std::map<uint64_t, uint32_t> tid_owner;     // (class << 32 | TID low 32) -> QPN
  std::map<uint64_t, uint64_t> tid_orig;      // same key -> the TID as posted
  std::map<uint32_t, FakeQP*> qps;
  std::atomic<bool> stop{false};
};

FakeContext* fctx_of(ibv_context* c) { return reinterpret_cast<FakeContext*>(c); }
FakeCQ* fcq_of(ibv_cq* c) { return reinterpret_cast<FakeCQ*>(c); }
FakeQP* fqp_of(ibv_qp* q) { return reinterpret_cast<FakeQP*>(q); }
FakeSRQ* fsrq_of(ibv_srq* s) { return reinterpret_cast<FakeSRQ*>(s); }

// The process's MRs by key (remote access arrives with an rkey).
std::map<uint32_t, FakeMR*> g_mrs;
uint32_t g_next_key = 0;

uint32_t new_key() {
  if (!g_next_key) g_next_key = (uint32_t(::getpid()) << 12) | 0x100;
  return g_next_key += 0x100;
}

uint32_t mtu_bytes(ibv_mtu m) { return 128u << int(m); }

// --- QPNs: abstract Unix socket names ----------------------------------------------------------

sockaddr_un qp_addr(uint32_t qpn, socklen_t& len) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  int n = std::snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "ibtool-fakeverbs-qp-%06x", qpn);
  len = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + size_t(n));
  return a;
}

// A socket bound to a fresh QPN (unique on this machine: the bind says so).
int bind_qpn(uint32_t& qpn) {
  static std::mt19937 rng(std::random_device{}() ^ uint32_t(::getpid()));
  int s = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return -1;
  int sz = 4 << 20;
  ::setsockopt(s, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
  ::setsockopt(s, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
  for (int tries = 0; tries < 1000; ++tries) {
    uint32_t n = 0x100 + rng() % (0xffffff - 0x100);
    socklen_t len;
    sockaddr_un a = qp_addr(n, len);
    if (::bind(s, reinterpret_cast<sockaddr*>(&a), len) == 0) {
      qpn = n;
      return s;
    }
    if (errno != EADDRINUSE) break;
  }
  ::close(s);
  return -1;
}

// --- completions and errors -------------------------------------------------------------

void complete(ibv_cq* cq, uint64_t wr_id, ibv_wc_status st, ibv_wc_opcode op, uint32_t len, uint32_t qpn,
              uint32_t src_qp = 0, uint16_t slid = 0, unsigned flags = 0, uint32_t imm = 0) {
  ibv_wc wc{};
  wc.wr_id = wr_id;
  wc.status = st;
  wc.opcode = op;
  wc.byte_len = len;
  wc.qp_num = qpn;
  wc.src_qp = src_qp;
  wc.slid = slid;
  wc.wc_flags = flags;
  wc.imm_data = imm;
  fcq_of(cq)->add(wc);
}

// Move q to the error state and flush every queued work request (q->mu held).
void to_error(FakeQP* q) {
  q->qp.state = IBV_QPS_ERR;
  for (const Outstanding& o : q->out)
    complete(q->qp.send_cq, o.wr_id, IBV_WC_WR_FLUSH_ERR, o.opcode, 0, q->qp.qp_num);
  q->out.clear();
  for (const RecvWR& r : q->rq) complete(q->qp.recv_cq, r.wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0, q->qp.qp_num);
  q->rq.clear();
  if (q->in.active) complete(q->qp.recv_cq, q->in.wr.wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0, q->qp.qp_num);
  q->in = Inbound{};
  q->held.clear();
}

// A local range [addr, addr+len) covered by an MR of pd with lkey and access.
FakeMR* local_mr(ibv_pd* pd, const ibv_sge& s, int need) {
  auto it = g_mrs.find(s.lkey);
  if (it == g_mrs.end()) return nullptr;
  FakeMR* m = it->second;
  if (m->mr.pd != pd || (m->access & need) != need) return nullptr;
  auto base = reinterpret_cast<uintptr_t>(m->mr.addr);
  if (s.addr < base || s.addr + s.length > base + m->mr.length) return nullptr;
  return m;
}

// The remote range an rkey grants, or nullptr.
uint8_t* remote_range(ibv_pd* pd, uint32_t rkey, uint64_t addr, uint64_t len, int need) {
  std::lock_guard<std::mutex> l(g_mu);
  auto it = g_mrs.find(rkey);
  if (it == g_mrs.end()) return nullptr;
  FakeMR* m = it->second;
  if (m->mr.pd != pd || !(m->access & need)) return nullptr;
  auto base = reinterpret_cast<uintptr_t>(m->mr.addr);
  if (addr < base || addr + len > base + m->mr.length) return nullptr;
  return reinterpret_cast<uint8_t*>(addr);
}

// --- RC/UC: the wire ----------------------------------------------------------------------------

enum Box { REQ = 0, RESP = 1 };
bool is_response(uint8_t op) { return op == OP_ACK || op == OP_NAK || op == OP_READ_RESP; }

// Queue a packet (q->mu held).
void queue_pkt(FakeQP* q, const Pkt& h, const uint8_t* data, size_t len) {
  std::vector<uint8_t> b(sizeof h + len);
  std::memcpy(b.data(), &h, sizeof h);
  if (len) std::memcpy(b.data() + sizeof h, data, len);
  q->outbox[is_response(h.op) ? RESP : REQ].push_back(std::move(b));
}

void complete_out(FakeQP* q, uint64_t msg, ibv_wc_status st);

// Send what is queued (q->mu not held).  A request nobody can receive (no
// QP has that number) fails its work request: retry count exceeded.  The
// QP's own thread must not block on a full peer (both ends' threads would
// wait for each other): with nonblock, what does not fit now stays queued,
// in order, for the next turn.  Returns whether everything went.
bool flush_outbox(FakeQP* q, Box box) {
  bool nonblock = box == RESP;
  std::lock_guard<std::mutex> order(q->flush_mu[box]);
  std::vector<std::vector<uint8_t>> out;
  {
    std::lock_guard<std::mutex> l(q->mu);
    out.swap(q->outbox[box]);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const auto& b = out[i];
    Pkt h;
    std::memcpy(&h, b.data(), sizeof h);
    socklen_t al;
    sockaddr_un a = qp_addr(h.dst_qpn, al);
    ssize_t n;
    do n = ::sendto(q->sock, b.data(), b.size(), nonblock ? MSG_DONTWAIT : 0, reinterpret_cast<sockaddr*>(&a), al);
    while (n < 0 && errno == EINTR);
    if (n == ssize_t(b.size())) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      std::lock_guard<std::mutex> l(q->mu);
      q->outbox[box].insert(q->outbox[box].begin(), std::make_move_iterator(out.begin() + long(i)),
                       std::make_move_iterator(out.end()));
      return false;
    }
    trace("sendto qp %06x: %s", h.dst_qpn, std::strerror(errno));
    if (box == REQ && q->qp.qp_type == IBV_QPT_RC) {
      std::lock_guard<std::mutex> l(q->mu);
      complete_out(q, h.msg, IBV_WC_RETRY_EXC_ERR);
    }
  }
  return true;
}

uint32_t npkts_of(uint32_t len, ibv_mtu mtu) { return std::max<uint32_t>(1, (len + mtu_bytes(mtu) - 1) / mtu_bytes(mtu)); }

void reply(FakeQP* q, const Pkt& req, uint8_t op, uint8_t nak = 0) {
  Pkt h{};
  h.magic = MAGIC;
  h.op = op;
  h.nak = nak;
  h.dlid = q->av.dlid;
  h.src_qpn = q->qp.qp_num;
  h.dst_qpn = req.src_qpn;
  h.msg = req.msg;
  queue_pkt(q, h, nullptr, 0);
}

// Scatter len bytes at offset off of a message into a receive WR's list.
bool scatter(const RecvWR& wr, uint32_t off, const uint8_t* data, uint32_t len) {
  for (const ibv_sge& s : wr.sg) {
    if (len == 0) return true;
    if (off >= s.length) {
      off -= s.length;
      continue;
    }
    uint32_t n = std::min(len, s.length - off);
    std::memcpy(reinterpret_cast<uint8_t*>(s.addr) + off, data, n);
    data += n;
    len -= n;
    off = 0;
  }
  return len == 0;
}

uint32_t sg_total(const std::vector<ibv_sge>& sg) {
  uint32_t t = 0;
  for (const auto& s : sg) t += s.length;
  return t;
}

bool take_recv_wr(FakeQP* q, RecvWR& out) {
  if (q->qp.srq) {
    FakeSRQ* s = fsrq_of(q->qp.srq);
    std::lock_guard<std::mutex> l(s->mu);
    if (s->q.empty()) return false;
    out = std::move(s->q.front());
    s->q.pop_front();
    return true;
  }
  if (q->rq.empty()) return false;
  out = std::move(q->rq.front());
  q->rq.pop_front();
  return true;
}

// Handle one SEND / SEND_IMM fragment (q->mu held).  false: no receive WR
// yet (the fragment waits in q->held).
bool on_send_frag(FakeQP* q, const Pkt& h, const uint8_t* data) {
  if (!q->in.active || q->in.msg != h.msg) {
    RecvWR wr;
    if (!take_recv_wr(q, wr)) return false;
    q->in = Inbound{true, h.msg, std::move(wr), false};
    q->in.too_long = h.total > sg_total(q->in.wr.sg);
  }
  if (!q->in.too_long) scatter(q->in.wr, h.offset, data, h.len);
  if (!h.last) return true;
  bool rc = q->qp.qp_type == IBV_QPT_RC;
  if (q->in.too_long) {
    complete(q->qp.recv_cq, q->in.wr.wr_id, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV, 0, q->qp.qp_num, h.src_qpn);
    if (rc) reply(q, h, OP_NAK, IBV_WC_REM_INV_REQ_ERR);
    q->in = Inbound{};
    return true;
  }
  unsigned flags = h.op == OP_SEND_IMM ? IBV_WC_WITH_IMM : 0;
  complete(q->qp.recv_cq, q->in.wr.wr_id, IBV_WC_SUCCESS, IBV_WC_RECV, h.total, q->qp.qp_num, h.src_qpn,
           q->av.dlid, flags, h.imm);
  q->in = Inbound{};
  if (rc) reply(q, h, OP_ACK);
  return true;
}

void complete_out(FakeQP* q, uint64_t msg, ibv_wc_status st) {
  // RC completes in order: everything before msg is done too.
  while (!q->out.empty() && q->out.front().msg <= msg) {
    Outstanding o = std::move(q->out.front());
    q->out.pop_front();
    ibv_wc_status s = o.msg == msg ? st : IBV_WC_SUCCESS;
    if (o.signaled || s != IBV_WC_SUCCESS) complete(q->qp.send_cq, o.wr_id, s, o.opcode, o.len, q->qp.qp_num);
    if (s != IBV_WC_SUCCESS) {
      to_error(q);
      return;
    }
  }
}

// One packet arrived on q's socket.
void on_packet(FakeQP* q, const uint8_t* b, size_t n) {
  if (n < sizeof(Pkt)) return;
  Pkt h;
  std::memcpy(&h, b, sizeof h);
  const uint8_t* data = b + sizeof h;
  if (h.magic != MAGIC || h.dst_qpn != q->qp.qp_num || n != sizeof h + h.len) return;
  std::lock_guard<std::mutex> l(q->mu);
  bool rc = q->qp.qp_type == IBV_QPT_RC;
  if (h.op == OP_UD) {
    // A datagram: for a UD QP past INIT whose Q_Key it carries (h.rkey),
    // on the LID it was sent to; into a posted receive after 40 GRH bytes.
    if (q->qp.qp_type != IBV_QPT_UD || (q->qp.state != IBV_QPS_RTR && q->qp.state != IBV_QPS_RTS)) return;
    if (h.rkey != q->qkey) return;
    const PortInfo& pi = q->fctx->dev->ports.at(q->port - 1);
    uint16_t lmc_mask = uint16_t(~((1u << pi.lmc) - 1));
    if ((h.dlid & lmc_mask) != (pi.lid & lmc_mask)) return;
    RecvWR wr;
    if (!take_recv_wr(q, wr)) return;
    if (sg_total(wr.sg) < GRH + h.len) {
      complete(q->qp.recv_cq, wr.wr_id, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV, 0, q->qp.qp_num);
      return;
    }
    uint8_t grh[GRH] = {};
    scatter(wr, 0, grh, GRH);
    scatter(wr, GRH, data, h.len);
    ibv_wc wc{};
    wc.wr_id = wr.wr_id;
    wc.status = IBV_WC_SUCCESS;
    wc.opcode = IBV_WC_RECV;
    wc.byte_len = uint32_t(GRH + h.len);
    wc.qp_num = q->qp.qp_num;
    wc.src_qp = h.src_qpn;
    wc.slid = uint16_t(h.raddr);  // the sender's LID
    wc.pkey_index = q->pkey_index;
    fcq_of(q->qp.recv_cq)->add(wc);
    return;
  }
  // Responses to our requests.
  if (h.op == OP_ACK || h.op == OP_NAK || h.op == OP_READ_RESP) {
    if (q->qp.state != IBV_QPS_RTS || h.src_qpn != q->dest_qpn) return;
    if (h.op == OP_ACK) return complete_out(q, h.msg, IBV_WC_SUCCESS);
    if (h.op == OP_NAK) return complete_out(q, h.msg, ibv_wc_status(h.nak));
    for (Outstanding& o : q->out)
      if (o.msg == h.msg) {
        RecvWR dst{o.wr_id, o.local};
        scatter(dst, h.offset, data, h.len);
        if (h.last) complete_out(q, h.msg, IBV_WC_SUCCESS);
        break;
      }
    return;
  }
  // Requests: only a QP past INIT, connected to the sender, on the LID sent to.
  if (q->qp.state != IBV_QPS_RTR && q->qp.state != IBV_QPS_RTS) return;
  if (h.src_qpn != q->dest_qpn) return;
  const PortInfo& pi = q->fctx->dev->ports.at(q->port - 1);
  uint16_t lmc_mask = uint16_t(~((1u << pi.lmc) - 1));
  if ((h.dlid & lmc_mask) != (pi.lid & lmc_mask)) return;
  if (h.offset == 0) {
    if (h.psn != q->rq_psn) {
      trace("qp %06x: PSN %06x, expected %06x", q->qp.qp_num, h.psn, q->rq_psn);
      if (rc) reply(q, h, OP_NAK, IBV_WC_RETRY_EXC_ERR);  // never in sequence: the requester gives up
      return;
    }
  }
  if (h.last) q->rq_psn = (q->rq_psn + h.npkts) & 0xffffff;
  switch (h.op) {
    case OP_WRITE:
    case OP_WRITE_IMM: {
      uint8_t* dst = remote_range(q->qp.pd, h.rkey, h.raddr + h.offset, h.len, IBV_ACCESS_REMOTE_WRITE);
      if (!dst || !(q->access & IBV_ACCESS_REMOTE_WRITE)) {
        if (h.last && rc) reply(q, h, OP_NAK, IBV_WC_REM_ACCESS_ERR);
        return;
      }
      if (h.len) std::memcpy(dst, data, h.len);
      if (!h.last) return;
      if (h.op == OP_WRITE_IMM) {
        RecvWR wr;
        if (!take_recv_wr(q, wr)) {
          // The immediate needs a receive WR: wait for one like a SEND.
          Pkt e = h;
          e.len = 0;
          std::vector<uint8_t> keep(sizeof e);
          std::memcpy(keep.data(), &e, sizeof e);
          q->held.push_back(std::move(keep));
          return;
        }
        complete(q->qp.recv_cq, wr.wr_id, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, h.total, q->qp.qp_num,
                 h.src_qpn, q->av.dlid, IBV_WC_WITH_IMM, h.imm);
      }
      if (rc) reply(q, h, OP_ACK);
      return;
    }
    case OP_SEND:
    case OP_SEND_IMM:
      if (!q->held.empty() || !on_send_frag(q, h, data)) q->held.emplace_back(b, b + n);
      return;
    case OP_READ_REQ: {
      uint8_t* src = remote_range(q->qp.pd, h.rkey, h.raddr, h.total, IBV_ACCESS_REMOTE_READ);
      if (!src || !(q->access & IBV_ACCESS_REMOTE_READ) || !rc) {
        reply(q, h, OP_NAK, IBV_WC_REM_ACCESS_ERR);
        return;
      }
      uint32_t off = 0;
      do {
        Pkt r{};
        r.magic = MAGIC;
        r.op = OP_READ_RESP;
        r.dlid = q->av.dlid;
        r.src_qpn = q->qp.qp_num;
        r.dst_qpn = h.src_qpn;
        r.msg = h.msg;
        r.total = h.total;
        r.offset = off;
        r.len = uint32_t(std::min<size_t>(FRAG, h.total - off));
        r.last = off + r.len >= h.total;
        queue_pkt(q, r, src + off, r.len);
        off += r.len;
      } while (off < h.total);
      return;
    }
    default:
      return;
  }
}

// Give held SEND fragments to newly posted receive WRs (q->mu held).
void drain_held(FakeQP* q) {
  while (!q->held.empty()) {
    const std::vector<uint8_t>& b = q->held.front();
    Pkt h;
    std::memcpy(&h, b.data(), sizeof h);
    if (h.op == OP_WRITE_IMM) {
      RecvWR wr;
      if (!take_recv_wr(q, wr)) return;
      complete(q->qp.recv_cq, wr.wr_id, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, h.total, q->qp.qp_num, h.src_qpn,
               q->av.dlid, IBV_WC_WITH_IMM, h.imm);
      if (q->qp.qp_type == IBV_QPT_RC) reply(q, h, OP_ACK);
    } else if (!on_send_frag(q, h, b.data() + sizeof h)) {
      return;
    }
    q->held.pop_front();
  }
}

double ack_timeout_s(const FakeQP* q) {
  // 4.096 us * 2^timeout per try, retry_cnt + 1 tries; 0 = wait forever.
  if (q->timeout == 0) return 1e9;
  return 4.096e-6 * double(1ull << q->timeout) * (q->retry_cnt + 1);
}

void qp_thread(FakeQP* q) {
  std::vector<uint8_t> b(sizeof(Pkt) + FRAG);
  bool backlog = false;
  while (!q->stop) {
    pollfd p{q->sock, POLLIN, 0};
    int r = ::poll(&p, 1, backlog ? 1 : 50);
    if (r > 0) {
      ssize_t n = ::recv(q->sock, b.data(), b.size(), 0);
      if (n > 0) on_packet(q, b.data(), size_t(n));
    }
    backlog = !flush_outbox(q, RESP);
    // Requests nobody acknowledged in time: retry count exceeded.
    std::lock_guard<std::mutex> l(q->mu);
    if (q->qp.qp_type == IBV_QPT_RC && !q->out.empty() &&
        std::chrono::duration<double>(Clock::now() - q->out.front().sent).count() > ack_timeout_s(q))
      complete_out(q, q->out.front().msg, IBV_WC_RETRY_EXC_ERR);
  }
}

// --- UD: GMPs through libibumad -----------------------------------------------------------------

int umad_agent(UmadPort& u, uint8_t cls, uint8_t ver) {
  auto it = u.agents.find({cls, ver});
  if (it != u.agents.end()) return it->second;
  int a = umad_register(u.portid, cls, ver, 0, nullptr);
  if (a >= 0) u.agents[{cls, ver}] = a;
  return a;
}

void umad_thread(FakeContext* c, int port) {
  std::vector<uint8_t> buf(umad_size() + 4096);
  int portid;
  {
    std::lock_guard<std::mutex> l(c->mu);
    portid = c->umad[port].portid;
  }
  int fd = umad_get_fd(portid);
  while (!c->stop) {
    // Only the umad descriptor: umad2sim's poll() waits on the first of its own.
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    int len = int(buf.size() - umad_size());
    int agent = umad_recv(portid, buf.data(), &len, 0);
    if (agent < 0 || umad_status(buf.data()) != 0) continue;  // nothing, or a send the "kernel" gave up on
    const auto* um = reinterpret_cast<const ib_user_mad_t*>(buf.data());
    uint8_t* mad = static_cast<uint8_t*>(umad_get_mad(buf.data()));
    size_t n = std::min<size_t>(size_t(len), 256);
    if (n < 24 || !(mad[3] & 0x80)) continue;  // only replies come back to a UD QP
    uint32_t low;
    std::memcpy(&low, mad + 12, 4);
    uint64_t key = uint64_t(mad[1]) << 32 | ntohl(low);
    FakeQP* q = nullptr;
    {
      std::lock_guard<std::mutex> l(c->mu);
      auto it = c->tid_owner.find(key);
      if (it == c->tid_owner.end()) continue;
      uint64_t orig = c->tid_orig[key];
      uint64_t be = htobe64(orig);
      std::memcpy(mad + 8, &be, 8);  // the TID as the requester sent it
      auto qi = c->qps.find(it->second);
      if (qi != c->qps.end()) q = qi->second;
    }
    if (!q) continue;
    std::lock_guard<std::mutex> l(q->mu);
    if (q->qp.state != IBV_QPS_RTR && q->qp.state != IBV_QPS_RTS) continue;
    RecvWR wr;
    if (!take_recv_wr(q, wr)) continue;  // UD: no buffer, the packet is dropped
    if (sg_total(wr.sg) < GRH + n) {
      complete(q->qp.recv_cq, wr.wr_id, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV, 0, q->qp.qp_num);
      continue;
    }
    uint8_t grh[GRH] = {};
    unsigned flags = 0;
    if (um->addr.grh_present) {
      flags = IBV_WC_GRH;
      uint32_t w0 = htonl(6u << 28 | uint32_t(um->addr.traffic_class) << 20 | (ntohl(um->addr.flow_label) & 0xfffff));
      std::memcpy(grh, &w0, 4);
      grh[6] = 0x1b;
      grh[7] = um->addr.hop_limit;
      std::memcpy(grh + 8, um->addr.gid, 16);
    }
    scatter(wr, 0, grh, GRH);
    scatter(wr, GRH, mad, uint32_t(n));
    ibv_wc wc{};
    wc.wr_id = wr.wr_id;
    wc.status = IBV_WC_SUCCESS;
    wc.opcode = IBV_WC_RECV;
    wc.byte_len = uint32_t(GRH + n);
    wc.qp_num = q->qp.qp_num;
    wc.src_qp = ntohl(um->addr.qpn);
    wc.slid = ntohs(um->addr.lid);
    wc.sl = um->addr.sl;
    wc.wc_flags = flags;
    wc.pkey_index = q->pkey_index;
    fcq_of(q->qp.recv_cq)->add(wc);
  }
}

int ud_send(FakeQP* q, ibv_send_wr* wr) {
  FakeContext* c = q->fctx;
  if (wr->opcode != IBV_WR_SEND && wr->opcode != IBV_WR_SEND_WITH_IMM) return EINVAL;
  if (!wr->wr.ud.ah) return EINVAL;
  const ibv_ah_attr& av = reinterpret_cast<FakeAH*>(wr->wr.ud.ah)->attr;
  std::vector<uint8_t> mad;
  for (int i = 0; i < wr->num_sge; ++i) {
    const ibv_sge& s = wr->sg_list[i];
    if (!(wr->send_flags & IBV_SEND_INLINE)) {
      std::lock_guard<std::mutex> l(g_mu);
      if (!local_mr(q->qp.pd, s, 0)) {
        complete(q->qp.send_cq, wr->wr_id, IBV_WC_LOC_PROT_ERR, IBV_WC_SEND, 0, q->qp.qp_num);
        return 0;
      }
    }
    auto* p = reinterpret_cast<const uint8_t*>(s.addr);
    mad.insert(mad.end(), p, p + s.length);
  }
  bool signaled = q->sq_sig_all || (wr->send_flags & IBV_SEND_SIGNALED);
  if (wr->wr.ud.remote_qpn == 1 && mad.size() >= 24 && mad.size() <= 256) {
    uint8_t cls = mad[1], ver = mad[2];
    bool request = !(mad[3] & 0x80);
    uint8_t rmpp_type = mad.size() > 25 ? mad[25] : 0;
    bool rmpp_ctl = (cls == 0x03 || (cls >= 0x30 && cls <= 0x4f)) && (mad[26] & 1) && rmpp_type >= 2;
    if (rmpp_ctl) {
      // ACK/STOP/ABORT: the responder's RMPP engine (its kernel) takes them.
      trace("qp %06x: RMPP type %u consumed", q->qp.qp_num, rmpp_type);
    } else {
      std::lock_guard<std::mutex> l(c->mu);
      auto it = c->umad.find(q->port);
      if (it == c->umad.end()) {
        UmadPort u;
        u.portid = umad_open_port(c->dev->ca.c_str(), q->port);
        if (u.portid < 0) {
          trace("umad_open_port %s/%d failed", c->dev->ca.c_str(), q->port);
          complete(q->qp.send_cq, wr->wr_id, IBV_WC_GENERAL_ERR, IBV_WC_SEND, 0, q->qp.qp_num);
          return 0;
        }
        it = c->umad.emplace(q->port, std::move(u)).first;
        it->second.thr = std::thread(umad_thread, c, q->port);
      }
      int agent = umad_agent(it->second, cls, ver);
      if (agent >= 0) {
        if (request) {
          uint32_t low;
          std::memcpy(&low, mad.data() + 12, 4);
          uint64_t key = uint64_t(cls) << 32 | ntohl(low);
          uint64_t tid;
          std::memcpy(&tid, mad.data() + 8, 8);
          c->tid_owner[key] = q->qp.qp_num;
          c->tid_orig[key] = be64toh(tid);
          if (c->tid_owner.size() > 65536) {
            c->tid_owner.erase(c->tid_owner.begin());
            c->tid_orig.erase(c->tid_orig.begin());
          }
        }
        std::vector<uint8_t> ub(umad_size() + 256);
        std::memcpy(umad_get_mad(ub.data()), mad.data(), mad.size());
        umad_set_addr(ub.data(), av.dlid, 1, av.sl, int(wr->wr.ud.remote_qkey));
        umad_set_pkey(ub.data(), q->pkey_index);
        if (av.is_global) {
          ib_mad_addr_t a{};
          a.grh_present = 1;
          std::memcpy(a.gid, av.grh.dgid.raw, 16);
          a.hop_limit = av.grh.hop_limit;
          a.traffic_class = av.grh.traffic_class;
          a.flow_label = htonl(av.grh.flow_label);
          umad_set_grh(ub.data(), &a);
        }
        if (umad_send(it->second.portid, agent, ub.data(), int(mad.size()), request ? 1000 : 0, 0) < 0)
          trace("umad_send failed");
      }
    }
  }
  if (wr->wr.ud.remote_qpn != 1 && mad.size() <= FRAG) {
    // To another fake QP, if one has that number (else lost on the wire).
    Pkt h{};
    h.magic = MAGIC;
    h.op = OP_UD;
    h.dlid = av.dlid;
    h.src_qpn = q->qp.qp_num;
    h.dst_qpn = wr->wr.ud.remote_qpn;
    h.rkey = wr->wr.ud.remote_qkey;
    h.raddr = q->fctx->dev->ports.at(q->port - 1).lid;
    h.len = h.total = uint32_t(mad.size());
    h.last = 1;
    std::vector<uint8_t> b(sizeof h + mad.size());
    std::memcpy(b.data(), &h, sizeof h);
    std::memcpy(b.data() + sizeof h, mad.data(), mad.size());
    socklen_t al;
    sockaddr_un a = qp_addr(h.dst_qpn, al);
    if (::sendto(q->sock, b.data(), b.size(), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&a), al) < 0)
      trace("UD to qp %06x lost: %s", h.dst_qpn, std::strerror(errno));
  }
  if (signaled) complete(q->qp.send_cq, wr->wr_id, IBV_WC_SUCCESS, IBV_WC_SEND, uint32_t(mad.size()), q->qp.qp_num);
  return 0;
}

// --- RC/UC sends ---------------------------------------------------------------------------------

int rc_send(FakeQP* q, ibv_send_wr* wr) {
  bool rc = q->qp.qp_type == IBV_QPT_RC;
  Op op;
  ibv_wc_opcode wop;
  switch (wr->opcode) {
    case IBV_WR_SEND: op = OP_SEND; wop = IBV_WC_SEND; break;
    case IBV_WR_SEND_WITH_IMM: op = OP_SEND_IMM; wop = IBV_WC_SEND; break;
    case IBV_WR_RDMA_WRITE: op = OP_WRITE; wop = IBV_WC_RDMA_WRITE; break;
    case IBV_WR_RDMA_WRITE_WITH_IMM: op = OP_WRITE_IMM; wop = IBV_WC_RDMA_WRITE; break;
    case IBV_WR_RDMA_READ:
      if (!rc) return EINVAL;
      op = OP_READ_REQ;
      wop = IBV_WC_RDMA_READ;
      break;
    default: return EINVAL;
  }
  if (q->out.size() >= q->cap.max_send_wr) return ENOMEM;
  std::vector<uint8_t> data;
  std::vector<ibv_sge> local(wr->sg_list, wr->sg_list + wr->num_sge);
  {
    std::lock_guard<std::mutex> l(g_mu);
    for (const ibv_sge& s : local) {
      bool inl = (wr->send_flags & IBV_SEND_INLINE) && op != OP_READ_REQ;
      if (!inl && !local_mr(q->qp.pd, s, op == OP_READ_REQ ? IBV_ACCESS_LOCAL_WRITE : 0)) {
        complete(q->qp.send_cq, wr->wr_id, IBV_WC_LOC_PROT_ERR, wop, 0, q->qp.qp_num);
        to_error(q);
        return 0;
      }
      if (op != OP_READ_REQ) {
        auto* p = reinterpret_cast<const uint8_t*>(s.addr);
        data.insert(data.end(), p, p + s.length);
      }
    }
  }
  uint32_t total = op == OP_READ_REQ ? sg_total(local) : uint32_t(data.size());
  Outstanding o;
  o.msg = q->next_msg++;
  o.wr_id = wr->wr_id;
  o.signaled = q->sq_sig_all || (wr->send_flags & IBV_SEND_SIGNALED);
  o.opcode = wop;
  o.len = total;
  o.sent = Clock::now();
  if (op == OP_READ_REQ) o.local = local;
  Pkt h{};
  h.magic = MAGIC;
  h.op = op;
  h.dlid = q->av.dlid;
  h.src_qpn = q->qp.qp_num;
  h.dst_qpn = q->dest_qpn;
  h.psn = q->sq_psn;
  h.npkts = npkts_of(op == OP_READ_REQ ? 0 : total, q->mtu);
  h.msg = o.msg;
  h.raddr = wr->wr.rdma.remote_addr;
  h.rkey = wr->wr.rdma.rkey;
  h.total = total;
  h.imm = wr->imm_data;
  q->sq_psn = (q->sq_psn + h.npkts) & 0xffffff;
  bool signaled = o.signaled;
  uint64_t wr_id = o.wr_id;
  if (rc) q->out.push_back(std::move(o));
  if (op == OP_READ_REQ) {
    h.last = 1;
    queue_pkt(q, h, nullptr, 0);
  } else {
    uint32_t off = 0;
    do {
      h.offset = off;
      h.len = uint32_t(std::min<size_t>(FRAG, total - off));
      h.last = off + h.len >= total;
      queue_pkt(q, h, data.data() + off, h.len);
      off += h.len;
    } while (off < total);
  }
  // UC: done once it is on the wire (lost or not).
  if (!rc && signaled) complete(q->qp.send_cq, wr_id, IBV_WC_SUCCESS, wop, total, q->qp.qp_num);
  return 0;
}

// --- context ops ---------------------------------------------------------------------------------

int op_poll_cq(ibv_cq* cq, int n, ibv_wc* wc) {
  FakeCQ* c = fcq_of(cq);
  std::lock_guard<std::mutex> l(c->mu);
  int i = 0;
  for (; i < n && !c->q.empty(); ++i) {
    wc[i] = c->q.front();
    c->q.pop_front();
  }
  return i;
}

int op_req_notify_cq(ibv_cq* cq, int) {
  FakeCQ* c = fcq_of(cq);
  std::lock_guard<std::mutex> l(c->mu);
  if (!c->chan) return EINVAL;
  c->armed = true;  // the next completion added raises one event
  return 0;
}

int op_post_send(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad) {
  FakeQP* q = fqp_of(qp);
  for (; wr; wr = wr->next) {
    int r = 0;
    if (q->qp.state == IBV_QPS_ERR) {
      // Taken, and flushed at once (IBA: work posted in the Error state
      // completes with a flush error).
      complete(q->qp.send_cq, wr->wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_SEND, 0, q->qp.qp_num);
      continue;
    }
    if (q->qp.state != IBV_QPS_RTS) r = EINVAL;
    else if (wr->num_sge < 0 || uint32_t(wr->num_sge) > q->cap.max_send_sge) r = EINVAL;
    else if (q->qp.qp_type == IBV_QPT_UD) r = ud_send(q, wr);
    else {
      {
        std::lock_guard<std::mutex> l(q->mu);
        r = rc_send(q, wr);
      }
      flush_outbox(q, REQ);
      flush_outbox(q, RESP);
    }
    if (r) {
      *bad = wr;
      return r;
    }
  }
  return 0;
}

int post_recv_common(std::deque<RecvWR>& rq, size_t max_wr, uint32_t max_sge, ibv_recv_wr* wr, ibv_recv_wr** bad) {
  for (; wr; wr = wr->next) {
    if (rq.size() >= max_wr || wr->num_sge < 0 || uint32_t(wr->num_sge) > max_sge) {
      *bad = wr;
      return rq.size() >= max_wr ? ENOMEM : EINVAL;
    }
    RecvWR r;
    r.wr_id = wr->wr_id;
    r.sg.assign(wr->sg_list, wr->sg_list + wr->num_sge);
    rq.push_back(std::move(r));
  }
  return 0;
}

int op_post_recv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad) {
  FakeQP* q = fqp_of(qp);
  if (q->qp.srq || q->qp.state == IBV_QPS_RESET) {
    *bad = wr;
    return EINVAL;
  }
  int r;
  {
    std::lock_guard<std::mutex> l(q->mu);
    r = post_recv_common(q->rq, q->cap.max_recv_wr, q->cap.max_recv_sge, wr, bad);
    if (q->qp.state == IBV_QPS_ERR) to_error(q);
    drain_held(q);
  }
  flush_outbox(q, RESP);
  return r;
}

int op_post_srq_recv(ibv_srq* srq, ibv_recv_wr* wr, ibv_recv_wr** bad) {
  FakeSRQ* s = fsrq_of(srq);
  std::lock_guard<std::mutex> l(s->mu);
  return post_recv_common(s->q, s->max_wr, s->max_sge, wr, bad);
}

// --- modify QP: the transitions and their masks ----------------------------------------------

struct Rule {
  ibv_qp_state from, to;
  int ud_req, ud_opt, uc_req, uc_opt, rc_req, rc_opt;
};
constexpr int S = IBV_QP_STATE;
constexpr int INIT_BASE = IBV_QP_PKEY_INDEX | IBV_QP_PORT;
constexpr int RTR_UC = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
constexpr int RTR_RC = RTR_UC | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
constexpr int RTS_RC = IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
const Rule RULES[] = {
    {IBV_QPS_RESET, IBV_QPS_INIT, S | INIT_BASE | IBV_QP_QKEY, 0, S | INIT_BASE | IBV_QP_ACCESS_FLAGS, 0,
     S | INIT_BASE | IBV_QP_ACCESS_FLAGS, 0},
    {IBV_QPS_INIT, IBV_QPS_INIT, S, INIT_BASE | IBV_QP_QKEY, S, INIT_BASE | IBV_QP_ACCESS_FLAGS, S,
     INIT_BASE | IBV_QP_ACCESS_FLAGS},
    {IBV_QPS_INIT, IBV_QPS_RTR, S, IBV_QP_PKEY_INDEX | IBV_QP_QKEY, S | RTR_UC,
     IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH, S | RTR_RC,
     IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH},
    {IBV_QPS_RTR, IBV_QPS_RTS, S | IBV_QP_SQ_PSN, IBV_QP_CUR_STATE | IBV_QP_QKEY, S | IBV_QP_SQ_PSN,
     IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE, S | RTS_RC,
     IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE},
    {IBV_QPS_RTS, IBV_QPS_RTS, S, IBV_QP_CUR_STATE | IBV_QP_QKEY, S,
     IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE, S,
     IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE},
};

int check_and_apply(FakeQP* q, const ibv_qp_attr* a, int mask) {
  ibv_qp_state cur = q->qp.state;
  ibv_qp_state to = (mask & IBV_QP_STATE) ? a->qp_state : cur;
  if ((mask & IBV_QP_CUR_STATE) && a->cur_qp_state != cur) return EINVAL;
  if (to == IBV_QPS_RESET || to == IBV_QPS_ERR) {
    if (mask & ~(IBV_QP_STATE | IBV_QP_CUR_STATE)) return EINVAL;
    if (to == IBV_QPS_ERR) to_error(q);
    else {
      q->rq.clear();
      q->out.clear();
      q->held.clear();
      q->in = Inbound{};
    }
    q->qp.state = to;
    return 0;
  }
  const Rule* rule = nullptr;
  for (const Rule& r : RULES)
    if (r.from == cur && r.to == to) rule = &r;
  if (!rule) {
    trace("qp %06x: no transition %d -> %d", q->qp.qp_num, cur, to);
    return EINVAL;
  }
  int req, opt;
  switch (q->qp.qp_type) {
    case IBV_QPT_UD: req = rule->ud_req, opt = rule->ud_opt; break;
    case IBV_QPT_UC: req = rule->uc_req, opt = rule->uc_opt; break;
    default: req = rule->rc_req, opt = rule->rc_opt; break;
  }
  if (!(mask & IBV_QP_STATE) && cur == to) req &= ~S;
  if ((mask & req) != req || (mask & ~(req | opt | S))) {
    trace("qp %06x: mask 0x%x for %d -> %d (required 0x%x, optional 0x%x)", q->qp.qp_num, mask, cur, to, req, opt);
    return EINVAL;
  }
  // Values.
  const FakeDevice* d = q->fctx->dev;
  uint8_t port = (mask & IBV_QP_PORT) ? a->port_num : q->port;
  if (mask & IBV_QP_PORT && (port < 1 || port > d->ports.size())) return EINVAL;
  if (mask & IBV_QP_PKEY_INDEX && a->pkey_index >= d->ports.at(port - 1).pkeys.size()) return EINVAL;
  if (mask & IBV_QP_PATH_MTU && (a->path_mtu < IBV_MTU_256 || a->path_mtu > IBV_MTU_4096)) return EINVAL;
  if (mask & IBV_QP_AV && (a->ah_attr.dlid == 0 || a->ah_attr.port_num != port)) return EINVAL;
  if (mask & IBV_QP_DEST_QPN && a->dest_qp_num > 0xffffff) return EINVAL;
  if (mask & IBV_QP_RQ_PSN && a->rq_psn > 0xffffff) return EINVAL;
  if (mask & IBV_QP_SQ_PSN && a->sq_psn > 0xffffff) return EINVAL;
  if (mask & IBV_QP_TIMEOUT && a->timeout > 31) return EINVAL;
  if (mask & IBV_QP_RETRY_CNT && a->retry_cnt > 7) return EINVAL;
  if (mask & IBV_QP_RNR_RETRY && a->rnr_retry > 7) return EINVAL;
  if (mask & IBV_QP_MIN_RNR_TIMER && a->min_rnr_timer > 31) return EINVAL;
  if (mask & IBV_QP_MAX_QP_RD_ATOMIC && a->max_rd_atomic > 16) return EINVAL;
  if (mask & IBV_QP_MAX_DEST_RD_ATOMIC && a->max_dest_rd_atomic > 16) return EINVAL;
  if (mask & IBV_QP_PORT) q->port = port;
  if (mask & IBV_QP_PKEY_INDEX) q->pkey_index = a->pkey_index;
  if (mask & IBV_QP_QKEY) q->qkey = a->qkey;
  if (mask & IBV_QP_ACCESS_FLAGS) q->access = int(a->qp_access_flags);
  if (mask & IBV_QP_AV) q->av = a->ah_attr;
  if (mask & IBV_QP_PATH_MTU) q->mtu = a->path_mtu;
  if (mask & IBV_QP_DEST_QPN) q->dest_qpn = a->dest_qp_num;
  if (mask & IBV_QP_RQ_PSN) q->rq_psn = a->rq_psn;
  if (mask & IBV_QP_SQ_PSN) q->sq_psn = a->sq_psn;
  if (mask & IBV_QP_TIMEOUT) q->timeout = a->timeout;
  if (mask & IBV_QP_RETRY_CNT) q->retry_cnt = a->retry_cnt;
  if (mask & IBV_QP_RNR_RETRY) q->rnr_retry = a->rnr_retry;
  if (mask & IBV_QP_MIN_RNR_TIMER) q->min_rnr_timer = a->min_rnr_timer;
  if (mask & IBV_QP_MAX_QP_RD_ATOMIC) q->max_rd_atomic = a->max_rd_atomic;
  if (mask & IBV_QP_MAX_DEST_RD_ATOMIC) q->max_dest_rd_atomic = a->max_dest_rd_atomic;
  q->qp.state = to;
  return 0;
}

int set_errno(int e) {
  errno = e;
  return e;
}

}  // namespace

// --- the exported verbs ----------------------------------------------------------------------------

extern "C" {

ibv_device** ibv_get_device_list(int* num) {
  static std::vector<std::unique_ptr<FakeDevice>> devs;  // live for the process, like libibverbs' own
  std::lock_guard<std::mutex> l(g_mu);
  if (devs.empty() && umad_init() >= 0) {
    char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
    int n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
    for (int i = 0; i < n; ++i) {
      auto d = std::make_unique<FakeDevice>();
      if (read_device(names[i], *d)) devs.push_back(std::move(d));
    }
  }
  auto** list = static_cast<ibv_device**>(std::calloc(devs.size() + 1, sizeof(ibv_device*)));
  if (!list) {
    errno = ENOMEM;
    return nullptr;
  }
  for (size_t i = 0; i < devs.size(); ++i) list[i] = &devs[i]->dev;
  if (num) *num = int(devs.size());
  return list;
}

void ibv_free_device_list(ibv_device** list) { std::free(list); }

const char* ibv_get_device_name(ibv_device* d) { return d->name; }

__be64 ibv_get_device_guid(ibv_device* d) { return htobe64(dev_of(d)->node_guid); }

const char* ibv_wc_status_str(ibv_wc_status s) {
  switch (s) {
    case IBV_WC_SUCCESS: return "success";
    case IBV_WC_LOC_LEN_ERR: return "local length error";
    case IBV_WC_LOC_PROT_ERR: return "local protection error";
    case IBV_WC_WR_FLUSH_ERR: return "Work Request Flushed Error";
    case IBV_WC_REM_INV_REQ_ERR: return "remote invalid request error";
    case IBV_WC_REM_ACCESS_ERR: return "remote access error";
    case IBV_WC_RETRY_EXC_ERR: return "transport retry counter exceeded";
    case IBV_WC_GENERAL_ERR: return "general error";
    default: return "unknown";
  }
}

ibv_context* ibv_open_device(ibv_device* d) {
  auto* c = new FakeContext;
  c->dev = dev_of(d);
  c->ctx.device = d;
  c->ctx.cmd_fd = -1;
  c->ctx.async_fd = -1;
  c->ctx.num_comp_vectors = 1;
  c->ctx.abi_compat = nullptr;  // not an extended context: callers use the exported verbs
  pthread_mutex_init(&c->ctx.mutex, nullptr);
  c->ctx.ops.poll_cq = op_poll_cq;
  c->ctx.ops.req_notify_cq = op_req_notify_cq;
  c->ctx.ops.post_send = op_post_send;
  c->ctx.ops.post_recv = op_post_recv;
  c->ctx.ops.post_srq_recv = op_post_srq_recv;
  trace("open %s", d->name);
  return &c->ctx;
}

int ibv_close_device(ibv_context* ctx) {
  FakeContext* c = fctx_of(ctx);
  c->stop = true;
  for (auto& [port, u] : c->umad) {
    if (u.thr.joinable()) u.thr.join();
    for (auto& [k, a] : u.agents) umad_unregister(u.portid, a);
    umad_close_port(u.portid);
  }
  delete c;
  return 0;
}

int ibv_query_device(ibv_context* ctx, ibv_device_attr* a) {
  const FakeDevice* d = fctx_of(ctx)->dev;
  *a = ibv_device_attr{};
  std::snprintf(a->fw_ver, sizeof a->fw_ver, "%s", d->fw.c_str());
  a->node_guid = htobe64(d->node_guid);
  a->sys_image_guid = htobe64(d->sys_guid);
  a->max_mr_size = ~0ull;
  a->page_size_cap = 0xfffff000;
  a->max_qp = 1 << 16;
  a->max_qp_wr = 16384;
  a->max_sge = 30;
  a->max_cq = 1 << 16;
  a->max_cqe = 1 << 22;
  a->max_mr = 1 << 20;
  a->max_pd = 1 << 16;
  a->max_qp_rd_atom = 16;
  a->max_qp_init_rd_atom = 16;
  a->max_srq = 1 << 16;
  a->max_srq_wr = 16384;
  a->max_srq_sge = 30;
  a->max_pkeys = 128;
  a->phys_port_cnt = uint8_t(d->ports.size());
  return 0;
}

int ibv_query_port(ibv_context* ctx, uint8_t port, _compat_ibv_port_attr* compat) {
  // Called with a whole ibv_port_attr (the header's inline wrapper clears
  // and passes one; so does core/transport/verbs).
  auto* a = reinterpret_cast<ibv_port_attr*>(compat);
  const FakeDevice* d = fctx_of(ctx)->dev;
  if (port < 1 || port > d->ports.size()) return set_errno(EINVAL);
  const PortInfo& p = d->ports[port - 1];
  *a = ibv_port_attr{};
  a->state = ibv_port_state(p.state);
  a->max_mtu = IBV_MTU_4096;
  a->active_mtu = IBV_MTU_4096;
  a->gid_tbl_len = 1;
  a->port_cap_flags = p.capmask;
  a->max_msg_sz = 1u << 31;
  a->pkey_tbl_len = uint16_t(p.pkeys.size());
  a->lid = p.lid;
  a->sm_lid = p.sm_lid;
  a->lmc = p.lmc;
  a->sm_sl = p.sm_sl;
  a->max_vl_num = 4;
  a->active_width = 2;  // 4x
  a->active_speed = 1;
  a->phys_state = uint8_t(p.phys_state);
  a->link_layer = IBV_LINK_LAYER_INFINIBAND;
  return 0;
}

// Upstream's newer verb (rdma-core main, 2026): the port's effective speed
// in 100 Mb/s units, here from libibumad's rate (Gb/s).
int ibv_query_port_speed(ibv_context* ctx, uint32_t port, uint64_t* speed) {
  const FakeDevice* d = fctx_of(ctx)->dev;
  if (port < 1 || port > d->ports.size()) return set_errno(EINVAL);
  *speed = uint64_t(d->ports[port - 1].rate) * 10;
  return 0;
}

int ibv_query_gid(ibv_context* ctx, uint8_t port, int index, ibv_gid* gid) {
  const FakeDevice* d = fctx_of(ctx)->dev;
  if (port < 1 || port > d->ports.size() || index != 0) return set_errno(EINVAL);
  uint64_t pre = htobe64(d->ports[port - 1].prefix), g = htobe64(d->ports[port - 1].guid);
  std::memcpy(gid->raw, &pre, 8);
  std::memcpy(gid->raw + 8, &g, 8);
  return 0;
}

int ibv_query_pkey(ibv_context* ctx, uint8_t port, int index, __be16* pkey) {
  const FakeDevice* d = fctx_of(ctx)->dev;
  if (port < 1 || port > d->ports.size() || index < 0 || size_t(index) >= d->ports[port - 1].pkeys.size())
    return set_errno(EINVAL);
  *pkey = htons(d->ports[port - 1].pkeys[size_t(index)]);
  return 0;
}

ibv_pd* ibv_alloc_pd(ibv_context* ctx) {
  auto* p = new FakePD;
  p->pd.context = ctx;
  return &p->pd;
}

int ibv_dealloc_pd(ibv_pd* pd) {
  delete reinterpret_cast<FakePD*>(pd);
  return 0;
}

ibv_mr* ibv_reg_mr(ibv_pd* pd, void* addr, size_t length, int access) {
  // Remote write or atomic access needs local write (ibv_reg_mr(3)).
  if (((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) && !(access & IBV_ACCESS_LOCAL_WRITE)) ||
      (!addr && length)) {
    errno = EINVAL;
    return nullptr;
  }
  auto* m = new FakeMR;
  m->mr.context = pd->context;
  m->mr.pd = pd;
  m->mr.addr = addr;
  m->mr.length = length;
  m->access = access;
  std::lock_guard<std::mutex> l(g_mu);
  m->mr.lkey = m->mr.rkey = new_key();
  g_mrs[m->mr.lkey] = m;
  return &m->mr;
}

int ibv_dereg_mr(ibv_mr* mr) {
  std::lock_guard<std::mutex> l(g_mu);
  g_mrs.erase(mr->lkey);
  delete reinterpret_cast<FakeMR*>(mr);
  return 0;
}

ibv_comp_channel* ibv_create_comp_channel(ibv_context* ctx) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) < 0) return nullptr;
  auto* c = new FakeChannel;
  c->ch.context = ctx;
  c->ch.fd = p[0];
  c->wfd = p[1];
  return &c->ch;
}

int ibv_destroy_comp_channel(ibv_comp_channel* ch) {
  auto* c = reinterpret_cast<FakeChannel*>(ch);
  ::close(c->ch.fd);
  ::close(c->wfd);
  delete c;
  return 0;
}

ibv_cq* ibv_create_cq(ibv_context* ctx, int cqe, void* cq_context, ibv_comp_channel* ch, int) {
  if (cqe < 1 || cqe > (1 << 22)) {
    errno = EINVAL;
    return nullptr;
  }
  auto* c = new FakeCQ;
  c->cq.context = ctx;
  c->cq.channel = ch;
  c->cq.cq_context = cq_context;
  c->cq.cqe = cqe;
  c->chan = reinterpret_cast<FakeChannel*>(ch);
  return &c->cq;
}

int ibv_destroy_cq(ibv_cq* cq) {
  delete fcq_of(cq);
  return 0;
}

int ibv_get_cq_event(ibv_comp_channel* ch, ibv_cq** cq, void** cq_context) {
  ibv_cq* p = nullptr;
  ssize_t n = ::read(ch->fd, &p, sizeof p);
  if (n != sizeof p) return -1;  // errno from read (EAGAIN on a non-blocking channel)
  *cq = p;
  *cq_context = p->cq_context;
  return 0;
}

void ibv_ack_cq_events(ibv_cq* cq, unsigned n) { cq->comp_events_completed += n; }

ibv_qp* ibv_create_qp(ibv_pd* pd, ibv_qp_init_attr* ia) {
  if (!ia->send_cq || !ia->recv_cq ||
      (ia->qp_type != IBV_QPT_RC && ia->qp_type != IBV_QPT_UC && ia->qp_type != IBV_QPT_UD) ||
      ia->cap.max_send_wr > 16384 || ia->cap.max_recv_wr > 16384 || ia->cap.max_send_sge > 30 ||
      ia->cap.max_recv_sge > 30) {
    errno = EINVAL;
    return nullptr;
  }
  auto* q = new FakeQP;
  q->fctx = fctx_of(pd->context);
  q->qp.context = pd->context;
  q->qp.qp_context = ia->qp_context;
  q->qp.pd = pd;
  q->qp.send_cq = ia->send_cq;
  q->qp.recv_cq = ia->recv_cq;
  q->qp.srq = ia->srq;
  q->qp.state = IBV_QPS_RESET;
  q->qp.qp_type = ia->qp_type;
  q->cap = ia->cap;
  q->sq_sig_all = ia->sq_sig_all;
  uint32_t qpn = 0;
  q->sock = bind_qpn(qpn);
  if (q->sock < 0) {
    delete q;
    errno = ENOMEM;
    return nullptr;
  }
  q->qp.qp_num = qpn;
  {
    std::lock_guard<std::mutex> l(q->fctx->mu);
    q->fctx->qps[qpn] = q;
  }
  q->thr = std::thread(qp_thread, q);  // RC/UC packets, and UD datagrams between fake QPs
  trace("create %s QP %06x", ia->qp_type == IBV_QPT_RC ? "RC" : ia->qp_type == IBV_QPT_UC ? "UC" : "UD", qpn);
  return &q->qp;
}

int ibv_modify_qp(ibv_qp* qp, ibv_qp_attr* attr, int mask) {
  FakeQP* q = fqp_of(qp);
  std::lock_guard<std::mutex> l(q->mu);
  return check_and_apply(q, attr, mask);
}

int ibv_query_qp(ibv_qp* qp, ibv_qp_attr* attr, int, ibv_qp_init_attr* ia) {
  FakeQP* q = fqp_of(qp);
  std::lock_guard<std::mutex> l(q->mu);
  *attr = ibv_qp_attr{};
  attr->qp_state = q->qp.state;
  attr->cur_qp_state = q->qp.state;
  attr->path_mtu = q->mtu;
  attr->qkey = q->qkey;
  attr->rq_psn = q->rq_psn;
  attr->sq_psn = q->sq_psn;
  attr->dest_qp_num = q->dest_qpn;
  attr->qp_access_flags = unsigned(q->access);
  attr->cap = q->cap;
  attr->ah_attr = q->av;
  attr->pkey_index = q->pkey_index;
  attr->port_num = q->port;
  attr->timeout = q->timeout;
  attr->retry_cnt = q->retry_cnt;
  attr->rnr_retry = q->rnr_retry;
  attr->min_rnr_timer = q->min_rnr_timer;
  attr->max_rd_atomic = q->max_rd_atomic;
  attr->max_dest_rd_atomic = q->max_dest_rd_atomic;
  if (ia) {
    *ia = ibv_qp_init_attr{};
    ia->send_cq = q->qp.send_cq;
    ia->recv_cq = q->qp.recv_cq;
    ia->srq = q->qp.srq;
    ia->cap = q->cap;
    ia->qp_type = q->qp.qp_type;
    ia->sq_sig_all = q->sq_sig_all;
  }
  return 0;
}

int ibv_destroy_qp(ibv_qp* qp) {
  FakeQP* q = fqp_of(qp);
  q->stop = true;
  if (q->thr.joinable()) q->thr.join();
  {
    std::lock_guard<std::mutex> l(q->fctx->mu);
    q->fctx->qps.erase(q->qp.qp_num);
  }
  ::close(q->sock);
  delete q;
  return 0;
}

ibv_ah* ibv_create_ah(ibv_pd* pd, ibv_ah_attr* attr) {
  const FakeDevice* d = fctx_of(pd->context)->dev;
  if (attr->dlid == 0 || attr->port_num < 1 || attr->port_num > d->ports.size()) {
    errno = EINVAL;
    return nullptr;
  }
  auto* a = new FakeAH;
  a->ah.context = pd->context;
  a->ah.pd = pd;
  a->attr = *attr;
  return &a->ah;
}

int ibv_destroy_ah(ibv_ah* ah) {
  delete reinterpret_cast<FakeAH*>(ah);
  return 0;
}

ibv_srq* ibv_create_srq(ibv_pd* pd, ibv_srq_init_attr* ia) {
  if (ia->attr.max_wr == 0 || ia->attr.max_wr > 16384 || ia->attr.max_sge > 30) {
    errno = EINVAL;
    return nullptr;
  }
  auto* s = new FakeSRQ;
  s->srq.context = pd->context;
  s->srq.srq_context = ia->srq_context;
  s->srq.pd = pd;
  s->max_wr = ia->attr.max_wr;
  s->max_sge = std::max(1u, ia->attr.max_sge);
  return &s->srq;
}

int ibv_destroy_srq(ibv_srq* srq) {
  delete fsrq_of(srq);
  return 0;
}

}  // extern "C"
