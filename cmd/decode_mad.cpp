// decode_mad: pretty-print one MAD given as hex, as smpdump's output, as one
// of our -dd dumps, or as raw bytes.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/out/print.h"
#include "core/base/textfile.h"
#include "iba/decode.h"
#include "iba/attr_names.h"
#include "iba/introspect.h"
#include "iba/mad.h"
#include "core/out/log.h"

namespace {

class DecodeMad : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_option("file", file_, "file holding the MAD (default: standard input)")->option_text("[FILE]");
    app.add_flag("--binary", binary_, "the input is the raw bytes of the MAD, not text");
    app.add_option("-a,--attr", attr_,
                   "the input is only the payload of this attribute, named as query names it (PortInfo, "
                   "SMPPortInfo, NodeRecord, ...) or by its SMP attribute ID, e.g. smpdump's output")
        ->option_text("<attr>");
    ibtool::add_common_options(app, config(), ibtool::opt::Json);
  }

  // The document is of an attribute's payload; a whole MAD's decoding has
  // no JSON form yet.
  const char* no_json_form() const override {
    return attr_.empty() ? "decodes an attribute's payload (--attr) only, for now" : nullptr;
  }

  int run() override {
    std::string raw;
    if (!ibcore::read_text(file_.empty() ? "-" : file_, raw)) return fail("cannot open " + file_);
    std::vector<uint8_t> bytes;
    if (binary_) {
      bytes.assign(raw.begin(), raw.end());
    } else {
      std::string err;
      auto b = iba::parse_mad_text(raw, &err);
      if (!b) return fail("bad input: " + err);
      bytes = std::move(*b);
    }
    if (!attr_.empty()) return payload(bytes);
    // smpdump prints an SMP's 64 data bytes only: the header that would name
    // the attribute is not in its output, so the attribute must be given.
    if (smpdump_output(raw, bytes))
      return fail("this is smpdump's output, an SMP's 64 data bytes without the MAD header that names "
                  "its attribute: give the attribute smpdump was asked for, e.g. --attr 0x15 or --attr PortInfo");
    if (auto why = iba::check_mad_size(bytes.size()); !why.empty()) return fail(why);
    std::fputs(iba::decode_mad(bytes).c_str(), stdout);
    return 0;
  }

private:
  // smpdump's text: 64 bytes as four lines of eight 4-digit hex groups (its
  // "SMP status: 0x..." line aside).
  static bool smpdump_output(std::string_view raw, const std::vector<uint8_t>& bytes) {
    if (bytes.size() != 64) return false;
    size_t lines = 0, start = 0;
    while (start < raw.size()) {
      size_t end = raw.find('\n', start);
      if (end == std::string_view::npos) end = raw.size();
      std::string_view l = raw.substr(start, end - start);
      start = end + 1;
      if (l.find_first_not_of(" \t\r") == std::string_view::npos || l.rfind("SMP status", 0) == 0) continue;
      if (l.size() < 39 || l.size() > 40) return false;  // "xxxx xxxx ... xxxx"
      for (size_t i = 0; i < 39; ++i)
        if (i % 5 == 4 ? l[i] != ' ' : !std::isxdigit(static_cast<unsigned char>(l[i]))) return false;
      ++lines;
    }
    return lines == 4;
  }

  int fail(const std::string& m) {
    ibcore::log::error("E: %s\n", m.c_str());
    return 1;
  }

  int payload(const std::vector<uint8_t>& bytes) {
    // The names query takes; a number is an SMP attribute ID (smpdump's).
    const bool by_id = iba::parse_uint(attr_).has_value();
    const auto smp = iba::mgmt::SUBN_LID_ROUTED;
    const iba::AttrDesc* a = (by_id ? iba::find_attr_named(attr_, smp, smp) : iba::find_attr_named(attr_)).second;
    if (!a) return fail("unknown attribute '" + attr_ + "'");
    if (bytes.empty()) return fail("no payload bytes");
    if (bytes.size() > iba::MAD_SIZE) return fail(iba::check_mad_size(bytes.size()));
    // {"attribute", "attributeID", "data": {every field}}; the text: a
    // title line and the payload field by field.
    std::vector<uint8_t> buf(a->desc->size, 0);
    std::memcpy(buf.data(), bytes.data(), std::min(bytes.size(), buf.size()));
    ibcore::Printer p;
    p.open_object().str(ibcore::PRINT_ANY, "attribute", "%s", a->desc->name);
    p.uint(ibcore::PRINT_ANY, "attributeID", "(%u) payload\n", a->id);
    p.attribute("data", *a->desc, buf.data(), [&] { return iba::decode_payload(*a->desc, bytes); });
    p.close_object().finish();
    return 0;
  }

  std::string file_, attr_;
  bool binary_ = false;
};

}  // namespace

IBTOOL_COMMAND({.name = "decode_mad",
                .aliases = {},
                .summary = "decode a MAD given as hex, a dump or raw bytes",
                .description =
                    "Reads one MAD from FILE or standard input and prints its full decode: the "
                    "method, class and attribute, the header and format fields word by word, "
                    "then the attribute payload field by field (every record of a table reply, "
                    "the trap details of a Notice).  The input may be hex bytes separated by "
                    "spaces, newlines, colons or commas, smpdump's output (with --attr naming the "
                    "attribute: smpdump prints only its data), or a -dd dump; "
                    "--binary reads the raw bytes.  With --attr the input is only an "
                    "attribute's payload.  A MAD shorter than its 24 byte header or longer "
                    "than 256 bytes is an error.  --json (-j; --pretty indents) with --attr: "
                    "one document (its members and types: --json-schema).",
                .usage = "[options] [FILE]",
                .examples = "  ibtool decode_mad mad.hex\n"
                            "  smpdump -D 0 0x15 1 | ibtool decode_mad --attr PortInfo\n"
                            "  ibtool decode_mad --binary < mad.bin",
                .make = [] { return std::make_unique<DecodeMad>(); },
                .own = true});
