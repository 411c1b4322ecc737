// The exporter's scrape of a whole fabric as Prometheus text (the command
// `ibtool exporter`, cmd/exporter.cpp, declares its options and serves
// this over HTTP or once on stdout).  A scrape discovers the fabric and
// reads the ports' counters through the fabric counter scan (scan.h
// PortScan::walk: reading ahead while the walk finds each node's LID; the
// PM access ibqueryerrors uses, pmaccess: one PathRecord table), with as
// few MADs as each PMA allows (pmscrape: a ClassPortInfo per LID,
// PortCountersExtended for the data counters, a switch's AllPortSelect sum
// proving its ports' counters zero) and only the counter groups the
// collectors that are on want; each collector (export_collectors.h) turns
// the scan's rows into its metrics.  A query
// that is not answered is asked again until it is or the scrape's budget is
// spent (pmscrape's RetryBudget, shared by the discovery and the reads);
// what could still not be read is counted, never fatal.  The names, units
// and HELP come from pmmetrics, the text format from core/out/promtext.
#pragma once

#include <memory>
#include <string>

#include "core/base/config.h"
#include "core/out/promtext.h"

namespace ibcore::health {

// The collectors, in node_exporter's style: each switched on or off by
// --collector.NAME / --no-collector.NAME; one that is off sends no MAD for
// its metrics.  ib_port_info (the series the others are joined with) is
// always exported.
enum Collector : unsigned {
  C_STATE,
  C_LINK,
  C_ERRORS,
  C_DATA,
  C_DETAILS,
  C_CONGESTION,
  C_VL,
  C_SCRAPE,
  N_COLLECTORS
};
struct CollectorDesc {
  const char* name;
  bool on_by_default;
  const char* help;
};
inline constexpr CollectorDesc kCollectors[N_COLLECTORS] = {
    {"state", true,
     "port state, physical state and ib_port_link_degraded (width or speed below what both ends enable; from "
     "PortInfo, read by the discovery: no MAD of its own)"},
    {"link", false,
     "the link's width and speed, active and enabled (8 PortInfo gauges, no MAD of their own; the state "
     "collector's ib_port_link_degraded compares them)"},
    {"errors", true,
     "the error counters (PortCounters, or PortCountersExtended where it holds them; a switch's AllPortSelect sum "
     "without error stands for its ports' reads)"},
    {"data", false, "the data and packet counters (PortCountersExtended where the PMA has it, else PortCounters)"},
    {"details", false, "PortRcvErrorDetails and PortXmitDiscardDetails (2 MADs per port; --details is this)"},
    {"congestion", false, "PortXmitWait (PortCounters, or PortCountersExtended where it holds it)"},
    {"vl", false,
     "PortVLXmitWaitCounters, the congestion of each data VL the port runs (PortInfo OperationalVLs): one MAD "
     "and up to 15 series per port; a PMA that answers it with a MAD status has not got it, is asked once and "
     "then no more"},
    {"scrape", true, "the scrape's own ib_scrape_* metrics"},
};

struct ExportOptions {
  bool on[N_COLLECTORS] = {};  // the collectors in force
  bool reset_saturated = false;  // --reset-saturated
  bool down_ports_all = false;   // --down-ports all: a Down port's counters too
  std::string port_type = "all";  // all, switch or ca (--port-type)
  std::string node_regex;         // only the nodes whose name matches (empty: all)
  // A port an earlier scrape found and this one does not (its node did
  // not answer the discovery, or is gone) stays exported for this long:
  // its ib_port_info as last seen, ib_port_scrape_ok 0 and
  // ib_port_missing_seconds (0: forgotten at once).
  double forget_after_s = 3600;
};

class FabricExport {
public:
  // cfg: the command's settings (MAD, node-name-map, ...), kept by
  // reference.  Throws ibcore::Error for a bad node_regex.
  FabricExport(const Config& cfg, const ExportOptions& opt);
  ~FabricExport();
  FabricExport(const FabricExport&) = delete;
  FabricExport& operator=(const FabricExport&) = delete;
  // One scrape within budget_s seconds, its exposition text into out.
  // Never throws.  One at a time (the caller serializes).
  void scrape(prom::Writer& out, double budget_s);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ibcore::health
