// RPC tracing (-d): one line per MAD on stderr, -dd adds decoded dumps.
//   -d : "RPC SubnGet(1) SMPFormat(1.1) SMPNodeInfo(17) to lid 1 len 256 -> ok 0.3 ms"
//   -dd: the request and the reply, decoded (iba::dump_detailed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ibcore {

struct PendingMad;

// Called by the MAD engine; no-ops unless config().debug > 0.
void trace_send(const PendingMad& p);
void trace_done(const PendingMad& p);

// Decoded multi-line dump of a whole MAD (format and attribute payload);
// used by tracing and by MADError at -vv.
std::string dump_mad(const uint8_t* mad, size_t len);

}  // namespace ibcore
