#include "iba/introspect.h"

#include "iba/enums.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace iba {

// --- GIDs -------------------------------------------------------------------
uint64_t Gid::prefix() const { return get_bits(raw.data(), 0, 64); }
uint64_t Gid::guid() const { return get_bits(raw.data(), 64, 64); }
Gid Gid::from(uint64_t prefix, uint64_t guid) {
  Gid g;
  set_bits(g.raw.data(), 0, 64, prefix);
  set_bits(g.raw.data(), 64, 64, guid);
  return g;
}
std::string Gid::str() const {
  char b[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, raw.data(), b, sizeof b);
  return b;
}

// --- value helpers -------------------------------------------------------------
std::string guid_str(uint64_t g) {
  char b[24];
  std::snprintf(b, sizeof b, "%04x:%04x:%04x:%04x", unsigned(g >> 48), unsigned(g >> 32) & 0xffff,
                unsigned(g >> 16) & 0xffff, unsigned(g) & 0xffff);
  return b;
}

std::optional<uint64_t> parse_uint(std::string_view s) {
  if (s.empty() || s[0] == '-' || s[0] == '+' || std::isspace(static_cast<unsigned char>(s[0])))
    return std::nullopt;
  std::string t(s);
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(t.c_str(), &end, 0);
  if (errno || end == t.c_str() || *end) return std::nullopt;
  return v;
}

std::optional<uint64_t> parse_guid(std::string_view s) {
  if (s.find(':') != std::string_view::npos) {
    // 0002:c903:0000:1491 : exactly four groups of 1-4 hex digits.
    uint64_t v = 0;
    int groups = 0;
    size_t i = 0;
    while (i <= s.size()) {
      size_t j = s.find(':', i);
      if (j == std::string_view::npos) j = s.size();
      std::string_view g = s.substr(i, j - i);
      if (g.empty() || g.size() > 4) return std::nullopt;
      for (char c : g)
        if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
      v = (v << 16) | std::strtoull(std::string(g).c_str(), nullptr, 16);
      ++groups;
      i = j + 1;
      if (j == s.size()) break;
    }
    if (groups != 4) return std::nullopt;
    return v;
  }
  std::string_view h = s;
  if (h.size() > 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X')) h.remove_prefix(2);
  if (h.empty() || h.size() > 16) return std::nullopt;
  for (char c : h)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::strtoull(std::string(h).c_str(), nullptr, 16);
}

std::optional<Gid> parse_gid(std::string_view s) {
  Gid g;
  std::string t(s);
  if (inet_pton(AF_INET6, t.c_str(), g.raw.data()) != 1) return std::nullopt;
  return g;
}

std::string hex_bytes(std::span<const uint8_t> b) {
  std::string out;
  char x[4];
  for (uint8_t c : b) {
    std::snprintf(x, sizeof x, "%02x", c);
    out += x;
  }
  return out;
}

// --- field lookup ----------------------------------------------------------------
bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  // ASCII only (field and value names are), without a libc call a
  // character: the layouts look their fields up by name at every print.
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i] && lower(a[i]) != lower(b[i])) return false;
  return true;
}

