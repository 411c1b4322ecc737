#include "iba/refprint.h"

#include <cstdio>
#include <stdexcept>

namespace iba::ref {

std::string dotted(std::string_view label, std::string_view value) {
  std::string out(label);
  out += ':';
  if (out.size() < VALUE_COLUMN) out.append(VALUE_COLUMN - out.size(), '.');
  out += value;
  out += '\n';
  return out;
}

std::string dump(const StructDesc& desc, const uint8_t* buf, std::span<const Line> lines) {
  std::string out;
  for (const Line& l : lines) {
    std::string err;
    auto r = find_field(desc, l.field, &err);
    if (!r) throw std::logic_error("layout of " + std::string(desc.name) + ": " + err);
    uint64_t v = r->width() <= 64 ? get_uint(*r, buf) : 0;
    out += dotted(l.label, l.fmt(v, *r, buf));
  }
  return out;
}

std::string dec(uint64_t v, const FieldRef&, const uint8_t*) { return std::to_string(v); }

std::string hex(uint64_t v, const FieldRef& r, const uint8_t*) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%0*llx", int((r.width() + 3) / 4), static_cast<unsigned long long>(v));
  return b;
}

std::string hex_plain(uint64_t v, const FieldRef&, const uint8_t*) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

std::string guid(uint64_t v, const FieldRef&, const uint8_t*) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%016llx", static_cast<unsigned long long>(v));
  return b;
}

std::string gid(uint64_t, const FieldRef& r, const uint8_t* buf) { return get_gid(buf, r.bit_off).str(); }

std::string str(uint64_t, const FieldRef& r, const uint8_t* buf) { return get_str(buf, r.bit_off, r.width()); }

}  // namespace iba::ref
