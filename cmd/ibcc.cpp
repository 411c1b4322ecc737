// ibccquery and ibccconfig: the congestion control class (0x21, IBA annex
// A10).  ibccquery reads ClassPortInfo, CongestionInfo, CongestionKeyInfo,
// CongestionLog, SwitchCongestionSetting, SwitchPortCongestionSetting,
// CACongestionSetting, CongestionControlTable and TimeStamp and prints them
// in the reference's "Label:....value" layouts; ibccconfig sets the
// writable ones from command line values.  Every CC MAD carries the CC_Key
// given with -c.  The path to the target comes from an SA PathRecord
// (core/rpc/gmppath.h); SwitchPortCongestionSetting first asks the node's
// NodeInfo with an SMP (is it a switch, how many ports).
//
// Blocks of SwitchPortCongestionSetting hold 32 ports each (A10.4.3.6) and
// are addressed so; the reference's own arithmetic uses 48 a block, which
// only differs on switches with more than 32 ports.
#include <strings.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/out/print.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/rpc/ccops.h"
#include "core/rpc/gmppath.h"
#include "core/rpc/rpc.h"
#include "iba/cc.h"
#include "iba/introspect.h"
#include "iba/refprint.h"
#include "iba/smp.h"
#include "core/out/log.h"

namespace {

using ibcore::IBPath;
namespace ref = iba::ref;

using ibcore::cc::Ctx;
using ibcore::cc::Op;
using ibcore::cc::QUERY_OPS;
using ibcore::cc::CONFIG_OPS;
using ibcore::cc::op_list;

class CcCommand : public ibtool::Command {
public:
  CcCommand(std::span<const Op> ops) : ops_(ops) {}

  void options(CLI::App& app) override {
    ibtool::bind_ref_help(app, help_);
    app.add_option("-c,--cckey", cckey_str_, "CC key")->option_text("<key>");
    flags_.bind(app, ibtool::tflag::Lid | ibtool::tflag::Guid | ibtool::tflag::SmPort);
    ibtool::add_common_options(app, config(), ibtool::opt::Gmp | ibtool::opt::MKey |
                                        (ops_.data() == QUERY_OPS ? ibtool::opt::Json : 0u));
    app.add_option("args", args_, "<op> <lid|guid> [op params]");
  }

  bool reports_errors() const override { return true; }

  int run() override {
    if (help_ || args_.size() < 2) return ibtool::ref_help_exit(app());
    const Op* op = nullptr;
    for (const Op& o : ops_)
      if (!strcasecmp(args_[0].c_str(), o.name) || !strcasecmp(args_[0].c_str(), o.alias)) op = &o;
    if (!op) {
      ibcore::log::error("E: unknown operation '%s' (see --help for the list)\n", args_[0].c_str());
      throw ibtool::RefFail{"operation '" + args_[0] + "' not supported"};
    }
    // The reference reads the key with strtoull and no checks.
    uint64_t cckey = cckey_str_.empty() ? 0 : std::strtoull(cckey_str_.c_str(), nullptr, 0);
    // A LID is addressed directly by the reference: without a PathRecord
    // its first MAD fails instead.
    auto t = ibtool::open_gmp_target(config(), flags_, args_, 1, {.noun = "destination"});
    Ctx c{t.mad(), t.target, t.path, t.path_error, cckey, {args_.begin() + 2, args_.end()}, {}, nullptr, args_[0]};
    c.where = "Lid " + std::to_string(c.path.DLID);
    // --json: {"destination", the op's attribute}, written once the op
    // succeeded (a failure leaves stdout empty).
    ibcore::Printer p(stdout, ibcore::Printer::Doc::Whole);
    p.open_object().json_value("destination", [&](ibcore::JsonOut& j) { c.path.json(j); });
    c.p = &p;
    op->fn(c);
    p.close_object().finish();
    std::fflush(stdout);
    return 0;
  }

private:
  std::span<const Op> ops_;
  ibtool::TargetFlags flags_;
  bool help_ = false;
  std::string cckey_str_;
  std::vector<std::string> args_;
};

}  // namespace

IBTOOL_COMMAND({.name = "ibccquery",
                .aliases = {},
                .summary = "query congestion control settings and information of a port",
                .description = [] { return "Reads one congestion control attribute (class 0x21) of the destination "
                               "and prints it in the reference's layout.  -c gives the CC_Key the "
                               "MADs carry (default 0).  --json (-j; --pretty indents): one document (its members and types: --json-schema).\n\n" +
                               op_list(QUERY_OPS); },
                .usage = "[options] [-c key] <op> <lid|guid> [portnum]",
                .examples = "  ibccquery CongestionInfo 3                  # Congestion Info by lid\n"
                            "  ibccquery SwitchPortCongestionSetting 3     # every port of a switch\n"
                            "  ibccquery SwitchPortCongestionSetting 3 1   # port 1 only",
                .make = [] { return std::make_unique<CcCommand>(QUERY_OPS); }});

IBTOOL_COMMAND({.name = "ibccconfig",
                .aliases = {},
                .summary = "configure congestion control settings of a switch or CA",
                .description = [] { return "Sets one congestion control attribute (class 0x21) of the destination "
                               "from the values given after it; nothing is printed on success.  -c "
                               "gives the CC_Key the MADs carry (default 0).  WARNING: misuse can "
                               "break a fabric.\n\n" +
                               op_list(CONFIG_OPS); },
                .usage = "[options] [-c key] <op> <lid|guid> [op params]",
                .examples = "  ibccconfig SwitchCongestionSetting 2 0x1F 0x1FFFFFFFFF 0x0 0xF 8 0 0:0 1\n"
                            "  ibccconfig CACongestionSetting 1 0 0x3 150 1 0 0\n"
                            "  ibccconfig CongestionControlTable 1 63 0 0:0 0:1 ...",
                .make = [] { return std::make_unique<CcCommand>(CONFIG_OPS); }});
