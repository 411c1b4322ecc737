// The multi-call dispatcher: `ibtool CMD ...`, or `CMD ...` through a link
// named after a command or one of its legacy aliases.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <span>

#include "cmd/common.h"
#include "cmd/completion.h"
#include "cmd/manpage.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/base/error.h"
#include "core/out/json.h"
#include "core/base/mkdirs.h"
#include "core/out/log.h"

namespace ibtool {

namespace {

// The registered commands (in no order): the linker gathers the pointers
// IBTOOL_COMMAND puts into this section and defines its bounds.
extern "C" const CommandInfo* const __start_ibtool_commands[];
extern "C" const CommandInfo* const __stop_ibtool_commands[];

std::span<const CommandInfo* const> registered() { return {__start_ibtool_commands, __stop_ibtool_commands}; }

std::string_view basename_of(std::string_view p) {
  auto s = p.rfind('/');
  return s == std::string_view::npos ? p : p.substr(s + 1);
}

// Help text: usage line, description, aliases, options, examples.
std::string format_help(const CLI::App& app, const void* ctx) {
  const CommandInfo& info = *static_cast<const CommandInfo*>(ctx);
  std::string out = "Usage: " + app.get_name() + " ";
  out += info.usage;
  out += "\n\n";
  if (!info.description.empty()) {
    out += info.description.str();
    out += "\n\n";
  }
  if (!info.aliases.empty()) {
    out += "Aliases:";
    for (std::string_view a : info.aliases) (out += ' ') += a;
    out += "\n\n";
  }
  out += app.options_help();
  if (!info.examples.empty()) {
    out += "\nExamples:\n";
    out += info.examples;
    out += '\n';
  }
  return out;
}

int print_help_list() {
  std::printf("Usage: ibtool COMMAND [options] [args]\n\n");
  std::printf("Commands:\n");
  for (const CommandInfo* c : commands())
    std::printf("  %-20.*s %.*s\n", int(c->name.size()), c->name.data(), int(c->summary.size()), c->summary.data());
  std::printf("\n'ibtool COMMAND --help' shows the options of a command.\n");
  return 0;
}

// A usage error: "<tool>: <msg>" and an empty line (msg given), the usage
// text, the command's usage status.
int usage_exit(const CLI::App& app, const Command& cmd, std::string_view msg) {
  if (!msg.empty())
    ibcore::log::info("%s: %.*s\n\n", app.get_name().c_str(), int(msg.size()), msg.data());
  ibcore::log::text(ibcore::log::Level::info, app.help().c_str());
  return cmd.usage_status();
}

int install_links(const std::string& dir) {
  if (!ibcore::make_dirs(dir)) {
    ibcore::log::error("E: cannot create %s: %s\n", dir.c_str(), std::strerror(errno));
    return 1;
  }
  int rc = 0;
  for (const CommandInfo* c : commands()) {
    std::vector<std::string_view> names{c->name};
    names.insert(names.end(), c->aliases.begin(), c->aliases.end());
    for (std::string_view n : names) {
      std::string link = ibcore::path_join(dir, n);
      std::remove(link.c_str());
      if (::symlink("ibtool", link.c_str()) != 0) {
        ibcore::log::error("E: cannot create link %s: %s\n", link.c_str(), std::strerror(errno));
        rc = 1;
      }
    }
  }
  return rc;
}

}  // namespace

const std::vector<const CommandInfo*>& commands() {
  static std::vector<const CommandInfo*> v = [] {
    std::vector<const CommandInfo*> r(registered().begin(), registered().end());
    std::sort(r.begin(), r.end(), [](const CommandInfo* a, const CommandInfo* b) { return a->name < b->name; });
    return r;
  }();
  return v;
}

const CommandInfo* find_command(std::string_view name) {
  name = basename_of(name);
  for (const CommandInfo* c : registered())
    if (c->name == name) return c;
  for (const CommandInfo* c : registered())
    for (std::string_view a : c->aliases)
      if (a == name) return c;
  return nullptr;
}

std::unique_ptr<CLI::App> make_app(const CommandInfo& info, std::unique_ptr<Command>& cmd,
                                   std::string_view invoked_as) {
  auto app = std::make_unique<CLI::App>(std::string(invoked_as));
  app->formatter(&format_help, &info);
  std::string version(invoked_as);
  version += " BUILD VERSION: " IBTOOL_VERSION;
  app->set_version_flag("-V,--version", std::move(version));
  if (!cmd) cmd = info.make();
  cmd->options(*app);
  return app;
}

int run_command(const CommandInfo& info, std::string_view invoked_as, std::vector<std::string> args,
                bool help_requested_explicitly) {
  // Like the reference, a config file that cannot be read (even one named
  // with -z) is silently ignored.  It fills this invocation's settings,
  // which the command owns.  The parse applies -z first, in any spelling
  // it accepts, then the file and the environment, then the rest of the
  // line, which so overrides them.
  std::unique_ptr<Command> cmd = info.make();
  auto app = make_app(info, cmd, invoked_as);
  app->after_early([&cfg = cmd->config()] { apply_settings_sources(cfg); });
  try {
    switch (app->parse(args)) {
      case CLI::App::Result::Ok:
        break;
      case CLI::App::Result::Help:
        // The reference tools print their usage and exit 2 for -h; `ibtool
        // help CMD` asks for it on purpose and exits 0.
        ibcore::log::text(ibcore::log::Level::info, app->help().c_str());
        return help_requested_explicitly ? 0 : cmd->usage_status();
      case CLI::App::Result::Version:
        ibcore::log::info("%s\n", app->version().c_str());
        return 0;
    }
  } catch (const CLI::ParseError& e) {
    ibcore::log::info("%.*s: %s\n\n", int(invoked_as.size()), invoked_as.data(), e.what());
    return usage_exit(*app, *cmd, {});
  }
  // What the log and stdout take from the command line (core/out/log.h,
  // core/out/json.h): settings of the process's streams, not of a session.
  ibcore::log::set_verbosity(cmd->config().verbose);
  ibcore::set_json_output(cmd->config().json, cmd->config().pretty);
  // The one place a command's failure becomes output and an exit status
  // (the exit types of cmd/registry.h).
  try {
    return cmd->run();
  } catch (const RefFail& f) {
    return ref_exit(std::string(invoked_as), f.msg);
  } catch (const UsageFail& f) {
    return usage_exit(*app, *cmd, f.msg);
  } catch (const ExitFail& f) {
    if (!f.msg.empty()) ibcore::log::error("E: %s\n", f.msg.c_str());
    return f.status;
  } catch (const std::exception& e) {
    if (cmd->reports_errors()) return ibcore::report(e);
    // Last resort: this only keeps an unexpected failure from becoming a
    // crash.
    ibcore::log::error("E: %s\n", e.what());
    return 1;
  }
}

}  // namespace ibtool

