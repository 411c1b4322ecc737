// The one file that includes CLI11 (core/cli/cli.h says what it does).
#include "core/cli/cli.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <utility>

namespace ibtool::cli {

// Each name of "-C,--Ca" (no vector: it runs for every record at start-up).
static void each_name(std::string_view names, auto f) {
  for (size_t c; !names.empty(); names.remove_prefix(c == names.npos ? names.size() : c + 1))
    if (c = names.find(','); c) f(names.substr(0, c));
}

bool number_in(const std::string& s, bool floating, long double lo, long double hi) {
  errno = 0;
  char* end = nullptr;
  static_assert(std::numeric_limits<long double>::digits >= 64);  // (v holds every 64-bit integer)
  long double v = 0;
  if (floating) std::strtod(s.c_str(), &end);
  else v = lo < 0 ? (long double)std::strtoll(s.c_str(), &end, 0) : (long double)std::strtoull(s.c_str(), &end, 0);
  return !errno && !*end && end != s.c_str() && (floating || (v >= lo && v <= hi && (lo < 0 || s[0] != '-')));  // (no sign for an unsigned)
}

// A CLI::App declaring records; a name declared twice is its first
// declaration's (as getopt's first matching entry).  Parsing, required
// options are App::parse's to check (in turn with the excluded ones).
struct Cli11 {
  CLI::App app;
  std::string names;  // those of the record being declared not taken before
  std::vector<std::string> taken;
  struct Made { const Option* o; CLI::Option* c; std::string names; };  // (names as declared: CLI11 shows short ones first)
  std::vector<Made> made;

