#include "core/health/counters.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <unordered_map>

#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/fabric/discovery.h"
#include "core/base/error.h"
#include "core/rpc/gmppath.h"
#include "core/fabric/netcache.h"
#include "core/fabric/nodemap.h"
#include "core/base/textfile.h"
#include "iba/smp.h"
#include "iba/introspect.h"
#include "iba/sa.h"

namespace ibcore::health {

namespace {
constexpr const char* kErrNames[N_ERR] = {
    "SymbolErrorCounter",       "LinkErrorRecoveryCounter",     "LinkDownedCounter",
    "PortRcvErrors",            "PortRcvRemotePhysicalErrors",  "PortRcvSwitchRelayErrors",
    "PortXmitDiscards",         "PortXmitConstraintErrors",     "PortRcvConstraintErrors",
    "LocalLinkIntegrityErrors", "ExcessiveBufferOverrunErrors", "VL15Dropped",
    "PortXmitWait"};
constexpr const char* kDataNames[N_DATA] = {"PortXmitData",          "PortRcvData",          "PortXmitPkts",
                                            "PortRcvPkts",           "PortUnicastXmitPkts",  "PortUnicastRcvPkts",
                                            "PortMulticastXmitPkts", "PortMulticastRcvPkts"};
constexpr unsigned kErrBits[N_ERR] = {16, 8, 8, 16, 16, 16, 16, 8, 8, 4, 4, 16, 32};
}  // namespace

namespace {
// The field of desc whose name is `name` but for case (the reference's
// names are the IBA's with a capital first letter).
const char* declared_as(const iba::StructDesc& desc, const char* name) {
  for (const iba::FieldDesc& f : desc.field_list())
    if (iba::iequals(f.name, name)) return f.name;
  return name;
}
}  // namespace

const char* err_name(int i) { return i >= 0 && i < N_ERR ? kErrNames[i] : "?"; }
const char* err_field(int i) {
  static const auto names = [] {
    std::array<const char*, N_ERR> a{};
    for (int k = 0; k < N_ERR; ++k) a[size_t(k)] = declared_as(iba::PMPortCounters::DESC, kErrNames[k]);
    return a;
  }();
  return i >= 0 && i < N_ERR ? names[size_t(i)] : "?";
}
const char* data_field(int i) {
  static const auto names = [] {
    std::array<const char*, N_DATA> a{};
    for (int k = 0; k < N_DATA; ++k) a[size_t(k)] = declared_as(iba::PMPortCountersExtended::DESC, kDataNames[k]);
    return a;
  }();
  return i >= 0 && i < N_DATA ? names[size_t(i)] : "?";
}
int err_index(std::string_view name) {
  for (int i = 0; i < N_ERR; ++i)
    if (name == kErrNames[i]) return i;
  return -1;
}
uint64_t err_max(int i) { return (uint64_t(1) << kErrBits[i]) - 1; }

uint64_t err_value(const iba::PMPortCounters& pc, int i) {
  switch (i) {
    case SymbolErrorCounter: return pc.symbolErrorCounter();
    case LinkErrorRecoveryCounter: return pc.linkErrorRecoveryCounter();
    case LinkDownedCounter: return pc.linkDownedCounter();
    case PortRcvErrors: return pc.portRcvErrors();
    case PortRcvRemotePhysicalErrors: return pc.portRcvRemotePhysicalErrors();
    case PortRcvSwitchRelayErrors: return pc.portRcvSwitchRelayErrors();
    case PortXmitDiscards: return pc.portXmitDiscards();
    case PortXmitConstraintErrors: return pc.portXmitConstraintErrors();
    case PortRcvConstraintErrors: return pc.portRcvConstraintErrors();
    case LocalLinkIntegrityErrors: return pc.localLinkIntegrityErrors();
    case ExcessiveBufferOverrunErrors: return pc.excessiveBufferOverrunErrors();
    case VL15Dropped: return pc.VL15Dropped();
    case PortXmitWait: return pc.portXmitWait();
  }
  return 0;
}

const char* data_name(int i) { return i >= 0 && i < N_DATA ? kDataNames[i] : "?"; }
uint64_t data_value(const iba::PMPortCounters& pc, int i) {
  switch (i) {
    case PortXmitData: return pc.portXmitData();
    case PortRcvData: return pc.portRcvData();
    case PortXmitPkts: return pc.portXmitPkts();
    case PortRcvPkts: return pc.portRcvPkts();
  }
  return 0;
}
uint64_t data_value(const iba::PMPortCountersExtended& pc, int i) {
  switch (i) {
    case PortXmitData: return pc.portXmitData();
    case PortRcvData: return pc.portRcvData();
    case PortXmitPkts: return pc.portXmitPkts();
    case PortRcvPkts: return pc.portRcvPkts();
    case PortUnicastXmitPkts: return pc.portUnicastXmitPkts();
    case PortUnicastRcvPkts: return pc.portUnicastRcvPkts();
    case PortMulticastXmitPkts: return pc.portMulticastXmitPkts();
    case PortMulticastRcvPkts: return pc.portMulticastRcvPkts();
  }
  return 0;
}

std::string human_count(uint64_t v, bool data) {
  static const char* const du[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
  static const char* const pu[] = {"", "K", "M", "G", "T", "P", "E"};
  // Data counters count 4-byte words.
  double x = data ? double(v) * 4.0 : double(v);
  int u = 0;
  while (x >= 1024.0 && u < 6) {
    x /= 1024.0;
    ++u;
  }
  char b[64];
  std::snprintf(b, sizeof b, "%.3f%s", x, data ? du[u] : pu[u]);
  return b;
}

void Thresholds::parse(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (line.empty() || line[0] == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    int i = err_index(line.substr(0, eq));
    if (i < 0) continue;
    std::string val(line.substr(eq + 1));
    limit[i] = std::strtoull(val.c_str(), nullptr, 0);
    set[i] = true;
  }
}

bool Thresholds::load(const std::string& file) {
  std::string text;
  if (!read_file(file, text)) return false;
  parse(text);
  return true;
}

}  // namespace ibcore::health
