// The output layer: a command describes each value of its result once, and
// the layer writes it either as the reference's text or into the --json
// document (iproute2's print_*(PRINT_ANY, key, fmt, value), adapted to the
// reference's byte-exact text).
//
//   ibcore::Printer p;                       // the process's mode (--json, --pretty)
//   p.open_object();                         // the document (text: nothing)
//   p.text("LID start ");                    // text only (PRINT_FP)
//   p.uint(PRINT_ANY, "LID", "0x%x", lid);   // text "0x%x" of lid, JSON "LID": lid
//   p.uint(PRINT_JSON, "LMC", nullptr, lmc); // JSON only
//   p.text("\n");
//   p.close_object();
//   p.finish();
//
// - A value call names the JSON key (nullptr: an array element) and the
//   text format, a printf format with one conversion for the value: its
//   length modifier does not matter (the layer gives the value the width the
//   conversion needs: "%u", "0x%04x", "%2d", "%s", "%-20s", "%.3f").
//   PRINT_ANY writes both, PRINT_FP the text only (fmt), PRINT_JSON the JSON
//   only (fmt unused, may be nullptr).
// - open_object/open_array(key) and their close are the JSON document's
//   nesting; the text has none.  text(fmt, ...) is text only (a label, a
//   separator, a newline).
// - Value kinds follow JsonOut's conventions (json.h): uint/sint numbers,
//   guid a "0x" and 16 digits string (text: the fmt applied to the number),
//   gid its RFC 4291 string, enumerations their name with <key>Raw beside.
// - An IBA structure is printed through its declaration: attribute() writes
//   its fields (FieldDesc: names, enumerations) as a JSON object, or the
//   reference's layout of the same buffer (iba/refprint*), made only when
//   the text is written.
// - The mode is chosen once, when the Printer is made.  No command asks
//   it; json() is asked today only by three layouts of core/fabric, where
//   the document's shape differs from the text's (json_net.cpp: the
//   document-only members; netprint.cpp: the node types' order; routes.cpp:
//   how a destination is named).  Text goes straight to the FILE (stdio's buffer, so it
//   stays in order with anything else on stdout); JSON goes through a
//   JsonOut, streamed (Doc::Stream), or held until finish() (Doc::Whole:
//   a run that fails part way leaves nothing on stdout).
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
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
  Printer& text_raw(std::string_view s);

  // Values.
  Printer& uint(PrintKind k, const char* key, const char* fmt, uint64_t v);
  Printer& sint(PrintKind k, const char* key, const char* fmt, int64_t v);
  Printer& real(PrintKind k, const char* key, const char* fmt, double v);
  Printer& str(PrintKind k, const char* key, const char* fmt, std::string_view v);
  // JSON true/false; the text's fmt gets the string t or f.
  Printer& boolean(PrintKind k, const char* key, const char* fmt, bool v, const char* t = "true",
                   const char* f = "false");
  Printer& guid(PrintKind k, const char* key, const char* fmt, uint64_t g);
  Printer& gid(PrintKind k, const char* key, const char* fmt, const iba::Gid& g);
  // JSON "key": name, "keyRaw": raw; the text's fmt gets the name.
  Printer& enumeration(PrintKind k, const char* key, const char* fmt, std::string_view name, uint64_t raw);
  Printer& enumeration(PrintKind k, const char* key, const char* fmt, const iba::enums::Enumeration& e,
                       uint64_t raw);
  // JSON null (PRINT_JSON: the text has no such value).
  Printer& null(const char* key);

  // --- The row path: the big outputs (a dump_fts of a k=32 fat tree is 12 M
  // rows).  Each value is formatted straight into the layer's buffer (text)
  // or the JSON writer: no format to parse, no virtual call, no allocation.
  // The text stays in the buffer until flush(), a printf-style call above,
  // finish() or the destructor: a printer of core/ flushes at the end of each
  // of its public calls, so that its text is on the FILE, in order with
  // anything else, when it returns.
  // Text only, as is.
  Printer& lit(std::string_view s) {
    if (t_) t_->put(s);
    return *this;
  }
  Printer& lit(char c) {
    if (t_) t_->put(c);
    return *this;
  }
  Printer& lit(bool text, std::string_view s) { return text ? lit(s) : *this; }
  // A number: JSON the number; text printf's %u (width: %<width>u).
  Printer& dec(PrintKind k, const char* key, uint64_t v, unsigned width = 0) {
    if (t_) {
      if (k != PRINT_JSON) width ? t_->rdec(v, width) : t_->dec(v);
    } else if (j_ && k != PRINT_FP) {
      if (key) j_->key(key);
      j_->num(v);
    }
    return *this;
  }
  // A number: JSON the number; text %0<digits>u (v fits in digits).
  Printer& dec0(PrintKind k, const char* key, uint64_t v, unsigned digits) {
    if (t_) {
      if (k != PRINT_JSON) t_->dec0(v, int(digits));
    } else if (j_ && k != PRINT_FP) {
      if (key) j_->key(key);
      j_->num(v);
    }
    return *this;
  }
  // A number: JSON the number; text %x (digits: %0<digits>x), no "0x".
  Printer& hex(PrintKind k, const char* key, uint64_t v, unsigned digits = 0) {
    if (t_) {
      if (k != PRINT_JSON) digits ? t_->hex0(v, int(digits)) : t_->hex(v);
    } else if (j_ && k != PRINT_FP) {
      if (key) j_->key(key);
      j_->num(v);
    }
    return *this;
  }
  // A GUID: JSON its string ("0x" and 16 digits); text %016x, no "0x"
  // (digits 0: %x).
  Printer& hexguid(PrintKind k, const char* key, uint64_t g, unsigned digits = 16) {
    if (t_) {
      if (k != PRINT_JSON) digits ? t_->hex0(g, int(digits)) : t_->hex(g);
    } else if (j_ && k != PRINT_FP) {
      if (key) j_->key(key);
      j_->guid(g);
    }
    return *this;
  }
  // A string: JSON the string; text as is (%s; width: %<width>s).
  Printer& strv(PrintKind k, const char* key, std::string_view v, unsigned width = 0) {
    if (t_) {
      if (k != PRINT_JSON) width ? t_->rpad(v, width) : t_->put(v);
    } else if (j_ && k != PRINT_FP) {
      if (key) j_->key(key);
      j_->str(v);
    }
    return *this;
  }
  // JSON "key": name, "keyRaw": raw; text the name.
  Printer& enumv(PrintKind k, const char* key, std::string_view name, uint64_t raw) {
    if (t_) {
      if (k != PRINT_JSON) t_->put(name);
    } else if (j_ && k != PRINT_FP) {
      j_->kenum(key, name, raw);
    }
    return *this;
  }
  // A described fragment whose text does not change between calls (a
  // destination's words, written once per LID per switch): the text is
  // made once into cache (empty: not made yet) and then copied; the JSON
  // is described each time.  describe() uses only the row path.
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
    return *this;
  }
  // The row path's text to the FILE.
  Printer& flush() {
    if (t_) t_->flush();
    return *this;
  }
  bool json() const { return j_ != nullptr; }

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
      text_raw(layout());
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
    text_raw(layout());
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
                  std::span<const std::string_view> hide = {}) {
    if (j_) j_->fields(desc, buf, hide);
    else text_raw(layout());
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
    if (!j_) {
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
  struct Arg;
  void text_value(PrintKind k, const char* fmt, const Arg& a);
  bool want_json(PrintKind k) const { return j_ && k != PRINT_FP; }

  FILE* f_;
  std::unique_ptr<JsonDoc> doc_;    // Doc::Whole
  std::unique_ptr<TextOut> o_;      // Doc::Stream
  std::unique_ptr<JsonOut> own_j_;  // Doc::Stream
  JsonOut* j_ = nullptr;            // JSON mode: the writer
  std::unique_ptr<TextOut> own_t_;  // text mode: the row path's buffer
  TextOut* t_ = nullptr;            // text mode: own_t_ (or a cached() capture)
  bool finished_ = false;
};

// printf into a string (any length): a text layout's line.
[[gnu::format(printf, 1, 2)]] std::string strfmt(const char* fmt, ...);

// A line the reference writes on stdout that is no part of the result (a
// progress line, its "iberror: failed" line): on stdout with the text, a
// diagnostic at level when stdout carries the JSON document.
[[gnu::format(printf, 2, 3)]] void text_or_log(log::Level level, const char* fmt, ...);

}  // namespace ibcore
