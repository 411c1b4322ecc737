// Generic operations driven by the field tables of iba/struct.h: find a
// field by dotted name, read and write it as text, print a structure, dump
// it in detail, compute SA component masks.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "iba/struct.h"

namespace iba {

// A resolved field: which field, and where its (selected element) lives.
struct FieldRef {
  const FieldDesc* field = nullptr;
  uint32_t bit_off = 0;      // absolute offset of the element/field in the buffer
  int index = -1;            // array element selected, -1 = whole field
  std::string path;          // canonical dotted name, e.g. "nodeInfo.portGUID"
  uint32_t component = 0;    // SA component number of the leaf (see component_mask)

  uint32_t width() const { return index >= 0 || field->count == 1 ? field->width : field->total_bits(); }
};

// Resolve "a.b.c", "table[3]" or "table.3" in desc.  Matching is
// case-insensitive.  Returns nullopt (and sets *err) when it does not exist.
std::optional<FieldRef> find_field(const StructDesc& desc, std::string_view dotted,
                                   std::string* err = nullptr);

// Every leaf field of desc in order, nested structures flattened with dotted
// names; arrays of scalars are one leaf; reserved fields included only when
// with_reserved.
std::vector<FieldRef> leaves(const StructDesc& desc, bool with_reserved = false);

// The value of a (leaf) field as text: decimal for Uint/Int, 0x.. for Hex
// and Lid/Guid as the detailed dumps show them, GID text, quoted strings,
// hex bytes.
std::string format_value(const FieldRef& ref, const uint8_t* buf);
uint64_t get_uint(const FieldRef& ref, const uint8_t* buf);

// Parse text for a field and store it.  Accepted forms: decimal, 0x hex,
// octal with a leading 0, GUIDs as 0x... or 0002:c903:0000:1491, GIDs in
// IPv6 form, strings as-is, bytes as hex (colons/spaces allowed).
bool set_from_text(const FieldRef& ref, uint8_t* buf, std::string_view text, std::string* err = nullptr);

// Parse "name=value" assignments into buf; returns the component mask of
// the fields set (SA rules).  Throws std::invalid_argument on error.
uint64_t apply_assignments(const StructDesc& desc, uint8_t* buf, const std::vector<std::string>& assigns);

// SA component mask bit of a field: the IBA numbers every leaf component of
// a record in order, reserved ones included (arrays count once).
uint64_t component_mask(const FieldRef& ref);

// find_field for a name written in the code (not user input): a name that
// does not exist is a programming error, thrown as std::logic_error.
FieldRef field_named(const StructDesc& desc, std::string_view dotted);
// The component mask bit of that field (SA queries built in code).
inline uint64_t component_mask(const StructDesc& desc, std::string_view dotted) {
  return component_mask(field_named(desc, dotted));
}

// "name......value" lines (python-rdma's printer): one per non-reserved leaf.
std::string print_fields(const StructDesc& desc, const uint8_t* buf, std::string_view prefix = "");

// Detailed dump: per 32-bit word the byte offset, the word in hex and the
// fields that start in it as name=value; nested structures are announced
// with "+ name Type" and indented.  base_off is added to printed offsets.
std::string dump_detailed(const StructDesc& desc, const uint8_t* buf, uint32_t base_off = 0,
                          int indent = 0);

// dump_detailed with some top-level fields (Bytes/Struct, word aligned)
// shown as another structure: "+ name Type" then that structure dumped over
// the field's bytes (count times, each `desc->size` bytes apart, when count
// > 1: the records of a table).  Words of the field beyond them are shown
// only if not zero.  desc nullptr and count 0: the field is not shown.
struct DumpAs {
  std::string_view field;  // top-level field name, e.g. "data"
  const StructDesc* desc;  // nullptr: dump the field's words as plain hex
  uint32_t count = 1;
  uint32_t stride = 0;     // bytes between records (0 = desc->size)
  std::span<const DumpAs> inner = {};  // applied inside desc
};
std::string dump_detailed(const StructDesc& desc, const uint8_t* buf, uint32_t base_off, int indent,
                          std::span<const DumpAs> as);

// What is known of the capabilities that make optional fields valid
// (iba/enums.h Validity): the PMA's ClassPortInfo masks, the port's
// PortInfo masks, a PortInfoExtended's own CapabilityMask; nullopt: not
// known.
struct Capabilities {
  std::optional<uint32_t> pm_cap, pm_cap2, port_cap, port_cap2, port_ext_cap;
};
// Whether field f holds a value: true when it names no validity or its
// capability is there; false when the capability is known and lacks it;
// nullopt when a capability it needs is not known.
std::optional<bool> field_valid(const FieldDesc& f, const Capabilities& c);
// The capabilities a structure's own bytes carry for its fields, over
// given (a known one stays): a structure with a PortInfo's capabilityMask
// (and capabilityMask2) and fields that need them reads them from buf
// (at bit base) when they are not given.  A zero CapabilityMask counts as
// unknown: it is reserved on a switch's ports other than 0, whose masks
// are port 0's.  A structure whose fields need its own mask of another
// kind (PortInfoExtended's: PortExtCap) reads that one instead, and there
// zero is an answer.
Capabilities own_capabilities(const StructDesc& desc, const uint8_t* buf, uint32_t base, Capabilities given);

// Helpers for values.
bool iequals(std::string_view a, std::string_view b);  // ASCII case-insensitive
std::string guid_str(uint64_t g);             // 0002:c903:0000:1491
std::optional<uint64_t> parse_guid(std::string_view s);  // 0x.., colon form, plain hex
std::optional<Gid> parse_gid(std::string_view s);
std::optional<uint64_t> parse_uint(std::string_view s);  // decimal, 0x hex, 0 octal
std::string hex_bytes(std::span<const uint8_t> b);

}  // namespace iba
