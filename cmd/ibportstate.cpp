// ibportstate: show the state, LIDs, width and speed of one port, check a
// switch port against its peer, or change the port with a SubnSet of its
// PortInfo (state, physical state, enabled speeds and widths, LIDs, VLs,
// MTU, M_Key fields) and the FDR10 speed through MlnxExtPortInfo.  With
// --sa the queries read the SA's PortInfoRecords instead (no SMP); the SA
// cannot change a port, so the set ops are refused.
#include <cstdio>
#include <cstdlib>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/out/print.h"
#include "core/base/config.h"
#include "core/fabric/portstate.h"
#include "core/base/error.h"
#include "core/out/log.h"

namespace {

using ibcore::IBPath;
namespace PS = ibcore::portstate;

class IbPortState : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    ibtool::bind_ref_help(app, help_);
    flags_.bind(app, ibtool::tflag::Direct | ibtool::tflag::Lid | ibtool::tflag::Guid | ibtool::tflag::SmPort);
    app.add_flag("-K,--show_keys", show_keys_, "display security keys in output");
    ibtool::add_common_options(app, config(), ibtool::opt::Mad | ibtool::opt::MKey | ibtool::opt::Sa | ibtool::opt::Json);
    app.add_option("args", args_, "<dest dr_path|lid|guid> <portnum> [<op>]");
  }

  bool reports_errors() const override { return true; }
  // A change of the port (any operation but query) is shown as text only.
  const char* no_json_form() const override {
    for (size_t i = 2; i < args_.size(); ++i)
      for (int j = 0; j < PS::NOPS; ++j)
        if (j != PS::QUERY && args_[i] == PS::OPS[j].name) return "shows a query; a change of the port is shown as text only";
    return nullptr;
  }

  int run() override {
    if (help_ || args_.size() < 2) return ibtool::ref_help_exit(app());
    const std::string tool = app().get_name();
    if (config().use_sa) {
      // The SA answers reads only: refuse a change before sending anything.
      for (size_t i = 2; i < args_.size(); ++i) {
        int j = 0;
        while (j < PS::NOPS && args_[i] != PS::OPS[j].name) ++j;
        if (j == PS::NOPS || j == PS::QUERY) continue;
        ibcore::log::error("E: %s %s: the SA cannot change a port (it does not set PortInfoRecords); "
                             "leave out --sa to set it with SMPs\n", tool.c_str(), PS::OPS[j].name);
        return usage_status();
      }
    }
    auto t = ibtool::open_smp_target(config(), flags_, args_, 0);
    const IBPath& path = t.path;
    int portnum = int(std::strtol(args_[1].c_str(), nullptr, 0));
    PS::Request r = PS::parse_ops(args_, 2);
    // --json: {the port's members (print_port), "MlnxExtPortInfo", "peer":
    // {the same of the port at the other end of an active switch port's
    // link}}, kept until the queries are done: a failure leaves stdout
    // empty, not half a document.
    ibcore::Printer p(stdout, ibcore::Printer::Doc::Whole);
    int rc = PS::port_state(t.mad(), show_keys_, p, path, portnum, r);
    p.finish();
    return rc;
  }

private:
  ibtool::TargetFlags flags_;
  bool show_keys_ = false, help_ = false;
  std::vector<std::string> args_;
};

}  // namespace

IBTOOL_COMMAND({.name = "ibportstate",
                .aliases = {},
                .summary = "query or change the state, LIDs, speed and width of one port",
                .description =
                    "Shows the PortInfo of a port (states, LIDs, LMC, link widths and speeds, M_Key "
                    "fields); for an active switch port it also reads the peer port and warns on "
                    "stderr when the link runs below what both ends allow.  An op changes the port "
                    "with a SubnSet and shows the PortInfo before and after:\n"
                    "  enable, reset     PortPhysicalState Polling (the link retrains)\n"
                    "  disable, off      PortPhysicalState Disabled (may be irreversible: the port "
                    "cannot be reached to enable it again through its own link)\n"
                    "  on                enable, only when the port is Disabled\n"
                    "  down, arm, active PortState Down / Armed / Active\n"
                    "  speed N, espeed N, width N   LinkSpeedEnabled, LinkSpeedExtEnabled, "
                    "LinkWidthEnabled (take effect when the link retrains)\n"
                    "  fdr10 0|1         the FDR10 speed (MlnxExtPortInfo)\n"
                    "  vls N, mtu N, lid N, smlid N, lmc N   OperationalVLs, NeighborMTU, LID, "
                    "MasterSMLID, LMC\n"
                    "  mkey K, mkeylease N, mkeyprot N   M_Key fields (CA/router ports and switch "
                    "port 0 only; a non-numeric key is asked for on the terminal)\n"
                    "  query             the default\n"
                    "--json (-j; --pretty indents), queries only: one document (its members and types: --json-schema).\n"
                    "Value ops may be combined with one state op.  The destination is a LID, a DR "
                    "path (0,1,4), a port GUID or GID, or a path spec; -D/-L/-G force a form.",
                .usage = "[options] <dest dr_path|lid|guid> <portnum> [<op>]",
                .examples = "  ibportstate 3 1\n"
                            "  ibportstate -D 0 1\n"
                            "  ibportstate -C ibsim0 -P 1 3 1 disable\n"
                            "  ibportstate 3 1 speed 1\n"
                            "  ibportstate -D 0 1 lid 0x1234 arm",
                .make = [] { return std::make_unique<IbPortState>(); }});
