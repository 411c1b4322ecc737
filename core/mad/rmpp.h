// RMPP (IBA 13.6), the segmentation of the SA's and the vendor OUI classes'
// long replies: joining DATA segments into one message the way the kernel
// delivers a reassembled one, splitting an SA table into its records, and
// the receiving side of the protocol for a transport that has no kernel to
// do it (VerbsMad: ACKs and windows).  Pure functions of the bytes; the
// header and its constants are iba/'s (iba::RMPPHeader, iba::rmpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "iba/mad.h"

namespace ibcore {

// Byte offset where an RMPP class's per-segment data starts: the SA's and
// the vendor OUI classes' data fields, else right after the MAD and RMPP
// headers (from the formats iba/ declares).
size_t rmpp_data_off(uint8_t mgmt_class);

// Join RMPP DATA segments (each a whole MAD, in order of SegmentNumber) into
// one message laid out as the kernel delivers a reassembled one: the first
// segment's MAD + RMPP header followed by every segment's data.  The
// PayloadLength of the first segment (when set) trims the result.
// truncated is set when the last segment (RMPP flag LastPkt) is missing.
struct Reassembled {
  std::vector<uint8_t> mad;
  bool truncated = false;
};
Reassembled rmpp_reassemble(std::span<const std::span<const uint8_t>> segments);

// Split an SA GetTable reply (one MAD or a reassembled message) into its
// records: stride = attributeOffset * 8 bytes, starting at the SA data
// (byte 56).  Records that do not fit whole are dropped and truncated is
// set; a single-MAD reply whose RMPP header says more segments follow is
// truncated too.
struct SARecords {
  std::vector<std::span<const uint8_t>> records;
  size_t record_size = 0;
  bool truncated = false;
};
SARecords sa_split_records(std::span<const uint8_t> msg);

// The receiving side of RMPP (IBA 13.6): DATA segments of one transaction
// in, ACKs and the joined message out.  A segment with SegmentNumber 0 is
// not a segment (a sender without an RMPP engine sent the first MAD of the
// message as is): it is delivered whole, as umad's kernel would.
class RmppReceiver {
public:
  // How many segments past the last one received the sender may send.
  static constexpr uint32_t WINDOW = 32;
  struct Step {
    bool deliver = false;               // msg is a whole message to hand on
    std::vector<uint8_t> msg;           // (the first MAD + every segment's data)
    bool truncated = false;             // joined without a LastPkt segment
    std::optional<std::array<uint8_t, iba::MAD_SIZE>> ack;  // send this back
    bool consumed = false;              // an RMPP packet taken here (deliver nothing else)
  };
  // Whether mad (a received reply) is an RMPP DATA segment this receiver
  // must handle (SegmentNumber >= 1), or an ACK/STOP/ABORT.
  static bool wants(std::span<const uint8_t> mad);
  // One received packet that wants() said is ours.
  Step on_packet(std::span<const uint8_t> mad);
  size_t open_transactions() const { return open_.size(); }

private:
  struct Open {
    uint32_t next = 1;
    std::vector<std::array<uint8_t, iba::MAD_SIZE>> segs;
    uint64_t order = 0;
  };
  static std::array<uint8_t, iba::MAD_SIZE> make_ack(std::span<const uint8_t> seg, uint32_t segnum,
                                                     uint32_t window_last);
  std::map<std::pair<uint64_t, uint8_t>, Open> open_;  // (TID, class)
  uint64_t order_ = 0;
};

}  // namespace ibcore
