// Printing in the reference tools' layout: "Label:........value" lines as
// smpquery, perfquery and friends print them.  A layout is a table of
// (label, field name, formatter) rows over a structure declared in iba/;
// the fields are found by name through introspection, so no offset is
// written twice.  Formatters are plain functions; common ones live here,
// attribute-specific ones next to their layout tables.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "iba/introspect.h"

namespace iba::ref {

// Formats the value of one field; v is the field read as an integer (for
// fields up to 64 bits), ref/buf allow anything else.
using FormatFn = std::string (*)(uint64_t v, const FieldRef& ref, const uint8_t* buf);

struct Line {
  const char* label;  // e.g. "BaseVers"
  const char* field;  // dotted field name in the structure, e.g. "baseVersion"
  FormatFn fmt;
};

// Column where values start: the label, a colon and dots fill 33 columns
// ("BaseVers:........................1").
constexpr size_t VALUE_COLUMN = 33;

// One "label:....value" line (with the newline).
std::string dotted(std::string_view label, std::string_view value);

// All lines of a layout.  Throws std::logic_error if a row names a field
// that does not exist (a bug in the table, caught by unit tests).
std::string dump(const StructDesc& desc, const uint8_t* buf, std::span<const Line> lines);

// "0x" and v in lowercase hex, zero padded to at least `digits` digits
// (printf's "0x%0*llx", without printf's cost: a print formats a few dozen).
std::string hex_padded(uint64_t v, int digits);

// Common formatters.
std::string dec(uint64_t v, const FieldRef&, const uint8_t*);        // 12
std::string hex(uint64_t v, const FieldRef& r, const uint8_t*);      // 0x000c, zero padded to the field width
std::string hex_plain(uint64_t v, const FieldRef&, const uint8_t*);  // 0xc
std::string guid(uint64_t v, const FieldRef&, const uint8_t*);       // 0x0002c90300001491
std::string gid(uint64_t, const FieldRef& r, const uint8_t* buf);    // fe80::...
std::string str(uint64_t, const FieldRef& r, const uint8_t* buf);    // the string as is

}  // namespace iba::ref
