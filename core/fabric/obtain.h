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
//   A command whose output is the state of links (iblinkinfo, the ibcheck*
//     family, ibdatacounters) sets live_links: the cache then gives the
//     topology (nodes, links, names, LIDs) and every port's PortInfo is
//     read again from the fabric (refresh_links), so a link that went down
//     since the file was written shows down, and a node that left is gone.
//   A cache file that cannot be written does not cost the result: one
//     warning (held until the command's output is out) says so.
struct ObtainOptions {
  DiscoveryOptions discovery;
  std::string cache_file;     // empty: cfg.cache_file
  bool use_config_cache = true;
  bool live_links = false;    // a loaded cache's link states read live (refresh_links)
  // Discover on this scheduler (a command's own, so its queries can run
  // alongside: DiscoveryOptions::on_port_lid) instead of one of its own.
  Scheduler* sched = nullptr;
  // The live discovery's result (its failed queries), when there is one
  // (untouched when the database comes from a file).
  DiscoveryResult* result = nullptr;
};
Subnet obtain_subnet(const Config& cfg, const ObtainOptions& o = {});

// What refresh_links did.
struct LiveLinks {
  unsigned nodes = 0;        // nodes read
  unsigned gone = 0;         // nodes gone (Node::gone)
  unsigned unreachable = 0;  // nodes with neither a LID nor a route: their states are the file's
  unsigned unread = 0;       // ports of a node that answered whose PortInfo did not come
  unsigned changed = 0;      // ports whose link is up or down where the file said otherwise
};
// The link states of db (loaded from a cache) read again from the fabric
// on sched: each node is asked its NodeInfo where the cache places it (a
// switch's LID, a CA's port LIDs, else its directed route; through the
// SA's records with --sa) and, when it answers as itself, every port's
// PortInfo through there (all at once).  A node that does not answer, or
// answers as another node, is marked gone (Node::gone) and its ports keep
// the file's images; a port whose PortInfo does not come keeps none
// (has_info false).  Links stay as the file has them (the link a port had
// is what makes its being down a finding).  Sets db.links_live; warns on
// stderr about gone nodes (`W: "name" (0x<GUID>) gone: ...`), unreachable
// ones and changed links.
LiveLinks refresh_links(Scheduler& sched, Subnet& db);

// What is said of a node of a cache that no longer answers at lid (0: its
// directed route): "gone: no answer at LID 5 (topology from cache FILE,
// written 3 min ago; --refresh-cache rediscovers)".
std::string gone_text(const Subnet& db, uint16_t lid);
// The LID a node of db is asked at (a switch's port 0 LID, else its first
// port's with one; 0: none).
uint16_t node_lid(const Subnet& db, uint32_t node);

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
