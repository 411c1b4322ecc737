// dump_fts's fabric-wide tables (cmd/dump_fts): the unicast tables printed
// on a thread of their own while the walk still reads, the SA's records in
// the form the SMP reads fill, and how the reference names a switch.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/fabric/routes.h"
#include "core/fabric/subnet.h"
#include "core/out/print.h"

namespace ibcore {

// The part [start, end] of a switch's tables as the SA records gave them,
// in the form the SMP table reads fill (an error when the SA had none).
void sa_tables_into(const Subnet& db, uint32_t node, unsigned start, unsigned end, LftRead& lft, MftRead& mft);

// The reference names a switch by the route its walk reached it by: its
// table head's "DR path slid 0; dlid 0; 0,1,..." (where_of), and that route
// as a path (--json's "route", route_of).
std::string where_of(const Subnet& db, uint32_t node);
IBPath route_of(const Subnet& db, uint32_t node);

// Prints unicast tables on a thread of its own, in the order they are
// handed over: formatting and writing a k=32 fat tree's 12M rows takes
// about as long as reading its tables, and done between MADs it would leave
// the MAD window empty (the simulator idle) for the whole of each switch.
class TablePrinter {
public:
  struct Table {
    uint64_t guid = 0;
    std::string name, where;
    IBPath route;  // where, for --json
    uint16_t lid = 0;
    unsigned start = 0, end = 0;
    std::vector<uint8_t> lft;  // empty and !ok: the table could not be read
    bool ok = false;
  };
  // Each table through out: the reference's text, or a switch object of
  // the document (--json).  Only this thread writes to out until finish().
  TablePrinter(const std::vector<LidDest>& dests, bool all, bool no_dests, Printer& out)
      : dests_(dests), all_(all), no_dests_(no_dests), out_(out), t_([this] { loop(); }) {}
  ~TablePrinter() { finish(); }
  void add(Table t) {
    {
      std::lock_guard<std::mutex> l(m_);
      q_.push_back(std::move(t));
    }
    cv_.notify_one();
  }
  // Wait until everything handed over is printed.  Returns 255 when a table
  // could not be read, else 0.
  int finish() {
    {
      std::lock_guard<std::mutex> l(m_);
      if (done_) return rc_;
      done_ = true;
    }
    cv_.notify_one();
    if (t_.joinable()) t_.join();
    return rc_;
  }

private:
  void loop();

  const std::vector<LidDest>& dests_;
  bool all_, no_dests_;
  Printer& out_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Table> q_;
  bool done_ = false;
  int rc_ = 0;  // (written by the thread only, read after join)
  std::thread t_;
};

}  // namespace ibcore
