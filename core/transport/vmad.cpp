#include "core/transport/vmad.h"

#include <fcntl.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/base/config.h"
#include "core/base/error.h"
#include "iba/hdr.h"
#include "iba/mad.h"

namespace ibcore {

namespace {

using iba::MADHeader;

bool is_smp_class(uint8_t c) { return c == iba::mgmt::SUBN_LID_ROUTED || c == iba::mgmt::SUBN_DIRECTED_ROUTE; }

}  // namespace

// --- VerbsMad ------------------------------------------------------------------------

VerbsMad::VerbsMad(const EndPort& ep, unsigned depth, std::string umad_error, uint16_t pkey_index)
    : ep_(ep), depth_(std::max(depth, 4u)), pkey_index_(pkey_index), umad_error_(std::move(umad_error)) {
  ctx_.emplace(verbs::Context::open(ep.ca));
  pd_.emplace(*ctx_);
  channel_.emplace(*ctx_);
  int fl = ::fcntl(channel_->fd(), F_GETFL);
  if (fl < 0 || ::fcntl(channel_->fd(), F_SETFL, fl | O_NONBLOCK) < 0)
    throw SysError(errno, "fcntl", "Cannot make the completion channel non-blocking");
  cq_.emplace(*ctx_, int(depth_ * 2), &*channel_);
  verbs::QPCaps caps;
  caps.max_send_wr = depth_;
  caps.max_recv_wr = depth_;
  qp_.emplace(*pd_, IBV_QPT_UD, *cq_, *cq_, caps);
  verbs::QPEnd end;
  end.port_num = uint8_t(ep.port);
  end.pkey_index = pkey_index;
  end.qkey = GSI_QKEY;  // replies from the GSI come with QP1's Q_Key
  verbs::bring_up(*qp_, IBPath{}, end);

  buf_.assign(size_t(depth_) * (RECV_SLOT + iba::MAD_SIZE), 0);
  mr_.emplace(*pd_, buf_.data(), buf_.size(), IBV_ACCESS_LOCAL_WRITE);
  for (unsigned i = 0; i < depth_; ++i) post_recv(i);
  for (unsigned i = depth_; i-- > 0;) free_send_.push_back(i);
}

VerbsMad::~VerbsMad() = default;

int VerbsMad::client_agent(uint8_t mgmt_class, uint8_t) {
  if (is_smp_class(mgmt_class))
    throw Error("SMPs cannot be sent over verbs (QP0 belongs to the kernel): this needs umad access to " +
                ep_.ca + " port " + std::to_string(ep_.port) +
                (umad_error_.empty() ? std::string(" (--transport umad)") : " (" + umad_error_ + ")"));
  return mgmt_class;
}

int VerbsMad::server_agent(uint8_t mgmt_class, uint8_t, uint32_t, uint32_t) {
  char b[8];
  std::snprintf(b, sizeof b, "0x%02x", mgmt_class);
  throw Error(std::string("A MAD server (class ") + b +
              ") cannot run over verbs: requests to QP1 reach only the kernel's GSI; it needs umad access" +
              (umad_error_.empty() ? std::string() : " (" + umad_error_ + ")"));
}

int VerbsMad::fd() const { return channel_->fd(); }

void VerbsMad::post_recv(unsigned slot) {
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uintptr_t>(buf_.data() + size_t(slot) * RECV_SLOT);
  sge.length = uint32_t(RECV_SLOT);
  sge.lkey = mr_->lkey();
  ibv_recv_wr wr{};
  wr.wr_id = slot;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  if (int r = ibv_post_recv(qp_->get(), &wr, &bad)) throw SysError(r, "ibv_post_recv", "Cannot post a MAD receive buffer");
}

const verbs::AH& VerbsMad::ah_for(const IBPath& path) {
  ibv_ah_attr a = verbs::ah_attr(path, uint8_t(ep_.port), ep_.lmc);
  a.src_path_bits = 0;
  std::string key(reinterpret_cast<const char*>(&a), sizeof a);
  for (const auto& [k, ah] : ahs_)
    if (k == key) return ah;
  // Keep a bounded number (a fabric-wide query talks to every PMA once).
  if (ahs_.size() >= 4096) ahs_.erase(ahs_.begin());
  ahs_.emplace_back(key, verbs::AH(*pd_, a));
  return ahs_.back().second;
}

void VerbsMad::send_raw(const uint8_t* mad, size_t len, const IBPath& path) {
  while (free_send_.empty()) {
    // Every send buffer is on the wire: wait for one to complete.
    if (drain() == 0) {
      pollfd p{fd(), POLLIN, 0};
      if (!armed_) {
        cq_->arm();
        armed_ = true;
        if (drain() > 0) continue;
      }
      if (::poll(&p, 1, 1000) < 0 && errno != EINTR) throw SysError(errno, "poll");
      if (cq_->take_event()) armed_ = false;
    }
  }
  unsigned slot = free_send_.back();
  uint8_t* b = buf_.data() + size_t(depth_) * RECV_SLOT + size_t(slot) * iba::MAD_SIZE;
  std::memset(b, 0, iba::MAD_SIZE);
  std::memcpy(b, mad, len);
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uintptr_t>(b);
  sge.length = uint32_t(iba::MAD_SIZE);
  sge.lkey = mr_->lkey();
  ibv_send_wr wr{};
  wr.wr_id = uint64_t(depth_) + slot;  // send ids come after the receive slots
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.wr.ud.ah = ah_for(path).get();
  wr.wr.ud.remote_qpn = path.dqpn ? path.dqpn : 1;
  wr.wr.ud.remote_qkey = path.qkey ? path.qkey : GSI_QKEY;
  ibv_send_wr* bad = nullptr;
  if (int r = ibv_post_send(qp_->get(), &wr, &bad)) throw SysError(r, "ibv_post_send", "Cannot send a MAD over verbs");
  free_send_.pop_back();
}

void VerbsMad::send(int, const uint8_t* mad, size_t len, const IBPath& path, int) {
  uint8_t cls = MADHeader::mgmtClass_at(mad);
  if (is_smp_class(cls)) client_agent(cls, 1);  // the clear error
  if (len > iba::MAD_SIZE) throw Error("Multi-segment (RMPP) sends need umad; verbs sends one MAD at a time");
  if (path.DLID == 0) throw MADError("No destination LID for " + path.describe() + " (resolve it first)");
  uint16_t want = pkey_index_of(path, cls, pkey_index_);
  if (want != pkey_index_)
    throw Error("The verbs QP sends with P_Key index " + std::to_string(pkey_index_) + ", not " +
                std::to_string(want) + " (use umad for per-MAD P_Key indexes)");
  send_raw(mad, len, path);
}

void VerbsMad::on_recv_wc(const ibv_wc& wc) {
  unsigned slot = unsigned(wc.wr_id);
  const uint8_t* b = buf_.data() + size_t(slot) * RECV_SLOT;
  RecvMad r;
  if (wc.status == IBV_WC_SUCCESS && wc.byte_len >= GRH_SIZE + MADHeader::SIZE) {
    size_t n = std::min<size_t>(wc.byte_len - GRH_SIZE, iba::MAD_SIZE);
    std::memcpy(r.data.data(), b + GRH_SIZE, n);
    r.len = n;
    r.agent = MADHeader::mgmtClass_at(r.data.data());
    MadAddr& a = r.addr;
    a.qpn = wc.src_qp;
    a.lid = wc.slid;
    a.sl = wc.sl;
    a.path_bits = wc.dlid_path_bits;
    a.pkey_index = pkey_index_;
    a.qkey = GSI_QKEY;
    if (wc.wc_flags & IBV_WC_GRH) {
      // The GRH as received (IBA 8.3), in front of the MAD.
      using G = iba::HdrGRH;
      a.grh_present = true;
      a.traffic_class = uint8_t(G::TClass_at(b));
      a.flow_label = uint32_t(G::flowLabel_at(b));
      a.hop_limit = uint8_t(G::hopLmt_at(b));
      a.gid = G::SGID_at(b);
    }
  }
  post_recv(slot);
  if (r.len == 0) return;  // a failed receive (flushed) or a runt
  if (RmppReceiver::wants({r.data.data(), r.len})) {
    RmppReceiver::Step st = rmpp_.on_packet({r.data.data(), r.len});
    if (st.ack) {
      IBPath back = r.addr.to_path();
      back.reverse(true);
      back.dqpn = r.addr.qpn;
      try {
        send_raw(st.ack->data(), st.ack->size(), back);
      } catch (const Error&) {
        // A lost ACK is a lost packet: the sender resends, or the request times out.
      }
    }
    if (!st.deliver) return;
    std::memcpy(r.data.data(), st.msg.data(), std::min(st.msg.size(), iba::MAD_SIZE));
    r.len = std::min(st.msg.size(), iba::MAD_SIZE);
    if (st.msg.size() > iba::MAD_SIZE) r.big = std::move(st.msg);
  }
  ready_.push_back(std::move(r));
}

int VerbsMad::drain() {
  ibv_wc wc[16];
  int total = 0;
  for (;;) {
    int n = cq_->poll(wc, 16);
    for (int i = 0; i < n; ++i) {
      if (wc[i].wr_id >= depth_) {
        unsigned slot = unsigned(wc[i].wr_id - depth_);
        free_send_.push_back(slot);
        if (wc[i].status != IBV_WC_SUCCESS) {
          // Tell the engine which MAD failed: its own bytes, with a status.
          RecvMad r;
          const uint8_t* b = buf_.data() + size_t(depth_) * RECV_SLOT + size_t(slot) * iba::MAD_SIZE;
          std::memcpy(r.data.data(), b, iba::MAD_SIZE);
          r.len = iba::MAD_SIZE;
          r.status = EIO;
          ready_.push_back(std::move(r));
        }
      } else {
        on_recv_wc(wc[i]);
      }
    }
    total += n;
    if (n < 16) return total;
  }
}

bool VerbsMad::recv(RecvMad& out, int timeout_ms) {
  auto take = [&] {
    if (ready_.empty()) return false;
    out = std::move(ready_.front());
    ready_.pop_front();
    return true;
  };
  if (take()) return true;
  drain();
  if (take()) return true;
  if (timeout_ms == 0) return false;
  auto until = Clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  for (;;) {
    if (!armed_) {
      cq_->arm();
      armed_ = true;
      // A completion that came between the poll and the arm raises no event.
      drain();
      if (take()) return true;
    }
    int wait = -1;
    if (timeout_ms >= 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
      if (left <= 0) return false;
      wait = int(left);
    }
    pollfd p{fd(), POLLIN, 0};
    int n = ::poll(&p, 1, wait);
    if (n < 0) {
      if (errno == EINTR) return false;
      throw SysError(errno, "poll");
    }
    if (n > 0 && cq_->take_event()) armed_ = false;
    drain();
    if (take()) return true;
    if (n == 0) return false;
  }
}

}  // namespace ibcore
