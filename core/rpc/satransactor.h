// The SA transactor (python-rdma's rdma.satransactor, seeds/002 §5.5): SMP
// reads turned into SA record reads.  SubnGet of NodeInfo, NodeDescription,
// PortInfo, SwitchInfo, LinearForwardingTable, MulticastForwardingTable,
// P_KeyTable, SLtoVLMappingTable, VLArbitrationTable, GUIDInfo or SMInfo
// becomes a SubnAdmGet of the matching record, with the component mask
// built from the path (the LID) and the attribute modifier, and the SMP
// attribute unwrapped from the record.  A DR path is resolved to a LID
// through the SA (LinkRecords), cached.  No SMP is ever sent.
//
// Commands that read SMP attributes switch between SMPs and the SA (--sa)
// with one line:
//   ibcore::SmpSource src(mad);                      // honours --sa (the port's settings)
//   auto ni = src.SubnGet<iba::SMPNodeInfo>(path);
//   auto pi = src.SubnGet<iba::SMPPortInfo>(path, 1);
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "core/rpc/gmppath.h"
#include "core/rpc/rpc.h"
#include "core/rpc/sched.h"
#include "iba/sa.h"
#include "iba/smp.h"

namespace ibcore {

// How an SMP attribute maps onto an SA record.
struct SAMapping {
  uint16_t smp_attr;                 // SMP attribute ID
  const iba::StructDesc* record;     // the SA record structure
  uint16_t record_attr;              // its attribute ID
  const char* embedded;              // field of the record holding the SMP attribute
};
// The mapping for an SMP attribute, nullptr when the SA has no such record.
const SAMapping* sa_mapping(uint16_t smp_attr);

class SATransactor {
public:
  // sa_path: where the SA is (default: --sa-path, else the SM LID).
  explicit SATransactor(MadTransactor& parent, std::optional<IBPath> sa_path = std::nullopt);
  // Its path resolver calls back into it (NodeRecords): not copied or moved.
  SATransactor(const SATransactor&) = delete;
  SATransactor& operator=(const SATransactor&) = delete;

  MadTransactor& parent() { return mad_; }

  // The SA form of SubnGet: returns the SMP attribute payload (as many
  // bytes as the SMP attribute has).  Throws MADError (ERR_NO_RECORDS from
  // the SA when the object does not exist) or, for an attribute the SA
  // has no record for, MADError naming it.
  std::vector<uint8_t> get(uint16_t smp_attr, const IBPath& path, uint32_t amod = 0);

  template <class T>
  T SubnGet(const IBPath& path, uint32_t amod = 0, const T* = nullptr) {
    T t;
    t.load(get(iba::AttrId<T>::value, path, amod));
    return t;
  }

  // The record query for an SMP read (exposed for tests): fills rec (the
  // record's bytes) and returns the component mask.  lid is the target's
  // LID; is_switch tells how a port number 0 is meant (see below).
  static uint64_t make_query(const SAMapping& m, uint16_t lid, uint32_t amod, std::optional<bool> is_switch,
                             std::vector<uint8_t>& rec);

  // Resolve a DR path to a LID (no-op for a LID path) and remember it.
  uint16_t get_path_lid(const IBPath& path);

  // The SA path in use.
  const IBPath& sa_path();

private:
  // Whether the node at lid is a switch (its NodeRecord, cached): PortInfo
  // and P_KeyTable with port 0 on a CA mean "the port at that LID".
  bool is_switch(uint16_t lid, uint8_t* local_port);

  MadTransactor& mad_;
  GmpPathResolver res_;
  std::optional<IBPath> sa_override_;
  std::map<uint16_t, std::vector<uint8_t>> node_records_;  // NodeRecord replies by LID
};

// The steps of an SMP read turned into an SA record read, shared by the
// synchronous SATransactor and the scheduler's AsyncSmpSource.
struct SAReadSteps {
  // The mapping of smp_attr; throws MADError when the SA has no such record.
  static const SAMapping& mapping(uint16_t smp_attr);
  // Whether amod's port number 0 means "this port" (PortInfo, P_KeyTable):
  // on a CA the SA wants the real port number, with_port puts it in.
  static bool names_port_zero(uint16_t smp_attr, uint32_t amod);
  static uint32_t with_port(uint16_t smp_attr, uint32_t amod, uint8_t port);
  // The SubnAdmGet of the record (sw: how a port number 0 is meant, see
  // SATransactor::make_query); rec holds the query's bytes.
  static MadRequest request(const SAMapping& m, uint16_t lid, uint32_t amod, std::optional<bool> sw,
                            std::vector<uint8_t>& rec);
  // Stack what failed (and a hint for P_KeyTableRecords refused without
  // the SM_Key) on e.
  static void annotate(MADError& e, const SAMapping& m, const IBPath& path);
  // The SMP attribute inside the reply MAD; entry_port (not 0) becomes a
  // NodeInfo's localPortNum (the port a directed route enters by).
  static std::vector<uint8_t> unwrap(const SAMapping& m, std::span<const uint8_t> reply, uint8_t entry_port);
  // A switch's PortInfo says which port the SMP entered by (0 when it came
  // LID-routed, to the management port); the record's says where the SM's
  // came in.  Whether smp_attr needs that (then sw_entry_port sets it).
  static bool needs_switch_entry(uint16_t smp_attr) { return smp_attr == iba::attr_id<iba::SMPPortInfo>; }
  static void sw_entry_port(std::vector<uint8_t>& port_info, uint8_t entry_port);
};

// Whether e is the SA's ERR_NO_RECORDS (OpenSM keeps no record of an
// unused MFT block, nor of LFT blocks past LinearFDBTop: they are empty).
bool is_sa_no_records(const std::exception& e);

// SubnGet through SMPs or the SA, chosen once (the port's settings().use_sa by
// default).  SubnSet is refused in SA mode (the SA cannot write SMA
// attributes).
class SmpSource {
public:
  // sa_path: where the SA is (default: --sa-path, else the SM LID).
  explicit SmpSource(MadTransactor& mad, std::optional<bool> use_sa = std::nullopt,
                     std::optional<IBPath> sa_path = std::nullopt);
  bool uses_sa() const { return bool(sa_); }
  MadTransactor& mad() { return mad_; }
  SATransactor* sa() { return sa_ ? &*sa_ : nullptr; }

