// The report as a document and as a page.
//
// The document (`report --json`, and the data every page embeds): names
// and types as ibtool's --json writes them (core/out/json.h: IBA field
// names, GUIDs as strings, enumerations by name with <name>Raw):
//   {"generated", "ibtoolVersion",
//    "summary": {"nodes": {"switches", "CAs", "routers", "total"},
//                "links": {"total", "byWidth": {name: n}, "bySpeed": {name: n}},
//                "degradedLinks", "widthDegraded", "speedDegraded", "portsDown",
//                "errorPorts", "depth",
//                "errors": {ibqueryerrors' summary: "nodesChecked", "badNodes",
//                           "portsChecked", "badPorts", "pmaFailures"},
//                "sm": {"LID", sminfo's SMInfo fields but SMKey and actCount}
//                      or {"LID", "error"},
//                "scrape": {"MADs", "timeouts", "resent", "discoveryErrors",
//                           "unanswered"}},
//    "thresholds": {counter: limit},
//    "nodes": [{"nodeGUID", "nodeType", "nodeTypeRaw", "name", "nodeDescription",
//               "nameFromMap" (true when the node name map named it),
//               "LID", "tier", "x", "y", "item",
//               "ports": [{"portNum", "portGUID", "LID" (CA ports), "portState",
//                          "portPhysicalState", "linkWidthActive",
//                          "linkSpeedActive" (each with <name>Raw),
//                          "remote": {"node", "portNum"} (a link),
//                          "countersKnown", "countersFailed",
//                          "errors": {counter: value, the non-zero ones},
//                          "overThreshold": [counter, ...]}]}],
//    "links": [{"from": {"node", "portNum"}, "to": {...}, "linkWidthActive",
//               "linkSpeedActive", "status": "ok|errors|degraded|down", "why"}],
//    "findings": [{"node", "portNum", "LID", "check", "field", "value",
//                  "expected", "finding"}],
//    "unanswered": [{"node" (index or null), "what"}],
//    "layout": {"width", "height", "depth",
//               "items": [{"kind": "switch|hosts|node", "node", "hosts": [...],
//                          "tier", "x", "y"}],
//               "edges": [{"a", "b", "links": [...], "status"}]},
//    "baseline": {"file", "generated", "linksGone": [{"from": {"nodeGUID",
//                 "portNum", "name"}, "to": {...}}], "linksNew": [link index],
//                 "countersRose": [{"node", "portNum", "counter", "was", "now"}]}
//                 (with --baseline)}
// Nodes, links, items are referred to by their index in these arrays.
#pragma once

#include <string>
#include <string_view>

#include "core/out/json.h"
#include "core/report/compare.h"
#include "core/report/layout.h"
#include "core/report/report.h"

namespace ibcore::reporting {

// The document into j (finished by the caller).
void write_json(JsonOut& j, const Data& d, const Layout& l, const Comparison* cmp, const std::string& generated);

// The page: the template (core/report/page/, embedded at build time) with
// the document in it; title is the page's <title>.
std::string page(const std::string& json, const std::string& title);

// The template's parts (report_page.cpp, generated from core/report/page/).
extern const std::string_view PAGE_HTML, PAGE_CSS, PAGE_JS;

}  // namespace ibcore::reporting
