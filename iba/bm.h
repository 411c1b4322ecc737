// Baseboard management (IBA 16.2): the BM MAD format and BKeyInfo; the
// other BM attributes carry module-specific payloads in the data area.
#pragma once

#include "iba/sa.h"

namespace iba {

// BM MAD (16.2.1): common header, B_Key, 32 reserved bytes, 192 bytes of data.
#define IBA_FIELDS_BMFormat(F, A, S, SA) \
  S(hdr, 0, MADHeader)                   \
  F(BKey, 192, 64, Hex)                  \
  F(reserved256, 256, 256, Rsv)          \
  F(data, 512, 1536, Bytes)
IBA_STRUCT(BMFormat, 256, IBA_FIELDS_BMFormat);

#define IBA_FIELDS_BMBKeyInfo(F, A, S, SA) \
  F(BKey, 0, 64, Hex)                      \
  F(BKeyProtectBit, 64, 1, Uint)           \
  F(reserved65, 65, 15, Rsv)               \
  F(BKeyLeasePeriod, 80, 16, Uint)         \
  F(BKeyViolations, 96, 16, Uint)          \
  F(reserved112, 112, 16, Rsv)
IBA_STRUCT(BMBKeyInfo, 16, IBA_FIELDS_BMBKeyInfo);
IBA_ATTR_ID(BMBKeyInfo, 0x0010);

}  // namespace iba
