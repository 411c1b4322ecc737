// iblinkinfo's lines (cmd/iblinkinfo): every port of a node with its link
// state and the port at the other end, in infiniband-diags' layout, and
// --diff's lines between two subnets; --json's node objects
// (core/fabric/json_net) with the ports the text lists, from the same
// description.
#pragma once

#include <string>

#include "core/fabric/nodemap.h"
#include "core/fabric/subnet.h"
#include "core/out/print.h"

namespace ibcore {

// --diff's keys: what a difference is looked for in.
enum LinkDiff : unsigned { D_PORT = 0x01, D_STATE = 0x02, D_LID = 0x04, D_NODEDESC = 0x08, D_DEFAULT = D_PORT | D_STATE };

class LinkPrinter {
public:
  // Each node and port described once through p (core/out/print: no
  // printf, no allocation per line; the caller holds a rows() scope): the
  // reference's lines, or --json's node objects (core/fabric/json_net) with
  // the ports the text lists.  filter: --filterdownports' subnet (a port
  // down there and here is not listed).
  LinkPrinter(const Subnet& db, const NodeNameMap& map, Printer& p, bool line, bool additional, bool down_only,
              const Subnet* filter)
      : db_(db), map_(map), p_(p), line_(line), add_(additional), down_only_(down_only), filter_(filter) {}

  std::string remap(const Node& n) const { return map_.remap(n.guid, n.description()); }

  bool filtered(const Node& n, const Port& p) const;

  // "[%2s]" of a port's external number (blank when it has none).
  void ext(const Port& p) const;

  // One port's line (prefix: --diff's "< "/"> ").
  void port(const Subnet& s, const Node& n, const Port& p, const char* prefix) const;
  // A node's head line, once (flag: set when said).
  void header(const Subnet& s, const Node& n, int* flag, const char* prefix) const;
  // A node and its ports.
  void node(const Subnet& s, const Node& n, const char* prefix) const;

  struct Side {
    const Subnet* a;
    const Subnet* b;
    const char* pa;
    const char* pb;
  };

  // --diff: what differs of n1 (of d.a) against the same node of d.b
  // (flags: LinkDiff bits).
  void diff_node(const Side& d, const Node& n1, unsigned flags) const;

private:
  const Subnet& db_;
  const NodeNameMap& map_;
  Printer& p_;
  bool line_, add_, down_only_;
  const Subnet* filter_;
};

}  // namespace ibcore
