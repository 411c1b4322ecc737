#include "core/fabric/nodemap.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>

#include "core/base/textfile.h"
#include "core/out/log.h"

namespace ibcore {

std::string clean_nodedesc(std::string_view d) {
  size_t n = std::min<size_t>(d.size(), 64);
  std::string s(d.substr(0, n));
  if (auto z = s.find('\0'); z != std::string::npos) s.resize(z);
  for (char& c : s)
    if (!std::isprint(static_cast<unsigned char>(c))) c = ' ';
  return s;
}

bool NodeNameMap::parse(std::string_view text, std::string* bad_line) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    std::string line(text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos));
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    const char* p = line.c_str();
    while (std::isspace(static_cast<unsigned char>(*p))) ++p;
    if (*p == '\0' || *p == '#') continue;
    char* e = nullptr;
    errno = 0;
    uint64_t guid = std::strtoull(p, &e, 0);
    if (e == p || (!std::isspace(static_cast<unsigned char>(*e)) && *e != '#' && *e != '\0')) {
      if (bad_line) *bad_line = line;
      return false;
    }
    p = e;
    while (std::isspace(static_cast<unsigned char>(*p))) ++p;
    // The name: the first run of characters that are neither '"' nor '#'.
    while (*p == '"' || *p == '#') ++p;
    const char* end = p;
    while (*end && *end != '"' && *end != '#') ++end;
    if (end == p) continue;
    names_.emplace(guid, std::string(p, end));
  }
  return true;
}

NodeNameMap NodeNameMap::open(const std::string& file) {
  NodeNameMap m;
  std::string name = file;
  if (name.empty()) {
    struct stat st;
    if (::stat(DEFAULT_NODE_NAME_MAP, &st) != 0) return m;
    name = DEFAULT_NODE_NAME_MAP;
  }
  std::string text;
  if (!read_file(name, text)) {
    int err = errno;
    ibcore::log::warn("WARNING failed to open node name map \"%s\" (%s)\n", name.c_str(), std::strerror(err));
    return m;
  }
  std::string bad;
  if (!m.parse(text, &bad)) {
    ibcore::log::warn("WARNING failed to parse node name map \"%s\"\n", name.c_str());
    ibcore::log::warn("WARNING failed line: \"%s\"\n", bad.c_str());
    return NodeNameMap{};
  }
  return m;
}

const std::string* NodeNameMap::find(uint64_t guid) const {
  auto it = names_.find(guid);
  return it == names_.end() ? nullptr : &it->second;
}

std::string NodeNameMap::remap(uint64_t guid, std::string_view nodedesc) const {
  if (auto* s = find(guid)) return *s;
  return clean_nodedesc(nodedesc);
}

}  // namespace ibcore
