// ibqueryerrors' report of the fabric counter scan (scan.h ErrorScan): the
// rows of the ports beyond threshold as the nodes and ports it reports,
// the failed queries as the reference's warnings, and -r's link line.  The
// command describes the result (text and JSON) from these.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/fabric/nodemap.h"
#include "core/fabric/subnet.h"
#include "core/health/scan.h"

namespace ibcore::health {

// A counter beyond its threshold and, with --details, the non-zero fields
// of its details attribute (label: the reference's text name, field: the
// iba/pm.h name --json uses).
struct ReportedDetail {
  const char* label;
  const char* field;
  uint64_t v;
};
struct ReportedError {
  int counter;
  uint64_t v;
  std::vector<ReportedDetail> details;
};
// A reported port (0xff: all ports summed, AllPortSelect).
struct ReportedPort {
  unsigned port;
  uint64_t guid;
  std::vector<ReportedError> errors;
  std::vector<std::pair<int, uint64_t>> data;  // (health data counter, value)
};
struct ReportedNode {
  std::vector<ReportedPort> ports;  // the ports reported
  NodeScan scan;                    // what the scan found of it
};

// The scan's rows into ReportedNodes (nodes[i] into out[i]); a failed query
// is warned about as the reference does (scripts count the lines:
// libibmad's for a timeout, then ibqueryerrors' own, each "ibwarn: [pid]
// function: ", the reference function that reads that attribute; -v adds
// the error's layers).
class ErrorReport : public ErrorSink {
public:
  // counters_only: --counters (the data counters of every port).
  ErrorReport(const Subnet& db, const NodeNameMap& map, const std::vector<uint32_t>& nodes,
              std::vector<ReportedNode>& out, bool counters_only, int verbose);
  void pma_failed(uint32_t node, uint16_t lid, const PmaCaps& got) override;
  void row(const ErrorRow& r) override;
  void clear_failed(uint32_t node, unsigned port, const MADError& e, bool details) override;

private:
  std::string name(uint32_t node) const;
  const Subnet& db_;
  const NodeNameMap& map_;
  std::vector<ReportedNode>& out_;
  std::unordered_map<uint32_t, size_t> at_;
  bool counters_only_;
  int verbose_;
};

// -r's line: port `port` of n and its link as the reference shows it
// (peer_known false: a node selected alone, whose peer the reference does
// not know: blank).  Empty for a port without PortInfo.
std::string link_line(const Subnet& db, const NodeNameMap& map, const Node& n, unsigned port, bool peer_known);

}  // namespace ibcore::health
