#include "core/base/textfile.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sys/types.h>

namespace ibcore {

namespace {

// Appends what is left of f to out; false on a read error.
bool slurp(std::FILE* f, std::string& out) {
  char buf[8192];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  return !std::ferror(f);
}

}  // namespace

bool parse_number(const std::string& s, uint64_t& out) {
  if (s.empty() || s[0] == '-') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (errno != 0 || end == s.c_str() || *end != '\0') return false;
  out = v;
  return true;
}

bool read_text(const std::string& path, std::string& out) {
  bool is_stdin = path == "-";
  std::FILE* f = is_stdin ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) return false;
  out.clear();
  bool ok = slurp(f, out);
  if (!is_stdin) std::fclose(f);
  return ok;
}

bool read_file(const std::string& path, std::string& out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  out.clear();
  slurp(f, out);
  std::fclose(f);
  return true;
}

LineReader::~LineReader() {
  std::free(buf_);
  if (f_) std::fclose(f_);
}

bool LineReader::next(std::string_view& line) {
  if (!f_) return false;
  ssize_t n = ::getline(&buf_, &cap_, f_);
  if (n < 0) return false;
  line = std::string_view(buf_, size_t(n));
  if (line.ends_with('\n')) line.remove_suffix(1);
  return true;
}

std::vector<std::string> split_words(std::string_view text) {
  auto blank = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  std::vector<std::string> words;
  for (size_t i = 0; i < text.size();) {
    while (i < text.size() && blank(text[i])) ++i;
    size_t b = i;
    while (i < text.size() && !blank(text[i])) ++i;
    if (i > b) words.emplace_back(text.substr(b, i - b));
  }
  return words;
}

}  // namespace ibcore
