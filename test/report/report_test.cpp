// ibtool report (issue 37) on simulated fabrics: the summary against the
// classic commands, faults shown in the page, the same fabric giving the
// same file, bad input, and the page in a real browser (Chromium through
// Selenium: test/report/browser_check.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "test/integration/ibtool_bin.h"
#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

using nlohmann::json;

using ittest::ib;

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The document a page embeds.
json embedded(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"ibtool-report-data\">";
  size_t a = page.find(open);
  EXPECT_NE(a, std::string::npos);
  if (a == std::string::npos) return json();
  a += open.size();
  return json::parse(page.substr(a, page.find("</script>", a) - a));
}

json report_json(const testbed::Fabric& f, std::vector<std::string> more = {}) {
  std::vector<std::string> a{"report", "--json"};
  a.insert(a.end(), more.begin(), more.end());
  auto r = f.run(ib(a), {}, 300);
  EXPECT_EQ(r.status, 0) << r.err;
  return json::parse(r.out);
}

// Findings of an ibcheck* --json run by check.
unsigned findings(const testbed::Fabric& f, const char* cmd, const char* check) {
  auto r = f.run(ib({cmd, "--json"}));
  json d = json::parse(r.out);
  unsigned n = 0;
  for (auto& x : d["findings"]) n += x.value("check", "") == check;
  return n;
}

// The links iblinkinfo --json lists, each once, by width and by speed.
std::pair<std::map<std::string, unsigned>, std::map<std::string, unsigned>> linkinfo(const testbed::Fabric& f) {
  auto r = f.run(ib({"iblinkinfo", "--json"}));
  EXPECT_EQ(r.status, 0) << r.err;
  json d = json::parse(r.out);
  std::set<std::tuple<std::string, unsigned, std::string, unsigned>> seen;
  std::map<std::string, unsigned> w, s;
  for (auto& n : d["nodes"])
    for (auto& p : n["ports"]) {
      if (!p.contains("remote") || p["remote"].is_null()) continue;
      std::string a = n["nodeGUID"], b = p["remote"]["nodeGUID"];
      unsigned pa = p["portNum"], pb = p["remote"]["portNum"];
      auto k = std::make_tuple(a, pa, b, pb);
      if (std::tie(b, pb) < std::tie(a, pa)) k = std::make_tuple(b, pb, a, pa);
      if (!seen.insert(k).second) continue;
      ++w[p["linkWidthActive"].get<std::string>()];
      ++s[p["linkSpeedActive"].get<std::string>()];
    }
  return {w, s};
}

