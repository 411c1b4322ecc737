// Command-line side of single-target commands, SMP and GMP alike: the legacy
// addressing flags (-D/-G/-L/-c, -s SM LID) declared once and bound to a
// command's app, opening the local end port, and turning the positional
// arguments into a resolved path: a directed route or LID path for SMPs
// (core/rpc/target.h), the SA's PathRecord for GMPs (core/rpc/gmppath.h).  How each
// reference tool words a failure is data (TargetStyle), not code in run().
#pragma once

#include "cmd/registry.h"

#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/rpc/rpc.h"
#include "core/rpc/target.h"
#include "core/transport/transport.h"

namespace ibtool {

namespace tflag {
enum : unsigned {
  Direct = 1u << 0,    // -D/--Direct
  Lid = 1u << 1,       // -L/--Lid
  Guid = 1u << 2,      // -G/--Guid
  Combined = 1u << 3,  // -c/--combined
  SmPort = 1u << 4,    // -s/--sm_port <lid>
};
}

struct TargetFlags {
  bool direct = false, lid = false, guid = false, combined = false;
  uint16_t sm_port = 0;
  unsigned bound = 0;  // the tflag bits bind() declared

  // Bind the selected flags.
  void bind(CLI::App& app, unsigned which);
  // The form the flags force.  Throws ibcore::Error if two conflict (the
  // message names the form flags the command takes).
  ibcore::TargetForm form() const;
  // How many positional arguments the target takes (2 for -c).
  size_t nargs() const { return combined ? 2 : 1; }
};

// -h as the reference tools have it: usage on stderr, status 2 (--help
// stays the dispatcher's).  ref_help_exit prints the usage and returns 2.
void bind_ref_help(CLI::App& app, bool& flag);
int ref_help_exit(CLI::App& app);

// An open end port with a MAD transactor on it.
struct Session {
  std::unique_ptr<ibcore::Transport> umad;
  std::unique_ptr<ibcore::MadTransactor> mad;
  const ibcore::EndPort* ep = nullptr;  // the end port opened
};

// Open the end port: the path's own (a scoped GID "...%dev/port") if it
// names one, else cfg's -C/-P; the transport carries cfg.  Throws
// ibcore::Error.
Session open_session(const ibcore::Config& cfg, const ibcore::IBPath* scope = nullptr);

// The reference tools end a failed run with one line on stdout,
// "<tool>: iberror: failed: <msg>", and status 255.  Commands throw RefFail
// (cmd/registry.h) with the reference's message after printing our own E:
// lines on stderr; the dispatcher prints the line with ref_exit.
int ref_exit(const std::string& tool, const std::string& msg);
// Report e on stderr (our E: lines) and throw RefFail{msg}.
using ibcore::ref_fail;  // (core/base/error.h)

// The reference's message for a destination it cannot resolve, "can't
// resolve destination port 12"; noun is "destination" for the tools that
// say "can't resolve destination 12" (ibccquery, ibccconfig).
std::string cant_resolve(const std::string& dest, std::string_view noun = "destination port");

// Parse the target and open the end port for it the reference's way: a
// port that cannot be opened ends with "Failed to open '<ca>' port '<n>'",
// a target that does not parse with cant_resolve(dest, noun) (RefFail);
// with iberror_on_open false, a port that cannot be opened ends with our E:
// lines and status 255, nothing on stdout (smpdump's ibpanic: ExitFail).
// target receives the parsed, unresolved path.
std::unique_ptr<Session> open_for_target(const ibcore::Config& cfg, const std::string& tool, const TargetFlags& f,
                                         const std::vector<std::string>& args, size_t first,
                                         ibcore::IBPath& target, const std::string& dest,
                                         bool iberror_on_open = true,
                                         std::string_view noun = "destination port");
// Resolve target (as open_for_target parsed it) for SMPs, through the SM at
// sm_lid for GUID/GID forms; a failure ends the reference's way, with our E:
// lines and then cant_resolve(dest) (RefFail).
ibcore::IBPath resolve_or_fail(Session& s, const ibcore::IBPath& target, const std::string& dest,
                               uint16_t sm_lid = 0);

// How a command's reference tool reports a destination it cannot use.  The
// tools differ among themselves; a command states its tool's ways here and
// open_smp_target / open_gmp_target follow them.
struct TargetStyle {
  // "can't resolve <noun> <dest>" (cant_resolve).
  std::string_view noun = "destination port";
  // A target that does not parse, or conflicting form flags: our E: line,
  // then the "can't resolve" line (true; every SMP tool); or the iberror
  // line alone, naming the conflict itself when the flags conflict (false).
  bool explain_bad_target = true;
  // An end port that cannot be opened: the reference's "Failed to open
  // '<ca>' port '<n>'" line (true), or our E: lines and status 255 (false).
  bool iberror_on_open = true;
  // GMP targets the reference addresses without asking the SA: when the SA
  // gives no PathRecord for one, it is used as given and the SA's error is
  // thrown by its first MAD (Target::check).  Others end with our E:
  // lines and the "can't resolve" line.
  enum class Direct {
    None,    // every target needs its PathRecord
    Lid,     // LID targets
    NotGid,  // every target but a GUID/GID one
  } direct = Direct::Lid;
};

// A command's destination: its end port open, the path its MADs take.
struct Target {
  std::unique_ptr<Session> session;
  ibcore::IBPath target;          // as given (GMPs: the local port's LID when none was)
  ibcore::IBPath path;            // resolved; the target itself when deferred
  std::exception_ptr path_error;  // GMPs: the SA's failure for a deferred target
  ibcore::MadTransactor& mad() const { return *session->mad; }
  // Throw the deferred failure, if any (before the first MAD).
  void check() const {
    if (path_error) std::rethrow_exception(path_error);
  }
};

// The one way a single-target command opens its end port and resolves its
// destination args[first] (two arguments with -c), failing the way style
// says (RefFail / ExitFail, our E: lines first).
//
// For SMPs: a LID or directed route as given, a GUID/GID resolved to a LID
// through the SA at -s (f.sm_port) when given (core/rpc/target.h).
Target open_smp_target(const ibcore::Config& cfg, const TargetFlags& f, const std::vector<std::string>& args, size_t first,
                       const TargetStyle& style = {});
// For GMPs: the SA's PathRecord to the destination, asked at -s when given;
// none given (args.size() <= first): the local port, and a local port
// without a LID ends "can't resolve self port".
Target open_gmp_target(const ibcore::Config& cfg, const TargetFlags& f, const std::vector<std::string>& args, size_t first,
                       const TargetStyle& style = {});

// Parse only (no MADs): used to pick the end port before opening it.
ibcore::IBPath parse_target_args(const TargetFlags& f, const std::vector<std::string>& args, size_t first = 0);

}  // namespace ibtool
