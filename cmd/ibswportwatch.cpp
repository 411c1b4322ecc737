// ibswportwatch: watch one port's counters: data and packet rates per
// interval, and error counters beyond their thresholds (the thresholds file
// format of ibqueryerrors / ibcheckerrors).
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <thread>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/base/error.h"
#include "core/rpc/gmppath.h"
#include "core/health/health.h"
#include "core/out/print.h"
#include "core/health/json_health.h"
#include "core/rpc/rpc.h"
#include "core/transport/open.h"

namespace {

using namespace ibcore;
namespace H = ibcore::health;

// A non-negative amount to the nearest integer, as std::llround does; that
// one call linked libm, which ld.so then loaded at every start of ibtool.
uint64_t rounded(double v) { return uint64_t(v + 0.5); }

class IbSwPortWatch : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_option("-p,--pause", pause_, "seconds between samples (default 1)")->option_text("<seconds>");
    app.add_option("-n,--cycles", cycles_, "number of intervals to watch (default: until interrupted)")
        ->option_text("<n>");
    app.add_option("-T,--threshold-file", threshold_file_,
                   "error thresholds (Name=value lines), default: " + std::string(H::DEFAULT_THRESHOLDS))
        ->option_text("<file>");
    app.add_flag("-G", guid_form_, "the target is a port GUID");
    app.add_option("target", target_, "<lid|guid>")->required();
    app.add_option("port", port_, "<port>")->required();
    ibtool::add_common_options(app, config(), ibtool::opt::Gmp | ibtool::opt::Json);
  }

  // Its work may fail anywhere (discovery, a MAD, a file): the library's report.
  bool reports_errors() const override { return true; }
  // One document on stdout: it has an end only when the watch has one.
  const char* no_json_form() const override {
    return cycles_ < 0 ? "needs -n (a watch without an end is no one JSON document)" : nullptr;
  }
  int run() override {
    if (!thr_.load(threshold_file_) && threshold_file_ != H::DEFAULT_THRESHOLDS)
      throw Error("Cannot read thresholds file " + threshold_file_);
    if (pause_ <= 0) throw Error("--pause must be positive");
    auto owner = ibcore::open_transport(get_end_port(config().ca, config().port), config());
    ibcore::Transport& umad = *owner;
    MadTransactor mad(umad);
    GmpPathResolver res(mad);
    IBPath path = res.resolve(IBPath::from_string(target_, guid_form_ ? IBPath::Form::GUID : IBPath::Form::Auto));
    iba::PMPortCounters q;
    q.set_portSelect(uint8_t(port_));
    auto prev = mad.PerformanceGet(q, path);
    // {"destination", "portNum", "pauseMs", "thresholds", "errorsAtStart":
    // {counter: value beyond its threshold}, "samples": [...]}; the text's
    // first line says the same (the pause in seconds, no thresholds).
    Printer p;
    p.open_object().json_value("destination", [&](JsonOut& j) { path.json(j); });
    p.str(PRINT_FP, nullptr, "%s", path.describe());
    p.uint(PRINT_JSON, "portNum", nullptr, unsigned(port_)).sint(PRINT_FP, nullptr, " port %d", port_);
    p.uint(PRINT_JSON, "pauseMs", nullptr, rounded(pause_ * 1000));
    p.real(PRINT_FP, nullptr, ": watching every %gs", pause_);
    p.json_value(nullptr, [&](JsonOut& j) { json_thresholds(j, thr_); });
    // Errors already beyond threshold when watching starts.
    bool bad = false;
    p.open_object("errorsAtStart");
    for (int i = 0; i < H::N_ERR; ++i) {
      uint64_t v = H::ERROR_COUNTERS.value(prev, i);
      if (!thr_.exceeds(i, v)) continue;
      if (!bad) p.text("; errors beyond threshold:");
      bad = true;
      p.uint(PRINT_ANY, H::ERROR_COUNTERS.field(i), (" " + std::string(H::ERROR_COUNTERS.name(i)) + "=%u").c_str(), v);
    }
    p.close_object().text("\n").open_array("samples");
    std::fflush(stdout);
    try {
      watch(mad, q, path, prev, p, bad);
    } catch (...) {
      // What was read stays one whole document; the failure goes to stderr.
      p.close_all();
      throw;
    }
    p.close_array().close_object().finish();
    return bad ? 1 : 0;
  }

  // A sample an interval: {"elapsedMs", "rates": {data counter: bytes or
  // packets a second}, "errors": {counter: {"increase", "saturated"}} (the
  // counters whose increase is beyond the threshold)}; the text: a line.
  void watch(MadTransactor& mad, const iba::PMPortCounters& q, const IBPath& path, iba::PMPortCounters prev,
             Printer& p, bool& bad) {
    auto t0 = std::chrono::steady_clock::now(), tprev = t0;
    for (long c = 0; cycles_ < 0 || c < cycles_; ++c) {
      std::this_thread::sleep_for(std::chrono::duration<double>(pause_));
      auto cur = mad.PerformanceGet(q, path);
      auto now = std::chrono::steady_clock::now();
      double dt = std::chrono::duration<double>(now - tprev).count();
      double at = std::chrono::duration<double>(now - t0).count();
      p.open_object().uint(PRINT_JSON, "elapsedMs", nullptr, rounded(at * 1000));
      p.real(PRINT_FP, nullptr, "%.1fs:", at).open_object("rates");
      for (int i = 0; i < 4; ++i) {
        uint64_t a = H::DATA_COUNTERS.value(prev, i), z = H::DATA_COUNTERS.value(cur, i);
        double d = z >= a ? double(z - a) : 0.0;
        if (i < 2) d *= 4;  // words -> bytes
        p.uint(PRINT_JSON, H::DATA_COUNTERS.field(i), nullptr, rounded(d / dt));
        p.real(PRINT_FP, nullptr, (" " + std::string(H::DATA_COUNTERS.name(i)) + (i < 2 ? " %.0fB/s" : " %.0f/s")).c_str(),
               d / dt);
      }
      p.close_object().open_object("errors");
      bool any = false;
      for (int i = 0; i < H::N_ERR; ++i) {
        uint64_t a = H::ERROR_COUNTERS.value(prev, i), z = H::ERROR_COUNTERS.value(cur, i);
        uint64_t d = z >= a ? z - a : 0;
        if (!thr_.exceeds(i, d)) continue;
        if (!any) p.text("; errors:");
        any = true;
        p.open_object(H::ERROR_COUNTERS.field(i)).uint(PRINT_ANY, "increase", (" " + std::string(H::ERROR_COUNTERS.name(i)) + " +%u").c_str(), d);
        p.boolean(PRINT_ANY, "saturated", "%s", z == H::ERROR_COUNTERS.max(i), " (saturated)", "").close_object();
      }
      p.close_object().close_object().text("\n");
      std::fflush(stdout);
      bad = bad || any;
      prev = cur;
      tprev = now;
    }
  }

