// Creating a directory with its missing parents through POSIX calls
// (std::filesystem would link libstdc++'s locale machinery, whose static
// initializers run at every start of the program).
#pragma once

#include <string>
#include <string_view>

namespace ibcore {

// mkdir -p dir: true when dir exists as a directory afterwards; else false
// with errno saying why (EINVAL for an empty name, ENOTDIR when dir or one
// of its parents is not a directory).
bool make_dirs(const std::string& dir);

// dir/name (no doubled '/').
std::string path_join(const std::string& dir, std::string_view name);

}  // namespace ibcore