  Cli11(const std::vector<std::unique_ptr<Option>>& options, auto wanted) {
    app.set_help_flag();  // (only a declared one)
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // as getopt
    for (const auto& o : options)
      if (wanted(*o)) declare(*o);
  }
  void declare(Option& o) {
    names.clear();
    each_name(o.names_, [&](std::string_view n) {
      if (std::find(taken.begin(), taken.end(), n) == taken.end()) (names += names.empty() ? "" : ",") += taken.emplace_back(n);
    });
    if (names.empty()) return;
    if (o.declare_) return o.declare_(*this, o);
    std::string desc = std::string(o.desc_);
    if (o.kind_ == Option::Kind::Flag)  // once per occurrence, in line order
      return done(o, app.add_flag_callback(names, [&o] { o.fn_({}); }, desc)->trigger_on_parse());
    if (o.kind_ != Option::Kind::Value) return done(o, app.add_flag(names, std::as_const(desc)));  // (-h, -V: shown only)
    done(o, app.add_option_function<std::string>(names, o.fn_, desc));
  }
  void done(const Option& o, CLI::Option* c) {
    c->option_text(std::string(o.text_));
    for (const Validator& v : o.checks_) c->check(CLI::Validator(v.fn, v.name, v.name));
    made.push_back({&o, c, names});
  }
};

template <class T>
void declare(Cli11& c, Option& o) {
  auto& v = *static_cast<T*>(o.target_);
  c.done(o, o.kind_ == Option::Kind::Flag ? c.app.add_flag(c.names, v, std::string(o.desc_)) : c.app.add_option(c.names, v, std::string(o.desc_)));
}
#define IBTOOL_BINDABLE(T) template void declare<T>(Cli11&, Option&);
IBTOOL_BINDABLE(std::string) IBTOOL_BINDABLE(std::vector<std::string>) IBTOOL_BINDABLE(double) IBTOOL_BINDABLE(long)
IBTOOL_BINDABLE(std::optional<int>) IBTOOL_BINDABLE(std::optional<unsigned long>) IBTOOL_BINDABLE(long long)
IBTOOL_BINDABLE(bool) IBTOOL_BINDABLE(int) IBTOOL_BINDABLE(unsigned) IBTOOL_BINDABLE(int8_t) IBTOOL_BINDABLE(uint8_t)
IBTOOL_BINDABLE(uint16_t) IBTOOL_BINDABLE(uint64_t)

Validator one_of(std::vector<std::string> values) {
  std::string list;
  for (const std::string& v : values) list += (list.empty() ? "" : ", ") + v;
  Validator v(
      [values, list](std::string& s) {
        return std::find(values.begin(), values.end(), s) != values.end() ? std::string()
                                                                           : "'" + s + "' is not one of " + list;
      },
      "");
  v.values = std::move(values);
  return v;
}

App::App(std::string name) : name_(std::move(name)) {
  options_.reserve(32);  // (most commands declare fewer: no regrowth at start-up)
  set_help_flag("-h,--help", "print this help and exit");
}

Option* App::add(Str names, Str desc, Option::Kind kind, void* target, void (*declare)(Cli11&, Option&), OnValue fn) {
  Option* o = options_.emplace_back(new Option).get();
  o->names_ = std::move(names), o->desc_ = std::move(desc), o->kind_ = kind, o->target_ = target, o->declare_ = declare;
  return o->fn_ = std::move(fn), o;
}
Option* App::add_flag_callback(Str names, std::function<void()> fn, Str desc) {
  return add(std::move(names), std::move(desc), Option::Kind::Flag, nullptr, nullptr, [fn = std::move(fn)](const std::string&) { fn(); });
}
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
  // value; the operands.  A value missing or not allowed is an error at
  // once (before --help); an unknown option, an ambiguous prefix or an
  // operand too many, after the values were applied.
  struct Given { Option* o; std::string name, value; };  // NOLINT: one line
  std::vector<Given> given;
  std::vector<std::string> operands;
  std::string error, mismatch;  // the first of each
  auto fail = [](std::string& first, std::string msg) { first = first.empty() ? std::move(msg) : first; };
  std::vector<std::pair<std::string_view, Option*>> names;  // each name of each option
  size_t places = 0;  // operands the positionals take
  for (const auto& o : options_) {
    each_name(o->names_, [&](std::string_view n) { names.emplace_back(n, o.get()); });
    if (!o->names_.starts_with('-')) places += o->multi_ ? args.size() : 1;
  }
  auto named = [&](std::string_view name) -> Option* {  // (the first so named, as getopt)
    for (auto [n, o] : names)
      if (n == name) return o;
    return nullptr;
  };
  auto operand = [&](const std::string& a) {
    if (operands.size() == places) fail(error, "unexpected argument '" + a + "'");
    operands.push_back(a);
  };
  auto take = [&](Option* o, std::string name, size_t& i, std::optional<std::string> v, std::string_view typed = {}) {
    if (o->kind_ != Option::Kind::Value) return given.push_back({o, std::move(name), {}});
    if (!v && i + 1 == args.size())  // (named as typed)
      return fail(mismatch, "option '" + std::string(typed.empty() ? name : typed) + "' requires an argument");
    given.push_back({o, std::move(name), v ? *v : args[++i]});
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-' || (a[1] >= '0' && a[1] <= '9' && !named(a.substr(0, 2)))) {
      operand(a);
    } else if (a == "--") {
      while (++i < args.size()) operand(args[i]);
    } else if (a[1] == '-') {  // the exact name, else the one it begins
      size_t eq = a.find('=');
      std::string typed = a.substr(0, eq), name = typed, all;
      Option *exact = named(typed), *o = exact;
      bool ambiguous = false;
      for (auto [n, p] : names) {
        if (exact || !n.starts_with(typed)) continue;  // (typed begins "--": a long name)
        ambiguous = ambiguous || (o && o != p);
        if (!o) o = p, name = n;
        (all += " '").append(n) += "'";
      }
      if (ambiguous) fail(error, "option '" + typed + "' is ambiguous; possibilities:" + all);
      else if (!o) fail(error, "unrecognized option '" + typed + "'");
      else if (eq != a.npos && o->kind_ != Option::Kind::Value) fail(mismatch, "option '" + name + "' doesn't allow an argument");
      else take(o, name, i, eq == a.npos ? std::nullopt : std::optional(a.substr(eq + 1)), typed);
    } else {
      for (size_t k = 1; k < a.size(); ++k) {  // flags, maybe ending in an option and its value
        Option* o = named("-" + a.substr(k, 1));
        if (!o) fail(error, "unrecognized option '-" + a.substr(k, 1) + "'");
        else take(o, "-" + a.substr(k, 1), i, k + 1 < a.size() ? std::optional(a.substr(k + 1)) : std::nullopt);
        if (!o || o->kind_ == Option::Kind::Value) break;
      }
    }
  }
  if (!mismatch.empty()) throw ParseError(mismatch);
  for (const Given& g : given)
    if (g.o->kind_ == Option::Kind::Help || g.o->kind_ == Option::Kind::Version)
      return g.o->kind_ == Option::Kind::Help ? Result::Help : Result::Version;

  // The values and operands, checked as getopt's reading applied them (the
  // early() options first), in its words.
  auto check = [](const Option& o, const std::string& name, std::string value) {
    for (const Validator& v : o.checks_)
      if (std::string why = v.fn(value); !why.empty()) throw ValidationError(name, why);
    if (o.convertible_ && !o.convertible_(value)) throw ValidationError("invalid value '" + value + "' for " + name);
  };
  for (bool early : {true, false})
    for (const Given& g : given)
      if (g.o->early_ == early && g.o->kind_ == Option::Kind::Value) check(*g.o, g.name, g.value);
  size_t placed = 0;
  for (const auto& o : options_)
    while (!o->names_.starts_with('-') && placed < operands.size()) {
      check(*o, std::string(o->names_), operands[placed++]);
      if (!o->multi_) break;
    }

  // CLI11's parse of the same line, canonical, with the options given, the
  // positionals and the required options declared: the early() options,
  // the after_early callbacks, then the others, "--" and the operands.
  Cli11 c(options_, [&](const Option& o) {  // (made first: CLI11 zeroes counted flags)
    return o.required_ || !o.names_.starts_with('-') || std::any_of(given.begin(), given.end(), [&](const Given& g) { return g.o == &o; });
  });
  std::vector<std::string> line[2];  // [early], reversed (CLI11's order)
  for (const Given& g : given) {  // (CLI11 takes the word after an option as its value, whatever it is)
    line[g.o->early_].push_back(g.name);
    if (g.o->kind_ == Option::Kind::Value) line[g.o->early_].push_back(g.value);
  }
  line[0].push_back("--"), line[0].insert(line[0].end(), operands.begin(), operands.end());
  try {
    if (!line[1].empty()) c.app.parse(std::vector<std::string>(line[1].rbegin(), line[1].rend()));
    for (const auto& fn : after_early_) fn();
    try {
      c.app.parse(std::vector<std::string>(line[0].rbegin(), line[0].rend()));
    } catch (...) {
      if (error.empty()) throw;  // (what did parse is kept)
    }
  } catch (const CLI::Error& e) {
    if (dynamic_cast<const CLI::ValidationError*>(&e) || dynamic_cast<const CLI::ConversionError*>(&e))
      throw ValidationError(e.what());
    throw ParseError(e.what());
  }
  if (!error.empty()) throw ParseError(error);
  // Required and excluded options, as CLI11 counted them.
  for (const Cli11::Made& m : c.made) {
    if (m.o->required_ && !m.c->count()) throw ParseError(m.c->get_name() + " is required");
    for (const Cli11::Made& x : c.made)  // (the first declared of those m excludes)
      if (m.c->count() && x.c->count() && std::ranges::count(m.o->excludes_, x.o)) throw ParseError(m.c->get_name() + " cannot be given with " + x.c->get_name());
  }
  for (const auto& fn : callbacks_) fn();
  return Result::Ok;
}

std::vector<App::Shown> App::shown() const {
  Cli11 c(options_, [](const Option&) { return true; });
  std::vector<Shown> out;
  for (const auto& [r, o, names] : c.made) {  // (CLI11 keeps them in this order)
    bool value = o->get_expected_min() > 0, pos = o->get_positional();
    std::string text = o->get_option_text().empty() ? o->get_type_name() : o->get_option_text();
    std::vector<std::string> words = r->completes_;
    for (const Validator& v : r->checks_) words.insert(words.end(), v.values.begin(), v.values.end());
    out.push_back({pos ? o->get_name(true) : names, value && !pos ? text : pos ? o->get_option_text() : "",
                   o->get_description(), pos, value, r->required_, std::move(words)});
  }
  return out;
}

}  // namespace ibtool::cli
