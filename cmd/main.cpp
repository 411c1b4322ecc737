// The multi-call dispatcher: `ibtool CMD ...`, or `CMD ...` through a link
// named after a command or one of its legacy aliases.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "cmd/common.h"
#include "cmd/manpage.h"
#include "cmd/registry.h"

namespace ibtool {

namespace {

std::map<std::string, CommandInfo, std::less<>>& table() {
  // Never destroyed: every run would otherwise free the whole table at exit.
  static auto* t = new std::map<std::string, CommandInfo, std::less<>>;
  return *t;
}

std::string_view basename_of(std::string_view p) {
  auto s = p.rfind('/');
  return s == std::string_view::npos ? p : p.substr(s + 1);
}

// Help text: usage line, description, options, examples.
class Formatter : public CLI::Formatter {
public:
  explicit Formatter(const CommandInfo& info, std::string invoked)
      : info_(info), invoked_(std::move(invoked)) {}
  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode mode) const override {
    std::string out = "Usage: " + invoked_ + " " + info_.usage + "\n\n";
    if (!info_.description.empty()) out += info_.description + "\n\n";
    if (!info_.aliases.empty()) {
      out += "Aliases:";
      for (const auto& a : info_.aliases) out += " " + a;
      out += "\n\n";
    }
    out += make_groups(app, mode);
    if (!info_.examples.empty()) out += "\nExamples:\n" + info_.examples + "\n";
    return out;
  }

private:
  const CommandInfo& info_;
  std::string invoked_;
};

int print_help_list() {
  std::printf("Usage: ibtool COMMAND [options] [args]\n\n");
  std::printf("Commands:\n");
  for (const CommandInfo* c : commands()) std::printf("  %-20s %s\n", c->name.c_str(), c->summary.c_str());
  std::printf("\n'ibtool COMMAND --help' shows the options of a command.\n");
  return 0;
}

int install_links(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "E: cannot create %s: %s\n", dir.c_str(), ec.message().c_str());
    return 1;
  }
  int rc = 0;
  for (const CommandInfo* c : commands()) {
    std::vector<std::string> names{c->name};
    names.insert(names.end(), c->aliases.begin(), c->aliases.end());
    for (const auto& n : names) {
      fs::path link = fs::path(dir) / n;
      fs::remove(link, ec);
      fs::create_symlink("ibtool", link, ec);
      if (ec) {
        std::fprintf(stderr, "E: cannot create link %s: %s\n", link.c_str(), ec.message().c_str());
        rc = 1;
      }
    }
  }
  return rc;
}

// The first argument that looks like an option but is none of app's
// (args are in CLI11's reversed order).  Empty when there is none.
std::string first_unknown_option(const CLI::App& app, const std::vector<std::string>& rev_args) {
  std::set<std::string> known;
  for (const CLI::Option* o : app.get_options()) {
    for (const auto& n : o->get_snames()) known.insert("-" + n);
    for (const auto& n : o->get_lnames()) known.insert("--" + n);
  }
  for (auto it = rev_args.rbegin(); it != rev_args.rend(); ++it) {
    const std::string& a = *it;
    if (a == "--") break;
    if (a.size() < 2 || a[0] != '-' || std::isdigit(static_cast<unsigned char>(a[1]))) continue;
    std::string name = a[1] == '-' ? a.substr(0, a.find('=')) : a.substr(0, 2);
    if (!known.count(name)) return a;
  }
  return {};
}

}  // namespace

Registrar::Registrar(CommandInfo info) {
  std::string name = info.name;
  table().emplace(std::move(name), std::move(info));
}

const std::vector<const CommandInfo*>& commands() {
  static std::vector<const CommandInfo*> v = [] {
    std::vector<const CommandInfo*> r;
    for (auto& [n, c] : table()) r.push_back(&c);
    return r;
  }();
  return v;
}

