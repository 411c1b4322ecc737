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
//
// This is the one fabric counter scan: the exporter's scrape, ibqueryerrors,
// the ibcheck* family, ibdatacounts and ibclear* all read (and clear) through
// a PortCountersReader, so a LID's ClassPortInfo and its switch's sum are
// asked once whoever asks.  The reference's tools read the error counters
// from PortCounters even where PortCountersExtended holds them
// (errors_from_port_counters), and decide on a switch's sum themselves
// against their thresholds (sum()); a read may want other groups than the
// reader's (read()'s `want`), e.g. the data counters of one reported port.
//
// The reader asks only for the counter groups it is told are wanted
// (CounterGroups: the exporter's collectors), so that a group nobody wants
// costs no MAD:
//   - data only: PortCountersExtended where the PMA has it (PortCounters
//     where it does not);
//   - errors and/or congestion (PortXmitWait) without data: PortCounters,
//     or PortCountersExtended where it holds every counter; a switch's
//     AllPortSelect sum whose wanted counters are all zero stands for its
//     ports' reads (errors only: PortXmitWait may be anything);
//   - nothing wanted: no MAD at all, not even ClassPortInfo.
//
// The per-VL counters (read_vl: the exporter's vl collector) are asked
// apart: PortVLXmitWaitCounters, one MAD per port, for the data VLs the
// port runs (PortInfo OperationalVLs).  The IBA gives them no ClassPortInfo
// bit, so a PMA that has them not answers with a MAD status: the first
// port of a LID asks alone, the LID's other ports wait for its answer, and
// a status error makes the PMA "unsupported" (one MAD for it, no port
// failure), its other ports not asked.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

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
  std::exception_ptr error;  // the MADError ClassPortInfo failed with
  bool all_port_select() const { return mask & PM_CAP_ALL_PORT_SELECT; }
  bool ext() const { return mask & (PM_CAP_EXT_WIDTH | PM_CAP_EXT_WIDTH_NOIETF); }
  // The unicast and multicast packet counters of PortCountersExtended.
  bool ext_ietf() const { return mask & PM_CAP_EXT_WIDTH; }
  // The error counters of PortCountersExtended (from symbolErrorCounter on).
  bool ext_errors() const { return ext() && (mask2 & PM_CAP2_ADDL_PORT_COUNTERS_EXT); }
};

