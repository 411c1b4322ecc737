#include "core/out/json.h"

#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <array>


namespace ibcore {

namespace {
std::atomic<uint8_t> g_stdout_json{0};  // bit 0: --json, bit 1: --pretty
}  // namespace

void set_json_output(bool json, bool pretty) {
  g_stdout_json.store(uint8_t((json || pretty ? 1 : 0) | (pretty ? 2 : 0)), std::memory_order_relaxed);
}
bool json_enabled() { return g_stdout_json.load(std::memory_order_relaxed) & 1; }
bool json_pretty() { return g_stdout_json.load(std::memory_order_relaxed) & 2; }

JsonDoc::JsonDoc(bool pretty) {
  mem_ = open_memstream(&buf_, &len_);
  if (!mem_) throw std::bad_alloc();
  o_ = std::make_unique<TextOut>(mem_);
  j_ = std::make_unique<JsonOut>(*o_, pretty);
}

JsonDoc::~JsonDoc() {
  j_.reset();
  o_.reset();  // (flushes into the memory stream, which is then dropped)
  if (mem_) std::fclose(mem_);
  std::free(buf_);
}

void JsonDoc::commit(FILE* f) {
  j_->finish();
  o_->flush();
  std::fclose(mem_);
  mem_ = nullptr;
  std::fwrite(buf_, 1, len_, f);
  std::fflush(f);
}

namespace {

// Bytes quoted() writes as they are: printable ASCII but '"' and '\\'.
constexpr auto PLAIN = [] {
  std::array<bool, 256> t{};
  for (int c = 0x20; c < 0x80; ++c) t[size_t(c)] = c != '"' && c != '\\';
  return t;
}();

// Length of the valid UTF-8 sequence at s[i], 0 if there is none.
size_t utf8_len(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n;
  uint32_t cp;
  if (c < 0x80) return 1;
  if ((c & 0xe0) == 0xc0) n = 2, cp = c & 0x1f;
  else if ((c & 0xf0) == 0xe0) n = 3, cp = c & 0x0f;
  else if ((c & 0xf8) == 0xf0) n = 4, cp = c & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    unsigned char d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3f);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
  static const uint32_t MIN[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < MIN[n] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return 0;
  return n;
}

}  // namespace

void JsonOut::newline() {
  if (!pretty_) return;
  o_.put('\n');
  o_.spaces(2 * stack_.size());
}

void JsonOut::value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!stack_.empty()) {
    if (stack_.back().any) o_.put(',');
    stack_.back().any = true;
    newline();
  }
}

JsonOut& JsonOut::key(std::string_view k) {
  value();
  quoted(k);
  o_.put(pretty_ ? ": " : ":");
  after_key_ = true;
  return *this;
}

JsonOut& JsonOut::open(char c) {
  value();
  o_.put(c);
  stack_.push_back({c == '{' ? '}' : ']', false});
  return *this;
}

JsonOut& JsonOut::end() {
  if (stack_.empty()) throw std::logic_error("JSON writer: end() with nothing open");
  Level l = stack_.back();
  stack_.pop_back();
  if (l.any) newline();
  o_.put(l.close);
  return *this;
}

void JsonOut::finish() {
  if (!stack_.empty() || after_key_) throw std::logic_error("JSON writer: document not closed");
  o_.put('\n');
  o_.flush();
}

void JsonOut::close_all() {
  if (after_key_) null();
  while (!stack_.empty()) end();
  finish();
}

// Inline in quoted(), whose callers write every string of a document.
[[gnu::always_inline]] inline void JsonOut::escaped(std::string_view s) {
  static const char HEX[] = "0123456789abcdef";
  size_t run = 0;  // start of the bytes not yet written
  for (size_t i = 0; i < s.size();) {
    // Eight plain bytes at a time: none below 0x20, none at 0x80 or above,
    // no '"', no '\\' (the word tests of "Bit Twiddling Hacks").
    constexpr uint64_t ONES = ~uint64_t(0) / 255, HIGHS = ONES * 0x80;
    while (i + 8 <= s.size()) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      auto zero_byte = [](uint64_t v) { return (v - ONES) & ~v & HIGHS; };
      if ((((w - ONES * 0x20) & ~w) | w | zero_byte(w ^ (ONES * '"')) | zero_byte(w ^ (ONES * '\\'))) & HIGHS) break;
      i += 8;
    }
    if (i >= s.size()) break;
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (PLAIN[c]) {
      ++i;
      continue;
    }
    size_t n = c >= 0x80 ? utf8_len(s, i) : 0;
    if (n) {
      i += n;
      continue;
    }
    o_.put(s.substr(run, i - run));
    switch (c) {
      case '"': o_.put("\\\""); break;
      case '\\': o_.put("\\\\"); break;
      case '\n': o_.put("\\n"); break;
      case '\t': o_.put("\\t"); break;
      case '\r': o_.put("\\r"); break;
      default: {
        // Control characters, and bytes that are not UTF-8 (taken as the
        // Latin-1 character of that value, so nothing is lost).
        char e[6] = {'\\', 'u', '0', '0', HEX[c >> 4], HEX[c & 15]};
        o_.put(std::string_view(e, 6));
      }
    }
    run = ++i;
  }
  o_.put(s.substr(run));
}

void JsonOut::quoted(std::string_view s) {
  o_.put('"');
  escaped(s);
  o_.put('"');
}

