// The JSON Schema of a command's document, derived from the document the
// command's own descriptions wrote (`--json-schema`, docs/json.md): no
// command writes its schema out by hand, so it cannot drift from what the
// command prints.
//
// Read by the rules every document follows (docs/json.md "The rules"):
// - a string "0x" and 16 hex digits is a GUID (or another identifier wider
//   than 53 bits): {"type": "string", "format": "guid"};
// - a string member K beside an integer member KRaw is an enumeration:
//   K {"type": "string", "description": "enumeration, raw value in KRaw"};
// - objects list their members in the document's order, "required" those
//   every instance of the object has; an array's "items" is the union of
//   its elements' schemas; a member null in one instance and a number in
//   another is {"type": ["integer", "null"]} (a field its capability left
//   out, docs/json.md).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace ibcore {

// doc: one JSON document (std::invalid_argument when it is not one).
// The schema (JSON Schema 2020-12) as one document, indented with pretty.
std::string json_schema_of(std::string_view doc, bool pretty);

}  // namespace ibcore
