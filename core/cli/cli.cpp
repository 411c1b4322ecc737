// The one file that includes CLI11 (core/cli/cli.h says what it does).
#include "core/cli/cli.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstdint>
#include <optional>
#include <utility>

namespace ibtool::cli {

namespace {
// Each name of "-C,--Ca" (no vector: it runs for every record at start-up).
template <class F>
void each_name(std::string_view names, F f) {
  for (size_t c; !names.empty(); names.remove_prefix(c == names.npos ? names.size() : c + 1))
    if (c = names.find(','); c) f(names.substr(0, c));
}
bool is_long(std::string_view n) { return n.size() > 2 && n.starts_with("--"); }
std::string long_name(const Option& o) {  // its first long name, else its first
  std::string_view first, first_long;
  each_name(o.names_.view(), [&](std::string_view n) {
    first = first.empty() ? n : first, first_long = first_long.empty() && is_long(n) ? n : first_long;
  });
  return std::string(first_long.empty() ? first : first_long);
}
}  // namespace

// Integers as the reference's strtol(.., 0) reads them (decimal, 0x hex, 0
// octal), within [lo, hi]; no sign for an unsigned.
bool integer_in(const std::string& s, long long lo, unsigned long long hi) {
  if (s.empty() || (lo == 0 && s[0] == '-')) return false;
  errno = 0;
  char* end = nullptr;
  if (lo < 0) {
    long long v = std::strtoll(s.c_str(), &end, 0);
    return !errno && !*end && end != s.c_str() && v >= lo && v <= (long long)hi;
  }
  unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  return !errno && !*end && end != s.c_str() && v <= hi;
}
bool is_double(const std::string& s) {
  errno = 0;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return !s.empty() && !errno && !*end && end != s.c_str();
}

// A CLI::App declaring records; a name declared twice is its first
// declaration's (as getopt's first matching entry).
struct Cli11 {
  CLI::App app;
  std::string names, version;
  std::vector<std::string> taken;
  std::vector<std::pair<const Option*, CLI::Option*>> made;
  std::vector<std::string> made_names;  // as declared (CLI11 lists the short ones first)

