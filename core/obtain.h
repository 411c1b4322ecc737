// obtain_subnet(), the one way discovery commands get their database: a
// cache file (the common --cache option, core/netcache formats) or a live
// discovery (core/discovery) on the configured end port.
#pragma once

#include <string>

#include "core/discovery.h"
#include "core/sched.h"
#include "core/subnet.h"

namespace ibcore {

// The database a discovery command works on.
//   cache file given (config().cache_file) and present, no --refresh-cache:
//     load it;
//   otherwise discover live (options from config(): mode, outstanding) and,
//     when a cache file is given, save it (ibtool format).
// Discovery problems (partial results) are printed as warnings on stderr.
struct ObtainOptions {
  DiscoveryOptions discovery;
  std::string cache_file;     // empty: config().cache_file
  bool use_config_cache = true;
  // Discover on this scheduler (a command's own, so its queries can run
  // alongside: DiscoveryOptions::on_port_lid) instead of one of its own.
  Scheduler* sched = nullptr;
};
Subnet obtain_subnet(const ObtainOptions& o = {});

// Live discovery on the configured end port (config(): -C/-P, outstanding),
// or on sched when given.  Warnings for partial results go to stderr.
Subnet discover_live(const DiscoveryOptions& o, DiscoveryResult* res = nullptr, Scheduler* sched = nullptr);

}  // namespace ibcore
