// decode_mad: pretty-print one MAD given as hex, as smpdump's output, as one
// of our -dd dumps, or as raw bytes.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/out/print.h"
#include "core/base/textfile.h"
#include "iba/decode.h"
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
                   "the input is only the payload of this attribute (a structure name such as "
                   "SMPPortInfo, or an SMP attribute ID), e.g. smpdump's output")
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
    if (auto why = iba::check_mad_size(bytes.size()); !why.empty()) return fail(why);
    std::fputs(iba::decode_mad(bytes).c_str(), stdout);
    return 0;
  }

private:
  int fail(const std::string& m) {
    ibcore::log::error("E: %s\n", m.c_str());
    return 1;
  }

  int payload(const std::vector<uint8_t>& bytes) {
    const iba::AttrDesc* a = nullptr;
    auto id = iba::parse_uint(attr_);
    for (const iba::ClassDesc* c : iba::all_classes()) {
      a = id ? (c->mgmt_class == iba::mgmt::SUBN_LID_ROUTED ? iba::find_attr(*c, uint16_t(*id)) : nullptr)
             : iba::find_attr(*c, attr_);
      if (a) break;
    }
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
                    "spaces, newlines, colons or commas, smpdump's output, or a -dd dump; "
                    "--binary reads the raw bytes.  With --attr the input is only an "
                    "attribute's payload.  A MAD shorter than its 24 byte header or longer "
                    "than 256 bytes is an error.  --json (-j; --pretty indents) with --attr: "
                    "{\"attribute\", \"attributeID\", \"data\": {every field as iba/ declares it}}.",
                .usage = "[options] [FILE]",
                .examples = "  ibtool decode_mad mad.hex\n"
                            "  smpdump -D 0 0x15 1 | ibtool decode_mad --attr SMPPortInfo\n"
                            "  ibtool decode_mad --binary < mad.bin",
                .make = [] { return std::make_unique<DecodeMad>(); },
                .own = true});
