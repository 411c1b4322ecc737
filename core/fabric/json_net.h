// JSON objects of a subnet database's nodes and ports (core/out/json.h), shared
// by ibnetdiscover, iblinkinfo and the node lists (ibhosts, ibswitches,
// ibnodes, ...), so that every command describes a node and a port alike.
//
// A node:  {"nodeGUID", "nodeType" (name) + "nodeTypeRaw", "nodeDescription"
//           (verbatim), "name" (node-name-map applied), "LID", "numPorts",
//           "nodeInfo": {SMPNodeInfo fields}, "ports": [port, ...]}
// A port:  {"portNum", "portGUID", "LID", "LMC", the PortInfo state, width
//           and speed fields (as iba/ names them, names + <field>Raw),
//           "externalPortNum" when known, "portInfo": {every field} with
//           full, "remote": {"nodeGUID", "portGUID", "portNum", "LID",
//           "nodeType", "nodeDescription", "name"} or null}
// The members are written through the output layer (core/out/print) as
// PRINT_JSON values: the fabric's printers (TopologyPrinter, LinkPrinter)
// describe each node and port once, their text lines beside these members;
// json_node/json_port write the same objects into a JsonOut composite.
#pragma once

#include "core/out/json.h"
#include "core/out/print.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/subnet.h"

namespace ibcore {

struct JsonNetOptions {
  bool ports = true;        // write the node's ports
  bool full = false;        // each port's whole PortInfo
  bool linked_only = false; // only ports with a link
};

// The node object's own members (JSON only), into the object open now (the
// caller adds its "ports" and closes it).
void node_members(Printer& p, const Subnet& db, const Node& n, const NodeNameMap& map);
// The port object's members (JSON only), into the object open now.  Its
// optional PortInfo fields (LinkSpeedExt*, CapabilityMask2) are null where
// the port's capability masks (a switch's port 0's) do not make them valid.
void port_members(Printer& p, const Subnet& db, const Port& port, const NodeNameMap& map, bool full);

// What the capability masks that apply to a port say (a switch's port 0's,
// else its own; nothing known without that PortInfo).
iba::Capabilities port_capabilities(const Subnet& db, const Port& port);

// The whole objects into a JsonOut.
void json_node(JsonOut& j, const Subnet& db, const Node& n, const NodeNameMap& map, const JsonNetOptions& o);
void json_port(JsonOut& j, const Subnet& db, const Port& p, const NodeNameMap& map, bool full);

}  // namespace ibcore
