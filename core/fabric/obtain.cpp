#include "core/fabric/obtain.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstring>
#include <cstdio>
#include <ctime>
#include <optional>

#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/base/error.h"
#include "core/fabric/netcache.h"
#include "core/rpc/satransactor.h"
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
        log::info("I: topology from cache %s, written %s ago (--cache-max-age %d s)%s\n", file.c_str(),
                  age_text(*age).c_str(), cfg.cache_max_age_s, o.live_links ? "; link states read live" : "");
        if (o.live_links) {
          if (o.sched) {
            refresh_links(*o.sched, db);
          } else {
            std::unique_ptr<Transport> port = open_transport(get_end_port(cfg.ca, cfg.port), cfg);
            Scheduler sched(*port);
            refresh_links(sched, db);
          }
        }
        return db;
      }
      if (log::verbosity())
        log::info("I: cache %s is %s old (--cache-max-age %d s): rediscovering\n", file.c_str(),
                  age_text(*age).c_str(), cfg.cache_max_age_s);
    }
  }
  Subnet db = discover_live(cfg, o.discovery, o.result, o.sched);
  if (!file.empty()) {
    // A file that cannot be written does not cost the result: the command
    // prints it and exits as it would, and the warning follows it.
    try {
      save_cache(db, file, CacheFormat::Ibtool);
    } catch (const Error& e) {
      log::at_exit(log::Level::warn, "W: " + std::string(e.what()) + " (the result above is not cached)\n");
    }
  }
  return db;
}

namespace {

bool link_up(const Port& p) { return p.has_info && p.phys_state() == PHYS_LINKUP; }

IBPath lid_path(uint16_t lid) {
  IBPath p;
  p.DLID = lid;
  return p;
}

Task<> refresh_port(AsyncSmpSource& src, Subnet& db, uint32_t ni, unsigned pn, IBPath at, LiveLinks& out) {
  Port& p = db.port(db.node(ni), pn);
  const bool was_up = link_up(p);
  try {
    iba::SMPPortInfo pi = co_await src.SubnGet<iba::SMPPortInfo>(std::move(at), pn);
    std::memcpy(p.info.data(), pi.raw(), p.info.size());
    p.has_info = true;
  } catch (const MADError&) {
    // Nothing read: no state is shown for it rather than the file's.
    p.info.fill(0);
    p.has_info = false;
    ++out.unread;
  }
  if (link_up(p) != was_up && p.has_info) ++out.changed;
}

Task<> refresh_node(AsyncSmpSource& src, Subnet& db, uint32_t ni, LiveLinks& out) {
  const Node& n = db.node(ni);
  // Where the cache places it: a switch's LID, a CA's port LIDs, else its route.
  std::vector<IBPath> ways;
  if (n.is_switch()) {
    if (n.smalid) ways.push_back(lid_path(n.smalid));
  } else {
    for (unsigned pn = 1; pn <= n.nports; ++pn) {
      const Port& p = db.port(n, pn);
      if (p.exists && p.base_lid) ways.push_back(lid_path(p.base_lid));
    }
  }
  if (ways.empty() && !n.dr.empty()) ways.push_back(dr_path_of(db, ni));
  if (ways.empty() && ni == db.from_node) ways.push_back(IBDRPath());
  if (ways.empty()) {
    ++out.unreachable;
    co_return;
  }
  std::optional<IBPath> at;
  for (const IBPath& w : ways) {
    try {
      iba::SMPNodeInfo info = co_await src.SubnGet<iba::SMPNodeInfo>(w);
      if (info.nodeGUID() == n.guid) {
        at = w;
        break;
      }
    } catch (const MADError&) {
    }
  }
  if (!at) {
    db.node(ni).gone = true;
    ++out.gone;
    log::warn("W: \"%s\" (0x%016" PRIx64 ") %s\n", n.description().c_str(), n.guid,
              gone_text(db, ways.front().DLID).c_str());
    co_return;
  }
  ++out.nodes;
  for (unsigned pn = n.is_switch() ? 0 : 1; pn <= n.nports; ++pn)
    if (db.port(n, pn).exists || db.port(n, pn).has_info) src.sched().spawn(refresh_port(src, db, ni, pn, *at, out));
}

}  // namespace

LiveLinks refresh_links(Scheduler& sched, Subnet& db) {
  LiveLinks out;
  AsyncSmpSource src(sched);
  for (uint32_t ni = 0; ni < db.node_count(); ++ni) sched.spawn(refresh_node(src, db, ni, out));
  sched.run();
  db.links_live = true;
  if (out.unreachable)
    log::warn("W: %u nodes of the cache have neither a LID nor a route: their link states are the file's\n",
              out.unreachable);
  if (out.unread) log::warn("W: %u ports did not answer their PortInfo: no state is shown for them\n", out.unread);
  if (out.changed)
    log::info("I: %u links are up or down where the cache has them otherwise (the fabric's states are shown; "
              "--refresh-cache rediscovers)\n",
              out.changed);
  return out;
}

std::string gone_text(const Subnet& db, uint16_t lid) {
  std::string at = lid ? "LID " + std::to_string(lid) : std::string("its directed route");
  return "gone: no answer at " + at + " (topology from cache " + db.cache_file + ", written " +
         age_text(db.cache_age_s) + " ago; --refresh-cache rediscovers)";
}

uint16_t node_lid(const Subnet& db, uint32_t node) {
  const Node& n = db.node(node);
  if (n.is_switch()) return n.smalid;
  for (unsigned pn = 1; pn <= n.nports; ++pn)
    if (db.port(n, pn).base_lid) return db.port(n, pn).base_lid;
  return 0;
}

}  // namespace ibcore
