// The output layer: a command describes each value of its result once, and
// the layer writes it either as the reference's text or into the --json
// document (iproute2's print_*(PRINT_ANY, key, fmt, value), adapted to the
// reference's byte-exact text).
//
//   ibcore::Printer p;                       // the process's mode (--json, --pretty)
//   p.open_object();                         // the document (text: nothing)
//   p.text("LID start ");                    // text only (a label)
//   p.uint(PRINT_ANY, "LID", "0x%x", lid);   // text "0x%x" of lid, JSON "LID": lid
//   p.uint(PRINT_JSON, "LMC", nullptr, lmc); // JSON only
//   p.text("\n");
//   p.close_object();
//   p.finish();
//
// - One family of value calls, uint/sint/real/str/boolean/guid/gid/
//   enumeration(kind, key, fmt, value), and null(key).  The key is the JSON
//   member (nullptr: an array element); fmt the text's printf format with
//   one conversion for the value (a Fmt: a literal is parsed when compiled,
//   and a bad one does not compile).  Its length modifier does not matter
//   (the layer gives the value the width the conversion needs: "%u",
//   "0x%04x", "%3u", "%s", "%-20s", "%.3f"); the common conversions are
//   written straight into the layer's buffer, without printf.  PRINT_ANY
//   writes both sides, PRINT_FP the text only (fmt), PRINT_JSON the JSON only
//   (fmt unused, may be nullptr).
// - open_object/open_array(key) and their close are the JSON document's
//   nesting; the text has none.  text(fmt, ...) and lit(s) are text only (a
//   label, a separator, a newline).
// - Value kinds follow JsonOut's conventions (json.h): uint/sint numbers,
//   guid a "0x" and 16 digits string (text: the fmt applied to the number),
//   gid its RFC 4291 string, enumerations their name with <key>Raw beside.
// - An IBA structure is printed through its declaration: attribute() writes
//   its fields (FieldDesc: names, enumerations) as a JSON object, or the
//   reference's layout of the same buffer (iba/refprint*), made only when
//   the text is written.
// - The mode is chosen once, when the Printer is made, and nothing outside
//   this layer asks it.  Where the two sides differ in more than one value,
//   the difference is described, not tested: json_part(fn) (members only
//   the document has, fn run only for it), text_part(fn) (the converse),
//   per_side(t, j) (a choice the two sides make differently: the
//   reference's list order against the document's), json_value(key, fn) (a
//   composite core/ writes into a JsonOut), text_to(fn) (text another writer
//   makes).
// - Text goes through the layer's buffer to the FILE (stdio's buffer, so it
//   stays in order with anything else on stdout): after each call, or, in a
//   rows() scope (the big outputs: dump_fts on a k=32 fat tree is 12 M rows),
//   when the scope ends.  JSON goes through a JsonOut, streamed
//   (Doc::Stream), or held until finish() (Doc::Whole: a run that fails part
//   way leaves nothing on stdout).
#pragma once

#include <concepts>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/out/json.h"
#include "core/out/log.h"
#include "core/out/textout.h"
#include "iba/enums.h"
#include "iba/struct.h"

namespace ibcore {

enum PrintKind { PRINT_ANY, PRINT_FP, PRINT_JSON };

// A value's text format: printf's, one conversion (flags, width, precision,
// any length modifier, then d i u x X o c f F e E g G a A s), text around
// it ("%%" for a '%').  A literal is parsed when compiled; a format chosen
// at run time (a const char*) when the value is written; nullptr: none.
class Fmt {
public:
  constexpr Fmt(std::nullptr_t) {}
  template <size_t N>
  consteval Fmt(const char (&s)[N]) {
    parse(s);
  }
  template <class T>
    requires std::same_as<T, const char*> || std::same_as<T, char*>
  Fmt(T s) {
    if (s) parse(s);
  }

  enum Flag : uint8_t { MINUS = 1, ZERO = 2, PLUS = 4, SPACE = 8, HASH = 16 };
  // A bare conversion whose width is known only at run time ('u', 5, ZERO:
  // "%05u").
  static Fmt conversion(char conv, int width, uint8_t flags = 0) {
    Fmt f(nullptr);
    f.s_ = "";
    f.conv_ = conv;
    f.width_ = int16_t(width > 0 ? width : -1);
    f.flags_ = width > 0 ? flags : 0;
    return f;
  }