// The groups of PortCounters / PortCountersExtended counters a scrape
// wants (the exporter's collectors errors, data and congestion).
enum class CounterGroup : uint8_t { None, Errors, Data, Congestion };
// The group of a counter field of either attribute (None: the select
// fields and the reserved ones): Data for the data and packet counters,
// Congestion for portXmitWait, Errors for the rest.
CounterGroup counter_group(std::string_view field);
struct CounterGroups {
  bool errors = true, data = true, congestion = true;
  bool any() const { return errors || data || congestion; }
  bool has(CounterGroup g) const {
    return (g == CounterGroup::Errors && errors) || (g == CounterGroup::Data && data) ||
           (g == CounterGroup::Congestion && congestion);
  }
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
// Every PortCounters counter of the groups in `want` is zero, the data
// counters left out (the sum's test for those groups).
bool pc_zero(const iba::PMPortCounters& pc, const CounterGroups& want);

// The scrape's retry policy, one for its discovery and its PM reads: a
// query that failed for want of an answer (a timeout, after the MAD
// engine's own resends) is asked again until it is answered or the
// scrape's time budget is spent.  A query the target refused (a MAD
// status) is not asked again.  Attempts already under way when the budget
// ends finish on their own timeouts, so a scrape ends at most one
// attempt's time (timeout x tries) after the deadline: the caller puts the
// deadline that much before its own limit.  A query is asked again at most
// MAX_RETRIES times: a target that leaves that many attempts in a row
// unanswered (each with the engine's own resends) is down, not lossy, and
// where a loss is reported at once (a send error, the simulator) the
// retries would otherwise spin until the deadline.
class RetryBudget {
public:
  using Clock = std::chrono::steady_clock;
  explicit RetryBudget(Clock::time_point deadline) : deadline_(deadline) {}
  static constexpr unsigned MAX_RETRIES = 16;
  // Whether the query that failed with e, already asked again `retried`
  // times, is asked again (counted).
  bool again(const std::exception& e, unsigned retried);
  bool expired() const { return Clock::now() >= deadline_; }
  // Queries asked again; failures left as failures because the budget was
  // spent.
  uint64_t retries() const { return retries_; }
  uint64_t given_up() const { return given_up_; }

private:
  Clock::time_point deadline_;
  uint64_t retries_ = 0, given_up_ = 0;
};

// One port's counters.
struct PortCountersRead {
  PmaCaps caps;
  CounterSource source = CounterSource::PortCounters;
  bool pc_ok = false;        // pc holds what the source takes from PortCounters
  bool pc_from_sum = false;  // ... known from its switch's AllPortSelect sum: every error counter 0
  bool ext_ok = false;       // ext read
  // What the read plan asked for (the wanted groups and the PMA's
  // capabilities decide): both false when nothing was asked.
  bool pc_wanted = false, ext_wanted = false;
  // Every query the plan asked for was answered.
  bool ok() const { return !caps.failed && (!pc_wanted || pc_ok) && (!ext_wanted || ext_ok); }
  iba::PMPortCounters pc;
  iba::PMPortCountersExtended ext;
  unsigned failed = 0, timeouts = 0;  // this port's own PM queries that failed
  std::string error;                  // the last of those failures: "PortCounters: <why>"
  std::exception_ptr failure;         // ... the MADError itself
  // The MADError of a read that is not ok() (ClassPortInfo's when that
  // failed), null when it is.
  std::exception_ptr why() const { return caps.failed ? caps.error : failure; }
};

// The layers of the MADError in `e` (MADError::layers(): the first what
// happened, the last the reason a failure line names); empty for a null
// or another exception.
std::vector<std::string> error_layers(const std::exception_ptr& e);
inline std::string last_layer(const std::exception_ptr& e) {
  auto l = error_layers(e);
  return l.empty() ? std::string() : l.back();
}

// A switch PMA's AllPortSelect PortCounters: the sum of its ports'.
struct PortSum {
  bool ok = false;
  iba::PMPortCounters pc;
  std::exception_ptr error;  // the MADError when not ok
};

// The counters of a port read that stand at their maximum, where they stop
// counting (the exporter's saturation figure and --reset-saturated): the
// PortCounters counters the port's metrics take from it, as CounterSelect
// bits: the error counters in IBA order (bit i = counter i of
// core/health/counters.h; PortXmitWait is CounterSelect2 bit 0), then the
// four data counters (bits 12-15, 32 bits wide) where PortCountersExtended
// does not replace them.  A port whose counters all come from
// PortCountersExtended (64 bits): those at their maximum, counted, with no
// select bits (not reset).
// Only the counters of the groups in `want` are looked at.
struct Saturation {
  uint16_t select = 0;
  bool xmit_wait = false;
  unsigned count = 0;
};
Saturation saturation(const PortCountersRead& c, const CounterGroups& want = {});

// The data VLs a port runs, from PortInfo OperationalVLs (IBA 14.2.5.6:
// 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7, 5 VL0-14; 0 and the reserved codes:
// none).
unsigned operational_data_vls(unsigned operational_vls);

// One port's per-VL counters (PortVLXmitWaitCounters).
struct VlCountersRead {
  unsigned vls = 0;          // the data VLs read (VL0 .. vls-1)
  bool wanted = false;       // asked (the port has data VLs, its PMA is not known to refuse them)
  bool ok = false;           // answered
  bool unsupported = false;  // its PMA answered the attribute with a MAD status: it has not got it
  iba::PMPortVLXmitWaitCounters xmit_wait;
  unsigned failed = 0, timeouts = 0;  // this port's per-VL queries that failed (not answered)
  std::string error;                  // the last of those failures
};

class PortCountersReader {
public:
  // retry: the scrape's policy for failed queries (none: a failure stays).
  // want: the counter groups to read (the rest cost no MAD).
  explicit PortCountersReader(PmAccess& pm, RetryBudget* retry = nullptr, CounterGroups want = {})
      : pm_(pm), retry_(retry), want_(want) {}
  PmAccess& pm() { return pm_; }
  const CounterGroups& wanted() const { return want_; }

