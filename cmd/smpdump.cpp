// smpdump: one SubnGet of any attribute ID, the 64 data bytes dumped in hex
// as the reference does (or as a string with -s, or decoded with --decode).
// With --sa the attribute comes from the SA's record instead (no SMP).
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/out/print.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/rpc/satransactor.h"
#include "iba/decode.h"
#include "iba/mad.h"
#include "iba/smp.h"
#include "core/out/log.h"

namespace {

using ibcore::IBPath;

constexpr size_t SMP_DATA_OFF = 64, SMP_DATA_SIZE = 64;
constexpr uint16_t DR_DIRECTION = 0x8000;  // a directed route SMP's status: the reply's D bit

// The 64 data bytes: 16 a line in groups of two bytes.
std::string hex_dump(const uint8_t* d) {
  std::string s;
  char b[8];
  for (size_t i = 0; i < SMP_DATA_SIZE; i += 2) {
    std::snprintf(b, sizeof b, "%02x%02x", d[i], d[i + 1]);
    s += b;
    s += (i % 16 == 14) ? '\n' : ' ';
  }
  return s;
}

class SmpDump : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    ibtool::bind_ref_help(app, help_);
    app.add_flag("-s,--string", string_, "print the data as a string (up to its first NUL)");
    app.add_flag("--decode", decode_, "print the attribute decoded field by field instead of in hex");
    flags_.bind(app, ibtool::tflag::Direct | ibtool::tflag::Lid);
    ibtool::add_common_options(app, config(), ibtool::opt::Mad | ibtool::opt::MKey | ibtool::opt::Sa | ibtool::opt::Json);
    app.add_option("args", args_, "<dlid|dr_path> <attr> [mod]");
  }

  bool reports_errors() const override { return true; }

  int run() override {
    if (help_ || args_.size() < 2) return ibtool::ref_help_exit(app());
    // The reference reads numbers with strtoul(.., 0): junk is 0.
    uint16_t attr = uint16_t(std::strtoul(args_[1].c_str(), nullptr, 0));
    uint32_t mod = args_.size() > 2 ? uint32_t(std::strtoul(args_[2].c_str(), nullptr, 0)) : 0;
    if (config().use_sa && !ibcore::sa_mapping(attr)) {
      ibcore::log::error("E: SMP attribute 0x%04x has no SA record: it cannot be read with --sa\n", attr);
      return 1;
    }
    IBPath target;
    auto s = ibtool::open_for_target(config(), app().get_name(), flags_, args_, 0, target, args_[0], false);
    IBPath path = ibcore::resolve_for_smp(*s->mad, target);
    if (config().use_sa) return query_sa(*s, path, attr, mod);
    return query(*s, path, attr, mod);
  }

