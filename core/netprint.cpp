#include "core/netprint.h"

#include <cstdlib>

namespace ibcore {

std::string topology_text(const Subnet& db, const NodeNameMap& map) {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  if (!f) return {};
  TopologyPrinter(db, map, f, false, false).topology(false);
  std::fclose(f);
  std::string s(buf, len);
  std::free(buf);
  return s;
}

}  // namespace ibcore
