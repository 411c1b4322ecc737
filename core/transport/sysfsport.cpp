#include "core/transport/sysfsport.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>

#include "core/base/textfile.h"

namespace ibcore {

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') out.push_back(e->d_name);
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

// The words of a file's content joined by single spaces, or nullopt when
// the file is not readable.
std::optional<std::string> words(const std::string& path) {
  if (::access(path.c_str(), R_OK) != 0) return std::nullopt;
  std::string text, out;
  read_file(path, text);
  for (const std::string& w : split_words(text)) out += (out.empty() ? "" : " ") + w;
  return out;
}

}  // namespace

SysfsPort read_sysfs_port(const std::string& dev, const std::string& port) {
  std::string dir = std::string(SYSFS_IB) + "/" + dev + "/ports/" + port;
  return {dev, port, words(dir + "/gids/0"), words(dir + "/lid"), words(dir + "/sm_lid"), words(dir + "/state"),
          words(dir + "/phys_state"), words(dir + "/rate"), words(dir + "/link_layer")};
}

}  // namespace ibcore
