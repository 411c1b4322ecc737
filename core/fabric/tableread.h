// The forwarding tables of discovered switches read by SMP, for whoever
// needs them after (or beside) the walk: the discovery's own table reads
// (read_switch_tables) and dump_fts's multicast tables share this one
// plan and read.
//
//   auto reads = ibcore::switch_table_reads(db, sws, local_lid, mode);
//   for (auto& r : reads) r.want_mft(MLID_BASE, MLID_BASE + 31);
//   ibcore::read_tables(sched, reads, [&](size_t i) { print(i); });
//
// Each switch is asked on switch_path() (LID routed when it has a LID and
// the local port is active, unless DR discovery was asked for), every
// block of every table from one bounded pool of workers (TableReads).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/fabric/discovery_options.h"
#include "core/fabric/routes.h"
#include "core/fabric/subnet.h"
#include "core/rpc/sched.h"

namespace ibcore {

// One switch's table reads: what to read, and what came back (each
// table's error is in its read).
struct SwitchTableRead {
  uint32_t node = 0;
  IBPath path;
  bool lft_wanted = false, mft_wanted = false;
  unsigned lft_first = 0, lft_last = 0;  // LIDs
  unsigned mft_first = 0, mft_last = 0;  // MLIDs (last < first: no block)
  unsigned nports = 0;
  LftRead lft;
  MftRead mft;
  void want_lft(unsigned first, unsigned last) {
    lft_wanted = true;
    lft_first = first;
    lft_last = last;
  }
  void want_mft(unsigned first, unsigned last) {
    mft_wanted = true;
    mft_first = first;
    mft_last = last;
  }
};

// One read per switch of sws, in that order, with its path; nothing wanted
// yet.
std::vector<SwitchTableRead> switch_table_reads(const Subnet& db, const std::vector<uint32_t>& sws, uint16_t local_lid,
                                                DiscoveryMode mode);

// Read what each wants; done(i) (if set) as soon as every block of reads[i]
// is in or has failed, so output can start while other reads are in flight
// (a read that wants no block: at once).  Returns when all are done.
void read_tables(Scheduler& sched, std::vector<SwitchTableRead>& reads,
                 const std::function<void(size_t)>& done = {});

// Read the LFTs (and/or MFTs) of the given switches into db.tables(n), with
// the same scheduler (LID routed when the switch has a LID and the local
// port is active, else by its DR path): SwitchInfo first where it is not
// known, then every table block through core/fabric/routes.h TableReads (a
// bounded pool of workers, each block asked once).  Tables already valid
// are not read again; a failed read leaves its table invalid and adds a
// line to res->errors.
// mode: SA reads the SA's LFT/MFT records instead (core/fabric/sadiscovery); DR
// keeps every read on the DR path (switch_path).
void read_switch_tables(Scheduler& sched, Subnet& db, const std::vector<uint32_t>& switches, bool lft, bool mft,
                        DiscoveryMode mode, DiscoveryResult* res = nullptr);

}  // namespace ibcore
