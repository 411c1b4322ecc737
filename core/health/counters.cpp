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

const char* CounterFamily::name(int i) const { return i >= 0 && i < n_ ? names_[i] : "?"; }

void Thresholds::parse(std::string_view text) {
  for_each_line(text, [&](std::string_view line) {
    if (line.empty() || line[0] == '#') return;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) return;
    int i = ERROR_COUNTERS.index(line.substr(0, eq));
    if (i < 0) return;
    std::string val(line.substr(eq + 1));
    limit[i] = std::strtoull(val.c_str(), nullptr, 0);
    set[i] = true;
  });
}

bool Thresholds::load(const std::string& file) {
  std::string text;
  if (!read_file(file, text)) return false;
  parse(text);
  return true;
}

}  // namespace ibcore::health
