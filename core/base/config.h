// The settings of one invocation: what the common options and the
// reference's config file (ibdiag.conf) set.  Plain data, and no instance
// of it is global: the dispatcher fills the running command's own
// (ibtool::Command::config(), cmd/common.cpp), and the command hands it to
// the library explicitly.  Two parts:
// - PortSettings, what MADs on one end port go out with (timeouts, retries,
//   keys, -Y, --sa/--sa-path, --outstanding, -d, --transport): the part the
//   transports (core/transport) and everything on them (core/rpc) read.
//   open_transport(ep, settings) gives the transport its copy, its
//   settings(), which every engine on that port reads;
// - Config, a PortSettings and the rest of the invocation (which end port,
//   the discovery mode, the cache, the output): obtain_subnet(cfg, ...) and
//   PmSession(cfg) open their end port from it; DiscoveryOptions::mode takes
//   discovery_mode(cfg).
// -v and --json/--pretty are the two settings of the process's output
// streams (core/out/log.h verbosity, core/out/json.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "iba/compat.h"

namespace ibcore {

enum class DiscoveryMode { Auto, DR, LID, SA };
// How MADs leave the local port (--transport): libibumad (every class;
// /dev/infiniband/umad*, root-only on most clusters), a verbs UD QP (GMPs
// only; uverbs is open to every user), or umad when it can be opened and
// verbs otherwise.
enum class TransportKind { Auto, Umad, Verbs };

// Where the reference reads its config file from when no -z names one.
inline constexpr const char* DEFAULT_CONFIG_FILE = "/etc/infiniband-diags/ibdiag.conf";

// What MADs on one end port go out with: a Transport's settings()
// (core/transport/transport.h), read by the transport and the engines on it.
struct PortSettings {
  int debug = 0;                  // -d count: RPC traces (core/mad/trace)
  int timeout_ms = 0;             // -t: 0 = derived from the path
  int retries = 3;                // --retries
  std::optional<uint64_t> mkey;   // -y: SMPs whose path names no key
  std::optional<uint64_t> smkey;  // --smkey / sa_key in ibdiag.conf: SA MADs whose path names none
  bool use_sa = false;            // --sa: SMP reads answered from SA records, SA discovery
  std::string sa_path;            // --sa-path: where SA RPCs go (else the port's SM, followed)
  int outstanding = 0;            // --outstanding / -o: MADs in flight, 0 = default
  uint16_t pkey_index = 0;        // -Y/--pkey-idx: P_Key index of GMPs sent (SMPs use 0)
  TransportKind transport = TransportKind::Auto;  // --transport: how open_transport opens the port
};

// The whole invocation: the port's settings and the rest.
struct Config : PortSettings {
  std::string config_file = DEFAULT_CONFIG_FILE;  // -z/--config: read before the rest of the line applies
  std::string ca;                 // -C: device name, device/port, GID, GUID
  int port = 0;                   // -P: 0 = not given
  int verbose = 0;                // -v count
  DiscoveryMode discovery = DiscoveryMode::Auto;
  std::string cache_file;         // --cache
  bool refresh_cache = false;     // --refresh-cache
  int cache_max_age_s = 300;      // --cache-max-age: an older cache is rediscovered (0: always)
  std::string node_name_map;      // --node-name-map
  bool mlx_epi = true;            // MLX_EPI in ibdiag.conf
  bool json = false;              // --json/-j: one JSON document on stdout (core/out/json.h)
  bool pretty = false;            // --pretty: that document indented
  bool json_schema = false;       // --json-schema: that document's schema instead (core/out/jsonschema.h)
  iba::ref::Compat compat = iba::ref::Compat::Diags44;  // compat in ibdiag.conf, IBTOOL_COMPAT, --compat
  bool strict = false;            // --strict: nothing matched, unreachable, 100% loss exit non-zero
};

// The discovery mode the options ask for: SA with --sa (no SMP may leave
// the port), else --discovery.
inline DiscoveryMode discovery_mode(const Config& c) { return c.use_sa ? DiscoveryMode::SA : c.discovery; }

// The reference's config file (/etc/infiniband-diags/ibdiag.conf): KEY=VALUE
// lines (CA, Port, timeout, MLX_EPI, m_key, sa_key, and ibtool's compat),
// '#' comments; unknown keys and unreadable values are ignored, as the
// reference does.
void parse_ibdiag_conf(std::string_view text, Config& c);

// The settings the environment gives (after the config file, before the
// command line): IBTOOL_COMPAT.  An empty string, or the reason a value is
// refused ("IBTOOL_COMPAT: 'x' is not one of 44, current").
std::string apply_environment(Config& c);

}  // namespace ibcore
