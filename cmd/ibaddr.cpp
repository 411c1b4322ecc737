// ibaddr: the GID and LID range of a port.
#include <cstdio>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/out/print.h"
#include "core/rpc/satransactor.h"
#include "iba/smp.h"

namespace {

using ibcore::IBPath;

class IbAddr : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    ibtool::bind_ref_help(app, help_);
    app.add_flag("-g,--gid_show", gid_, "show gid address only");
    app.add_flag("-l,--lid_show", lid_, "show lid range only");
    app.add_flag("-L,--Lid_show", lid_dec_, "show lid range (in decimal) only");
    flags_.bind(app, ibtool::tflag::Direct | ibtool::tflag::Guid | ibtool::tflag::SmPort);
    ibtool::add_common_options(app, config(), ibtool::opt::Smp | ibtool::opt::Json);
    app.add_option("args", args_, "[<lid|dr_path|guid>]");
  }

  bool reports_errors() const override { return true; }

  int run() override {
    if (help_) return ibtool::ref_help_exit(app());
    // No argument: the local port itself (DR path 0).
    std::vector<std::string> a = args_.empty() ? std::vector<std::string>{"0"} : args_;
    ibtool::TargetFlags f = flags_;
    if (args_.empty()) f = ibtool::TargetFlags{}, f.direct = true;
    auto t = ibtool::open_smp_target(config(), f, a, 0);
    const IBPath& path = t.path;
    ibcore::SmpSource src(t.mad());
    iba::SMPNodeInfo ni;
    iba::SMPPortInfo pi;
    try {
      ni = src.SubnGet<iba::SMPNodeInfo>(path);
      pi = src.SubnGet<iba::SMPPortInfo>(path, 0);
    } catch (const std::exception& e) {
      ibtool::ref_fail(e, "can't resolve requested address");
    }
    print(ni, pi);
    return 0;
  }

private:
  // The text shows what -g/-l/-L choose; the document has it all:
  // {"GID", "portGUID", "GIDPrefix", "LID", "LMC", "endLID"}.
  void print(const iba::SMPNodeInfo& ni, const iba::SMPPortInfo& pi) const {
    using ibcore::PRINT_ANY, ibcore::PRINT_JSON;
    bool show_gid = gid_ || (!lid_ && !lid_dec_);
    bool show_lid = lid_ || lid_dec_ || !gid_;
    if (gid_ && (lid_ || lid_dec_)) show_gid = show_lid = true;
    unsigned start = unsigned(pi.LID());
    ibcore::Printer p;
    p.open_object();
    p.gid(show_gid ? PRINT_ANY : PRINT_JSON, "GID", "GID %s ", iba::Gid::from(pi.GIDPrefix(), ni.portGUID()));
    p.guid(PRINT_JSON, "portGUID", nullptr, ni.portGUID()).guid(PRINT_JSON, "GIDPrefix", nullptr, pi.GIDPrefix());
    const auto lids = show_lid ? PRINT_ANY : PRINT_JSON;
    p.uint(lids, "LID", lid_dec_ ? "LID start %u" : "LID start 0x%x", start);
    p.uint(PRINT_JSON, "LMC", nullptr, pi.LMC());
    p.uint(lids, "endLID", lid_dec_ ? " end %u" : " end 0x%x", start + (1u << pi.LMC()) - 1);
    p.text("\n").close_object().finish();
  }

  ibtool::TargetFlags flags_;
  bool gid_ = false, lid_ = false, lid_dec_ = false, help_ = false;
  std::vector<std::string> args_;
};

}  // namespace

IBTOOL_COMMAND({.name = "ibaddr",
                .aliases = {},
                .summary = "show the GID and LID range of a port",
                .description = "Queries NodeInfo and PortInfo of the destination (default: the local "
                               "port) and prints its GID (subnet prefix and port GUID) and the LID "
                               "range its LMC gives.  --json (-j; --pretty indents): one document (its members and types: --json-schema).",
                .usage = "[options] [<lid|dr_path|guid>]",
                .examples = "  ibaddr\n  ibaddr 32\n  ibaddr -G 0x8f1040023\n  ibaddr -l 32\n  ibaddr -L 32\n"
                            "  ibaddr -g 32",
                .make = [] { return std::make_unique<IbAddr>(); }});
