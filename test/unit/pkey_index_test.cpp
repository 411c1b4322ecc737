// Which P_Key index a MAD goes out with (core/transport/umad.h pkey_index_of): SMPs
// 0, a reply the request's, anything else -Y's (issue 13).
#include <gtest/gtest.h>

#include "core/transport/path.h"
#include "core/transport/transport.h"
#include "iba/mad.h"

namespace {

TEST(PKeyIndexOf, SmpsZeroGmpsTheOption) {
  const uint16_t port = 7;  // the end port's -Y
  ibcore::IBPath p;
  EXPECT_EQ(ibcore::pkey_index_of(p, iba::mgmt::SUBN_LID_ROUTED, port), 0);
  EXPECT_EQ(ibcore::pkey_index_of(p, iba::mgmt::SUBN_DIRECTED_ROUTE, port), 0);
  EXPECT_EQ(ibcore::pkey_index_of(p, iba::mgmt::SUBN_ADM, port), 7);
  EXPECT_EQ(ibcore::pkey_index_of(p, iba::mgmt::PERF, port), 7);
  p.pkey_index = 2;  // a path that names its own index keeps it
  EXPECT_EQ(ibcore::pkey_index_of(p, iba::mgmt::PERF, port), 2);
  EXPECT_EQ(ibcore::pkey_index_of(p, iba::mgmt::SUBN_LID_ROUTED, port), 0);
}

// A server (ibping -S, ibsysstat -S) replies on the path of the request it
// received: the request's index, whatever -Y the server was started with.
TEST(PKeyIndexOf, AReplyGoesBackWithTheRequestsIndex) {
  const uint16_t port = 9;  // the server's -Y
  ibcore::MadAddr a;
  a.lid = 12;
  a.qpn = 1;
  a.pkey_index = 0;
  ibcore::IBPath reply = a.to_path();
  reply.reverse(true);
  EXPECT_EQ(ibcore::pkey_index_of(reply, iba::mgmt::PERF, port), 0);
  a.pkey_index = 4;
  reply = a.to_path();
  reply.reverse(true);
  EXPECT_EQ(ibcore::pkey_index_of(reply, iba::mgmt::PERF, port), 4);
}

}  // namespace
