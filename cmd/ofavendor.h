// What the OpenFabrics ping (0x32) and sysstat (0x33) servers answer, and
// how their clients read a reply: shared by ibping and ibsysstat.
#pragma once

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <functional>
#include <cstdio>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cmd/common.h"
#include "cmd/target.h"
#include "core/config.h"
#include "core/devices.h"
#include "core/error.h"
#include "core/gmppath.h"
#include "core/rpc.h"
#include "core/server.h"
#include "core/textfile.h"
#include "core/umad.h"
#include "iba/vendor.h"
#include "core/log.h"

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

// The client's destination as a full GMP path (-L, -G or any form; -s
// names the SM port the SA is asked on).  On failure the error goes to
// stderr, the reference's "can't resolve destination port" line to stdout
// with status 255 in *status, and the result is empty.
inline std::optional<ibcore::IBPath> resolve_destination(ibcore::MadTransactor& mad, const std::string& tool,
                                                         const std::string& dest, bool lid_form, bool guid_form,
                                                         int sm_port, int* status) {
  if (sm_port) mad.transport().settings().sa_path = std::to_string(sm_port);
  try {
    if (lid_form && guid_form) throw ibcore::Error("only one of -L and -G may be given");
    auto target = ibcore::IBPath::from_string(dest, guid_form  ? ibcore::IBPath::Form::GUID
                                                    : lid_form ? ibcore::IBPath::Form::LID
                                                               : ibcore::IBPath::Form::Auto);
    ibcore::GmpPathResolver res(mad);
    return res.resolve(target);
  } catch (const std::exception& e) {
    ibcore::report(e);
    *status = ibtool::ref_exit(tool, ibtool::cant_resolve(dest));
    return std::nullopt;
  }
}

// The run() both commands share: parse the -o OUI (default the OFA one)
// into oui, open cfg's end port, then run the server loop or the client.
template <class Serve, class Client>
int run_client_or_server(const ibcore::Config& cfg, const std::string& oui_str, uint32_t& oui, bool server,
                         Serve serve, Client client) {
  uint64_t v = iba::OFA_OUI;
  if (!oui_str.empty() && (!ibtool::parse_int(oui_str, v) || v > 0xffffff)) {
    ibcore::log::error("E: bad OUI %s\n", oui_str.c_str());
    return 2;
  }
  oui = uint32_t(v);
  try {
    auto owner = ibcore::open_transport(ibcore::get_end_port(cfg.ca, cfg.port), cfg);
    ibcore::Transport& umad = *owner;
    return server ? serve(umad) : client(umad);
  } catch (const std::exception& e) {
    return ibcore::report(e);
  }
}

}  // namespace ibtool::ofa