private:
  // --sa: the attribute unwrapped from its SA record, in the place it has
  // in an SMP's data (the rest zero, as an SMA's reply has it), and the
  // status a directed route's reply carries (its direction bit).  A read
  // that fails (no such record or route: where an SMP goes unanswered or
  // is refused with a status the SA does not tell) is dumped as an
  // unanswered SMP is: zeros, the error on stderr.
  int query_sa(ibtool::Session& s, const IBPath& path, uint16_t attr, uint32_t mod) {
    std::array<uint8_t, SMP_DATA_SIZE> data{};
    uint16_t status = 0;
    try {
      ibcore::SATransactor sa(*s.mad);
      auto a = sa.get(attr, path, mod);
      std::memcpy(data.data(), a.data(), std::min(a.size(), data.size()));
      if (path.is_dr()) status = DR_DIRECTION;
    } catch (const ibcore::MADError& e) {
      ibcore::report(e);
    }
    print(attr, mod, data.data(), status);
    return 0;
  }

  int query(ibtool::Session& s, const IBPath& path, uint16_t attr, uint32_t mod) {
    // A SubnGet of any ID, defined or not (build_mad sends unknown IDs as
    // given).
    ibcore::MadRequest req;
    req.cls = iba::find_class(iba::mgmt::SUBN_LID_ROUTED);
    req.method = iba::method::GET;
    req.attr_id = attr;
    req.amod = mod;
    ibcore::PendingMad p;
    p.req_len = ibcore::build_mad(p.req.data(), req, path, 0);
    p.path = &path;
    s.mad->engine().submit(p);
    s.mad->engine().wait(p);

    std::array<uint8_t, iba::MAD_SIZE> mad{};
    uint16_t status = 0;
    try {
      ibcore::check_reply(p);
    } catch (const ibcore::MADClassError& e) {
      // An error status still carries a reply: dump it with its status.
    } catch (const std::exception& e) {
      // No reply: the reference dumps its zeroed buffer and succeeds.
      ibcore::report(e);
    }
    if (p.rep_len) {
      std::memcpy(mad.data(), p.rep.data(), std::min(p.rep_len, mad.size()));
      status = uint16_t(iba::MADHeader::status_at(mad.data()));
    }
    print(attr, mod, mad.data() + SMP_DATA_OFF, status);
    return 0;
  }

  // --json: {"attributeID", "attributeModifier", "status", "data" (the 64
  // bytes in hex), and for an attribute iba/ declares "attribute" (its
  // name) and "fields" (decoded, as query shows them)}.  The text: the data
  // as -s, --decode or the hex dump say, then the status when not zero.
  void print(uint16_t attr, uint32_t mod, const uint8_t* data, uint16_t status) const {
    using ibcore::PRINT_FP, ibcore::PRINT_JSON;
    ibcore::Printer p;
    p.open_object().uint(PRINT_JSON, "attributeID", nullptr, attr).uint(PRINT_JSON, "attributeModifier", nullptr, mod);
    p.uint(PRINT_JSON, "status", nullptr, status);
    std::string hex;
    char b[3];
    for (size_t i = 0; i < SMP_DATA_SIZE; ++i) {
      std::snprintf(b, sizeof b, "%02x", data[i]);
      hex += b;
    }
    p.str(PRINT_JSON, "data", nullptr, hex);
    const iba::ClassDesc* c = iba::find_class(iba::mgmt::SUBN_LID_ROUTED);
    if (const iba::AttrDesc* a = c ? iba::find_attr(*c, attr) : nullptr) {
      p.str(PRINT_JSON, "attribute", nullptr, a->desc->name);
      p.open_object("fields").fields(*a->desc, data).close_object();
    }
    if (decode_)
      p.lit(decoded(attr, data));
    else if (string_)
      p.str(PRINT_FP, nullptr, "%s\n",
            std::string_view(reinterpret_cast<const char*>(data), strnlen(reinterpret_cast<const char*>(data), SMP_DATA_SIZE)));
    else
      p.lit(hex_dump(data));
    if (status) p.uint(PRINT_FP, nullptr, "SMP status: 0x%x\n", status);
    p.close_object().finish();
  }

  static std::string decoded(uint16_t attr, const uint8_t* data) {
    const iba::ClassDesc* c = iba::find_class(iba::mgmt::SUBN_LID_ROUTED);
    const iba::AttrDesc* a = c ? iba::find_attr(*c, attr) : nullptr;
    char b[96];
    if (!a) {
      std::snprintf(b, sizeof b, "Attribute(%u) payload (not a known SMP attribute)\n", attr);
      return b + hex_dump(data);
    }
    std::snprintf(b, sizeof b, "%s(%u) payload\n", a->desc->name, attr);
    return b + iba::decode_payload(*a->desc, {data, std::min<size_t>(SMP_DATA_SIZE, a->desc->size)});
  }

  ibtool::TargetFlags flags_;
  bool string_ = false, decode_ = false, help_ = false;
  std::vector<std::string> args_;
};

}  // namespace

IBTOOL_COMMAND({.name = "smpdump",
                .aliases = {},
                .summary = "dump any SMP attribute of a node in hex",
                .description = "Sends one SubnGet of the attribute ID (any ID, defined or not) with the "
                               "modifier to the destination (a LID, a DR path, a GUID/GID or a path "
                               "spec) and dumps the 64 data bytes in hex, followed by the SMP status "
                               "when it is not zero.  -s prints the data as a string, --decode prints "
                               "the attribute field by field.  A request nobody answers dumps zeros "
                               "(as the reference does) and says so on stderr.  --json (-j; --pretty indents): one document (its members and types: --json-schema).",
                .usage = "[options] <dlid|dr_path> <attr> [mod]",
                .examples = "  smpdump -D 0,1,2,3,5 16\n"
                            "  smpdump -D 0,1,2 0x15 2\n"
                            "  smpdump 3 0x15 2\n"
                            "  smpdump --decode 0xa0 0x11",
                .make = [] { return std::make_unique<SmpDump>(); }});
