// The PM counters and PortInfo link fields as Prometheus metrics: names,
// units and HELP text, following Prometheus' naming guidelines with
// node_exporter's infiniband collector as the anchor (`ib_port_` plus its
// name without the leading `port_`: ib_port_data_received_bytes_total,
// ib_port_packets_received_total, ib_port_symbol_error_total, ...).
//
// A metric is made from the iba/ declarations: the fields of the
// attributes it reads (PortCounters and PortCountersExtended share their
// counter fields' names; one metric stands for both, whichever the port's
// PMA gives), each field's width, and the enumeration tables for the state
// gauges.  This file only adds what the declarations do not say: the name
// in Prometheus' words, what the counter counts, and its unit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "iba/struct.h"

namespace ibcore::health {

// One counter metric.
struct CounterMetric {
  std::string field;      // the IBA field (iba/ spelling): "portXmitData"
  std::string name;       // "ib_port_data_transmitted_bytes_total"
  std::string help;       // what it counts, its sources and their widths
  uint64_t scale = 1;     // metric value = field value * scale (4: 4-octet words -> bytes)
};

// The counter metrics of the fields of `sources` (attributes whose
// counter fields of the same name count the same thing: PortCounters and
// PortCountersExtended), in declaration order, the first source's fields
// first; the select and reserved fields are not counters.
std::vector<CounterMetric> counter_metrics(std::initializer_list<const iba::StructDesc*> sources);

// A counter field's metric name (without a table entry: snake case of the
// field name without its "port" prefix and "Counter" suffix, + _total).
std::string counter_metric_name(std::string_view field);

// "portXmitData" -> "port_xmit_data", "VL15Dropped" -> "vl15_dropped".
std::string snake_case(std::string_view field);

// A PortInfo field as a gauge: "ib_port_" + name, and a HELP that gives the
// field and its codes from the enumeration tables.
struct GaugeMetric {
  std::string field;
  std::string name;
  std::string help;
};
// PortState, PortPhysicalState, the link widths and speeds (active and
// enabled).
const std::vector<GaugeMetric>& link_metrics();

}  // namespace ibcore::health