namespace {

bool ieq(std::string_view a, std::string_view b) { return iequals(a, b); }

uint32_t component_count(const FieldDesc& f);

// SA component numbering along a field list.  A field declared inside the
// reserved field just before it (a later IBA version's field in space an
// earlier one reserves, as PortInfo's LinkSpeedExt*2 in reserved448) is
// part of that reserved field's component: the numbers stay the ones every
// SA implements.
class Components {
public:
  explicit Components(uint32_t first) : next_(first) {}
  // The component of f (the next field of the list); advances past it.
  uint32_t take(const FieldDesc& f) {
    if (f.kind != Kind::Rsv && f.bit_off >= rsv_lo_ && f.bit_off + f.total_bits() <= rsv_hi_) return rsv_comp_;
    uint32_t mine = next_;
    if (f.kind == Kind::Rsv) {
      rsv_lo_ = f.bit_off;
      rsv_hi_ = f.bit_off + f.total_bits();
      rsv_comp_ = mine;
    } else {
      rsv_lo_ = rsv_hi_ = 0;
    }
    next_ += component_count(f);
    return mine;
  }
  uint32_t next() const { return next_; }

private:
  uint32_t next_;
  uint32_t rsv_lo_ = 0, rsv_hi_ = 0, rsv_comp_ = 0;
};

// Number of SA components a field occupies.
uint32_t component_count(const FieldDesc& f) {
  if (f.kind != Kind::Struct || f.count != 1) return 1;
  Components cs(0);
  for (const auto& s : f.sub->field_list()) cs.take(s);
  return cs.next();
}

void collect(const StructDesc& d, uint32_t base, const std::string& prefix, uint32_t& comp,
             bool with_reserved, std::vector<FieldRef>& out) {
  Components cs(comp);
  for (const auto& f : d.field_list()) {
    if (f.kind == Kind::Struct && f.count == 1) {
      uint32_t first = cs.take(f);
      collect(*f.sub, base + f.bit_off, prefix + f.name + ".", first, with_reserved, out);
      continue;
    }
    uint32_t c = cs.take(f);
    if (f.kind != Kind::Rsv || with_reserved) out.push_back(FieldRef{&f, base + f.bit_off, -1, prefix + f.name, c});
  }
  comp = cs.next();
}

}  // namespace

std::vector<FieldRef> leaves(const StructDesc& desc, bool with_reserved) {
  std::vector<FieldRef> out;
  uint32_t comp = 0;
  collect(desc, 0, "", comp, with_reserved, out);
  return out;
}

std::optional<FieldRef> find_field(const StructDesc& desc, std::string_view dotted, std::string* err) {
  // A plain name (what the print layouts look up at every print): one pass,
  // no path to build (and a loop to tell it, not find_first_of, which is a
  // memchr a character).
  if (std::none_of(dotted.begin(), dotted.end(), [](char c) { return c == '.' || c == '['; })) {
    Components cs(0);
    for (const auto& f : desc.field_list()) {
      uint32_t c = cs.take(f);
      if (f.name_len == dotted.size() && f.kind != Kind::Rsv && ieq(f.name, dotted))
        return FieldRef{&f, f.bit_off, -1, std::string(f.name.view()), c};
    }
  }
  const StructDesc* d = &desc;
  uint32_t base = 0, comp = 0;
  std::string path;
  std::string_view rest = dotted;
  auto fail = [&](const std::string& m) -> std::optional<FieldRef> {
    if (err) *err = m;
    return std::nullopt;
  };
  while (true) {
    size_t dot = rest.find('.');
    std::string_view part = rest.substr(0, dot);
    int index = -1;
    if (auto lb = part.find('['); lb != std::string_view::npos) {
      if (part.back() != ']') return fail("bad field name '" + std::string(dotted) + "'");
      auto idx = parse_uint(part.substr(lb + 1, part.size() - lb - 2));
      if (!idx) return fail("bad index in '" + std::string(dotted) + "'");
      index = int(*idx);
      part = part.substr(0, lb);
    }
    const FieldDesc* found = nullptr;
    uint32_t c = comp;
    Components cs(comp);
    for (const auto& f : d->field_list()) {
      c = cs.take(f);
      if (ieq(f.name, part) && f.kind != Kind::Rsv) {
        found = &f;
        break;
      }
    }
    if (!found) {
      std::string names;
      for (const auto& f : d->field_list())
        if (f.kind != Kind::Rsv) names += std::string(names.empty() ? "" : ", ") + f.name;
      return fail("no field '" + std::string(part) + "' in " + d->name + " (fields: " + names + ")");
    }
    path += (path.empty() ? "" : ".") + std::string(found->name);
    uint32_t off = base + found->bit_off;
    rest = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
    // "table.3" selects element 3 of an array.
    if (index < 0 && found->count > 1 && !rest.empty()) {
      size_t d2 = rest.find('.');
      if (auto idx = parse_uint(rest.substr(0, d2))) {
        index = int(*idx);
        rest = d2 == std::string_view::npos ? std::string_view{} : rest.substr(d2 + 1);
      }
    }
    if (index >= 0) {
      if (found->count <= 1 || index >= found->count)
        return fail("index " + std::to_string(index) + " out of range for " + path);
      off += uint32_t(index) * found->width;
      path += "[" + std::to_string(index) + "]";
    }
    if (rest.empty()) return FieldRef{found, off, index, path, c};
    if (found->kind != Kind::Struct) return fail(path + " has no sub-fields");
    if (found->count > 1 && index < 0) return fail(path + " is an array: give an index");
    d = found->sub;
    base = off;
    comp = c;
  }
}

