// exporter: the fabric's port counters and link states as Prometheus
// metrics, over HTTP (/metrics) or once on stdout (node_exporter's textfile
// collector).  The scrape itself is core/health/fabricexport (discovery,
// the PM reads the collectors that are on want, the exposition text); this
// file declares the options (the collectors, node_exporter's
// --collector.NAME / --no-collector.NAME; the port selection; the budget)
// and serves the scrapes through the HTTP module.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <string>

#include "cmd/common.h"
#include "cmd/http/http_server.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/health/fabricexport.h"
#include "core/out/log.h"
#include "core/out/promtext.h"

namespace {

using namespace ibcore;
namespace H = ibcore::health;

class Exporter : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_option("--listen", listen_, "serve /metrics over HTTP on ADDR:PORT (default 127.0.0.1:9315)")
        ->option_text("<addr:port>")
        ->check(CLI::Validator(
            [](std::string& s) {
              return split_listen(s) ? std::string() : "'" + s + "' is not ADDR:PORT (127.0.0.1:9315, [::1]:9315)";
            },
            ""));
    app.add_flag("--once", once_, "scrape once and write the metrics to stdout (textfile collector)");
    app.callback([this] {
      if (once_ && !listen_.empty())
        throw CLI::ValidationError("--once", "cannot be given with --listen (--once writes one scrape to stdout)");
    });
    app.add_option("--scrape-timeout", budget_s_,
                   "seconds a scrape may take: unanswered queries are asked again until then (default 8, "
                   "below Prometheus' default scrape_timeout of 10; less when the server's request says it "
                   "waits less)")
        ->option_text("<seconds>");
    app.add_option("--down-ports", down_ports_,
                   "state: a Down port exports its state and ib_port_info only (default); all: its counters too")
        ->option_text("<state|all>")
        ->check(CLI::one_of({"state", "all"}));
    for (unsigned i = 0; i < H::N_COLLECTORS; ++i) {
      const H::CollectorDesc& c = H::kCollectors[i];
      app.add_flag_callback(std::string("--collector.") + c.name, [this, i] { explicit_[i] = 1; },
                            std::string(c.help) + (c.on_by_default ? " (default: on)" : " (default: off)"));
      app.add_flag_callback(std::string("--no-collector.") + c.name, [this, i] { explicit_[i] = 0; },
                            std::string("switch the ") + c.name + " collector off");
    }
    app.add_flag("--collector.disable-defaults", disable_defaults_,
                 "start from no collector: only those given with --collector.NAME are on");
    app.add_flag_callback("--details", [this] { explicit_[H::C_DETAILS] = 1; }, "the same as --collector.details");
    app.add_option("--port-type", port_type_, "the ports exported: all (default), switch (switches' ports) or ca")
        ->option_text("<all|switch|ca>")
        ->check(CLI::one_of({"all", "switch", "ca"}));
    app.add_option("--node-regex", node_regex_,
                   "export only the ports of nodes whose name (the node description, or its node-name-map name) "
                   "matches this regular expression (PCRE; unanchored)")
        ->option_text("<regex>");
    app.add_flag("--reset-saturated", reset_, "reset the PortCounters counters found at their maximum");
    app.add_option("--forget-after", forget_after_s_,
                   "seconds a port found by an earlier scrape and not by this one stays exported with "
                   "ib_port_scrape_ok 0 and ib_port_missing_seconds (default 3600; 0: at once)")
        ->option_text("<seconds>")
        ->check(seconds_within(0, 1e9));
    ibtool::add_common_options(app, config(), ibtool::opt::Mad | ibtool::opt::MKey | ibtool::opt::NodeNameMap |
                                        ibtool::opt::Outstanding | ibtool::opt::SaPath | ibtool::opt::SMKey);
  }

  int run() override {
    if (!(budget_s_ > 0) || budget_s_ > 3600) {
      ibcore::log::error("exporter: --scrape-timeout wants seconds between 0 and 3600, not %g\n", budget_s_);
      return 2;
    }
    H::ExportOptions o;
    o.forget_after_s = forget_after_s_;
    for (unsigned i = 0; i < H::N_COLLECTORS; ++i)
      o.on[i] = explicit_[i] >= 0 ? explicit_[i] == 1 : !disable_defaults_ && H::kCollectors[i].on_by_default;
    o.reset_saturated = reset_;
    o.down_ports_all = down_ports_ == "all";
    o.port_type = port_type_;
    o.node_regex = node_regex_;
    try {
      export_ = std::make_unique<H::FabricExport>(config(), o);
    } catch (const std::exception& e) {
      ibcore::log::error("exporter: --node-regex: %s\n", e.what());
      return 2;
    }
    if (once_) {
      prom::Writer out([](const char* d, size_t n) { std::fwrite(d, 1, n, stdout); });
      export_->scrape(out, budget_s_);
      return 0;
    }
    auto [host, port] = split_listen(listen_.empty() ? "127.0.0.1:9315" : listen_).value();
    ibtool_http_serve_fn serve = load_http();
    if (!serve) return 1;
    char err[256] = "";
    // (an IPv6 address in brackets, as a URL writes it)
    bool v6 = host.find(':') != std::string::npos;
    serving_ = "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + "/metrics";
    int rc = serve(host.c_str(), port, &Exporter::handle, this, err, sizeof err);
    if (rc) ibcore::log::error("exporter: %s\n", err);
    return rc ? 1 : 0;
  }

