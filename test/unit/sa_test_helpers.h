// Helpers the SA unit tests share to read the MADs a fake SA receives.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "core/transport/transport.h"
#include "iba/introspect.h"

namespace coretest {

// The component mask bit of a record field, from its declaration.
inline uint64_t cm(const iba::StructDesc& d, const char* f) { return iba::component_mask(d, f); }
// Big-endian reads from MAD bytes.
inline uint16_t be16(const uint8_t* p) { return uint16_t(p[0] << 8 | p[1]); }
inline uint64_t be64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return v;
}

// The SA's GetResp to the request MAD req: one record of size bytes, or
// ERR_NO_RECORDS when rec is null.
inline ibcore::RecvMad sa_reply(const std::array<uint8_t, 256>& req, const void* rec, size_t size) {
  ibcore::RecvMad rm;
  rm.data = req;
  rm.data[3] |= 0x80;
  size_t stride = (size + 7) / 8 * 8;  // the attribute offset, in 8-byte words
  rm.data[44] = uint8_t(stride / 8 >> 8);
  rm.data[45] = uint8_t(stride / 8);
  std::memset(rm.data.data() + 56, 0, 200);
  if (rec) std::memcpy(rm.data.data() + 56, rec, size);
  else rm.data[4] = 0x03;  // ERR_NO_RECORDS
  rm.len = 256;
  return rm;
}

}  // namespace coretest
