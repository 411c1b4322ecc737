// Paths for GMPs (SPEC.md §Addressing): a GMP (SA, PM, vendor, CC) to a LID,
// GID or DR path first resolves a full path through the SA with a
// PathRecord query, so the SL, P_Key, MTU, rate and packet lifetime are the
// SA's, never assumed.  A DR path is turned into a LID first (NodeInfo and
// PortInfo SMPs, or LinkRecords when --sa forbids SMPs).
//
//   ibcore::Umad umad(ibcore::get_end_port(cfg.ca, cfg.port));
//   ibcore::MadTransactor mad(umad);
//   ibcore::GmpPathResolver res(mad);
//   ibcore::IBPath p = res.resolve(ibcore::IBPath::from_string("12"));
//   auto pc = mad.PerformanceGet<iba::PMPortCounters>(p);
//
// Failures throw MADError annotated "Failed getting path record for end
// port <target>." above the RPC layer's own message.
//
// A GMP to a LID never depends on the SA being alive (issue 36): its
// PathRecord is asked with a short bound (bounded_sa_path), and when the SA
// does not answer, or stays BUSY through the engine's back-offs, the MAD
// goes on the plain LID path the reference tools use (plain_lid_path: SL 0,
// the default P_Key, QP1).  The process then remembers that SA as
// unavailable for a while (sa_known_unavailable), so a fabric scan asks it
// once, not once per port; -v says so in one line.  GUID and GID targets
// still need the SA (it alone maps them to a LID).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/transport/path.h"
#include "core/rpc/rpc.h"
#include "iba/sa.h"

namespace ibcore {

// The path to the SA as MadTransactor::sa_path() gives it (--sa-path, else
// the local port's SM LID and SL; QP1, GSI Q_Key), with --smkey applied.
IBPath sa_path_from_config(MadTransactor& mad);

// --- without the SA ------------------------------------------------------------

// The plain LID path to dlid from t's port: DLID, our LID as SLID, SL 0, the
// default P_Key (-Y picks the index), QP1, the GSI Q_Key; no GRH.  What the
// reference tools send a GMP to a LID on.
IBPath plain_lid_path(const Transport& t, uint16_t dlid);

// sa with the short bound a PathRecord asked only for its SL, MTU and rate
// gets: at most one resend, and a response time of 2^17 x 4.096 us (about
// 0.5 s) unless the path or -t says otherwise.  A BUSY SA is still backed
// off as the engine does for every MAD (longer waits, up to 8 resends).
IBPath bounded_sa_path(IBPath sa, const PortSettings& s);

// Whether e says the SA is not there to answer: it timed out (nothing came
// back, even after following the SM), or it answered BUSY every time.
bool sa_unavailable_error(const MADError& e);

// The SA at sa_lid (0: the port knows none) as seen from t's port by this
// process: unavailable once note_sa_unavailable() was called, for
// SA_RETRY_AFTER of t's clock; a long-lived process (the exporter) asks it
// again after that.  note_sa_unavailable() writes the one -v line (why: the
// SA's error, or nullptr when the port knows no SM).
inline constexpr std::chrono::seconds SA_RETRY_AFTER{60};
bool sa_known_unavailable(const Transport& t, uint16_t sa_lid);
void note_sa_unavailable(const Transport& t, uint16_t sa_lid, const MADError* why);
void forget_sa_unavailable();  // (tests)

class GmpPathResolver {
public:
  // use_smp: a DR target may be resolved to a LID with SMPs (NodeInfo,
  // PortInfo); false resolves it through SA LinkRecords instead (--sa).
  explicit GmpPathResolver(MadTransactor& mad, std::optional<bool> use_smp = std::nullopt);

  // A full path to target for a GMP on QP1: DLID/SLID/SL/pkey/MTU/rate/
  // packet lifetime from the SA's PathRecord, DGID/SGID kept when the
  // target was given by GID (has_grh when the SA says the path leaves the
  // subnet, hop limit > 1).  A target that already is a full path (has an
  // SL or names a GRH explicitly via IBPath(...) text) is completed, not
  // re-queried, only when `trust_given` is set.  Results are cached.
  // A LID target (or a DR path turned into one) whose SA does not answer
  // gets plain_lid_path() instead (fell_back() then says so).
  IBPath resolve(const IBPath& target);
  // Whether the last resolve() used the plain LID path, the SA unavailable.
  bool fell_back() const { return fell_back_; }

  // The LID of a DR path's end (the port the SMP would reach: for a switch
  // its port 0 LID).  Cached.
  uint16_t dr_to_lid(const IBPath& dr);
  // The port a DR path's last hop enters its end node by, as the SA's
  // LinkRecord says (0: not known, e.g. resolved with SMPs or no hop).
  uint8_t dr_entry_port(const IBPath& dr);
  // The error for a directed route that goes on past a node that is not a
  // switch (hop `hop` of dr, at `lid`): only switches forward directed-route
  // SMPs, so an SMP on that route would be lost there.  Walks through the
  // SA, which would happily follow the LinkRecords, report it instead.
  static MADError not_forwarded(const IBPath& dr, size_t hop, uint16_t lid);

  const IBPath& sa_path();
  void set_sa_path(const IBPath& p) { sa_path_ = p; }
  // Where the SA walk learns whether a LID is a switch: by default its own
  // NodeRecord query; an owner that keeps NodeRecords (SATransactor) passes
  // its lookup so that no NodeRecord is asked twice.
  void set_switch_test(std::function<bool(uint16_t)> f) { switch_test_ = std::move(f); }

  // The PathRecord query for a target (exposed for tests): the record and
  // its component mask.  A target with both a DLID and a DGID is asked by
  // both (LIDs and GIDs of both ends), which the SA answers without a
  // search when its GUIDs and LIDs agree.
  static std::pair<iba::SAPathRecord, uint64_t> path_query(const IBPath& target, uint16_t local_lid,
                                                          const iba::Gid& local_gid);

private:
  MadTransactor& mad_;
  bool use_smp_;
  std::optional<IBPath> sa_path_;
  std::map<std::string, IBPath> cache_;
  // What is known of a DR path (and of each prefix walked through the SA):
  // its LID, and the port the route enters the last node by (SA walks only;
  // 0 = not known).
  struct DrHop {
    uint16_t lid = 0;
    uint8_t entry_port = 0;
  };
  // Ordered with std::lexicographical_compare: vector's operator<=> makes
  // GCC 12 warn falsely (-Wstringop-overread) about its memcmp bound.
  struct PathLess {
    bool operator()(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) const {
      return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
    }
  };
  std::map<std::vector<uint8_t>, DrHop, PathLess> dr_cache_;
  // Whether the node with a LID is a switch (its NodeRecord), asked once.
  bool lid_is_switch(uint16_t lid);
  std::map<uint16_t, bool> switch_lids_;
  std::function<bool(uint16_t)> switch_test_;
  bool fell_back_ = false;
};

// Fill path's header fields from a PathRecord (the path toward the target:
// DLID = record's DLID ...).  QP1, GSI Q_Key.
void apply_path_record(IBPath& path, const iba::SAPathRecord& pr);

}  // namespace ibcore
