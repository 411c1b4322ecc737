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

void remote(JsonOut& j, const Subnet& db, const Port& r, const NodeNameMap& map) {
  const Node& rn = db.node_of(r);
  j.obj().kguid("nodeGUID", rn.guid).kguid("portGUID", r.guid).kv("portNum", r.num).kv("LID", db.lid_of(r));
  j.kenum("nodeType", node_type_name(rn.type), unsigned(rn.type));
  std::string d = rn.description();
  j.ks("nodeDescription", d).ks("name", map.remap(rn.guid, d)).end();
}

}  // namespace

void json_port(JsonOut& j, const Subnet& db, const Port& p, const NodeNameMap& map, bool full) {
  j.obj().kv("portNum", p.num).kguid("portGUID", p.guid).kv("LID", db.lid_of(p));
  if (p.ext_num) j.kv("externalPortNum", p.ext_num);
  if (p.has_info) {
    for (const iba::FieldDesc* f : summary().f) j.field(*f, f->bit_off, p.info.data());
    if (full) {
      j.key("portInfo").obj();
      // (not the M_Key: the text never shows it; LocalPortNum as the
      // reference's query got it, like the rest of the topology)
      static constexpr std::string_view HIDE[] = {"MKey"};
      j.fields(iba::SMPPortInfo::DESC, db.ref_port_info(p).data(), HIDE);
      j.end();
    }
  }
  j.key("remote");
  if (const Port* r = db.peer(p)) remote(j, db, *r, map);
  else j.null();
  j.end();
}

void json_node_head(JsonOut& j, const Subnet& db, const Node& n, const NodeNameMap& map) {
  std::string d = n.description();
  j.obj().kguid("nodeGUID", n.guid).kenum("nodeType", node_type_name(n.type), unsigned(n.type));
  j.ks("nodeDescription", d).ks("name", map.remap(n.guid, d)).kv("numPorts", n.nports);
  if (n.is_switch()) j.kv("LID", n.smalid);
  // (the reference's first reply: its LocalPortNum and PortGUID)
  j.key("nodeInfo").obj().fields(iba::SMPNodeInfo::DESC, db.ref_node_info(n).data()).end();
}

void json_node(JsonOut& j, const Subnet& db, const Node& n, const NodeNameMap& map, const JsonNetOptions& o) {
  json_node_head(j, db, n, map);
  if (o.ports) {
    j.key("ports").arr();
    for (unsigned k = n.is_switch() ? 0 : 1; k <= n.nports; ++k) {
      const Port& p = db.port(n, k);
      if (!p.exists) continue;
      if (o.linked_only && p.peer == NO_INDEX) continue;
      json_port(j, db, p, map, o.full);
    }
    j.end();
  }
  j.end();
}

}  // namespace ibcore
