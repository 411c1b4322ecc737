#include "core/fabric/obtain.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <optional>

#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/fabric/netcache.h"
#include "core/out/log.h"
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

std::optional<int64_t> file_age_s(const std::string& file) {
  struct stat st;
  if (::stat(file.c_str(), &st) != 0) return std::nullopt;
  int64_t age = int64_t(std::time(nullptr)) - int64_t(st.st_mtime);
  return std::max<int64_t>(age, 0);  // (a file from a clock ahead of ours)
}

std::string age_text(int64_t s) {
  char b[48];
  if (s < 120) std::snprintf(b, sizeof b, "%lld s", (long long)s);
  else if (s < 120 * 60) std::snprintf(b, sizeof b, "%lld min", (long long)(s / 60));
  else if (s < 48 * 3600) std::snprintf(b, sizeof b, "%lld h", (long long)(s / 3600));
  else std::snprintf(b, sizeof b, "%lld days", (long long)(s / 86400));
  return b;
}

Subnet obtain_subnet(const Config& cfg, const ObtainOptions& o) {
  std::string file = o.cache_file;
  if (file.empty() && o.use_config_cache) file = cfg.cache_file;
  if (!file.empty() && !cfg.refresh_cache) {
    if (std::optional<int64_t> age = file_age_s(file)) {
      if (cfg.cache_max_age_s > 0 && *age <= cfg.cache_max_age_s) {
        Subnet db = load_cache(file);
        db.cache_file = file;
        db.cache_age_s = *age;
        // A result that rests on a file never passes for the live fabric.
        log::info("I: topology from cache %s, written %s ago (--cache-max-age %d s)\n", file.c_str(),
                  age_text(*age).c_str(), cfg.cache_max_age_s);
        return db;
      }
      if (log::verbosity())
        log::info("I: cache %s is %s old (--cache-max-age %d s): rediscovering\n", file.c_str(),
                  age_text(*age).c_str(), cfg.cache_max_age_s);
    }
  }
  Subnet db = discover_live(cfg, o.discovery, nullptr, o.sched);
  if (!file.empty()) save_cache(db, file, CacheFormat::Ibtool);
  return db;
}

}  // namespace ibcore
