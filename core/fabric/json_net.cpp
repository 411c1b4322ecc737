#include "core/fabric/json_net.h"

#include "iba/enums.h"
#include "iba/introspect.h"

namespace ibcore {

namespace {

// The PortInfo fields every port object carries (the rest with full).
const char* const PORT_SUMMARY[] = {"LMC",
                                    "portState",
                                    "portPhysicalState",
                                    "linkWidthEnabled",
                                    "linkWidthSupported",
                                    "linkWidthActive",
                                    "linkSpeedEnabled",
                                    "linkSpeedSupported",
                                    "linkSpeedActive",
                                    "linkSpeedExtEnabled",
                                    "linkSpeedExtSupported",
                                    "linkSpeedExtActive",
                                    "linkSpeedExtEnabled2",
                                    "linkSpeedExtSupported2",
                                    "linkSpeedExtActive2",
                                    "neighborMTU",
                                    "capabilityMask"};

struct SummaryFields {
  const iba::FieldDesc* f[std::size(PORT_SUMMARY)];
  SummaryFields() {
    for (size_t i = 0; i < std::size(PORT_SUMMARY); ++i)
      f[i] = iba::field_named(iba::SMPPortInfo::DESC, PORT_SUMMARY[i]).field;
  }
};

const SummaryFields& summary() {
  static const SummaryFields s;
  return s;
}

const char* node_type_name(NodeType t) {
  const char* n = iba::enums::name_of(iba::enums::node_types(), unsigned(t));
  return n ? n : "Unknown";
}

void remote(Printer& p, const Subnet& db, const Port& r, const NodeNameMap& map) {
  const Node& rn = db.node_of(r);
  p.open_object("remote").guid(PRINT_JSON, "nodeGUID", nullptr, rn.guid).guid(PRINT_JSON, "portGUID", nullptr, r.guid);
  p.uint(PRINT_JSON, "portNum", nullptr, r.num).uint(PRINT_JSON, "LID", nullptr, db.lid_of(r));
  p.enumeration(PRINT_JSON, "nodeType", nullptr, node_type_name(rn.type), unsigned(rn.type));
  std::string d = rn.description();
  p.str(PRINT_JSON, "nodeDescription", nullptr, d).str(PRINT_JSON, "name", nullptr, map.remap(rn.guid, d)).close_object();
}

}  // namespace

iba::Capabilities port_capabilities(const Subnet& db, const Port& port) {
  const Node& n = db.node_of(port);
  const Port& owner = n.is_switch() ? db.port(n, 0) : port;
  iba::Capabilities c;
  if (!owner.has_info) return c;
  iba::SMPPortInfo pi = owner.port_info();
  c.port_cap = uint32_t(pi.capabilityMask());
  c.port_cap2 = uint32_t(pi.capabilityMask2());
  return c;
}

namespace {

void port_json(Printer& p, const Subnet& db, const Port& port, const NodeNameMap& map, bool full) {
  p.uint(PRINT_JSON, "portNum", nullptr, port.num).guid(PRINT_JSON, "portGUID", nullptr, port.guid);
  p.uint(PRINT_JSON, "LID", nullptr, db.lid_of(port));
  if (port.ext_num) p.uint(PRINT_JSON, "externalPortNum", nullptr, port.ext_num);
  if (port.has_info) {
    // (its optional fields where its capability masks make them valid)
    const iba::Capabilities caps = port_capabilities(db, port);
    for (const iba::FieldDesc* f : summary().f) p.field(*f, port.info.data(), caps);
    if (full) {
      // (not the M_Key: the text never shows it; LocalPortNum as the
      // reference's query got it, like the rest of the topology)
      static constexpr std::string_view HIDE[] = {"MKey"};
      p.open_object("portInfo")
          .fields(iba::SMPPortInfo::DESC, db.ref_port_info(port).data(), std::span<const std::string_view>(HIDE), caps)
          .close_object();
    }
  }
  // (a cache's link whose port the fabric has down now: none, as the text)
  const Port* r = db.links_live && port.phys_state() != PHYS_LINKUP ? nullptr : db.peer(port);
  if (r) remote(p, db, *r, map);
  else p.null("remote");
}

void node_json(Printer& p, const Subnet& db, const Node& n, const NodeNameMap& map) {
  std::string d = n.description();
  p.guid(PRINT_JSON, "nodeGUID", nullptr, n.guid).enumeration(PRINT_JSON, "nodeType", nullptr, node_type_name(n.type), unsigned(n.type));
  p.str(PRINT_JSON, "nodeDescription", nullptr, d).str(PRINT_JSON, "name", nullptr, map.remap(n.guid, d));
  p.uint(PRINT_JSON, "numPorts", nullptr, n.nports);
  if (n.is_switch()) p.uint(PRINT_JSON, "LID", nullptr, n.smalid);
  // (the reference's first reply: its LocalPortNum and PortGUID)
  p.open_object("nodeInfo").fields(iba::SMPNodeInfo::DESC, db.ref_node_info(n).data()).close_object();
}

}  // namespace

void port_members(Printer& p, const Subnet& db, const Port& port, const NodeNameMap& map, bool full) {
  p.json_part([&] { port_json(p, db, port, map, full); });
}

void node_members(Printer& p, const Subnet& db, const Node& n, const NodeNameMap& map) {
  p.json_part([&] { node_json(p, db, n, map); });
}

void json_port(JsonOut& j, const Subnet& db, const Port& port, const NodeNameMap& map, bool full) {
  Printer p(j);
  p.open_object();
  port_members(p, db, port, map, full);
  p.close_object();
}

void json_node(JsonOut& j, const Subnet& db, const Node& n, const NodeNameMap& map, const JsonNetOptions& o) {
  Printer p(j);
  p.open_object();
  node_members(p, db, n, map);
  if (o.ports) {
    p.open_array("ports");
    for (unsigned k = n.is_switch() ? 0 : 1; k <= n.nports; ++k) {
      const Port& port = db.port(n, k);
      if (!port.exists) continue;
      if (o.linked_only && port.peer == NO_INDEX) continue;
      p.open_object();
      port_members(p, db, port, map, o.full);
      p.close_object();
    }
    p.close_array();
  }
  p.close_object();
}

}  // namespace ibcore
