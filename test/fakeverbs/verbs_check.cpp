// core/transport/verbs against the fake provider: the ownership types, QP set-up
// from a path (the masks of every transition, as the kernel checks them),
// and RC data movement between two QPs of this process (RDMA WRITE, READ,
// SEND) with the error completions a HCA gives.  Runs only under umad2sim
// with the fake libibverbs first in LD_LIBRARY_PATH:
// test/integration/verbs_test.cpp starts it that way on a simulated fabric.
#include <gtest/gtest.h>
#include <poll.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "core/transport/devices.h"
#include "core/base/error.h"
#include "core/transport/verbs.h"
#include "core/transport/vmad.h"
#include "iba/mad.h"

namespace v = ibcore::verbs;

namespace {

struct Local {
  const ibcore::EndPort& ep = ibcore::get_end_port();
  v::Context ctx = v::Context::open(ep.ca);
  v::PD pd{ctx};
};

ibcore::IBPath loop_path(const ibcore::EndPort& ep, uint32_t psn_a, uint32_t psn_b) {
  ibcore::IBPath p;
  p.SLID = ep.lid;
  p.DLID = ep.lid;
  p.MTU = IBV_MTU_2048;
  p.sqpsn = psn_a;
  p.dqpsn = psn_b;
  return p;
}

// Two RC QPs of this process connected to each other.
struct Pair {
  Local& s;
  v::CQ cq_a{s.ctx, 64}, cq_b{s.ctx, 64};
  v::QP a{s.pd, IBV_QPT_RC, cq_a, cq_a, {}}, b{s.pd, IBV_QPT_RC, cq_b, cq_b, {}};
  explicit Pair(Local& st, int access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ, uint32_t a_psn = 100,
                uint32_t b_expects = 100)
      : s(st) {
    v::QPEnd ea{uint8_t(s.ep.port), 0, 0, access, b.qpn(), 0};
    v::QPEnd eb{uint8_t(s.ep.port), 0, 0, access, a.qpn(), 0};
    v::bring_up(a, loop_path(s.ep, a_psn, 200), ea);
    v::bring_up(b, loop_path(s.ep, 200, b_expects), eb);
  }
};

ibv_wc wait_wc(v::CQ& cq, int seconds = 30) {
  ibv_wc wc{};
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (cq.poll(&wc, 1) == 1) return wc;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  ADD_FAILURE() << "no completion in " << seconds << " s";
  wc.status = IBV_WC_GENERAL_ERR;
  return wc;
}

int post(v::QP& qp, ibv_wr_opcode op, const v::MR& mr, size_t off, uint32_t len, uint64_t raddr = 0,
         uint32_t rkey = 0) {
  ibv_sge sge{reinterpret_cast<uintptr_t>(static_cast<uint8_t*>(mr.addr()) + off), len, mr.lkey()};
  ibv_send_wr wr{};
  wr.wr_id = 7;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = op;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.wr.rdma.remote_addr = raddr;
  wr.wr.rdma.rkey = rkey;
  ibv_send_wr* bad = nullptr;
  return ibv_post_send(qp.get(), &wr, &bad);
}

int post_recv(v::QP& qp, const v::MR& mr, size_t off, uint32_t len, uint64_t wr_id = 9) {
  ibv_sge sge{reinterpret_cast<uintptr_t>(static_cast<uint8_t*>(mr.addr()) + off), len, mr.lkey()};
  ibv_recv_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  return ibv_post_recv(qp.get(), &wr, &bad);
}

int modify_errno(v::QP& qp, const ibv_qp_attr& a, int mask) {
  try {
    qp.modify(a, mask);
    return 0;
  } catch (const ibcore::SysError& e) {
    return e.err();
  }
}

}  // namespace

TEST(FakeVerbs, DevicesAndPortsAreTheSimulatedOnes) {
  Local s;
  v::DeviceList l;
  ASSERT_GE(l.size(), 1u);
  EXPECT_NE(l.find(s.ep.ca), nullptr);
  ibv_port_attr pa = s.ctx.query_port(uint8_t(s.ep.port));
  EXPECT_EQ(pa.lid, s.ep.lid);
  EXPECT_EQ(pa.sm_lid, s.ep.sm_lid);
  EXPECT_EQ(s.ctx.query_gid(uint8_t(s.ep.port), 0), s.ep.gid());
  EXPECT_EQ(s.ctx.query_device().phys_port_cnt, ibcore::get_devices().front().numports);
  EXPECT_THROW(v::Context::open("no-such-device"), ibcore::Error);
}

