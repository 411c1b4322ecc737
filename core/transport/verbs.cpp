#include "core/transport/verbs.h"

#include <dlfcn.h>
#include <endian.h>
#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/base/error.h"

namespace ibcore::verbs {

namespace {

// A verb that returns an errno-style int (0 or an errno, some providers
// return -1 and set errno).
void check(int r, const char* verb, const std::string& what = {}) {
  if (r == 0) return;
  int err = r > 0 ? r : (errno ? errno : EIO);
  throw SysError(err, verb, what);
}

template <class T>
T* check_ptr(T* p, const char* verb, const std::string& what = {}) {
  if (!p) throw SysError(errno ? errno : ENOMEM, verb, what);
  return p;
}

Api load() {
  void* lib = ::dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = ::dlerror();
    throw Error(std::string("Cannot load libibverbs: ") + (why ? why : "unknown error"));
  }
  Api a{};
  auto sym = [lib](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
    if (!fn) throw Error(std::string("libibverbs lacks ") + name);
  };
  sym(a.get_device_list, "ibv_get_device_list");
  sym(a.free_device_list, "ibv_free_device_list");
  sym(a.get_device_name, "ibv_get_device_name");
  sym(a.get_device_guid, "ibv_get_device_guid");
  sym(a.open_device, "ibv_open_device");
  sym(a.close_device, "ibv_close_device");
  sym(a.query_device, "ibv_query_device");
  sym(a.query_port, "ibv_query_port");
  sym(a.query_gid, "ibv_query_gid");
  sym(a.query_pkey, "ibv_query_pkey");
  sym(a.alloc_pd, "ibv_alloc_pd");
  sym(a.dealloc_pd, "ibv_dealloc_pd");
  sym(a.reg_mr, "ibv_reg_mr");
  sym(a.dereg_mr, "ibv_dereg_mr");
  sym(a.create_comp_channel, "ibv_create_comp_channel");
  sym(a.destroy_comp_channel, "ibv_destroy_comp_channel");
  sym(a.create_cq, "ibv_create_cq");
  sym(a.destroy_cq, "ibv_destroy_cq");
  sym(a.get_cq_event, "ibv_get_cq_event");
  sym(a.ack_cq_events, "ibv_ack_cq_events");
  sym(a.create_qp, "ibv_create_qp");
  sym(a.modify_qp, "ibv_modify_qp");
  sym(a.query_qp, "ibv_query_qp");
  sym(a.destroy_qp, "ibv_destroy_qp");
  sym(a.create_ah, "ibv_create_ah");
  sym(a.destroy_ah, "ibv_destroy_ah");
  sym(a.create_srq, "ibv_create_srq");
  sym(a.destroy_srq, "ibv_destroy_srq");
  sym(a.wc_status_str, "ibv_wc_status_str");
  a.query_port_speed = reinterpret_cast<decltype(a.query_port_speed)>(::dlsym(lib, "ibv_query_port_speed"));
  return a;
}

const char* state_name(ibv_qp_state s) {
  switch (s) {
    case IBV_QPS_RESET: return "RESET";
    case IBV_QPS_INIT: return "INIT";
    case IBV_QPS_RTR: return "RTR";
    case IBV_QPS_RTS: return "RTS";
    case IBV_QPS_SQD: return "SQD";
    case IBV_QPS_SQE: return "SQE";
    case IBV_QPS_ERR: return "ERR";
    default: return "?";
  }
}

const char* type_name(ibv_qp_type t) {
  switch (t) {
    case IBV_QPT_RC: return "RC";
    case IBV_QPT_UC: return "UC";
    case IBV_QPT_UD: return "UD";
    default: return "?";
  }
}

}  // namespace

const Api& api() {
  // Loaded once, for the life of the process (a failure is thrown again at
  // each call, so a command can report it where it needs verbs).
  static const Api* a = nullptr;
  static std::string failure;
  if (a) return *a;
  if (!failure.empty()) throw Error(failure);
  try {
    static Api loaded = load();
    a = &loaded;
  } catch (const Error& e) {
    failure = e.what();
    throw;
  }
  return *a;
}

std::string wc_status_text(ibv_wc_status s) {
  const char* t = api().wc_status_str(s);
  return t ? t : "status " + std::to_string(int(s));
}

// --- DeviceList ----------------------------------------------------------------------

