#include "iba/refprint.h"

#include <cstdio>
#include <stdexcept>

namespace iba::ref {

namespace {

void append_dotted(std::string& out, std::string_view label, std::string_view value) {
  out += label;
  out += ':';
  if (label.size() + 1 < VALUE_COLUMN) out.append(VALUE_COLUMN - label.size() - 1, '.');
  out += value;
  out += '\n';
}

}  // namespace

std::string dotted(std::string_view label, std::string_view value) {
  std::string out;
  append_dotted(out, label, value);
  return out;
}

std::string dump(const StructDesc& desc, const uint8_t* buf, std::span<const Line> lines) {
  std::string out;
  for (const Line& l : lines) {
    std::string err;
    auto r = find_field(desc, l.field, &err);
    if (!r) throw std::logic_error("layout of " + std::string(desc.name) + ": " + err);
    uint64_t v = r->width() <= 64 ? get_uint(*r, buf) : 0;
    append_dotted(out, l.label, l.fmt(v, *r, buf));
  }
  return out;
}

std::string dec(uint64_t v, const FieldRef&, const uint8_t*) { return std::to_string(v); }

std::string hex_padded(uint64_t v, int digits) {
  char b[2 + 64];
  int n = 0;
  do {
    b[sizeof b - 1 - n++] = "0123456789abcdef"[v & 0xf];
    v >>= 4;
  } while (v);
  while (n < digits && n < 64) b[sizeof b - 1 - n++] = '0';
  std::string out("0x");
  out.append(b + sizeof b - n, size_t(n));
  return out;
}

std::string hex(uint64_t v, const FieldRef& r, const uint8_t*) { return hex_padded(v, int((r.width() + 3) / 4)); }

std::string hex_plain(uint64_t v, const FieldRef&, const uint8_t*) { return hex_padded(v, 1); }

std::string guid(uint64_t v, const FieldRef&, const uint8_t*) { return hex_padded(v, 16); }

std::string gid(uint64_t, const FieldRef& r, const uint8_t* buf) { return get_gid(buf, r.bit_off).str(); }

std::string str(uint64_t, const FieldRef& r, const uint8_t* buf) { return get_str(buf, r.bit_off, r.width()); }

}  // namespace iba::ref