TEST(FakeVerbs, TransitionsNeedExactlyTheirMasks) {
  Local s;
  v::CQ cq(s.ctx, 16);
  v::QP rc(s.pd, IBV_QPT_RC, cq, cq, {});
  ibcore::IBPath p = loop_path(s.ep, 1, 2);
  v::QPEnd e{uint8_t(s.ep.port), 0, 0, IBV_ACCESS_REMOTE_WRITE, 0x123, 0};
  auto init = v::qp_transition(IBV_QPT_RC, IBV_QPS_INIT, p, e);
  auto rtr = v::qp_transition(IBV_QPT_RC, IBV_QPS_RTR, p, e);
  auto rts = v::qp_transition(IBV_QPT_RC, IBV_QPS_RTS, p, e);
  // RESET cannot skip INIT; a missing or an extra bit is refused.
  EXPECT_EQ(modify_errno(rc, rtr.attr, rtr.mask), EINVAL);
  EXPECT_EQ(modify_errno(rc, init.attr, init.mask & ~IBV_QP_ACCESS_FLAGS), EINVAL);
  EXPECT_EQ(modify_errno(rc, init.attr, init.mask | IBV_QP_QKEY), EINVAL);
  ibv_qp_attr bad_port = init.attr;
  bad_port.port_num = 99;
  EXPECT_EQ(modify_errno(rc, bad_port, init.mask), EINVAL);
  EXPECT_EQ(rc.state(), IBV_QPS_RESET);
  EXPECT_EQ(modify_errno(rc, init.attr, init.mask), 0);
  EXPECT_EQ(rc.state(), IBV_QPS_INIT);
  // Sending before RTS is refused.
  std::vector<uint8_t> buf(64);
  v::MR mr(s.pd, buf.data(), buf.size(), IBV_ACCESS_LOCAL_WRITE);
  EXPECT_EQ(post(rc, IBV_WR_SEND, mr, 0, 8), EINVAL);
  EXPECT_EQ(modify_errno(rc, rtr.attr, rtr.mask & ~IBV_QP_MIN_RNR_TIMER), EINVAL);
  EXPECT_EQ(modify_errno(rc, rtr.attr, rtr.mask), 0);
  EXPECT_EQ(modify_errno(rc, rts.attr, rts.mask & ~IBV_QP_TIMEOUT), EINVAL);
  EXPECT_EQ(modify_errno(rc, rts.attr, rts.mask), 0);
  EXPECT_EQ(rc.state(), IBV_QPS_RTS);

  // UD: a Q_Key at INIT, nothing but the state at RTR, an SQ PSN at RTS.
  v::QP ud(s.pd, IBV_QPT_UD, cq, cq, {});
  v::QPEnd eu{uint8_t(s.ep.port), 0, 0x80010000, 0, 0, 0};
  auto uinit = v::qp_transition(IBV_QPT_UD, IBV_QPS_INIT, p, eu);
  EXPECT_EQ(modify_errno(ud, uinit.attr, uinit.mask | IBV_QP_ACCESS_FLAGS), EINVAL);
  EXPECT_EQ(modify_errno(ud, uinit.attr, uinit.mask), 0);
  auto urtr = v::qp_transition(IBV_QPT_UD, IBV_QPS_RTR, p, eu);
  EXPECT_EQ(modify_errno(ud, rtr.attr, urtr.mask | IBV_QP_AV), EINVAL);
  EXPECT_EQ(modify_errno(ud, urtr.attr, urtr.mask), 0);
  auto urts = v::qp_transition(IBV_QPT_UD, IBV_QPS_RTS, p, eu);
  EXPECT_EQ(modify_errno(ud, urts.attr, urts.mask), 0);

  // UC: the address vector without the RC-only limits.
  v::QP uc(s.pd, IBV_QPT_UC, cq, cq, {});
  EXPECT_NO_THROW(v::bring_up(uc, p, e));
  EXPECT_EQ(uc.state(), IBV_QPS_RTS);
}

