// The exporter's vl collector (export_collectors.h): PortVLXmitWaitCounters.
#include "core/health/export_collectors.h"
#include "core/health/pmmetrics.h"
#include "iba/introspect.h"
#include "iba/pm.h"

namespace ibcore::health {

// One series per data VL the port runs, labelled by vl (a family no port
// has is left out).
void collect_vl(prom::Writer& w, const ExportSettings&, const ScrapeView& v) {
  static const std::vector<CounterMetric> metrics = counter_metrics({&iba::PMPortVLXmitWaitCounters::DESC});
  for (const CounterMetric& m : metrics) {
    iba::FieldRef f = iba::field_named(iba::PMPortVLXmitWaitCounters::DESC, m.field);
    bool head = false;
    for (size_t i = 0; i < v.reads.size(); ++i) {
      const VlCountersRead& c = v.reads[i]->vl;
      if (!v.counters_of[i] || !c.ok) continue;
      if (!head) w.family(m.name, "counter", m.help);
      head = true;
      for (unsigned vl = 0; vl < c.vls && vl < f.field->count; ++vl) {
        std::string l = v.id[i];
        prom::label(l, "vl", std::to_string(vl));
        w.sample(m.name, l,
                 iba::get_bits(c.xmit_wait.buf.data(), f.bit_off + vl * f.field->width, f.field->width) * m.scale);
      }
    }
  }
}

}  // namespace ibcore::health