// Every number of the summary against the command that prints it.
void check_summary(const testbed::Fabric& f) {
  json d = report_json(f);
  const json& S = d["summary"];
  // ibqueryerrors (the reference's, infiniband-diags): its summary lines.
  auto q = testbed::again_if_segv([&] { return f.run({"ibqueryerrors"}); }, "ibqueryerrors");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(q.out, m, std::regex(R"(## Summary: (\d+) nodes checked, (\d+) bad nodes found\n##\s+(\d+) ports checked, (\d+) ports have errors)")))
      << "status " << q.status << "\n" << q.out << q.err;
  EXPECT_EQ(S["errors"]["nodesChecked"], std::stoul(m[1])) << q.out;
  EXPECT_EQ(S["errors"]["badNodes"], std::stoul(m[2])) << q.out;
  EXPECT_EQ(S["errors"]["portsChecked"], std::stoul(m[3])) << q.out;
  EXPECT_EQ(S["errors"]["badPorts"], std::stoul(m[4])) << q.out;
  json qj = json::parse(f.run(ib({"ibqueryerrors", "--json"})).out);
  EXPECT_EQ(S["errors"]["pmaFailures"], qj["summary"]["pmaFailures"]);
  // The link checks.
  EXPECT_EQ(S["widthDegraded"], findings(f, "ibcheckwidth", "linkWidth"));
  EXPECT_EQ(S["speedDegraded"], findings(f, "ibchecknet", "linkSpeed"));
  EXPECT_EQ(S["portsDown"], findings(f, "ibcheckstate", "portState"));
  // iblinkinfo's links.
  auto [w, s] = linkinfo(f);
  unsigned total = 0;
  for (auto& [k, v] : w) total += v;
  EXPECT_EQ(S["links"]["total"], total);
  EXPECT_EQ(S["links"]["byWidth"], json(w));
  EXPECT_EQ(S["links"]["bySpeed"], json(s));
  // sminfo (the reference's line).
  auto sm = f.run({"sminfo"});
  ASSERT_TRUE(std::regex_search(sm.out, m, std::regex(R"(sm lid (\d+) sm guid (0x[0-9a-f]+), activity count \d+ priority (\d+) state (\d+))")))
      << sm.out;
  EXPECT_EQ(S["sm"]["LID"], std::stoul(m[1]));
  EXPECT_EQ(std::stoull(S["sm"]["GUID"].get<std::string>(), nullptr, 16), std::stoull(m[2], nullptr, 16));
  EXPECT_EQ(S["sm"]["priority"], std::stoul(m[3]));
  EXPECT_EQ(S["sm"]["SMStateRaw"], std::stoul(m[4]));
  // The nodes, as ibnetdiscover lists them.
  json nd = json::parse(f.run(ib({"ibnetdiscover", "--json"})).out);
  unsigned sw = 0, ca = 0;
  for (auto& n : nd["nodes"]) (n["nodeType"] == "Switch" ? sw : ca)++;
  EXPECT_EQ(S["nodes"]["switches"], sw);
  EXPECT_EQ(S["nodes"]["CAs"], ca);
  EXPECT_EQ(S["scrape"]["timeouts"], 0);
  EXPECT_GT(S["scrape"]["MADs"].get<unsigned>(), 0u);
}

std::string artifacts() {
  std::string d = IBTOOL_REPORT_ARTIFACTS;
  std::system(("mkdir -p '" + d + "'").c_str());
  return d;
}

// browser_check.py on a page (outside the fabric's LD_PRELOAD).
int browser(const std::string& page, const std::string& shot, const std::string& more = "") {
  std::string cmd = std::string(REPORT_PYTHON) + " " + IBTOOL_SOURCE_DIR + "/test/report/browser_check.py '" + page +
                    "' '" + shot + "' " + more;
  return std::system(cmd.c_str());
}

TEST(Report, SummaryEqualsClassicCommandsOnOddFabric) {
  testbed::Fabric f(testbed::generate("irregular"));
  check_summary(f);
}

TEST(Report, SummaryEqualsClassicCommandsOnFatTree8) {
  testbed::Fabric f(testbed::generate("fattree 8"));
  check_summary(f);
}

TEST(Report, SummaryCountsErrorsAsIbqueryerrors) {
  testbed::Fabric f(testbed::generate("irregular"));
  f.console("PerformanceSet \"ring switch 2\"[3] PortCounters.SymbolErrorCounter=5");
  f.console("PerformanceSet \"narrow link host\"[1] PortCounters.PortRcvErrors=7");
  check_summary(f);
}

