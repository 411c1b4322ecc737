#include "cmd/manpage.h"

#include <dirent.h>
#include <vector>

#include <cstdio>
#include <string>
#include <string_view>

#include "cmd/registry.h"
#include "core/base/mkdirs.h"
#include "core/base/textfile.h"
#include "core/out/log.h"

namespace ibtool {

namespace {

// Escape text for troff: backslashes, and a leading dot or quote.
std::string esc(std::string_view s) {
  std::string out;
  bool bol = true;
  for (char ch : s) {
    if (bol && (ch == '.' || ch == '\'')) out += "\\&";
    if (ch == '\\') out += "\\e";
    else if (ch == '-') out += "\\-";
    else out += ch;
    bol = ch == '\n';
  }
  return out;
}

const char* kDate = "2026-11-22";

std::string header(std::string_view name) {
  std::string up(name);
  for (auto& ch : up) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  return ".TH \"" + esc(up) + "\" 8 \"" + kDate + "\" \"ibtool " IBTOOL_VERSION "\" \"ibtool\"\n";
}

}  // namespace

std::string man_page_for(const std::string& command, const std::string& own_text) {
  const CommandInfo* info = find_command(command);
  if (!info) return {};
  // An alias's page is its command's, whole, under the alias's name (a
  // ".so" page works only where man finds man8/ beside it: not with
  // `man -l FILE`); its first line names the command, for the packaging.
  const bool alias = command != info->name;
  std::string o = alias ? ".\\\" ibtool: alias of " + std::string(info->name) + "\n" : std::string();
  o += header(command);
  o += ".SH NAME\n" + esc(command) + " \\- " + esc(info->summary) + "\n";
  if (alias) o += ".PP\n.B " + esc(command) + "\nis another name of\n.BR " + esc(info->name) + " (8).\n";
  o += ".SH SYNOPSIS\n.B " + esc(info->name) + "\n" + esc(info->usage) + "\n.br\n.B ibtool " + esc(info->name) +
       "\n" + esc(info->usage) + "\n";
  if (!info->description.empty()) {
    o += ".SH DESCRIPTION\n";
    std::string d = info->description.str();
    ibcore::for_each_line(d, [&](std::string_view line) { o += line.empty() ? ".PP\n" : esc(line) + "\n"; });
  }
  std::unique_ptr<Command> cmd;
  auto app = make_app(*info, cmd, info->name);
  o += ".SH OPTIONS\n";
  for (const auto& opt : app->shown()) {  // as CLI11 holds them
    std::string names;
    for (char ch : opt.names) names += ch == ',' ? std::string(", ") : std::string(1, ch);
    o += ".TP\n.B " + esc(names) + (opt.value.empty() ? "" : " \\fI" + esc(opt.value) + "\\fR") + "\n" +
         esc(opt.description.empty() ? std::string("(argument)") : opt.description) + "\n";
  }
  if (!info->aliases.empty()) {
    o += ".SH ALIASES\n";
    for (size_t i = 0; i < info->aliases.size(); ++i) o += (i ? ", " : "") + std::string(".B ") + esc(info->aliases[i]) + "\n";
    o += "behave exactly as\n.BR " + esc(info->name) + " .\n";
  }
  if (!info->examples.empty()) o += ".SH EXAMPLES\n.nf\n" + esc(info->examples) + "\n.fi\n";
  o += own_text;
  o += ".SH SEE ALSO\n.BR ibtool (8)\n";
  return o;
}

std::string man_page_index(const std::string& own_text) {
  std::string o = header("ibtool");
  o += ".SH NAME\nibtool \\- InfiniBand diagnostics and management in one program\n";
  o += ".SH SYNOPSIS\n.B ibtool\n.I command\n[options] [arguments]\n.br\n.B ibtool help\n.br\n"
       ".B ibtool \\-\\-version\n.br\n.B ibtool \\-\\-install\\-links\n.I dir\n";
  o += ".SH DESCRIPTION\nibtool replaces the infiniband\\-diags suite with one program. Each command "
       "is a subcommand and may also be run through a link named after it or one of its legacy "
       "aliases; the output of the classic commands matches infiniband\\-diags so that scripts "
       "keep working.\n";
  o += ".SH COMMANDS\n";
  for (const CommandInfo* c : commands()) o += ".TP\n.BR " + esc(c->name) + " (8)\n" + esc(c->summary) + "\n";
  o += ".SH EXIT STATUS\nThat of the reference tool for the same situation; 2 for bad arguments.\n";
  o += own_text;
  return o;
}

namespace {

// text_dir/<name>.man, or "" (no file or no text_dir).
std::string own_text(const std::string& text_dir, std::string_view name) {
  if (text_dir.empty()) return {};
  std::FILE* f = std::fopen(ibcore::path_join(text_dir, std::string(name) + ".man").c_str(), "r");
  if (!f) return {};
  std::string t;
  char b[4096];
  size_t n;
  while ((n = std::fread(b, 1, sizeof b, f)) > 0) t.append(b, n);
  std::fclose(f);
  if (!t.empty() && t.back() != '\n') t += '\n';
  return t;
}

}  // namespace

int write_man_pages(const std::string& dir, const std::string& text_dir) {
  // Every page's own text must belong to a page: a file left behind by a
  // renamed command is an error, not silently unused.
  if (!text_dir.empty()) {
    bool stale = false;
    std::vector<std::string> entries;
    if (DIR* d = ::opendir(text_dir.c_str())) {
      while (const dirent* e = ::readdir(d)) entries.emplace_back(e->d_name);
      ::closedir(d);
    }
    for (const auto& e : entries) {
      if (e.size() < 5 || e.substr(e.size() - 4) != ".man") continue;
      std::string name = e.substr(0, e.size() - 4);
      if (name != "ibtool" && !find_command(name)) {
        ibcore::log::error("E: %s/%s: no command is named %s\n", text_dir.c_str(), e.c_str(), name.c_str());
        stale = true;
      }
    }
    if (stale) return 1;
  }
  ibcore::make_dirs(dir);
  auto write = [&](std::string_view name, const std::string& text) {
    std::FILE* f = std::fopen(ibcore::path_join(dir, std::string(name) + ".8").c_str(), "w");
    if (!f) return false;
    bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    return std::fclose(f) == 0 && ok;
  };
  bool ok = write("ibtool", man_page_index(own_text(text_dir, "ibtool")));
  for (const CommandInfo* c : commands()) {
    ok = write(c->name, man_page_for(std::string(c->name), own_text(text_dir, c->name))) && ok;
    for (const auto& a : c->aliases) ok = write(a, man_page_for(std::string(a), own_text(text_dir, c->name))) && ok;
  }
  if (!ok) ibcore::log::error("E: cannot write man pages to %s\n", dir.c_str());
  return ok ? 0 : 1;
}

}  // namespace ibtool
