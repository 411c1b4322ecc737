#include "core/mad/rmpp.h"

#include <algorithm>
#include <cstring>

#include "core/base/error.h"
#include "iba/introspect.h"
#include "iba/vendor.h"

namespace ibcore {

namespace {

using iba::MADHeader;
using iba::RMPPHeader;

// Where the per-segment data of an RMPP class starts, from the formats
// iba/ declares: the SA's and the vendor OUI classes' data fields, else
// right after the MAD and RMPP headers.
constexpr size_t SA_DATA_OFF = iba::field_bits<iba::SAFormat>("data").off / 8;
constexpr size_t VEND_OUI_DATA_OFF = iba::field_bits<iba::VendOUIFormat>("data").off / 8;
constexpr size_t RMPP_DATA_OFF = MADHeader::SIZE + RMPPHeader::SIZE;

// The RMPP header follows the common MAD header in every class that has one.
const uint8_t* rmpp_hdr(const uint8_t* mad) { return mad + MADHeader::SIZE; }
uint8_t* rmpp_hdr(uint8_t* mad) { return mad + MADHeader::SIZE; }
uint8_t rmpp_flags(const uint8_t* mad) { return uint8_t(RMPPHeader::RMPPFlags_at(rmpp_hdr(mad))); }

}  // namespace

size_t rmpp_data_off(uint8_t mgmt_class) {
  if (mgmt_class == iba::mgmt::SUBN_ADM) return SA_DATA_OFF;
  if (iba::mgmt::vendor_oui(mgmt_class)) return VEND_OUI_DATA_OFF;
  return RMPP_DATA_OFF;
}

// --- joining and splitting ------------------------------------------------------------

Reassembled rmpp_reassemble(std::span<const std::span<const uint8_t>> segments) {
  Reassembled r;
  if (segments.empty()) {
    r.truncated = true;
    return r;
  }
  auto first = segments.front();
  if (first.size() < RMPP_DATA_OFF) throw MADError("RMPP segment shorter than its headers");
  size_t off = rmpp_data_off(uint8_t(MADHeader::mgmtClass_at(first.data())));
  r.mad.assign(first.begin(), first.begin() + std::min(off, first.size()));
  uint32_t expect_seg = 1;
  bool last_seen = false;
  uint32_t last_paylen = 0;
  for (auto seg : segments) {
    if (seg.size() < off) throw MADError("RMPP segment shorter than its headers");
    uint32_t segnum = uint32_t(RMPPHeader::data1_at(rmpp_hdr(seg.data())));  // SegmentNumber
    uint8_t flags = rmpp_flags(seg.data());
    if (!(flags & iba::rmpp::ACTIVE) && segments.size() > 1) throw MADError("MAD segment without RMPP active flag");
    if ((flags & iba::rmpp::ACTIVE) && segnum != expect_seg) {
      r.truncated = true;  // a gap: keep what is contiguous
      break;
    }
    ++expect_seg;
    r.mad.insert(r.mad.end(), seg.begin() + off, seg.end());
    if (!(flags & iba::rmpp::ACTIVE) || (flags & iba::rmpp::LAST)) {
      last_seen = true;
      last_paylen = (flags & iba::rmpp::ACTIVE) ? uint32_t(RMPPHeader::data2_at(rmpp_hdr(seg.data()))) : 0;
      break;
    }
  }
  if (!last_seen) r.truncated = true;
  if (last_seen && last_paylen > 0 && last_paylen <= iba::rmpp::SEG_DATA) {
    size_t pad = iba::rmpp::SEG_DATA - last_paylen;
    r.mad.resize(r.mad.size() - std::min(pad, r.mad.size() - off));
  }
  return r;
}

SARecords sa_split_records(std::span<const uint8_t> msg) {
  SARecords s;
  if (msg.size() < SA_DATA_OFF) {
    s.truncated = true;
    return s;
  }
  size_t stride = size_t(iba::SAFormat::attributeOffset_at(msg.data())) * 8;
  s.record_size = stride;
  size_t data = msg.size() - SA_DATA_OFF;
  uint8_t flags = rmpp_flags(msg.data());
  if (msg.size() == iba::MAD_SIZE && (flags & iba::rmpp::ACTIVE)) {
    // One MAD as received without kernel reassembly: PayloadLength says
    // how much of it is real (and, if not the last segment, that more was
    // sent that we never got).
    uint32_t paylen = uint32_t(RMPPHeader::data2_at(rmpp_hdr(msg.data())));  // PayloadLength
    if (flags & iba::rmpp::LAST) {
      if (paylen >= 20 && paylen - 20 < data) data = paylen - 20;
      // A last segment that promises more than it holds: cut short.
      if (paylen >= 20 && paylen - 20 > data) s.truncated = true;
    } else {
      s.truncated = true;
    }
  }
  if (stride == 0) return s;
  size_t n = data / stride;
  for (size_t i = 0; i < n; ++i) s.records.push_back(msg.subspan(SA_DATA_OFF + i * stride, stride));
  return s;
}

// --- RmppReceiver: the receiving side ---------------------------------------------------------------------

bool RmppReceiver::wants(std::span<const uint8_t> mad) {
  if (mad.size() < MADHeader::SIZE + RMPPHeader::SIZE || !iba::rmpp::in_class(MADHeader::mgmtClass_at(mad.data())))
    return false;
  const uint8_t* r = rmpp_hdr(mad.data());
  if (!(RMPPHeader::RMPPFlags_at(r) & iba::rmpp::ACTIVE)) return false;
  uint64_t type = RMPPHeader::RMPPType_at(r);
  if (type == iba::rmpp::DATA) return RMPPHeader::data1_at(r) >= 1;
  return type == iba::rmpp::ACK || type == iba::rmpp::STOP || type == iba::rmpp::ABORT;
}

std::array<uint8_t, iba::MAD_SIZE> RmppReceiver::make_ack(std::span<const uint8_t> seg, uint32_t segnum,
                                                          uint32_t window_last) {
  // The ACK repeats the segment's MAD header as a request (the response
  // bit off) with an RMPP header of type ACK and no data.
  std::array<uint8_t, iba::MAD_SIZE> a{};
  std::memcpy(a.data(), seg.data(), MADHeader::SIZE);
  MADHeader::set_method_at(a.data(), MADHeader::method_at(a.data()) & ~uint64_t(iba::method::RESPONSE));
  MADHeader::set_status_at(a.data(), 0);
  uint8_t* r = rmpp_hdr(a.data());
  RMPPHeader::set_RMPPVersion_at(r, 1);
  RMPPHeader::set_RMPPType_at(r, iba::rmpp::ACK);
  RMPPHeader::set_RMPPFlags_at(r, iba::rmpp::ACTIVE);
  RMPPHeader::set_data1_at(r, segnum);
  RMPPHeader::set_data2_at(r, window_last);
  return a;
}

RmppReceiver::Step RmppReceiver::on_packet(std::span<const uint8_t> mad) {
  Step st;
  st.consumed = true;
  const uint8_t* m = mad.data();
  auto key = std::make_pair(MADHeader::transactionID_at(m), uint8_t(MADHeader::mgmtClass_at(m)));
  const uint8_t* r = rmpp_hdr(m);
  uint64_t type = RMPPHeader::RMPPType_at(r);
  if (type != iba::rmpp::DATA) {
    // The sender gave up (STOP/ABORT), or an ACK that is not ours to read:
    // forget the transaction; the request's own timer takes it from here.
    if (type == iba::rmpp::STOP || type == iba::rmpp::ABORT) open_.erase(key);
    return st;
  }
  uint32_t segnum = uint32_t(RMPPHeader::data1_at(r));
  auto it = open_.find(key);
  if (it == open_.end()) {
    if (segnum != 1) {
      // A segment of a transaction we do not have (its start was lost, or
      // it finished): ask for it from the start.
      st.ack = make_ack(mad, 0, WINDOW);
      return st;
    }
    // Bounded: a transaction abandoned by its sender is dropped for newer ones.
    if (open_.size() >= 256) {
      auto oldest = std::min_element(open_.begin(), open_.end(),
                                     [](const auto& a, const auto& b) { return a.second.order < b.second.order; });
      open_.erase(oldest);
    }
    it = open_.emplace(key, Open{}).first;
    it->second.order = ++order_;
  }
  Open& o = it->second;
  if (segnum == o.next) {
    std::array<uint8_t, iba::MAD_SIZE> seg{};
    std::memcpy(seg.data(), m, std::min(mad.size(), seg.size()));
    o.segs.push_back(seg);
    ++o.next;
  }
  // In order or not, ACK what we have in order (a duplicate or a gap makes
  // the sender resend from there).
  uint32_t have = o.next - 1;
  st.ack = make_ack(mad, have, have + WINDOW);
  bool last = segnum == have && (RMPPHeader::RMPPFlags_at(r) & iba::rmpp::LAST);
  if (last) {
    std::vector<std::span<const uint8_t>> spans;
    spans.reserve(o.segs.size());
    for (const auto& s : o.segs) spans.emplace_back(s.data(), s.size());
    Reassembled joined = rmpp_reassemble(spans);
    st.deliver = true;
    st.msg = std::move(joined.mad);
    st.truncated = joined.truncated;
    open_.erase(it);
  }
  return st;
}

}  // namespace ibcore
