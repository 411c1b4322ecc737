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
#define IBTOOL_COUNTER_NAME(name) #name,
constexpr const char* kErrNames[] = {IBTOOL_ERR_COUNTERS(IBTOOL_COUNTER_NAME)};
constexpr const char* kDataNames[] = {IBTOOL_DATA_COUNTERS(IBTOOL_COUNTER_NAME)};
#undef IBTOOL_COUNTER_NAME
static_assert(std::size(kErrNames) == N_ERR && std::size(kDataNames) == N_DATA);

// The field of desc named `name` but for case (the reference's names are the
// IBA's with a capital first letter); nullopt where desc has none.
std::optional<iba::FieldRef> counter_field(const iba::StructDesc& desc, const char* name) {
  std::optional<iba::FieldRef> r = iba::find_field(desc, name);
  return r && r->field->kind == iba::Kind::Uint ? r : std::nullopt;
}
}  // namespace

const CounterFamily ERROR_COUNTERS{kErrNames};
const CounterFamily DATA_COUNTERS{kDataNames};

CounterFamily::CounterFamily(std::span<const char* const> names) : names_(names) {
  for (const char* n : names) {
    pc_.push_back(counter_field(iba::PMPortCounters::DESC, n));
    ext_.push_back(counter_field(iba::PMPortCountersExtended::DESC, n));
  }
}
const char* CounterFamily::name(int i) const { return i >= 0 && i < size() ? names_[size_t(i)] : "?"; }
const char* CounterFamily::field(int i) const {
  if (i < 0 || i >= size()) return "?";
  const auto& r = pc_[size_t(i)] ? pc_[size_t(i)] : ext_[size_t(i)];
  return r ? r->field->name : names_[size_t(i)];
}
int CounterFamily::index(std::string_view name) const {
  for (int i = 0; i < size(); ++i)
    if (name == names_[size_t(i)]) return i;
  return -1;
}
uint64_t CounterFamily::max(int i) const {
  const auto& r = pc_[size_t(i)] ? pc_[size_t(i)] : ext_[size_t(i)];
  return r->width() >= 64 ? ~uint64_t(0) : (uint64_t(1) << r->width()) - 1;
}
uint64_t CounterFamily::value(const iba::PMPortCounters& pc, int i) const {
  const auto& r = pc_[size_t(i)];
  return r ? iba::get_uint(*r, pc.bytes().data()) : 0;
}
uint64_t CounterFamily::value(const iba::PMPortCountersExtended& pc, int i) const {
  const auto& r = ext_[size_t(i)];
  return r ? iba::get_uint(*r, pc.bytes().data()) : 0;
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
    int i = ERROR_COUNTERS.index(line.substr(0, eq));
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
