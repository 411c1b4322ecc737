#include "core/fabric/tableread.h"

#include "core/fabric/discovery.h"
#include "core/fabric/sadiscovery.h"

namespace ibcore {

namespace {

// SwitchInfo of a switch read before its tables (their sizes).
Task<> read_swinfo(Scheduler& s, Subnet& db, uint32_t n, DiscoveryMode mode, DiscoveryResult* res) {
  try {
    auto si = co_await s.SubnGet<iba::SMPSwitchInfo>(switch_path(db, n, s.transport().local_lid(), mode));
    db.set_switch_info(n, si.bytes());
  } catch (const std::exception& e) {
    if (res) add_discovery_failure(*res, e, "SwitchInfo of switch " + std::to_string(n));
  }
}

}  // namespace

void read_switch_tables(Scheduler& sched, Subnet& db, const std::vector<uint32_t>& switches, bool lft, bool mft,
                        DiscoveryMode mode, DiscoveryResult* res) {
  if (mode == DiscoveryMode::SA)
    return read_switch_tables_sa(sched, db, switches, lft, mft, res);
  // SwitchInfo first where discovery did not read it (it sizes the tables).
  std::vector<uint32_t> sws;
  for (uint32_t n : switches)
    if (db.node(n).is_switch()) {
      sws.push_back(n);
      if (!db.node(n).has_swinfo) sched.spawn(read_swinfo(sched, db, n, mode, res));
    }
  sched.run();
  // Then every block of every table, from a bounded pool of workers.
  std::vector<SwitchTableRead> reads = switch_table_reads(db, sws, sched.transport().local_lid(), mode);
  for (SwitchTableRead& r : reads) {
    const Node& x = db.node(r.node);
    if (!x.has_swinfo) continue;
    auto si = x.switch_info();
    const SwitchTables& t = db.tables(r.node);
    if (lft && !t.lft_valid) r.want_lft(0, iba::lft_last_lid(si));
    // (an MFT of no entries: nothing read, an empty table kept)
    if (mft && !t.mft_valid) r.want_mft(MLID_BASE, MLID_BASE + iba::mft_entries(si) - 1);
  }
  read_tables(sched, reads);
  for (SwitchTableRead& r : reads) {
    SwitchTables& t = db.tables(r.node);
    auto failed = [&](const std::exception_ptr& e, const std::string& what) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& ex) {
        if (res) add_discovery_failure(*res, ex, what);
      }
    };
    if (r.lft_wanted) {
      if (r.lft.error) {
        failed(r.lft.error, "LinearForwardingTable block " + std::to_string(r.lft.failed_block));
      } else {
        t.lft = std::move(r.lft.lft);
        t.lft_valid = true;
      }
    }
    if (r.mft_wanted) {
      if (r.mft.error) {
        failed(r.mft.error, "MulticastForwardingTable");
      } else {
        t.mft = std::move(r.mft.masks);
        t.mft_valid = true;
      }
    }
  }
}

std::vector<SwitchTableRead> switch_table_reads(const Subnet& db, const std::vector<uint32_t>& sws, uint16_t local_lid,
                                                DiscoveryMode mode) {
  std::vector<SwitchTableRead> reads(sws.size());
  for (size_t i = 0; i < sws.size(); ++i) {
    reads[i].node = sws[i];
    reads[i].nports = db.node(sws[i]).nports;
    reads[i].path = switch_path(db, sws[i], local_lid, mode);
  }
  return reads;
}

void read_tables(Scheduler& sched, std::vector<SwitchTableRead>& reads,
                 const std::function<void(size_t)>& done) {
  TableReads tr;
  std::vector<size_t> owner;      // by TableReads' read number: the switch
  std::vector<unsigned> left(reads.size(), 0);  // by switch: its reads with blocks still out
  for (size_t i = 0; i < reads.size(); ++i) {
    SwitchTableRead& r = reads[i];
    size_t n = 0;
    if (r.lft_wanted) {
      n = tr.add_lft(r.path, r.lft_first, r.lft_last, r.lft);
      owner.push_back(i);
      if (tr.pending(n)) ++left[i];
    }
    if (r.mft_wanted) {
      n = tr.add_mft(r.path, r.mft_first, r.mft_last, r.nports, r.mft);
      owner.push_back(i);
      if (tr.pending(n)) ++left[i];
    }
  }
  if (done) {
    tr.on_done = [&](size_t n) {
      size_t i = owner[n];
      if (--left[i] == 0) done(i);
    };
    for (size_t i = 0; i < reads.size(); ++i)
      if (!left[i]) done(i);
  }
  tr.spawn(sched);
  sched.run();
}

}  // namespace ibcore
