#include "core/obtain.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "core/config.h"
#include "core/devices.h"
#include "core/netcache.h"
#include "core/umad.h"

namespace ibcore {

Subnet discover_live(const DiscoveryOptions& o, DiscoveryResult* res, Scheduler* given) {
  std::unique_ptr<Transport> umad;
  std::optional<Scheduler> own;
  if (!given) {
    umad = open_transport(get_end_port(config().ca, config().port));
    own.emplace(*umad, unsigned(std::max(0, config().outstanding)));
  }
  Scheduler& sched = given ? *given : *own;
  Subnet db;
  auto t0 = std::chrono::steady_clock::now();
  DiscoveryResult r = discover(sched, db, o);
  report_discovery_errors(r);
  report_discovery_stats(r, t0);
  if (res) *res = std::move(r);
  return db;
}

Subnet obtain_subnet(const ObtainOptions& o) {
  std::string file = o.cache_file;
  if (file.empty() && o.use_config_cache) file = config().cache_file;
  if (!file.empty() && !config().refresh_cache && ::access(file.c_str(), F_OK) == 0) return load_cache(file);
  Subnet db = discover_live(o.discovery, nullptr, o.sched);
  if (!file.empty()) save_cache(db, file, CacheFormat::Ibtool);
  return db;
}

}  // namespace ibcore