DeviceList::DeviceList() {
  const Api& a = api();
  int n = 0;
  errno = 0;
  ibv_device** l = a.get_device_list(&n);
  if (!l) throw SysError(errno ? errno : EIO, "ibv_get_device_list", "Cannot list the RDMA devices");
  list_ = std::shared_ptr<ibv_device*>(l, [f = a.free_device_list](ibv_device** p) { f(p); });
  devs_.assign(l, l + std::max(n, 0));
}

std::string DeviceList::name(size_t i) const { return api().get_device_name(devs_.at(i)); }
uint64_t DeviceList::node_guid(size_t i) const { return be64toh(api().get_device_guid(devs_.at(i))); }

ibv_device* DeviceList::find(const std::string& n) const {
  for (size_t i = 0; i < devs_.size(); ++i)
    if (name(i) == n) return devs_[i];
  return nullptr;
}

std::vector<std::string> DeviceList::names() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < devs_.size(); ++i) out.push_back(name(i));
  return out;
}

// --- Context -------------------------------------------------------------------------

Context::Context(ibv_device* dev) {
  const Api& a = api();
  std::string n = a.get_device_name(dev);
  ibv_context* c = check_ptr(a.open_device(dev), "ibv_open_device", "Cannot open RDMA device " + n);
  ctx_ = std::shared_ptr<ibv_context>(c, [f = a.close_device](ibv_context* p) { f(p); });
}

Context Context::open(const std::string& device) {
  DeviceList l;
  if (l.size() == 0) throw Error("No RDMA devices (libibverbs lists none)");
  ibv_device* d = device.empty() ? l[0] : l.find(device);
  if (!d) {
    std::string have;
    for (const auto& n : l.names()) have += (have.empty() ? "" : ", ") + n;
    throw Error("No RDMA device named " + device + " (libibverbs lists " + have + ")");
  }
  return Context(d);
}

std::string Context::name() const { return api().get_device_name(ctx_->device); }

ibv_device_attr Context::query_device() const {
  ibv_device_attr d{};
  check(api().query_device(get(), &d), "ibv_query_device", "Cannot query RDMA device " + name());
  return d;
}

ibv_port_attr Context::query_port(uint8_t port) const {
  ibv_port_attr p{};
  std::string what = "Cannot query port " + std::to_string(port) + " of " + name();
  // Extended contexts answer through their own entry (what the header's
  // inline ibv_query_port does); others through the exported verb.
  if (verbs_context* v = verbs_get_ctx_op(get(), query_port)) {
    check(v->query_port(get(), port, &p, sizeof p), "ibv_query_port", what);
  } else {
    check(api().query_port(get(), port, &p), "ibv_query_port", what);
  }
  return p;
}

iba::Gid Context::query_gid(uint8_t port, int index) const {
  ibv_gid g{};
  check(api().query_gid(get(), port, index, &g), "ibv_query_gid",
        "Cannot read GID " + std::to_string(index) + " of " + name() + " port " + std::to_string(port));
  iba::Gid out;
  std::memcpy(out.raw.data(), g.raw, 16);
  return out;
}

uint16_t Context::query_pkey(uint8_t port, int index) const {
  __be16 k = 0;
  check(api().query_pkey(get(), port, index, &k), "ibv_query_pkey",
        "Cannot read P_Key " + std::to_string(index) + " of " + name() + " port " + std::to_string(port));
  return be16toh(k);
}

std::optional<uint64_t> Context::query_port_speed(uint8_t port) const {
  uint64_t v = 0;
  if (!api().query_port_speed || api().query_port_speed(get(), port, &v) != 0) return std::nullopt;
  return v;
}

std::optional<Context> try_open(const std::string& device) {
  try {
    DeviceList l;
    if (ibv_device* d = l.find(device)) return Context(d);
  } catch (const Error&) {
  }
  return std::nullopt;
}

// --- PD, MR, channel, CQ, SRQ, QP, AH ------------------------------------------------------

PD::PD(const Context& ctx) {
  const Api& a = api();
  ibv_pd* p = check_ptr(a.alloc_pd(ctx.get()), "ibv_alloc_pd", "Cannot allocate a protection domain");
  pd_ = std::shared_ptr<ibv_pd>(p, [f = a.dealloc_pd, keep = ctx.handle()](ibv_pd* x) { f(x); });
}

MR::MR(const PD& pd, void* addr, size_t length, int access) {
  const Api& a = api();
  ibv_mr* m = check_ptr(a.reg_mr(pd.get(), addr, length, access), "ibv_reg_mr",
                        "Cannot register " + std::to_string(length) + " bytes of memory");
  mr_ = std::shared_ptr<ibv_mr>(m, [f = a.dereg_mr, keep = pd.handle()](ibv_mr* x) { f(x); });
}

