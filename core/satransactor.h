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
//   ibcore::SmpSource src(mad);                      // honours config().use_sa
//   auto ni = src.SubnGet<iba::SMPNodeInfo>(path);
//   auto pi = src.SubnGet<iba::SMPPortInfo>(path, 1);
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "core/gmppath.h"
#include "core/rpc.h"
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

// Whether e is the SA's ERR_NO_RECORDS (OpenSM keeps no record of an
// unused MFT block, nor of LFT blocks past LinearFDBTop: they are empty).
bool is_sa_no_records(const std::exception& e);

// SubnGet through SMPs or the SA, chosen once (config().use_sa by
// default).  SubnSet is refused in SA mode (the SA cannot write SMA
// attributes).
class SmpSource {
public:
  explicit SmpSource(MadTransactor& mad, std::optional<bool> use_sa = std::nullopt);
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

}  // namespace ibcore
