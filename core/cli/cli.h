// The command-line declarations of the commands (cmd/): each command
// declares its options here once, as data (names, value kind, help text,
// value word, validators); the registry, --help, the man pages and the shell
// completion read these declarations.  Parsing is CLI11's (App::parse, in
// core/cli/cli11.cpp, the one translation unit that includes CLI11), with
// getopt_long's syntax: short options clustered (-vv, -dD), a short
// option's value joined or separate (-t100, -t 100), long options with "="
// or a separate value and by any unique prefix (--timeout=100, --time 100),
// counting flags (-d -d), options and positional arguments in any order,
// and "--" ending the options.  An argument "-<digit>..." that is no option
// is a positional (a negative number).  A value option given twice keeps the
// last value, as getopt.
//
// Declaring is cheap (only the invoked command declares anything): names,
// descriptions and value texts given as string literals are kept by
// pointer.  The declaration API is CLI11's (add_option, add_flag,
// ->option_text, ->required, ->check, ...), so cmd/registry.h aliases the
// namespace as CLI.
#pragma once

#include <charconv>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ibtool::cli {

// A usage error: the command prints it with its usage and exits with its
// usage status.
class ParseError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A value the option does not take (not a number, out of range, refused by
// a validator or an App callback): the command prints one line and where
// its help is, not its whole usage.
class ValidationError : public ParseError {
public:
  explicit ValidationError(const std::string& msg) : ParseError(msg) {}
  ValidationError(const std::string& name, const std::string& msg) : ParseError(name + ": " + msg) {}
};

// A string argument of the declaration API: a string literal is kept by
// pointer, anything else is copied.
class Str {
public:
  Str() = default;
  Str(const char* lit) : lit_(lit ? lit : "") {}  // NOLINT: implicit on purpose
  Str(std::string s) : own_(std::move(s)), lit_(nullptr) {}  // NOLINT
  Str(std::string_view s) : own_(s), lit_(nullptr) {}  // NOLINT
  const char* c_str() const { return lit_ ? lit_ : own_.c_str(); }
  std::string_view view() const { return lit_ ? std::string_view(lit_) : std::string_view(own_); }
  bool empty() const { return view().empty(); }

private:
  std::string own_;
  const char* lit_ = "";
};

// A check run on an option's value before it is stored: returns an empty
// string when the value is acceptable, else the reason.  It may rewrite the
// value.
class Validator {
public:
  Validator() = default;
  Validator(std::function<std::string(std::string&)> fn, std::string name = {})
      : fn_(std::move(fn)), name_(std::move(name)) {}
  std::string operator()(std::string& value) const { return fn_ ? fn_(value) : std::string(); }
  const std::string& get_name() const { return name_; }

private:
  std::function<std::string(std::string&)> fn_;
  std::string name_;
};

// A validator accepting exactly one of the given words.
Validator IsMember(std::initializer_list<const char*> words);

namespace detail {

// Store a value into a bound variable of type T.  first: the first value
// this option receives in this parse (a vector is cleared then).  False when
// the value does not convert to T.
bool to_signed(const std::string& s, long long& out, long long lo, long long hi);
bool to_unsigned(const std::string& s, unsigned long long& out, unsigned long long hi);
bool to_double(const std::string& s, double& out);

template <class T>
struct is_vector : std::false_type {};
template <class U, class A>
struct is_vector<std::vector<U, A>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class U>
struct is_optional<std::optional<U>> : std::true_type {};

template <class T>
bool store(void* target, const std::string& s, bool first) {
  T& v = *static_cast<T*>(target);
  if constexpr (std::is_same_v<T, std::string>) {
    v = s;
    return true;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (s == "1" || s == "true") v = true;
    else if (s == "0" || s == "false") v = false;
    else return false;
    return true;
  } else if constexpr (std::is_enum_v<T>) {
    std::underlying_type_t<T> u{};
    if (!store<std::underlying_type_t<T>>(&u, s, first)) return false;
    v = static_cast<T>(u);
    return true;
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    long long x;
    if (!to_signed(s, x, std::numeric_limits<T>::min(), std::numeric_limits<T>::max())) return false;
    v = static_cast<T>(x);
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    unsigned long long x;
    if (!to_unsigned(s, x, std::numeric_limits<T>::max())) return false;
    v = static_cast<T>(x);
    return true;
  } else if constexpr (std::is_floating_point_v<T>) {
    double x;
    if (!to_double(s, x)) return false;
    v = static_cast<T>(x);
    return true;
  } else if constexpr (is_vector<T>::value) {
    typename T::value_type e{};
    if (!store<typename T::value_type>(&e, s, true)) return false;
    if (first) v.clear();
    v.push_back(std::move(e));
    return true;
  } else if constexpr (is_optional<T>::value) {
    typename T::value_type e{};
    if (!store<typename T::value_type>(&e, s, true)) return false;
    v = std::move(e);
    return true;
  } else {
    static_assert(sizeof(T) == 0, "no conversion from a command-line string to this type");
  }
}

// The word shown for an option's value in the help when it has no
// option_text.
template <class T>
constexpr const char* type_name() {
  if constexpr (is_vector<T>::value || is_optional<T>::value) return type_name<typename T::value_type>();
  else if constexpr (std::is_same_v<T, bool>) return "BOOL";
  else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>)
    return std::is_signed_v<T> ? "INT" : "UINT";
  else if constexpr (std::is_floating_point_v<T>) return "FLOAT";
  else return "TEXT";
}

}  // namespace detail

