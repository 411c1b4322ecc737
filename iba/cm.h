// Communication management (IBA 12.6): the CM MAD format and its messages.
#pragma once

#include "iba/sa.h"

namespace iba {

// CM MAD: common header and 232 bytes of message.
#define IBA_FIELDS_CMFormat(F, A, S, SA) \
  S(hdr, 0, MADHeader)                   \
  F(data, 192, 1856, Bytes)
IBA_STRUCT(CMFormat, 256, IBA_FIELDS_CMFormat);

#define IBA_FIELDS_CMREQ(F, A, S, SA)           \
  F(localCommID, 0, 32, Hex)                    \
  F(reserved32, 32, 32, Rsv)                    \
  F(serviceID, 64, 64, Hex)                     \
  F(localCADGUID, 128, 64, Guid)                \
  F(reserved192, 192, 32, Rsv)                  \
  F(localQKey, 224, 32, Hex)                    \
  F(localQPN, 256, 24, Hex)                     \
  F(responderResources, 280, 8, Uint)           \
  F(localEECN, 288, 24, Hex)                    \
  F(initiatorDepth, 312, 8, Uint)               \
  F(remoteEECN, 320, 24, Hex)                   \
  F(remoteCMResponseTimeout, 344, 5, Uint)      \
  F(transportServiceType, 349, 2, Uint)         \
  F(endToEndFlowControl, 351, 1, Uint)          \
  F(startingPSN, 352, 24, Hex)                  \
  F(localCMResponseTimeout, 376, 5, Uint)       \
  F(retryCount, 381, 3, Uint)                   \
  F(partitionKey, 384, 16, Hex)                 \
  F(pathPacketPayloadMTU, 400, 4, Uint)         \
  F(RDCExists, 404, 1, Uint)                    \
  F(RNRRetryCount, 405, 3, Uint)                \
  F(maxCMRetries, 408, 4, Uint)                 \
  F(SRQ, 412, 1, Uint)                          \
  F(extendedTransportType, 413, 3, Uint)        \
  F(primaryLocalPortLID, 416, 16, Lid)          \
  F(primaryRemotePortLID, 432, 16, Lid)         \
  F(primaryLocalPortGID, 448, 128, Gid)         \
  F(primaryRemotePortGID, 576, 128, Gid)        \
  F(primaryFlowLabel, 704, 20, Hex)             \
  F(reserved724, 724, 6, Rsv)                   \
  F(primaryPacketRate, 730, 6, Uint)            \
  F(primaryTrafficClass, 736, 8, Uint)          \
  F(primaryHopLimit, 744, 8, Uint)              \
  F(primarySL, 752, 4, Uint)                    \
  F(primarySubnetLocal, 756, 1, Uint)           \
  F(reserved757, 757, 3, Rsv)                   \
  F(primaryLocalACKTimeout, 760, 5, Uint)       \
  F(reserved765, 765, 3, Rsv)                   \
  F(alternateLocalPortLID, 768, 16, Lid)        \
  F(alternateRemotePortLID, 784, 16, Lid)       \
  F(alternateLocalPortGID, 800, 128, Gid)       \
  F(alternateRemotePortGID, 928, 128, Gid)      \
  F(alternateFlowLabel, 1056, 20, Hex)          \
  F(reserved1076, 1076, 6, Rsv)                 \
  F(alternatePacketRate, 1082, 6, Uint)         \
  F(alternateTrafficClass, 1088, 8, Uint)       \
  F(alternateHopLimit, 1096, 8, Uint)           \
  F(alternateSL, 1104, 4, Uint)                 \
  F(alternateSubnetLocal, 1108, 1, Uint)        \
  F(reserved1109, 1109, 3, Rsv)                 \
  F(alternateLocalACKTimeout, 1112, 5, Uint)    \
  F(reserved1117, 1117, 3, Rsv)                 \
  F(privateData, 1120, 736, Bytes)
IBA_STRUCT(CMREQ, 232, IBA_FIELDS_CMREQ);
IBA_ATTR_ID(CMREQ, 0x0010);

#define IBA_FIELDS_CMMRA(F, A, S, SA) \
  F(localCommID, 0, 32, Hex)          \
  F(remoteCommID, 32, 32, Hex)        \
  F(messageMRAed, 64, 2, Uint)        \
  F(reserved66, 66, 6, Rsv)           \
  F(serviceTimeout, 72, 5, Uint)      \
  F(reserved77, 77, 3, Rsv)           \
  F(privateData, 80, 1776, Bytes)
IBA_STRUCT(CMMRA, 232, IBA_FIELDS_CMMRA);
IBA_ATTR_ID(CMMRA, 0x0011);

#define IBA_FIELDS_CMREJ(F, A, S, SA)  \
  F(localCommID, 0, 32, Hex)           \
  F(remoteCommID, 32, 32, Hex)         \
  F(messageRejected, 64, 2, Uint)      \
  F(reserved66, 66, 6, Rsv)            \
  F(rejectedInfoLength, 72, 7, Uint)   \
  F(reserved79, 79, 1, Rsv)            \
  F(reason, 80, 16, Uint)              \
  F(ARI, 96, 576, Bytes)               \
  F(privateData, 672, 1184, Bytes)
IBA_STRUCT(CMREJ, 232, IBA_FIELDS_CMREJ);
IBA_ATTR_ID(CMREJ, 0x0012);

#define IBA_FIELDS_CMREP(F, A, S, SA)   \
  F(localCommID, 0, 32, Hex)            \
  F(remoteCommID, 32, 32, Hex)          \
  F(localQKey, 64, 32, Hex)             \
  F(localQPN, 96, 24, Hex)              \
  F(reserved120, 120, 8, Rsv)           \
  F(localEEContext, 128, 24, Hex)       \
  F(reserved152, 152, 8, Rsv)           \
  F(startingPSN, 160, 24, Hex)          \
  F(reserved184, 184, 8, Rsv)           \
  F(responderResources, 192, 8, Uint)   \
  F(initiatorDepth, 200, 8, Uint)       \
  F(targetACKDelay, 208, 5, Uint)       \
  F(failoverAccepted, 213, 2, Uint)     \
  F(endToEndFlowControl, 215, 1, Uint)  \
  F(RNRRetryCount, 216, 3, Uint)        \
  F(SRQ, 219, 1, Uint)                  \
  F(reserved220, 220, 4, Rsv)           \
  F(localCADGUID, 224, 64, Guid)        \
  F(privateData, 288, 1568, Bytes)
IBA_STRUCT(CMREP, 232, IBA_FIELDS_CMREP);
IBA_ATTR_ID(CMREP, 0x0013);

#define IBA_FIELDS_CMRTU(F, A, S, SA) \
  F(localCommID, 0, 32, Hex)          \
  F(remoteCommID, 32, 32, Hex)        \
  F(privateData, 64, 1792, Bytes)
IBA_STRUCT(CMRTU, 232, IBA_FIELDS_CMRTU);
IBA_ATTR_ID(CMRTU, 0x0014);

#define IBA_FIELDS_CMDREQ(F, A, S, SA) \
  F(localCommID, 0, 32, Hex)           \
  F(remoteCommID, 32, 32, Hex)         \
  F(remoteQPN, 64, 24, Hex)            \
  F(reserved88, 88, 8, Rsv)            \
  F(privateData, 96, 1760, Bytes)
IBA_STRUCT(CMDREQ, 232, IBA_FIELDS_CMDREQ);
IBA_ATTR_ID(CMDREQ, 0x0015);

#define IBA_FIELDS_CMDREP(F, A, S, SA) \
  F(localCommID, 0, 32, Hex)           \
  F(remoteCommID, 32, 32, Hex)         \
  F(privateData, 64, 1792, Bytes)
IBA_STRUCT(CMDREP, 232, IBA_FIELDS_CMDREP);
IBA_ATTR_ID(CMDREP, 0x0016);

#define IBA_FIELDS_CMSIDR_REQ(F, A, S, SA) \
  F(requestID, 0, 32, Hex)                 \
  F(partitionKey, 32, 16, Hex)             \
  F(reserved48, 48, 16, Rsv)               \
  F(serviceID, 64, 64, Hex)                \
  F(privateData, 128, 1728, Bytes)
IBA_STRUCT(CMSIDR_REQ, 232, IBA_FIELDS_CMSIDR_REQ);
IBA_ATTR_ID(CMSIDR_REQ, 0x0017);

#define IBA_FIELDS_CMSIDR_REP(F, A, S, SA) \
  F(requestID, 0, 32, Hex)                 \
  F(status, 32, 8, Uint)                   \
  F(additionalInfoLength, 40, 8, Uint)     \
  F(reserved48, 48, 16, Rsv)               \
  F(QPN, 64, 24, Hex)                      \
  F(reserved88, 88, 8, Rsv)                \
  F(serviceID, 96, 64, Hex)                \
  F(QKey, 160, 32, Hex)                    \
  F(classPortInfo, 192, 576, Bytes)        \
  F(privateData, 768, 1088, Bytes)
IBA_STRUCT(CMSIDR_REP, 232, IBA_FIELDS_CMSIDR_REP);
IBA_ATTR_ID(CMSIDR_REP, 0x0018);

#define IBA_FIELDS_CMLAP(F, A, S, SA)         \
  F(localCommID, 0, 32, Hex)                  \
  F(remoteCommID, 32, 32, Hex)                \
  F(reserved64, 64, 32, Rsv)                  \
  F(remoteQPN, 96, 24, Hex)                   \
  F(remoteCMResponseTimeout, 120, 5, Uint)    \
  F(reserved125, 125, 3, Rsv)                 \
  F(reserved128, 128, 32, Rsv)                \
  F(alternateLocalPortLID, 160, 16, Lid)      \
  F(alternateRemotePortLID, 176, 16, Lid)     \
  F(alternateLocalPortGID, 192, 128, Gid)     \
  F(alternateRemotePortGID, 320, 128, Gid)    \
  F(alternateFlowLabel, 448, 20, Hex)         \
  F(reserved468, 468, 4, Rsv)                 \
  F(alternateTrafficClass, 472, 8, Uint)      \
  F(alternateHopLimit, 480, 8, Uint)          \
  F(reserved488, 488, 2, Rsv)                 \
  F(alternatePacketRate, 490, 6, Uint)        \
  F(alternateSL, 496, 4, Uint)                \
  F(alternateSubnetLocal, 500, 1, Uint)       \
  F(reserved501, 501, 3, Rsv)                 \
  F(alternateLocalACKTimeout, 504, 5, Uint)   \
  F(reserved509, 509, 3, Rsv)                 \
  F(privateData, 512, 1344, Bytes)
IBA_STRUCT(CMLAP, 232, IBA_FIELDS_CMLAP);
IBA_ATTR_ID(CMLAP, 0x0019);

#define IBA_FIELDS_CMAPR(F, A, S, SA)  \
  F(localCommID, 0, 32, Hex)           \
  F(remoteCommID, 32, 32, Hex)         \
  F(additionalInfoLength, 64, 8, Uint) \
  F(APStatus, 72, 8, Uint)             \
  F(reserved80, 80, 16, Rsv)           \
  F(additionalInfo, 96, 576, Bytes)    \
  F(privateData, 672, 1184, Bytes)
IBA_STRUCT(CMAPR, 232, IBA_FIELDS_CMAPR);
IBA_ATTR_ID(CMAPR, 0x001A);

}  // namespace iba
