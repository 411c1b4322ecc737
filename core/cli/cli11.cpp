// The one translation unit that owns CLI11: App::parse() builds a CLI11 app
// for the options the invoked command declared (core/cli/cli.h; nothing else is
// declared at start-up) and lets CLI11 tokenize and match the command line.
// The declarations stay ours because the registry, --help, the man pages and
// the completion read them without parsing anything.
//
// What getopt_long does and CLI11 2.1 does not, added through CLI11's API:
// - Unique prefixes of long options (--time for --timeout): every prefix
//   that names one long option only is declared as one more name of it.
// - The name an option was given by is reported in errors (-t vs
//   --timeout): each declared name is its own CLI11 option, so the parse
//   order says which one was used.  A declaration's values still go to one
//   place, in command-line order, so a value given twice keeps the last.
// - A flag given a value (--all=1) is an error, not a flag override.
// - getopt's error texts ("unrecognized option '--x'", "option '-t'
//   requires an argument").
// CLI11 collects each value as text; conversion to the bound variable and
// the validators run afterwards, in command-line order (Option::apply).
// CLI11 includes <iostream> for its own printing (App::exit, Timer), which
// ibtool never calls; <iostream>'s static stream initializer alone cost
// 60k instructions at every start (bench/smpquery_bench.sh).  The streams
// are declared as <iostream> declares them, without the initializer.
#include <istream>
#include <ostream>
#define _GLIBCXX_IOSTREAM 1
namespace std {
extern istream cin;
extern ostream cout;
extern ostream cerr;
extern ostream clog;
}  // namespace std
#include <CLI/CLI.hpp>
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/cli/cli.h"

