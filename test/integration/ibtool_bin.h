// The ibtool binary the integration tests run (IBTOOL_PATH, which
// test/CMakeLists.txt sets for each test program), once for every file.
#pragma once

#include <string>
#include <vector>

namespace ittest {

inline const std::string IBTOOL = IBTOOL_PATH;

// An ibtool command line: the binary, then args.
inline std::vector<std::string> ib(std::vector<std::string> args) {
  args.insert(args.begin(), IBTOOL_PATH);
  return args;
}

}  // namespace ittest
