#include "core/health/json_health.h"

#include "core/health/counters.h"
#include "iba/introspect.h"

namespace ibcore {

void json_port_keys(JsonOut& j, const Subnet& db, uint32_t node, int port, uint16_t lid, const NodeNameMap& map) {
  const Node& n = db.node(node);
  std::string d = n.description();
  j.kguid("nodeGUID", n.guid).ks("name", map.remap(n.guid, d)).ks("nodeDescription", d);
  if (port >= 0) j.kv("portNum", unsigned(port));
  if (lid) j.kv("LID", lid);
}

void json_finding(JsonOut& j, const Subnet& db, const health::Finding& f, const NodeNameMap& map) {
  j.obj();
  if (f.node != NO_INDEX) json_port_keys(j, db, f.node, f.port, f.lid, map);
  j.ks("finding", f.what);
  if (f.check) j.ks("check", f.check);
  if (f.field) j.ks("field", f.field);
  if (f.numeric) j.kv("value", f.value);
  else if (f.field) j.ks("value", f.value_name);
  if (!f.expected.empty()) j.ks("expected", f.expected);
  if (f.numeric && f.threshold_set) j.kv("threshold", f.threshold).kb("saturated", f.saturated);
  for (const auto& x : f.facts) {
    if (x.number) j.kv(x.key, *x.number);
    else if (x.flag) j.kb(x.key, *x.flag);
    else j.ks(x.key, x.text);
  }
  if (!f.detail.empty()) j.ks("detail", f.detail);
  j.end();
}

void json_fields_named(JsonOut& j, const iba::StructDesc& desc, const uint8_t* buf,
                       std::initializer_list<const char*> names) {
  for (const char* name : names) {
    iba::FieldRef r = iba::field_named(desc, name);
    if (r.field) j.field(*r.field, r.field->bit_off, buf);
  }
}

void json_port_info_fields(JsonOut& j, const Port& p, std::initializer_list<const char*> names) {
  if (p.has_info) json_fields_named(j, iba::SMPPortInfo::DESC, p.info.data(), names);
}

void json_thresholds(JsonOut& j, const health::Thresholds& t) {
  j.key("thresholds").obj();
  for (int i = 0; i < health::N_ERR; ++i) j.kv(health::err_field(i), t.limit[i]);
  j.end();
}

}  // namespace ibcore
