// Vendor specific classes: the two vendor MAD formats (IBA 13.4.4: range 1
// without, range 2 with RMPP header and OUI), the OpenFabrics classes
// ibping and ibsysstat use, and the Mellanox attributes vendstat reads.
#pragma once

#include "iba/sa.h"

namespace iba {

// Vendor class range 1 (0x09-0x0f): common header and 232 bytes of data.
#define IBA_FIELDS_VendorFormat(F, A, S, SA) \
  S(hdr, 0, MADHeader)                       \
  F(data, 192, 1856, Bytes)
IBA_STRUCT(VendorFormat, 256, IBA_FIELDS_VendorFormat);

// Vendor class range 2 (0x30-0x4f): RMPP header, OUI, 216 bytes of data.
#define IBA_FIELDS_VendOUIFormat(F, A, S, SA) \
  S(hdr, 0, MADHeader)                        \
  S(rmpp, 192, RMPPHeader)                    \
  F(reserved288, 288, 8, Rsv)                 \
  F(OUI, 296, 24, Hex)                        \
  F(data, 320, 1728, Bytes)
IBA_STRUCT(VendOUIFormat, 256, IBA_FIELDS_VendOUIFormat);

// --- OpenFabrics classes (OUI 0x001405) -----------------------------------------
constexpr uint32_t OFA_OUI = 0x001405;
constexpr uint8_t OFA_PING_CLASS = 0x32;     // ibping
constexpr uint8_t OFA_SYSSTAT_CLASS = 0x33;  // ibsysstat

// ibping: a VendGet whose reply carries the server's host name as a NUL
// terminated string in the data area.
#define IBA_FIELDS_OFAPing(F, A, S, SA) F(hostName, 0, 1728, Str)
IBA_STRUCT(OFAPing, 216, IBA_FIELDS_OFAPing);
IBA_ATTR_ID(OFAPing, 0x0000);

// ibsysstat: ping, host information and CPU information; each reply is
// text in the data area.
#define IBA_FIELDS_OFASysStatPing(F, A, S, SA) F(text, 0, 1728, Str)
IBA_STRUCT(OFASysStatPing, 216, IBA_FIELDS_OFASysStatPing);
IBA_ATTR_ID(OFASysStatPing, 0x0010);
#define IBA_FIELDS_OFASysStatHostInfo(F, A, S, SA) F(text, 0, 1728, Str)
IBA_STRUCT(OFASysStatHostInfo, 216, IBA_FIELDS_OFASysStatHostInfo);
IBA_ATTR_ID(OFASysStatHostInfo, 0x0011);
#define IBA_FIELDS_OFASysStatCPUInfo(F, A, S, SA) F(text, 0, 1728, Str)
IBA_STRUCT(OFASysStatCPUInfo, 216, IBA_FIELDS_OFASysStatCPUInfo);
IBA_ATTR_ID(OFASysStatCPUInfo, 0x0012);

// --- Mellanox vendor class (range 1, class 0x0a) as vendstat uses it -------------
constexpr uint8_t MLX_VENDOR_CLASS = 0x0a;

// GeneralInfo: hardware, firmware (with the extended version words of
// later switch firmware) and software information.
#define IBA_FIELDS_MLXGeneralInfo(F, A, S, SA) \
  F(hwRevision, 0, 16, Hex)                    \
  F(hwDeviceID, 16, 16, Hex)                   \
  F(reserved32, 32, 192, Rsv)                  \
  F(hwUptime, 224, 32, Hex)                    \
  F(reserved256, 256, 8, Rsv)                  \
  F(fwMajor, 264, 8, Uint)                     \
  F(fwMinor, 272, 8, Uint)                     \
  F(fwSubMinor, 280, 8, Uint)                  \
  F(fwBuildID, 288, 32, Hex)                   \
  F(fwMonth, 320, 8, Hex)                      \
  F(fwDay, 328, 8, Hex)                        \
  F(fwYear, 336, 16, Hex)                      \
  F(reserved352, 352, 16, Rsv)                 \
  F(fwHour, 368, 16, Hex)                      \
  F(fwPSID, 384, 128, Str)                     \
  F(fwIniFileVersion, 512, 32, Hex)            \
  F(fwExtMajor, 544, 32, Uint)                 \
  F(fwExtMinor, 576, 32, Uint)                 \
  F(fwExtSubMinor, 608, 32, Uint)              \
  F(reserved640, 640, 224, Rsv)                \
  F(reserved864, 864, 8, Rsv)                  \
  F(swMajor, 872, 8, Uint)                     \
  F(swMinor, 880, 8, Uint)                     \
  F(swSubMinor, 888, 8, Uint)                  \
  F(reserved896, 896, 224, Rsv)
IBA_STRUCT(MLXGeneralInfo, 140, IBA_FIELDS_MLXGeneralInfo);
IBA_ATTR_ID(MLXGeneralInfo, 0x0017);

// ConfigSpaceAccess: up to 18 (address, data, mask) records; the attribute
// modifier holds the record count.
#define IBA_FIELDS_MLXConfigSpaceRecord(F, A, S, SA) \
  F(address, 0, 32, Hex)                             \
  F(data, 32, 32, Hex)                               \
  F(mask, 64, 32, Hex)
IBA_STRUCT(MLXConfigSpaceRecord, 12, IBA_FIELDS_MLXConfigSpaceRecord);
#define IBA_FIELDS_MLXConfigSpaceAccess(F, A, S, SA) SA(record, 0, MLXConfigSpaceRecord, 18)
IBA_STRUCT(MLXConfigSpaceAccess, 216, IBA_FIELDS_MLXConfigSpaceAccess);
IBA_ATTR_ID(MLXConfigSpaceAccess, 0x0050);

}  // namespace iba
