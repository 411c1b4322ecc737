// Device management (IBA 16.3): the DevMgt MAD format and the I/O unit,
// I/O controller and service attributes.
#pragma once

#include "iba/sa.h"

namespace iba {

// DevMgt MAD (16.3.1): common header, 40 reserved bytes, 192 bytes of data.
#define IBA_FIELDS_DevMgtFormat(F, A, S, SA) \
  S(hdr, 0, MADHeader)                       \
  F(reserved192, 192, 320, Rsv)              \
  F(data, 512, 1536, Bytes)
IBA_STRUCT(DevMgtFormat, 256, IBA_FIELDS_DevMgtFormat);

// IOUnitInfo (16.3.3.3): controller list, 4 bits per slot (0 none,
// 1 present, 0xf slot empty).
#define IBA_FIELDS_DMIOUnitInfo(F, A, S, SA) \
  F(changeID, 0, 16, Uint)                   \
  F(maxControllers, 16, 8, Uint)             \
  F(reserved24, 24, 2, Rsv)                  \
  F(diagDeviceID, 26, 1, Uint)               \
  F(optionROM, 27, 2, Uint)                  \
  F(reserved29, 29, 3, Rsv)                  \
  A(controllerList, 32, 4, Uint, 256)
IBA_STRUCT(DMIOUnitInfo, 132, IBA_FIELDS_DMIOUnitInfo);
IBA_ATTR_ID(DMIOUnitInfo, 0x0010);

// IOControllerProfile (16.3.3.4).
#define IBA_FIELDS_DMIOControllerProfile(F, A, S, SA) \
  F(GUID, 0, 64, Guid)                                \
  F(vendorID, 64, 24, Hex)                            \
  F(reserved88, 88, 8, Rsv)                           \
  F(deviceID, 96, 32, Hex)                            \
  F(deviceVersion, 128, 16, Hex)                      \
  F(reserved144, 144, 16, Rsv)                        \
  F(subsystemVendorID, 160, 24, Hex)                  \
  F(reserved184, 184, 8, Rsv)                         \
  F(subsystemID, 192, 32, Hex)                        \
  F(IOClass, 224, 16, Hex)                            \
  F(IOSubclass, 240, 16, Hex)                         \
  F(protocol, 256, 16, Hex)                           \
  F(protocolVersion, 272, 16, Hex)                    \
  F(reserved288, 288, 32, Rsv)                        \
  F(sendMessageQueueDepth, 320, 16, Uint)             \
  F(reserved336, 336, 8, Rsv)                         \
  F(RDMAReadQueueDepth, 344, 8, Uint)                 \
  F(sendMessageSize, 352, 32, Uint)                   \
  F(RDMATransferSize, 384, 32, Uint)                  \
  F(controllerOperationsCapabilityMask, 416, 8, Hex)  \
  F(reserved424, 424, 8, Rsv)                         \
  F(serviceEntries, 432, 8, Uint)                     \
  F(reserved440, 440, 72, Rsv)                        \
  F(IDString, 512, 512, Str)
IBA_STRUCT(DMIOControllerProfile, 128, IBA_FIELDS_DMIOControllerProfile);
IBA_ATTR_ID(DMIOControllerProfile, 0x0011);

// ServiceEntries (16.3.3.5): up to four (name, ID) entries per MAD.
#define IBA_FIELDS_DMServiceEntry(F, A, S, SA) \
  F(serviceName, 0, 320, Str)                  \
  F(serviceID, 320, 64, Hex)
IBA_STRUCT(DMServiceEntry, 48, IBA_FIELDS_DMServiceEntry);
#define IBA_FIELDS_DMServiceEntries(F, A, S, SA) SA(serviceEntry, 0, DMServiceEntry, 4)
IBA_STRUCT(DMServiceEntries, 192, IBA_FIELDS_DMServiceEntries);
IBA_ATTR_ID(DMServiceEntries, 0x0012);

// DiagnosticTimeout (16.3.3.6), PrepareToTest, TestDeviceOnce/Loop,
// DiagCode (16.3.3.11).
#define IBA_FIELDS_DMDiagnosticTimeout(F, A, S, SA) F(maxDiagTime, 0, 32, Uint)
IBA_STRUCT(DMDiagnosticTimeout, 4, IBA_FIELDS_DMDiagnosticTimeout);
IBA_ATTR_ID(DMDiagnosticTimeout, 0x0020);
#define IBA_FIELDS_DMDiagCode(F, A, S, SA) \
  F(diagCode, 0, 16, Hex)                  \
  F(reserved16, 16, 16, Rsv)
IBA_STRUCT(DMDiagCode, 4, IBA_FIELDS_DMDiagCode);
IBA_ATTR_ID(DMDiagCode, 0x0024);

}  // namespace iba
