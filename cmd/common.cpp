#include "cmd/common.h"

#include <strings.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "core/base/textfile.h"
#include "core/out/log.h"

namespace ibtool {

bool parse_flag_list(const std::string& s, std::span<const FlagName> names, unsigned& flags) {
  flags = 0;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t c = s.find(',', pos);
    std::string k = s.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
    pos = c == std::string::npos ? s.size() + 1 : c + 1;
    if (k.empty()) continue;
    auto f = std::find_if(names.begin(), names.end(),
                          [&](const FlagName& n) { return !strcasecmp(k.c_str(), n.name); });
    if (f == names.end()) return false;
    flags |= f->flag;
  }
  return true;
}

CLI::Validator diffcheck_check(std::span<const FlagName> names) {
  return CLI::Validator(
      [names](std::string& s) -> std::string {
        unsigned f;
        return parse_flag_list(s, names, f) ? std::string() : "invalid diff check key in '" + s + "'";
      },
      "KEYS");
}

bool parse_int(const std::string& s, uint64_t& out) { return ibcore::parse_number(s, out); }

int strict_exit(const ibcore::Config& cfg, int status, const std::string& why) {
  if (!cfg.strict || status != 0) return status;
  ibcore::log::error("E: %s (--strict)\n", why.c_str());
  return 1;
}

namespace {

bool errors_flag_ = false;  // -e: accepted for compatibility; errors always show

// A key in the reference's integer forms, or a usage error.
uint64_t key_value(const std::string& s, const char* what) {
  uint64_t v = 0;
  if (!parse_int(s, v)) throw CLI::ValidationError(std::string("invalid ") + what + " '" + s + "'");
  return v;
}

}  // namespace

void load_config_file(const std::string& path, ibcore::Config& c) {
  std::string text;
  // ("-" names a file here, not standard input.)
  if (!ibcore::read_text(path == "-" ? "./-" : path, text)) return;
  ibcore::parse_ibdiag_conf(text, c);
}

void apply_settings_sources(ibcore::Config& c) {
  load_config_file(c.config_file, c);
  std::string why = ibcore::apply_environment(c);
  if (!why.empty()) throw CLI::ValidationError(why);
}

