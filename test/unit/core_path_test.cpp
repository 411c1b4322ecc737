// Paths: every addressing form of SPEC.md, malformed strings, repr round
// trips, reverse and timeouts.
#include <gtest/gtest.h>

#include "core/base/config.h"
#include "core/base/error.h"
#include "core/transport/path.h"
#include "iba/introspect.h"

using ibcore::IBPath;
using Form = IBPath::Form;

namespace {

struct Good {
  const char* in;
  Form form;
  const char* repr;
};

const Good GOOD[] = {
    {"12", Form::Auto, "IBPath(DLID=12)"},
    {"0xc", Form::Auto, "IBPath(DLID=12)"},
    {" 0xC ", Form::Auto, "IBPath(DLID=12)"},
    {"49151", Form::LID, "IBPath(DLID=49151)"},
    {"0002:c903:0000:1491", Form::Auto, "IBPath(DGID=fe80::2:c903:0:1491)"},
    {"0002:c903:0000:1491", Form::GUID, "IBPath(DGID=fe80::2:c903:0:1491)"},
    {"0x0002c90300001491", Form::GUID, "IBPath(DGID=fe80::2:c903:0:1491)"},
    {"fe80::2:c903:0:1491", Form::Auto, "IBPath(DGID=fe80::2:c903:0:1491)"},
    {"fe80::2:c903:0:1491%mlx4_0/1", Form::Auto, "IBPath(ca=mlx4_0,port=1,DGID=fe80::2:c903:0:1491)"},
    {"fe80::2:c903:0:1491%mlx4_0", Form::Auto, "IBPath(ca=mlx4_0,DGID=fe80::2:c903:0:1491)"},
    {"0,1,4", Form::Auto, "IBDRPath(drPath=0:1:4)"},
    {"0,", Form::Auto, "IBDRPath(drPath=0)"},
    {"0", Form::DR, "IBDRPath(drPath=0)"},
    {"0,1,4", Form::DR, "IBDRPath(drPath=0:1:4)"},
    {"IBPath(DLID=2,SL=2,pkey=0x7fff)", Form::Auto, "IBPath(DLID=2,SL=2,pkey=0x7fff)"},
    {"IBPath(DLID=0x2, SL=2)", Form::Auto, "IBPath(DLID=2,SL=2)"},
    {"IBDRPath(drPath=0:3:1,drSLID=0x5,drDLID=0x9,DLID=7)", Form::Auto,
     "IBDRPath(drPath=0:3:1,drSLID=0x5,drDLID=0x9,DLID=7)"},
    {"IBPath(DLID=3,has_grh=1)", Form::Auto, "IBPath(DLID=3,has_grh=1)"},
    {"IBPath(DGID=fe80::1,has_grh=0)", Form::Auto, "IBPath(DGID=fe80::1,has_grh=0)"},
};

const struct {
  const char* in;
  Form form;
} BAD[] = {
    {"", Form::Auto},
    {"abc", Form::Auto},
    {"0", Form::Auto},          // LID 0 is not a LID
    {"65535", Form::Auto},      // permissive, not unicast
    {"0xc000", Form::Auto},     // multicast
    {"70000", Form::Auto},
    {"12x", Form::Auto},
    {"-1", Form::Auto},
    {"0x0002c90300001491", Form::Auto},  // a GUID without -G is a LID: too big
    {"0,256", Form::Auto},
    {"0,1,,4", Form::Auto},
    {"0,0,1", Form::Auto},      // port 0 is not a hop
    {"0,a", Form::Auto},
    {"12", Form::DR},
    {"0,1", Form::LID},
    {"fe80::1", Form::LID},
    {"fe80::1", Form::GUID},
    {"12%mlx4_0", Form::Auto},
    {"fe80::1%", Form::Auto},
    {"fe80::1%mlx4_0/0", Form::Auto},
    {"fe80::1%mlx4_0/x", Form::Auto},
    {"fe80:::1", Form::Auto},
    {"0002:c903:0000", Form::GUID},
    {"IBPath(DLID=2", Form::Auto},
    {"IBPath(DLID)", Form::Auto},
    {"IBPath(bogus=1)", Form::Auto},
    {"IBPath(SL=16)", Form::Auto},
    {"IBPath(DLID=70000)", Form::Auto},
    {"IBPath(drPath=0:1)", Form::Auto},
    {"IBPath(DLID=2)", Form::LID},
};

}  // namespace

TEST(CorePath, EveryForm) {
  for (const auto& g : GOOD) {
    SCOPED_TRACE(g.in);
    IBPath p = IBPath::from_string(g.in, g.form);
    EXPECT_EQ(p.repr(), g.repr);
    EXPECT_EQ(IBPath::from_string(p.repr()), p);
  }
}