  template <class T>
  T SubnGet(const IBPath& path, uint32_t amod = 0) {
    if (sa_) return sa_->SubnGet<T>(path, amod);
    return mad_.SubnGet<T>(path, amod);
  }
  template <class T>
  T SubnSet(const T& payload, const IBPath& path, uint32_t amod = 0) {
    if (sa_) throw MADError(std::string("Cannot set ") + T::DESC.name + " through the SA (--sa)");
    return mad_.SubnSet(payload, path, amod);
  }

private:
  MadTransactor& mad_;
  std::optional<SATransactor> sa_;
};

// SubnGet on the scheduler through SMPs or the SA, chosen once
// (the port's settings().use_sa by default): the asynchronous SmpSource, so a command
// has one read path for both.
//
//   ibcore::AsyncSmpSource src(sched);
//   auto one = [&src](IBPath p, iba::SMPNodeInfo& out) -> ibcore::Task<> {
//     out = co_await src.SubnGet<iba::SMPNodeInfo>(p);
//   };
//
// With SMPs, SubnGet is the scheduler's own (no extra coroutine frame).
// Through the SA a DR path is resolved to a LID with LinkRecords (which
// also give the port it enters by: a NodeInfo's localPortNum), and
// LinkRecords and NodeRecords are cached; reads of different objects run
// concurrently like SMPs.
class AsyncSmpSource {
public:
  // sa_path: where the SA is (default: --sa-path, else the SM LID).
  explicit AsyncSmpSource(Scheduler& s, std::optional<bool> use_sa = std::nullopt,
                          std::optional<IBPath> sa_path = std::nullopt);
  bool uses_sa() const { return sa_; }
  Scheduler& sched() { return s_; }

  template <class T>
  class Await;
  template <class T>
  Await<T> SubnGet(IBPath path, uint32_t amod = 0) {
    if (!sa_) return Await<T>(s_, std::move(path), amod);
    return Await<T>(sa_get<T>(std::move(path), amod));
  }

  // The SMP attribute payload of smp_attr through the SA.
  Task<std::vector<uint8_t>> sa_get(uint16_t smp_attr, IBPath path, uint32_t amod);

private:
  template <class T>
  Task<T> sa_get(IBPath path, uint32_t amod) {
    T t;
    t.load(co_await sa_get(iba::AttrId<T>::value, std::move(path), amod));
    co_return t;
  }
  // The LID at the end of path and the port its last hop enters by (0 for
  // a LID path).
  Task<std::pair<uint16_t, uint8_t>> path_end(IBPath path);
  // The NodeInfo of the node with a LID, from its (cached) NodeRecord.
  Task<iba::SMPNodeInfo> node_info(uint16_t lid);
  Task<std::vector<uint8_t>> record(uint16_t lid, const SAMapping& m, uint32_t amod, std::optional<bool> sw,
                                    const IBPath& path);
  const IBPath& sa_path();

  Scheduler& s_;
  bool sa_;
  std::optional<IBPath> sa_path_;
  std::map<std::pair<uint16_t, uint8_t>, std::pair<uint16_t, uint8_t>> links_;  // (LID, port) -> peer's
  std::map<uint16_t, std::vector<uint8_t>> node_records_;                        // NodeRecord replies by LID
};

// co_await of AsyncSmpSource::SubnGet: the scheduler's MAD or the SA task.
template <class T>
class AsyncSmpSource::Await {
public:
  Await(Scheduler& s, IBPath path, uint32_t amod) {
    smp_.emplace(s,
                 make_request<T>(iba::mgmt::SUBN_LID_ROUTED, iba::mgmt::SUBN_LID_ROUTED, iba::method::GET,
                                 static_cast<const T*>(nullptr), amod),
                 std::move(path), &MadTransactor::decode<T>);
  }
  explicit Await(Task<T>&& sa) : sa_(std::move(sa)) {}
  Await(const Await&) = delete;
  Await& operator=(const Await&) = delete;
  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> h) {
    if (smp_) {
      smp_->await_suspend(h);
      return std::noop_coroutine();
    }
    sa_await_.emplace(std::move(*sa_).operator co_await());
    return sa_await_->await_suspend(h);
  }
  T await_resume() { return smp_ ? smp_->await_resume() : sa_await_->await_resume(); }

private:
  std::optional<MadAwait<T>> smp_;
  std::optional<Task<T>> sa_;
  std::optional<decltype(std::declval<Task<T>&&>().operator co_await())> sa_await_;
};

}  // namespace ibcore
