// The exporter's counter collectors (export_collectors.h): errors, data
// and congestion from PortCounters / PortCountersExtended, details, and
// the saturated counters' gauges.
#include <utility>

#include "core/health/export_collectors.h"
#include "core/health/pmmetrics.h"
#include "iba/introspect.h"
#include "iba/pm.h"

namespace ibcore::health {

namespace {

using BufField = std::pair<const uint8_t*, const iba::FieldDesc*>;

// Where a port's value of a PortCounters/PortCountersExtended field comes
// from (nullptr: not read, or not a field this port's PMA fills).
const uint8_t* counter_buf(const PortRow& r, std::string_view field, bool in_pc, bool in_ext) {
  const PortCountersRead& c = r.c;
  bool from_ext = c.source == CounterSource::Extended ||
                  (c.source == CounterSource::Split && (!in_pc || is_pc_data_field(field)));
  if (from_ext) return in_ext && c.ext_ok && ext_field_valid(c.caps, field) ? c.ext.buf.data() : nullptr;
  return in_pc && c.pc_ok ? c.pc.buf.data() : nullptr;
}

// The counters of every attribute read, one metric per counter field (a
// and b: the attributes it may be in, whichever the port's PMA gives;
// buf_of: a port's image of it; a family no port has is left out).
// groups: only the fields of the wanted counter groups.
template <class BufOf>
void counters(prom::Writer& w, const ScrapeView& v, const std::vector<CounterMetric>& metrics,
              const iba::StructDesc* a, const iba::StructDesc* b, const CounterGroups* groups, BufOf buf_of) {
  for (const CounterMetric& m : metrics) {
    if (groups && !groups->has(counter_group(m.field))) continue;
    auto has = [&](const iba::StructDesc* d) {
      if (!d) return (const iba::FieldDesc*)nullptr;
      for (const iba::FieldDesc& f : d->field_list())
        if (m.field == f.name) return &f;
      return (const iba::FieldDesc*)nullptr;
    };
    const iba::FieldDesc* fa = has(a);
    const iba::FieldDesc* fb = has(b);
    bool head = false;
    for (size_t i = 0; i < v.reads.size(); ++i) {
      if (!v.counters_of[i]) continue;
      auto [buf, f] = buf_of(*v.reads[i], m.field, fa, fb);
      if (!buf) continue;
      if (!head) w.family(m.name, "counter", m.help);
      head = true;
      w.sample(m.name, v.id[i], iba::get_bits(buf, f->bit_off, f->width) * m.scale);
    }
  }
}

}  // namespace

void collect_counters(prom::Writer& w, const ExportSettings& s, const ScrapeView& v) {
  static const std::vector<CounterMetric> pc_metrics =
      counter_metrics({&iba::PMPortCounters::DESC, &iba::PMPortCountersExtended::DESC});
  counters(w, v, pc_metrics, &iba::PMPortCounters::DESC, &iba::PMPortCountersExtended::DESC, &s.want,
           [](const PortRow& r, const std::string& field, const iba::FieldDesc* fpc,
              const iba::FieldDesc* fext) -> BufField {
             const uint8_t* b = counter_buf(r, field, fpc != nullptr, fext != nullptr);
             if (!b) return {nullptr, nullptr};
             return {b, b == r.c.ext.buf.data() ? fext : fpc};
           });
}

void collect_details(prom::Writer& w, const ExportSettings&, const ScrapeView& v) {
  static const std::vector<CounterMetric> rcv = counter_metrics({&iba::PMPortRcvErrorDetails::DESC});
  static const std::vector<CounterMetric> xmit = counter_metrics({&iba::PMPortXmitDiscardDetails::DESC});
  counters(w, v, rcv, &iba::PMPortRcvErrorDetails::DESC, nullptr, nullptr,
           [](const PortRow& r, const std::string&, const iba::FieldDesc* f, const iba::FieldDesc*) -> BufField {
             return {r.rcv_ok ? r.rcv.buf.data() : nullptr, f};
           });
  counters(w, v, xmit, &iba::PMPortXmitDiscardDetails::DESC, nullptr, nullptr,
           [](const PortRow& r, const std::string&, const iba::FieldDesc* f, const iba::FieldDesc*) -> BufField {
             return {r.xmit_ok ? r.xmit.buf.data() : nullptr, f};
           });
}

void collect_saturation(prom::Writer& w, const ExportSettings& s, const ScrapeView& v) {
  if (!s.want.any()) return;
  w.family("ib_port_counters_saturated", "gauge",
           "Counters at their maximum, where they stop counting: of the counters exported (the errors, data "
           "and congestion collectors'), the PortCounters ones this port's metrics take (where "
           "PortCountersExtended has every counter: its 64-bit counters)");
  for (size_t i = 0; i < v.reads.size(); ++i)
    if (v.counters_of[i] && v.reads[i]->c.ok())
      w.sample("ib_port_counters_saturated", v.id[i], uint64_t(v.reads[i]->saturated));
  if (!s.reset) return;
  w.family("ib_port_counters_saturated_reset", "gauge", "1 when this scrape reset the saturated counters");
  for (size_t i = 0; i < v.reads.size(); ++i)
    if (v.reads[i]->saturated) w.sample("ib_port_counters_saturated_reset", v.id[i], uint64_t(v.reads[i]->reset));
}

}  // namespace ibcore::health
