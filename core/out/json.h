// Machine-readable output (--json, --pretty): one JSON document written
// straight into a TextOut buffer as the command walks its results, so a
// fabric-sized document (dump_fts on a k=32 fat tree: 12 million LFT
// entries) never exists as a tree in memory (docs/json.md).
//
//   ibcore::TextOut o(stdout);
//   ibcore::JsonOut j(o, pretty);
//   j.obj().key("lid").num(12).key("nodeGUID").guid(g).key("ports").arr();
//   ...  j.end();  j.end();
//   j.finish();                    // checks nesting, ends the line, flushes
//
// Conventions (iproute2's rdma -j/-p, and the schema rules): field
// names are the IBA's, as iba/ declares them; GUIDs and GIDs are strings
// ("0x0002c90300001491", "fe80::2:c903:0:1491"), and so is every other
// identifier wider than 53 bits (keys, GIDPrefix, 64-bit masks: iba/ Hex
// fields, "0x" and 16 digits); LIDs, ports and counters are numbers (a LID
// always a number), 64-bit counters written exactly; enumerations are their names
// with the raw value beside as <name>Raw; strings are written verbatim
// (bytes that are not UTF-8 become \u00XX).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "core/out/textout.h"
#include "iba/enums.h"
#include "iba/introspect.h"
#include "iba/struct.h"

namespace ibcore {

// Widest integer a JSON number carries exactly in every parser (a double's
// mantissa): wider identifiers are written as strings.
constexpr unsigned JSON_EXACT_BITS = 53;

class JsonOut {
public:
  JsonOut(TextOut& o, bool pretty) : o_(o), pretty_(pretty) {}
  JsonOut(const JsonOut&) = delete;
  JsonOut& operator=(const JsonOut&) = delete;

  // Containers (as a value: after key() inside an object, or an element).
  JsonOut& obj() { return open('{'); }
  JsonOut& arr() { return open('['); }
  JsonOut& end();
  // The key of the next value (inside an object).
  JsonOut& key(std::string_view k);

  // Values.
  JsonOut& num(uint64_t v) {
    value();
    o_.dec(v);
    return *this;
  }
  JsonOut& snum(int64_t v) {
    value();
    o_.sdec(v);
    return *this;
  }
  // A measurement (seconds, rates): the shortest text that reads back as v;
  // null for infinities and NaN (JSON has no such numbers).
  JsonOut& real(double v);
  JsonOut& boolean(bool b) {
    value();
    o_.put(b ? "true" : "false");
    return *this;
  }
  JsonOut& null() {
    value();
    o_.put("null");
    return *this;
  }
  JsonOut& str(std::string_view s) {
    value();
    quoted(s);
    return *this;
  }
  JsonOut& guid(uint64_t g) {
    value();
    o_.put("\"0x").hex0(g, 16).put('"');
    return *this;
  }
  JsonOut& gid(const iba::Gid& g);
  // Shorthands for key(k).value.
  JsonOut& kv(std::string_view k, uint64_t v) { return key(k).num(v); }
  JsonOut& ks(std::string_view k, std::string_view v) { return key(k).str(v); }
  JsonOut& kb(std::string_view k, bool v) { return key(k).boolean(v); }
  JsonOut& kguid(std::string_view k, uint64_t g) { return key(k).guid(g); }
  // An enumeration: "k": "Name", "kRaw": raw; its name given, or raw's in e
  // (a set of bits: their names joined by ',').
  JsonOut& kenum(std::string_view k, std::string_view name, uint64_t raw);
  JsonOut& kenum(std::string_view k, const iba::enums::Enumeration& e, uint64_t raw);

  // Every non-reserved field of an IBA structure, as keys of the current
  // object, named as iba/ declares them (the names query and decode_mad
  // use): nested structures as objects, arrays as arrays, enumerations as
  // names with <field>Raw beside.
  // hide: fields left out, at any depth (keys the text shows only on
  // request: a PortInfoRecord's portInfo.MKey).
  // A field whose declaration names a validity (iba/struct.h) is null where
  // its capability is known to be absent (iba::field_valid): caps, what the
  // caller knows (a PMA's ClassPortInfo masks, a switch port's port 0
  // masks), and what the structure itself carries (iba::own_capabilities:
  // a PortInfo's own masks).  Never a number the agent did not fill.
  JsonOut& fields(const iba::StructDesc& desc, const uint8_t* buf, std::span<const std::string_view> hide = {},
                  const iba::Capabilities& caps = {});
  template <class T>
  JsonOut& fields(const T& s) {
    return fields(T::DESC, s.buf.data());
  }
  // One field (by its declaration) as a key and value of the current object
  // (null where caps say it is not valid, as fields() does).
  JsonOut& field(const iba::FieldDesc& f, uint32_t bit_off, const uint8_t* buf);
  JsonOut& field(const iba::FieldDesc& f, uint32_t bit_off, const uint8_t* buf, const iba::Capabilities& caps);

  // End of the document: a newline, and the buffer written out.  Throws
  // std::logic_error if a container is still open (a writer bug).
  void finish();
  // Close every container still open, then finish(): a run that fails part
  // way still leaves one whole document (what it read) on stdout.
  void close_all();

private:
  JsonOut& open(char c);
  void value();      // separator and indentation before a value
  void newline();    // pretty: newline and indentation of the current depth
  void quoted(std::string_view s);   // '"', escaped(s), '"'
  void escaped(std::string_view s);  // s as a JSON string's content
  JsonOut& raw_key(std::string_view k, uint64_t raw);  // "<k>Raw": raw
  void scalar(const iba::FieldDesc& f, uint32_t bit_off, const uint8_t* buf);
  void fields_at(const iba::StructDesc& desc, uint32_t base, const uint8_t* buf);

  TextOut& o_;
  bool pretty_;
  struct Level {
    char close;  // '}' or ']'
    bool any;    // a member was written
  };
  std::vector<Level> stack_;
  bool after_key_ = false;
  std::span<const std::string_view> hide_;  // fields(): names left out
  iba::Capabilities caps_;                  // fields(): what makes optional fields valid
};

// A document held in memory until it is whole: commit() writes it to the
// FILE; a run that throws (or returns) before commit() leaves nothing on
// stdout, its failure on stderr.  For commands whose work can fail part way
// through what the document describes (vendstat, set_*).
//
//   ibcore::JsonDoc doc(ibcore::json_pretty());
//   doc.j().obj().ks("destination", d);  ...  doc.j().end();
//   doc.commit();
class JsonDoc {
public:
  explicit JsonDoc(bool pretty);
  ~JsonDoc();
  JsonDoc(const JsonDoc&) = delete;
  JsonDoc& operator=(const JsonDoc&) = delete;
  JsonOut& j() { return *j_; }
  // finish() the document and write it to f.
  void commit(FILE* f = stdout);

private:
  char* buf_ = nullptr;
  size_t len_ = 0;
  FILE* mem_ = nullptr;
  std::unique_ptr<TextOut> o_;
  std::unique_ptr<JsonOut> j_;
};

// What stdout carries in this process: --json/--pretty's document or the
// reference's text.  Like the log's verbosity, a setting of the process's
// output stream, not of a session: the dispatcher sets it from the
// invocation's Config before the command runs.
void set_json_output(bool json, bool pretty);
bool json_enabled();
bool json_pretty();

}  // namespace ibcore
