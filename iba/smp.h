// Subnet management attributes (IBA 14.2.5).
#pragma once

#include "iba/mad.h"

namespace iba {

#define IBA_FIELDS_SMPNodeDescription(F, A, S, SA) F(nodeString, 0, 512, Str)
IBA_STRUCT(SMPNodeDescription, 64, IBA_FIELDS_SMPNodeDescription);
IBA_ATTR_ID(SMPNodeDescription, 0x0010);

#define IBA_FIELDS_SMPNodeInfo(F, A, S, SA) \
  F(baseVersion, 0, 8, Uint)                \
  F(classVersion, 8, 8, Uint)               \
  F(nodeType, 16, 8, Uint)                  \
  F(numPorts, 24, 8, Uint)                  \
  F(systemImageGUID, 32, 64, Guid)          \
  F(nodeGUID, 96, 64, Guid)                 \
  F(portGUID, 160, 64, Guid)                \
  F(partitionCap, 224, 16, Uint)            \
  F(deviceID, 240, 16, Hex)                 \
  F(revision, 256, 32, Hex)                 \
  F(localPortNum, 288, 8, Uint)             \
  F(vendorID, 296, 24, Hex)
IBA_STRUCT(SMPNodeInfo, 40, IBA_FIELDS_SMPNodeInfo);
IBA_ATTR_ID(SMPNodeInfo, 0x0011);

}  // namespace iba
