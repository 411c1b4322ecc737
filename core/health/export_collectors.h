// The exporter's collectors (fabricexport.h's Collector), each its own
// unit as node_exporter's are: each turns the rows of one scrape's fabric
// counter scan (core/health/scan.h PortScan) into its metric families.
// They send no MAD: what they need read, the scan read (the groups,
// details and per-VL counters the collectors that are on want).
//
//   export_counters.cpp  errors, data, congestion (PortCounters /
//                        PortCountersExtended), details, and the saturated
//                        counters' gauges
//   export_vl.cpp        vl (PortVLXmitWaitCounters)
//   export_link.cpp      state and link (PortInfo, from the discovery)
//   export_scrape.cpp    scrape (the scrape's own ib_scrape_*)
//   export_ports.cpp     the ports' identity series every collector's are
//                        joined with (ib_port_info, ib_port_scrape_ok,
//                        ib_port_missing_seconds), and the exposition's order
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/fabric/discovery_options.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/subnet.h"
#include "core/health/fabricexport.h"
#include "core/health/scan.h"
#include "core/out/promtext.h"

namespace ibcore::health {

// The exporter's settings, as the collectors read them.
struct ExportSettings {
  bool on[N_COLLECTORS] = {};
  CounterGroups want;      // the counter groups of the errors, data and congestion collectors
  bool details = false;    // the details collector
  bool reset = false;      // --reset-saturated
  PortSelect select;       // --port-type, --node-regex, --down-ports
  // Some collector reads the PM (state and link read nothing: their
  // PortInfo is the discovery's).
  bool pm_wanted() const { return want.any() || details || on[C_VL]; }
};

// One scrape's own counts (the scrape collector's).
struct ScrapeStats {
  uint64_t queries_failed = 0, timeouts = 0, unreachable_nodes = 0, resets = 0;
  // PM MADs by kind (PortCountersReader; the details reads), and the SA's
  // PathRecord queries the PM reads needed
  uint64_t cpi = 0, sums = 0, clean_sums = 0, pc_reads = 0, ext_reads = 0, details_reads = 0, path_queries = 0;
  uint64_t vl_reads = 0;
  // LIDs the walk reached whose PathRecord the SA refused (no record)
  uint64_t no_path_lids = 0;
};

// What one scrape found, as every collector reads it.
struct ScrapeView {
  const Subnet* db = nullptr;
  std::vector<const PortRow*> reads;  // the ports exported, in the subnet's order
  std::vector<std::string> id;        // each one's identity labels (node GUID, port)
  std::vector<bool> counters_of;      // its counters are exported (not a Down port left out)
  // The scrape itself.
  ScrapeStats st;
  DiscoveryResult dr;
  const RetryBudget* retry = nullptr;
  bool up = false;
  double secs = 0, budget_s = 0;
  uint64_t mads = 0, resent = 0;
  size_t missing = 0;                 // ports of earlier scrapes not found (ib_port_missing_seconds)
  size_t vl_unsupported_nodes = 0;    // PMAs known without the per-VL counters
};

// The collectors, in the exposition's order.
void collect_counters(prom::Writer& w, const ExportSettings& s, const ScrapeView& v);
void collect_details(prom::Writer& w, const ExportSettings& s, const ScrapeView& v);
void collect_vl(prom::Writer& w, const ExportSettings& s, const ScrapeView& v);
void collect_saturation(prom::Writer& w, const ExportSettings& s, const ScrapeView& v);
void collect_link(prom::Writer& w, const ExportSettings& s, const ScrapeView& v);
void collect_scrape(prom::Writer& w, const ExportSettings& s, const ScrapeView& v);

// The ports every scrape found, by node GUID and port number, kept from
// scrape to scrape: a port an earlier scrape found and this one did not
// stays exported (as last seen, ib_port_scrape_ok 0,
// ib_port_missing_seconds) until forget_after after it was last found.
class ExportPorts {
public:
  using Clock = std::chrono::steady_clock;
  explicit ExportPorts(Clock::duration forget_after) : forget_after_(forget_after) {}
  // The exposition of one scrape: the ports' series, then every
  // collector's (v.missing filled in here).
  void write(prom::Writer& w, const ExportSettings& s, const NodeNameMap& map, ScrapeView& v);

private:
  struct KnownPort {
    std::string id, info;  // its series' labels, ib_port_info's
    Clock::time_point seen;
  };
  std::map<std::pair<uint64_t, unsigned>, KnownPort> known_;
  Clock::duration forget_after_;
};

}  // namespace ibcore::health
