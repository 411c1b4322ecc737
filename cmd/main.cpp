// The multi-call dispatcher: `ibtool CMD ...`, or `CMD ...` through a link
// named after a command or one of its legacy aliases.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <span>
#include <vector>

#include "cmd/common.h"
#include "cmd/completion.h"
#include "cmd/links.h"
#include "cmd/manpage.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/base/error.h"
#include "core/out/json.h"
#include "core/out/jsonschema.h"
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

// The "Options:" block: one line an option, as CLI11 holds them.
std::string options_help(const CLI::App& app) {
  std::string out = "Options:\n";
  for (const CLI::App::Shown& s : app.shown()) {
    if (s.positional) continue;
    std::string line = "  " + s.names + (s.value.empty() ? "" : " " + s.value);
    line.resize(std::max<size_t>(line.size() + 1, 30), ' ');  // the description at column 30, or below
    out += (line.size() > 30 ? line.replace(line.size() - 1, 1, "\n" + std::string(30, ' ')) : line) + s.description + "\n";
  }
  return out;
}

// Help text: usage line, description, aliases, options, examples.
std::string format_help(const CLI::App& app, const CommandInfo& info) {
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
  out += options_help(app);
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

// Whether the command was named as `ibtool CMD` (not through a link):
// where a bad value sends the user for help.
bool through_ibtool = false;

// A bad option value: "<tool>: <msg>" and where the help is (not the whole
// usage: the reference tools print none for a value their getopt took),
// the command's usage status.
int bad_value_exit(std::string_view tool, const Command& cmd, std::string_view msg) {
  ibcore::log::info("%.*s: %.*s\nTry '%s%.*s --help' for more information.\n", int(tool.size()), tool.data(),
                    int(msg.size()), msg.data(), through_ibtool ? "ibtool " : "", int(tool.size()), tool.data());
  return cmd.usage_status();
}

// The registered name closest to a mistyped one (edit distance with
// transpositions, at most a third of its length, and 2), or nullptr.
const CommandInfo* closest_command(std::string_view typed) {
  auto distance = [](std::string_view a, std::string_view b) {
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i)
      for (size_t j = 1; j <= b.size(); ++j) {
        size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
        d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    return d[a.size()][b.size()];
  };
  const CommandInfo* best = nullptr;
  size_t best_d = std::min<size_t>(2, std::max<size_t>(1, typed.size() / 3)) + 1;
  for (const CommandInfo* c : commands()) {
    std::vector<std::string_view> names{c->name};
    names.insert(names.end(), c->aliases.begin(), c->aliases.end());
    for (std::string_view n : names)
      if (size_t d = distance(typed, n); d < best_d) {
        best = c;
        best_d = d;
      }
  }
  return best;
}

// An unknown command: one line, with the closest name when there is one.
int unknown_command(std::string_view name) {
  const CommandInfo* c = closest_command(name);
  if (c)
    ibcore::log::error("E: unknown command '%.*s' (did you mean '%.*s'? 'ibtool help' lists them)\n",
                       int(name.size()), name.data(), int(c->name.size()), c->name.data());
  else
    ibcore::log::error("E: unknown command '%.*s' (try 'ibtool help')\n", int(name.size()), name.data());
  return 2;
}

// A usage error: "<tool>: <msg>" and an empty line (msg given), the usage
// text, the command's usage status.
int usage_exit(const CLI::App& app, const Command& cmd, std::string_view msg) {
  if (!msg.empty())
    ibcore::log::info("%s: %.*s\n\n", app.get_name().c_str(), int(msg.size()), msg.data());
  ibcore::log::text(ibcore::log::Level::info, app.help().c_str());
  return cmd.usage_status();
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
  app->formatter = [&info](const CLI::App& a) { return format_help(a, info); };
  std::string version(invoked_as);
  version += " BUILD VERSION: " IBTOOL_VERSION;
  app->set_version_flag("-V,--version", std::move(version));
  if (!cmd) cmd = info.make();
  cmd->bind_app(*app);
  cmd->options(*app);
  return app;
}

int with_schema(Command& cmd, const std::function<int()>& run);
int run_reported(std::string_view invoked_as, CLI::App& app, Command& cmd);

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
        // The reference tools print their usage on stderr and exit 2 for
        // -h; `ibtool help CMD` and ibtool's own commands print the help
        // as a result (stdout, status 0: `ibtool exporter --help | less`).
        if (help_requested_explicitly || info.own) {
          std::fputs(app->help().c_str(), stdout);
          return 0;
        }
        ibcore::log::text(ibcore::log::Level::info, app->help().c_str());
        return cmd->usage_status();
      case CLI::App::Result::Version:
        ibcore::log::info("%s\n", app->version().c_str());
        return 0;
    }
  } catch (const CLI::ValidationError& e) {
    return bad_value_exit(invoked_as, *cmd, e.what());
  } catch (const CLI::ParseError& e) {
    // (An unknown option, a missing value: the reference's getopt usage.)
    ibcore::log::info("%.*s: %s\n\n", int(invoked_as.size()), invoked_as.data(), e.what());
    return usage_exit(*app, *cmd, {});
  } catch (const RefFail& f) {
    // A value the reference tool refuses with its iberror line (-t).
    if (info.own) return bad_value_exit(invoked_as, *cmd, f.msg);
    return ref_exit(std::string(invoked_as), f.msg);
  }
  // What the log and stdout take from the command line (core/out/log.h,
  // core/out/json.h): settings of the process's streams, not of a session.
  ibcore::log::set_verbosity(cmd->config().verbose);
  ibcore::set_json_output(cmd->config().json, cmd->config().pretty);
  if (const char* why = cmd->config().json || cmd->config().pretty ? cmd->no_json_form() : nullptr) {
    ibcore::log::info("%.*s: --json %s\n", int(invoked_as.size()), invoked_as.data(), why);
    return 2;
  }
  if (cmd->config().json_schema) return with_schema(*cmd, [&] { return run_reported(invoked_as, *app, *cmd); });
  return run_reported(invoked_as, *app, *cmd);
}

