// Diagnostics.  Every line the commands and the library write to stderr
// (errors, warnings, -v detail, -d/-dd traces, usage texts) goes through
// here, and from here through spdlog: one logger, stderr only, the text
// exactly as written (its "E: ", "ibwarn: [pid] ..." prefixes are part of
// the text, because scripts parse those lines).  stdout is never written
// here: it carries results only.
//
// Text may hold several lines, or part of one: a line is handed to spdlog
// when its newline arrives (flush() hands on a last partial line; it runs
// at exit).  Only core/out/log.cpp includes spdlog, and nothing is built before
// the first diagnostic, so a command that prints none pays nothing.
#pragma once

#include <cstdint>
#include <string_view>

namespace ibcore::log {

enum class Level : uint8_t { trace, debug, info, warn, error };

// Write text at a level.
void text(Level level, std::string_view s);
// printf-style forms of text().
[[gnu::format(printf, 2, 3)]] void printf(Level level, const char* fmt, ...);
[[gnu::format(printf, 1, 2)]] void error(const char* fmt, ...);
[[gnu::format(printf, 1, 2)]] void warn(const char* fmt, ...);
[[gnu::format(printf, 1, 2)]] void info(const char* fmt, ...);
[[gnu::format(printf, 1, 2)]] void debug(const char* fmt, ...);

// A line the reference tools write on stdout, which must be a diagnostic
// instead when stdout carries a JSON document (to_log): printf-style, to
// stdout or, at level, here.
[[gnu::format(printf, 3, 4)]] void stdout_or_log(bool to_log, Level level, const char* fmt, ...);

// The detail -v asks of diagnostics (0: none), for the library's own
// choices of what to explain (report(), a transport's fallback warning,
// discovery statistics).  The one setting of the log itself: the
// dispatcher sets it from the invocation's Config before the command runs.
void set_verbosity(int v);
int verbosity();

// Hand on a held partial line.
void flush();

// A line held until the process exits, then written after stdout is
// flushed: a warning about something that must not cost or hide the result
// it follows (a --cache file that could not be written).
void at_exit(Level level, std::string_view line);

}  // namespace ibcore::log