CompChannel::CompChannel(const Context& ctx) {
  const Api& a = api();
  ibv_comp_channel* c =
      check_ptr(a.create_comp_channel(ctx.get()), "ibv_create_comp_channel", "Cannot create a completion channel");
  ch_ = std::shared_ptr<ibv_comp_channel>(
      c, [f = a.destroy_comp_channel, keep = ctx.handle()](ibv_comp_channel* x) { f(x); });
}

CQ::CQ(const Context& ctx, int cqe, const CompChannel* channel) {
  const Api& a = api();
  ibv_cq* c = check_ptr(a.create_cq(ctx.get(), cqe, nullptr, channel ? channel->get() : nullptr, 0), "ibv_create_cq",
                        "Cannot create a completion queue of " + std::to_string(cqe) + " entries");
  std::shared_ptr<ibv_comp_channel> ch = channel ? channel->handle() : nullptr;
  cq_ = std::shared_ptr<ibv_cq>(c, [f = a.destroy_cq, keep = ctx.handle(), ch](ibv_cq* x) { f(x); });
}

void CQ::arm(bool solicited_only) { check(ibv_req_notify_cq(get(), solicited_only), "ibv_req_notify_cq"); }

bool CQ::take_event() {
  ibv_cq* c = nullptr;
  void* context = nullptr;
  if (api().get_cq_event(get()->channel, &c, &context) != 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return false;
    throw SysError(errno ? errno : EIO, "ibv_get_cq_event");
  }
  api().ack_cq_events(c, 1);
  return true;
}

int CQ::poll(ibv_wc* wc, int n) {
  int r = ibv_poll_cq(get(), n, wc);
  if (r < 0) throw SysError(EIO, "ibv_poll_cq", "Cannot poll a completion queue");
  return r;
}

SRQ::SRQ(const PD& pd, uint32_t max_wr, uint32_t max_sge) {
  const Api& a = api();
  ibv_srq_init_attr ia{};
  ia.attr.max_wr = max_wr;
  ia.attr.max_sge = max_sge;
  ibv_srq* s = check_ptr(a.create_srq(pd.get(), &ia), "ibv_create_srq", "Cannot create a shared receive queue");
  srq_ = std::shared_ptr<ibv_srq>(s, [f = a.destroy_srq, keep = pd.handle()](ibv_srq* x) { f(x); });
}

QP::QP(const PD& pd, ibv_qp_type type, const CQ& send_cq, const CQ& recv_cq, const QPCaps& caps, const SRQ* srq) {
  const Api& a = api();
  ibv_qp_init_attr ia{};
  ia.send_cq = send_cq.get();
  ia.recv_cq = recv_cq.get();
  ia.srq = srq ? srq->get() : nullptr;
  ia.qp_type = type;
  ia.sq_sig_all = caps.sq_sig_all;
  ia.cap.max_send_wr = caps.max_send_wr;
  ia.cap.max_recv_wr = caps.max_recv_wr;
  ia.cap.max_send_sge = caps.max_send_sge;
  ia.cap.max_recv_sge = caps.max_recv_sge;
  ia.cap.max_inline_data = caps.max_inline_data;
  ibv_qp* q = check_ptr(a.create_qp(pd.get(), &ia), "ibv_create_qp",
                        std::string("Cannot create a ") + type_name(type) + " QP");
  std::shared_ptr<ibv_srq> keep_srq = srq ? srq->handle() : nullptr;
  qp_ = std::shared_ptr<ibv_qp>(q, [f = a.destroy_qp, pd = pd.handle(), s = send_cq.handle(), r = recv_cq.handle(),
                                    keep_srq](ibv_qp* x) { f(x); });
}

void QP::modify(const ibv_qp_attr& attr, int mask) {
  ibv_qp_attr a = attr;
  std::string what = std::string("Cannot move ") + type_name(type()) + " QP " + std::to_string(qpn()) +
                     ((mask & IBV_QP_STATE) ? std::string(" to ") + state_name(attr.qp_state) : " (no state)");
  check(api().modify_qp(get(), &a, mask), "ibv_modify_qp", what);
}

ibv_qp_state QP::state() const {
  ibv_qp_attr a{};
  ibv_qp_init_attr ia{};
  check(api().query_qp(get(), &a, IBV_QP_STATE, &ia), "ibv_query_qp");
  return a.qp_state;
}

