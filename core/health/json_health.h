// JSON pieces shared by the fabric health commands (ibcheck*, ibidsverify,
// ibdatacounts, ibclear*, ibfindnodesusing, check_lft_balance): a node's
// port named the way their text lines name it ("<name>" (0x<GUID>) port <n>
// lid <l>), and a finding of the checks (core/health/checks.h).
#pragma once

#include <initializer_list>

#include "core/health/checks.h"
#include "core/health/counters.h"
#include "core/out/json.h"
#include "core/out/print.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/subnet.h"
#include "core/transport/path.h"
#include "iba/smp.h"

namespace ibcore {

// A node's port through the output layer: the keys of the current object
// naming it, "nodeGUID", "name" (node name map applied), "nodeDescription"
// (verbatim), "portNum" (when port >= 0) and "LID" (when lid is not 0), or
// the text the health commands name it with ("<name>" (0x<GUID>) port <n>
// lid <l>, as health::describe()); text false: the keys only.
void print_port_keys(Printer& p, const Subnet& db, uint32_t node, int port, uint16_t lid, const NodeNameMap& map,
                     bool text = true);

// A port a command set (or would set) along a directed route, as
// set_port_state and init_all_ports report it: {the port's keys, "DRPath",
// ok_key: ok, "portState", "portPhysicalState" (of state, when known)}; the
// text "<port>: <verb> via DR path <route>, now <state>/<physical state>",
// nothing when state is null (its failure is on stderr).
void print_port_action(Printer& p, const Subnet& db, uint32_t node, unsigned port, const NodeNameMap& map,
                       const IBPath& path, const char* verb, const char* ok_key, bool ok,
                       const iba::SMPPortInfo* state);

// A finding through the output layer: an object of the port keys above
// (none for a finding about the subnet as a whole), "finding" (the text
// after the colon), "check", "field", "value", "expected", for a counter
// beyond its threshold "threshold" and "saturated", the finding's facts,
// and "detail" (when the check gave one); or its text line as
// health::describe() words it ("<name>" (0x<GUID>) port <n> lid <l>:
// <finding>), name being the node name map's, then with detail_text the
// detail on a line of its own, indented by four spaces (ibcheck* -v).
void print_finding(Printer& p, const Subnet& db, const health::Finding& f, const NodeNameMap& map,
                   bool detail_text = false);

// The named fields of an IBA structure (top-level names as iba/ declares
// them, enumerations with <name>Raw) as keys of the current object.
void json_fields_named(JsonOut& j, const iba::StructDesc& desc, const uint8_t* buf,
                       std::initializer_list<const char*> names);

// PortInfo fields of p (by their iba/ names, enumerations with <name>Raw)
// as keys of the current object; nothing when p has no PortInfo.
void json_port_info_fields(JsonOut& j, const Port& p, std::initializer_list<const char*> names);

// "thresholds": {counter field name (iba/pm.h): limit} of the error counters (ibcheck*,
// ibswportwatch: the limits a finding compares with).
void json_thresholds(JsonOut& j, const health::Thresholds& t);

}  // namespace ibcore
