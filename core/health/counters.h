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
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "iba/pm.h"

namespace ibcore::health {

// --- error counters and thresholds ----------------------------------------------------

// The PortCounters error counters in the reference's order (the names are
// the ones its thresholds file and output use).
enum ErrCounter : int {
  SymbolErrorCounter,
  LinkErrorRecoveryCounter,
  LinkDownedCounter,
  PortRcvErrors,
  PortRcvRemotePhysicalErrors,
  PortRcvSwitchRelayErrors,
  PortXmitDiscards,
  PortXmitConstraintErrors,
  PortRcvConstraintErrors,
  LocalLinkIntegrityErrors,
  ExcessiveBufferOverrunErrors,
  VL15Dropped,
  PortXmitWait,
  N_ERR
};
const char* err_name(int i);
// The counter's field name as iba/pm.h declares it in PMPortCounters
// ("symbolErrorCounter"): the name --json uses (err_name is the reference's
// text and thresholds-file name).
const char* err_field(int i);
int err_index(std::string_view name);  // -1 when unknown
uint64_t err_value(const iba::PMPortCounters& pc, int i);
// Largest value the PortCounters field can hold (it saturates there).
uint64_t err_max(int i);

// The data counters: 4 in PortCounters, 8 in PortCountersExtended.
enum DataCounter : int {
  PortXmitData,
  PortRcvData,
  PortXmitPkts,
  PortRcvPkts,
  PortUnicastXmitPkts,
  PortUnicastRcvPkts,
  PortMulticastXmitPkts,
  PortMulticastRcvPkts,
  N_DATA
};
const char* data_name(int i);
// As err_field: the name PMPortCountersExtended declares ("portXmitData").
const char* data_field(int i);
uint64_t data_value(const iba::PMPortCounters& pc, int i);  // i < 4
uint64_t data_value(const iba::PMPortCountersExtended& pc, int i);
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