private:
  // A number of seconds in [lo, hi].
  static CLI::Validator seconds_within(double lo, double hi) {
    return CLI::Validator(
        [lo, hi](std::string& s) {
          char* end = nullptr;
          double v = std::strtod(s.c_str(), &end);
          return !s.empty() && end && !*end && v >= lo && v <= hi ? std::string()
                                                                   : "'" + s + "' is not a number of seconds";
        },
        "");
  }

  // ADDR:PORT (an IPv6 address in brackets: [::1]:9315) as the address
  // and the port, or nullopt.
  static std::optional<std::pair<std::string, int>> split_listen(const std::string& s) {
    size_t c = s.rfind(':');
    uint64_t p = 0;
    if (c == std::string::npos || !ibtool::parse_int(s.substr(c + 1), p) || p == 0 || p > 65535) return std::nullopt;
    std::string host = s.substr(0, c);
    if (host.size() > 1 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    else if (host.find(':') != std::string::npos) return std::nullopt;  // (an IPv6 address wants its brackets)
    if (host.empty()) return std::nullopt;
    return std::pair{host, int(p)};
  }

  // The HTTP module (cmd/http/http_server.cpp): next to the binary (the
  // build tree), else where it is installed, found from the binary's own
  // directory (so that a tree installed under another root, `dpkg --root`,
  // finds its own), else at the configured absolute path.
  static ibtool_http_serve_fn load_http() {
    std::string here;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
      here.assign(exe, size_t(n));
      here = here.substr(0, here.rfind('/') + 1);
    }
    std::string tried;
    for (std::string dir : {here, here + IBTOOL_PLUGIN_FROM_EXE + "/", std::string(IBTOOL_PLUGIN_DIR) + "/"}) {
      std::string lib = dir + "libibtool_http.so";
      if (void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL))
        if (void* f = dlsym(h, "ibtool_http_serve")) return reinterpret_cast<ibtool_http_serve_fn>(f);
      const char* e = dlerror();
      if (!tried.empty()) tried += "; ";
      tried += e ? e : lib.c_str();
    }
    ibcore::log::error("exporter: --listen needs the HTTP module libibtool_http.so (package ibtool-exporter): %s\n",
                       tried.c_str());
    return nullptr;
  }

  // A GET from the HTTP module (one of its threads): /metrics scrapes,
  // written out as it is formatted, one scrape at a time (they share the
  // port's MAD window).
  std::string serving_;  // the URL, for the line once the server listens
  static int handle(void* ctx, const char* path, double scrape_timeout, ibtool_http_write write, void* w) {
    auto* self = static_cast<Exporter*>(ctx);
    if (!path) {  // listening
      ibcore::log::info("exporter: serving %s\n", self->serving_.c_str());
      return 0;
    }
    if (std::strcmp(path, "/metrics") != 0) {
      static const char text[] = "ibtool exporter: metrics at /metrics\n";
      write(w, text, sizeof text - 1);
      return std::strcmp(path, "/") == 0 ? 200 : 404;
    }
    std::lock_guard<std::mutex> l(self->one_at_a_time_);
    prom::Writer out([&](const char* d, size_t n) { write(w, d, n); });
    // Within the time the Prometheus server waits, less half a second for
    // the answer to travel (and never below half of it).
    double budget = self->budget_s_;
    if (scrape_timeout > 0) budget = std::min(budget, std::max(scrape_timeout - 0.5, scrape_timeout / 2));
    self->export_->scrape(out, budget);
    return 200;
  }

  std::string listen_;
  bool once_ = false, reset_ = false;
  // Collectors given on the line (-1 not given, 0 off, 1 on).
  std::array<int, H::N_COLLECTORS> explicit_ = [] {
    std::array<int, H::N_COLLECTORS> a;
    a.fill(-1);
    return a;
  }();
  bool disable_defaults_ = false;
  std::string port_type_ = "all", node_regex_;
  double budget_s_ = 8, forget_after_s_ = 3600;
  std::string down_ports_ = "state";
  std::unique_ptr<H::FabricExport> export_;
  std::mutex one_at_a_time_;
};

}  // namespace

IBTOOL_COMMAND({.name = "exporter",
                .aliases = {},
                .summary = "serve the fabric's port counters and link states as Prometheus metrics",
                .description =
                    "Each scrape discovers the fabric and reads the ports' counters in parallel, with as few PM "
                    "MADs as each PMA allows and only those the collectors that are on want (state, errors and "
                    "scrape by default).  Unanswered queries are asked again until the scrape's budget "
                    "(--scrape-timeout) is spent; what could still not be read is counted (ib_port_scrape_ok 0) "
                    "and logged, and a port found before and not now stays visible (ib_port_missing_seconds).  "
                    "--listen serves GET /metrics; --once writes one scrape to stdout (node_exporter's textfile "
                    "collector).  The collectors, the metrics and where each counter comes from: exporter(8).",
                .usage = "[options] [--once | --listen ADDR:PORT] [--scrape-timeout SECONDS] [--down-ports state|all] "
                         "[--[no-]collector.NAME]... [--port-type all|switch|ca] [--node-regex REGEX]",
                .examples = "  exporter --listen 127.0.0.1:9315\n"
                            "  exporter --listen 127.0.0.1:9315 --collector.data --collector.congestion\n"
                            "  exporter --once --collector.disable-defaults --collector.errors --port-type switch\n"
                            "  exporter --once --collector.vl --port-type switch\n"
                            "  exporter --once > /var/lib/node_exporter/textfile/ib.prom.$$ && "
                            "mv /var/lib/node_exporter/textfile/ib.prom.$$ /var/lib/node_exporter/textfile/ib.prom",
                .make = [] { return std::make_unique<Exporter>(); },
                .own = true});