class App;

// One declared option, flag or positional argument.
class Option {
public:
  enum class Kind : uint8_t { Flag, Value, Help, Version };

  // The word shown for the value in the help, e.g. "<lid>".
  Option* option_text(Str text) {
    text_ = std::move(text);
    return this;
  }
  Option* required(bool value = true) {
    required_ = value;
    return this;
  }
  Option* check(Validator v) {
    checks_.push_back(std::move(v));
    return this;
  }
  // Giving both this option and other is a usage error.
  Option* excludes(Option* other) {
    excludes_.push_back(other);
    other->excludes_.push_back(this);
    return this;
  }
  // Applied before every option that is not, wherever it stands on the
  // line (then App::after_early's callbacks run): an option naming a file
  // of settings that the rest of the line overrides (-z FILE).  The parse
  // finds it in every spelling the parser accepts (-zFILE, --conf=FILE, a
  // cluster -vz FILE) and never in another option's value (-C -z).
  Option* early(bool value = true) {
    early_ = value;
    return this;
  }

  // The names as declared, e.g. "-C,--Ca" (for a positional: its name).
  std::string_view names() const { return names_.view(); }
  // The first long name with its dashes, else the first name.
  std::string get_name() const;
  std::string_view description() const { return desc_.view(); }
  // The word for the value: option_text, else the value's type (empty for
  // flags and positionals).
  std::string_view value_text() const;
  bool positional() const { return positional_; }
  bool takes_value() const { return kind_ == Kind::Value; }
  bool is_required() const { return required_; }
  // How many times it was given in the last parse.
  unsigned count() const { return count_; }

  bool has_short(char c) const;
  bool has_long(std::string_view name) const;

private:
  friend class App;
  Option(Str names, Str desc, Kind kind) : names_(std::move(names)), desc_(std::move(desc)), kind_(kind) {}
  // Apply one occurrence (value: the option's argument, "" for flags).
  void apply(std::string value, std::string_view as_given);

  Str names_, desc_, text_;
  Kind kind_;
  bool positional_ = false, required_ = false, multi_ = false, early_ = false;
  unsigned count_ = 0;
  const char* type_ = "";
  void* target_ = nullptr;
  bool (*store_)(void*, const std::string&, bool) = nullptr;  // value options
  void (*flag_)(void*) = nullptr;                              // flags
  std::function<void(const std::string&)> fn_;                 // callbacks
  std::vector<Validator> checks_;
  std::vector<Option*> excludes_;
};

