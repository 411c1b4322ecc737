#include "core/out/print.h"

#include <stdexcept>
#include <string>

namespace ibcore {

Printer::Printer(FILE* f, Doc doc) : Printer(f, json_enabled(), json_pretty(), doc) {}

Printer::Printer(FILE* f, bool json, bool pretty, Doc doc) : f_(f) {
  if (!json && !pretty) {
    own_t_ = std::make_unique<TextOut>(f);
    t_ = own_t_.get();
    return;
  }
  if (doc == Doc::Whole) {
    doc_ = std::make_unique<JsonDoc>(pretty);
    j_ = &doc_->j();
  } else {
    o_ = std::make_unique<TextOut>(f);
    own_j_ = std::make_unique<JsonOut>(*o_, pretty);
    j_ = own_j_.get();
  }
}

Printer::~Printer() = default;

Printer& Printer::text(const char* fmt, ...) {
  if (!t_) return *this;
  va_list ap;
  va_start(ap, fmt);
  t_->vprintf(fmt, ap);
  va_end(ap);
  done();
  return *this;
}

namespace {

[[noreturn]] void wrong(const char* what, const Fmt& f) {
  throw std::logic_error(std::string("Printer: ") + what + " in format \"" + f.str() + "\"");
}

// The conversion as printf spells it, with the length a value of the
// conversion's kind needs.
std::string spec(const Fmt& f, const char* length) {
  std::string s = "%";
  uint8_t fl = f.flags();
  if (fl & Fmt::MINUS) s += '-';
  if (fl & Fmt::ZERO) s += '0';
  if (fl & Fmt::PLUS) s += '+';
  if (fl & Fmt::SPACE) s += ' ';
  if (fl & Fmt::HASH) s += '#';
  if (f.width() >= 0) s += std::to_string(f.width());
  if (f.precision() >= 0) s += '.' + std::to_string(f.precision());
  s += length;
  s += f.conv();
  return s;
}

unsigned digits10(uint64_t v) {
  unsigned d = 1;
  for (v /= 10; v; v /= 10) ++d;
  return d;
}

unsigned digits16(uint64_t v) {
  unsigned d = 1;
  for (v >>= 4; v; v >>= 4) ++d;
  return d;
}

}  // namespace

// The text around the conversion ("%%" as '%').
void Printer::put_around(std::string_view s, bool escaped) {
  if (s.empty()) return;
  if (!escaped) {
    t_->put(s);
    return;
  }
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 1 < s.size() && s[i + 1] == '%') ++i;
    t_->put(s[i]);
  }
}

// An integer (negative: v is the two's complement of a negative value): the
// usual conversions straight into the buffer, the rest through printf.
void Printer::text_int(const Fmt& f, uint64_t v, bool negative) {
  if (!f.integral()) wrong(f.string() ? "%s for a number" : "real conversion for an integer", f);
  put_around(f.before(), f.escaped());
  const char c = f.conv();
  const uint8_t fl = f.flags();
  const int w = f.width();
  bool fast = !negative && f.precision() < 0;
  if (fast && (c == 'u' || c == 'd' || c == 'i')) {
    if (!fl) w > 0 ? t_->rdec(v, size_t(w)) : t_->dec(v);
    else if (fl == Fmt::ZERO && w > 0) digits10(v) <= unsigned(w) ? t_->dec0(v, w) : t_->dec(v);
    else if (fl == Fmt::MINUS) {
      t_->dec(v);
      if (w > 0 && digits10(v) < unsigned(w)) t_->spaces(size_t(w) - digits10(v));
    } else fast = false;
  } else if (fast && c == 'x') {
    if (!fl) {
      if (w > 0 && digits16(v) < unsigned(w)) t_->spaces(size_t(w) - digits16(v));
      t_->hex(v);
    } else if (fl == Fmt::ZERO && w > 0) digits16(v) <= unsigned(w) ? t_->hex0(v, w) : t_->hex(v);
    else fast = false;
  } else {
    fast = false;
  }
  if (!fast) {
    if (c == 'c') t_->printf(spec(f, "").c_str(), int(v));
    else if ((c == 'd' || c == 'i')) t_->printf(spec(f, "ll").c_str(), static_cast<long long>(v));
    else t_->printf(spec(f, "ll").c_str(), static_cast<unsigned long long>(v));
  }
  put_around(f.after(), f.escaped());
  done();
}

void Printer::text_real(const Fmt& f, double v) {
  if (f.string()) wrong("%s for a number", f);
  put_around(f.before(), f.escaped());
  if (f.real()) t_->printf(spec(f, "").c_str(), v);
  else t_->printf(spec(f, "ll").c_str(), static_cast<long long>(v));
  put_around(f.after(), f.escaped());
  done();
}