const CommandInfo* find_command(std::string_view name) {
  name = basename_of(name);
  if (auto it = table().find(name); it != table().end()) return &it->second;
  for (auto& [n, c] : table())
    if (std::find(c.aliases.begin(), c.aliases.end(), name) != c.aliases.end()) return &c;
  return nullptr;
}

std::unique_ptr<CLI::App> make_app(const CommandInfo& info, std::unique_ptr<Command>& cmd,
                                   std::string_view invoked_as) {
  auto app = std::make_unique<CLI::App>(info.summary, std::string(invoked_as));
  app->formatter(std::make_shared<Formatter>(info, std::string(invoked_as)));
  app->set_help_flag("-h,--help", "help message");
  app->set_version_flag("-V,--version", std::string(invoked_as) + " BUILD VERSION: " IBTOOL_VERSION);
  app->allow_extras(false);
  app->positionals_at_end(false);
  cmd = info.make();
  cmd->options(*app);
  return app;
}

int run_command(const CommandInfo& info, std::string_view invoked_as, std::vector<std::string> args,
                bool help_requested_explicitly) {
  // The config file applies first so the command line overrides it.
  std::string conf = "/etc/infiniband-diags/ibdiag.conf";
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if ((a == "-z" || a == "--config") && i + 1 < args.size()) {
      conf = args[i + 1];
    } else if (a.rfind("--config=", 0) == 0) {
      conf = a.substr(9);
    }
  }
  // Like the reference, a config file that cannot be read (even one named
  // with -z) is silently ignored.
  load_config_file(conf);

  std::unique_ptr<Command> cmd;
  auto app = make_app(info, cmd, invoked_as);
  std::reverse(args.begin(), args.end());  // CLI11 wants them reversed
  const std::vector<std::string> given = args;  // parse() consumes args
  try {
    app->parse(args);
  } catch (const CLI::CallForHelp&) {
    // The reference tools print their usage and exit 2 for -h; `ibtool
    // help CMD` asks for it on purpose and exits 0.
    std::fputs(app->help().c_str(), stderr);
    return help_requested_explicitly ? 0 : cmd->usage_status();
  } catch (const CLI::CallForVersion&) {
    std::fprintf(stderr, "%s\n", app->version().c_str());
    return 0;
  } catch (const CLI::ParseError& e) {
    // CLI11 checks required arguments before unknown ones; the unknown
    // option is the more useful thing to name.
    std::string unknown = first_unknown_option(*app, given);
    std::string what = unknown.empty() ? e.what() : "unrecognized option '" + unknown + "'";
    std::fprintf(stderr, "%.*s: %s\n\n", int(invoked_as.size()), invoked_as.data(), what.c_str());
    std::fputs(app->help().c_str(), stderr);
    return cmd->usage_status();
  }
  try {
    return cmd->run();
  } catch (const std::exception& e) {
    // Last resort: commands report their own errors; this only keeps an
    // unexpected failure from becoming a crash.
    std::fprintf(stderr, "E: %s\n", e.what());
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
      std::fprintf(stderr, "E: unknown command '%s' (try 'ibtool help')\n", rest[1].c_str());
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
      std::fprintf(stderr, "E: usage: ibtool --install-links DIR\n");
      return 2;
    }
    return install_links(rest[1]);
  }
  if (first == "--gen-man") {
    if (rest.size() != 2) {
      std::fprintf(stderr, "E: usage: ibtool --gen-man DIR\n");
      return 2;
    }
    return write_man_pages(rest[1]);
  }
  const CommandInfo* c = find_command(first);
  if (!c) {
    std::fprintf(stderr, "E: unknown command '%s' (try 'ibtool help')\n", first.c_str());
    return 2;
  }
  // `ibtool dump_lfts.sh` runs as the alias name so usage texts match.
  std::string_view as = basename_of(first);
  return run_command(*c, as, std::vector<std::string>(rest.begin() + 1, rest.end()));
}
