#include "core/fabric/ftsdump.h"

#include <cstdio>

#include "core/base/error.h"
#include "core/fabric/discovery.h"
#include "core/out/log.h"

namespace ibcore {

void sa_tables_into(const Subnet& db, uint32_t node, unsigned start, unsigned end, LftRead& lft, MftRead& mft) {
  const SwitchTables* t = db.find_tables(node);
  if (t && t->lft_valid) {
    lft.lft.assign(size_t(end) + 1, LFT_NO_ROUTE);
    for (unsigned lid = start; lid <= end && lid < t->lft.size(); ++lid) lft.lft[lid] = t->lft[lid];
  } else {
    lft.error = std::make_exception_ptr(Error("the SA returned no LinearForwardingTableRecords for this switch"));
  }
  mft.first = start;
  mft.masks.clear();
  if (t && t->mft_valid) {
    if (start >= MLID_BASE && end >= start) {
      mft.masks.assign(size_t(end - start) + 1, {});
      for (unsigned m = start; m <= end && m - MLID_BASE < t->mft.size(); ++m) mft.masks[m - start] = t->mft[m - MLID_BASE];
    }
  } else {
    mft.error = std::make_exception_ptr(Error("the SA returned no MulticastForwardingTableRecords for this switch"));
  }
}

std::string where_of(const Subnet& db, uint32_t node) {
  std::string dr = db.ref_dr_string(node);
  return "DR path slid 0; dlid 0; " + (dr.empty() ? dr_path_of(db, node).dr_string() : dr);
}
IBPath route_of(const Subnet& db, uint32_t node) {
  auto dr = db.ref_dr(node);
  return dr ? IBPath(IBDRPath(*dr)) : dr_path_of(db, node);
}

void TablePrinter::loop() {
  for (;;) {
    Table t;
    {
      std::unique_lock<std::mutex> l(m_);
      cv_.wait(l, [&] { return !q_.empty() || done_; });
      if (q_.empty()) return;
      t = std::move(q_.front());
      q_.pop_front();
    }
    if (!t.ok) {
      std::fflush(stdout);
      ibcore::log::error("E: could not read the linear forwarding table of switch 0x%016llx (%s)\n",
                   (unsigned long long)t.guid, t.name.c_str());
      rc_ = 255;
      continue;
    }
    // (the destinations are named once in the JSON: json_dests)
    UnicastDump d(out_, all_, no_dests_, "node info not available fabric scan", false);
    d.table({t.guid, t.name, t.lid, t.route, t.where}, t.lft, t.start, t.end, dests_);
  }
}

}  // namespace ibcore