  bool none() const { return !s_; }
  std::string_view before() const { return {s_, pre_}; }
  std::string_view after() const { return {s_ + post_, size_t(end_ - post_)}; }
  const char* str() const { return s_; }
  char conv() const { return conv_; }
  uint8_t flags() const { return flags_; }
  int width() const { return width_; }
  int precision() const { return prec_; }
  bool escaped() const { return escaped_; }  // "%%" in the text around
  bool integral() const { return is_in(conv_, "diuxXoc"); }
  bool real() const { return is_in(conv_, "fFeEgGaA"); }
  bool string() const { return conv_ == 's'; }

private:
  static constexpr bool is_in(char c, const char* set) {
    for (; *set; ++set)
      if (*set == c) return true;
    return false;
  }
  [[noreturn]] static void bad(const char* why) { throw std::logic_error(why); }
  constexpr void parse(const char* s) {
    s_ = s;
    size_t n = 0;
    while (s[n]) ++n;
    size_t p = 0;
    for (;; ++p) {
      if (p >= n) bad("Printer: no conversion in a format");
      if (s[p] != '%') continue;
      if (p + 1 < n && s[p + 1] == '%') {
        escaped_ = true;
        ++p;
        continue;
      }
      break;
    }
    pre_ = uint16_t(p);
    size_t q = p + 1;
    for (; q < n && is_in(s[q], "-0+ #"); ++q)
      flags_ |= s[q] == '-' ? MINUS : s[q] == '0' ? ZERO : s[q] == '+' ? PLUS : s[q] == ' ' ? SPACE : HASH;
    for (; q < n && s[q] >= '0' && s[q] <= '9'; ++q) width_ = int16_t((width_ < 0 ? 0 : width_) * 10 + (s[q] - '0'));
    if (q < n && s[q] == '.') {
      prec_ = 0;
      for (++q; q < n && s[q] >= '0' && s[q] <= '9'; ++q) prec_ = int16_t(prec_ * 10 + (s[q] - '0'));
    }
    while (q < n && is_in(s[q], "hlLqjzt")) ++q;
    if (q >= n || !is_in(s[q], "diuxXocfFeEgGaAs")) bad("Printer: bad conversion in a format");
    conv_ = s[q];
    post_ = uint16_t(q + 1);
    end_ = uint16_t(n);
    for (size_t r = post_; r < n; ++r) {
      if (s[r] != '%') continue;
      if (r + 1 < n && s[r + 1] == '%') {
        escaped_ = true;
        ++r;
      } else {
        bad("Printer: a second conversion in a format");
      }
    }
  }

  const char* s_ = nullptr;
  uint16_t pre_ = 0, post_ = 0, end_ = 0;
  int16_t width_ = -1, prec_ = -1;
  char conv_ = 0;
  uint8_t flags_ = 0;
  bool escaped_ = false;
};

class Printer {
public:
  enum class Doc { Stream, Whole };

  // The process's mode: json_enabled()/json_pretty().
  explicit Printer(FILE* f = stdout, Doc doc = Doc::Stream);
  // An explicit mode (tests; output that is not stdout's).
  Printer(FILE* f, bool json, bool pretty, Doc doc = Doc::Stream);
  // JSON into a document the caller writes (its values go where j is now;
  // finish() does nothing): a description used inside a JsonOut composite.
  explicit Printer(JsonOut& j) : f_(nullptr), j_(&j), finished_(true) {}
  ~Printer();
  Printer(const Printer&) = delete;
  Printer& operator=(const Printer&) = delete;

  // JSON nesting (key: the member's name inside an object, nullptr for the
  // document itself or an array element).  The text shows none of it.
  Printer& open_object(const char* key = nullptr) {
    if (j_) {
      if (key) j_->key(key);
      j_->obj();
    }
    return *this;
  }
  Printer& close_object() {
    if (j_) j_->end();
    return *this;
  }
  Printer& open_array(const char* key = nullptr) {
    if (j_) {
      if (key) j_->key(key);
      j_->arr();
    }
    return *this;
  }
  Printer& close_array() { return close_object(); }

