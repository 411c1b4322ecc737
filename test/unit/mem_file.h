// A FILE in memory for tests of writers that take a FILE*: what was
// written, as a string.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace testutil {

struct MemFile {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  MemFile() = default;
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  std::string text() {
    std::fflush(f);
    return std::string(buf, len);
  }
  ~MemFile() {
    std::fclose(f);
    std::free(buf);
  }
};

}  // namespace testutil
