// core/transport/verbs' QP set-up from a path (attribute values and masks of every
// transition for UD, UC and RC), VMAD's RMPP receiver, and the choice of
// transport (--transport, and auto: umad, else verbs).  Pure functions:
// no device or provider needed (test/fakeverbs covers the rest).
#include <gtest/gtest.h>

#include <cstring>

#include "core/base/config.h"
#include "core/base/error.h"
#include "core/transport/open.h"
#include "core/transport/umad.h"
#include "core/transport/verbs.h"
#include "core/transport/vmad.h"
#include "iba/introspect.h"
#include "iba/mad.h"

namespace v = ibcore::verbs;

namespace {

ibcore::IBPath sample_path() {
  ibcore::IBPath p;
  p.SLID = 0x13;  // path bits 3 with LMC 2
  p.DLID = 0x22;
  p.SL = 5;
  p.rate = 7;  // 40 Gb/s
  p.MTU = 4;   // 2048
  p.packet_life_time = 16;
  p.retries = 3;
  p.sqpsn = 0x111111;
  p.dqpsn = 0x222222;
  p.min_rnr_timer = 14;
  p.srdatomic = 4;
  p.drdatomic = 8;
  return p;
}

v::QPEnd sample_end() {
  v::QPEnd e;
  e.port_num = 2;
  e.pkey_index = 3;
  e.qkey = 0x80010000;
  e.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  e.dest_qpn = 0xabcdef;
  e.lmc = 2;
  return e;
}

}  // namespace

