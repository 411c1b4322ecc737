// Verbs: C++ ownership types over libibverbs, and QP set-up from an IBPath.
//
// libibverbs is not linked: it (and the libnl it pulls in) is loaded with
// dlopen the first time a verbs type is made, so a command that never uses
// verbs pays nothing at start-up.  Every object holds a reference to what
// it was made from (a QP its PD and CQs, a PD its context), so objects can
// be destroyed in any order and the verbs still see children go first.
// The types are move-only; every failure is a SysError naming the verb.
//
//   using namespace ibcore::verbs;
//   Context ctx = Context::open("mlx5_0");
//   PD pd(ctx);
//   CompChannel ch(ctx);
//   CQ cq(ctx, 64, &ch);
//   QP qp(pd, IBV_QPT_RC, cq, cq, {.max_send_wr = 16, .max_recv_wr = 16});
//   qp.modify(qp_transition(IBV_QPT_RC, IBV_QPS_INIT, path, 1));
//
// The inline data path (ibv_post_send, ibv_poll_cq, ...) is libibverbs'
// own: call it on qp.get() / cq.get().
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/transport/path.h"

namespace ibcore::verbs {

// The exported libibverbs entry points ibtool calls, resolved on first use.
// Throws Error when libibverbs cannot be loaded or lacks one of them.
struct Api {
  ibv_device** (*get_device_list)(int*);
  void (*free_device_list)(ibv_device**);
  const char* (*get_device_name)(ibv_device*);
  __be64 (*get_device_guid)(ibv_device*);
  ibv_context* (*open_device)(ibv_device*);
  int (*close_device)(ibv_context*);
  int (*query_device)(ibv_context*, ibv_device_attr*);
  int (*query_port)(ibv_context*, uint8_t, ibv_port_attr*);  // the exported (non-extended) one
  int (*query_gid)(ibv_context*, uint8_t, int, ibv_gid*);
  int (*query_pkey)(ibv_context*, uint8_t, int, __be16*);
  ibv_pd* (*alloc_pd)(ibv_context*);
  int (*dealloc_pd)(ibv_pd*);
  ibv_mr* (*reg_mr)(ibv_pd*, void*, size_t, int);
  int (*dereg_mr)(ibv_mr*);
  ibv_comp_channel* (*create_comp_channel)(ibv_context*);
  int (*destroy_comp_channel)(ibv_comp_channel*);
  ibv_cq* (*create_cq)(ibv_context*, int, void*, ibv_comp_channel*, int);
  int (*destroy_cq)(ibv_cq*);
  int (*get_cq_event)(ibv_comp_channel*, ibv_cq**, void**);
  void (*ack_cq_events)(ibv_cq*, unsigned);
  ibv_qp* (*create_qp)(ibv_pd*, ibv_qp_init_attr*);
  int (*modify_qp)(ibv_qp*, ibv_qp_attr*, int);
  int (*query_qp)(ibv_qp*, ibv_qp_attr*, int, ibv_qp_init_attr*);
  int (*destroy_qp)(ibv_qp*);
  ibv_ah* (*create_ah)(ibv_pd*, ibv_ah_attr*);
  int (*destroy_ah)(ibv_ah*);
  ibv_srq* (*create_srq)(ibv_pd*, ibv_srq_init_attr*);
  int (*destroy_srq)(ibv_srq*);
  const char* (*wc_status_str)(ibv_wc_status);
  // Optional (nullptr when this libibverbs lacks it): upstream's
  // ibv_query_port_speed (rdma-core main, 2026), 100 Mb/s units.
  int (*query_port_speed)(ibv_context*, uint32_t, uint64_t*);
};
const Api& api();

// A context on the device named, or nullopt when libibverbs cannot be
// loaded, lists no such device or cannot open it (for optional extras
// such as ibstat's effective speed).
class Context;
std::optional<Context> try_open(const std::string& device);

// The reason a work completion failed, as libibverbs words it.
std::string wc_status_text(ibv_wc_status s);

// --- the objects ---------------------------------------------------------------------

// The device list (ibv_get_device_list).  Throws SysError when libibverbs
// cannot list the devices (no uverbs); an empty list is not an error.
class DeviceList {
public:
  DeviceList();
  size_t size() const { return devs_.size(); }
  ibv_device* operator[](size_t i) const { return devs_[i]; }
  std::string name(size_t i) const;
  uint64_t node_guid(size_t i) const;  // host order
  // The device of that name, or nullptr.
  ibv_device* find(const std::string& name) const;
  std::vector<std::string> names() const;

private:
  std::shared_ptr<ibv_device*> list_;
  std::vector<ibv_device*> devs_;
};

class Context {
public:
  // Open the device named (Error naming the devices there are when none
  // has that name; SysError when it cannot be opened).
  static Context open(const std::string& device);
  explicit Context(ibv_device* dev);
  Context(Context&&) = default;
  Context& operator=(Context&&) = default;
  ibv_context* get() const { return ctx_.get(); }
  const std::shared_ptr<ibv_context>& handle() const { return ctx_; }
  std::string name() const;