void add_common_options(CLI::App& app, ibcore::Config& c, uint32_t which, bool outstanding_short) {
  if (which & opt::Config) {
    // Applied before every other option (early), wherever it stands, so
    // the dispatcher reads the file it names before the rest of the line
    // (apply_settings_sources).
    app.add_option("-z,--config", c.config_file,
                   std::string("use config file, default: ") + ibcore::DEFAULT_CONFIG_FILE)
        ->option_text("<config>")
        ->early();
  }
  if (which & opt::Compat)
    app.add_option_function<std::string>(
           "--compat",
           [&c](const std::string& s) {
             auto m = iba::ref::parse_compat(s);
             if (!m)
               throw CLI::ValidationError("--compat", "'" + s + "' is not one of " +
                                                          std::string(iba::ref::COMPAT_WORDS));
             c.compat = *m;
           },
           "output level: 44 (infiniband-diags 44's output, the default) or current (upstream "
           "rdma-core's current release where it differs; docs/compatibility.md)")
        ->option_text("44|current");
  if (which & opt::Ca)
    app.add_option("-C,--Ca", c.ca, "CA name to use (or device/port, port GID, port GUID)")
        ->option_text("<ca>");
  if (which & opt::Port)
    app.add_option("-P,--Port", c.port, "CA port number to use")->option_text("<port>");
  if (which & opt::Debug)
    app.add_flag("-d,--debug", c.debug, "raise debug level (-d RPC summaries, -dd packet dumps)");
  if (which & opt::Verbose)
    app.add_flag("-v,--verbose", c.verbose, "increase verbosity level");
  if (which & (opt::Timeout | opt::TimeoutLong))
    app.add_option_function<std::string>(
           which & opt::Timeout ? "-t,--timeout" : "--timeout",
           [&c](const std::string& s) {
             // The reference's check and words (its iberror line, status
             // 255; ibtool's own commands: one line and where the help is).
             uint64_t v = 0;
             if (!parse_int(s, v) || v == 0 || v >= 2147483647)
               throw RefFail{"Invalid timeout \"" + s + "\".  Timeout requires a positive integer value < 2147483647."};
             c.timeout_ms = int(v);
           },
           "timeout in ms")
        ->option_text("<ms>");
  if (which & opt::Retries)
    app.add_option("--retries", c.retries, "number of times a MAD is resent")->option_text("<n>");
  if (which & opt::MKey)
    app.add_option_function<std::string>(
           "-y,--m_key", [&c](const std::string& s) { c.mkey = key_value(s, "M_Key"); }, "M_Key to use in request")
        ->option_text("<key>");
  if (which & (opt::SMKey | opt::Sa))  // --sa asks the SA, which wants its key for some records
    app.add_option_function<std::string>(
           "--smkey", [&c](const std::string& s) { c.smkey = key_value(s, "SM_Key"); },
           "SM_Key to use in SA requests")
        ->option_text("<key>");
  if (which & opt::Sa)
    app.add_flag("--sa", c.use_sa, "turn every SMP query into the matching SA record query");
  if (which & opt::SaPath)
    app.add_option("--sa-path", c.sa_path, "path to the SA (default: the port's SM LID)")
        ->option_text("<path>");
  if (which & opt::Discovery)
    app.add_option_function<std::string>(
           "--discovery",
           [&c](const std::string& s) {
             if (s == "DR") c.discovery = ibcore::DiscoveryMode::DR;
             else if (s == "LID") c.discovery = ibcore::DiscoveryMode::LID;
             else if (s == "SA") c.discovery = ibcore::DiscoveryMode::SA;
             else throw CLI::ValidationError("--discovery", "'" + s + "' is not one of DR, LID, SA");
           },
           "discovery mode")
        ->option_text("DR|LID|SA");
  if (which & opt::Cache) {
    app.add_option("--cache", c.cache_file,
                   "load the subnet from FILE if present and not older than --cache-max-age, else discover "
                   "and save it there")
        ->option_text("<file>");
    app.add_flag("--refresh-cache", c.refresh_cache, "ignore the cache file's content and rediscover");
    app.add_option("--cache-max-age", c.cache_max_age_s,
                   "seconds a --cache file is used for (default 300; 0: always rediscover)")
        ->option_text("<s>")
        ->check(CLI::Validator(
            [](std::string& s) {
              return !s.empty() && s[0] != '-' ? std::string() : "'" + s + "' is not a number of seconds";
            },
            "SECONDS"));
  }
  if (which & opt::NodeNameMap)
    app.add_option("--node-name-map", c.node_name_map, "node name map file")->option_text("<file>");
  if (which & opt::Outstanding)
    app.add_option(outstanding_short ? "-o,--outstanding" : "--outstanding", c.outstanding,
                   "number of MADs in flight")
        ->option_text("<n>");
  if (which & opt::Json) {
    app.add_flag("-j,--json", c.json, "write the results as one JSON document");
    app.add_flag_callback(
        "--pretty", [&c] { c.json = c.pretty = true; }, "write the JSON document indented (implies --json)");
    app.add_flag_callback(
        "--json-schema", [&c] { c.json = c.json_schema = true; },
        "write, instead of the JSON document, its JSON Schema: the members and types of the document this "
        "run makes, derived from it (docs/json.md)");
  }
  if (which & opt::PKeyIdx)
    app.add_option_function<std::string>(
           "-Y,--pkey-idx",
           [&c](const std::string& s) {
             uint64_t v = 0;
             if (!parse_int(s, v) || v > 0xffff)
               throw CLI::ValidationError("--pkey-idx",
                                          "invalid P_Key index '" + s + "': an integer from 0 to 65535");
             c.pkey_index = uint16_t(v);
           },
           "P_Key table index for outgoing SA/GMP MADs (default 0; SMPs always use 0)")
        ->option_text("<idx>");
  if (which & opt::Transport)
    app.add_option_function<std::string>(
           "--transport",
           [&c](const std::string& s) {
             if (s == "umad") c.transport = ibcore::TransportKind::Umad;
             else if (s == "verbs") c.transport = ibcore::TransportKind::Verbs;
             else if (s == "auto") c.transport = ibcore::TransportKind::Auto;
             else throw CLI::ValidationError("--transport", "'" + s + "' is not one of umad, verbs, auto");
           },
           "how MADs are sent: umad (/dev/infiniband/umad*), verbs (GMPs on a UD QP, for users "
           "without umad access; SMPs cannot go this way), auto (umad, else verbs; the default)")
        ->option_text("umad|verbs|auto");
  if (which & opt::Strict)
    app.add_flag("--strict", c.strict,
                 "exit 1 when the result is empty or partial (nothing matched, a destination unreachable, 100% "
                 "loss), where the reference exits 0");
  if (which & opt::Errors) app.add_flag("-e,--errors", errors_flag_, "show send and receive errors");
}

}  // namespace ibtool
