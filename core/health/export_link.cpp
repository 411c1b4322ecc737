// The exporter's state and link collectors (export_collectors.h): PortInfo
// as the discovery read it, and ib_port_link_degraded.
#include "core/health/checks.h"
#include "core/health/export_collectors.h"
#include "core/health/pmmetrics.h"
#include "iba/introspect.h"
#include "iba/smp.h"

namespace ibcore::health {

// Raw IBA values (the HELP gives the codes).  A Down port whose counters
// are not exported has its state fields only.
void collect_link(prom::Writer& w, const ExportSettings& s, const ScrapeView& v) {
  const Subnet& db = *v.db;
  for (const GaugeMetric& g : link_metrics()) {
    iba::FieldRef f = iba::field_named(iba::SMPPortInfo::DESC, g.field);
    bool state = g.field == "portState" || g.field == "portPhysicalState";
    if (!s.on[state ? C_STATE : C_LINK]) continue;
    w.family(g.name, "gauge", g.help);
    for (size_t i = 0; i < v.reads.size(); ++i) {
      const Port& p = db.port(v.reads[i]->slot);
      // (a switch's ports: PortInfo of each port; port 0 has no link)
      if (p.has_info && (state || !s.select.state_only(db, v.reads[i]->slot)))
        w.sample(g.name, v.id[i], iba::get_bits(p.info.data(), f.bit_off, f.field->width));
    }
  }
  if (!s.on[C_STATE]) return;
  w.family("ib_port_link_degraded", "gauge",
           "1 when the link runs narrower or slower than both of its ends have enabled and support "
           "(the width and speed checks of ibcheckwidth/ibcheckspeed), else 0; for LinkUp ports with a "
           "known peer");
  for (size_t i = 0; i < v.reads.size(); ++i) {
    const Port& p = db.port(v.reads[i]->slot);
    if (!p.has_info || !db.peer(p) || p.num == 0) continue;
    bool bad = !check_port_width(db, p.node, p.num).empty() || !check_port_speed(db, p.node, p.num).empty();
    w.sample("ib_port_link_degraded", v.id[i], uint64_t(bad));
  }
}

}  // namespace ibcore::health