  // Text only, printf-style.
  Printer& text(const char* fmt, ...) __attribute__((format(printf, 2, 3)));
  // Text only, as is.
  Printer& lit(std::string_view s) {
    if (t_) {
      t_->put(s);
      done();
    }
    return *this;
  }
  Printer& lit(char c) {
    if (t_) {
      t_->put(c);
      done();
    }
    return *this;
  }

  // Values.
  Printer& uint(PrintKind k, const char* key, Fmt fmt, uint64_t v);
  Printer& sint(PrintKind k, const char* key, Fmt fmt, int64_t v);
  Printer& real(PrintKind k, const char* key, Fmt fmt, double v);
  Printer& str(PrintKind k, const char* key, Fmt fmt, std::string_view v);
  // JSON true/false; the text's fmt gets the string t or f.
  Printer& boolean(PrintKind k, const char* key, Fmt fmt, bool v, const char* t = "true", const char* f = "false");
  // JSON "0x" and 16 digits; the text's fmt gets the number.
  Printer& guid(PrintKind k, const char* key, Fmt fmt, uint64_t g);
  Printer& gid(PrintKind k, const char* key, Fmt fmt, const iba::Gid& g);
  // JSON "key": name, "keyRaw": raw; the text's fmt gets the name.
  Printer& enumeration(PrintKind k, const char* key, Fmt fmt, std::string_view name, uint64_t raw);
  Printer& enumeration(PrintKind k, const char* key, Fmt fmt, const iba::enums::Enumeration& e, uint64_t raw);
  // JSON null (the text has no such value).
  Printer& null(const char* key);

  // A scope of many calls whose text is written to the FILE when it ends
  // (not after each call): a printer of core/ makes one per public call.
  class Rows {
  public:
    explicit Rows(Printer& p) : p_(p) { ++p_.rows_; }
    ~Rows() {
      if (--p_.rows_ == 0) p_.flush();
    }
    Rows(const Rows&) = delete;
    Rows& operator=(const Rows&) = delete;

  private:
    Printer& p_;
  };
  [[nodiscard]] Rows rows() { return Rows(*this); }

  // A described fragment whose text does not change between calls (a
  // destination's words, written once per LID per switch): the text is
  // made once into cache (empty: not made yet) and then copied; the JSON
  // is described each time.
  // json: the fragment has a JSON side (false: JSON runs skip it).
  template <class F>
  Printer& cached(std::string& cache, bool json, F&& describe) {
    if (!t_) {
      if (json) describe();
      return *this;
    }
    if (cache.empty()) {
      TextOut cap(cache);
      struct Restore {
        TextOut*& t;
        TextOut* keep;
        ~Restore() { t = keep; }
      } restore{t_, t_};
      t_ = &cap;
      describe();
      cap.flush();
    }
    t_->put(cache);
    done();
    return *this;
  }
  // The buffered text to the FILE.
  Printer& flush() {
    if (t_) t_->flush();
    return *this;
  }

  // Members only the document has, described by fn through this printer
  // (a node's JSON members beside its text lines): fn runs only when there
  // is a document.
  template <class F>
  Printer& json_part(F&& describe) {
    if (j_) describe();
    return *this;
  }
  // The converse: what only the text shows, where making it costs (a
  // destination looked up to be named).
  template <class F>
  Printer& text_part(F&& describe) {
    if (t_) describe();
    return *this;
  }
  // A choice the two sides make differently (the reference's list order
  // against the document's).
  template <class T>
  const T& per_side(const T& text, const T& json) const {
    return j_ ? json : text;
  }

