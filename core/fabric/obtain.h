// obtain_subnet(), the one way discovery commands get their database: a
// cache file (the common --cache option, core/fabric/netcache formats) or a live
// discovery (core/fabric/discovery) on the configured end port.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/base/config.h"
#include "core/fabric/discovery.h"
#include "core/rpc/sched.h"
#include "core/fabric/subnet.h"

namespace ibcore {

// The database a discovery command works on, as cfg (the invocation's
// settings) says:
//   cache file given (cfg.cache_file) and present, no --refresh-cache, and
//     not older than cfg.cache_max_age_s (--cache-max-age; 0: always too
//     old): load it, say so on stderr (one "I: topology from cache FILE,
//     written AGE ago" line: a file never passes silently for the live
//     fabric) and note it in the database (Subnet::cache_file/cache_age_s);
//   otherwise discover live (on cfg's end port, -C/-P, with its settings;
//     mode: o.discovery.mode, else cfg's --discovery / --sa) and, when a
//     cache file is given, save it (ibtool format).
// Discovery problems (partial results) are printed as warnings on stderr.
struct ObtainOptions {
  DiscoveryOptions discovery;
  std::string cache_file;     // empty: cfg.cache_file
  bool use_config_cache = true;
  // Discover on this scheduler (a command's own, so its queries can run
  // alongside: DiscoveryOptions::on_port_lid) instead of one of its own.
  Scheduler* sched = nullptr;
};
Subnet obtain_subnet(const Config& cfg, const ObtainOptions& o = {});

// How old a file is, in seconds (its mtime against the clock; never
// negative), or nothing when it cannot be read.
std::optional<int64_t> file_age_s(const std::string& file);
// An age for people: "42 s", "7 min", "3 h", "2 days".
std::string age_text(int64_t seconds);

// Live discovery on cfg's end port (-C/-P; a transport carrying cfg), or on
// sched when given; an Auto o.mode takes cfg's (discovery_mode), and --sa
// makes any mode SA.  Warnings for partial results go to stderr.
Subnet discover_live(const Config& cfg, const DiscoveryOptions& o, DiscoveryResult* res = nullptr,
                     Scheduler* sched = nullptr);

}  // namespace ibcore
