// P_KeyTable through the SA transactor: the P_KeyTableRecord query carries
// the configured SM_Key (an SA gives these records only to trusted
// requests), and a refusal without a key says what is missing.  The fake SA
// here behaves like OpenSM: ERR_REQ_INVALID unless the SM_Key is its key.
#include <gtest/gtest.h>

#include "core_fake_transport.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/rpc/satransactor.h"
#include "iba/introspect.h"
#include "iba/sa.h"

namespace {

using coretest::FakeTransport;
using coretest::Sent;

constexpr uint64_t SA_KEY = 0x1122334455667788ull;

uint64_t be(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = v << 8 | p[i];
  return v;
}

struct PKeySA : ::testing::Test {
  FakeTransport t;
  uint64_t last_mask = 0;
  void SetUp() override {
    t.responder = [this](FakeTransport& tr, const Sent& s) {
      const uint8_t* m = s.mad.data();
      uint16_t attr = uint16_t(be(m + 16, 2));
      if (attr == 0x0011) {  // NodeRecord: lid 2 is a switch
        iba::SANodeRecord nr;
        nr.set_LID(2);
        auto ni = nr.nodeInfo();
        ni.set_nodeType(2).set_numPorts(8);
        nr.set_nodeInfo(ni);
        tr.reply(s, 0, nr.raw(), nr.SIZE, 56);
        return;
      }
      ASSERT_EQ(attr, 0x0033);
      last_mask = be(m + 48, 8);
      if (be(m + 36, 8) != SA_KEY) {
        tr.reply(s, 0x0200);  // ERR_REQ_INVALID
        return;
      }
      iba::SAPKeyTableRecord r;
      r.load({m + 56, r.SIZE});
      auto pk = r.PKeyTable();
      pk.set_PKeyBlock(0, 0xffff);
      r.set_PKeyTable(pk);
      tr.reply(s, 0, r.raw(), r.SIZE, 56);
    };
  }
};

TEST_F(PKeySA, SwitchPortWithTheKey) {
  t.settings().smkey = SA_KEY;
  ibcore::MadTransactor mad(t);
  ibcore::SATransactor sa(mad);
  ibcore::IBPath p;
  p.DLID = 2;
  auto pk = sa.SubnGet<iba::SMPPKeyTable>(p, 3u << 16);
  EXPECT_EQ(pk.PKeyBlock(0), 0xffffu);
  const auto& D = iba::SAPKeyTableRecord::DESC;
  uint64_t want = 0;
  for (const char* f : {"LID", "blockNum", "portNum"}) want |= iba::component_mask(D, f);
  EXPECT_EQ(last_mask, want);
}

TEST_F(PKeySA, RefusalWithoutAKeyNamesTheKey) {
  ibcore::MadTransactor mad(t);
  ibcore::SATransactor sa(mad);
  ibcore::IBPath p;
  p.DLID = 2;
  try {
    (void)sa.SubnGet<iba::SMPPKeyTable>(p, 0);
    FAIL() << "no error";
  } catch (const ibcore::MADError& e) {
    std::string all;
    for (const auto& l : e.layers()) all += l + "\n";
    EXPECT_NE(all.find("only to trusted requests"), std::string::npos) << all;
    EXPECT_NE(all.find("--smkey"), std::string::npos) << all;
    EXPECT_NE(all.find("ERR_REQ_INVALID"), std::string::npos) << all;
  }
}

}  // namespace
