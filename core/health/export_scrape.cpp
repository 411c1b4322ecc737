// The exporter's scrape collector (export_collectors.h): the scrape's own
// ib_scrape_* metrics.
#include "core/health/export_collectors.h"

namespace ibcore::health {

void collect_scrape(prom::Writer& w, const ExportSettings& s, const ScrapeView& v) {
  size_t unread = 0;
  for (const PortRow* r : v.reads) unread += !r->ok(s.details);
  auto scalar = [&](const char* name, const char* help, double x) {
    w.family(name, "gauge", help);
    w.sample(name, "", x);
  };
  scalar("ib_scrape_success",
         "1 when the discovery could start from the local port (the scrape ran; a part of the fabric it "
         "could not reach is in ib_scrape_discovery_errors and ib_port_missing_seconds), 0 when it could not "
         "(no port series then)",
         v.up);
  scalar("ib_scrape_duration_seconds", "Time this scrape took", v.secs);
  scalar("ib_scrape_timeout_seconds",
         "The scrape's time budget: --scrape-timeout, or less when the Prometheus server waits less "
         "(its X-Prometheus-Scrape-Timeout-Seconds, less 0.5 s)",
         v.budget_s);
  scalar("ib_scrape_nodes", "Nodes discovered", double(v.db->node_count()));
  scalar("ib_scrape_ports", "Ports in this scrape", double(v.reads.size()));
  scalar("ib_scrape_ports_missing",
         "Ports an earlier scrape found that this one did not (ib_port_missing_seconds; not in ib_scrape_ports)",
         double(v.missing));
  scalar("ib_scrape_ports_unread", "Ports some of whose counters could not be read within the budget "
                                   "(ib_port_scrape_ok 0)", double(unread));
  scalar("ib_scrape_retries", "Queries asked again after they went unanswered (discovery and PM reads)",
         double(v.retry->retries()));
  scalar("ib_scrape_retries_given_up", "Unanswered queries not asked again because the budget was spent",
         double(v.retry->given_up()));
  scalar("ib_scrape_mads", "MADs sent by this scrape (resends included)", double(v.mads));
  scalar("ib_scrape_mads_resent", "MADs sent again by the MAD engine after a timeout or BUSY", double(v.resent));
  scalar("ib_scrape_timeouts", "PM queries that went unanswered for good", double(v.st.timeouts));
  scalar("ib_scrape_failed_queries", "PM queries that failed for good (timeouts included)",
         double(v.st.queries_failed));
  scalar("ib_scrape_discovery_errors", "Discovery queries that failed for good (partial topology)",
         double(v.dr.errors.size()));
  scalar("ib_scrape_unreachable_nodes", "Nodes whose PMA did not answer ClassPortInfo", double(v.st.unreachable_nodes));
  scalar("ib_scrape_pm_class_port_infos", "PerfMgt ClassPortInfo queries (one per LID)", double(v.st.cpi));
  scalar("ib_scrape_pm_all_port_sums",
         "Switch AllPortSelect PortCounters sums read (PMAs with PortCountersExtended)", double(v.st.sums));
  scalar("ib_scrape_pm_clean_sums",
         "Sums without any error: their ports' PortCounters error counters are 0, not read one by one",
         double(v.st.clean_sums));
  scalar("ib_scrape_pm_port_counters_reads", "PortCounters queries of single ports", double(v.st.pc_reads));
  scalar("ib_scrape_pm_port_counters_ext_reads", "PortCountersExtended queries", double(v.st.ext_reads));
  scalar("ib_scrape_pm_details_reads", "PortRcvErrorDetails and PortXmitDiscardDetails queries (details collector)",
         double(v.st.details_reads));
  scalar("ib_scrape_pm_vl_reads", "PortVLXmitWaitCounters queries (vl collector)", double(v.st.vl_reads));
  scalar("ib_scrape_pm_vl_unsupported_nodes",
         "Nodes whose PMA has not got PortVLXmitWaitCounters (answered it with a MAD status; asked once while the "
         "exporter runs; vl collector)",
         double(v.vl_unsupported_nodes));
  scalar("ib_scrape_sa_no_path_lids",
         "LIDs the discovery reached whose PathRecord the SA answered with a status (no record): the SM has "
         "dropped them from its view, and its routes (OpenSM does so with nodes it lost SMPs to, until a later "
         "sweep finds them), so no PM query reaches them; their ports have ib_port_scrape_ok 0",
         double(v.st.no_path_lids));
  scalar("ib_scrape_sa_path_queries",
         "SA PathRecord queries for the PM reads (the table counts one; none when no collector reads the PM)",
         double(v.st.path_queries));
  w.family("ib_scrape_collector_enabled", "gauge", "1 for each collector that is on in this exporter, 0 if off");
  for (unsigned i = 0; i < N_COLLECTORS; ++i) {
    std::string l;
    prom::label(l, "collector", kCollectors[i].name);
    w.sample("ib_scrape_collector_enabled", l, uint64_t(s.on[i]));
  }
  if (s.reset && s.want.any())
    scalar("ib_scrape_saturated_resets", "Ports whose saturated counters were reset", double(v.st.resets));
}

}  // namespace ibcore::health
