// VMAD: GMPs over verbs (python-rdma's rdma.vmad).  A UD QP of our own
// sends GMPs (SA, PM, CC, vendor classes) to QP1 with the GSI Q_Key and
// takes the replies as receive completions, so a user without access to
// /dev/infiniband/umad* (root-only on most clusters; uverbs is not) can
// still ask the SA and the PMAs.  The source QPN of these MADs is not 1,
// which the IBA allows for GMP requests.
//
// It is a Transport like Umad: the RPC engine and the scheduler run over
// it unchanged (many MADs in flight, one registered buffer pool, nothing
// allocated per MAD).  What the kernel does for umad it does itself: RMPP
// segments of a reply are acknowledged and joined (RmppReceiver).  SMPs
// cannot go over verbs (QP0 belongs to the kernel); asking for an SMP
// agent is a clear Error.  Neither can unsolicited requests to QP1 be
// received, so MAD servers (ibping -S) need umad.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/mad/rmpp.h"
#include "core/transport/transport.h"
#include "core/transport/verbs.h"
#include "iba/hdr.h"

namespace ibcore {

class VerbsMad : public Transport {
public:
  // Open ep's device through libibverbs and bring a UD QP up on its port
  // with depth receive and send buffers.  Throws Error/SysError when verbs
  // cannot (no libibverbs, no such device, no uverbs access).
  // umad_error, when given, says why umad was not used (auto mode): it is
  // part of the error an SMP agent request gets.
  // pkey_index: the P_Key index of every MAD the QP sends (-Y/--pkey-idx).
  explicit VerbsMad(const EndPort& ep, unsigned depth = 64, std::string umad_error = {}, uint16_t pkey_index = 0);
  ~VerbsMad() override;

  int client_agent(uint8_t mgmt_class, uint8_t class_version) override;
  int server_agent(uint8_t mgmt_class, uint8_t class_version, uint32_t method_mask, uint32_t oui = 0) override;
  void send(int agent, const uint8_t* mad, size_t len, const IBPath& path, int timeout_ms) override;
  bool recv(RecvMad& out, int timeout_ms) override;
  int fd() const override;
  uint16_t local_lid() const override { return ep_.lid; }
  iba::Gid local_gid() const override { return ep_.gid(); }
  uint16_t sm_lid() const override { return ep_.sm_lid; }
  uint8_t sm_sl() const override { return ep_.sm_sl; }
  uint32_t qpn() const { return qp_->qpn(); }

private:
  static constexpr size_t GRH_SIZE = iba::HdrGRH::SIZE;
  static constexpr size_t RECV_SLOT = GRH_SIZE + iba::MAD_SIZE;
  void post_recv(unsigned slot);
  void send_raw(const uint8_t* mad, size_t len, const IBPath& path);
  const verbs::AH& ah_for(const IBPath& path);
  // Take completions off the CQ (queueing received MADs in ready_);
  // returns how many were taken.
  int drain();
  void on_recv_wc(const ibv_wc& wc);

  EndPort ep_;
  unsigned depth_;
  uint16_t pkey_index_;
  std::string umad_error_;
  std::optional<verbs::Context> ctx_;
  std::optional<verbs::PD> pd_;
  std::optional<verbs::CompChannel> channel_;
  std::optional<verbs::CQ> cq_;
  std::optional<verbs::QP> qp_;
  std::vector<uint8_t> buf_;  // depth receive slots, then depth send slots
  std::optional<verbs::MR> mr_;
  std::vector<unsigned> free_send_;
  std::vector<std::pair<std::string, verbs::AH>> ahs_;  // small: one per destination
  std::deque<RecvMad> ready_;
  RmppReceiver rmpp_;
  bool armed_ = false;
};

}  // namespace ibcore