// The command's document, captured (stdout's descriptor on a temporary
// file while it runs), written as its schema (core/out/jsonschema.h): a
// run that fails keeps its status, and writes nothing on stdout.
int with_schema(Command& cmd, const std::function<int()>& run) {
  std::fflush(stdout);
  FILE* doc = std::tmpfile();
  const int saved = doc ? dup(STDOUT_FILENO) : -1;
  if (saved < 0 || dup2(fileno(doc), STDOUT_FILENO) < 0) {
    if (doc) std::fclose(doc);
    ibcore::log::error("E: --json-schema: cannot hold the document: %s\n", std::strerror(errno));
    return 1;
  }
  int status = run();
  std::fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  std::string text;
  std::rewind(doc);
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, doc)) > 0;) text.append(buf, n);
  std::fclose(doc);
  if (status != 0 || text.empty()) return status ? status : 1;
  try {
    std::fputs(ibcore::json_schema_of(text, cmd.config().pretty).c_str(), stdout);
  } catch (const std::invalid_argument& e) {
    ibcore::log::error("E: --json-schema: %s\n", e.what());
    return 1;
  }
  return 0;
}

// The one place a command's failure becomes output and an exit status
// (the exit types of cmd/registry.h).
int run_reported(std::string_view invoked_as, CLI::App& app, Command& cmd) {
  try {
    return cmd.run();
  } catch (const RefFail& f) {
    return ref_exit(std::string(invoked_as), f.msg);
  } catch (const UsageFail& f) {
    return usage_exit(app, cmd, f.msg);
  } catch (const ExitFail& f) {
    if (!f.msg.empty()) ibcore::log::error("E: %s\n", f.msg.c_str());
    return f.status;
  } catch (const std::exception& e) {
    if (cmd.reports_errors()) return ibcore::report(e);
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
      return unknown_command(rest[1]);
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
  if (!c) return unknown_command(first);
  through_ibtool = true;
  // `ibtool dump_lfts.sh` runs as the alias name so usage texts match.
  std::string_view as = basename_of(first);
  return run_command(*c, as, std::vector<std::string>(rest.begin() + 1, rest.end()));
}
