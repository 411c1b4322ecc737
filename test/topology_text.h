// ibnetdiscover's topology text without the line that carries the time
// it was printed ("# Topology file: generated on ..."): two texts printed
// a second apart must still compare equal.  For the tests that compare
// two topologies; the conformance rows have their own normalizer.
#pragma once

#include <sstream>
#include <string>

namespace testtext {

inline std::string without_time(const std::string& s) {
  std::istringstream in(s);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("# Topology file: generated on", 0) != 0) out += line + "\n";
  return out;
}

}  // namespace testtext