void Printer::text_str(const Fmt& f, std::string_view v) {
  if (!f.string()) wrong(f.integral() ? "integer conversion for a string" : "real conversion for a string", f);
  put_around(f.before(), f.escaped());
  v = v.substr(0, v.find('\0'));  // (as printf: up to a NUL)
  const uint8_t fl = f.flags();
  const int w = f.width();
  if (f.precision() < 0 && !fl) w > 0 ? t_->rpad(v, size_t(w)) : t_->put(v);
  else if (f.precision() < 0 && fl == Fmt::MINUS) {
    t_->put(v);
    if (w > 0 && v.size() < size_t(w)) t_->spaces(size_t(w) - v.size());
  } else {
    t_->printf(spec(f, "").c_str(), std::string(v).c_str());
  }
  put_around(f.after(), f.escaped());
  done();
}

Printer& Printer::uint(PrintKind k, const char* key, Fmt fmt, uint64_t v) {
  if (want_json(k)) {
    if (key) j_->key(key);
    j_->num(v);
  } else if (want_text(k, fmt)) {
    text_int(fmt, v, false);
  }
  return *this;
}

Printer& Printer::sint(PrintKind k, const char* key, Fmt fmt, int64_t v) {
  if (want_json(k)) {
    if (key) j_->key(key);
    j_->snum(v);
  } else if (want_text(k, fmt)) {
    text_int(fmt, uint64_t(v), v < 0);
  }
  return *this;
}

Printer& Printer::real(PrintKind k, const char* key, Fmt fmt, double v) {
  if (want_json(k)) {
    if (key) j_->key(key);
    j_->real(v);
  } else if (want_text(k, fmt)) {
    text_real(fmt, v);
  }
  return *this;
}

Printer& Printer::str(PrintKind k, const char* key, Fmt fmt, std::string_view v) {
  if (want_json(k)) {
    if (key) j_->key(key);
    j_->str(v);
  } else if (want_text(k, fmt)) {
    text_str(fmt, v);
  }
  return *this;
}

Printer& Printer::boolean(PrintKind k, const char* key, Fmt fmt, bool v, const char* t, const char* f) {
  if (want_json(k)) {
    if (key) j_->key(key);
    j_->boolean(v);
  } else if (want_text(k, fmt)) {
    text_str(fmt, v ? t : f);
  }
  return *this;
}

Printer& Printer::guid(PrintKind k, const char* key, Fmt fmt, uint64_t g) {
  if (want_json(k)) {
    if (key) j_->key(key);
    j_->guid(g);
  } else if (want_text(k, fmt)) {
    text_int(fmt, g, false);
  }
  return *this;
}

Printer& Printer::gid(PrintKind k, const char* key, Fmt fmt, const iba::Gid& g) {
  if (want_json(k)) {
    if (key) j_->key(key);
    j_->gid(g);
  } else if (want_text(k, fmt)) {
    text_str(fmt, g.str());
  }
  return *this;
}

Printer& Printer::enumeration(PrintKind k, const char* key, Fmt fmt, std::string_view name, uint64_t raw) {
  if (want_json(k)) {
    if (!key) throw std::logic_error("Printer: an enumeration needs a key");
    j_->kenum(key, name, raw);
  } else if (want_text(k, fmt)) {
    text_str(fmt, name);
  }
  return *this;
}

Printer& Printer::enumeration(PrintKind k, const char* key, Fmt fmt, const iba::enums::Enumeration& e,
                              uint64_t raw) {
  if (want_json(k)) {
    if (!key) throw std::logic_error("Printer: an enumeration needs a key");
    j_->kenum(key, e, raw);
  } else if (want_text(k, fmt)) {
    text_str(fmt, e.name(raw));
  }
  return *this;
}

Printer& Printer::null(const char* key) {
  if (j_) {
    if (key) j_->key(key);
    j_->null();
  }
  return *this;
}

Printer& Printer::fields(const iba::StructDesc& desc, const uint8_t* buf, std::span<const std::string_view> hide,
                         const iba::Capabilities& caps) {
  if (j_) j_->fields(desc, buf, hide, caps);
  return *this;
}

void Printer::finish() {
  flush();
  if (finished_) return;
  finished_ = true;
  if (doc_) doc_->commit(f_);
  else if (j_) j_->finish();
}

void Printer::close_all() {
  flush();
  if (finished_) return;
  finished_ = true;
  if (doc_) return;  // Doc::Whole: a document not finished is not written
  if (j_) j_->close_all();
}

namespace {
std::string vstrfmt(const char* fmt, va_list ap) {
  va_list aq;
  va_copy(aq, ap);
  int k = std::vsnprintf(nullptr, 0, fmt, aq);
  va_end(aq);
  if (k < 0) return {};
  std::string s(size_t(k) + 1, '\0');
  std::vsnprintf(s.data(), s.size(), fmt, ap);
  s.resize(size_t(k));
  return s;
}
}  // namespace

std::string strfmt(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string s = vstrfmt(fmt, ap);
  va_end(ap);
  return s;
}

void text_or_log(log::Level level, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string s = vstrfmt(fmt, ap);
  va_end(ap);
  log::stdout_or_log(json_enabled(), level, "%s", s.c_str());
}

}  // namespace ibcore
