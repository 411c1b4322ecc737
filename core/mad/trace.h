// How MADs are named in diagnostics, and the RPC trace (-d): one line per
// MAD on stderr, -dd adds decoded dumps.
//   -d : "D: RPC SubnGet(1) SMPFormat(1.1) SMPNodeInfo(17) to <path> len 256 -> status 0x0000 (0.300 ms)"
//   -dd: the request and the reply, decoded (iba::dump_mad).
// The MAD engine and the MAD server (core/rpc) call these with the bytes,
// the path's description and the time it measured: this layer knows no
// engine, transport or path type.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <string_view>

namespace ibcore {

// "SubnGet(1) SMPFormat(1.1) SMPNodeInfo(17)": the RPC name of a MAD's
// method (a reply's as its request's), its format and its attribute, each
// with its number (unknown ones as MADClass(c.v) / Attribute(id)).
std::string describe_mad(const uint8_t* mad, size_t len);

// A request sent, at debug level `level` (nothing below 2): "D: send <mad>
// to <path> pkey_index N" and its decode.
void trace_send(int level, std::span<const uint8_t> req, std::string_view path, uint16_t pkey_index);

// A request done, at debug level `level` (nothing below 1): its reply's
// status, or its error (a MADTimeoutError as "timed out"), and the time
// since it was sent; at 2 the reply's decode follows.
void trace_done(int level, std::span<const uint8_t> req, std::string_view path, std::span<const uint8_t> reply,
                const std::exception_ptr& error, std::chrono::duration<double> elapsed);

// The server side (ibping/ibsysstat -S), at the given -d level: at 1 one
// line per MAD received or sent, "D: recv <mad> from <path> pkey_index N" /
// "D: send <mad> to <path> pkey_index N"; at 2 the decoded MAD follows.  The
// P_Key index is the one the MAD carried (recv) or goes out with (send).
void trace_server(int level, bool sent, std::span<const uint8_t> mad, std::string_view path, uint16_t pkey_index);

}  // namespace ibcore
