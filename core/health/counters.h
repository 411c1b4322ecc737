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

// One family of counters (ERROR_COUNTERS, DATA_COUNTERS), i its index: a
// constant table worked out at compile time from iba/pm.h's declarations
// (consteval), holding names, bit offsets, widths and field numbers but no
// pointer.  So it costs nothing at start-up (no constructor, no relocation:
// the families' static constructors were 7% of `smpquery nodeinfo`'s
// instructions), and there is nothing to build lazily or to destroy at exit
// while another thread still reads it.
class CounterFamily {
public:
  static constexpr int MAX_COUNTERS = 16, MAX_NAME = 32;

  // names: the reference's names, each a PortCounters or
  // PortCountersExtended field's but for case (a compile error otherwise).
  template <size_t N>
  consteval explicit CounterFamily(const char* const (&names)[N]) : n_(int(N)) {
    static_assert(N <= MAX_COUNTERS);
    for (size_t i = 0; i < N; ++i) {
      size_t len = 0;
      while (names[i][len]) ++len;
      if (len >= MAX_NAME) throw "counter name too long";  // (not constant: a compile error)
      for (size_t c = 0; c < len; ++c) names_[i][c] = names[i][c];
      name_len_[i] = uint8_t(len);
      pc_[i] = place(iba::PMPortCounters::FIELD_PROTOS, names[i]);
      ext_[i] = place(iba::PMPortCountersExtended::FIELD_PROTOS, names[i]);
      if (pc_[i].field < 0 && ext_[i].field < 0) throw "no PM field of that name";
    }
  }

  constexpr int size() const { return n_; }
  // "SymbolErrorCounter".  (Out of line: where GCC reads a row of the
  // constant table as a string it finds no NUL, and warns.)
  const char* name(int i) const;
  // The field's name as iba/pm.h declares it ("symbolErrorCounter"): the
  // name --json uses.  PortCountersExtended's for a counter only it has.
  const char* field(int i) const {
    if (i < 0 || i >= n_) return "?";
    return pc_[i].field >= 0 ? iba::PMPortCounters::FIELDS[pc_[i].field].name.c_str()
                             : iba::PMPortCountersExtended::FIELDS[ext_[i].field].name.c_str();
  }
  int index(std::string_view name) const {  // -1 when unknown
    for (int i = 0; i < n_; ++i)
      if (name == std::string_view(names_[i], name_len_[i])) return i;
    return -1;
  }
  // Largest value the PortCounters field can hold (it saturates there).
  constexpr uint64_t max(int i) const {
    const Place& p = pc_[i].field >= 0 ? pc_[i] : ext_[i];
    return p.width >= 64 ? ~uint64_t(0) : (uint64_t(1) << p.width) - 1;
  }
  // 0 for a counter the structure does not have.
  uint64_t value(const iba::PMPortCounters& pc, int i) const { return get(pc_[i], pc.raw()); }
  uint64_t value(const iba::PMPortCountersExtended& pc, int i) const { return get(ext_[i], pc.raw()); }

private:
  struct Place {  // a counter in one structure; field -1: not there
    int16_t field = -1;  // its number in the structure's FIELDS
    uint16_t bit_off = 0;
    uint8_t width = 0;
  };
  template <size_t M>
  static consteval Place place(const iba::FieldProto (&protos)[M], const char* name) {
    for (size_t f = 0; f < M; ++f) {
      const iba::FieldProto& p = protos[f];
      if (p.kind != iba::Kind::Uint || p.count != 1) continue;
      size_t c = 0;
      while (name[c] && p.name[c] && lower(name[c]) == lower(p.name[c])) ++c;
      if (!name[c] && !p.name[c]) return {int16_t(f), uint16_t(p.bit_off), uint8_t(p.width)};
    }
    return {};
  }
  static constexpr char lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }
  static uint64_t get(const Place& p, const uint8_t* image) {
    return p.field >= 0 ? iba::get_bits(image, p.bit_off, p.width) : 0;
  }

  int n_ = 0;
  char names_[MAX_COUNTERS][MAX_NAME] = {};
  uint8_t name_len_[MAX_COUNTERS] = {};
  Place pc_[MAX_COUNTERS] = {}, ext_[MAX_COUNTERS] = {};
};

namespace detail {
#define IBTOOL_COUNTER_NAME(name) #name,
inline constexpr const char* ERR_NAMES[] = {IBTOOL_ERR_COUNTERS(IBTOOL_COUNTER_NAME)};
inline constexpr const char* DATA_NAMES[] = {IBTOOL_DATA_COUNTERS(IBTOOL_COUNTER_NAME)};
#undef IBTOOL_COUNTER_NAME
}  // namespace detail
inline constexpr CounterFamily ERROR_COUNTERS{detail::ERR_NAMES}, DATA_COUNTERS{detail::DATA_NAMES};
static_assert(ERROR_COUNTERS.size() == N_ERR && DATA_COUNTERS.size() == N_DATA);
// What the reference's saturation tests and the x4 data units rest on.
static_assert(ERROR_COUNTERS.max(SymbolErrorCounter) == 0xffff && ERROR_COUNTERS.max(LocalLinkIntegrityErrors) == 0xf &&
              DATA_COUNTERS.max(PortXmitData) == 0xffffffffu);

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
