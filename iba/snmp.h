// SNMP tunneling (IBA 16.4): the SNMP MAD format.
#pragma once

#include "iba/sa.h"

namespace iba {

// SNMP MAD (16.4.1): common header, 32 reserved bytes, RAddress,
// PayloadLength, SegmentNumber, SourceLID, and 172 bytes of PDU data.
#define IBA_FIELDS_SNMPFormat(F, A, S, SA) \
  S(hdr, 0, MADHeader)                     \
  F(reserved192, 192, 256, Rsv)            \
  F(RAddress, 448, 32, Hex)                \
  F(payloadLength, 480, 8, Uint)           \
  F(segmentNumber, 488, 8, Uint)           \
  F(sourceLID, 496, 16, Lid)               \
  F(data, 512, 1536, Bytes)
IBA_STRUCT(SNMPFormat, 256, IBA_FIELDS_SNMPFormat);

// CommunityInfo (16.4.3.1): the community name for this PDU.
#define IBA_FIELDS_SNMPCommunityInfo(F, A, S, SA) F(communityName, 0, 512, Str)
IBA_STRUCT(SNMPCommunityInfo, 64, IBA_FIELDS_SNMPCommunityInfo);
IBA_ATTR_ID(SNMPCommunityInfo, 0x0010);

// PduInfo (16.4.3.2): the (segmented) SNMP PDU.
#define IBA_FIELDS_SNMPPduInfo(F, A, S, SA) F(pdu, 0, 1536, Bytes)
IBA_STRUCT(SNMPPduInfo, 192, IBA_FIELDS_SNMPPduInfo);
IBA_ATTR_ID(SNMPPduInfo, 0x0011);

}  // namespace iba
