#include "core/base/mkdirs.h"

#include <sys/stat.h>

#include <cerrno>

namespace ibcore {

bool make_dirs(const std::string& dir) {
  if (dir.empty()) {
    errno = EINVAL;
    return false;
  }
  // Each prefix that ends before a '/' (and the whole name) in turn.
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i < dir.size() && dir[i] != '/') continue;
    if (dir[i - 1] == '/') continue;
    std::string p = dir.substr(0, i);
    if (::mkdir(p.c_str(), 0777) != 0 && errno != EEXIST) return false;
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return false;
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return false;
  }
  return true;
}

std::string path_join(const std::string& dir, std::string_view name) {
  std::string p = dir;
  if (!p.empty() && p.back() != '/') p += '/';
  p += name;
  return p;
}

}  // namespace ibcore
