#include "core/fabric/obtain.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/fabric/netcache.h"
#include "core/transport/open.h"

namespace ibcore {

Subnet discover_live(const Config& cfg, const DiscoveryOptions& o, DiscoveryResult* res, Scheduler* given) {
  std::unique_ptr<Transport> umad;
  std::optional<Scheduler> own;
  if (!given) {
    umad = open_transport(get_end_port(cfg.ca, cfg.port), cfg);
    own.emplace(*umad);  // (bound: cfg.outstanding)
  }
  Scheduler& sched = given ? *given : *own;
  Subnet db;
  auto t0 = std::chrono::steady_clock::now();
  // --sa promises that no SMP leaves the port, whatever mode the command
  // prefers; otherwise the command's mode, else --discovery.
  DiscoveryOptions opt = o;
  if (cfg.use_sa || opt.mode == DiscoveryMode::Auto) opt.mode = discovery_mode(cfg);
  DiscoveryResult r = discover(sched, db, opt);
  report_discovery_errors(r);
  report_discovery_stats(r, t0);
  if (res) *res = std::move(r);
  return db;
}

Subnet obtain_subnet(const Config& cfg, const ObtainOptions& o) {
  std::string file = o.cache_file;
  if (file.empty() && o.use_config_cache) file = cfg.cache_file;
  if (!file.empty() && !cfg.refresh_cache && ::access(file.c_str(), F_OK) == 0) return load_cache(file);
  Subnet db = discover_live(cfg, o.discovery, nullptr, o.sched);
  if (!file.empty()) save_cache(db, file, CacheFormat::Ibtool);
  return db;
}

}  // namespace ibcore
