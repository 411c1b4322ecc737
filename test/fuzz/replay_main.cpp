// Runs a fuzz target's LLVMFuzzerTestOneInput once on every file named (or
// in the directories named): the seed corpus and the regression inputs of
// test/fuzz replayed in every build, with any compiler, so a crash found by
// fuzzing stays a test after it is fixed.  Exit 0 when every input went
// through (a crash or sanitizer report ends the process with its own
// status); 1 when an input could not be read.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/base/textfile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* d, size_t n);

namespace {

bool run_file(const std::string& path, size_t& count) {
  std::string data;
  if (!ibcore::read_file(path, data)) {
    std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
    return false;
  }
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  ++count;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  size_t count = 0;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      std::fprintf(stderr, "replay: no %s\n", argv[i]);
      ok = false;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      ok &= run_file(argv[i], count);
      continue;
    }
    std::vector<std::string> names;
    if (DIR* d = opendir(argv[i])) {
      while (dirent* e = readdir(d))
        if (e->d_name[0] != '.') names.push_back(std::string(argv[i]) + "/" + e->d_name);
      closedir(d);
    }
    std::sort(names.begin(), names.end());
    for (const auto& n : names) ok &= run_file(n, count);
  }
  std::printf("replay: %zu inputs\n", count);
  return ok && count ? 0 : 1;
}
