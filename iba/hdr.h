// Packet headers (IBA 5 and 9): the local and global route headers, the base
// transport header and the extended transport headers.  Same declaration
// form as every other structure: the tracer and decode_mad print them.
#pragma once

#include "iba/struct.h"

namespace iba {

// Local Route Header (IBA 7.7).
#define IBA_FIELDS_HdrLRH(F, A, S, SA) \
  F(VL, 0, 4, Uint)                    \
  F(LVer, 4, 4, Uint)                  \
  F(SL, 8, 4, Uint)                    \
  F(reserved12, 12, 2, Rsv)            \
  F(LNH, 14, 2, Uint)                  \
  F(DLID, 16, 16, Lid)                 \
  F(reserved32, 32, 5, Rsv)            \
  F(pktLen, 37, 11, Uint)              \
  F(SLID, 48, 16, Lid)
IBA_STRUCT(HdrLRH, 8, IBA_FIELDS_HdrLRH);

// Global Route Header (IBA 8.3).
#define IBA_FIELDS_HdrGRH(F, A, S, SA) \
  F(IPVer, 0, 4, Uint)                 \
  F(TClass, 4, 8, Uint)                \
  F(flowLabel, 12, 20, Hex)            \
  F(payLen, 32, 16, Uint)              \
  F(nxtHdr, 48, 8, Hex)                \
  F(hopLmt, 56, 8, Uint)               \
  F(SGID, 64, 128, Gid)                \
  F(DGID, 192, 128, Gid)
IBA_STRUCT(HdrGRH, 40, IBA_FIELDS_HdrGRH);

// Base Transport Header (IBA 9.2).
#define IBA_FIELDS_HdrBTH(F, A, S, SA) \
  F(opcode, 0, 8, Hex)                 \
  F(SE, 8, 1, Uint)                    \
  F(migReq, 9, 1, Uint)                \
  F(padCnt, 10, 2, Uint)               \
  F(TVer, 12, 4, Uint)                 \
  F(PKey, 16, 16, Hex)                 \
  F(reserved32, 32, 8, Rsv)            \
  F(destQP, 40, 24, Hex)               \
  F(ackReq, 64, 1, Uint)               \
  F(reserved65, 65, 7, Rsv)            \
  F(PSN, 72, 24, Uint)
IBA_STRUCT(HdrBTH, 12, IBA_FIELDS_HdrBTH);

// Reliable Datagram Extended Transport Header (IBA 9.3.1).
#define IBA_FIELDS_HdrRDETH(F, A, S, SA) \
  F(reserved0, 0, 8, Rsv)                \
  F(EECnxt, 8, 24, Hex)
IBA_STRUCT(HdrRDETH, 4, IBA_FIELDS_HdrRDETH);

// Datagram Extended Transport Header (IBA 9.3.2).
#define IBA_FIELDS_HdrDETH(F, A, S, SA) \
  F(QKey, 0, 32, Hex)                   \
  F(reserved32, 32, 8, Rsv)             \
  F(srcQP, 40, 24, Hex)
IBA_STRUCT(HdrDETH, 8, IBA_FIELDS_HdrDETH);

// RDMA Extended Transport Header (IBA 9.3.3).
#define IBA_FIELDS_HdrRETH(F, A, S, SA) \
  F(VA, 0, 64, Hex)                     \
  F(RKey, 64, 32, Hex)                  \
  F(DMALen, 96, 32, Uint)
IBA_STRUCT(HdrRETH, 16, IBA_FIELDS_HdrRETH);

// Atomic Extended Transport Header (IBA 9.3.4).
#define IBA_FIELDS_HdrAtomicETH(F, A, S, SA) \
  F(VA, 0, 64, Hex)                          \
  F(RKey, 64, 32, Hex)                       \
  F(swapData, 96, 64, Hex)                   \
  F(cmpData, 160, 64, Hex)
IBA_STRUCT(HdrAtomicETH, 28, IBA_FIELDS_HdrAtomicETH);

// ACK Extended Transport Header (IBA 9.3.5).
#define IBA_FIELDS_HdrAETH(F, A, S, SA) \
  F(syndrome, 0, 8, Hex)                \
  F(MSN, 8, 24, Uint)
IBA_STRUCT(HdrAETH, 4, IBA_FIELDS_HdrAETH);

// Atomic ACK Extended Transport Header (IBA 9.3.6).
#define IBA_FIELDS_HdrAtomicAckETH(F, A, S, SA) F(origRemoteData, 0, 64, Hex)
IBA_STRUCT(HdrAtomicAckETH, 8, IBA_FIELDS_HdrAtomicAckETH);

// Immediate data (IBA 9.3.7) and the Invalidate ETH (IBA 9.3.8).
#define IBA_FIELDS_HdrImmDt(F, A, S, SA) F(immediateData, 0, 32, Hex)
IBA_STRUCT(HdrImmDt, 4, IBA_FIELDS_HdrImmDt);
#define IBA_FIELDS_HdrIETH(F, A, S, SA) F(RKey, 0, 32, Hex)
IBA_STRUCT(HdrIETH, 4, IBA_FIELDS_HdrIETH);

// LRH.LNH values.
namespace lnh {
enum : uint8_t { RAW = 0, IP_NON_IBA = 1, IBA_LOCAL = 2, IBA_GLOBAL = 3 };
}

}  // namespace iba
