// sminfo: read (or, with a modifier, set) the SMInfo of an SM.
#include <cstdio>
#include <cstdlib>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/out/print.h"
#include "core/rpc/target.h"
#include "core/rpc/satransactor.h"
#include "iba/smp.h"

namespace {

using ibcore::IBPath;

const char* state_name(unsigned s) {
  static const char* const names[] = {"SMINFO_NOTACT", "SMINFO_DISCOVER", "SMINFO_STANDBY", "SMINFO_MASTER"};
  return s < 4 ? names[s] : "UNKNOWN";
}

class SmInfo : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    ibtool::bind_ref_help(app, help_);
    app.add_option("-s,--state", state_, "set SM state")->option_text("<0-3>");
    app.add_option("-p,--priority", priority_, "set SM priority")->option_text("<0-15>");
    app.add_option("-a,--activity", activity_, "set activity count")->option_text("<val>");
    flags_.bind(app, ibtool::tflag::Direct | ibtool::tflag::Lid | ibtool::tflag::Guid);
    ibtool::add_common_options(app, config(), ibtool::opt::Smp | ibtool::opt::Json);
    app.add_option("args", args_, "[<sm_lid|sm_dr_path> [modifier]]");
  }

  bool reports_errors() const override { return true; }

  int run() override {
    if (help_) return ibtool::ref_help_exit(app());
    const std::string tool = app().get_name();
    IBPath target;
    std::unique_ptr<ibtool::Session> s;
    if (!args_.empty()) {
      s = ibtool::open_for_target(config(), tool, flags_, args_, 0, target, args_[0]);
    } else {
      // The SM the local port knows.
      s = ibtool::open_for_target(config(), tool, ibtool::TargetFlags{}, {"1"}, 0, target, "");
      target = IBPath();
      target.DLID = s->umad->sm_lid();
    }
    IBPath path = ibtool::resolve_or_fail(*s, target, args_.empty() ? std::string("0") : args_[0]);
    ibcore::SmpSource src(*s->mad);
    iba::SMPSMInfo info;
    try {
      if (args_.size() > 1) {
        // The reference sets with the modifier given: the SMInfo carries
        // the new state, priority and activity count (GUID and SM_Key 0).
        uint32_t mod = uint32_t(std::strtoul(args_[1].c_str(), nullptr, 0));
        iba::SMPSMInfo set;
        set.set_SMState(state_ & 0xf).set_priority(priority_ & 0xf).set_actCount(activity_);
        info = src.SubnSet(set, path, mod);
      } else {
        info = src.SubnGet<iba::SMPSMInfo>(path);
      }
    } catch (const std::exception& e) {
      ibtool::ref_fail(e, "query");
    }
    // {"destination", "SMInfo": {fields but SM_Key (the text never shows
    // it); SMState by name with SMStateRaw}}; the text is the reference's
    // line of the same SMInfo.
    static constexpr std::string_view HIDE[] = {"SMKey"};
    ibcore::Printer p;
    p.open_object().json_value("destination", [&](ibcore::JsonOut& j) { path.json(j); });
    p.attribute(
        "SMInfo", iba::SMPSMInfo::DESC, info.buf.data(),
        [&] {
          char b[160];
          std::snprintf(b, sizeof b, "sminfo: sm lid %u sm guid 0x%llx, activity count %u priority %u state %u %s\n",
                        unsigned(path.DLID), static_cast<unsigned long long>(info.GUID()),
                        unsigned(info.actCount()), unsigned(info.priority()), unsigned(info.SMState()),
                        state_name(unsigned(info.SMState())));
          return std::string(b);
        },
        HIDE);
    p.close_object().finish();
    return 0;
  }

private:
  ibtool::TargetFlags flags_;
  unsigned state_ = 0, priority_ = 0, activity_ = 0;
  bool help_ = false;
  std::vector<std::string> args_;
};

}  // namespace

IBTOOL_COMMAND({.name = "sminfo",
                .aliases = {},
                .summary = "query (or set) the SMInfo of a subnet manager",
                .description = "Reads the SMInfo attribute of the SM at the destination (default: the "
                               "SM the local port knows) and prints its LID, GUID, activity count, "
                               "priority and state (--json, -j; --pretty indents: one document (its members and types: --json-schema)).  With a modifier (the SMInfo control: 1 handover, "
                               "2 acknowledge, 3 disable, 4 standby, 5 discover) it sends a SubnSet "
                               "carrying -s state, -p priority and -a activity count instead.",
                .usage = "[options] <sm_lid|sm_dr_path> [modifier]",
                .examples = "  sminfo\n  sminfo 1\n  sminfo -D 0",
                .make = [] { return std::make_unique<SmInfo>(); }});
