#include "core/health/json_health.h"

#include "core/health/counters.h"
#include "iba/introspect.h"
#include "iba/refprint_smp.h"

namespace ibcore {

void print_port_keys(Printer& p, const Subnet& db, uint32_t node, int port, uint16_t lid, const NodeNameMap& map,
                     bool text) {
  const Node& n = db.node(node);
  std::string d = n.description();
  const PrintKind any = text ? PRINT_ANY : PRINT_JSON;
  p.guid(PRINT_JSON, "nodeGUID", nullptr, n.guid).str(any, "name", "\"%s\"", map.remap(n.guid, d));
  if (text) p.guid(PRINT_FP, nullptr, " (0x%016x)", n.guid);
  p.str(PRINT_JSON, "nodeDescription", nullptr, d);
  if (port >= 0) p.uint(any, "portNum", " port %u", unsigned(port));
  if (lid) p.uint(any, "LID", " lid %u", lid);
}

void print_port_action(Printer& p, const Subnet& db, uint32_t node, unsigned port, const NodeNameMap& map,
                       const IBPath& path, const char* verb, const char* ok_key, bool ok,
                       const iba::SMPPortInfo* state) {
  p.open_object();
  print_port_keys(p, db, node, int(port), health::port_lid(db, db.node(node), port), map, state);
  if (state) p.text(": %s via DR path ", verb);
  p.json_value("DRPath", [&](JsonOut& j) { path.json_dr(j); });
  if (state) p.str(PRINT_FP, nullptr, "%s", path.dr_string());
  p.boolean(PRINT_JSON, ok_key, nullptr, ok);
  if (state) {
    p.json_value(nullptr, [&](JsonOut& j) {
      json_fields_named(j, iba::SMPPortInfo::DESC, state->buf.data(), {"portState", "portPhysicalState"});
    });
    p.text(", now %s/%s\n", iba::ref::port_state_word(state->portState()),
           iba::ref::phys_state_word(state->portPhysicalState()));
  }
  p.close_object();
}

void print_finding(Printer& p, const Subnet& db, const health::Finding& f, const NodeNameMap& map,
                   bool detail_text) {
  p.open_object();
  if (f.node != NO_INDEX) {
    print_port_keys(p, db, f.node, f.port, f.lid, map);
    p.text(": ");
  }
  p.str(PRINT_ANY, "finding", "%s\n", f.what);
  if (f.check) p.str(PRINT_JSON, "check", nullptr, f.check);
  if (f.field) p.str(PRINT_JSON, "field", nullptr, f.field);
  if (f.numeric) p.uint(PRINT_JSON, "value", nullptr, f.value);
  else if (f.field) p.str(PRINT_JSON, "value", nullptr, f.value_name);
  if (!f.expected.empty()) p.str(PRINT_JSON, "expected", nullptr, f.expected);
  if (f.numeric && f.threshold_set) {
    p.uint(PRINT_JSON, "threshold", nullptr, f.threshold).boolean(PRINT_JSON, "saturated", nullptr, f.saturated);
  }
  for (const auto& x : f.facts) {
    if (x.number) p.uint(PRINT_JSON, x.key, nullptr, *x.number);
    else if (x.flag) p.boolean(PRINT_JSON, x.key, nullptr, *x.flag);
    else p.str(PRINT_JSON, x.key, nullptr, x.text);
  }
  if (!f.detail.empty()) p.str(detail_text ? PRINT_ANY : PRINT_JSON, "detail", "    %s\n", f.detail);
  p.close_object();
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
  for (int i = 0; i < health::N_ERR; ++i) j.kv(health::ERROR_COUNTERS.field(i), t.limit[i]);
  j.end();
}

}  // namespace ibcore