  ibv_device_attr query_device() const;
  ibv_port_attr query_port(uint8_t port) const;
  iba::Gid query_gid(uint8_t port, int index) const;
  uint16_t query_pkey(uint8_t port, int index) const;
  // The port's effective speed in 100 Mb/s units, where libibverbs has the
  // verb and it answers; nullopt otherwise.
  std::optional<uint64_t> query_port_speed(uint8_t port) const;

private:
  std::shared_ptr<ibv_context> ctx_;
};

class PD {
public:
  explicit PD(const Context& ctx);
  PD(PD&&) = default;
  PD& operator=(PD&&) = default;
  ibv_pd* get() const { return pd_.get(); }
  const std::shared_ptr<ibv_pd>& handle() const { return pd_; }

private:
  std::shared_ptr<ibv_pd> pd_;
};

// A registered memory region over memory the caller owns (it must outlive
// the MR).
class MR {
public:
  MR(const PD& pd, void* addr, size_t length, int access);
  MR(MR&&) = default;
  MR& operator=(MR&&) = default;
  ibv_mr* get() const { return mr_.get(); }
  uint32_t lkey() const { return mr_->lkey; }
  uint32_t rkey() const { return mr_->rkey; }
  void* addr() const { return mr_->addr; }
  size_t length() const { return mr_->length; }

private:
  std::shared_ptr<ibv_mr> mr_;
};

class CompChannel {
public:
  explicit CompChannel(const Context& ctx);
  CompChannel(CompChannel&&) = default;
  CompChannel& operator=(CompChannel&&) = default;
  ibv_comp_channel* get() const { return ch_.get(); }
  const std::shared_ptr<ibv_comp_channel>& handle() const { return ch_; }
  int fd() const { return ch_->fd; }

private:
  std::shared_ptr<ibv_comp_channel> ch_;
};

class CQ {
public:
  // cqe entries; events on channel when given.
  CQ(const Context& ctx, int cqe, const CompChannel* channel = nullptr);
  CQ(CQ&&) = default;
  CQ& operator=(CQ&&) = default;
  ibv_cq* get() const { return cq_.get(); }
  const std::shared_ptr<ibv_cq>& handle() const { return cq_; }
  // Ask for an event on the channel at the next completion.
  void arm(bool solicited_only = false);
  // Take the event the channel has (blocks unless the channel's fd is
  // non-blocking: then false when there is none) and acknowledge it.
  bool take_event();
  // Poll up to n completions into wc; returns how many.
  int poll(ibv_wc* wc, int n);

private:
  std::shared_ptr<ibv_cq> cq_;
};

class SRQ {
public:
  SRQ(const PD& pd, uint32_t max_wr, uint32_t max_sge = 1);
  SRQ(SRQ&&) = default;
  SRQ& operator=(SRQ&&) = default;
  ibv_srq* get() const { return srq_.get(); }
  const std::shared_ptr<ibv_srq>& handle() const { return srq_; }

private:
  std::shared_ptr<ibv_srq> srq_;
};

struct QPCaps {
  uint32_t max_send_wr = 16;
  uint32_t max_recv_wr = 16;
  uint32_t max_send_sge = 1;
  uint32_t max_recv_sge = 1;
  uint32_t max_inline_data = 0;
  bool sq_sig_all = false;
};

class QP {
public:
  QP(const PD& pd, ibv_qp_type type, const CQ& send_cq, const CQ& recv_cq, const QPCaps& caps,
     const SRQ* srq = nullptr);
  QP(QP&&) = default;
  QP& operator=(QP&&) = default;
  ibv_qp* get() const { return qp_.get(); }
  uint32_t qpn() const { return qp_->qp_num; }
  ibv_qp_type type() const { return qp_->qp_type; }
  // ibv_modify_qp; SysError naming the state asked for.
  void modify(const ibv_qp_attr& attr, int mask);
  ibv_qp_state state() const;

private:
  std::shared_ptr<ibv_qp> qp_;
};

class AH {
public:
  AH(const PD& pd, const ibv_ah_attr& attr);
  AH(AH&&) = default;
  AH& operator=(AH&&) = default;
  ibv_ah* get() const { return ah_.get(); }

private:
  std::shared_ptr<ibv_ah> ah_;
};

// --- QP set-up from a path -------------------------------------------------------------

// The address vector of path as seen from local port port_num: DLID, SL,
// the source path bits (SLID's low LMC bits), the static rate, and a GRH
// when the path has one (sgid_index is the local GID table index).
ibv_ah_attr ah_attr(const IBPath& path, uint8_t port_num, uint8_t lmc = 0, uint8_t sgid_index = 0);

// What one state transition of a QP of type to a given state needs, taken
// from path: the attribute values and exactly the mask the verbs require
// for that (type, transition) (IBA 11.2.5.3 / ibv_modify_qp(3)):
//   INIT: pkey_index, port, qkey (UD) or access flags (RC, UC)
//   RTR:  UD nothing more; UC/RC the address vector, path MTU, dest QPN,
//         rq PSN (path.dqpsn); RC also max_dest_rd_atomic (path.drdatomic,
//         else 1) and min_rnr_timer (path.min_rnr_timer, else 12: 0.64 ms)
//   RTS:  sq PSN (path.sqpsn); RC also timeout (from the path's packet
//         lifetime: one step above it, else 14), retry count (path's
//         retries, at most 7), RNR retry (7 = forever) and max_rd_atomic
//         (path.srdatomic, else 1)
// The path's MTU (IBA encoding) is used when set, else 1024 (IBV_MTU_1024).
// Throws Error for a transition the type does not have (e.g. RESET).
struct QPTransition {
  ibv_qp_attr attr{};
  int mask = 0;
};
struct QPEnd {
  uint8_t port_num = 1;
  uint16_t pkey_index = 0;
  uint32_t qkey = 0;          // UD
  int access = 0;             // RC/UC: IBV_ACCESS_REMOTE_* this QP allows
  uint32_t dest_qpn = 0;      // RC/UC: the other end's QPN
  uint8_t lmc = 0;
};
QPTransition qp_transition(ibv_qp_type type, ibv_qp_state to, const IBPath& path, const QPEnd& end);

// INIT, RTR and RTS in turn (UD, UC, RC alike).
void bring_up(QP& qp, const IBPath& path, const QPEnd& end);

}  // namespace ibcore::verbs

namespace ibcore {

// --- verbs devices -----------------------------------------------------------------
// The devices libibverbs lists (ibv_devices).  libibverbs (and the libnl it
// pulls in) is loaded on first use with dlopen: the commands that never use
// verbs do not pay for loading it at every start.
struct VerbsDevice {
  std::string name;
  uint64_t node_guid = 0;  // host order
};
// Throws SysError(errno, "ibv_get_device_list") when libibverbs cannot list
// the devices, Error when libibverbs cannot be loaded.
std::vector<VerbsDevice> verbs_devices();

}  // namespace ibcore
