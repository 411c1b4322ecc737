#include "core/cli/cli.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace ibtool::cli {

namespace detail {

// Integers as the reference's strtol(.., 0): decimal, 0x hex, 0 octal.
bool to_signed(const std::string& s, long long& out, long long lo, long long hi) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 0);
  if (errno || *end || end == s.c_str() || v < lo || v > hi) return false;
  out = v;
  return true;
}

bool to_unsigned(const std::string& s, unsigned long long& out, unsigned long long hi) {
  if (s.empty() || s[0] == '-') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (errno || *end || end == s.c_str() || v > hi) return false;
  out = v;
  return true;
}

bool to_double(const std::string& s, double& out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (errno || *end || end == s.c_str()) return false;
  out = v;
  return true;
}

}  // namespace detail

Validator IsMember(std::initializer_list<const char*> words) {
  std::vector<std::string> w(words.begin(), words.end());
  std::string name = "{";
  for (size_t i = 0; i < w.size(); ++i) name += (i ? "," : "") + w[i];
  name += "}";
  return Validator(
      [w = std::move(w), name](std::string& v) -> std::string {
        for (const auto& x : w)
          if (x == v) return {};
        return v + " not in " + name;
      },
      name);
}

namespace {

// Calls fn(name) for every comma-separated name of a declaration; stops
// when fn returns true.
template <class F>
bool any_name(std::string_view names, F fn) {
  while (!names.empty()) {
    size_t c = names.find(',');
    std::string_view n = names.substr(0, c);
    if (fn(n)) return true;
    if (c == std::string_view::npos) break;
    names.remove_prefix(c + 1);
  }
  return false;
}

}  // namespace

bool Option::has_short(char c) const {
  return any_name(names_.view(), [c](std::string_view n) { return n.size() == 2 && n[0] == '-' && n[1] == c; });
}

bool Option::has_long(std::string_view name) const {
  return any_name(names_.view(), [name](std::string_view n) {
    return n.size() > 2 && n[0] == '-' && n[1] == '-' && n.substr(2) == name;
  });
}

std::string Option::get_name() const {
  std::string_view found;
  any_name(names_.view(), [&](std::string_view n) {
    if (n.size() > 2 && n[1] == '-') found = n;
    return !found.empty();
  });
  if (found.empty()) any_name(names_.view(), [&](std::string_view n) { return found = n, true; });
  return std::string(found);
}

std::string_view Option::value_text() const {
  if (!text_.empty()) return text_.view();
  if (kind_ != Kind::Value || positional_) return {};
  return type_;
}

void Option::apply(std::string value, std::string_view as_given) {
  ++count_;
  switch (kind_) {
    case Kind::Flag:
      if (flag_) flag_(target_);
      if (fn_) fn_(value);
      return;
    case Kind::Help:
    case Kind::Version:
      return;
    case Kind::Value:
      break;
  }
  for (const Validator& v : checks_) {
    std::string why = v(value);
    if (!why.empty()) throw ValidationError(std::string(as_given), why);
  }
  if (store_ && !store_(target_, value, count_ == 1))
    throw ValidationError("invalid value '" + value + "' for " + std::string(as_given));
  if (fn_) fn_(value);
}

App::App(std::string name, std::string description) : name_(std::move(name)), description_(std::move(description)) {
  options_.reserve(48);
  set_help_flag("-h,--help", "print this help and exit");
}

Option* App::add(Str names, Str desc, Option::Kind kind) {
  options_.emplace_back(new Option(std::move(names), std::move(desc), kind));
  Option* o = options_.back().get();
  std::string_view n = o->names_.view();
  o->positional_ = kind == Option::Kind::Value && !n.empty() && n[0] != '-';
  return o;
}

Option* App::add_flag_callback(Str names, std::function<void()> fn, Str desc) {
  Option* o = add(std::move(names), std::move(desc), Option::Kind::Flag);
  o->fn_ = [fn = std::move(fn)](const std::string&) { fn(); };
  return o;
}

Option* App::add_option(Str names, Str desc) { return add(std::move(names), std::move(desc), Option::Kind::Value); }

Option* App::set_help_flag(Str names, Str desc) {
  for (auto it = options_.begin(); it != options_.end(); ++it)
    if ((*it)->kind_ == Option::Kind::Help) {
      options_.erase(it);
      break;
    }
  if (names.empty()) return nullptr;
  return add(std::move(names), std::move(desc), Option::Kind::Help);
}

Option* App::set_version_flag(Str names, std::string version) {
  version_ = std::move(version);
  return add(std::move(names), "print the version and exit", Option::Kind::Version);
}

std::string App::options_help() const {
  std::string out = "Options:\n";
  for (const auto& o : options_) {
    if (o->positional_) continue;
    size_t start = out.size();
    out += "  ";
    out += o->names();
    std::string_view t = o->value_text();
    if (!t.empty()) {
      out += ' ';
      out += t;
    }
    constexpr size_t kColumn = 30;
    size_t len = out.size() - start;
    if (len < kColumn) out.append(kColumn - len, ' ');
    else out += "\n" + std::string(kColumn, ' ');
    out += o->description();
    out += '\n';
  }
  return out;
}

std::string App::help() const {
  if (format_) return format_(*this, format_ctx_);
  std::string out = "Usage: " + name_ + " [options]\n\n";
  if (!description_.empty()) out += description_ + "\n\n";
  return out + options_help();
}

}  // namespace ibtool::cli
