// ibping: ping a port through the OpenFabrics vendor class 0x32 (OUI
// 0x001405 unless -o): the client sends VendGet(OFAPing) requests and
// prints the host name each reply carries and the round trip time, ping
// style; -S answers such requests with this host's name.  The path to the
// target comes from an SA PathRecord (core/rpc/gmppath.h).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "cmd/common.h"
#include "cmd/ofavendor.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/base/error.h"
#include "core/rpc/gmppath.h"
#include "core/out/print.h"
#include "core/rpc/rpc.h"
#include "core/rpc/server.h"
#include "core/transport/transport.h"
#include "iba/vendor.h"
#include "core/out/log.h"

namespace {

using Clock = std::chrono::steady_clock;

std::atomic<bool> g_stop{false};
void on_sigint(int) { g_stop = true; }

std::string ms3(uint64_t us) {
  char b[48];
  std::snprintf(b, sizeof b, "%llu.%03llu", (unsigned long long)(us / 1000), (unsigned long long)(us % 1000));
  return b;
}

class IbPing : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_option("-c,--count", count_, "stop after count packets")->option_text("<num>");
    app.add_flag("-f,--flood", flood_, "flood destination");
    app.add_option("-o,--oui", oui_str_, "use specified OUI number")->option_text("<val>");
    app.add_flag("-S,--Server", server_, "start in server mode");
    flags_.bind(app, ibtool::tflag::Lid | ibtool::tflag::Guid | ibtool::tflag::SmPort);
    ibtool::add_common_options(app, config(), ibtool::opt::Gmp | ibtool::opt::Json | ibtool::opt::Strict);
    app.add_option("dest", args_, "<dest lid|guid>");
    app.callback([this] {
      if (!server_ && args_.size() != 1) throw CLI::ValidationError("dest", "one destination is required");
    });
  }

  bool reports_errors() const override { return true; }

  int run() override {
    oui_ = ibtool::ofa::parse_oui(oui_str_);
    return server_ ? serve() : client();
  }

