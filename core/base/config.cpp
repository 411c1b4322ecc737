#include "core/base/config.h"

#include <cstdlib>

#include "core/base/textfile.h"

namespace ibcore {

namespace {

std::string_view trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

}  // namespace

void parse_ibdiag_conf(std::string_view text, Config& c) {
  for_each_line(text, [&](std::string_view l) {
    std::string_view line = trim(l);
    if (line.empty() || line[0] == '#') return;
    auto eq = line.find('=');
    if (eq == std::string_view::npos) return;
    std::string_view key = trim(line.substr(0, eq));
    std::string val(trim(line.substr(eq + 1)));
    uint64_t v = 0;
    if (key == "CA") c.ca = val;
    else if (key == "Port" && parse_number(val, v) && v <= 0x7fffffff) c.port = int(v);
    else if (key == "timeout" && parse_number(val, v) && v <= 0x7fffffff) c.timeout_ms = int(v);
    else if (key == "MLX_EPI") c.mlx_epi = !(val == "false" || val == "0");
    else if (key == "m_key" && parse_number(val, v)) c.mkey = v;
    else if (key == "sa_key" && parse_number(val, v)) c.smkey = v;
    else if (key == "compat") {
      if (auto m = iba::ref::parse_compat(val)) c.compat = *m;
    }
  });
}

std::string apply_environment(Config& c) {
  const char* e = std::getenv("IBTOOL_COMPAT");
  if (e && *e) {  // (set but empty: as unset)
    auto m = iba::ref::parse_compat(e);
    if (!m)
      return std::string("IBTOOL_COMPAT: '") + e + "' is not one of " + std::string(iba::ref::COMPAT_WORDS);
    c.compat = *m;
  }
  return {};
}

}  // namespace ibcore
