// Every counter of a port, exact, with as few PM MADs as its PMA allows
// (the exporter's scrape of a whole fabric):
//
//   - PortCountersExtended (ClassPortInfo IsExtendedWidthSupported or
//     ...NoIETF) carries the data counters at 64 bits; PortCounters' 32-bit
//     data counters count the same traffic and saturate, so where the PMA
//     has the extended attribute they are not read: PortCounters is asked
//     for its error counters only (and PortXmitWait, QP1Dropped).
//   - A switch's AllPortSelect PortCounters (ClassPortInfo
//     IsAllPortSelectSupported) is the sum of its ports' counters; the
//     counters are unsigned, so a sum whose every error counter is zero
//     proves every port's is zero: those ports' PortCounters are not asked
//     one by one (one MAD per switch instead of one per port).  A sum that
//     shows an error, or that fails, sends the switch's ports to their own
//     reads.
//   - With the additional PortCountersExtended counters (ClassPortInfo
//     CapabilityMask2 IsAdditionalPortCountersExtendedSupported) the
//     extended attribute holds every error counter at 64 bits too: one read
//     per port, no PortCounters.
//   - A PMA without PortCountersExtended: PortCounters, all of it, per port.
//
// ClassPortInfo and the AllPortSelect sum are asked once per LID however
// many ports' readers ask at once.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "core/health/pmaccess.h"
#include "core/rpc/sched.h"
#include "iba/pm.h"

namespace ibcore::health {

// PerfMgt ClassPortInfo CapabilityMask2 bits (iba/pm.h's).
constexpr uint32_t PM_CAP2_PM_KEY = iba::pm_cap2::PM_KEY;
constexpr uint32_t PM_CAP2_ADDL_PORT_COUNTERS_EXT = iba::pm_cap2::ADDL_PORT_COUNTERS_EXT;

// What a PMA's ClassPortInfo says it has.
struct PmaCaps {
  bool failed = false, timed_out = false;  // ClassPortInfo not answered
  uint16_t mask = 0;
  uint32_t mask2 = 0;
  bool all_port_select() const { return mask & PM_CAP_ALL_PORT_SELECT; }
  bool ext() const { return mask & (PM_CAP_EXT_WIDTH | PM_CAP_EXT_WIDTH_NOIETF); }
  // The unicast and multicast packet counters of PortCountersExtended.
  bool ext_ietf() const { return mask & PM_CAP_EXT_WIDTH; }
  // The error counters of PortCountersExtended (from symbolErrorCounter on).
  bool ext_errors() const { return ext() && (mask2 & PM_CAP2_ADDL_PORT_COUNTERS_EXT); }
};

// Where a port's counters come from.
enum class CounterSource : uint8_t {
  PortCounters,  // no PortCountersExtended: every counter from PortCounters
  Split,         // data counters from PortCountersExtended, the rest of PortCounters
  Extended,      // every counter from PortCountersExtended
};
CounterSource counter_source(const PmaCaps& c);

// PortCounters' four 32-bit data counters (portXmitData .. portRcvPkts):
// the ones PortCountersExtended replaces.
bool is_pc_data_field(std::string_view name);
// A PortCountersExtended field the PMA fills: the four data counters
// always, unicast/multicast with ext_ietf(), the error counters with
// ext_errors() (false for the select fields).
bool ext_field_valid(const PmaCaps& c, std::string_view name);
// Every PortCounters counter other than the data counters is zero (the
// test an AllPortSelect sum passes when no port has an error).
bool pc_errors_zero(const iba::PMPortCounters& pc);

// One port's counters.
struct PortCountersRead {
  PmaCaps caps;
  CounterSource source = CounterSource::PortCounters;
  bool pc_ok = false;        // pc holds what the source takes from PortCounters
  bool pc_from_sum = false;  // ... known from its switch's AllPortSelect sum: every error counter 0
  bool ext_ok = false;       // ext read
  iba::PMPortCounters pc;
  iba::PMPortCountersExtended ext;
  unsigned failed = 0, timeouts = 0;  // this port's own PM queries that failed
};

class PortCountersReader {
public:
  explicit PortCountersReader(PmAccess& pm) : pm_(pm) {}
  PmAccess& pm() { return pm_; }

  // The PMA's capabilities at a LID (one ClassPortInfo per LID).
  Task<PmaCaps> caps(uint16_t lid);
  // Read port `port` at `lid` into out.  switch_port: the PMA at lid is a
  // switch's, whose AllPortSelect sum covers this port.  Never throws a
  // MADError: failures are counted in out.
  Task<> read(uint16_t lid, uint8_t port, bool switch_port, PortCountersRead& out);

  // MADs by kind (for the scrape's own metrics and the benchmark).
  uint64_t class_port_infos() const { return cpi_; }
  uint64_t all_port_sums() const { return sums_; }
  uint64_t port_counters_reads() const { return pc_reads_; }
  uint64_t ext_reads() const { return ext_reads_; }
  // Switches whose sum showed no error (their ports' reads skipped).
  uint64_t clean_sums() const { return clean_sums_; }
  // The queries shared by a LID's ports (ClassPortInfo, AllPortSelect sums)
  // that failed, and how many of those timed out.
  uint64_t shared_failures() const { return shared_failed_; }
  uint64_t shared_timeouts() const { return shared_timeouts_; }

private:
  struct CapsEntry {
    Event ready;
    PmaCaps caps;
  };
  struct SumEntry {
    Event ready;
    bool clean = false;
  };
  Task<> ask_caps(uint16_t lid, CapsEntry& e);
  Task<> ask_sum(uint16_t lid, SumEntry& e);

  PmAccess& pm_;
  std::unordered_map<uint16_t, CapsEntry> caps_;
  std::unordered_map<uint16_t, SumEntry> sums_by_lid_;
  uint64_t cpi_ = 0, sums_ = 0, pc_reads_ = 0, ext_reads_ = 0, clean_sums_ = 0;
  uint64_t shared_failed_ = 0, shared_timeouts_ = 0;
};

}  // namespace ibcore::health
