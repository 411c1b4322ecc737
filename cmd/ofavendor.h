// What the OpenFabrics ping (0x32) and sysstat (0x33) servers answer, and
// how their clients read a reply: shared by ibping and ibsysstat.
#pragma once

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <functional>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cmd/common.h"
#include "cmd/target.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/rpc/rpc.h"
#include "core/rpc/server.h"
#include "core/base/textfile.h"
#include "core/transport/transport.h"
#include "iba/vendor.h"
#include "core/out/log.h"

namespace ibtool::ofa {

// "host.domain": the host name and the NIS domain name as getdomainname
// reports it ("(none)" when unset; no dot when it is empty), which is what
// both servers answer.
inline std::string host_and_domain() {
  char h[256] = {}, d[256] = {};
  gethostname(h, sizeof h - 1);
  if (getdomainname(d, sizeof d - 1) != 0) d[0] = 0;
  return d[0] ? std::string(h) + "." + d : std::string(h);
}

// One line per processor of a /proc/cpuinfo text:
// "cpu N: model <model name> MHZ <cpu MHz>\n", each value as it follows the
// ':' (its leading blank kept).
inline std::string cpu_lines(std::string_view text) {
  std::string out, model, mhz;
  int cpu = -1;
  auto flush = [&] {
    if (cpu >= 0) out += "cpu " + std::to_string(cpu) + ": model " + model + " MHZ " + mhz + "\n";
    model.clear();
    mhz.clear();
  };
  ibcore::for_each_line(text, [&](std::string_view line) {
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

inline std::string cpu_info() {
  std::string text;
  ibcore::read_file("/proc/cpuinfo", text);
  return cpu_lines(text);
}

// A reply's text: the NUL terminated string at the start of the data area.
inline std::string text_of(std::span<const uint8_t> data) {
  size_t n = 0;
  while (n < data.size() && data[n]) ++n;
  return std::string(reinterpret_cast<const char*>(data.data()), n);
}

// Text as a reply payload of n bytes (cut to leave the terminating NUL).
inline std::vector<uint8_t> payload_of_text(const std::string& s, size_t n) {
  std::vector<uint8_t> p(n, 0);
  for (size_t i = 0; i < s.size() && i + 1 < n; ++i) p[i] = uint8_t(s[i]);
  return p;
}

// The server loop both commands share: register for (cls, version 1, Get,
// oui), answer every request with answer(attribute id) as the reply text
// (payload_size bytes), refuse what the class does not define with an error
// reply, drop MADs of other classes or OUIs (under umad2sim a server that
// is the node's SM client is handed MADs of any class).  SIGINT/SIGTERM end
// it cleanly (status 0): the port is closed, so a simulator detaches it.
inline std::atomic<bool> g_server_stop{false};
inline int serve(ibcore::Transport& t, uint8_t cls, uint32_t oui, size_t payload_size,
                 const std::function<std::string(uint16_t attr)>& answer) {
  ibcore::MadServer srv(t, cls, 1, iba::M_GET, oui);
  srv.set_trace(t.settings().debug);
  struct sigaction sa {};
  sa.sa_handler = [](int) { g_server_stop = true; };
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  while (!g_server_stop) {
    ibcore::IncomingMad in;
    // A bounded wait, so a signal is seen even where it does not interrupt
    // the wait (umad2sim's read).
    if (!srv.recv(in, 250)) continue;
    try {
      auto req = srv.parse_request(in);
      srv.send_reply(req, payload_of_text(answer(req.attr_id), payload_size));
    } catch (const ibcore::MADError& e) {
      if (e.reply_status || ibcore::log::verbosity())
        ibcore::log::text(ibcore::log::Level::error, e.dump_str(ibcore::log::verbosity()));
      if (e.reply_status) srv.send_error_reply(in, e.reply_status);
    } catch (const std::exception& e) {
      // Whatever one request does wrong, the server goes on serving.
      ibcore::report(e);
    }
  }
  return 0;
}

// The -o OUI (default the OFA one).  A bad one ends with "E: bad OUI <s>"
// and status 2.
inline uint32_t parse_oui(const std::string& s) {
  uint64_t v = iba::OFA_OUI;
  if (!s.empty() && (!ibtool::parse_int(s, v) || v > 0xffffff)) throw ibtool::ExitFail{2, "bad OUI " + s};
  return uint32_t(v);
}

// How the clients' reference tools fail on their destination: a LID is sent
// to as given even when the SA has no PathRecord for it (ibping counts the
// lost pings, ibsysstat times out, as the reference's do); a GUID needs its
// PathRecord ("can't resolve destination port" with our E: lines first); a
// port that cannot be opened ends with our E: lines and 255.
inline constexpr ibtool::TargetStyle CLIENT_TARGET{.iberror_on_open = false,
                                                    .direct = ibtool::TargetStyle::Direct::Lid};

}  // namespace ibtool::ofa
