// PM access on the scheduler: PathRecords asked once per destination LID and
// shared by every asker, PortCounters reads and clears (below the fabric
// counter scan, core/health/pmscrape, which asks the PMAs' ClassPortInfo); PmSession, the set-up every PM-scanning command shares.
#pragma once

#include <array>
#include <coroutine>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/health/counters.h"
#include "core/rpc/sched.h"
#include "core/fabric/subnet.h"
#include "core/transport/transport.h"
#include "iba/pm.h"

namespace ibcore::health {

// --- PM access on the scheduler -------------------------------------------------------

// The SA path to use for PathRecord queries (the port's --sa-path, else the
// port's SM LID/SL; an empty path when the port knows no SM, which PmAccess
// reads as an SA that is not there).  Call before the scheduler runs.
IBPath sa_path_for_pm(Transport& t);

class PmAccess {
public:
  PmAccess(Scheduler& s, IBPath sa_path, bool skip_sl = false) : s_(s), sa_(std::move(sa_path)), skip_sl_(skip_sl) {}

  // The PM path to a LID (PathRecord asked once per LID; failures are
  // cached and rethrown to every asker).  The SA need not be alive
  // (core/rpc/gmppath.h): the first PathRecord is asked alone, with a short
  // bound; if the SA does not answer it (or stays BUSY), or the process
  // already knows it does not, every LID gets its plain LID path.
  Task<IBPath> path(uint16_t lid);
  Task<iba::PMPortCounters> counters(uint16_t lid, uint8_t port);
  Task<iba::PMPortCountersExtended> counters_ext(uint16_t lid, uint8_t port);
  // Clear counters: PortCounters with counterSelect = select (and
  // counterSelect2 for PortXmitWait when select covers the errors); ext
  // also clears PortCountersExtended.
  Task<> clear(uint16_t lid, uint8_t port, uint16_t select, bool ext);

  // The subnet the LIDs belong to: a LID's port GUID from it is put in its
  // PathRecord query (DGID next to DLID), which OpenSM answers with a lookup
  // instead of a scan of every port.  Without it (or for a LID it does not
  // know) the query names the LIDs only.
  void use_subnet(const Subnet* db) { db_ = db; }
  // The port GUID of a LID, for the same purpose, where no subnet is given
  // yet (a command reading ahead while discovery fills the database).
  void set_port_guid(uint16_t lid, uint64_t guid) { guids_[lid] = guid; }

  // Ask the SA once for the paths from this port to every port (a
  // PathRecord GetTable naming only the source, as the reference's
  // ibqueryerrors does): path() then takes a LID's path from that table and
  // asks for the LID alone only when the table lacks it (an SA or a
  // transport without RMPP sends only the table's first MAD; an SA that
  // fails the query leaves every LID to its own query).  Call before the
  // scheduler runs the askers; nothing with skip_sl.
  void read_path_table();

  // Forget a LID's failed PathRecord once its askers have the error, so
  // that the next asker asks again (a scrape that retries its queries);
  // by default a failure is kept and given to every later asker.
  void forget_failed_paths(bool on) { forget_failed_ = on; }

  // PathRecord queries sent (the table counts one).
  uint64_t path_queries() const { return path_queries_; }
  // Paths the table gave.
  uint64_t table_paths() const { return table_paths_; }
  Scheduler& sched() { return s_; }

private:
  struct Entry {
    Event ready;  // path or error set
    IBPath path;
    std::exception_ptr error;
  };
  Task<> resolve(uint16_t lid, Entry& e);
  Task<> read_table();
  enum class Table { None, Pending, Done };
  // What this access knows of the SA: nothing yet, its first PathRecord out
  // (the other askers wait for sa_known_), it answers, it does not.
  enum class SaState { Unknown, Asking, Up, Down };
  bool sa_down();      // Down, or the process knows it so (then Down)
  void sa_down_now();  // Down (waking the askers that waited)

  Scheduler& s_;
  IBPath sa_;
  bool skip_sl_;
  const Subnet* db_ = nullptr;
  bool forget_failed_ = false;
  std::unordered_map<uint16_t, uint64_t> guids_;  // set_port_guid
  // Hashed: a fabric scan looks up every LID a few times, and a tree of
  // 10k LIDs costs a cache miss per level.  Entries stay put when the table
  // grows (resolve() holds one across its query).
  std::unordered_map<uint16_t, Entry> paths_;
  // Failed entries taken out of paths_ (forget_failed_paths), kept whole
  // while askers woken by their event may still read them.
  std::vector<std::unordered_map<uint16_t, Entry>::node_type> forgotten_;
  uint64_t path_queries_ = 0, table_paths_ = 0;
  Table table_ = Table::None;
  Event table_read_;  // set when table_ is Done
  SaState sa_state_ = SaState::Unknown;
  Event sa_known_;  // set when sa_state_ leaves Asking
};

// The set-up every PM-scanning command shares: cfg's local end port (-C/-P;
// the transport carries cfg), a scheduler on it and PM access whose paths
// come from the SA (need_sa false: no SA path is looked up, for commands
// that only send SMPs on the scheduler).
class PmSession {
public:
  explicit PmSession(const Config& cfg, bool skip_sl = false, bool need_sa = true);
  Transport& umad() { return *umad_; }
  Scheduler& sched() { return sched_; }
  PmAccess& pm() { return pm_; }

private:
  std::unique_ptr<Transport> umad_;
  Scheduler sched_;
  PmAccess pm_;
};

}  // namespace ibcore::health
