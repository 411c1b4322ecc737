// Whole-file reads through stdio.  Commands read small text files (config,
// GUID lists, MAD dumps); iostreams would construct the C++ locale at every
// start for that, and <iostream> adds a static initializer to every file
// that includes it.
#pragma once

#include <string>
#include <string_view>

namespace ibcore {

// The content of path ("-": standard input).  False when it cannot be
// opened or read.
bool read_text(const std::string& path, std::string& out);

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