namespace ibtool::cli {

namespace {

// One CLI11 option and the declaration it stands for.
struct Slot {
  CLI::Option* cli;
  Option* decl;
  std::string given;  // the name reported in errors: "-t", "--timeout"
  size_t next = 0;    // the next of cli's results to hand to decl
};

// A CLI11 app made without CLI11's default -h,--help (the command's own
// help declaration is added when the line names it): making that one flag
// was half of CLI11's cost at every start.
struct LeanApp : CLI::App {
  LeanApp() : CLI::App(std::string(), std::string(), nullptr) {}
  // What CLI11 could not place, in command-line order, each with CLI11's
  // reading of it (a positional, "--", or an option it has no name for).
  const auto& unplaced() const { return missing_; }
};

// The declared names of o, split at commas.
std::vector<std::string_view> split_names(std::string_view names) {
  std::vector<std::string_view> out;
  while (!names.empty()) {
    size_t c = names.find(',');
    std::string_view n = names.substr(0, c);
    if (!n.empty()) out.push_back(n);
    if (c == std::string_view::npos) break;
    names.remove_prefix(c + 1);
  }
  return out;
}

bool is_long(std::string_view n) { return n.size() > 2 && n[0] == '-' && n[1] == '-'; }

// The CLI11 names for a long option: itself and each prefix that no other
// long option starts with (getopt_long accepts those), unless the prefix is
// another option's full name.
std::string long_names(std::string_view name, const std::vector<std::string_view>& all_longs) {
  std::string out(name);
  for (size_t len = name.size() - 1; len > 2; --len) {
    std::string_view p = name.substr(0, len);
    bool unique = true;
    for (std::string_view other : all_longs)
      if (other != name && other.substr(0, len) == p) {
        unique = false;
        break;
      }
    if (!unique) break;  // shorter prefixes are ambiguous too
    out += ',';
    out += p;
  }
  return out;
}

// The long names an ambiguous --prefix could mean (empty: none or one).
std::vector<std::string_view> candidates(std::string_view given, const std::vector<std::string_view>& all_longs) {
  std::vector<std::string_view> out;
  for (std::string_view n : all_longs)
    if (n.substr(0, given.size()) == given) out.push_back(n);
  if (out.size() < 2) out.clear();
  return out;
}

bool negative_number(std::string_view a) { return a.size() > 1 && a[0] == '-' && a[1] >= '0' && a[1] <= '9'; }

// getopt's words for an argument CLI11 could not place.
[[noreturn]] void unplaced(const std::string& arg, const std::vector<std::string_view>& all_longs) {
  if (arg.size() > 1 && arg[0] == '-' && !negative_number(arg)) {
    std::string name = arg.substr(0, arg.find('='));
    if (name.size() > 2 && name[1] != '-') name.resize(2);  // the unknown letter of a cluster
    if (is_long(name)) {
      std::vector<std::string_view> c = candidates(name, all_longs);
      if (!c.empty()) {
        std::string msg = "option '" + name + "' is ambiguous; possibilities:";
        for (std::string_view n : c) (msg += " '") += std::string(n) + "'";
        throw ParseError(msg);
      }
    }
    throw ParseError("unrecognized option '" + name + "'");
  }
  throw ParseError("unexpected argument '" + arg + "'");
}

}  // namespace

App::Result App::parse(const std::vector<std::string>& args) {
  for (const auto& o : options_) o->count_ = 0;

  // What the command line names: the letters of its short-option words and
  // its long-option words.  Only declarations it names become CLI11
  // options (most runs give few options; CLI11 pays for each declared one
  // at every start).  An option the line does not name cannot match.
  std::string shorts;
  std::vector<std::string_view> longs_given;
  for (const std::string& a : args) {
    if (a == "--") break;
    if (is_long(a))
      longs_given.push_back(std::string_view(a).substr(0, a.find('=')));
    else if (a.size() > 1 && a[0] == '-')
      shorts.append(a, 1);
  }
  auto mentioned = [&](std::string_view n) {
    if (!is_long(n)) return n.size() == 2 && shorts.find(n[1]) != std::string::npos;
    for (std::string_view g : longs_given)
      if (n.substr(0, g.size()) == g) return true;
    return false;
  };

  // Operands are not CLI11 options: CLI11 hands back what it could not
  // place (allow_extras), in order, and they go to the positional
  // declarations here.  Making any CLI11 option costs the first
  // std::locale (CLI11 trims each name with std::isspace(c, locale)), 42k
  // instructions at start-up, which a line with operands and no options
  // (smpquery nodeinfo 12) then does not pay.
  LeanApp cli;
  cli.allow_extras(true);

  // Every long name: prefixes are unique among them (needed only when the
  // line has a long option).
  std::vector<std::string_view> all_longs;
  if (!longs_given.empty())
    for (const auto& o : options_)
      if (!o->positional_)
        for (std::string_view n : split_names(o->names_.view()))
          if (is_long(n)) all_longs.push_back(n);

  std::vector<std::string_view> taken;
  std::vector<Slot> slots;
  slots.reserve(options_.size() * 2);
  std::vector<Option*> positionals;
  try {
    for (const auto& up : options_) {
      Option* o = up.get();
      if (o->positional_) {
        positionals.push_back(o);
        continue;
      }
      std::string names;
      if (o->kind_ == Option::Kind::Help || o->kind_ == Option::Kind::Version) {
        for (std::string_view n : split_names(o->names_.view())) {
          if (std::find(taken.begin(), taken.end(), n) != taken.end()) continue;
          taken.push_back(n);
          if (!mentioned(n)) continue;
          if (!names.empty()) names += ',';
          names += is_long(n) ? long_names(n, all_longs) : std::string(n);
        }
        if (names.empty()) continue;
        if (o->kind_ == Option::Kind::Help)
          cli.set_help_flag(names);
        else
          cli.set_version_flag(names, version_);
        continue;
      }
      for (std::string_view n : split_names(o->names_.view())) {
        // A name declared twice belongs to its first declaration, as with
        // getopt's first matching entry.
        if (std::find(taken.begin(), taken.end(), n) != taken.end()) continue;
        taken.push_back(n);
        if (!mentioned(n)) continue;
        std::string cn = is_long(n) ? long_names(n, all_longs) : std::string(n);
        CLI::Option* c = o->kind_ == Option::Kind::Flag ? cli.add_flag(cn)->disable_flag_override()
                                                        : cli.add_option(cn)->expected(1);
        c->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
        slots.push_back({c, o, std::string(n)});
      }
    }
  } catch (const CLI::ConstructionError& e) {
    // A declaration CLI11 cannot take is our bug; still no crash.
    throw ParseError(std::string("bad option declaration: ") + e.what());
  }

  // CLI11 takes the arguments last first.  "--name=" is getopt's empty
  // value, which CLI11 reads as no value: it gets it as "--name" "".
  std::vector<std::string> rev;
  rev.reserve(args.size() + 1);
  bool options_end = false;
  for (const std::string& a : args) {
    if (!options_end && a == "--") options_end = true;
    if (!options_end && is_long(a) && a.back() == '=' && a.find('=') == a.size() - 1) {
      rev.push_back(a.substr(0, a.size() - 1));
      rev.emplace_back();
    } else {
      rev.push_back(a);
    }
  }
  std::reverse(rev.begin(), rev.end());

  // The option values in the order they were given, then the operands in
  // theirs (as a getopt caller reads its operands after the options).  A
  // positional takes one operand, a vector positional every one left; the
  // first word nothing took (an operand too many, an unknown option) is
  // the error, after what did parse was kept, as getopt's callers see it.
  // The early() options go first (each in its own order), then the
  // after_early callbacks, then the rest.
  auto apply_options = [&](bool early) {
    for (const CLI::Option* c : cli.parse_order()) {
      auto it = std::find_if(slots.begin(), slots.end(), [c](const Slot& s) { return s.cli == c; });
      if (it == slots.end() || it->decl->early_ != early) continue;
      const std::vector<std::string>& res = it->cli->results();
      std::string value = it->next < res.size() ? res[it->next] : std::string();
      ++it->next;
      it->decl->apply(it->decl->kind_ == Option::Kind::Flag ? std::string() : std::move(value), it->given);
    }
  };
  auto apply_values = [&] {
    apply_options(true);
    for (const auto& fn : after_early_) fn();
    apply_options(false);
    const std::string* extra = nullptr;
    size_t next_pos = 0;
    for (const auto& [kind, word] : cli.unplaced()) {
      if (kind == CLI::detail::Classifier::POSITIONAL_MARK) continue;
      if (kind == CLI::detail::Classifier::NONE && next_pos < positionals.size()) {
        Option* o = positionals[next_pos];
        if (!o->multi_) ++next_pos;
        o->apply(word, o->names_.view());
      } else if (!extra) {
        extra = &word;
      }
    }
    if (extra) unplaced(*extra, all_longs);
  };
  try {
    cli.parse(rev);
  } catch (const CLI::CallForHelp&) {
    return Result::Help;
  } catch (const CLI::CallForVersion&) {
    return Result::Version;
  } catch (const CLI::ArgumentMismatch& e) {
    std::string what = e.what();
    size_t at = what.find(" was given a disallowed flag override");
    if (at != std::string::npos) {
      std::string n = what.substr(0, at);  // as CLI11 saw it, without dashes
      for (const Slot& s : slots)
        if (s.cli->check_name(n.size() == 1 ? "-" + n : "--" + n))
          throw ParseError("option '" + s.given + "' doesn't allow an argument");
      throw ParseError("option '--" + n + "' doesn't allow an argument");
    }
    // A value option at the end of the command line without its value.
    std::string last = args.empty() ? std::string() : args.back();
    if (!is_long(last) && last.size() > 1) last = std::string("-") + last.back();
    throw ParseError("option '" + last + "' requires an argument");
  } catch (const CLI::ParseError& e) {
    throw ParseError(e.what());
  }

  apply_values();

  for (const auto& o : options_) {
    if (o->required_ && !o->count_) throw ParseError(o->get_name() + " is required");
    if (o->count_)
      for (const Option* x : o->excludes_)
        if (x->count_) throw ParseError(o->get_name() + " cannot be given with " + x->get_name());
  }
  for (const auto& fn : callbacks_) fn();
  return Result::Ok;
}

}  // namespace ibtool::cli