uint64_t component_mask(const FieldRef& ref) { return ref.component < 64 ? uint64_t(1) << ref.component : 0; }

FieldRef field_named(const StructDesc& desc, std::string_view dotted) {
  auto f = find_field(desc, dotted);
  if (!f) throw std::logic_error("no field " + std::string(dotted) + " in " + desc.name);
  return *f;
}

// --- values ------------------------------------------------------------------------
uint64_t get_uint(const FieldRef& ref, const uint8_t* buf) {
  return get_bits(buf, ref.bit_off, ref.width() > 64 ? 64 : ref.width());
}

namespace {

std::string format_scalar(const FieldDesc& f, uint32_t off, const uint8_t* buf) {
  char b[64];
  switch (f.kind) {
    case Kind::Uint:
      return std::to_string(get_bits(buf, off, f.width));
    case Kind::Int:
      return std::to_string(sign_extend(get_bits(buf, off, f.width), f.width));
    case Kind::Hex: {
      if (f.width > 64) return "0x" + hex_bytes({buf + off / 8, f.width / 8});
      std::snprintf(b, sizeof b, "0x%0*llx", int((f.width + 3) / 4),
                    static_cast<unsigned long long>(get_bits(buf, off, f.width)));
      return b;
    }
    case Kind::Lid:
      std::snprintf(b, sizeof b, "%llu", static_cast<unsigned long long>(get_bits(buf, off, f.width)));
      return b;
    case Kind::Guid:
      return guid_str(get_bits(buf, off, 64));
    case Kind::Gid:
      return get_gid(buf, off).str();
    case Kind::Str: {
      std::string s = get_str(buf, off, f.width), q = "'";
      for (unsigned char c : s) {
        if (c == '\'' || c == '\\') q += '\\';
        if (c < 0x20 || c == 0x7f) {
          std::snprintf(b, sizeof b, "\\x%02x", c);
          q += b;
        } else {
          q += char(c);
        }
      }
      return q + "'";
    }
    case Kind::Bytes:
    case Kind::Rsv:
      return hex_bytes({buf + off / 8, f.width / 8});
    case Kind::Struct:
      return hex_bytes({buf + off / 8, f.width / 8});
  }
  return {};
}

// A structure as {name=value,...} (set_from_text takes this form too).
std::string struct_text(const StructDesc& d, uint32_t off, const uint8_t* buf) {
  std::string out = "{";
  for (const auto& l : leaves(d)) {
    FieldRef r = l;
    r.bit_off += off;
    out += (out.size() > 1 ? "," : "") + l.path + "=" + format_value(r, buf);
  }
  return out + "}";
}

}  // namespace

std::string format_value(const FieldRef& ref, const uint8_t* buf) {
  const FieldDesc& f = *ref.field;
  if (f.count == 1 || ref.index >= 0) return format_scalar(f, ref.bit_off, buf);
  std::string out = "[";
  for (uint32_t i = 0; i < f.count; ++i)
    out += (i ? "," : "") + format_scalar(f, ref.bit_off + i * f.width, buf);
  return out + "]";
}

