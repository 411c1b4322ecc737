#include "core/base/regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <cmath>
#include <cstdlib>

#include "core/base/error.h"

namespace ibcore {

Regex::Regex(std::string_view pattern) {
  int err = 0;
  PCRE2_SIZE off = 0;
  auto* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), 0, &err, &off, nullptr);
  if (!code) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(err, msg, sizeof msg);
    throw Error("bad regular expression '" + std::string(pattern) + "' at offset " + std::to_string(off) + ": " +
                reinterpret_cast<const char*>(msg));
  }
  code_ = code;
  data_ = pcre2_match_data_create_from_pattern(code, nullptr);
  if (!data_) {
    pcre2_code_free(code);
    throw Error("out of memory for a regular expression");
  }
}

Regex::~Regex() {
  pcre2_match_data_free(static_cast<pcre2_match_data*>(data_));
  pcre2_code_free(static_cast<pcre2_code*>(code_));
}

bool Regex::search(std::string_view text) const {
  return pcre2_match(static_cast<const pcre2_code*>(code_), reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0,
                     0, static_cast<pcre2_match_data*>(data_), nullptr) >= 0;
}

bool Regex::search(std::string_view text, Match& m) const {
  auto* md = static_cast<pcre2_match_data*>(data_);
  int rc = pcre2_match(static_cast<const pcre2_code*>(code_), reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(),
                       0, 0, md, nullptr);
  if (rc < 0) return false;
  uint32_t n = pcre2_get_ovector_count(md);
  const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
  m.groups.assign(n, std::nullopt);
  for (uint32_t i = 0; i < n && i < uint32_t(rc); ++i)
    if (ov[2 * i] != PCRE2_UNSET) m.groups[i] = std::string(text.substr(ov[2 * i], ov[2 * i + 1] - ov[2 * i]));
  return true;
}

double perl_number(const std::optional<std::string>& text) {
  if (!text) return 0;
  static const Regex num("^\\s*([+-]?)(?:((?i)inf)|((?i)nan)|((?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?))");
  Regex::Match m;
  if (!num.search(*text, m)) return 0;
  double sign = m.group(1).value_or("") == "-" ? -1 : 1;
  if (m.group(2)) return sign * HUGE_VAL;
  if (m.group(3)) return NAN;
  return sign * std::strtod(m.group(4)->c_str(), nullptr);
}

}  // namespace ibcore
