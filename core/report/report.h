// The fabric report (ibtool report, issue 37): everything the classic
// commands say about a fabric, gathered in one run, as data.
//
//   ibcore::reporting::Data d = ibcore::reporting::gather(cfg, {});
//   ibcore::reporting::Layout l = ibcore::reporting::lay_out(d.db, d.links);
//   ibcore::reporting::write_json(j, d, l, nullptr, generated);  // the document
//
// What is gathered, and whose logic it follows:
//   - discovery (discover_live, on the scan's scheduler) and, while it
//     walks, the PM reads ibqueryerrors starts ahead (each LID's
//     ClassPortInfo, a switch's AllPortSelect sum, a CA port's
//     PortCounters); then the counter scan as ibqueryerrors makes it
//     (scan.h): its nodes/ports checked and bad;
//   - the link checks of ibcheckstate, ibcheckwidth and ibchecknet's speed
//     check (core/health/checks.h), one finding per link end checked;
//   - the master SM's SMInfo (sminfo), asked at the local port's
//     MasterSMLID.
// Nothing here prints: report/page.h writes the page, report/compare.h
// compares two reports.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/config.h"
#include "core/fabric/discovery_options.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/subnet.h"
#include "core/health/checks.h"
#include "core/health/counters.h"
#include "core/out/json.h"

namespace ibcore::reporting {

// One port slot's counters, as the scan knows them.
struct PortCounters {
  bool known = false;   // read, or known zero from its switch's clean AllPortSelect sum
  bool failed = false;  // its PMA did not answer for it
  std::array<uint64_t, health::N_ERR> err{};
  uint16_t over = 0;    // bit i: err[i] beyond its threshold
};

// The scan's totals, as ibqueryerrors' summary counts them.
struct ScanTotals {
  unsigned nodes_checked = 0, bad_nodes = 0, ports_checked = 0, bad_ports = 0, pma_failures = 0;
};

// The master SM (sminfo's line).
struct SmData {
  bool ok = false;
  uint16_t lid = 0;
  uint64_t guid = 0;
  unsigned priority = 0, state = 0, act_count = 0;
  std::string error;  // why it could not be read
};

// A link of the subnet, each once: its two port slots (a < b).
struct Link {
  uint32_t a = NO_INDEX, b = NO_INDEX;
};
// What a link shows: Ok, or the worst of what its ends' checks found.
enum class LinkStatus : uint8_t { Ok, Errors, Degraded, Down };
const char* status_name(LinkStatus s);

// Something that did not answer: a node (its index) or a query of the
// walk that failed (node NO_INDEX, `what` the discovery's line).
struct Unanswered {
  uint32_t node = NO_INDEX;
  std::string what;
};

struct Data {
  Subnet db;
  NodeNameMap map;
  // The document's numbering of the nodes, by GUID (the database's is the
  // order replies came in): order[k] is the node numbered k, id[node] its
  // number.  Links are in that order too (by their lower end, then port).
  std::vector<uint32_t> order, id;
  std::vector<Link> links;                 // every link once
  std::vector<PortCounters> counters;      // by port slot
  std::vector<health::Finding> findings;   // state, width and speed, per link end checked
  std::vector<LinkStatus> link_status;     // by link
  std::vector<std::string> link_why;       // by link: the findings' text, joined
  std::vector<Unanswered> unanswered;
  health::Thresholds thr;
  ScanTotals scan;
  SmData sm;
  uint64_t mads = 0, timeouts = 0, resent = 0;  // the run's MADs (discovery and PM)
  unsigned discovery_errors = 0;
  double seconds = 0;                      // the run's wall time
};

struct GatherOptions {
  std::string thresholds_file = health::DEFAULT_THRESHOLDS;
};

// Discover, scan and check the fabric cfg names (its end port, settings).
// Throws Error when the discovery itself fails (its start node does not
// answer).
Data gather(const Config& cfg, const GatherOptions& o = {});

// The derived parts of a Data whose db, counters and thr are filled
// (gather() calls it; tests call it on a database of their own): links,
// findings, link statuses.
void analyse(Data& d);

// The summary's counts, as the classic commands count them.
struct Summary {
  unsigned switches = 0, cas = 0, routers = 0;
  unsigned links = 0;
  std::vector<std::pair<std::string, unsigned>> by_width, by_speed;  // name -> links, in IBA order
  unsigned width_degraded = 0, speed_degraded = 0;  // ibcheckwidth's / the speed check's findings
  unsigned degraded_links = 0;                      // links with either
  unsigned ports_down = 0;                          // ibcheckstate's findings
  unsigned depth = 0;                               // switch tiers
  unsigned error_ports = 0;                         // ports with a counter beyond its threshold
};
Summary summarize(const Data& d, unsigned depth);

}  // namespace ibcore::reporting
