// Helpers the SA unit tests share to read the MADs a fake SA receives.
#pragma once

#include <cstdint>

#include "iba/introspect.h"

namespace coretest {

// The component mask bit of a record field, from its declaration.
inline uint64_t cm(const iba::StructDesc& d, const char* f) { return iba::component_mask(*iba::find_field(d, f)); }
// Big-endian reads from MAD bytes.
inline uint16_t be16(const uint8_t* p) { return uint16_t(p[0] << 8 | p[1]); }
inline uint64_t be64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return v;
}

}  // namespace coretest
