// How the flow control names a node (core/rpc/flow.h; flow.cpp and
// flowtime.cpp only): FNV-1a over what names it.  A directed route's key
// after k hops is the key of the node those hops reach, so every proper
// prefix of a DR path names an intermediate switch.
#pragma once

#include <cstdint>

#include "core/transport/path.h"

namespace ibcore::flowkeys {

constexpr uint64_t FNV_BASIS = 1469598103934665603ull, FNV_PRIME = 1099511628211ull;
inline uint64_t fnv(uint64_t h, uint8_t b) { return (h ^ b) * FNV_PRIME; }
inline uint64_t fnv16(uint64_t h, uint16_t v) { return fnv(fnv(h, uint8_t(v >> 8)), uint8_t(v)); }
inline uint64_t dr_seed(const IBPath& p) {
  const uint64_t h = fnv16(fnv16(fnv(FNV_BASIS, 'D'), p.drSLID), p.drDLID);
  return p.lid_head() ? fnv16(h, p.DLID) : h;  // (a hybrid route starts at its DLID's node)
}
inline uint64_t lid_key(uint16_t lid) { return fnv16(fnv(FNV_BASIS, 'L'), lid); }
inline uint64_t gmp_key(uint8_t cls, uint16_t lid) { return fnv16(fnv(fnv(FNV_BASIS, 'G'), cls), lid); }
inline uint64_t dr_key(const IBPath& p) {
  uint64_t h = dr_seed(p);
  for (uint8_t b : p.drPath) h = fnv(h, b);
  return h | 1;  // never 0 (0: no node)
}
// fn(key) for each intermediate switch of DR path p (prefixes of 1 .. n-1 hops).
template <class Fn>
void for_each_hop(const IBPath& p, Fn fn) {
  const size_t n = p.drPath.size();
  if (n < 3) return;
  uint64_t h = fnv(dr_seed(p), p.drPath[0]);
  for (size_t k = 1; k + 1 < n; ++k) {
    h = fnv(h, p.drPath[k]);
    fn(h | 1);
  }
}

}  // namespace ibcore::flowkeys
