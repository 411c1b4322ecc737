#include "core/out/promtext.h"

#include <charconv>
#include <cmath>

namespace ibcore::prom {

void label(std::string& out, std::string_view name, std::string_view value) {
  if (!out.empty()) out += ',';
  out += name;
  out += "=\"";
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  out += '"';
}

void append_double(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "+Inf" : "-Inf";
    return;
  }
  char b[32];
  auto r = std::to_chars(b, b + sizeof b, v);  // shortest round trip
  out.append(b, r.ptr);
}

void Writer::family(std::string_view name, std::string_view type, std::string_view help) {
  buf_ += "# HELP ";
  buf_ += name;
  buf_ += ' ';
  for (char c : help) {
    if (c == '\\') buf_ += "\\\\";
    else if (c == '\n') buf_ += "\\n";
    else buf_ += c;
  }
  buf_ += "\n# TYPE ";
  buf_ += name;
  buf_ += ' ';
  buf_ += type;
  buf_ += '\n';
}

void Writer::head(std::string_view name, std::string_view labels) {
  buf_ += name;
  if (!labels.empty()) {
    buf_ += '{';
    buf_ += labels;
    buf_ += '}';
  }
  buf_ += ' ';
}

void Writer::sample(std::string_view name, std::string_view labels, uint64_t v) {
  head(name, labels);
  char b[24];
  auto r = std::to_chars(b, b + sizeof b, v);
  buf_.append(b, r.ptr);
  buf_ += '\n';
  maybe_flush();
}

void Writer::sample(std::string_view name, std::string_view labels, double v) {
  head(name, labels);
  append_double(buf_, v);
  buf_ += '\n';
  maybe_flush();
}

void Writer::flush() {
  if (!buf_.empty() && write_) write_(buf_.data(), buf_.size());
  buf_.clear();
}

}  // namespace ibcore::prom
