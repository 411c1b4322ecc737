// RPC tracing (-d): one line per MAD on stderr, -dd adds decoded dumps.
//   -d : "RPC SubnGet(1) SMPFormat(1.1) SMPNodeInfo(17) to lid 1 len 256 -> ok 0.3 ms"
//   -dd: the request and the reply, decoded (iba::dump_detailed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ibcore {

struct Config;
struct PendingMad;
struct IBPath;

// Called by the MAD engine with its port's settings; no-ops unless
// s.debug > 0.
void trace_send(const PendingMad& p, const Config& s);
void trace_done(const PendingMad& p, const Config& s);

// The server side (ibping/ibsysstat -S), at the given -d level: at 1 one
// line per MAD received or sent, "D: recv <mad> from <path> pkey_index N" /
// "D: send <mad> to <path> pkey_index N"; at 2 the decoded MAD follows.  The
// P_Key index is the one the MAD carried (recv) or goes out with (send).
void trace_server(int level, bool sent, const uint8_t* mad, size_t len, const IBPath& path, uint16_t pkey_index);

// Decoded multi-line dump of a whole MAD (format and attribute payload);
// used by tracing and by MADError at -vv.
std::string dump_mad(const uint8_t* mad, size_t len);

}  // namespace ibcore