TEST(VerbsQpSetup, InitTakesThePortPkeyAndQkeyOrAccess) {
  auto ud = v::qp_transition(IBV_QPT_UD, IBV_QPS_INIT, sample_path(), sample_end());
  EXPECT_EQ(ud.mask, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
  EXPECT_EQ(ud.attr.qp_state, IBV_QPS_INIT);
  EXPECT_EQ(ud.attr.port_num, 2);
  EXPECT_EQ(ud.attr.pkey_index, 3);
  EXPECT_EQ(ud.attr.qkey, 0x80010000u);
  for (ibv_qp_type t : {IBV_QPT_RC, IBV_QPT_UC}) {
    auto c = v::qp_transition(t, IBV_QPS_INIT, sample_path(), sample_end());
    EXPECT_EQ(c.mask, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
    EXPECT_EQ(c.attr.qp_access_flags, unsigned(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ));
  }
}

TEST(VerbsQpSetup, RtrTakesThePathForConnectedQPs) {
  auto ud = v::qp_transition(IBV_QPT_UD, IBV_QPS_RTR, sample_path(), sample_end());
  EXPECT_EQ(ud.mask, IBV_QP_STATE);
  auto uc = v::qp_transition(IBV_QPT_UC, IBV_QPS_RTR, sample_path(), sample_end());
  EXPECT_EQ(uc.mask, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN);
  auto rc = v::qp_transition(IBV_QPT_RC, IBV_QPS_RTR, sample_path(), sample_end());
  EXPECT_EQ(rc.mask, uc.mask | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
  EXPECT_EQ(rc.attr.path_mtu, IBV_MTU_2048);
  EXPECT_EQ(rc.attr.dest_qp_num, 0xabcdefu);
  EXPECT_EQ(rc.attr.rq_psn, 0x222222u);
  EXPECT_EQ(rc.attr.max_dest_rd_atomic, 8);
  EXPECT_EQ(rc.attr.min_rnr_timer, 14);
  EXPECT_EQ(rc.attr.ah_attr.dlid, 0x22);
  EXPECT_EQ(rc.attr.ah_attr.sl, 5);
  EXPECT_EQ(rc.attr.ah_attr.static_rate, 7);
  EXPECT_EQ(rc.attr.ah_attr.src_path_bits, 3);
  EXPECT_EQ(rc.attr.ah_attr.port_num, 2);
  EXPECT_EQ(rc.attr.ah_attr.is_global, 0);
}

TEST(VerbsQpSetup, RtsTakesTheSendSideLimits) {
  auto ud = v::qp_transition(IBV_QPT_UD, IBV_QPS_RTS, sample_path(), sample_end());
  EXPECT_EQ(ud.mask, IBV_QP_STATE | IBV_QP_SQ_PSN);
  EXPECT_EQ(ud.attr.sq_psn, 0x111111u);
  auto uc = v::qp_transition(IBV_QPT_UC, IBV_QPS_RTS, sample_path(), sample_end());
  EXPECT_EQ(uc.mask, IBV_QP_STATE | IBV_QP_SQ_PSN);
  auto rc = v::qp_transition(IBV_QPT_RC, IBV_QPS_RTS, sample_path(), sample_end());
  EXPECT_EQ(rc.mask, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                         IBV_QP_MAX_QP_RD_ATOMIC);
  EXPECT_EQ(rc.attr.timeout, 17);  // one above the packet lifetime
  EXPECT_EQ(rc.attr.retry_cnt, 3);
  EXPECT_EQ(rc.attr.rnr_retry, 7);
  EXPECT_EQ(rc.attr.max_rd_atomic, 4);
}

TEST(VerbsQpSetup, DefaultsWhereThePathSaysNothing) {
  ibcore::IBPath p;
  p.DLID = 9;
  v::QPEnd e;
  auto rtr = v::qp_transition(IBV_QPT_RC, IBV_QPS_RTR, p, e);
  EXPECT_EQ(rtr.attr.path_mtu, IBV_MTU_1024);
  EXPECT_EQ(rtr.attr.max_dest_rd_atomic, 1);
  EXPECT_EQ(rtr.attr.min_rnr_timer, 12);
  auto rts = v::qp_transition(IBV_QPT_RC, IBV_QPS_RTS, p, e);
  EXPECT_EQ(rts.attr.timeout, 14);
  EXPECT_EQ(rts.attr.retry_cnt, 7);
  EXPECT_EQ(rts.attr.max_rd_atomic, 1);
  // A PSN wider than 24 bits is cut to the field.
  p.sqpsn = 0x1234567;
  EXPECT_EQ(v::qp_transition(IBV_QPT_RC, IBV_QPS_RTS, p, e).attr.sq_psn, 0x234567u);
}

TEST(VerbsQpSetup, GrhWhenThePathHasOne) {
  ibcore::IBPath p = sample_path();
  p.has_grh = true;
  p.DGID = *iba::parse_gid("fe80::2:c903:0:1491");
  p.hop_limit = 0;
  p.flow_label = 0x12345;
  p.traffic_class = 9;
  ibv_ah_attr a = v::ah_attr(p, 1, 0, 2);
  EXPECT_EQ(a.is_global, 1);
  EXPECT_EQ(std::memcmp(a.grh.dgid.raw, p.DGID.raw.data(), 16), 0);
  EXPECT_EQ(a.grh.hop_limit, 255);
  EXPECT_EQ(a.grh.flow_label, 0x12345u);
  EXPECT_EQ(a.grh.traffic_class, 9);
  EXPECT_EQ(a.grh.sgid_index, 2);
  EXPECT_EQ(a.src_path_bits, 0);  // LMC 0: no path bits
}

TEST(VerbsQpSetup, NoStepToOtherStatesOrTypes) {
  EXPECT_THROW(v::qp_transition(IBV_QPT_RC, IBV_QPS_RESET, sample_path(), sample_end()), ibcore::Error);
  EXPECT_THROW(v::qp_transition(IBV_QPT_RC, IBV_QPS_SQD, sample_path(), sample_end()), ibcore::Error);
  EXPECT_THROW(v::qp_transition(IBV_QPT_RAW_PACKET, IBV_QPS_INIT, sample_path(), sample_end()), ibcore::Error);
}

TEST(VerbsPath, QpFieldsRoundTripThroughText) {
  ibcore::IBPath p = sample_path();
  auto q = ibcore::IBPath::from_string(p.repr());
  EXPECT_EQ(q, p) << p.repr();
  EXPECT_NE(p.repr().find("sqpsn=0x111111"), std::string::npos);
  EXPECT_THROW(ibcore::IBPath::from_string("IBPath(DLID=1,sqpsn=0x1000000)"), ibcore::Error);
}

// --- RMPP -----------------------------------------------------------------------------

namespace {

using Mad = std::array<uint8_t, iba::MAD_SIZE>;

// An SA GetTableResp segment: segment number, flags, payload length.
Mad segment(uint64_t tid, uint32_t segnum, uint8_t flags, uint32_t paylen, uint8_t fill) {
  Mad m{};
  iba::MADHeader::set_baseVersion_at(m.data(), 1);
  iba::MADHeader::set_mgmtClass_at(m.data(), iba::mgmt::SUBN_ADM);
  iba::MADHeader::set_classVersion_at(m.data(), 2);
  iba::MADHeader::set_method_at(m.data(), 0x92);
  iba::MADHeader::set_transactionID_at(m.data(), tid);
  iba::MADHeader::set_attributeID_at(m.data(), 0x11);
  uint8_t* r = m.data() + iba::MADHeader::SIZE;
  iba::RMPPHeader::set_RMPPVersion_at(r, 1);
  iba::RMPPHeader::set_RMPPType_at(r, 1);
  iba::RMPPHeader::set_RMPPFlags_at(r, flags);
  iba::RMPPHeader::set_data1_at(r, segnum);
  iba::RMPPHeader::set_data2_at(r, paylen);
  for (size_t i = 36; i < m.size(); ++i) m[i] = fill;
  return m;
}

uint32_t ack_seg(const ibcore::RmppReceiver::Step& s) {
  return uint32_t(iba::RMPPHeader::data1_at(s.ack->data() + iba::MADHeader::SIZE));
}
uint32_t ack_window(const ibcore::RmppReceiver::Step& s) {
  return uint32_t(iba::RMPPHeader::data2_at(s.ack->data() + iba::MADHeader::SIZE));
}

}  // namespace

TEST(VmadRmpp, SegmentsAreAckedAndJoined) {
  ibcore::RmppReceiver r;
  // Three segments: First|Active, Active, Last|Active; PayloadLength in the
  // first is the whole message (3 * 220 - 100 of padding in the last).
  Mad s1 = segment(0x55, 1, 0x3, 560, 0xa1), s2 = segment(0x55, 2, 0x1, 0, 0xa2),
      s3 = segment(0x55, 3, 0x5, 120, 0xa3);
  ASSERT_TRUE(ibcore::RmppReceiver::wants(s1));
  auto a = r.on_packet(s1);
  EXPECT_FALSE(a.deliver);
  ASSERT_TRUE(a.ack);
  EXPECT_EQ(ack_seg(a), 1u);
  EXPECT_EQ(ack_window(a), 1u + ibcore::RmppReceiver::WINDOW);
  // The ACK is a request (response bit off) of type ACK for the same TID.
  EXPECT_EQ(iba::MADHeader::method_at(a.ack->data()), 0x12u);
  EXPECT_EQ(iba::MADHeader::transactionID_at(a.ack->data()), 0x55u);
  EXPECT_EQ(iba::RMPPHeader::RMPPType_at(a.ack->data() + iba::MADHeader::SIZE), 2u);
  // A duplicate changes nothing and is acknowledged again.
  EXPECT_EQ(ack_seg(r.on_packet(s1)), 1u);
  EXPECT_EQ(ack_seg(r.on_packet(s2)), 2u);
  auto last = r.on_packet(s3);
  ASSERT_TRUE(last.deliver);
  EXPECT_EQ(ack_seg(last), 3u);
  EXPECT_FALSE(last.truncated);
  // The joined message (core/mad/rmpp's rmpp_reassemble, as the kernel lays it
  // out): the first MAD's headers up to the SA data (byte 56), then each
  // segment's 200 bytes of data, the last trimmed by its PayloadLength.
  ASSERT_EQ(last.msg.size(), 56u + 600u - (220u - 120u));
  EXPECT_EQ(last.msg[56], 0xa1);
  EXPECT_EQ(last.msg[56 + 200], 0xa2);
  EXPECT_EQ(last.msg[56 + 400], 0xa3);
  EXPECT_EQ(r.open_transactions(), 0u);
}

TEST(VmadRmpp, AGapIsAckedAtTheLastSegmentInOrder) {
  ibcore::RmppReceiver r;
  r.on_packet(segment(7, 1, 0x3, 0, 1));
  auto gap = r.on_packet(segment(7, 3, 0x1, 0, 3));
  EXPECT_FALSE(gap.deliver);
  EXPECT_EQ(ack_seg(gap), 1u);  // resend from 2
  EXPECT_EQ(r.open_transactions(), 1u);
  // A segment of a transaction never started asks for it from the start.
  auto stray = r.on_packet(segment(8, 4, 0x1, 0, 4));
  EXPECT_EQ(ack_seg(stray), 0u);
  EXPECT_EQ(r.open_transactions(), 1u);
}

TEST(VmadRmpp, StopAndAbortForgetTheTransaction) {
  ibcore::RmppReceiver r;
  r.on_packet(segment(9, 1, 0x3, 0, 1));
  Mad stop = segment(9, 0, 0x1, 0, 0);
  iba::RMPPHeader::set_RMPPType_at(stop.data() + iba::MADHeader::SIZE, 3);
  ASSERT_TRUE(ibcore::RmppReceiver::wants(stop));
  auto st = r.on_packet(stop);
  EXPECT_FALSE(st.deliver);
  EXPECT_FALSE(st.ack);
  EXPECT_EQ(r.open_transactions(), 0u);
}

TEST(VmadRmpp, NotASegmentIsNotTaken) {
  // SegmentNumber 0 (a sender without an RMPP engine), RMPP inactive, and a
  // class without an RMPP header are delivered as they are.
  EXPECT_FALSE(ibcore::RmppReceiver::wants(segment(1, 0, 0x1, 0, 0)));
  EXPECT_FALSE(ibcore::RmppReceiver::wants(segment(1, 1, 0x0, 0, 0)));
  Mad pm = segment(1, 1, 0x1, 0, 0);
  iba::MADHeader::set_mgmtClass_at(pm.data(), iba::mgmt::PERF);
  EXPECT_FALSE(ibcore::RmppReceiver::wants(pm));
}

// --- choosing the transport -------------------------------------------------------------

namespace {

struct Named : ibcore::Transport {
  explicit Named(std::string n) : name(std::move(n)) {}
  std::string name;
  int client_agent(uint8_t, uint8_t) override { return 0; }
  int server_agent(uint8_t, uint8_t, uint32_t, uint32_t) override { return 0; }
  void send(int, const uint8_t*, size_t, const ibcore::IBPath&, int) override {}
  bool recv(ibcore::RecvMad&, int) override { return false; }
};

std::string chosen(ibcore::TransportKind kind, bool umad_ok, bool verbs_ok, std::string* why = nullptr) {
  std::string umad_err;
  auto t = ibcore::choose_transport(
      kind,
      [&]() -> std::unique_ptr<ibcore::Transport> {
        if (!umad_ok) throw ibcore::SysError(EACCES, "umad_open_port", "Cannot open end port mlx5_0/1");
        return std::make_unique<Named>("umad");
      },
      [&](const std::string& e) -> std::unique_ptr<ibcore::Transport> {
        if (why) *why = e;
        if (!verbs_ok) throw ibcore::Error("No RDMA devices (libibverbs lists none)");
        return std::make_unique<Named>("verbs");
      });
  return static_cast<Named&>(*t).name;
}

}  // namespace

TEST(TransportChoice, AutoIsUmadElseVerbs) {
  using K = ibcore::TransportKind;
  EXPECT_EQ(chosen(K::Auto, true, true), "umad");
  std::string why;
  EXPECT_EQ(chosen(K::Auto, false, true, &why), "verbs");
  EXPECT_NE(why.find("Permission denied"), std::string::npos) << why;  // kept for the SMP error
  EXPECT_EQ(chosen(K::Verbs, true, true), "verbs");
  EXPECT_EQ(chosen(K::Umad, true, true), "umad");
  // Forced umad never falls back; auto with neither says both reasons.
  EXPECT_THROW(chosen(K::Umad, false, true), ibcore::SysError);
  try {
    chosen(K::Auto, false, false);
    FAIL() << "no transport should open";
  } catch (const ibcore::Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("Permission denied"), std::string::npos) << m;
    EXPECT_NE(m.find("No RDMA devices"), std::string::npos) << m;
  }
}
