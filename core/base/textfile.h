// Whole-file reads through stdio.  Commands read small text files (config,
// GUID lists, MAD dumps); iostreams would construct the C++ locale at every
// start for that, and <iostream> adds a static initializer to every file
// that includes it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace ibcore {

// The content of path ("-": standard input).  False when it cannot be
// opened or read.
bool read_text(const std::string& path, std::string& out);

// The content of the file path ("-" is a file name here).  False only when
// it cannot be opened (errno says why); a read error ends the content, as it
// ends an ifstream's.
bool read_file(const std::string& path, std::string& out);

// A file read a line at a time through stdio (for input that may be a pipe
// or large): `LineReader r(path); if (!r) ...; while (r.next(line)) ...`.
class LineReader {
public:
  explicit LineReader(const std::string& path) : f_(std::fopen(path.c_str(), "r")) {}
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  ~LineReader();
  explicit operator bool() const { return f_ != nullptr; }
  // The next line (without its '\n'; a last line without '\n' counts),
  // valid until the next call.  False at the end or on a read error.
  bool next(std::string_view& line);

private:
  std::FILE* f_;
  char* buf_ = nullptr;
  size_t cap_ = 0;
};

// The words of text between blanks (the C locale's isspace: ' ', \t, \n,
// \v, \f, \r), as `stream >> word` reads them.
std::vector<std::string> split_words(std::string_view text);

// A whole string as an unsigned number the way C's strtoull reads it in
// base 0 (decimal, 0x hex, 0 octal), with no sign and nothing after it:
// the integers of the reference's command lines and config file.
bool parse_number(const std::string& s, uint64_t& out);

// Calls fn(line) for each line of text (without its '\n'; a last line
// without '\n' counts).
template <class F>
void for_each_line(std::string_view text, F fn) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    fn(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

}  // namespace ibcore