  void declare(Option& o) {
    names.clear();
    each_name(o.names_.view(), [&](std::string_view n) {
      if (std::find(taken.begin(), taken.end(), n) == taken.end()) (names += names.empty() ? "" : ",") += taken.emplace_back(n);
    });
    if (names.empty()) return;
    if (o.declare_) return o.declare_(*this, o);
    std::string desc = o.desc_.str();
    if (o.kind_ == Option::Kind::Help) return done(o, app.set_help_flag(names, desc));
    if (o.kind_ == Option::Kind::Version) return done(o, app.set_version_flag(names, version, desc));
    if (o.kind_ == Option::Kind::Flag)  // once per occurrence, in line order
      return done(o, app.add_flag_callback(names, [&o] { o.fn_({}); }, desc)->trigger_on_parse());
    if (o.fn_) return done(o, app.add_option_function<std::string>(names, o.fn_, desc));
    done(o, app.add_option(names, std::as_const(desc)));
  }
  void done(const Option& o, CLI::Option* c) {
    if (!o.text_.empty()) c->option_text(o.text_.str());
    for (const Validator& v : o.checks_) c->check(CLI::Validator(v.fn, v.name, v.name));
    made.emplace_back(&o, c->required(o.required_ && !parsing));
    made_names.push_back(names);
  }
  // Declares them, then who excludes whom among them.
  bool parsing;  // required and excluded options are App::parse's to check
  Cli11(const std::vector<Option*>& options, std::string v, bool parse) : version(std::move(v)), parsing(parse) {
    app.set_help_flag();  // (only a declared one)
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // as getopt
    for (Option* o : options) declare(*o);
    for (auto [o, c] : made)
      for (const Option* x : parsing ? std::vector<Option*>() : o->excludes_)
        for (auto [o2, c2] : made)
          if (o2 == x) c->excludes(c2);
  }
};

template <class T, bool flag>
void declare(Cli11& c, Option& o) {
  auto& v = *static_cast<T*>(o.target_);
  c.done(o, flag ? c.app.add_flag(c.names, v, o.desc_.str()) : c.app.add_option(c.names, v, o.desc_.str()));
}
#define IBTOOL_BINDABLE(T) template void declare<T, false>(Cli11&, Option&);
#define IBTOOL_COUNTABLE(T) template void declare<T, true>(Cli11&, Option&); IBTOOL_BINDABLE(T)
IBTOOL_BINDABLE(std::string) IBTOOL_BINDABLE(std::vector<std::string>) IBTOOL_BINDABLE(double)
IBTOOL_BINDABLE(std::optional<int>) IBTOOL_BINDABLE(std::optional<unsigned long>) IBTOOL_BINDABLE(long) IBTOOL_BINDABLE(long long)
IBTOOL_COUNTABLE(bool) IBTOOL_COUNTABLE(int) IBTOOL_COUNTABLE(unsigned)
IBTOOL_COUNTABLE(int8_t) IBTOOL_COUNTABLE(uint8_t) IBTOOL_COUNTABLE(uint16_t) IBTOOL_COUNTABLE(uint64_t)

App::App(std::string name, std::string description) : name_(std::move(name)), description_(std::move(description)) {
  options_.reserve(32);  // (most commands declare fewer: no regrowth at start-up)
  set_help_flag("-h,--help", "print this help and exit");
}

Option* App::add(Str names, Str desc, Option::Kind kind, void* target, void (*declare)(Cli11&, Option&)) {
  Option* o = options_.emplace_back(new Option).get();
  o->names_ = std::move(names), o->desc_ = std::move(desc), o->kind_ = kind, o->target_ = target, o->declare_ = declare;
  return o;
}
Option* App::add_flag_callback(Str names, std::function<void()> fn, Str desc) {
  Option* o = add(std::move(names), std::move(desc), Option::Kind::Flag, nullptr, nullptr);
  return o->fn_ = [fn = std::move(fn)](const std::string&) { fn(); }, o;
}
Option* App::add_option(Str names, Str desc) { return add(names, desc, Option::Kind::Value, nullptr, nullptr); }
Option* App::set_help_flag(Str names, Str desc) {
  std::erase_if(options_, [](const auto& o) { return o->kind_ == Option::Kind::Help; });
  return names.empty() ? nullptr : add(names, desc, Option::Kind::Help, nullptr, nullptr);
}
Option* App::set_version_flag(Str names, std::string version) {
  version_ = std::move(version);
  return add(names, "print the version and exit", Option::Kind::Version, nullptr, nullptr);
}

App::Result App::parse(const std::vector<std::string>& args) {
  // getopt_long's reading: each option given, by its full name, with its
  // value; the operands; the first error in line order.
  struct Given { Option* o; std::string name, value; };  // NOLINT: one line
  std::vector<Given> given;
  std::vector<std::pair<Option*, std::string_view>> longs;  // (views of the records' names)
  std::vector<std::pair<char, Option*>> shorts;
  longs.reserve(options_.size()), shorts.reserve(options_.size());
  size_t places = 0;  // operands the positionals take
  for (const auto& o : options_) {
    std::string_view n0 = o->names_.view();
    if (!n0.starts_with('-')) places += o->multi_ ? args.size() : 1;
    each_name(n0, [&](std::string_view n) {
      if (is_long(n)) longs.emplace_back(o.get(), n);
      else if (n.size() == 2 && n[0] == '-') shorts.emplace_back(n[1], o.get());
    });
  }
  auto short_opt = [&](char c) {
    auto it = std::find_if(shorts.begin(), shorts.end(), [c](auto& s) { return s.first == c; });
    return it == shorts.end() ? nullptr : it->second;
  };
  // getopt's errors as the reference's callers met them: a value missing
  // or not allowed at once (before --help), an unknown option, an
  // ambiguous prefix or an operand too many after the values were applied.
  std::string error, mismatch;
  std::vector<std::string> operands;
  auto fail = [&](std::string msg) { error = error.empty() ? std::move(msg) : error; };
  auto operand = [&](const std::string& a) {
    if (operands.size() == places) fail("unexpected argument '" + a + "'");
    operands.push_back(a);
  };
  auto take = [&](Option* o, std::string name, size_t& i, std::optional<std::string> v, std::string_view typed = {}) {
    if (o->kind_ != Option::Kind::Value) return given.push_back({o, std::move(name), {}});
    if (!v && i + 1 == args.size()) {  // (named as typed)
      if (mismatch.empty()) mismatch = "option '" + std::string(typed.empty() ? name : typed) + "' requires an argument";
      return;
    }
    given.push_back({o, std::move(name), v ? *v : args[++i]});
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-' || (a[1] >= '0' && a[1] <= '9' && !short_opt(a[1]))) {
      operand(a);
    } else if (a == "--") {
      while (++i < args.size()) operand(args[i]);
    } else if (a[1] == '-') {
      size_t eq = a.find('=');
      std::string typed = a.substr(0, eq), name, all;
      Option* o = nullptr;
      bool ambiguous = false;
      for (auto& [lo, ln] : longs)  // the exact name, else the one it begins
        if (ln == typed) {
          o = lo, name = ln, ambiguous = false;
          break;
        } else if (ln.starts_with(typed)) {
          (all += " '").append(ln) += "'", ambiguous = ambiguous || (o && o != lo);
          if (!o) o = lo, name = ln;
        }
      if (ambiguous) fail("option '" + typed + "' is ambiguous; possibilities:" + all);
      else if (!o) fail("unrecognized option '" + typed + "'");
      else if (eq != a.npos && o->kind_ != Option::Kind::Value) {
        if (mismatch.empty()) mismatch = "option '" + name + "' doesn't allow an argument";
      }
      else take(o, name, i, eq == a.npos ? std::nullopt : std::optional(a.substr(eq + 1)), typed);
    } else {
      for (size_t k = 1; k < a.size(); ++k) {
        Option* o = short_opt(a[k]);
        if (!o) fail("unrecognized option '-" + a.substr(k, 1) + "'");
        if (!o || o->kind_ == Option::Kind::Value) {
          if (o) take(o, "-" + a.substr(k, 1), i, k + 1 < a.size() ? std::optional(a.substr(k + 1)) : std::nullopt);
          break;
        }
        take(o, "-" + a.substr(k, 1), i, std::nullopt);
      }
    }
  }
  if (!mismatch.empty()) throw ParseError(mismatch);
  bool any_early = false;
  for (const Given& g : given)
    if (g.o->kind_ == Option::Kind::Help) return Result::Help;
    else if (g.o->kind_ == Option::Kind::Version) return Result::Version;
    else any_early = any_early || g.o->early_;

