// The command registry: every command declares itself once (name, legacy
// aliases, one-line summary, options, run function) with IBTOOL_COMMAND.
// The dispatcher, `ibtool help`, the legacy-name links and the man pages are
// all generated from this one table.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ibtool {

// One running invocation of a command.  A command's class holds its option
// values as members; options() binds them to the CLI11 app, run() does the
// work after parsing and returns the process exit status.
class Command {
public:
  virtual ~Command() = default;
  virtual void options(CLI::App& app) = 0;
  virtual int run() = 0;
  // Exit status used when the arguments do not parse (the reference tools
  // mostly exit 2 from their usage printer; a few use 255 or 1).
  virtual int usage_status() const { return 2; }
};

struct CommandInfo {
  std::string name;                  // canonical name, e.g. "smpquery"
  std::vector<std::string> aliases;  // legacy names, e.g. "dump_lfts.sh"
  std::string summary;               // one line for `ibtool help`
  std::string description;           // paragraph(s) for --help and man page
  std::string usage;                 // e.g. "[options] <op> <dest> [op params]"
  std::string examples;              // optional, one example a line
  std::function<std::unique_ptr<Command>()> make;
};

// All registered commands, sorted by name.
const std::vector<const CommandInfo*>& commands();
// Look a command up by name or alias (with or without a path prefix).
const CommandInfo* find_command(std::string_view name);

struct Registrar {
  explicit Registrar(CommandInfo info);
};

// Build the CLI11 app of a command (its options bound to a fresh instance).
std::unique_ptr<CLI::App> make_app(const CommandInfo& info, std::unique_ptr<Command>& cmd,
                                   std::string_view invoked_as);
// Run a command with argv (argv[0] is the name it was invoked as).
// help_requested_explicitly: `ibtool help CMD` (exit 0 after the usage;
// a plain -h/--help exits with usage_status() as the reference tools do).
int run_command(const CommandInfo& info, std::string_view invoked_as,
                std::vector<std::string> args, bool help_requested_explicitly = false);

}  // namespace ibtool

#define IBTOOL_CONCAT_(a, b) a##b
#define IBTOOL_CONCAT(a, b) IBTOOL_CONCAT_(a, b)
// Usage (at namespace scope, in the command's own .cpp file):
//   IBTOOL_COMMAND({.name = "smpquery", .aliases = {}, .summary = "...",
//                   .make = [] { return std::make_unique<SmpQuery>(); }});
#define IBTOOL_COMMAND(...) \
  static ::ibtool::Registrar IBTOOL_CONCAT(ibtool_registrar_, __LINE__)(::ibtool::CommandInfo __VA_ARGS__)