JsonOut& JsonOut::real(double v) {
  if (!std::isfinite(v)) return null();
  value();
  char b[32];
  auto r = std::to_chars(b, b + sizeof b, v);
  o_.put(std::string_view(b, size_t(r.ptr - b)));
  return *this;
}

JsonOut& JsonOut::gid(const iba::Gid& g) { return str(g.str()); }

JsonOut& JsonOut::raw_key(std::string_view k, uint64_t raw) {
  char b[96];
  size_t n = k.size() < sizeof b - 3 ? k.size() : sizeof b - 3;
  std::memcpy(b, k.data(), n);
  std::memcpy(b + n, "Raw", 3);
  return key(std::string_view(b, n + 3)).num(raw);
}

JsonOut& JsonOut::kenum(std::string_view k, std::string_view name, uint64_t raw) {
  key(k).str(name);
  return raw_key(k, raw);
}

JsonOut& JsonOut::kenum(std::string_view k, const iba::enums::Enumeration& e, uint64_t raw) {
  key(k);
  if (e.mask) {
    // The names straight into the document (a fabric's ports write tens of
    // thousands of these): no string in between, and nothing to escape in
    // iba/'s names (ASCII identifiers and digits: iba_registry_test).
    value();
    o_.put('"');
    bool first = true;
    iba::enums::each_mask_name(e.table(), raw, [&](std::string_view n) {
      if (!first) o_.put(',');
      first = false;
      o_.put(n);
    });
    o_.put('"');
  } else if (const char* n = iba::enums::name_of(e.table(), uint32_t(raw))) {
    str(n);
  } else {
    char b[24];
    auto r = std::to_chars(b, b + sizeof b, raw);
    str(std::string_view(b, size_t(r.ptr - b)));
  }
  return raw_key(k, raw);
}

void JsonOut::scalar(const iba::FieldDesc& f, uint32_t off, const uint8_t* buf) {
  switch (f.kind) {
    case iba::Kind::Hex:
      // An identifier wider than a double's 53-bit mantissa (M_Key,
      // SM_Key, GIDPrefix, 64-bit masks) is a string, as a GUID is: a
      // JSON number that large reads back wrong in most parsers (jq 1.6).
      if (f.width > JSON_EXACT_BITS) {
        guid(iba::get_bits(buf, off, f.width));
        break;
      }
      [[fallthrough]];
    case iba::Kind::Uint:
    case iba::Kind::Lid: num(iba::get_bits(buf, off, f.width)); break;
    case iba::Kind::Int: snum(iba::sign_extend(iba::get_bits(buf, off, f.width), f.width)); break;
    case iba::Kind::Guid: guid(iba::get_bits(buf, off, 64)); break;
    case iba::Kind::Gid: gid(iba::get_gid(buf, off)); break;
    case iba::Kind::Str: str(iba::get_str(buf, off, f.width)); break;
    case iba::Kind::Bytes: {
      value();
      static const char HEX[] = "0123456789abcdef";
      o_.put('"');
      for (uint32_t i = 0; i < f.width / 8; ++i) {
        uint8_t b = buf[off / 8 + i];
        o_.put(HEX[b >> 4]).put(HEX[b & 15]);
      }
      o_.put('"');
      break;
    }
    case iba::Kind::Struct: {
      obj();
      fields_at(*f.sub, off, buf);
      end();
      break;
    }
    case iba::Kind::Rsv: null(); break;
  }
}

JsonOut& JsonOut::field(const iba::FieldDesc& f, uint32_t off, const uint8_t* buf) {
  if (f.kind == iba::Kind::Rsv) return *this;
  const std::string_view name(f.name, f.name_len);
  for (std::string_view h : hide_)
    if (h == name) return *this;
  // A field its capability does not make valid: null, never its bytes.
  if (f.validity && iba::field_valid(f, caps_) == false) return key(name).null();
  // An enumeration: its name, and the raw value beside as <field>Raw.
  if (f.enumeration) return kenum(name, *f.enumeration, iba::get_bits(buf, off, f.width));
  key(name);
  if (f.count > 1 && f.kind != iba::Kind::Bytes && f.kind != iba::Kind::Str) {
    arr();
    for (uint32_t i = 0; i < f.count; ++i) scalar(f, off + i * f.width, buf);
    return end();
  }
  scalar(f, off, buf);
  return *this;
}

JsonOut& JsonOut::field(const iba::FieldDesc& f, uint32_t off, const uint8_t* buf, const iba::Capabilities& caps) {
  const iba::Capabilities saved = caps_;
  caps_ = caps;
  field(f, off, buf);
  caps_ = saved;
  return *this;
}

void JsonOut::fields_at(const iba::StructDesc& desc, uint32_t base, const uint8_t* buf) {
  const iba::Capabilities outer = caps_;
  caps_ = iba::own_capabilities(desc, buf, base, outer);
  for (const iba::FieldDesc& f : desc.field_list()) field(f, base + f.bit_off, buf);
  caps_ = outer;
}

JsonOut& JsonOut::fields(const iba::StructDesc& desc, const uint8_t* buf, std::span<const std::string_view> hide,
                         const iba::Capabilities& caps) {
  auto saved = hide_;
  auto saved_caps = caps_;
  hide_ = hide;
  caps_ = caps;
  fields_at(desc, 0, buf);
  hide_ = saved;
  caps_ = saved_caps;
  return *this;
}

}  // namespace ibcore
