#include "core/rpc/ofavendor.h"

#include <unistd.h>

#include <atomic>
#include <csignal>

#include "core/base/error.h"
#include "core/base/textfile.h"
#include "core/out/log.h"
#include "core/rpc/server.h"
#include "iba/mad.h"

namespace ibcore::ofa {

std::string host_and_domain() {
  char h[256] = {}, d[256] = {};
  gethostname(h, sizeof h - 1);
  if (getdomainname(d, sizeof d - 1) != 0) d[0] = 0;
  return d[0] ? std::string(h) + "." + d : std::string(h);
}

std::string cpu_lines(std::string_view text) {
  std::string out, model, mhz;
  int cpu = -1;
  auto flush = [&] {
    if (cpu >= 0) out += "cpu " + std::to_string(cpu) + ": model " + model + " MHZ " + mhz + "\n";
    model.clear();
    mhz.clear();
  };
  for_each_line(text, [&](std::string_view line) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos) return;
    std::string_view key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.remove_suffix(1);
    std::string val(line.substr(colon + 1));
    if (key == "processor") {
      flush();
      cpu = std::stoi(val);
    } else if (key == "model name") {
      model = val;
    } else if (key == "cpu MHz") {
      mhz = val;
    }
  });
  flush();
  return out;
}

std::string cpu_info() {
  std::string text;
  read_file("/proc/cpuinfo", text);
  return cpu_lines(text);
}

std::string text_of(std::span<const uint8_t> data) {
  size_t n = 0;
  while (n < data.size() && data[n]) ++n;
  return std::string(reinterpret_cast<const char*>(data.data()), n);
}

std::vector<uint8_t> payload_of_text(const std::string& s, size_t n) {
  std::vector<uint8_t> p(n, 0);
  for (size_t i = 0; i < s.size() && i + 1 < n; ++i) p[i] = uint8_t(s[i]);
  return p;
}

namespace {
std::atomic<bool> g_server_stop{false};
}  // namespace

int serve(Transport& t, uint8_t cls, uint32_t oui, size_t payload_size,
          const std::function<std::string(uint16_t attr)>& answer) {
  MadServer srv(t, cls, 1, iba::M_GET, oui);
  srv.set_trace(t.settings().debug);
  struct sigaction sa {};
  sa.sa_handler = [](int) { g_server_stop = true; };
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  while (!g_server_stop) {
    IncomingMad in;
    // A bounded wait, so a signal is seen even where it does not interrupt
    // the wait (umad2sim's read).
    if (!srv.recv(in, 250)) continue;
    try {
      auto req = srv.parse_request(in);
      srv.send_reply(req, payload_of_text(answer(req.attr_id), payload_size));
    } catch (const MADError& e) {
      if (e.reply_status || log::verbosity())
        log::text(log::Level::error, e.dump_str(log::verbosity()));
      if (e.reply_status) srv.send_error_reply(in, e.reply_status);
    } catch (const std::exception& e) {
      // Whatever one request does wrong, the server goes on serving.
      report(e);
    }
  }
  return 0;
}

}  // namespace ibcore::ofa