namespace {

// Split on commas outside {} and [] (structure values nest).
std::vector<std::string_view> split_top(std::string_view t) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t i = 0;
  for (size_t j = 0; j <= t.size(); ++j) {
    char c = j < t.size() ? t[j] : ',';
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (c == ',' && depth <= 0) {
      parts.push_back(t.substr(i, j - i));
      i = j + 1;
    }
  }
  return parts;
}

}  // namespace

bool set_from_text(const FieldRef& ref, uint8_t* buf, std::string_view text, std::string* err) {
  const FieldDesc& f = *ref.field;
  auto fail = [&](const char* what) {
    if (err) *err = "invalid " + std::string(what) + " '" + std::string(text) + "' for " + ref.path;
    return false;
  };
  if (f.count > 1 && ref.index < 0 && f.kind != Kind::Bytes) {
    // A whole array: comma separated values.
    std::string_view t = text;
    if (t.size() >= 2 && t.front() == '[' && t.back() == ']') t = t.substr(1, t.size() - 2);
    std::vector<std::string_view> parts = split_top(t);
    if (parts.size() > f.count) return fail("array (too many elements)");
    for (size_t k = 0; k < parts.size(); ++k) {
      FieldRef e = ref;
      e.index = int(k);
      e.bit_off = ref.bit_off + uint32_t(k) * f.width;
      if (!set_from_text(e, buf, parts[k], err)) return false;
    }
    return true;
  }
  switch (f.kind) {
    case Kind::Uint:
    case Kind::Hex:
    case Kind::Lid: {
      auto v = parse_uint(text);
      if (!v) return fail("number");
      if (f.width < 64 && *v >> f.width) return fail("value (too large)");
      set_bits(buf, ref.bit_off, f.width, *v);
      return true;
    }
    case Kind::Int: {
      std::string t(text);
      char* end = nullptr;
      errno = 0;
      long long v = std::strtoll(t.c_str(), &end, 0);
      if (errno || end == t.c_str() || *end) return fail("number");
      set_bits(buf, ref.bit_off, f.width, uint64_t(v));
      return true;
    }
    case Kind::Guid: {
      auto v = parse_guid(text);
      if (!v) return fail("GUID");
      set_bits(buf, ref.bit_off, 64, *v);
      return true;
    }
    case Kind::Gid: {
      auto g = parse_gid(text);
      if (!g) return fail("GID");
      set_gid(buf, ref.bit_off, *g);
      return true;
    }
    case Kind::Str:
      if (text.size() > f.width / 8) return fail("string (too long)");
      set_str(buf, ref.bit_off, f.width, text);
      return true;
    case Kind::Struct:
      if (!text.empty() && text.front() == '{') {
        // {name=value,...} as format_value prints a structure.
        if (text.back() != '}') return fail("structure");
        for (auto a : split_top(text.substr(1, text.size() - 2))) {
          if (a.empty()) continue;
          auto eq = a.find('=');
          if (eq == std::string_view::npos) return fail("structure (name=value expected)");
          std::string e2;
          auto sub = find_field(*f.sub, a.substr(0, eq), &e2);
          if (!sub) {
            if (err) *err = e2;
            return false;
          }
          sub->bit_off += ref.bit_off;
          sub->path = ref.path + "." + sub->path;
          if (!set_from_text(*sub, buf, a.substr(eq + 1), err)) return false;
        }
        return true;
      }
      [[fallthrough]];
    case Kind::Bytes:
    case Kind::Rsv: {
      std::string hex;
      for (char c : text)
        if (c != ':' && c != ' ') hex += c;
      if (hex.size() > 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex = hex.substr(2);
      uint32_t n = ref.width() / 8;
      if (hex.size() % 2 || hex.size() / 2 > n) return fail("bytes");
      for (size_t k = 0; k < hex.size(); k += 2) {
        if (!std::isxdigit(static_cast<unsigned char>(hex[k])) ||
            !std::isxdigit(static_cast<unsigned char>(hex[k + 1])))
          return fail("bytes");
        buf[ref.bit_off / 8 + k / 2] = uint8_t(std::strtoul(hex.substr(k, 2).c_str(), nullptr, 16));
      }
      return true;
    }
  }
  return fail("value");
}

uint64_t apply_assignments(const StructDesc& desc, uint8_t* buf, const std::vector<std::string>& assigns) {
  uint64_t mask = 0;
  for (const auto& a : assigns) {
    auto eq = a.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("expected field=value, got '" + a + "'");
    std::string err;
    auto ref = find_field(desc, std::string_view(a).substr(0, eq), &err);
    if (!ref) throw std::invalid_argument(err);
    if (!set_from_text(*ref, buf, std::string_view(a).substr(eq + 1), &err)) throw std::invalid_argument(err);
    if (ref->field->kind == Kind::Struct && ref->field->count == 1) {
      for (const auto& l : leaves(*ref->field->sub, true)) mask |= component_mask(FieldRef{l.field, 0, -1, "", ref->component + l.component});
    } else {
      mask |= component_mask(*ref);
    }
  }
  return mask;
}

// --- printing ------------------------------------------------------------------------
std::string print_fields(const StructDesc& desc, const uint8_t* buf, std::string_view prefix) {
  std::string out;
  for (const auto& l : leaves(desc)) {
    std::string name = std::string(prefix) + l.path;
    out += name;
    out += std::string(name.size() < 31 ? 32 - name.size() : 1, '.');
    out += format_value(l, buf);
    out += '\n';
  }
  return out;
}

std::string dump_detailed(const StructDesc& desc, const uint8_t* buf, uint32_t base_off, int indent) {
  return dump_detailed(desc, buf, base_off, indent, {});
}

namespace {

std::string word_line(const std::string& pad, uint32_t off, const uint8_t* p, uint32_t avail) {
  char b[48];
  uint32_t word = 0;
  for (uint32_t k = 0; k < 4; ++k) word = (word << 8) | (k < avail ? p[k] : 0);
  std::snprintf(b, sizeof b, "%3u %08X", off, word);
  return pad + b;
}

bool all_zero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i]) return false;
  return true;
}

}  // namespace

