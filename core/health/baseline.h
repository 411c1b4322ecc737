// The links of a healthy subnet (a baseline: a subnet cache or an
// ibnetdiscover topology file) and the check of a live subnet against them.
#pragma once

#include <array>
#include <coroutine>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/health/checks.h"
#include "core/fabric/subnet.h"

namespace ibcore::health {

// --- links against a baseline ------------------------------------------------------

// A link of the healthy subnet: both ends by node GUID and port number, with
// the node descriptions the baseline gives them.
struct ExpectedLink {
  uint64_t guid[2] = {0, 0};
  unsigned port[2] = {0, 0};
  std::string desc[2];
};
// The links of a subnet database, each once.
std::vector<ExpectedLink> links_of(const Subnet& db);
// The links of a baseline file: a subnet cache of either format (ibtool
// --cache, ibnetdiscover --cache) or a topology file written by
// ibnetdiscover (node headers `Switch 8 "S-<guid>" # "desc" ...`, link
// lines `[port] "H-<guid>"[port]...`).  Throws Error when it is neither.
std::vector<ExpectedLink> load_baseline(const std::string& file);
// Parse ibnetdiscover topology text (empty when it holds no node).
std::vector<ExpectedLink> parse_topology(std::string_view text);
// Every baseline link that is not up in db, named by both ends: an end
// missing from the subnet, its port not LinkUp, or linked elsewhere.  The
// finding sits on a live end when there is one; a baseline node with no
// live end at all is reported once as missing.  name(guid, desc) gives a
// node's display name (node name map).
std::vector<Finding> check_links(const Subnet& db, const std::vector<ExpectedLink>& base,
                                 const std::function<std::string(uint64_t, const std::string&)>& name);

}  // namespace ibcore::health
