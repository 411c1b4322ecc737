// check_lft_balance's judgement (cmd/check_lft_balance): the switches whose
// unicast tables, as dump_lfts prints them, route the LIDs unevenly over
// their ports, decided as infiniband-diags' script decides it.
//
// The script asks `iblinkinfo --load-cache CACHE -S GUID` about each switch
// and matches the text; here the same questions (is the port's line there
// and without "Down", does it say "Active") are answered from the subnet
// directly.  Its quirks are kept where they decide the output: ports are
// only looked at as 001..036; a port's count is keyed by the text of the
// dump line; host names are compared as Perl numbers (so "a port leading to
// a host" holds for nearly every name).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/fabric/nodemap.h"
#include "core/fabric/subnet.h"

namespace ibcore {

struct LftBalanceOptions {
  bool heuristic = false;  // -e: the script's heuristics for line boards and partly populated switches
  bool verbose = false;    // -v: every switch, balanced or not
};

// One switch the script reports: its GUID and name as the dump names them,
// and each port it counts with the LIDs routed out of it ("001", 12).
struct SwitchBalance {
  std::string guid, name;
  bool unbalanced = false;
  std::vector<std::pair<std::string, unsigned>> ports;
};

// The switches of a dump_lfts output (its lines) the script reports; db:
// the port states (nullptr: every port looks down and unconnected, as the
// script's iblinkinfo calls fail without a cache).
std::vector<SwitchBalance> lft_balance(const std::vector<std::string>& lines, const Subnet* db, const NodeNameMap& map,
                                       const LftBalanceOptions& o);

// The unicast tables of db's switches as dump_lfts prints them (the
// reference's switch order, every LID up to LinearFDBTop), one line each;
// a switch without its table is said on stderr and left out.
std::vector<std::string> lft_dump_lines(const Subnet& db, const NodeNameMap& map);

}  // namespace ibcore