namespace {

const DumpAs* dump_as_of(const FieldDesc& f, std::span<const DumpAs> as) {
  for (const auto& a : as)
    if (a.field == f.name) return &a;
  return nullptr;
}

// A field shown as a nested structure (DumpAs, or a Struct field): the
// "+ name Type" lines and the nested dumps, then the field's remaining
// words (non-zero ones; all of them for a raw field).
void dump_field_as(std::string& out, const std::string& pad, const FieldDesc& f, const DumpAs* sub,
                   const uint8_t* buf, uint32_t base_off, int indent) {
  uint32_t fbytes = f.total_bits() / 8, off0 = f.bit_off / 8, used = 0;
  if (sub && sub->desc) {
    uint32_t stride = sub->stride ? sub->stride : sub->desc->size;
    for (uint32_t i = 0; i < sub->count && i * stride < fbytes; ++i) {
      used = i * stride;
      out += pad + "   + " + f.name + (sub->count > 1 ? "[" + std::to_string(i) + "]" : "") + " " +
             sub->desc->name + "\n";
      // A structure longer than what the field holds (a Notice in an SMP)
      // is shown up to the last of its fields that fits.
      StructDesc cut = *sub->desc;
      uint32_t avail = std::min(cut.size, fbytes - used);
      if (avail < cut.size) {
        cut.size = avail;
        cut.nfields = 0;
        while (cut.nfields < sub->desc->nfields &&
               cut.fields[cut.nfields].bit_off + cut.fields[cut.nfields].total_bits() <= avail * 8)
          ++cut.nfields;
      }
      std::vector<uint8_t> tmp(sub->desc->size, 0);
      std::memcpy(tmp.data(), buf + off0 + used, avail);
      out += dump_detailed(cut, tmp.data(), base_off + off0 + used, indent + 2, sub->inner);
      used += sub->desc->size;
    }
    used = std::min(used, fbytes);
  } else if (!sub) {
    for (uint32_t i = 0; i < f.count; ++i) {
      out += pad + "   + " + f.name + (f.count > 1 ? "[" + std::to_string(i) + "]" : "") + " " + f.sub->name + "\n";
      out += dump_detailed(*f.sub, buf + off0 + i * f.sub->size, base_off + off0 + i * f.sub->size, indent + 2);
    }
    used = fbytes;
  } else if (sub->count == 0) {
    used = fbytes;  // not shown
  }
  bool raw = sub && !sub->desc;  // plain words, zeros included
  if (raw && sub->count) out += pad + "   + " + f.name + " (raw)\n";
  for (uint32_t o = (used + 3) / 4 * 4; o < fbytes; o += 4)
    if (raw || !all_zero(buf + off0 + o, std::min<uint32_t>(4, fbytes - o)))
      out += word_line(pad, base_off + off0 + o, buf + off0 + o, std::min<uint32_t>(4, fbytes - o)) + "\n";
}

}  // namespace

