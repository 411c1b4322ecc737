// Topology generators for the simulated fabrics (ibsim's net file format:
// `Switch N "name"` / `Hca N "name"` headers followed by
// `[port] "peer"[peerport]` lines, optional ` w=1|4|12`).  Every generator
// lists a host (Hca) first: ibsim attaches clients (OpenSM, the tools) to
// the first node of the file.
#pragma once

#include <string>
#include <vector>

namespace testbed {

// Node/switch/port counts of a topology text, for ibsim's -N/-S/-P.
struct TopoSize {
  int nodes = 0;
  int switches = 0;
  int hcas = 0;
  int ports = 0;  // every node's ports + 1 (port 0)
};
TopoSize topo_size(const std::string& text);

// A k-ary 3-level fat tree (k even, >= 2): k pods of k/2 edge and k/2
// aggregation switches, (k/2)^2 core switches, k/2 single-port hosts per
// edge switch: k^3/4 hosts and 5k^2/4 switches (k=32: 8192 and 1280).
std::string fattree(int k);

// An irregular fabric: a ring of switches, parallel links between two
// switches, dual-port HCAs with each port on a different switch, ports left
// unconnected, node descriptions with spaces, quotes and UTF-8, and (when
// narrow_link) one link at width 1x.
std::string irregular(bool narrow_link = true);

// A larger irregular fabric (issue 35's wider irregular fabric for the
// model's random sweep): `switches` 24-port switches (at least 8) in a ring
// with chords, some pairs joined twice, a chain of three 4-port switches
// hanging off every eighth (the fabric's depth), one to four hosts a
// switch, every fifth switch also a dual-port host with its ports on two
// switches far apart, every ninth a dual-port host with one port linked.
// Deterministic: the same count gives the same text.
std::string irregular_large(int switches);

// One of ibsim's example fabrics (a file name under
// /usr/share/doc/ibsim-utils/net-examples, e.g. "net.2sw2path4hca"), read at
// run time and re-ordered so that a host is listed first.  Throws
// std::runtime_error if the file is missing or has no Hca.
std::string example(const std::string& name);
// The names of the example fabrics present on this machine.
std::vector<std::string> example_names();

// Generate by a spec: "fattree K", "irregular", "irregular-wide" (the
// irregular fabric without its 1x link), "irregular-large N",
// "example NAME", or "file PATH" (read as is).  Throws on a bad spec.
std::string generate(const std::string& spec);

}  // namespace testbed
