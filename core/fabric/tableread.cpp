#include "core/fabric/tableread.h"

#include "core/fabric/discovery.h"

namespace ibcore {

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