std::string dump_detailed(const StructDesc& desc, const uint8_t* buf, uint32_t base_off, int indent,
                          std::span<const DumpAs> as) {
  std::string out, pad(size_t(indent), ' ');
  uint32_t words = (desc.size + 3) / 4;
  const auto fields = desc.field_list();
  size_t fi = 0;
  for (uint32_t w = 0; w < words; ++w) {
    uint32_t start = w * 32, end = start + 32;
    while (fi < fields.size() && fields[fi].bit_off + fields[fi].total_bits() <= start) ++fi;
    const FieldDesc* f = fi < fields.size() ? &fields[fi] : nullptr;
    // A field starting this word shown as another structure, or a nested
    // structure (arrays of structures that are not whole words are listed
    // by element instead).
    if (f && f->bit_off == start) {
      const DumpAs* sub = dump_as_of(*f, as);
      if (sub || (f->kind == Kind::Struct && (f->count == 1 || f->sub->size % 4 == 0))) {
        dump_field_as(out, pad, *f, sub, buf, base_off, indent);
        w = (f->bit_off + f->total_bits()) / 32 - 1;  // resume at the word where it ends
        ++fi;
        continue;
      }
    }
    std::string names;
    bool continuation = false;
    const FieldDesc* pending = nullptr;  // a DumpAs field starting inside this word
    for (size_t k = fi; k < fields.size() && fields[k].bit_off < end; ++k) {
      const FieldDesc& g = fields[k];
      if (g.kind == Kind::Rsv) continue;
      if (g.bit_off < start && g.count <= 1) {
        continuation = true;
        continue;
      }
      if (g.bit_off > start && g.bit_off % 8 == 0 && dump_as_of(g, as)) {
        const DumpAs* d = dump_as_of(g, as);
        names += (names.empty() ? "" : ",") + std::string(g.name) + "=<" + (d->desc ? d->desc->name : "raw") + ">";
        pending = &g;
        break;
      }
      if (g.count > 1 && g.kind != Kind::Bytes) {
        // Arrays: every element that starts in this word, by index.
        for (uint32_t i = 0; i < g.count; ++i) {
          uint32_t eo = g.bit_off + i * g.width;
          if (eo < start) continue;
          if (eo >= end) break;
          FieldRef r{&g, eo, int(i), std::string(g.name), 0};
          std::string v = g.kind == Kind::Struct ? struct_text(*g.sub, eo, buf) : format_value(r, buf);
          if (v.size() > 200) v = v.substr(0, 200) + "...";
          names += (names.empty() ? "" : ",") + std::string(g.name) + "[" + std::to_string(i) + "]=" + v;
        }
        continuation = true;  // the array covers this word
        continue;
      }
      FieldRef r{&g, g.bit_off, -1, std::string(g.name), 0};
      std::string v = format_value(r, buf);
      if (v.size() > 200) v = v.substr(0, 200) + "...";
      names += (names.empty() ? "" : ",") + std::string(g.name) + "=" + v;
    }
    uint32_t avail = w * 4 < desc.size ? desc.size - w * 4 : 0;
    // Words holding only reserved space are shown when they are not zero.
    if (!names.empty() || continuation || !all_zero(buf + w * 4, std::min<uint32_t>(4, avail)))
      out += word_line(pad, base_off + w * 4, buf + w * 4, std::min<uint32_t>(4, avail)) +
             (names.empty() ? "" : " " + names) + "\n";
    if (pending) {
      dump_field_as(out, pad, *pending, dump_as_of(*pending, as), buf, base_off, indent);
      // Resume at the word where the field ends (fields after it there).
      uint32_t e = pending->bit_off + pending->total_bits();
      w = e / 32 - 1;
      while (fi < fields.size() && &fields[fi] <= pending) ++fi;
    }
  }
  return out;
}

}  // namespace iba

