// Perl-compatible regular expressions (PCRE2, from Debian's libpcre2-dev,
// linked statically so a command that never matches pays nothing at
// start-up).  For text formats whose reference readers are Perl scripts
// (check_lft_balance): the leftmost match and its captures are exactly
// Perl's $1, $2, ..., with greedy backtracking and all.
//
//   static const ibcore::Regex re("guid (.+) \\((.+)\\)");
//   ibcore::Regex::Match m;
//   if (re.search(line, m)) use(m.group(1));   // std::optional: unset = undef
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibcore {

class Regex {
public:
  // Throws ibcore::Error naming the pattern and the offset of a syntax error.
  explicit Regex(std::string_view pattern);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  struct Match {
    // Capture n (0 = the whole match); nullopt when the group took no part
    // in the match or n is past the last group (Perl's undef).
    std::optional<std::string> group(size_t n) const {
      return n < groups.size() ? groups[n] : std::nullopt;
    }
    std::vector<std::optional<std::string>> groups;
  };

  // The leftmost match in text; false (m untouched) when there is none.
  bool search(std::string_view text, Match& m) const;
  bool search(std::string_view text) const;

private:
  void* code_ = nullptr;   // pcre2_code_8
  void* data_ = nullptr;   // pcre2_match_data_8 (matching is single-threaded)
};

// Perl's numeric value of a string (undef = 0): leading white space, then a
// decimal number (sign, digits, fraction, exponent) or Inf/Infinity/NaN,
// case-insensitive; anything else is 0.  No hex, unlike strtod.
double perl_number(const std::optional<std::string>& text);

}  // namespace ibcore
