// Building MADs: the untyped request (MadRequest) and the 256 bytes it
// becomes (build_mad), and the few header fields the engine reads back from
// a MAD (madhdr).  Below the engine (core/rpc/engine.h) and the typed RPC
// names (core/rpc/rpc.h), which both build through here.
#pragma once

#include <cstdint>
#include <span>

#include "core/transport/path.h"
#include "iba/mad.h"
#include "iba/smp.h"

namespace ibcore {

// What to send, independent of any type: the untyped RPC form (used by the
// `query` command and everything typed is built on it).
struct MadRequest {
  const iba::ClassDesc* cls = nullptr;   // the class (for SMPs: the LID routed one;
                                         // a DR path switches to the directed format)
  uint8_t method = 0;
  uint16_t attr_id = 0;
  uint32_t amod = 0;
  std::span<const uint8_t> payload;      // attribute payload (short = zero padded)
  uint64_t comp_mask = 0;                // SA component mask
  // For vendor classes with an OUI (0x30-0x4f): the OUI (bytes 37..39).
  uint32_t oui = 0;
};

// Fill mad (256 bytes) for req sent along path with transaction id tid.
// Returns the number of bytes to send.  Chooses the directed route format
// for a DR path (hop pointer 0, hop count, initial path, drSLID/drDLID) and
// puts path.mkey / path.smkey (or 0) in SMPs / SA MADs; MadEngine puts the
// end port's keys (Transport::settings(): -y, --smkey) in a MAD whose path
// names none.  An
// attribute the class defines is checked against the methods it allows
// (MADError when not); an attribute ID the registry does not know is sent
// as given, with req.payload as its raw data.
size_t build_mad(uint8_t* mad, const MadRequest& req, const IBPath& path, uint64_t tid);


// The header fields the engine, the flow control and SM following read
// from a MAD (request or reply).
namespace madhdr {
inline uint8_t class_of(const uint8_t* mad) { return uint8_t(iba::MADHeader::mgmtClass_at(mad)); }
inline uint8_t version_of(const uint8_t* mad) { return uint8_t(iba::MADHeader::classVersion_at(mad)); }
inline const iba::ClassDesc* format_of(const uint8_t* mad) { return iba::find_class(class_of(mad), version_of(mad)); }
inline uint16_t mad_status(const uint8_t* mad) {
  // A directed route SMP's status has the D bit beside it.
  if (iba::MADHeader::mgmtClass_at(mad) == iba::mgmt::SUBN_DIRECTED_ROUTE)
    return uint16_t(iba::SMPFormatDirected::status_at(mad));
  return uint16_t(iba::MADHeader::status_at(mad));
}
inline bool is_smp(uint8_t cls) { return cls == iba::mgmt::SUBN_LID_ROUTED || cls == iba::mgmt::SUBN_DIRECTED_ROUTE; }
}  // namespace madhdr

}  // namespace ibcore
