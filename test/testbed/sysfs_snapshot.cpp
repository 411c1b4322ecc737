// sysfs_snapshot DEST: run under umad2sim, copy the sysfs tree umad2sim
// fakes for this process (./sys-<pid>/sys/class) to DEST.  A helper of
// testbed::Fabric::run_sysfs: umad2sim intercepts open() (not open64 or
// stat), so shells and cp cannot trigger or read it themselves.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: sysfs_snapshot DEST (under umad2sim)\n");
    return 2;
  }
  int fd = ::open("/sys/class/infiniband", O_RDONLY);  // makes umad2sim build its tree
  if (fd >= 0) ::close(fd);
  namespace fs = std::filesystem;
  fs::path src = "sys-" + std::to_string(::getpid());
  src /= "sys/class";
  std::error_code ec;
  if (!fs::is_directory(src / "infiniband", ec)) {
    std::fprintf(stderr, "sysfs_snapshot: no %s (not running under umad2sim?)\n", (src / "infiniband").c_str());
    return 1;
  }
  fs::copy(src, argv[1], fs::copy_options::recursive, ec);
  if (ec) {
    std::fprintf(stderr, "sysfs_snapshot: copy to %s: %s\n", argv[1], ec.message().c_str());
    return 1;
  }
  return 0;
}
