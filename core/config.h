// Settings shared by every command: what the common options and the
// reference's config file (ibdiag.conf) set.  Plain data; cmd/common.cpp
// fills it from the command line, core/ consumes it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ibcore {

enum class DiscoveryMode { Auto, DR, LID, SA };
// How MADs leave the local port (--transport): libibumad (every class;
// /dev/infiniband/umad*, root-only on most clusters), a verbs UD QP (GMPs
// only; uverbs is open to every user), or umad when it can be opened and
// verbs otherwise.
enum class TransportKind { Auto, Umad, Verbs };

struct Config {
  std::string ca;                 // -C: device name, device/port, GID, GUID
  int port = 0;                   // -P: 0 = not given
  int debug = 0;                  // -d count
  int verbose = 0;                // -v count
  int timeout_ms = 0;             // -t: 0 = derived from the path
  int retries = 3;                // --retries
  std::optional<uint64_t> mkey;   // -y
  std::optional<uint64_t> smkey;  // --smkey / sa_key in ibdiag.conf
  bool use_sa = false;            // --sa
  std::string sa_path;            // --sa-path
  DiscoveryMode discovery = DiscoveryMode::Auto;
  std::string cache_file;         // --cache
  bool refresh_cache = false;     // --refresh-cache
  std::string node_name_map;      // --node-name-map
  int outstanding = 0;            // --outstanding / -o: 0 = default
  uint16_t pkey_index = 0;        // -Y/--pkey-idx: P_Key index of GMPs sent (SMPs use 0)
  TransportKind transport = TransportKind::Auto;  // --transport
  bool mlx_epi = true;            // MLX_EPI in ibdiag.conf
  bool json = false;              // --json/-j: one JSON document on stdout (core/json.h)
  bool pretty = false;            // --pretty: that document indented
};

// The process-wide settings of this invocation (set once by the dispatcher).
Config& config();

// The reference's config file (/etc/infiniband-diags/ibdiag.conf): KEY=VALUE
// lines (CA, Port, timeout, MLX_EPI, m_key, sa_key), '#' comments; unknown
// keys and unreadable values are ignored, as the reference does.
void parse_ibdiag_conf(std::string_view text, Config& c);

}  // namespace ibcore
