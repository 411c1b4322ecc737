// MAD RPC (python-rdma's MADTransactor, seeds/002): one call per IBA RPC
// name, typed on the attribute structure:
//
//   ibcore::Umad umad(ep.ca, ep.port);
//   ibcore::MadTransactor mad(umad);
//   iba::SMPNodeInfo ni = mad.SubnGet<iba::SMPNodeInfo>(path);
//   iba::SMPPortInfo pi = mad.SubnGet<iba::SMPPortInfo>(path, 1);
//   mad.SubnSet(pi, path, 1);                       // payload by value
//   auto t = mad.SubnAdmGetTable(query, comp_mask); // t.records, t.truncated
//
// Failures throw MADTimeoutError / MADClassError / MADError (core/base/error.h).
// The method is checked against the attribute's entry in the class registry
// (iba/mad.h), so a SubnSet of a get-only attribute fails before sending.
//
// The RPC names are declared once (RpcVerbs below, python-rdma's
// MADTransactor mixin) and run in two modes: synchronously here
// (MadTransactor: the call returns the attribute) and asynchronously under
// the scheduler (core/rpc/sched.h Scheduler: the call returns an awaitable of
// it).  MadEngine is the machinery both share.
//
// This file is the typed RPC layer; the engine is core/rpc/engine.h, its
// flow control core/rpc/flow.h, building MADs core/rpc/madbuild.h,
// following the SM core/rpc/smfollow.h.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/base/error.h"
#include "core/mad/rmpp.h"
#include "core/rpc/engine.h"
#include "core/rpc/madbuild.h"
#include "core/rpc/smfollow.h"
#include "core/transport/path.h"
#include "core/transport/transport.h"
#include "iba/mad.h"

namespace ibcore {

// --- typed RPC names -----------------------------------------------------------------

// Find the class (mgmt class in [lo, hi]) whose attribute table has the
// structure d.  nullptr when none.
const iba::ClassDesc* class_for(const iba::StructDesc& d, uint8_t lo, uint8_t hi);

// The request for an RPC name on attribute T.
template <class T>
MadRequest make_request(uint8_t lo, uint8_t hi, uint8_t method, const T* payload, uint32_t amod,
                        uint64_t comp_mask = 0) {
  MadRequest r;
  r.cls = class_for(T::DESC, lo, hi);
  r.method = method;
  r.attr_id = iba::AttrId<T>::value;
  r.amod = amod;
  if (payload) r.payload = payload->bytes();
  r.comp_mask = comp_mask;
  if (!r.cls) throw MADError(std::string("No management class defines attribute ") + T::DESC.name);
  return r;
}


template <class T>
struct SATable {
  std::vector<T> records;
  bool truncated = false;   // the reply lost segments (umad2sim has no RMPP)
};

// Decode the attribute payload of a reply MAD into T.
template <class T>
T decode_reply(std::span<const uint8_t> mad);
// The attribute payload bytes of a MAD (by its class's data offset).
std::span<const uint8_t> payload_of(std::span<const uint8_t> mad);
// The records of an SA GetTable reply (sa_split_records) decoded as T.
template <class T>
SATable<T> decode_table(std::span<const uint8_t> mad) {
  SARecords s = sa_split_records(mad);
  // Records spaced closer than the attribute is long cannot be the SA's
  // records of that attribute: a reply that lies about its offset.
  if (!s.records.empty() && s.record_size < T::SIZE)
    throw MADError("SA GetTable reply's attribute offset (" + std::to_string(s.record_size / 8) +
                   " words) is shorter than a " + T::DESC.name + " record (" + std::to_string(T::SIZE) + " bytes)");
  SATable<T> out;
  out.truncated = s.truncated;
  out.records.reserve(s.records.size());
  for (auto r : s.records) {
    T t;
    t.load(r);
    out.records.push_back(t);
  }
  return out;
}
template <class T>
T decode_reply(std::span<const uint8_t> mad) {
  T t;
  t.load(payload_of(mad));
  return t;
}

// The IBA's RPC names, typed on the attribute structure, declared once for
// both modes.  Exec (CRTP) provides
//   template <class R> auto execute(const MadRequest&, IBPath, R (*decode)(std::span<const uint8_t>))
// (returning R when synchronous, an awaitable of R under the scheduler) and
//   IBPath sa_path() const   (the path SubnAdm* calls take when given none).
template <class Exec>
class RpcVerbs {
public:
#define IBCORE_RPC(Name, lo, hi, meth)                                                              \
  template <class T>                                                                                \
  auto Name(IBPath path, uint32_t amod = 0, const T* payload = nullptr) {                           \
    return exec().execute(make_request<T>(lo, hi, meth, payload, amod), std::move(path), &decode_reply<T>); \
  }                                                                                                 \
  template <class T>                                                                                \
  auto Name(const T& payload, IBPath path, uint32_t amod = 0) {                                     \
    return exec().execute(make_request<T>(lo, hi, meth, &payload, amod), std::move(path), &decode_reply<T>); \
  }
  IBCORE_RPC(SubnGet, iba::mgmt::SUBN_LID_ROUTED, iba::mgmt::SUBN_LID_ROUTED, iba::method::GET)
  IBCORE_RPC(SubnSet, iba::mgmt::SUBN_LID_ROUTED, iba::mgmt::SUBN_LID_ROUTED, iba::method::SET)
  IBCORE_RPC(PerformanceGet, iba::mgmt::PERF, iba::mgmt::PERF, iba::method::GET)
  IBCORE_RPC(PerformanceSet, iba::mgmt::PERF, iba::mgmt::PERF, iba::method::SET)
  IBCORE_RPC(BMGet, iba::mgmt::BM, iba::mgmt::BM, iba::method::GET)
  IBCORE_RPC(BMSet, iba::mgmt::BM, iba::mgmt::BM, iba::method::SET)
  IBCORE_RPC(DevMgtGet, iba::mgmt::DEV_MGT, iba::mgmt::DEV_MGT, iba::method::GET)
  IBCORE_RPC(DevMgtSet, iba::mgmt::DEV_MGT, iba::mgmt::DEV_MGT, iba::method::SET)
  IBCORE_RPC(SNMPGet, iba::mgmt::SNMP, iba::mgmt::SNMP, iba::method::GET)
  IBCORE_RPC(CCGet, iba::mgmt::CC, iba::mgmt::CC, iba::method::GET)
  IBCORE_RPC(CCSet, iba::mgmt::CC, iba::mgmt::CC, iba::method::SET)
  IBCORE_RPC(VendGet, iba::mgmt::VENDOR_MIN, iba::mgmt::VENDOR_OUI_MAX, iba::method::GET)
  IBCORE_RPC(VendSet, iba::mgmt::VENDOR_MIN, iba::mgmt::VENDOR_OUI_MAX, iba::method::SET)
#undef IBCORE_RPC

