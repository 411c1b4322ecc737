// The command registry: every command declares itself once (name, legacy
// aliases, one-line summary, options, run function) with IBTOOL_COMMAND.
// The dispatcher, `ibtool help`, the legacy-name links and the man pages are
// all generated from this one table.
#pragma once

#include "core/cli/cli.h"
#include "core/base/config.h"
#include "core/base/error.h"

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

// The commands declare their options against CLI11's declaration API
// (core/cli/cli.h records them as data).  core/cli/cli.cpp reads the line
// first as getopt_long does (clusters, joined values, unique long prefixes,
// getopt's errors, the declared checks of each value), then hands CLI11 the
// same line in canonical form, and CLI11 converts the values into the
// command's members and checks the required and excluded options.
namespace CLI = ibtool::cli;

namespace ibtool {

// One running invocation of a command.  A command's class holds its option
// values as members; options() binds them to the app, run() does the work
// after parsing and returns the process exit status.
class Command {
public:
  virtual ~Command() = default;
  virtual void options(CLI::App& app) = 0;
  virtual int run() = 0;
  // The settings of this invocation (ibdiag.conf, then the common options
  // bound by add_common_options): the command's own, filled by the
  // dispatcher before run(), and handed explicitly to the library
  // (open_transport, obtain_subnet, PmSession, ...).
  ibcore::Config& config() { return config_; }
  const ibcore::Config& config() const { return config_; }
  // Exit status used when the arguments do not parse (the reference tools
  // mostly exit 2 from their usage printer; a few use 255 or 1).
  virtual int usage_status() const { return 2; }
  // How an error run() lets out ends.  true: the library's report
  // (ibcore::report: an E: line a layer, status 255), for a command whose
  // work may fail anywhere; false: the dispatcher's last resort for the
  // unexpected, "E: <what>" and status 1.
  virtual bool reports_errors() const { return false; }
  // A mode of this invocation (its options as parsed) that has no JSON
  // form: with --json the dispatcher refuses it before run(), writing
  // "<tool>: --json <why>" and returning 2; nullptr: the output has one.
  virtual const char* no_json_form() const { return nullptr; }
  // The parser options() declared on (its name as invoked, its help), for
  // run(): the dispatcher binds it before options() and keeps it alive
  // until run() returns.
  CLI::App& app() const { return *app_; }
  void bind_app(CLI::App& a) { app_ = &a; }

private:
  ibcore::Config config_;
  CLI::App* app_ = nullptr;
};

// How a run() ends in failure: it throws one of these and the dispatcher
// (run_command) writes what it says and returns its status, so that run()
// holds the command's own logic only.  Any E: lines of our own are written
// before throwing (ref_fail in cmd/target.h does both).
//
// The reference tools' failure: "<tool>: iberror: failed: <msg>" on stdout
// (on stderr with --json), <tool> the name invoked, status 255.
using RefFail = ibcore::RefFail;  // (core/base/error.h: the library throws it too)
// A usage error: "<tool>: <msg>" and an empty line when msg is not empty,
// then the command's usage text, on stderr; status usage_status().
struct UsageFail {
  std::string msg;
};
// A plain failure: "E: <msg>" on stderr when msg is not empty, and status.
using ExitFail = ibcore::ExitFail;  // (core/base/error.h: the library throws it too)

// Up to four legacy names; unused slots are empty.
struct NameList {
  std::string_view v[4];
  const std::string_view* begin() const { return v; }
  const std::string_view* end() const {
    const std::string_view* e = v;
    while (e != v + 4 && !e->empty()) ++e;
    return e;
  }
  bool empty() const { return v[0].empty(); }
  size_t size() const { return size_t(end() - begin()); }
  const std::string_view& operator[](size_t i) const { return v[i]; }
};

// Makes a fresh instance of a command: any captureless lambda returning a
// std::unique_ptr to a Command, kept as a plain function pointer so that a
// CommandInfo is constant-initialized (nothing to build at start-up).
struct CommandMaker {
  std::unique_ptr<Command> (*fn)() = nullptr;
  constexpr CommandMaker() = default;
  template <class F>
  constexpr CommandMaker(F) : fn([]() -> std::unique_ptr<Command> { return F{}(); }) {}  // NOLINT: implicit
  std::unique_ptr<Command> operator()() const { return fn(); }
};

// A text that is a string literal, or built by a captureless lambda (lists
// of ops) only when a help or man page is printed.
struct CommandText {
  std::string_view lit;
  std::string (*fn)() = nullptr;
  constexpr CommandText() = default;
  constexpr CommandText(const char* s) : lit(s) {}  // NOLINT: implicit
  template <class F>
    requires(std::is_empty_v<F> && std::is_invocable_r_v<std::string, const F&>)
  constexpr CommandText(F) : fn([]() -> std::string { return F{}(); }) {}  // NOLINT: implicit
  std::string str() const { return fn ? fn() : std::string(lit); }
  bool empty() const { return !fn && lit.empty(); }
};

// String fields are string literals.
struct CommandInfo {
  std::string_view name;          // canonical name, e.g. "smpquery"
  NameList aliases;               // legacy names, e.g. "dump_lfts.sh"
  std::string_view summary;       // one line for `ibtool help`
  CommandText description = {};      // paragraph(s) for --help and man page
  std::string_view usage = {};        // e.g. "[options] <op> <dest> [op params]"
  std::string_view examples = {};     // optional, one example a line
  CommandMaker make = {};
  // ibtool's own command, not one of infiniband-diags (nor of its older
  // scripts): -h/--help prints the help on stdout and exits 0, as a shell
  // user expects (`ibtool exporter --help | less`); the others keep their
  // reference tool's usage on stderr and its status.
  bool own = false;
};

// All registered commands, sorted by name.
const std::vector<const CommandInfo*>& commands();
// Look a command up by name or alias (with or without a path prefix).
const CommandInfo* find_command(std::string_view name);

// Build the app of a command (its options bound to cmd, or to a fresh
// instance when cmd is empty).
std::unique_ptr<CLI::App> make_app(const CommandInfo& info, std::unique_ptr<Command>& cmd,
                                   std::string_view invoked_as);
// Run a command with argv (argv[0] is the name it was invoked as).
// help_requested_explicitly: `ibtool help CMD` (the help on stdout, exit
// 0; a plain -h/--help does so for ibtool's own commands and prints the
// usage on stderr with usage_status() for the reference tools').
int run_command(const CommandInfo& info, std::string_view invoked_as,
                std::vector<std::string> args, bool help_requested_explicitly = false);

}  // namespace ibtool

#define IBTOOL_CONCAT_(a, b) a##b
#define IBTOOL_CONCAT(a, b) IBTOOL_CONCAT_(a, b)
// Usage (at namespace scope, in the command's own .cpp file):
//   IBTOOL_COMMAND({.name = "smpquery", .aliases = {}, .summary = "...",
//                   .make = [] { return std::make_unique<SmpQuery>(); }});
// Each command's CommandInfo is a constant; a pointer to it goes into the
// linker section ibtool_commands, which the dispatcher walks: registering
// runs no code at start-up.
#define IBTOOL_COMMAND(...)                                                                           \
  static constinit const ::ibtool::CommandInfo IBTOOL_CONCAT(ibtool_command_, __LINE__) __VA_ARGS__;  \
  [[gnu::used, gnu::section("ibtool_commands")]] static const ::ibtool::CommandInfo* const           \
      IBTOOL_CONCAT(ibtool_command_ptr_, __LINE__) = &IBTOOL_CONCAT(ibtool_command_, __LINE__)
