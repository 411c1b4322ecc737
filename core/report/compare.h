// Two reports compared (ibtool report --baseline OLD.html): the links of
// OLD that are gone, the links that are new, the error counters that rose,
// as subnet_diff compares two subnets (a link by both ends' node GUID and
// port number) and ibswportwatch watches counters.  OLD is read back from
// the JSON a report page embeds (or `report --json` wrote).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/report/report.h"

namespace ibcore::reporting {

// A link of the old report, by its ends: node GUID, port number and the
// name it had (a < b by GUID, then port).
struct OldLink {
  std::array<uint64_t, 2> guid{};
  std::array<unsigned, 2> port{};
  std::array<std::string, 2> name;
};

struct Baseline {
  std::string file, generated;
  std::vector<OldLink> links;
  // (node GUID, port) -> error counter field name -> value (only the
  // counters the old report knew).
  std::map<std::pair<uint64_t, unsigned>, std::map<std::string, uint64_t>> errors;
};

// The document embedded in an HTML report (or a report's JSON itself).
// Throws Error naming the file when it is neither.
std::string embedded_json(const std::string& text, const std::string& file);
// OLD's links and counters.  Throws Error when the file cannot be read or
// is not a report ("OLD: not an ibtool report (...)").
Baseline load_report(const std::string& file);

struct Comparison {
  std::string file, generated;
  std::vector<OldLink> gone;        // in OLD, not up now
  std::vector<uint32_t> added;      // Data::links indices not in OLD
  struct Rise {
    uint32_t slot;   // port slot of the new subnet
    int counter;     // health::ErrCounter
    uint64_t was, now;
  };
  std::vector<Rise> rose;
};
Comparison compare(const Data& d, const Baseline& old);

}  // namespace ibcore::reporting
