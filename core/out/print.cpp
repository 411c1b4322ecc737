#include "core/out/print.h"

#include <stdexcept>
#include <string>

namespace ibcore {

// One value for the text's conversion, whichever kind the caller gave.
struct Printer::Arg {
  enum Kind { U, S, D, STR } kind;
  uint64_t u = 0;
  int64_t s = 0;
  double d = 0;
  std::string_view str = {};
  static Arg of(uint64_t v) { return {U, v}; }
  static Arg of(int64_t v) { return {S, 0, v}; }
  static Arg of(double v) { return {D, 0, 0, v}; }
  static Arg of(std::string_view v) { return {STR, 0, 0, 0, v}; }
};

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
  if (j_) return *this;
  flush();
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(f_, fmt, ap);
  va_end(ap);
  return *this;
}

Printer& Printer::text_raw(std::string_view s) {
  if (!j_ && !s.empty()) {
    flush();
    std::fwrite(s.data(), 1, s.size(), f_);
  }
  return *this;
}

namespace {

// Copy s to f with "%%" as '%'.
void literal(FILE* f, std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 1 < s.size() && s[i + 1] == '%') ++i;
    std::fputc(s[i], f);
  }
}

}  // namespace

// fmt: text, one conversion (flags, width, precision, any length modifier,
// then d i u x X o c f F e E g G a A s), text.  The conversion is rebuilt
// with the length the value needs, so "%u" takes a uint64_t.
void Printer::text_value(PrintKind k, const char* fmt, const Arg& a) {
  if (j_ || k == PRINT_JSON || !fmt) return;
  flush();
  std::string_view f(fmt);
  size_t p = 0;
  while ((p = f.find('%', p)) != std::string_view::npos && p + 1 < f.size() && f[p + 1] == '%') p += 2;
  if (p == std::string_view::npos || p + 1 >= f.size())
    throw std::logic_error(std::string("Printer: no conversion in format \"") + fmt + "\"");
  literal(f_, f.substr(0, p));
  size_t q = p + 1;
  std::string spec = "%";
  while (q < f.size() && std::string_view("-+ #0").find(f[q]) != std::string_view::npos) spec += f[q++];
  while (q < f.size() && ((f[q] >= '0' && f[q] <= '9') || f[q] == '.')) spec += f[q++];
  while (q < f.size() && std::string_view("hlLqjzt").find(f[q]) != std::string_view::npos) ++q;
  if (q >= f.size()) throw std::logic_error(std::string("Printer: bad conversion in format \"") + fmt + "\"");
  char c = f[q++];
  std::string_view conv_int("diuxXoc"), conv_real("fFeEgGaA");
  if (conv_int.find(c) != std::string_view::npos) {
    if (a.kind == Arg::STR || a.kind == Arg::D)
      throw std::logic_error(std::string("Printer: integer conversion for another value in \"") + fmt + "\"");
    uint64_t u = a.kind == Arg::U ? a.u : uint64_t(a.s);
    if (c == 'c') {
      spec += c;
      std::fprintf(f_, spec.c_str(), int(u));
    } else {
      spec += "ll";
      spec += c;
      if (c == 'd' || c == 'i') std::fprintf(f_, spec.c_str(), static_cast<long long>(u));
      else std::fprintf(f_, spec.c_str(), static_cast<unsigned long long>(u));
    }
  } else if (conv_real.find(c) != std::string_view::npos) {
    double d = a.kind == Arg::D ? a.d : a.kind == Arg::U ? double(a.u) : a.kind == Arg::S ? double(a.s) : 0;
    if (a.kind == Arg::STR)
      throw std::logic_error(std::string("Printer: real conversion for a string in \"") + fmt + "\"");
    spec += c;
    std::fprintf(f_, spec.c_str(), d);
  } else if (c == 's') {
    if (a.kind != Arg::STR)
      throw std::logic_error(std::string("Printer: %s for a number in \"") + fmt + "\"");
    if (spec == "%") {
      std::string_view v = a.str.substr(0, a.str.find('\0'));  // (as printf: up to a NUL)
      std::fwrite(v.data(), 1, v.size(), f_);
    } else {
      spec += 's';
      std::fprintf(f_, spec.c_str(), std::string(a.str).c_str());
    }
  } else {
    throw std::logic_error(std::string("Printer: unknown conversion in format \"") + fmt + "\"");
  }
  literal(f_, f.substr(q));
}

Printer& Printer::uint(PrintKind k, const char* key, const char* fmt, uint64_t v) {
  if (want_json(k)) {
    if (key) j_->key(key);
    j_->num(v);
  }
  text_value(k, fmt, Arg::of(v));
  return *this;
}

Printer& Printer::sint(PrintKind k, const char* key, const char* fmt, int64_t v) {
  if (want_json(k)) {
    if (key) j_->key(key);
    j_->snum(v);
  }
  text_value(k, fmt, Arg::of(v));
  return *this;
}

Printer& Printer::real(PrintKind k, const char* key, const char* fmt, double v) {
  if (want_json(k)) {
    if (key) j_->key(key);
    j_->real(v);
  }
  text_value(k, fmt, Arg::of(v));
  return *this;
}

Printer& Printer::str(PrintKind k, const char* key, const char* fmt, std::string_view v) {
  if (want_json(k)) {
    if (key) j_->key(key);
    j_->str(v);
  }
  text_value(k, fmt, Arg::of(v));
  return *this;
}

Printer& Printer::boolean(PrintKind k, const char* key, const char* fmt, bool v, const char* t, const char* f) {
  if (want_json(k)) {
    if (key) j_->key(key);
    j_->boolean(v);
  }
  text_value(k, fmt, Arg::of(v ? t : f));
  return *this;
}

Printer& Printer::guid(PrintKind k, const char* key, const char* fmt, uint64_t g) {
  if (want_json(k)) {
    if (key) j_->key(key);
    j_->guid(g);
  }
  text_value(k, fmt, Arg::of(g));
  return *this;
}

Printer& Printer::gid(PrintKind k, const char* key, const char* fmt, const iba::Gid& g) {
  if (want_json(k)) {
    if (key) j_->key(key);
    j_->gid(g);
  }
  if (!j_ && k != PRINT_JSON && fmt) text_value(k, fmt, Arg::of(g.str()));
  return *this;
}

Printer& Printer::enumeration(PrintKind k, const char* key, const char* fmt, std::string_view name, uint64_t raw) {
  if (want_json(k)) {
    if (!key) throw std::logic_error("Printer: an enumeration needs a key");
    j_->kenum(key, name, raw);
  }
  text_value(k, fmt, Arg::of(name));
  return *this;
}

Printer& Printer::enumeration(PrintKind k, const char* key, const char* fmt, const iba::enums::Enumeration& e,
                              uint64_t raw) {
  if (want_json(k)) {
    if (!key) throw std::logic_error("Printer: an enumeration needs a key");
    j_->kenum(key, e, raw);
  }
  if (!j_ && k != PRINT_JSON && fmt) text_value(k, fmt, Arg::of(e.name(raw)));
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