private:
  double pause_ = 1;
  long cycles_ = -1;
  std::string threshold_file_ = H::DEFAULT_THRESHOLDS;
  bool guid_form_ = false;
  std::string target_;
  int port_ = 0;
  H::Thresholds thr_;
};

}  // namespace

IBTOOL_COMMAND({.name = "ibswportwatch",
                .aliases = {"ibswportwatch.pl"},
                .summary = "watch one port's traffic rates and error counters",
                .description =
                    "Reads the PortCounters of <port> of the node at <lid|guid> every -p seconds (the PM path "
                    "from an SA PathRecord).  The first line names the path and lists the error counters "
                    "already beyond their thresholds; then one line per interval: seconds since start, "
                    "PortXmitData/PortRcvData in bytes per second and PortXmitPkts/PortRcvPkts per second, "
                    "followed by \"; errors:\" and each error counter whose increase in the interval exceeds its "
                    "threshold (the thresholds file of ibqueryerrors/ibcheckerrors).  -n stops after that many "
                    "intervals.  Exit status 1 when any error was beyond threshold.  --json (-j; --pretty indents; "
                    "needs -n): one document (its members and types: --json-schema), written when the last interval ends (a read that fails part way ends the "
                    "document with the samples read, the failure on stderr).",
                .usage = "[options] <lid|guid> <port>",
                .examples = "  ibswportwatch -p 5 -n 12 2 3",
                .make = [] { return std::make_unique<IbSwPortWatch>(); }});
