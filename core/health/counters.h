// The PortCounters / PortCountersExtended counters as the health commands
// name and judge them: the error counters in the reference's order, the data
// counters, thresholds files, and the PM capability and select bits.
#pragma once

#include <array>
#include <coroutine>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "iba/introspect.h"
#include "iba/pm.h"

namespace ibcore::health {

// --- error counters and thresholds ----------------------------------------------------

// The counters, each named once: the reference's name (its output and
// thresholds-file text), which is also, but for case, the name of the field
// iba/pm.h declares for it, where its width and place come from.
// The PortCounters error counters in the reference's order.
#define IBTOOL_ERR_COUNTERS(X)                                                                              \
  X(SymbolErrorCounter) X(LinkErrorRecoveryCounter) X(LinkDownedCounter) X(PortRcvErrors)                   \
  X(PortRcvRemotePhysicalErrors) X(PortRcvSwitchRelayErrors) X(PortXmitDiscards) X(PortXmitConstraintErrors) \
  X(PortRcvConstraintErrors) X(LocalLinkIntegrityErrors) X(ExcessiveBufferOverrunErrors) X(VL15Dropped)     \
  X(PortXmitWait)
// The data counters: the first 4 in PortCounters, all 8 in PortCountersExtended.
#define IBTOOL_DATA_COUNTERS(X)                                                                          \
  X(PortXmitData) X(PortRcvData) X(PortXmitPkts) X(PortRcvPkts) X(PortUnicastXmitPkts) X(PortUnicastRcvPkts) \
  X(PortMulticastXmitPkts) X(PortMulticastRcvPkts)
#define IBTOOL_COUNTER_ENUMERATOR(name) name,
enum ErrCounter : int { IBTOOL_ERR_COUNTERS(IBTOOL_COUNTER_ENUMERATOR) N_ERR };
enum DataCounter : int { IBTOOL_DATA_COUNTERS(IBTOOL_COUNTER_ENUMERATOR) N_DATA };
#undef IBTOOL_COUNTER_ENUMERATOR

// One family of counters (ERROR_COUNTERS, DATA_COUNTERS), i its index.
class CounterFamily {
public:
  explicit CounterFamily(std::span<const char* const> names);
  int size() const { return int(names_.size()); }
  const char* name(int i) const;  // "SymbolErrorCounter"; "?" out of range
  // The field's name as iba/pm.h declares it ("symbolErrorCounter"): the
  // name --json uses.  PortCountersExtended's for a counter only it has.
  const char* field(int i) const;
  int index(std::string_view name) const;  // -1 when unknown
  // Largest value the PortCounters field can hold (it saturates there).
  uint64_t max(int i) const;
  // 0 for a counter the structure does not have.
  uint64_t value(const iba::PMPortCounters& pc, int i) const;
  uint64_t value(const iba::PMPortCountersExtended& pc, int i) const;

private:
  std::span<const char* const> names_;
  std::vector<std::optional<iba::FieldRef>> pc_, ext_;  // the field in each structure, by i
};
extern const CounterFamily ERROR_COUNTERS, DATA_COUNTERS;

// "8.719KB" (data counters count 4-byte words) or "1.989K" (packets).
std::string human_count(uint64_t v, bool data);

// A thresholds file (the reference's error_thresholds format): lines
// "Name=value" (a counter name above, the value in strtoul base 0 form),
// '#' starts a comment line; other lines are ignored.  A counter is bad when
// its value exceeds the threshold (default 0).
struct Thresholds {
  std::array<uint64_t, N_ERR> limit{};
  std::array<bool, N_ERR> set{};
  void parse(std::string_view text);
  // false when the file cannot be read (thresholds stay the defaults).
  bool load(const std::string& file);
  bool exceeds(int i, uint64_t v) const { return v > limit[i]; }
};
constexpr const char* DEFAULT_THRESHOLDS = "/etc/infiniband-diags/error_thresholds";

// PerfMgt ClassPortInfo capability bits (iba/pm.h's, by the names the
// health code uses).
constexpr uint16_t PM_CAP_ALL_PORT_SELECT = iba::pm_cap::ALL_PORT_SELECT;
constexpr uint16_t PM_CAP_EXT_WIDTH = iba::pm_cap::EXT_WIDTH;
constexpr uint16_t PM_CAP_EXT_WIDTH_NOIETF = iba::pm_cap::EXT_WIDTH_NOIETF;
constexpr uint16_t PM_CAP_XMIT_WAIT = iba::pm_cap::XMIT_WAIT;

// CounterSelect masks for PerformanceSet PortCounters.
constexpr uint16_t SELECT_ERRORS = 0x0fff;
constexpr uint16_t SELECT_DATA = 0xf000;

}  // namespace ibcore::health