AH::AH(const PD& pd, const ibv_ah_attr& attr) {
  const Api& a = api();
  ibv_ah_attr at = attr;
  ibv_ah* h = check_ptr(a.create_ah(pd.get(), &at), "ibv_create_ah",
                        "Cannot create an address handle to LID " + std::to_string(attr.dlid));
  ah_ = std::shared_ptr<ibv_ah>(h, [f = a.destroy_ah, keep = pd.handle()](ibv_ah* x) { f(x); });
}

// --- QP set-up -------------------------------------------------------------------------

ibv_ah_attr ah_attr(const IBPath& path, uint8_t port_num, uint8_t lmc, uint8_t sgid_index) {
  ibv_ah_attr a{};
  a.dlid = path.DLID;
  a.sl = path.SL;
  a.src_path_bits = uint8_t(path.SLID & ((1u << std::min<unsigned>(lmc, 7)) - 1));
  a.static_rate = path.rate;  // the IBA rate encoding is ibv_rate's
  a.port_num = port_num;
  if (path.has_grh) {
    a.is_global = 1;
    std::memcpy(a.grh.dgid.raw, path.DGID.raw.data(), 16);
    a.grh.flow_label = path.flow_label;
    a.grh.sgid_index = sgid_index;
    a.grh.hop_limit = path.hop_limit ? path.hop_limit : 255;
    a.grh.traffic_class = path.traffic_class;
  }
  return a;
}

QPTransition qp_transition(ibv_qp_type type, ibv_qp_state to, const IBPath& path, const QPEnd& end) {
  bool ud = type == IBV_QPT_UD, rc = type == IBV_QPT_RC;
  if (!ud && !rc && type != IBV_QPT_UC) throw Error(std::string("No QP set-up for QP type ") + type_name(type));
  QPTransition t;
  ibv_qp_attr& a = t.attr;
  a.qp_state = to;
  t.mask = IBV_QP_STATE;
  switch (to) {
    case IBV_QPS_INIT:
      a.pkey_index = end.pkey_index;
      a.port_num = end.port_num;
      t.mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT;
      if (ud) {
        a.qkey = end.qkey;
        t.mask |= IBV_QP_QKEY;
      } else {
        a.qp_access_flags = unsigned(end.access);
        t.mask |= IBV_QP_ACCESS_FLAGS;
      }
      break;
    case IBV_QPS_RTR:
      if (ud) break;
      a.ah_attr = ah_attr(path, end.port_num, end.lmc);
      a.path_mtu = path.MTU >= IBV_MTU_256 && path.MTU <= IBV_MTU_4096 ? ibv_mtu(path.MTU) : IBV_MTU_1024;
      a.dest_qp_num = end.dest_qpn;
      a.rq_psn = path.dqpsn & 0xffffff;
      t.mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
      if (rc) {
        a.max_dest_rd_atomic = path.drdatomic ? path.drdatomic : 1;
        a.min_rnr_timer = path.min_rnr_timer ? path.min_rnr_timer : 12;
        t.mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
      }
      break;
    case IBV_QPS_RTS:
      a.sq_psn = path.sqpsn & 0xffffff;
      t.mask |= IBV_QP_SQ_PSN;
      if (rc) {
        // The local ACK timeout: a little over the round trip's packet
        // lifetime (4.096 us * 2^v), as the CM sets it.
        a.timeout = path.packet_life_time ? uint8_t(std::min(*path.packet_life_time + 1, 31)) : 14;
        a.retry_cnt = uint8_t(std::clamp(path.retries.value_or(7), 0, 7));
        a.rnr_retry = 7;
        a.max_rd_atomic = path.srdatomic ? path.srdatomic : 1;
        t.mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
      }
      break;
    default:
      throw Error(std::string("No QP set-up step to state ") + state_name(to));
  }
  return t;
}

void bring_up(QP& qp, const IBPath& path, const QPEnd& end) {
  for (ibv_qp_state s : {IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS}) {
    QPTransition t = qp_transition(qp.type(), s, path, end);
    qp.modify(t.attr, t.mask);
  }
}

}  // namespace ibcore::verbs

namespace ibcore {

// --- verbs devices -------------------------------------------------------------------

std::vector<VerbsDevice> verbs_devices() {
  verbs::DeviceList l;  // loads libibverbs on first use
  std::vector<VerbsDevice> out;
  for (size_t i = 0; i < l.size(); ++i) out.push_back({l.name(i), l.node_guid(i)});
  return out;
}

}  // namespace ibcore
