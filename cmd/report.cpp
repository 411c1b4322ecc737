// report: one self-contained HTML page about the fabric (issue 37): a
// summary, the topology picture, sortable tables and the data itself.
// Everything is gathered and laid out in core/report; this file parses the
// options, picks the file and writes.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/error.h"
#include "core/out/json.h"
#include "core/out/log.h"
#include "core/out/textout.h"
#include "core/report/compare.h"
#include "core/report/layout.h"
#include "core/report/page.h"
#include "core/report/report.h"

namespace {

using namespace ibcore;
namespace R = ibcore::reporting;

// The time the report is of: now, or SOURCE_DATE_EPOCH when set (the
// reproducible-builds convention: two runs then write the same bytes).
std::time_t report_time() {
  if (const char* e = std::getenv("SOURCE_DATE_EPOCH"); e && *e) {
    char* end = nullptr;
    long long v = std::strtoll(e, &end, 10);
    if (end && !*end && v >= 0) return std::time_t(v);
  }
  return std::time(nullptr);
}

std::string utc(std::time_t t, const char* fmt) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[64];
  std::strftime(b, sizeof b, fmt, &tm);
  return b;
}

class Report : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_option("-o,--output", out_, "the page to write (default ibfabric-<date>.html; with --json: stdout)")
        ->option_text("<file>");
    app.add_option("--baseline", baseline_,
                   "an earlier report (its HTML page or --json document): mark the links gone or new and the "
                   "error counters that rose since")
        ->option_text("<old.html>");
    app.add_option("--threshold-file", thresholds_,
                   "error thresholds (Name=value lines), default: " + std::string(health::DEFAULT_THRESHOLDS))
        ->option_text("<file>");
    ibtool::add_common_options(app, config(),
                               ibtool::opt::Mad | ibtool::opt::MKey | ibtool::opt::SMKey | ibtool::opt::SaPath |
                                   ibtool::opt::Discovery | ibtool::opt::NodeNameMap | ibtool::opt::Outstanding |
                                   ibtool::opt::Json);
  }

private:
  bool reports_errors() const override { return true; }

  int run() override {
    const std::time_t now = report_time();
    // (--json: the report's document itself on stdout, no page)
    const bool json_only = config().json || config().pretty;
    // The output and the baseline are checked before the fabric is asked
    // anything: a bad one costs one line, not a scan.
    std::string file = out_;
    if (file.empty() && !json_only) file = "ibfabric-" + utc(now, "%Y-%m-%d") + ".html";
    std::optional<R::Baseline> old;
    if (!baseline_.empty()) old = R::load_report(baseline_);
    // Written beside the file and renamed over it at the end: a run that
    // fails leaves neither a half page nor an earlier report destroyed.
    std::FILE* f = stdout;
    const std::string tmp = file + ".part" + std::to_string(::getpid());
    if (!file.empty() && file != "-") {
      f = std::fopen(tmp.c_str(), "w");
      if (!f) throw Error("cannot write " + file + ": " + std::strerror(errno));
    }
    struct Closer {
      std::FILE* f;
      std::string tmp;
      ~Closer() {
        if (f == stdout) return;
        std::fclose(f);
        std::remove(tmp.c_str());
      }
    } closer{f, tmp};

    R::GatherOptions go;
    go.thresholds_file = thresholds_;
    R::Data d = R::gather(config(), go);
    R::Layout l = R::lay_out(d.db, d.links);
    std::optional<R::Comparison> cmp;
    if (old) cmp = R::compare(d, *old);

    std::string json;
    {
      TextOut o(json);
      JsonOut j(o, config().pretty);
      R::write_json(j, d, l, cmp ? &*cmp : nullptr, utc(now, "%Y-%m-%dT%H:%M:%SZ"));
      j.finish();
    }
    const std::string& bytes = json_only ? json : R::page(json, "Fabric report " + utc(now, "%Y-%m-%d %H:%M UTC"));
    if (std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fflush(f) != 0)
      throw Error("cannot write " + (file.empty() ? std::string("stdout") : file) + ": " + std::strerror(errno));
    if (f != stdout) {
      std::fclose(f);
      closer.f = stdout;
      if (std::rename(tmp.c_str(), file.c_str()) != 0) {
        int e = errno;
        std::remove(tmp.c_str());
        throw Error("cannot write " + file + ": " + std::strerror(e));
      }
    }
    if (config().verbose)
      log::info("I: report: %zu nodes, %zu links, %llu MADs (%llu timeouts), %.3f s%s%s\n", d.db.node_count(),
                d.links.size(), (unsigned long long)d.mads, (unsigned long long)d.timeouts, d.seconds,
                file.empty() || file == "-" ? "" : ", written to ", file == "-" ? "" : file.c_str());
    if (!json_only && file != "-") std::printf("%s\n", file.c_str());
    return 0;
  }

  std::string out_, baseline_;
  std::string thresholds_ = health::DEFAULT_THRESHOLDS;
};

}  // namespace

IBTOOL_COMMAND({.name = "report",
                .aliases = {},
                .summary = "write one self-contained HTML page about the fabric: summary, picture, tables, data",
                .description =
                    "Discovers the fabric, scans its error counters as ibqueryerrors does, checks every link "
                    "as ibcheckstate, ibcheckwidth and ibchecknet's speed check do, reads the master SM's "
                    "SMInfo, lays the topology out (switches in tiers by their distance from the channel "
                    "adapters, hosts folded behind their leaf switch) and writes one HTML file that loads "
                    "nothing from anywhere: a summary, the picture (links by width, coloured by speed, "
                    "degraded, down and erroring links marked; search by name, GUID or LID; a click on a "
                    "node shows its ports), sortable tables of the errors by port, the degraded links and "
                    "the nodes that did not answer, and the whole result as JSON in the page's "
                    "#ibtool-report-data element.  The file's name is printed on stdout.  --json writes "
                    "only that document (to stdout, or -o).  --baseline OLD marks what changed since an "
                    "earlier report: links gone or new, error counters that rose.  SOURCE_DATE_EPOCH, when "
                    "set, is the report's date.",
                .usage = "[options]",
                .examples = "  report                          # ibfabric-<date>.html\n"
                            "  report -o today.html --baseline yesterday.html\n"
                            "  report --json | jq .summary",
                .make = [] { return std::make_unique<Report>(); }});