class App {
public:
  explicit App(std::string name, std::string description = {});
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // A flag: a bool is set, an integer counts the occurrences (-d -d, -dd).
  template <class T>
    requires(std::is_same_v<T, bool> || (std::is_integral_v<T> && !std::is_const_v<T>))
  Option* add_flag(Str names, T& target, Str desc = {}) {
    Option* o = add(std::move(names), std::move(desc), Option::Kind::Flag);
    o->target_ = &target;
    if constexpr (std::is_same_v<T, bool>) o->flag_ = [](void* p) { *static_cast<bool*>(p) = true; };
    else o->flag_ = [](void* p) { ++*static_cast<T*>(p); };
    return o;
  }
  Option* add_flag_callback(Str names, std::function<void()> fn, Str desc = {});

  // An option taking a value, or a positional argument (a name without
  // dashes); a vector positional takes every remaining positional.
  template <class T>
    requires(!std::is_const_v<T>)
  Option* add_option(Str names, T& target, Str desc = {}) {
    Option* o = add(std::move(names), std::move(desc), Option::Kind::Value);
    o->target_ = &target;
    o->store_ = &detail::store<T>;
    o->type_ = detail::type_name<T>();
    o->multi_ = detail::is_vector<T>::value;
    return o;
  }
  // An option whose value is accepted and not stored (handled elsewhere).
  Option* add_option(Str names, Str desc = {});
  // An option whose value (converted to T) is handed to fn.
  template <class T>
  Option* add_option_function(Str names, std::function<void(const T&)> fn, Str desc = {}) {
    Option* o = add(std::move(names), std::move(desc), Option::Kind::Value);
    o->type_ = detail::type_name<T>();
    o->multi_ = detail::is_vector<T>::value;
    if constexpr (std::is_same_v<T, std::string>) {
      o->fn_ = std::move(fn);
    } else {
      o->fn_ = [fn = std::move(fn), o](const std::string& s) {
        T v{};
        if (!detail::store<T>(&v, s, true)) throw ValidationError("invalid value '" + s + "' for " + o->get_name());
        fn(v);
      };
    }
    return o;
  }

  // The flag that asks for the help (default "-h,--help"); empty names
  // remove it.
  Option* set_help_flag(Str names, Str desc = {});
  // The flag that asks for the version line (default none).
  Option* set_version_flag(Str names, std::string version);
  // Run after a successful parse (checks across options).
  void callback(std::function<void()> fn) { callbacks_.push_back(std::move(fn)); }
  // Run in every parse that gets as far as applying values (not for
  // --help, --version or a line that does not parse), after the early()
  // options and before every other option and operand: what must apply
  // first so the line overrides it (the config file, the environment).
  void after_early(std::function<void()> fn) { after_early_.push_back(std::move(fn)); }

  enum class Result { Ok, Help, Version };
  // Parse args (without the program name).  Throws ParseError.
  Result parse(const std::vector<std::string>& args);

  const std::string& get_name() const { return name_; }
  const std::string& get_description() const { return description_; }
  const std::string& version() const { return version_; }
  const std::vector<std::unique_ptr<Option>>& get_options() const { return options_; }

  // The full help text: the formatter's if one is set, else the option list.
  std::string help() const;
  // The "Options:" block (non-positional options, one a line).
  std::string options_help() const;
  void formatter(std::string (*fn)(const App&, const void*), const void* ctx) {
    format_ = fn;
    format_ctx_ = ctx;
  }

private:
  Option* add(Str names, Str desc, Option::Kind kind);

  std::string name_, description_, version_;
  std::vector<std::unique_ptr<Option>> options_;
  std::vector<std::function<void()>> callbacks_, after_early_;
  std::string (*format_)(const App&, const void*) = nullptr;
  const void* format_ctx_ = nullptr;
};

}  // namespace ibtool::cli