  // The PMA's capabilities at a LID (one ClassPortInfo per LID).
  Task<PmaCaps> caps(uint16_t lid);
  // Read port `port` at `lid` into out.  switch_port: the PMA at lid is a
  // switch's, whose AllPortSelect sum covers this port.  Never throws a
  // MADError: failures are counted in out.
  Task<> read(uint16_t lid, uint8_t port, bool switch_port, PortCountersRead& out) {
    return read(lid, port, switch_port, out, want_);
  }
  // The same for the groups in `want` instead of the reader's, and for a
  // PMA whose capabilities are known (`caps`: a node's PMA, answering at
  // each of its CA ports' LIDs, is asked ClassPortInfo at one of them).
  Task<> read(uint16_t lid, uint8_t port, bool switch_port, PortCountersRead& out, CounterGroups want,
              const PmaCaps* caps = nullptr);
  // The AllPortSelect PortCounters sum at `lid` (asked once per LID, shared
  // with read()'s use of it; not asked where ClassPortInfo failed or lacks
  // AllPortSelect: then not ok, no error).  Never throws a MADError.
  Task<PortSum> sum(uint16_t lid);
  // The error counters from PortCounters even where PortCountersExtended
  // holds them (the reference's tools: 32-bit counters that saturate).
  void errors_from_port_counters(bool on) { pc_errors_ = on; }
  // Clear port `port`'s (0xff: every port's) counters: PortCounters'
  // counterSelect `select` (and PortXmitWait with the errors), and with
  // `ext` PortCountersExtended's too (PmAccess::clear).  Throws its MADError.
  Task<> clear(uint16_t lid, uint8_t port, uint16_t select, bool ext) {
    return pm_.clear(lid, port, select, ext);
  }
  // A port's PortXmitDiscardDetails or PortRcvErrorDetails (a PM attribute
  // with a portSelect, read as asked).  Throws its MADError.
  template <class T>
  Task<T> details(uint16_t lid, uint8_t port) {
    IBPath p = co_await pm_.path(lid);
    T q;
    q.set_portSelect(port);
    co_return co_await pm_.sched().PerformanceGet(q, p);
  }
  // ... and clear them (counterSelect `select`).
  template <class T>
  Task<> clear_details(uint16_t lid, uint8_t port, unsigned select) {
    IBPath p = co_await pm_.path(lid);
    T q;
    q.set_portSelect(port);
    q.set_counterSelect(select);
    (void)co_await pm_.sched().PerformanceSet(q, p);
  }
  // Clear exactly the PortCounters counters CounterSelect `select` and
  // CounterSelect2 `select2` name, of port `port` (the exporter's
  // --reset-saturated).  Throws its MADError.
  Task<> reset(uint16_t lid, uint8_t port, uint16_t select, uint8_t select2) {
    IBPath p = co_await pm_.path(lid);
    iba::PMPortCounters q;
    q.set_portSelect(port);
    q.set_counterSelect(select);
    q.set_counterSelect2(select2);
    (void)co_await pm_.sched().PerformanceSet(q, p);
  }
  // The PMA's capabilities at a LID, if already asked (and answered or not).
  const PmaCaps* known_caps(uint16_t lid) const;
  // The AllPortSelect sum at a LID, if already asked (and answered or not).
  const PortSum* known_sum(uint16_t lid) const;
  // Read port `port`'s per-VL counters at `lid` for its `vls` data VLs
  // (0: none, no MAD).  Never throws a MADError.  The first port of a LID
  // asks alone; a MAD status in its answer marks the PMA unsupported for
  // every port of the LID (out.unsupported, not a failure).
  Task<> read_vl(uint16_t lid, uint8_t port, unsigned vls, VlCountersRead& out);

  // MADs by kind (for the scrape's own metrics and the benchmark).
  uint64_t class_port_infos() const { return cpi_; }
  uint64_t all_port_sums() const { return sums_; }
  uint64_t port_counters_reads() const { return pc_reads_; }
  uint64_t ext_reads() const { return ext_reads_; }
  uint64_t vl_reads() const { return vl_reads_; }
  // PMAs (LIDs) found without the per-VL counters in this reader's life.
  uint64_t vl_unsupported() const { return vl_unsupported_; }
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
    PortSum sum;
  };
  struct VlEntry {
    Event ready;  // the first port's answer is in
    bool unsupported = false;
  };
  Task<> ask_caps(uint16_t lid, CapsEntry& e);
  // m's entry for lid: the first asker asks it (ask), every asker waits
  // for its answer.
  template <class Entry>
  Task<const Entry*> once(std::unordered_map<uint16_t, Entry>& m, uint16_t lid,
                          Task<> (PortCountersReader::*ask)(uint16_t, Entry&));
  // m's entry for lid when answered, else null.
  template <class Entry>
  static const Entry* known(const std::unordered_map<uint16_t, Entry>& m, uint16_t lid);
  Task<> ask_sum(uint16_t lid, SumEntry& e);
  // co_await ask(), asked again while the retry policy says so.
  template <class T, class Ask>
  Task<T> retrying(Ask ask);

  PmAccess& pm_;
  RetryBudget* retry_;
  CounterGroups want_;
  bool pc_errors_ = false;
  std::unordered_map<uint16_t, CapsEntry> caps_;
  std::unordered_map<uint16_t, SumEntry> sums_by_lid_;
  std::unordered_map<uint16_t, VlEntry> vl_by_lid_;
  uint64_t cpi_ = 0, sums_ = 0, pc_reads_ = 0, ext_reads_ = 0, clean_sums_ = 0;
  uint64_t shared_failed_ = 0, shared_timeouts_ = 0;
  uint64_t vl_reads_ = 0, vl_unsupported_ = 0;
};

}  // namespace ibcore::health
