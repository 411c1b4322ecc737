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
// Every attribute's data area starts with an 8 byte vendor key (MAD bytes
// 24..31), so these structures are laid over the whole range 1 data area,
// from MAD byte 24 on.
constexpr uint8_t MLX_VENDOR_CLASS = 0x0a;

// GeneralInfo (0x0017): hardware, firmware and software information, in
// two forms.  Later devices (mlx_ext_fw_info()) give 32-bit extended
// firmware version words, then the software version; IS3 switches give the
// software version right after the firmware information.
#define IBA_MLX_GENERAL_INFO_COMMON(F) \
  F(vendorKey, 0, 64, Hex)             \
  F(hwRevision, 64, 16, Hex)           \
  F(hwDeviceID, 80, 16, Hex)           \
  F(reserved96, 96, 192, Rsv)          \
  F(hwUptime, 288, 32, Hex)            \
  F(reserved320, 320, 8, Rsv)          \
  F(fwMajor, 328, 8, Uint)             \
  F(fwMinor, 336, 8, Uint)             \
  F(fwSubMinor, 344, 8, Uint)          \
  F(fwBuildID, 352, 32, Hex)           \
  F(fwMonth, 384, 8, Hex)              \
  F(fwDay, 392, 8, Hex)                \
  F(fwYear, 400, 16, Hex)              \
  F(reserved416, 416, 16, Rsv)         \
  F(fwHour, 432, 16, Hex)              \
  F(fwPSID, 448, 128, Str)             \
  F(fwIniFileVersion, 576, 32, Uint)
#define IBA_FIELDS_MLXGeneralInfo(F, A, S, SA) \
  IBA_MLX_GENERAL_INFO_COMMON(F)               \
  F(fwExtMajor, 608, 32, Uint)                 \
  F(fwExtMinor, 640, 32, Uint)                 \
  F(fwExtSubMinor, 672, 32, Uint)              \
  F(reserved704, 704, 136, Rsv)                \
  F(swMajor, 840, 8, Uint)                     \
  F(swMinor, 848, 8, Uint)                     \
  F(swSubMinor, 856, 8, Uint)
IBA_STRUCT(MLXGeneralInfo, 108, IBA_FIELDS_MLXGeneralInfo);
IBA_ATTR_ID(MLXGeneralInfo, 0x0017);
#define IBA_FIELDS_MLXGeneralInfoIS3(F, A, S, SA) \
  IBA_MLX_GENERAL_INFO_COMMON(F)                  \
  F(reserved608, 608, 8, Rsv)                     \
  F(swMajor, 616, 8, Uint)                        \
  F(swMinor, 624, 8, Uint)                        \
  F(swSubMinor, 632, 8, Uint)
IBA_STRUCT(MLXGeneralInfoIS3, 80, IBA_FIELDS_MLXGeneralInfoIS3);
IBA_ATTR_ID(MLXGeneralInfoIS3, 0x0017);

// Whether a device ID's GeneralInfo has the extended firmware version
// (SwitchX, Switch-IB(2), Quantum, IS-4, the ConnectX family, BlueField and
// their OEM versions); otherwise it is the IS3 form.
bool mlx_ext_fw_info(uint16_t device_id);

// ConfigSpaceAccess (0x0050): up to 18 (address, data, mask) records; the
// attribute modifier holds the record count.
#define IBA_FIELDS_MLXConfigSpaceRecord(F, A, S, SA) \
  F(address, 0, 32, Hex)                             \
  F(data, 32, 32, Hex)                               \
  F(mask, 64, 32, Hex)
IBA_STRUCT(MLXConfigSpaceRecord, 12, IBA_FIELDS_MLXConfigSpaceRecord);
#define IBA_FIELDS_MLXConfigSpaceAccess(F, A, S, SA) \
  F(vendorKey, 0, 64, Hex)                           \
  SA(record, 64, MLXConfigSpaceRecord, 18)
IBA_STRUCT(MLXConfigSpaceAccess, 224, IBA_FIELDS_MLXConfigSpaceAccess);
IBA_ATTR_ID(MLXConfigSpaceAccess, 0x0050);

// IS4 counter groups: which groups a port has (0x0090) and which two are
// selected (0x0091); the attribute modifier is the port.  The group masks
// follow each other from bit 96 on, as many as numOfCounterGroups.
#define IBA_FIELDS_MLXCounterGroupInfo(F, A, S, SA) \
  F(vendorKey, 0, 64, Hex)                          \
  F(reserved64, 64, 24, Rsv)                        \
  F(numOfCounterGroups, 88, 8, Uint)                \
  A(groupMask, 96, 32, Hex, 2)
IBA_STRUCT(MLXCounterGroupInfo, 20, IBA_FIELDS_MLXCounterGroupInfo);
IBA_ATTR_ID(MLXCounterGroupInfo, 0x0090);
#define IBA_FIELDS_MLXConfigCounterGroups(F, A, S, SA) \
  F(vendorKey, 0, 64, Hex)                             \
  F(reserved64, 64, 56, Rsv)                           \
  F(groupSelect0, 120, 8, Uint)                        \
  F(reserved128, 128, 24, Rsv)                         \
  F(groupSelect1, 152, 8, Uint)
IBA_STRUCT(MLXConfigCounterGroups, 20, IBA_FIELDS_MLXConfigCounterGroups);
IBA_ATTR_ID(MLXConfigCounterGroups, 0x0091);

}  // namespace iba
