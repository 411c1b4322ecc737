// core/out/log.h on spdlog.  spdlog and fmt are used header-only in this one
// translation unit: no shared library is loaded at start-up for them, and
// the logger is made on the first diagnostic.
#define FMT_HEADER_ONLY 1
#include "core/out/log.h"

#include <spdlog/logger.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>
#include <string>

namespace ibcore::log {

namespace {

spdlog::level::level_enum to_spdlog(Level l) {
  switch (l) {
    case Level::trace:
      return spdlog::level::trace;
    case Level::debug:
      return spdlog::level::debug;
    case Level::info:
      return spdlog::level::info;
    case Level::warn:
      return spdlog::level::warn;
    case Level::error:
      break;
  }
  return spdlog::level::err;
}

struct State {
  std::mutex mu;
  spdlog::logger* logger = nullptr;
  std::string held;  // a line still without its newline
  Level held_level = Level::info;
  std::vector<std::pair<Level, std::string>> at_end;  // at_exit()'s lines
};

State& state() {
  // Never destroyed: diagnostics may come from static destructors and
  // from other threads while the process exits.
  static State* s = new State;
  return *s;
}

// Callers of emit hold the mutex.
void emit(State& s, Level level, std::string_view lines) {
  if (!s.logger) {
    // The messages carry their own prefixes and newlines (a last partial
    // line is written as it is).
    // The level filter passes everything: the callers decide what -v and
    // -d show, as the reference tools do.
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    s.logger = new spdlog::logger("ibtool", std::move(sink));
    s.logger->set_formatter(std::make_unique<spdlog::pattern_formatter>("%v", spdlog::pattern_time_type::local, ""));
    s.logger->set_level(spdlog::level::trace);
    s.logger->flush_on(spdlog::level::trace);
    std::atexit(flush);
  }
  s.logger->log(to_spdlog(level), spdlog::string_view_t(lines.data(), lines.size()));
}

void vprint(Level level, const char* fmt, va_list ap) {
  char small[512];
  va_list again;
  va_copy(again, ap);
  int n = std::vsnprintf(small, sizeof small, fmt, ap);
  if (n < 0) {
    va_end(again);
    return;
  }
  if (size_t(n) < sizeof small) {
    text(level, std::string_view(small, size_t(n)));
  } else {
    std::string big(size_t(n) + 1, '\0');
    std::vsnprintf(big.data(), big.size(), fmt, again);
    big.resize(size_t(n));
    text(level, big);
  }
  va_end(again);
}

}  // namespace

void text(Level level, std::string_view s) {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  size_t last = s.rfind('\n');
  if (last == std::string_view::npos) {
    if (st.held.empty()) st.held_level = level;
    st.held.append(s);
    return;
  }
  if (!st.held.empty()) {
    st.held.append(s.substr(0, last + 1));
    emit(st, st.held_level, st.held);
    st.held.clear();
  } else {
    emit(st, level, s.substr(0, last + 1));
  }
  if (last + 1 < s.size()) {
    st.held_level = level;
    st.held.assign(s.substr(last + 1));
  }
}

namespace {
std::atomic<int> g_verbosity{0};
}  // namespace

void set_verbosity(int v) { g_verbosity.store(v, std::memory_order_relaxed); }
int verbosity() { return g_verbosity.load(std::memory_order_relaxed); }

void flush() {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  if (st.held.empty()) return;
  // A last line without its newline, written as it is.
  emit(st, st.held_level, st.held);
  st.held.clear();
}

namespace {
void write_at_end() {
  std::fflush(stdout);  // (the result first: these lines follow it)
  flush();
  State& st = state();
  std::vector<std::pair<Level, std::string>> lines;
  {
    std::lock_guard<std::mutex> lock(st.mu);
    lines.swap(st.at_end);
  }
  for (auto& [level, line] : lines) text(level, line);
  flush();
}
}  // namespace

void at_exit(Level level, std::string_view line) {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  if (st.at_end.empty()) std::atexit(write_at_end);
  st.at_end.emplace_back(level, std::string(line));
}

void printf(Level level, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprint(level, fmt, ap);
  va_end(ap);
}

void stdout_or_log(bool to_log, Level level, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (to_log) {
    vprint(level, fmt, ap);
  } else {
    flush();
    std::vfprintf(stdout, fmt, ap);
    std::fflush(stdout);
  }
  va_end(ap);
}

#define IBCORE_LOG_AT(name, level)  \
  void name(const char* fmt, ...) { \
    va_list ap;                     \
    va_start(ap, fmt);              \
    vprint(level, fmt, ap);         \
    va_end(ap);                     \
  }
IBCORE_LOG_AT(error, Level::error)
IBCORE_LOG_AT(warn, Level::warn)
IBCORE_LOG_AT(info, Level::info)
IBCORE_LOG_AT(debug, Level::debug)
#undef IBCORE_LOG_AT

}  // namespace ibcore::log
