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

// Called by the MAD engine with its port's settings; no-ops unless
// s.debug > 0.
void trace_send(const PendingMad& p, const Config& s);
void trace_done(const PendingMad& p, const Config& s);

// Decoded multi-line dump of a whole MAD (format and attribute payload);
// used by tracing and by MADError at -vv.
std::string dump_mad(const uint8_t* mad, size_t len);

}  // namespace ibcore