  // SA: the query record and its component mask, to the SA at path
  // (a pointer: nullptr = sa_path(); or a path).
  template <class T>
  auto SubnAdmGet(const T& query, uint64_t comp_mask, const IBPath* path = nullptr, uint32_t amod = 0) {
    return sa(query, iba::method::GET, comp_mask, path, amod, &decode_reply<T>);
  }
  template <class T>
  auto SubnAdmGet(const T& query, uint64_t comp_mask, const IBPath& path, uint32_t amod = 0) {
    return SubnAdmGet(query, comp_mask, &path, amod);
  }
  template <class T>
  auto SubnAdmSet(const T& rec, uint64_t comp_mask, const IBPath* path = nullptr, uint32_t amod = 0) {
    return sa(rec, iba::method::SET, comp_mask, path, amod, &decode_reply<T>);
  }
  template <class T>
  auto SubnAdmGetTable(const T& query, uint64_t comp_mask, const IBPath* path = nullptr, uint32_t amod = 0) {
    return sa(query, iba::method::GET_TABLE, comp_mask, path, amod, &decode_table<T>);
  }
  template <class T>
  auto SubnAdmGetTable(const T& query, uint64_t comp_mask, const IBPath& path, uint32_t amod = 0) {
    return SubnAdmGetTable(query, comp_mask, &path, amod);
  }

  // (Kept as MadTransactor::decode for the untyped callers.)
  template <class T>
  static T decode(std::span<const uint8_t> mad) {
    return decode_reply<T>(mad);
  }
  static std::span<const uint8_t> payload_of(std::span<const uint8_t> mad) { return ibcore::payload_of(mad); }

private:
  Exec& exec() { return static_cast<Exec&>(*this); }
  template <class T, class R>
  auto sa(const T& rec, uint8_t method, uint64_t comp_mask, const IBPath* path, uint32_t amod,
          R (*dec)(std::span<const uint8_t>)) {
    return exec().execute(make_request<T>(iba::mgmt::SUBN_ADM, iba::mgmt::SUBN_ADM, method, &rec, amod, comp_mask),
                          path ? IBPath(*path) : exec().sa_path(), dec);
  }
};

// Synchronous MAD RPCs over a transport.
class MadTransactor : public RpcVerbs<MadTransactor> {
public:
  explicit MadTransactor(Transport& t, unsigned max_outstanding = 0) : eng_(t, max_outstanding) {}
  MadEngine& engine() { return eng_; }
  Transport& transport() { return eng_.transport(); }

  // The untyped RPC: returns the whole reply MAD (reassembled for RMPP).
  std::vector<uint8_t> call(const MadRequest& req, const IBPath& path);
  // With on, an SMP that times out asks whether its destination exists
  // (note_target_presence, core/rpc/target.h: the SA, the hop before) before its
  // MADTimeoutError leaves, so that report() hints at an M_Key only for a
  // target that exists (the single-target commands' sessions turn it on;
  // off, no MAD is sent that the caller did not ask for).
  void note_presence(bool on) { note_presence_ = on; }

  // The path to the SA: default_sa_path(transport()).  Every SubnAdm* call
  // without an explicit path uses it.
  IBPath sa_path() const;

  // RpcVerbs' mode: run the request now and decode its reply.
  template <class R>
  R execute(const MadRequest& req, const IBPath& path, R (*dec)(std::span<const uint8_t>)) {
    return dec(call(req, path));
  }

private:
  MadEngine eng_;
  bool note_presence_ = false;
};

}  // namespace ibcore