TEST(FakeVerbs, RdmaWriteReadAndSendMoveBytes) {
  Local s;
  Pair pr(s);
  std::vector<uint8_t> ba(8192), bb(8192);
  int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  v::MR ma(s.pd, ba.data(), ba.size(), acc), mb(s.pd, bb.data(), bb.size(), acc);
  for (size_t i = 0; i < 4096; ++i) ba[i] = uint8_t(i * 13 + 1);
  // WRITE a's first 4 KiB to b at offset 1000.
  ASSERT_EQ(post(pr.a, IBV_WR_RDMA_WRITE, ma, 0, 4096, reinterpret_cast<uintptr_t>(bb.data()) + 1000, mb.rkey()), 0);
  ibv_wc wc = wait_wc(pr.cq_a);
  EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
  EXPECT_EQ(wc.opcode, IBV_WC_RDMA_WRITE);
  EXPECT_EQ(std::memcmp(bb.data() + 1000, ba.data(), 4096), 0);
  EXPECT_EQ(bb[999], 0);
  // READ it back into a's second half.
  ASSERT_EQ(post(pr.a, IBV_WR_RDMA_READ, ma, 4096, 4096, reinterpret_cast<uintptr_t>(bb.data()) + 1000, mb.rkey()), 0);
  wc = wait_wc(pr.cq_a);
  EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
  EXPECT_EQ(wc.opcode, IBV_WC_RDMA_READ);
  EXPECT_EQ(std::memcmp(ba.data() + 4096, ba.data(), 4096), 0);
  // SEND: posted before the receive is, delivered once it is.
  ASSERT_EQ(post(pr.a, IBV_WR_SEND, ma, 0, 300), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ibv_wc none;
  EXPECT_EQ(pr.cq_b.poll(&none, 1), 0);
  ASSERT_EQ(post_recv(pr.b, mb, 6000, 1000), 0);
  wc = wait_wc(pr.cq_b);
  EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
  EXPECT_EQ(wc.opcode, IBV_WC_RECV);
  EXPECT_EQ(wc.byte_len, 300u);
  EXPECT_EQ(wc.src_qp, pr.a.qpn());
  EXPECT_EQ(std::memcmp(bb.data() + 6000, ba.data(), 300), 0);
  EXPECT_EQ(wait_wc(pr.cq_a).status, IBV_WC_SUCCESS);
}

TEST(FakeVerbs, ErrorsCompleteAsAHcaReportsThem) {
  Local s;
  std::vector<uint8_t> ba(4096), bb(4096);
  v::MR ma(s.pd, ba.data(), ba.size(), IBV_ACCESS_LOCAL_WRITE);
  v::MR mb(s.pd, bb.data(), bb.size(), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  v::MR mb_ro(s.pd, bb.data(), bb.size(), IBV_ACCESS_LOCAL_WRITE);  // no remote access
  {
    // A wrong rkey, then a region that does not allow remote writes.
    Pair pr(s);
    ASSERT_EQ(post(pr.a, IBV_WR_RDMA_WRITE, ma, 0, 64, reinterpret_cast<uintptr_t>(bb.data()), 0xdead00), 0);
    EXPECT_EQ(wait_wc(pr.cq_a).status, IBV_WC_REM_ACCESS_ERR);
    EXPECT_EQ(pr.a.state(), IBV_QPS_ERR);
    Pair pr2(s);
    ASSERT_EQ(post(pr2.a, IBV_WR_RDMA_WRITE, ma, 0, 64, reinterpret_cast<uintptr_t>(bb.data()), mb_ro.rkey()), 0);
    EXPECT_EQ(wait_wc(pr2.cq_a).status, IBV_WC_REM_ACCESS_ERR);
    // Past the end of the region.
    Pair pr3(s);
    ASSERT_EQ(post(pr3.a, IBV_WR_RDMA_WRITE, ma, 0, 64, reinterpret_cast<uintptr_t>(bb.data()) + 4090, mb.rkey()), 0);
    EXPECT_EQ(wait_wc(pr3.cq_a).status, IBV_WC_REM_ACCESS_ERR);
  }
  {
    // A SEND longer than the receive buffer.
    Pair pr(s);
    ASSERT_EQ(post_recv(pr.b, mb, 0, 100), 0);
    ASSERT_EQ(post(pr.a, IBV_WR_SEND, ma, 0, 200), 0);
    EXPECT_EQ(wait_wc(pr.cq_b).status, IBV_WC_LOC_LEN_ERR);
    EXPECT_EQ(wait_wc(pr.cq_a).status, IBV_WC_REM_INV_REQ_ERR);
  }
  {
    // The two ends disagree on the PSN: never in sequence.
    Pair pr(s, IBV_ACCESS_REMOTE_WRITE, 100, 555);
    ASSERT_EQ(post(pr.a, IBV_WR_RDMA_WRITE, ma, 0, 64, reinterpret_cast<uintptr_t>(bb.data()), mb.rkey()), 0);
    EXPECT_EQ(wait_wc(pr.cq_a).status, IBV_WC_RETRY_EXC_ERR);
  }
  {
    // A local buffer outside every MR.
    Pair pr(s);
    ibv_sge sge{reinterpret_cast<uintptr_t>(bb.data()), 64, 0x12345};
    ibv_send_wr wr{};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    ibv_send_wr* bad = nullptr;
    ASSERT_EQ(ibv_post_send(pr.a.get(), &wr, &bad), 0);
    EXPECT_EQ(wait_wc(pr.cq_a).status, IBV_WC_LOC_PROT_ERR);
  }
}

TEST(FakeVerbs, CompletionChannelRaisesOneEventPerArm) {
  Local s;
  v::CompChannel ch(s.ctx);
  v::CQ cq(s.ctx, 16, &ch);
  v::CQ other(s.ctx, 16);
  v::QP a(s.pd, IBV_QPT_RC, cq, cq, {}), b(s.pd, IBV_QPT_RC, other, other, {});
  v::QPEnd ea{uint8_t(s.ep.port), 0, 0, IBV_ACCESS_REMOTE_WRITE, b.qpn(), 0};
  v::QPEnd eb{uint8_t(s.ep.port), 0, 0, IBV_ACCESS_REMOTE_WRITE, a.qpn(), 0};
  v::bring_up(a, loop_path(s.ep, 5, 6), ea);
  v::bring_up(b, loop_path(s.ep, 6, 5), eb);
  std::vector<uint8_t> buf(256);
  v::MR mr(s.pd, buf.data(), buf.size(), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  cq.arm();
  ASSERT_EQ(post(a, IBV_WR_RDMA_WRITE, mr, 0, 16, reinterpret_cast<uintptr_t>(buf.data()) + 100, mr.rkey()), 0);
  pollfd p{ch.fd(), POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 10000), 1);
  EXPECT_TRUE(cq.take_event());
  EXPECT_EQ(wait_wc(cq).status, IBV_WC_SUCCESS);
  // Not armed again: the next completion raises no event.
  ASSERT_EQ(post(a, IBV_WR_RDMA_WRITE, mr, 0, 16, reinterpret_cast<uintptr_t>(buf.data()) + 100, mr.rkey()), 0);
  EXPECT_EQ(wait_wc(cq).status, IBV_WC_SUCCESS);
  EXPECT_EQ(::poll(&p, 1, 200), 0);
}

// VMAD on a multi-segment reply (what an SA's kernel sends for a table
// larger than one MAD; ibsim never does): a fake SA, a UD QP of this
// process, answers a GetTable with two RMPP segments, and VMAD must ACK
// each and hand on one joined message only after the last.
TEST(FakeVerbs, VmadAcksAndJoinsAnRmppReply) {
  Local s;
  ibcore::VerbsMad vm(s.ep, 16);
  v::CQ scq(s.ctx, 64), rcq(s.ctx, 64);
  v::QP sa(s.pd, IBV_QPT_UD, scq, rcq, {});
  v::bring_up(sa, {}, v::QPEnd{uint8_t(s.ep.port), 0, ibcore::GSI_QKEY, 0, 0, 0});
  constexpr size_t SLOT = 40 + iba::MAD_SIZE;
  std::vector<uint8_t> buf(8 * SLOT + 4 * iba::MAD_SIZE);
  v::MR mr(s.pd, buf.data(), buf.size(), IBV_ACCESS_LOCAL_WRITE);
  for (int i = 0; i < 8; ++i) ASSERT_EQ(post_recv(sa, mr, size_t(i) * SLOT, uint32_t(SLOT), uint64_t(i)), 0);

  // The request, through VMAD to the fake SA's QP.
  std::array<uint8_t, iba::MAD_SIZE> req{};
  iba::MADHeader::set_baseVersion_at(req.data(), 1);
  iba::MADHeader::set_mgmtClass_at(req.data(), iba::mgmt::SUBN_ADM);
  iba::MADHeader::set_classVersion_at(req.data(), 2);
  iba::MADHeader::set_method_at(req.data(), 0x12);
  iba::MADHeader::set_transactionID_at(req.data(), 0x4242);
  iba::MADHeader::set_attributeID_at(req.data(), 0x11);
  ibcore::IBPath to;
  to.DLID = s.ep.lid;
  to.dqpn = sa.qpn();
  vm.send(vm.client_agent(iba::mgmt::SUBN_ADM, 2), req.data(), req.size(), to, 1000);
  ibv_wc wc = wait_wc(rcq);
  ASSERT_EQ(wc.status, IBV_WC_SUCCESS);
  EXPECT_EQ(wc.src_qp, vm.qpn());
  EXPECT_EQ(std::memcmp(buf.data() + wc.wr_id * SLOT + 40, req.data(), req.size()), 0);

  // The reply: two segments, 200 data bytes each (SA data from byte 56),
  // the second the last with 150 of them in use.  PayloadLength counts
  // each segment's 20-byte SA header too: 2 * 20 + 350 in the first, 20 +
  // 150 in the last.
  v::AH back(s.pd, v::ah_attr([&] {
               ibcore::IBPath p;
               p.DLID = s.ep.lid;
               return p;
             }(), uint8_t(s.ep.port)));
  auto send_seg = [&](uint32_t segnum, uint8_t flags, uint32_t paylen, uint8_t fill) {
    uint8_t* m = buf.data() + 8 * SLOT;
    std::memcpy(m, req.data(), iba::MAD_SIZE);
    iba::MADHeader::set_method_at(m, 0x92);
    uint8_t* r = m + iba::MADHeader::SIZE;
    iba::RMPPHeader::set_RMPPVersion_at(r, 1);
    iba::RMPPHeader::set_RMPPType_at(r, 1);
    iba::RMPPHeader::set_RMPPFlags_at(r, flags);
    iba::RMPPHeader::set_data1_at(r, segnum);
    iba::RMPPHeader::set_data2_at(r, paylen);
    std::memset(m + 56, fill, iba::MAD_SIZE - 56);
    ibv_sge sge{reinterpret_cast<uintptr_t>(m), uint32_t(iba::MAD_SIZE), mr.lkey()};
    ibv_send_wr w{};
    w.sg_list = &sge;
    w.num_sge = 1;
    w.opcode = IBV_WR_SEND;
    w.send_flags = IBV_SEND_SIGNALED;
    w.wr.ud.ah = back.get();
    w.wr.ud.remote_qpn = vm.qpn();
    w.wr.ud.remote_qkey = ibcore::GSI_QKEY;
    ibv_send_wr* bad = nullptr;
    ASSERT_EQ(ibv_post_send(sa.get(), &w, &bad), 0);
    ASSERT_EQ(wait_wc(scq).status, IBV_WC_SUCCESS);
  };
  // The next ACK the fake SA receives: its segment number.
  auto ack_seg = [&]() -> uint32_t {
    ibv_wc a = wait_wc(rcq);
    if (a.status != IBV_WC_SUCCESS) return 0xffffffff;
    const uint8_t* x = buf.data() + a.wr_id * SLOT + 40;
    EXPECT_EQ(a.src_qp, vm.qpn());
    EXPECT_EQ(iba::RMPPHeader::RMPPType_at(x + iba::MADHeader::SIZE), 2u);  // ACK
    EXPECT_EQ(iba::MADHeader::transactionID_at(x), 0x4242u);
    EXPECT_EQ(iba::MADHeader::method_at(x), 0x12u);  // a request
    return uint32_t(iba::RMPPHeader::data1_at(x + iba::MADHeader::SIZE));
  };
  send_seg(1, 0x3, 390, 0xa1);
  ibcore::RecvMad out;
  EXPECT_FALSE(vm.recv(out, 300)) << "a first segment alone was handed on";
  EXPECT_EQ(ack_seg(), 1u);
  send_seg(2, 0x5, 170, 0xa2);
  ASSERT_TRUE(vm.recv(out, 5000));
  EXPECT_EQ(ack_seg(), 2u);
  EXPECT_EQ(out.status, 0);
  ASSERT_EQ(out.big.size(), 56u + 200u + 150u);
  EXPECT_EQ(out.big[56], 0xa1);
  EXPECT_EQ(out.big[56 + 199], 0xa1);
  EXPECT_EQ(out.big[56 + 200], 0xa2);
  EXPECT_EQ(iba::MADHeader::transactionID_at(out.big.data()), 0x4242u);
  EXPECT_EQ(out.addr.qpn, sa.qpn());
}
