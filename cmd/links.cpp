#include "cmd/links.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmd/registry.h"
#include "core/base/mkdirs.h"
#include "core/out/log.h"

namespace ibtool {

namespace {

// The file's identity (device and inode, links followed), if it exists.
std::optional<std::pair<dev_t, ino_t>> identity(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::pair{st.st_dev, st.st_ino};
}

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

std::string self_path() {
  char exe[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  return n > 0 ? std::string(exe, size_t(n)) : std::string();
}

std::vector<std::string> split_path(const char* path) {
  std::vector<std::string> out;
  std::string_view s = path ? path : "";
  while (!s.empty()) {
    size_t c = s.find(':');
    std::string_view d = s.substr(0, c);
    if (!d.empty()) out.emplace_back(d);
    if (c == std::string_view::npos) break;
    s.remove_prefix(c + 1);
  }
  return out;
}

// A symlink of ours: to this binary, or (links made by older versions,
// dangling unless ibtool sat beside them) to a file named ibtool.
bool our_link(const std::string& link, const std::pair<dev_t, ino_t>& self) {
  char t[PATH_MAX];
  ssize_t n = ::readlink(link.c_str(), t, sizeof t - 1);
  if (n <= 0) return false;
  std::string_view target(t, size_t(n));
  size_t s = target.rfind('/');
  if ((s == std::string_view::npos ? target : target.substr(s + 1)) == "ibtool") return true;
  return identity(link) == self;
}

}  // namespace

int install_links(const std::string& dir) {
  const std::string exe = self_path();
  const auto self = identity(exe);
  if (exe.empty() || !self) {
    ibcore::log::error("E: cannot find this program's own file (/proc/self/exe): %s\n", std::strerror(errno));
    return 1;
  }
  if (!ibcore::make_dirs(dir)) {
    ibcore::log::error("E: cannot create %s: %s\n", dir.c_str(), std::strerror(errno));
    return 1;
  }
  const std::string real_dir = real_path(dir);
  const std::string exe_dir = exe.substr(0, exe.rfind('/'));
  // Beside the binary a relative link keeps working when the directory
  // moves; anywhere else the binary's absolute path.
  const std::string target = real_dir == real_path(exe_dir) ? std::string("ibtool") : exe;

  // Where another program of the same name would be found: PATH, and the
  // system's directories (a PATH without sbin still has them for root).
  std::vector<std::string> search = split_path(std::getenv("PATH"));
  bool on_path = false;
  for (const std::string& d : search) on_path = on_path || real_path(d) == real_dir;
  for (const char* d : {"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"})
    search.emplace_back(d);
  auto other_program = [&](std::string_view name) -> std::string {
    for (const std::string& d : search) {
      if (real_path(d) == real_dir) continue;  // (dir itself: below)
      std::string f = ibcore::path_join(d, name);
      if (::access(f.c_str(), X_OK) != 0) continue;
      struct stat st;
      if (::stat(f.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) continue;
      if (identity(f) != self) return f;
    }
    return {};
  };

  int rc = 0;
  for (const CommandInfo* c : commands()) {
    std::vector<std::string_view> names{c->name};
    names.insert(names.end(), c->aliases.begin(), c->aliases.end());
    for (std::string_view n : names) {
      std::string link = ibcore::path_join(dir, n);
      struct stat st;
      if (std::string other = other_program(n); !other.empty()) {
        ibcore::log::warn("W: %.*s not linked: %s is another program's command\n", int(n.size()), n.data(),
                          other.c_str());
        // (nor left linked by an earlier run)
        if (::lstat(link.c_str(), &st) == 0 && S_ISLNK(st.st_mode) && our_link(link, *self)) ::unlink(link.c_str());
        continue;
      }
      if (::lstat(link.c_str(), &st) == 0) {
        if (!S_ISLNK(st.st_mode) || !our_link(link, *self)) {
          ibcore::log::warn("W: %s not replaced: it is not a link to ibtool\n", link.c_str());
          continue;
        }
        if (::unlink(link.c_str()) != 0) {
          ibcore::log::error("E: cannot replace %s: %s\n", link.c_str(), std::strerror(errno));
          rc = 1;
          continue;
        }
      }
      if (::symlink(target.c_str(), link.c_str()) != 0) {
        ibcore::log::error("E: cannot create link %s: %s\n", link.c_str(), std::strerror(errno));
        rc = 1;
      }
    }
  }
  if (!on_path)
    ibcore::log::warn("W: %s is not on PATH: the commands are found there only by their full path\n", dir.c_str());
  return rc;
}

}  // namespace ibtool
