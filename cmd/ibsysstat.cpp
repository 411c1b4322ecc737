// ibsysstat: system status through the OpenFabrics sysstat class 0x33
// (OUI 0x001405 unless -o): ping (attribute 0x10), host (0x11: the host
// name) and cpu (0x12: a line per processor).  -S answers them.  The path
// to the target comes from an SA PathRecord (core/rpc/gmppath.h).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/ofavendor.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/base/error.h"
#include "core/rpc/gmppath.h"
#include "core/out/print.h"
#include "core/rpc/rpc.h"
#include "core/rpc/server.h"
#include "core/transport/transport.h"
#include "iba/vendor.h"

namespace {

struct Op {
  const char* name;
  uint16_t attr;
};
const Op OPS[] = {
    {"ping", iba::AttrId<iba::OFASysStatPing>::value},
    {"host", iba::AttrId<iba::OFASysStatHostInfo>::value},
    {"cpu", iba::AttrId<iba::OFASysStatCPUInfo>::value},
};

class IbSysStat : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_option("-o,--oui", oui_str_, "use specified OUI number")->option_text("<val>");
    app.add_flag("-S,--Server", server_, "start in server mode");
    flags_.bind(app, ibtool::tflag::Lid | ibtool::tflag::Guid | ibtool::tflag::SmPort);
    ibtool::add_common_options(app, config(), ibtool::opt::Gmp | ibtool::opt::Json);
    app.add_option("args", args_, "<dest lid|guid> [<op>]");
    app.callback([this] {
      if (server_) return;
      if (args_.empty() || args_.size() > 2) throw CLI::ValidationError("dest", "a destination is required");
      if (args_.size() == 2 && !find_op(args_[1])) throw CLI::ValidationError("op", "unknown op " + args_[1]);
    });
  }

  bool reports_errors() const override { return true; }

  int run() override {
    oui_ = ibtool::ofa::parse_oui(oui_str_);
    return server_ ? serve() : client();
  }

  // The reply text for each attribute the server answers.
  static std::string answer(uint16_t attr) {
    if (attr == iba::AttrId<iba::OFASysStatHostInfo>::value) return ibcore::ofa::host_and_domain();
    if (attr == iba::AttrId<iba::OFASysStatCPUInfo>::value) return ibcore::ofa::cpu_info();
    return {};
  }

private:
  static const Op* find_op(const std::string& s) {
    for (const auto& o : OPS)
      if (s == o.name) return &o;
    return nullptr;
  }

  int serve() {
    ibtool::Session s = ibtool::open_session(config());
    return ibcore::ofa::serve(*s.umad, iba::OFA_SYSSTAT_CLASS, oui_, iba::OFASysStatPing::DESC.size, answer);
  }

  int client() {
    const Op* op = args_.size() > 1 ? find_op(args_[1]) : &OPS[0];
    auto t = ibtool::open_gmp_target(config(), flags_, args_, 0, ibtool::ofa::CLIENT_TARGET);
    ibcore::MadTransactor& mad = t.mad();
    const ibcore::IBPath& path = t.path;
    std::vector<uint8_t> pl(iba::OFASysStatPing::DESC.size, 0);
    ibcore::MadRequest req;
    req.cls = iba::find_class(iba::OFA_SYSSTAT_CLASS);
    req.method = iba::method::GET;
    req.attr_id = op->attr;
    req.oui = oui_;
    req.payload = pl;
    std::vector<uint8_t> rep;
    try {
      rep = mad.call(req, path);
    } catch (const ibcore::MADError& e) {
      // The reference's errno: ETIMEDOUT for no reply, EIO for the rest.
      int err = dynamic_cast<const ibcore::MADTimeoutError*>(&e) ? ETIMEDOUT : EIO;
      ibtool::ref_fail(e, "ibsystat to Lid " + std::to_string(path.DLID) + ": " + std::strerror(err));
    }
    // {"LID", "op", and "reply" (the server's text: its host name, or a
    // line per processor) for host and cpu}
    ibcore::Printer p;
    p.open_object().uint(ibcore::PRINT_JSON, "LID", nullptr, path.DLID).str(ibcore::PRINT_JSON, "op", nullptr, op->name);
    if (op == &OPS[0])
      p.text("sysstat ping succeeded\n");
    else
      p.str(ibcore::PRINT_ANY, "reply", "%s\n", ibcore::ofa::text_of(ibcore::MadTransactor::payload_of(rep)));
    p.close_object().finish();
    std::fflush(stdout);
    return 0;
  }

  bool server_ = false;
  ibtool::TargetFlags flags_;
  std::string oui_str_;
  uint32_t oui_ = iba::OFA_OUI;
  std::vector<std::string> args_;
};

}  // namespace

IBTOOL_COMMAND({.name = "ibsysstat",
                .aliases = {},
                .summary = "system status of a host through OpenFabrics vendor MADs (client and -S server)",
                .description =
                    "Asks the sysstat server of a port (vendor class 0x33, OUI 0x001405 unless -o) for "
                    "one of: ping (the default: is the server there), host (its host name), cpu (a line "
                    "per processor: model and clock).  -S runs the server.  --json (-j; --pretty indents): "
                    "one document (its members and types: --json-schema).",
                .usage = "[options] <dest lid|guid> [<op>]",
                .examples = "  ibsysstat -S         # server\n"
                            "  ibsysstat 12 host\n"
                            "  ibsysstat 12 cpu",
                .make = [] { return std::make_unique<IbSysStat>(); }});
