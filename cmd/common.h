// The common options (SPEC.md §Common options), defined once and added to a
// command's app by that command with the subset it takes.
#pragma once

#include "cmd/registry.h"

#include <cstdint>
#include <span>
#include <string>

#include "core/base/config.h"

namespace ibtool {

namespace opt {
enum : uint32_t {
  Ca = 1u << 0,          // -C/--Ca
  Port = 1u << 1,        // -P/--Port
  Debug = 1u << 2,       // -d/--debug (repeatable)
  Verbose = 1u << 3,     // -v/--verbose (repeatable)
  Timeout = 1u << 4,     // -t/--timeout
  Retries = 1u << 5,     // --retries
  MKey = 1u << 6,        // -y/--m_key
  SMKey = 1u << 7,       // --smkey
  Sa = 1u << 8,          // --sa
  SaPath = 1u << 9,      // --sa-path
  Discovery = 1u << 10,  // --discovery
  Cache = 1u << 11,      // --cache, --refresh-cache, --cache-max-age
  NodeNameMap = 1u << 12,// --node-name-map
  Outstanding = 1u << 13,// --outstanding (and -o where the command says)
  Config = 1u << 14,     // -z/--config
  Errors = 1u << 15,     // -e/--errors (accepted, as the reference)
  Json = 1u << 16,       // -j/--json, --pretty (only commands that write JSON take it)
  PKeyIdx = 1u << 17,    // -Y/--pkey-idx (P_Key index of GMPs)
  Transport = 1u << 18,  // --transport umad|verbs|auto
  TimeoutLong = 1u << 19,// --timeout alone, for a command whose -t is its own
  Compat = 1u << 20,     // --compat 44|current (the output level, iba/compat.h)
  Strict = 1u << 21,     // --strict (what counts as a failure: the command's description)
  // The set every MAD-sending command takes.
  Mad = Ca | Port | Debug | Verbose | Timeout | Retries | Config | Errors | PKeyIdx | Transport | Compat,
  Smp = Mad | MKey | Sa,
  Gmp = Mad | SMKey | SaPath,
  Disc = Smp | SaPath | Discovery | Cache | NodeNameMap | Outstanding,
};
}  // namespace opt

// Add the selected common options to app, bound to c (the command's
// config()).  outstanding_short: also accept -o for --outstanding.
void add_common_options(CLI::App& app, ibcore::Config& c, uint32_t which, bool outstanding_short = false);

// Apply the reference's config file (ibdiag.conf format: key=value lines,
// '#' comments) to c.  A file that cannot be read is ignored, as the
// reference does (even one named with -z).
void load_config_file(const std::string& path, ibcore::Config& c);

// What applies before the command line's own settings, in this order: the
// config file (c.config_file: the default, or -z's in whatever spelling
// the parser took it), then the environment (IBTOOL_COMPAT).  The
// dispatcher runs it inside the parse, after -z and before every other
// option (cli::App::after_early), so the line overrides both.  Throws
// CLI::ValidationError for an environment value it refuses.
void apply_settings_sources(ibcore::Config& c);

// --strict (for cron jobs): a run whose result is empty or partial (a
// selection that matched nothing, a destination that did not answer, 100%
// loss) exits 1 instead of the reference's 0, after one "E: " line saying
// why (--strict named).  Returns the status to exit with: 1 when cfg asks
// for it, else status.
int strict_exit(const ibcore::Config& cfg, int status, const std::string& why);

// Parse an integer in the reference's way (decimal, 0x hex, 0 octal).
bool parse_int(const std::string& s, uint64_t& out);
// A comma-separated list of keywords (case-insensitive; empty items are
// skipped) as the OR of their flags: the reference's --diffcheck form.
// False for a keyword not in names.
struct FlagName {
  const char* name;
  unsigned flag;
};
bool parse_flag_list(const std::string& s, std::span<const FlagName> names, unsigned& flags);
// The check of a --diffcheck option taking those names: the reference's
// "invalid diff check key in '<value>'" for a list parse_flag_list refuses.
CLI::Validator diffcheck_check(std::span<const FlagName> names);

}  // namespace ibtool
