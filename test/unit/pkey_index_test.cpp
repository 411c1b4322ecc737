// Which P_Key index a MAD goes out with (core/umad.h pkey_index_of): SMPs
// 0, a reply the request's, anything else -Y's (issue 13).
#include <gtest/gtest.h>

#include "core/config.h"
#include "core/path.h"
#include "core/umad.h"
#include "iba/mad.h"

namespace {

struct SavedIndex {
  uint16_t was = ibcore::config().pkey_index;
  ~SavedIndex() { ibcore::config().pkey_index = was; }
};

TEST(PKeyIndexOf, SmpsZeroGmpsTheOption) {
  SavedIndex keep;
  ibcore::config().pkey_index = 7;
  ibcore::IBPath p;
  EXPECT_EQ(ibcore::pkey_index_of(p, iba::mgmt::SUBN_LID_ROUTED), 0);
  EXPECT_EQ(ibcore::pkey_index_of(p, iba::mgmt::SUBN_DIRECTED_ROUTE), 0);
  EXPECT_EQ(ibcore::pkey_index_of(p, iba::mgmt::SUBN_ADM), 7);
  EXPECT_EQ(ibcore::pkey_index_of(p, iba::mgmt::PERF), 7);
  p.pkey_index = 2;  // a path that names its own index keeps it
  EXPECT_EQ(ibcore::pkey_index_of(p, iba::mgmt::PERF), 2);
  EXPECT_EQ(ibcore::pkey_index_of(p, iba::mgmt::SUBN_LID_ROUTED), 0);
}

// A server (ibping -S, ibsysstat -S) replies on the path of the request it
// received: the request's index, whatever -Y the server was started with.
TEST(PKeyIndexOf, AReplyGoesBackWithTheRequestsIndex) {
  SavedIndex keep;
  ibcore::config().pkey_index = 9;
  ibcore::MadAddr a;
  a.lid = 12;
  a.qpn = 1;
  a.pkey_index = 0;
  ibcore::IBPath reply = a.to_path();
  reply.reverse(true);
  EXPECT_EQ(ibcore::pkey_index_of(reply, iba::mgmt::PERF), 0);
  a.pkey_index = 4;
  reply = a.to_path();
  reply.reverse(true);
  EXPECT_EQ(ibcore::pkey_index_of(reply, iba::mgmt::PERF), 4);
}

}  // namespace