int main(int argc, char** argv) {
  using namespace ibtool;
  std::string_view self = argc > 0 ? basename_of(argv[0]) : "ibtool";
  std::vector<std::string> rest(argv + std::min(argc, 1), argv + argc);

  if (self != "ibtool") {
    if (const CommandInfo* c = find_command(self)) return run_command(*c, self, rest);
    // Any other name of the binary behaves as ibtool itself.
  }
  if (rest.empty()) {
    print_help_list();
    return 2;
  }
  const std::string& first = rest[0];
  if (first == "help" || first == "-h" || first == "--help") {
    if (rest.size() > 1) {
      if (const CommandInfo* c = find_command(rest[1])) return run_command(*c, c->name, {"--help"}, true);
      ibcore::log::error("E: unknown command '%s' (try 'ibtool help')\n", rest[1].c_str());
      return 2;
    }
    return print_help_list();
  }
  if (first == "--version" || first == "-V") {
    std::printf("ibtool %s\n", IBTOOL_VERSION);
    return 0;
  }
  if (first == "--install-links") {
    if (rest.size() != 2) {
      ibcore::log::error("E: usage: ibtool --install-links DIR\n");
      return 2;
    }
    return install_links(rest[1]);
  }
  if (first == "--gen-completion") {
    if (rest.size() != 2 && rest.size() != 3) {
      ibcore::log::error("E: usage: ibtool --gen-completion bash|zsh [FILE]\n");
      return 2;
    }
    if (rest.size() == 3 && !std::freopen(rest[2].c_str(), "w", stdout)) {
      ibcore::log::error("E: cannot write %s: %s\n", rest[2].c_str(), std::strerror(errno));
      return 1;
    }
    return write_completion(rest[1]);
  }
  if (first == "--gen-man") {
    if (rest.size() != 2 && rest.size() != 3) {
      ibcore::log::error("E: usage: ibtool --gen-man DIR [TEXT_DIR]\n");
      return 2;
    }
    return write_man_pages(rest[1], rest.size() == 3 ? rest[2] : std::string());
  }
  const CommandInfo* c = find_command(first);
  if (!c) {
    ibcore::log::error("E: unknown command '%s' (try 'ibtool help')\n", first.c_str());
    return 2;
  }
  // `ibtool dump_lfts.sh` runs as the alias name so usage texts match.
  std::string_view as = basename_of(first);
  return run_command(*c, as, std::vector<std::string>(rest.begin() + 1, rest.end()));
}
