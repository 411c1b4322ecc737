#include "core/textfile.h"

#include <cstdio>

namespace ibcore {

bool read_text(const std::string& path, std::string& out) {
  bool is_stdin = path == "-";
  std::FILE* f = is_stdin ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) return false;
  out.clear();
  char buf[8192];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  bool ok = !std::ferror(f);
  if (!is_stdin) std::fclose(f);
  return ok;
}

}  // namespace ibcore