TEST(CorePath, Fields) {
  IBPath p = IBPath::from_string("0,1,4");
  ASSERT_TRUE(p.is_dr());
  EXPECT_EQ(p.hop_count(), 2u);
  EXPECT_EQ(p.drPath, (std::vector<uint8_t>{0, 1, 4}));
  EXPECT_EQ(p.drSLID, ibcore::LID_PERMISSIVE);
  EXPECT_EQ(p.dr_string(), "0,1,4");
  EXPECT_EQ(p.describe(), "DR path 0,1,4");
  IBPath l = IBPath::from_string("0x1f");
  EXPECT_FALSE(l.is_dr());
  EXPECT_EQ(l.DLID, 31);
  EXPECT_EQ(l.describe(), "lid 31");
  IBPath g = IBPath::from_string("0002:c903:0000:1491");
  EXPECT_TRUE(g.has_grh);
  EXPECT_EQ(g.DGID.prefix(), 0xfe80000000000000ull);
  EXPECT_EQ(g.DGID.guid(), 0x0002c90300001491ull);
  IBPath s = IBPath::from_string("fe80::2:c903:0:1491%mlx4_0/2");
  EXPECT_EQ(s.ca, "mlx4_0");
  EXPECT_EQ(s.port, 2);
}

TEST(CorePath, Malformed) {
  for (const auto& b : BAD) {
    SCOPED_TRACE(b.in);
    EXPECT_THROW(IBPath::from_string(b.in, b.form), ibcore::Error);
  }
  try {
    IBPath::from_string("abc");
    FAIL();
  } catch (const ibcore::Error& e) {
    EXPECT_NE(std::string(e.what()).find("abc"), std::string::npos) << e.what();
  }
}

TEST(CorePath, FullReprRoundTrip) {
  IBPath p;
  p.ca = "mlx5_1";
  p.port = 2;
  p.SLID = 5;
  p.DLID = 9;
  p.SL = 3;
  p.pkey = 0x8001;
  p.pkey_index = 4;
  p.qkey = 0x80010000;
  p.dqpn = 1;
  p.sqpn = 77;
  p.has_grh = true;
  p.SGID = *iba::parse_gid("fe80::1");
  p.DGID = *iba::parse_gid("fe80::2:3");
  p.traffic_class = 7;
  p.flow_label = 0x12345;
  p.hop_limit = 3;
  p.MTU = 4;
  p.rate = 7;
  p.packet_life_time = 18;
  p.resp_time = 19;
  p.retries = 5;
  p.mkey = 0x1122334455667788ull;
  p.smkey = 1;
  IBPath q = IBPath::from_string(p.repr());
  EXPECT_EQ(q, p) << p.repr() << " vs " << q.repr();
  p.drPath = {0, 2, 9};
  p.drSLID = 5;
  q = IBPath::from_string(p.repr());
  EXPECT_EQ(q, p) << p.repr() << " vs " << q.repr();
}

TEST(CorePath, Reverse) {
  IBPath p = IBPath::from_string("IBPath(SLID=1,DLID=2,sqpn=0,dqpn=1,DGID=fe80::9)");
  p.SGID = *iba::parse_gid("fe80::8");
  IBPath r = p;
  r.reverse(true);
  EXPECT_EQ(r.SLID, 2);
  EXPECT_EQ(r.DLID, 1);
  EXPECT_EQ(r.sqpn, 1u);
  EXPECT_EQ(r.dqpn, 0u);
  EXPECT_EQ(r.DGID, p.SGID);
  EXPECT_EQ(r.SGID, p.DGID);
  EXPECT_EQ(r.hop_limit, 255);
  r.reverse(false);
  r.hop_limit = p.hop_limit;
  EXPECT_EQ(r, p);
  IBPath d = IBPath::from_string("0,1,4,6");
  d.reverse();
  EXPECT_EQ(d.drPath, (std::vector<uint8_t>{0, 6, 4, 1}));
}

TEST(CorePath, Timeouts) {
  IBPath p;
  EXPECT_EQ(p.mad_timeout_ms(), 1000);
  p.packet_life_time = 18;  // 4.096us * 2^18 = 1073.7 ms
  p.resp_time = 8;          // 1.05 ms
  EXPECT_EQ(p.mad_timeout_ms(), 2148);
  p.packet_life_time = 0;
  p.resp_time = 0;
  EXPECT_EQ(p.mad_timeout_ms(), 100);  // floor
  EXPECT_EQ(p.mad_timeout_ms(250), 250);  // -t wins
  EXPECT_EQ(p.mad_timeout_ms(0), 100);
  EXPECT_NEAR(ibcore::iba_time_ms(10), 4.194304, 1e-6);
  EXPECT_EQ(p.mad_retries(3), 3);  // the port's --retries
  p.retries = 0;
  EXPECT_EQ(p.mad_retries(3), 0);
}