  // An IBA structure: JSON "key": {its fields as iba/ declares them, hide
  // left out}; text: layout(), the reference's lines for the same buffer
  // (called only when the text is written).
  // caps: what the caller knows of the capabilities that make its optional
  // fields valid (JsonOut::fields: those it lacks are null).
  template <class F>
  Printer& attribute(const char* key, const iba::StructDesc& desc, const uint8_t* buf, F&& layout,
                     std::span<const std::string_view> hide = {}, const iba::Capabilities& caps = {}) {
    if (j_) {
      if (key) j_->key(key);
      j_->obj().fields(desc, buf, hide, caps).end();
    } else {
      lit(layout());
    }
    return *this;
  }
  // The same, where the capabilities cost a query the text does not need
  // (a switch port's masks are its port 0's): caps() is called only when
  // the JSON is written.
  template <class F, class C>
    requires std::is_invocable_r_v<iba::Capabilities, C>
  Printer& attribute(const char* key, const iba::StructDesc& desc, const uint8_t* buf, F&& layout,
                     std::span<const std::string_view> hide, C&& caps) {
    if (j_) return attribute(key, desc, buf, layout, hide, iba::Capabilities(caps()));
    lit(layout());
    return *this;
  }
  // Its fields as members of the object open now (JSON only).
  Printer& fields(const iba::StructDesc& desc, const uint8_t* buf, std::span<const std::string_view> hide = {},
                  const iba::Capabilities& caps = {});
  // One field of it (by its declaration) as a member (JSON only).
  Printer& field(const iba::FieldDesc& f, const uint8_t* buf, const iba::Capabilities& caps = {}) {
    if (j_) j_->field(f, f.bit_off, buf, caps);
    return *this;
  }
  // Its fields as members of the object open now, or layout() (a record
  // beside other keys: saquery's "attribute").
  template <class F>
  Printer& fields(const iba::StructDesc& desc, const uint8_t* buf, F&& layout,
                  std::span<const std::string_view> hide = {}, const iba::Capabilities& caps = {}) {
    if (j_) j_->fields(desc, buf, hide, caps);
    else lit(layout());
    return *this;
  }

  // A value core/ writes into a JsonOut (IBPath::json) that the text does
  // not show: PRINT_JSON for composites.
  template <class F>
  Printer& json_value(const char* key, F&& write) {
    if (j_) {
      if (key) j_->key(key);
      write(*j_);
    }
    return *this;
  }

  // Text written to a FILE elsewhere (ibhosts' lines made from the
  // topology's text) that the JSON shows as composites of its own
  // (json_value): write(FILE*) is called only for the text.
  template <class F>
  Printer& text_to(F&& write) {
    if (t_) {
      flush();
      write(f_);
    }
    return *this;
  }

  // End of the output: the JSON document checked, closed with a newline and
  // written (Doc::Whole: only now); the text flushed.
  void finish();
  // Close every container still open, then finish() (a run that stops part
  // way still leaves one whole document); Doc::Whole: the document is
  // dropped, nothing is written.
  void close_all();

private:
  void done() {
    if (!rows_) t_->flush();
  }
  void put_around(std::string_view s, bool escaped);
  void text_int(const Fmt& f, uint64_t v, bool negative);
  void text_real(const Fmt& f, double v);
  void text_str(const Fmt& f, std::string_view v);
  bool want_text(PrintKind k, const Fmt& f) const { return t_ && k != PRINT_JSON && !f.none(); }
  bool want_json(PrintKind k) const { return j_ && k != PRINT_FP; }

  FILE* f_;
  std::unique_ptr<JsonDoc> doc_;    // Doc::Whole
  std::unique_ptr<TextOut> o_;      // Doc::Stream
  std::unique_ptr<JsonOut> own_j_;  // Doc::Stream
  JsonOut* j_ = nullptr;            // JSON mode: the writer
  std::unique_ptr<TextOut> own_t_;  // text mode: the buffer
  TextOut* t_ = nullptr;            // text mode: own_t_ (or a cached() capture)
  int rows_ = 0;                    // Rows scopes open
  bool finished_ = false;
};

// printf into a string (any length): a text layout's line.
[[gnu::format(printf, 1, 2)]] std::string strfmt(const char* fmt, ...);

// A line the reference writes on stdout that is no part of the result (a
// progress line, its "iberror: failed" line): on stdout with the text, a
// diagnostic at level when stdout carries the JSON document.
[[gnu::format(printf, 2, 3)]] void text_or_log(log::Level level, const char* fmt, ...);

}  // namespace ibcore
