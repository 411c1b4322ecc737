// The command line of the commands (cmd/), recorded in CLI11's spelling
// (cmd/registry.h aliases the namespace as CLI) and declared on a CLI::App
// by cli.cpp, the one file that includes CLI11 (its header builds objects
// at start-up in every file that includes it).  CLI11 converts, counts,
// places operands and holds what --help, the man pages and completion show
// (App::shown).  cli.cpp first reads the line as getopt_long does (-vv,
// -t100, --time for --timeout, any order, "--", -1 as an operand, the last
// value wins) and checks it in getopt's words, which scripts read; CLI11
// then parses it canonical (--name=value ... -- operands), with only the
// options it names declared (CLI11: ~18k instructions an option).
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ibtool::cli {

// A usage error (the command prints its usage), and a value an option does
// not take (one line and where the help is).
struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ValidationError : ParseError {
  explicit ValidationError(const std::string& msg) : ParseError(msg) {}
  ValidationError(const std::string& name, const std::string& msg) : ParseError(name + ": " + msg) {}
};

struct Validator {  // CLI::Validator's form: "" accepts, else the reason
  std::function<std::string(std::string&)> fn;
  std::string name;
  std::vector<std::string> values;  // the values it accepts, where they are a list (one_of): completion offers them
  Validator(std::function<std::string(std::string&)> f, std::string n = {}) : fn(std::move(f)), name(std::move(n)) {}
};
// A value among `values` (exactly as spelt): refused with "'v' is not one
// of a, b, c"; the help shows the list, completion offers it.
Validator one_of(std::vector<std::string> values);

// A literal is kept by pointer (no copy at start-up), a built string shared.
struct Str : std::string_view {
  Str(const char* lit = "") : std::string_view(lit) {}  // NOLINT: implicit
  Str(std::string s) : own_(std::make_shared<const std::string>(std::move(s))) { std::string_view::operator=(*own_); }  // NOLINT
  std::shared_ptr<const std::string> own_;
};

// One declared option, flag or operand: its names ("-C,--Ca"; an operand's
// has no dash), its description and how CLI11 declares it.
struct Cli11;
using OnValue = std::function<void(const std::string&)>;  // a callback given an option's value
struct Option {
  Option* option_text(Str t) { return text_ = std::move(t), this; }
  Option* required(bool v = true) { return required_ = v, this; }
  Option* check(Validator v) { return checks_.push_back(std::move(v)), this; }
  Option* excludes(Option* o) { return excludes_.push_back(o), this; }
  // Applied before every other option, in any spelling, then
  // App::after_early's callbacks: the file of settings the line overrides.
  Option* early(bool v = true) { return early_ = v, this; }
  // The words shell completion offers for this option's value, or for an
  // operand's first word (smpquery's operations), where no one_of check
  // lists them.
  Option* completes(std::vector<std::string> words) { return completes_ = std::move(words), this; }

  enum class Kind : unsigned char { Flag, Value, Help, Version } kind_ = Kind::Value;
  Str names_, desc_, text_;
  bool required_ = false, early_ = false, multi_ = false;  // multi_: a vector
  void* target_ = nullptr;
  void (*declare_)(Cli11&, Option&) = nullptr;  // a bound variable's CLI11 declaration
  OnValue fn_;  // or a callback's
  std::vector<Validator> checks_;
  std::vector<std::string> completes_;
  std::vector<Option*> excludes_;
  bool (*convertible_)(const std::string&) = nullptr;  // a number's: strtol(.., 0)'s reading, T's range
};
// Whether s is a number as strtol(.., 0) or strtod read it, within [lo, hi]
// (CLI11 reads "" as 0 and wraps -1 into an unsigned).
bool number_in(const std::string& s, bool floating, long double lo, long double hi);
template <class S>
bool convertible(const std::string& s) {
  return number_in(s, std::is_floating_point_v<S>, std::numeric_limits<S>::lowest(), std::numeric_limits<S>::max());
}
// CLI11's declaration of an Option bound to a T (cli.cpp instantiates it
// for the types commands bind).
template <class T>
void declare(Cli11&, Option&);

class App {
public:
  explicit App(std::string name);

  // A flag: a bool is set, an integer counts (-d -d, -dd).
  template <class T>
    requires(!std::is_const_v<T>)
  Option* add_flag(Str names, T& v, Str desc = {}) {
    return add(std::move(names), std::move(desc), Option::Kind::Flag, &v, &declare<T>);
  }
  Option* add_flag_callback(Str names, std::function<void()> fn, Str desc = {});
  // An option taking a value, or an operand (a vector takes all left).
  template <class T>
    requires(!std::is_const_v<T>)
  Option* add_option(Str names, T& v, Str desc = {}) {
    Option* o = add(std::move(names), std::move(desc), Option::Kind::Value, &v, &declare<T>);
    o->multi_ = !std::is_same_v<T, std::string> && requires { v.push_back(v.front()); };
    using S = std::remove_cvref_t<decltype(*std::optional(v))>;  // (T, or an optional's value type)
    if constexpr (std::is_arithmetic_v<S> && !std::is_same_v<S, bool>) o->convertible_ = &convertible<S>;
    return o;
  }
  template <class T>
    requires std::is_same_v<T, std::string>
  Option* add_option_function(Str names, OnValue fn, Str desc = {}) {
    return add(std::move(names), std::move(desc), Option::Kind::Value, nullptr, nullptr, std::move(fn));
  }
  Option* set_help_flag(Str names, Str desc = {});  // default -h,--help
  Option* set_version_flag(Str names, std::string version);
  // Run after a successful parse (checks across options).
  void callback(std::function<void()> fn) { callbacks_.push_back(std::move(fn)); }
  // Run in a parse that applies values, after the early() options and
  // before all others (not for --help, --version or a line in error).
  void after_early(std::function<void()> fn) { after_early_.push_back(std::move(fn)); }

  enum class Result { Ok, Help, Version };
  // Parse the arguments (without the program name).  Throws ParseError.
  Result parse(const std::vector<std::string>& args);

  const std::string& get_name() const { return name_; }
  const std::string& version() const { return version_; }

  struct Shown {  // an option as a CLI::App holding them all shows it
    std::string names, value, description;  // "-C,--Ca", "<ca>" (or its type), ...
    bool positional, takes_value, required;
    std::vector<std::string> values;  // the words its value (an operand: its first word) may be, if a list
  };
  std::vector<Shown> shown() const;
  // The help, as the formatter (cmd/main.cpp) writes it.
  std::string help() const { return formatter ? formatter(*this) : name_; }
  std::function<std::string(const App&)> formatter;

private:
  Option* add(Str names, Str desc, Option::Kind kind, void* target, void (*declare)(Cli11&, Option&), OnValue fn = {});

  std::string name_, version_;
  std::vector<std::unique_ptr<Option>> options_;
  std::vector<std::function<void()>> callbacks_, after_early_;
};

}  // namespace ibtool::cli