  // The values and operands, checked as getopt's reading applied them (the
  // early() options first), in its words; required and excluded options
  // after the parse.
  std::vector<const Option*> placed;  // the positional each operand goes to
  {
    auto check = [](const Option& o, const std::string& name, std::string value) {
      for (const Validator& v : o.checks_)
        if (std::string why = v.fn(value); !why.empty()) throw ValidationError(name, why);
      if (o.convertible_ && !o.convertible_(value)) throw ValidationError("invalid value '" + value + "' for " + name);
    };
    for (bool early : {true, false})
      for (const Given& g : given)
        if (g.o->early_ == early && g.o->kind_ == Option::Kind::Value) check(*g.o, g.name, g.value);
    for (const auto& o : options_)
      if (!o->names_.view().starts_with('-'))
        while (placed.size() < operands.size()) {
          check(*o, o->names_.str(), operands[placed.size()]);
          placed.push_back(o.get());
          if (!o->multi_) break;
        }
  }

  // CLI11's parse of the same line, canonical: the early() options (then
  // the after_early callbacks), then the others, "--" and the operands.
  // Declared: the options given, the positionals and required options.
  auto cli11 = [&](bool early) {
    std::vector<Option*> decls;
    std::vector<std::string> line;
    for (const auto& o : options_)
      if (o->early_ == early && (std::any_of(given.begin(), given.end(), [&](const Given& g) { return g.o == o.get(); }) ||
                                 (!early && (o->required_ || !o->names_.view().starts_with('-')))))
        decls.push_back(o.get());
    for (const Given& g : given)
      if (g.o->early_ != early) continue;
      else if (g.o->kind_ != Option::Kind::Value) line.push_back(g.name);
      else if (g.value.empty()) line.push_back(g.name), line.emplace_back();
      else line.push_back(g.name + (is_long(g.name) ? "=" : "") + g.value);
    if (!early) line.push_back("--"), line.insert(line.end(), operands.begin(), operands.end());
    std::reverse(line.begin(), line.end());
    return std::make_pair(std::make_unique<Cli11>(decls, version_, true), std::move(line));
  };
  auto [main, line] = cli11(false);  // (made first: CLI11 zeroes counted flags)
  try {
    if (any_early) {
      auto [early, eline] = cli11(true);
      early->app.parse(std::move(eline));
    }
    for (const auto& fn : after_early_) fn();
    try {
      main->app.parse(std::move(line));
    } catch (...) {
      if (error.empty()) throw;  // (what did parse is kept)
    }
  } catch (const CLI::Error& e) {
    if (dynamic_cast<const CLI::ValidationError*>(&e) || dynamic_cast<const CLI::ConversionError*>(&e))
      throw ValidationError(e.what());
    throw ParseError(e.what());
  }
  if (!error.empty()) throw ParseError(error);
  auto count = [&](const Option* o) {
    return std::find(placed.begin(), placed.end(), o) != placed.end() ||
           std::any_of(given.begin(), given.end(), [o](const Given& g) { return g.o == o; });
  };
  for (const auto& o : options_) {
    if (o->required_ && !count(o.get())) throw ParseError(long_name(*o) + " is required");
    if (count(o.get()))
      for (const Option* x : o->excludes_)
        if (count(x)) throw ParseError(long_name(*o) + " cannot be given with " + long_name(*x));
  }
  for (const auto& fn : callbacks_) fn();
  return Result::Ok;
}

std::vector<App::Shown> App::shown() const {
  std::vector<Option*> all;
  for (const auto& o : options_) all.push_back(o.get());
  Cli11 c(all, version_, false);
  std::vector<Shown> out;
  for (const CLI::Option* o : c.app.get_options()) {
    bool value = o->get_expected_min() > 0, pos = o->get_positional();
    std::string text = o->get_option_text().empty() ? o->get_type_name() : o->get_option_text();
    auto m = std::find_if(c.made.begin(), c.made.end(), [o](auto& d) { return d.second == o; });
    std::string names = pos || m == c.made.end() ? o->get_name(pos, !pos) : c.made_names[m - c.made.begin()];
    out.push_back({names, value && !pos ? text : pos ? o->get_option_text() : "",
                   o->get_description(), pos, value, o->get_required()});
  }
  return out;
}

}  // namespace ibtool::cli