// Faults on the fabric show in the page: a link unlinked since the
// baseline, symbol errors, a link below its enabled width, a node that
// does not answer.
TEST(Report, FaultsShowInThePage) {
  testbed::Fabric f(testbed::generate("irregular"));
  const std::string a = f.dir() + "/before.html", b = f.dir() + "/after.html";
  auto r = f.run(ib({"report", "-o", a}), {}, 300);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, a + "\n");
  f.console("PerformanceSet \"ring switch 2\"[3] PortCounters.SymbolErrorCounter=5");
  f.console("Unlink \"ring switch 3\"[1]");  // ring switch 3 [1] -- ring switch 4 [2]
  f.console("Error \"half connected host\"[2] 100");
  r = f.run(ib({"report", "-o", b, "--baseline", a}), {}, 300);
  ASSERT_EQ(r.status, 0) << r.err;
  json d = embedded(slurp(b));
  const json& N = d["nodes"];
  auto name_of = [&](const json& ref) { return N[ref["node"].get<size_t>()]["name"].get<std::string>(); };
  // Symbol errors: the port's counters, beyond the threshold, its link erroring.
  bool symbol = false;
  for (auto& n : N)
    for (auto& p : n["ports"])
      if (n["name"] == "ring switch 2" && p["portNum"] == 3) {
        EXPECT_EQ(p["errors"]["symbolErrorCounter"], 5) << p;
        EXPECT_EQ(p["overThreshold"], json::array({"symbolErrorCounter"}));
        symbol = true;
      }
  EXPECT_TRUE(symbol);
  EXPECT_GE(d["summary"]["errors"]["badPorts"].get<unsigned>(), 1u);
  unsigned erroring = 0, degraded = 0;
  for (auto& l : d["links"]) {
    if (l["status"] == "errors" && (name_of(l["from"]) == "ring switch 2" || name_of(l["to"]) == "ring switch 2")) ++erroring;
    if (l["status"] == "degraded") {
      ++degraded;
      EXPECT_EQ(l["linkWidthActive"], "1x");
      EXPECT_NE(l["why"].get<std::string>().find("link width 1X"), std::string::npos) << l;
    }
  }
  EXPECT_EQ(erroring, 1u);
  EXPECT_EQ(degraded, 1u);
  EXPECT_EQ(d["summary"]["widthDegraded"], 1);
  // The unlinked link gone since the baseline, by both ends; and the link
  // of the node that no longer answers.
  std::set<std::set<std::string>> gone;
  for (auto& g : d["baseline"]["linksGone"])
    gone.insert({g["from"]["name"].get<std::string>() + "[" + std::to_string(g["from"]["portNum"].get<int>()) + "]",
                 g["to"]["name"].get<std::string>() + "[" + std::to_string(g["to"]["portNum"].get<int>()) + "]"});
  EXPECT_EQ(gone, (std::set<std::set<std::string>>{{"ring switch 3[1]", "ring switch 4[2]"},
                                                  {"half connected host[2]", "ring switch 3[6]"}}))
      << d["baseline"];
  EXPECT_EQ(d["baseline"]["linksNew"].size(), 0u);
  bool rose = false;
  for (auto& c : d["baseline"]["countersRose"])
    if (c["counter"] == "symbolErrorCounter" && c["was"] == 0 && c["now"] == 5) rose = true;
  EXPECT_TRUE(rose) << d["baseline"];
  // The node at 100% loss: among those that did not answer, not in the picture's links.
  bool lost = false;
  for (auto& u : d["unanswered"]) {
    if (!u["node"].is_null() && N[u["node"].get<size_t>()]["name"] == "half connected host") lost = true;
    if (u["node"].is_null() && u["what"].get<std::string>().find("DR path") != std::string::npos) lost = true;
  }
  EXPECT_TRUE(lost) << d["unanswered"];
  EXPECT_GE(d["summary"]["scrape"]["unanswered"].get<unsigned>(), 1u);
  // And in the browser: the degraded and erroring links drawn as such.
  EXPECT_EQ(browser(b, artifacts() + "/report_faults.png", "--expect-status degraded --expect-status errors"), 0);
}