private:
  int serve() {
    ibtool::Session s = ibtool::open_session(config());
    const std::string me = ibcore::ofa::host_and_domain();
    return ibcore::ofa::serve(*s.umad, iba::OFA_PING_CLASS, oui_, iba::OFAPing::DESC.size,
                              [&](uint16_t) { return me; });
  }

  int client() {
    auto t = ibtool::open_gmp_target(config(), flags_, args_, 0, ibtool::ofa::CLIENT_TARGET);
    ibcore::MadTransactor& mad = t.mad();
    ibcore::IBPath path = t.path;
    // One ping is one MAD: a lost reply is counted, not resent.
    path.retries = 0;
    const std::string dest = "Lid " + std::to_string(path.DLID);

    std::signal(SIGINT, on_sigint);
    std::signal(SIGTERM, on_sigint);
    uint64_t sent = 0, received = 0, total_us = 0, min_us = ~uint64_t(0), max_us = 0;
    std::string host;
    // {"LID", "host", "pings": [{"seq", "host", "timeUs"} or {"seq",
    // "lost": true}], "transmitted", "received", "lossPercent", "timeMs",
    // "rttMinUs", "rttAvgUs", "rttMaxUs"}; the text: a line a reply, then
    // the statistics.  "host" names the first reply's host, so the
    // document opens at the first reply (or the end), after the lost pings
    // before it are counted; the document is written when the pings end.
    ibcore::Printer p(stdout, ibcore::Printer::Doc::Whole);
    uint64_t lost_before = 0;
    bool opened = false;
    auto open_doc = [&] {
      opened = true;
      p.open_object().uint(ibcore::PRINT_JSON, "LID", nullptr, path.DLID).str(ibcore::PRINT_JSON, "host", nullptr, host);
      p.open_array("pings");
      for (uint64_t i = 1; i <= lost_before; ++i)
        p.open_object().uint(ibcore::PRINT_JSON, "seq", nullptr, i).boolean(ibcore::PRINT_JSON, "lost", nullptr, true).close_object();
    };
    std::vector<uint8_t> pl(iba::OFAPing::DESC.size, 0);
    ibcore::MadRequest req;
    req.cls = iba::find_class(iba::OFA_PING_CLASS);
    req.method = iba::method::GET;
    req.attr_id = iba::AttrId<iba::OFAPing>::value;
    req.oui = oui_;
    req.payload = pl;
    const auto start = Clock::now();
    while (!g_stop && (count_ == 0 || sent < count_)) {
      auto t0 = Clock::now();
      ++sent;
      try {
        auto rep = mad.call(req, path);
        uint64_t us = uint64_t(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count());
        // The statistics name the host of the first reply.
        std::string from = ibcore::ofa::text_of(ibcore::MadTransactor::payload_of(rep));
        if (host.empty()) host = from;
        if (!opened) open_doc();
        ++received;
        total_us += us;
        min_us = std::min(min_us, us);
        max_us = std::max(max_us, us);
        // "Pong from <host> (<dest>): time <ms> ms"; flooding is quiet:
        // only the statistics, as the reference does.
        p.open_object().uint(ibcore::PRINT_JSON, "seq", nullptr, sent);
        if (!flood_) p.text("Pong from ");
        p.str(flood_ ? ibcore::PRINT_JSON : ibcore::PRINT_ANY, "host", "%s", from);
        if (!flood_) p.text(" (%s): time %s ms\n", dest.c_str(), ms3(us).c_str());
        p.uint(ibcore::PRINT_JSON, "timeUs", nullptr, us).close_object();
        if (!flood_) std::fflush(stdout);
      } catch (const ibcore::MADError& e) {
        if (g_stop) break;
        ibcore::log::text(ibcore::log::Level::error, e.dump_str(config().verbose));
        if (!opened) ++lost_before;
        else p.open_object().uint(ibcore::PRINT_JSON, "seq", nullptr, sent).boolean(ibcore::PRINT_JSON, "lost", nullptr, true).close_object();
      }
      // One ping a second unless flooding.
      if (!flood_)
        while (!g_stop && Clock::now() < t0 + std::chrono::seconds(1))
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    uint64_t total_ms =
        uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count());
    if (!received) min_us = 0;
    uint64_t loss = sent ? (sent - received) * 100 / sent : 0;
    uint64_t avg_us = received ? total_us / received : 0;
    if (!opened) open_doc();
    p.close_array();
    p.text("\n--- %s (%s) ibping statistics ---\n", host.c_str(), dest.c_str());
    p.uint(ibcore::PRINT_ANY, "transmitted", "%u packets transmitted, ", sent);
    p.uint(ibcore::PRINT_ANY, "received", "%u received, ", received);
    p.uint(ibcore::PRINT_ANY, "lossPercent", "%u%% packet loss, ", loss);
    p.uint(ibcore::PRINT_ANY, "timeMs", "time %u ms\n", total_ms);
    p.uint(ibcore::PRINT_JSON, "rttMinUs", nullptr, min_us).uint(ibcore::PRINT_JSON, "rttAvgUs", nullptr, avg_us);
    p.uint(ibcore::PRINT_JSON, "rttMaxUs", nullptr, max_us);
    p.text("rtt min/avg/max = %s/%s/%s ms\n", ms3(min_us).c_str(), ms3(avg_us).c_str(), ms3(max_us).c_str());
    p.close_object().finish();
    std::fflush(stdout);
    return lost_all(sent, received);
  }

  // --strict: no reply at all is a failure.
  int lost_all(uint64_t sent, uint64_t received) const {
    return sent && !received ? ibtool::strict_exit(config(), 0, "100% packet loss") : 0;
  }

  uint64_t count_ = 0;
  bool flood_ = false, server_ = false;
  ibtool::TargetFlags flags_;
  std::string oui_str_;
  uint32_t oui_ = iba::OFA_OUI;
  std::vector<std::string> args_;
};

}  // namespace

IBTOOL_COMMAND({.name = "ibping",
                .aliases = {},
                .summary = "ping a port with OpenFabrics vendor MADs (client and -S server)",
                .description =
                    "Sends OpenFabrics ping requests (vendor class 0x32, OUI 0x001405 unless -o) to a "
                    "port once a second (back to back with -f) and prints the host name each reply "
                    "carries with the round trip time, then ping-like statistics after -c packets or "
                    "an interrupt.  -S runs the server: it answers every ping with this host's name.  "
                    "--json (-j; --pretty indents), written when the pings end: one document (its members and types: --json-schema).",
                .usage = "[options] <dest lid|guid>",
                .examples = "  ibping -S          # server\n"
                            "  ibping -c 5 12     # five pings to lid 12\n"
                            "  ibping -G 0x0002c90300001491",
                .make = [] { return std::make_unique<IbPing>(); }});
