// Decoding whole MADs: identify class, method and attribute through the
// class registry, and print the full decode (header and format fields, then
// the attribute payload, nested) in the detailed dump format.  Also parses
// MADs given as text (hex, smpdump's output, our own -dd dumps).
//
//   std::vector<uint8_t> mad = ...;
//   std::string one_line = iba::mad_summary(mad);  // "SubnGetResp(129) SMPFormat(1.1) SMPNodeInfo(17)"
//   std::string full = iba::decode_mad(mad);       // summary line + dump
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "iba/mad.h"

namespace iba {

constexpr size_t MAD_HEADER_SIZE = 24;

struct MadInfo {
  uint8_t base_version = 0, mgmt_class = 0, class_version = 0, method = 0;
  uint16_t status = 0, attr_id = 0;
  uint32_t attr_mod = 0;
  uint64_t tid = 0;
  const ClassDesc* cls = nullptr;  // nullptr: class unknown to the registry
  const AttrDesc* attr = nullptr;  // nullptr: attribute unknown to the class
  bool version_mismatch = false;   // class known, but not this class version
};

// Reads the common header (needs >= 24 bytes) and looks the class and
// attribute up.
MadInfo identify_mad(std::span<const uint8_t> mad);

// "SubnGetResp(129) SMPFormatDirected(129.1) SMPNodeInfo(17)"; unknown parts
// are shown by number: "Class(0x2a.1) Attribute(0x0099)".
std::string mad_summary(std::span<const uint8_t> mad);
std::string attr_label(const MadInfo& m);    // "SMPNodeInfo(17)"
std::string format_label(const MadInfo& m);  // "SMPFormat(1.1)"

// The full decode: the summary line, the status text if not zero, the
// format's fields word by word, the payload as its attribute structure
// (GetTable replies: each record; Notice: the trap details), or as hex with
// a note when the attribute is unknown.  mad may be shorter than 256 bytes
// (it is zero padded) but not shorter than the header.
std::string decode_mad(std::span<const uint8_t> mad);

// The -dd dump of a MAD (what the RPC trace and MADError at -vv show): the
// format's fields in the detailed dump format, then "+ <attribute>" and the
// attribute's fields; an unknown class as its header and the payload in hex.
std::string dump_mad(std::span<const uint8_t> mad);

// Only the payload of an attribute, e.g. smpdump's 64 data bytes.
std::string decode_payload(const StructDesc& desc, std::span<const uint8_t> data, uint32_t base_off = 0);

// Parse a MAD given as text: hex bytes separated by whitespace, colons or
// commas (0x prefixes allowed), smpdump's output ("0101 0102 ..." lines, its
// "SMP status" line ignored), or a detailed dump ("  8 000079FF name=..."
// lines, placed at their offsets).  Returns nullopt and sets *err on bad
// input.  Size limits are the caller's (see check_mad_size).
std::optional<std::vector<uint8_t>> parse_mad_text(std::string_view text, std::string* err);

// "" if 24 <= size <= 256, else the reason.
std::string check_mad_size(size_t n);

}  // namespace iba
