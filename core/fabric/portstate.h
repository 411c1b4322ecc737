// ibportstate's work (cmd/ibportstate): show the state, LIDs, width and
// speed of one port, check a switch port against its peer, or change the
// port with a SubnSet of its PortInfo (state, physical state, enabled speeds
// and widths, LIDs, VLs, MTU, M_Key fields) and the FDR10 speed through
// MlnxExtPortInfo.  With --sa the queries read the SA's PortInfoRecords
// instead (no SMP).  Failures are the reference's (RefFail, core/base/error).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/out/print.h"
#include "core/rpc/rpc.h"
#include "core/rpc/satransactor.h"
#include "core/transport/path.h"
#include "iba/smp.h"

namespace ibcore::portstate {

// The operations, in the order the reference's usage lists its keywords.
// Ops with a value take the next argument; the others choose what happens
// to the port state (only one of them may be given).
enum Op {
  QUERY, ENABLE, RESET, DISABLE, SPEED, ESPEED, FDR10, WIDTH, DOWN, ARM, ACTIVE,
  VLS, MTU, LID, SMLID, LMC, MKEY, MKEYLEASE, MKEYPROT, ON, OFF, NOPS
};
struct OpDesc {
  const char* name;
  bool takes_value;
};
constexpr OpDesc OPS[NOPS] = {
    {"query", false}, {"enable", false}, {"reset", false},  {"disable", false}, {"speed", true},
    {"espeed", true}, {"fdr10", true},   {"width", true},   {"down", false},    {"arm", false},
    {"active", false}, {"vls", true},    {"mtu", true},     {"lid", true},      {"smlid", true},
    {"lmc", true},    {"mkey", true},    {"mkeylease", true}, {"mkeyprot", true}, {"on", false},
    {"off", false},
};

struct Request {
  int op = -1;               // the state op given, -1 = none (query)
  bool set[NOPS] = {};       // which ops were named
  uint64_t val[NOPS] = {};   // their values
  bool changed = false;      // a value op was given
};

// Parse the op words a[first..] the reference's way (values by strtoull
// with any base, range checked).  Throws RefFail.
Request parse_ops(const std::vector<std::string>& a, size_t first);

// The port's query (and change, r) of port portnum of the node at path,
// written through p: JSON {the port's members, "MlnxExtPortInfo", "peer":
// {the same of the port at the other end of an active switch port's link}},
// or the reference's lines; the exit status.
int port_state(MadTransactor& mad, bool show_keys, Printer& p, const IBPath& path, int portnum, const Request& r);

}  // namespace ibcore::portstate