namespace iba {

namespace {
std::optional<uint32_t> source_value(enums::CapSource s, const Capabilities& c) {
  switch (s) {
    case enums::CapSource::PmCap: return c.pm_cap;
    case enums::CapSource::PmCap2: return c.pm_cap2;
    case enums::CapSource::PortCap: return c.port_cap;
    case enums::CapSource::PortCap2: return c.port_cap2;
    case enums::CapSource::PortExtCap: return c.port_ext_cap;
  }
  return std::nullopt;
}
bool port_source(enums::CapSource s) { return s == enums::CapSource::PortCap || s == enums::CapSource::PortCap2; }
}  // namespace

std::optional<bool> field_valid(const FieldDesc& f, const Capabilities& c) {
  bool unknown = false;
  // A validity and the ones it names as `also` (a short chain, no loops:
  // each names an earlier one).
  for (const enums::Validity* v = f.validity; v; v = v->also ? enums::validity_by_id(v->also) : nullptr) {
    std::optional<uint32_t> have = source_value(v->source, c);
    if (!have) unknown = true;
    else if (!(*have & v->any)) return false;
  }
  if (unknown) return std::nullopt;
  return true;
}

Capabilities own_capabilities(const StructDesc& desc, const uint8_t* buf, uint32_t base, Capabilities given) {
  bool needs_port = false, needs_ext = false;
  for (const FieldDesc& f : desc.field_list())
    if (const enums::Validity* v = f.validity) {
      if (port_source(v->source)) needs_port = true;
      if (v->source == enums::CapSource::PortExtCap) needs_ext = true;
    }
  if (!needs_port && !needs_ext) return given;
  const FieldDesc *cap = nullptr, *cap2 = nullptr;
  for (const FieldDesc& f : desc.field_list()) {
    if (f.kind != Kind::Hex || f.count != 1) continue;
    if (f.name == "capabilityMask") cap = &f;
    else if (f.name == "capabilityMask2") cap2 = &f;
  }
  if (!cap) return given;
  uint64_t mask = get_bits(buf, base + cap->bit_off, cap->width);
  if (needs_ext) {
    if (!given.port_ext_cap) given.port_ext_cap = uint32_t(mask);
    return given;
  }
  if (given.port_cap) return given;  // (its caller gives port_cap2 with it)
  if (!mask) return given;  // reserved (a switch's other ports): not known here
  given.port_cap = uint32_t(mask);
  if (cap2) given.port_cap2 = uint32_t(get_bits(buf, base + cap2->bit_off, cap2->width));
  return given;
}

}  // namespace iba