// The same fabric gives the same file (SOURCE_DATE_EPOCH fixes the date;
// without it only the date differs), but for the scan's own MAD counts.
TEST(Report, SameFabricSameFile) {
  testbed::Fabric f(testbed::generate("fattree 4"));
  testbed::Env env{{"SOURCE_DATE_EPOCH", "1800000000"}};
  const std::string a = f.dir() + "/1.html", b = f.dir() + "/2.html", c = f.dir() + "/3.html";
  ASSERT_EQ(f.run(ib({"report", "-o", a}), env, 300).status, 0);
  ASSERT_EQ(f.run(ib({"report", "-o", b}), env, 300).status, 0);
  // (The scan's own counts, MADs sent, resends, timeouts, depend on the
  // flow control's probes and the machine's load, as the date on the clock:
  // set aside like it.)
  auto steady = [](std::string s) {
    return std::regex_replace(s, std::regex(R"("MADs":\d+,"timeouts":\d+,"resent":\d+)"), "SCAN");
  };
  std::string pa = steady(slurp(a)), pb = steady(slurp(b));
  EXPECT_NE(pa.find("SCAN"), std::string::npos);
  EXPECT_GT(pa.size(), 1000u);
  // (where they differ, not the whole page)
  size_t at = std::mismatch(pa.begin(), pa.end(), pb.begin(), pb.end()).first - pa.begin();
  EXPECT_EQ(at, pa.size()) << pa.substr(at > 150 ? at - 150 : 0, 300) << "\n---\n"
                           << pb.substr(at > 150 ? at - 150 : 0, 300);
  EXPECT_EQ(pa.size(), pb.size());
  EXPECT_NE(pa.find("\"generated\":\"2027-01-15T08:00:00Z\""), std::string::npos);
  ASSERT_EQ(f.run(ib({"report", "-o", c}), {}, 300).status, 0);
  std::string pc = steady(slurp(c));
  std::regex date(R"(\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\dZ| \d\d:\d\d UTC))");
  EXPECT_EQ(std::regex_replace(pa, date, "DATE"), std::regex_replace(pc, date, "DATE"));
  // The page embeds exactly what --json writes.
  auto r = f.run(ib({"report", "--json"}), env, 300);
  json da = embedded(slurp(a)), dj = json::parse(r.out);
  for (json* d : {&da, &dj}) (*d)["summary"].erase("scrape");
  EXPECT_EQ(da, dj) << json::diff(da, dj).dump().substr(0, 2000);
}

TEST(Report, BadInputGivesOneLine) {
  testbed::Fabric f(testbed::generate("fattree 2"));
  auto one_line = [](const testbed::Result& r, const std::string& what) {
    EXPECT_NE(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  };
  one_line(f.run(ib({"report", "-o", "/nonexistent/dir/x.html"})), "cannot write /nonexistent/dir/x.html");
  ASSERT_EQ(f.sh("echo hello > junk.html").status, 0);
  one_line(f.run(ib({"report", "--baseline", f.dir() + "/junk.html"})), "not an ibtool report");
  one_line(f.run(ib({"report", "--baseline", f.dir() + "/missing.html"})), "cannot read the baseline report");
  ASSERT_EQ(f.sh("printf '<script type=\"application/json\" id=\"ibtool-report-data\">{\"nodes\": 3}</script>' > cut.html").status, 0);
  one_line(f.run(ib({"report", "--baseline", f.dir() + "/cut.html"})), "not an ibtool report");
  // A run that fails leaves the page it was to replace as it was, and no part of a new one.
  ASSERT_EQ(f.sh("echo old > keep.html").status, 0);
  one_line(f.run(ib({"report", "-o", f.dir() + "/keep.html", "--threshold-file", f.dir() + "/missing"})),
           "Cannot read thresholds file");
  EXPECT_EQ(slurp(f.dir() + "/keep.html"), "old\n");
  EXPECT_EQ(f.sh("ls | grep -c part").out, "0\n");
}

// The page in Chromium: no console error, as many items and edges drawn
// as the document has, a click on a node shows its ports, a GUID search
// finds the host; a screenshot as the test's artifact.
TEST(Report, OpensInChromium) {
  testbed::Fabric f(testbed::generate("fattree 4"));
  const std::string page = f.dir() + "/fattree4.html";
  auto r = f.run(ib({"report", "-o", page}), {}, 300);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(browser(page, artifacts() + "/report_fattree4.png", "--max-open-ms 5000"), 0);
}

}  // namespace
