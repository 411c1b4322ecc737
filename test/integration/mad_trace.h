// Counting the MADs a command sent, from its -d trace (one "RPC <name>("
// line per MAD the transport sends): how the --sa tests show that no SMP
// went out.
#pragma once

#include <string>

namespace madtrace {

// Lines of the -d trace naming a MAD of the given RPC ("SubnGet(",
// "SubnAdmGet", ...); "" counts every MAD.
inline int rpcs(const std::string& err, const std::string& rpc) {
  int n = 0;
  for (size_t p = 0; (p = err.find("RPC " + rpc, p)) != std::string::npos; ++p) ++n;
  return n;
}

}  // namespace madtrace
