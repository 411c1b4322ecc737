// The LID and port GUID of a simulated node's port, as the reference ibaddr
// run on that node (SIM_HOST) reports them: shared by the integration
// tests that address nodes by name.
#pragma once

#include <cstdint>
#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "test/testbed/fabric.h"

namespace simports {

// "3" (decimal), or "" when ibaddr gave no LID.
inline std::string lid(const testbed::Fabric& f, const std::string& host) {
  auto r = f.run({"ibaddr"}, {{"SIM_HOST", host}});
  std::smatch m;
  if (!std::regex_search(r.out, m, std::regex("LID start (0x[0-9a-f]+)"))) return "";
  return std::to_string(std::stoul(m[1].str(), nullptr, 16));
}

// "0x0000000000100003", or "" when ibaddr gave no GID.
inline std::string guid(const testbed::Fabric& f, const std::string& host) {
  auto r = f.run({"ibaddr"}, {{"SIM_HOST", host}});
  std::smatch m;
  if (!std::regex_search(r.out, m, std::regex("GID fe80::([0-9a-f:]+) "))) return "";
  // The interface ID groups after "fe80::" (leading zero groups elided).
  uint64_t v = 0;
  std::string g = m[1].str() + ":";
  for (size_t a = 0, b; (b = g.find(':', a)) != std::string::npos; a = b + 1)
    v = v << 16 | std::stoul(g.substr(a, b - a), nullptr, 16);
  char s[32];
  std::snprintf(s, sizeof s, "0x%016llx", (unsigned long long)v);
  return s;
}

// An ibsim topology of one-port nodes on one switch, in this order (the
// first is where clients attach by default): the fabric for servers, which
// the simulator hands their MADs only on such nodes (and with SIM_SET_ISSM).
inline std::string one_switch(const std::vector<std::string>& hosts) {
  std::string topo, sw = "Switch 8 \"Switch1\"\n";
  for (size_t i = 0; i < hosts.size(); ++i) {
    topo += "Hca 1 \"" + hosts[i] + "\"\n[1] \"Switch1\"[" + std::to_string(i + 1) + "]\n\n";
    sw += "[" + std::to_string(i + 1) + "] \"" + hosts[i] + "\"[1]\n";
  }
  return topo + sw;
}

}  // namespace simports
