// core/rpc/target: parsing of target arguments under the legacy flags and the
// header strings smpquery prints for each kind of destination.
#include <gtest/gtest.h>

#include "core/base/error.h"
#include "core/rpc/target.h"

using ibcore::IBPath;
using ibcore::TargetForm;

TEST(TargetParse, FormsDecideTheType) {
  EXPECT_EQ(ibcore::parse_target("12", {}).DLID, 12);
  EXPECT_EQ(ibcore::parse_target("0xc", {}).DLID, 12);
  IBPath dr = ibcore::parse_target("0,1,4", {});
  EXPECT_EQ(dr.drPath, (std::vector<uint8_t>{0, 1, 4}));
  IBPath g = ibcore::parse_target("0002:c903:0000:1491", {});
  EXPECT_TRUE(g.has_grh);
  EXPECT_EQ(g.DGID.guid(), 0x0002c90300001491ull);
  EXPECT_EQ(g.DLID, 0);
}

TEST(TargetParse, LegacyFlagsForceAndReject) {
  TargetForm guid{.form = IBPath::Form::GUID};
  EXPECT_EQ(ibcore::parse_target("0x100001", guid).DGID.guid(), 0x100001ull);
  TargetForm lid{.form = IBPath::Form::LID};
  EXPECT_THROW(ibcore::parse_target("0,1", lid), ibcore::Error);
  EXPECT_THROW(ibcore::parse_target("0002:c903:0000:1491", lid), ibcore::Error);
  TargetForm dr{.form = IBPath::Form::DR};
  EXPECT_EQ(ibcore::parse_target("0", dr).drPath, (std::vector<uint8_t>{0}));
  EXPECT_THROW(ibcore::parse_target("abc", {}), ibcore::Error);
}

TEST(TargetParse, CombinedRoute) {
  TargetForm c{.combined = true};
  IBPath p = ibcore::parse_target("6", c, "0,12");
  EXPECT_EQ(p.DLID, 6);
  EXPECT_EQ(p.drPath, (std::vector<uint8_t>{0, 12}));
  EXPECT_EQ(p.drSLID, 0);  // filled with our LID when resolved
  EXPECT_THROW(ibcore::parse_target("0,1", c, "0,12"), ibcore::Error);
  EXPECT_THROW(ibcore::parse_target("6", c, "x"), ibcore::Error);
}

TEST(TargetParse, PortidStrMatchesTheReferenceHeaders) {
  EXPECT_EQ(ibcore::portid_str(ibcore::parse_target("2", {})), "Lid 2");
  EXPECT_EQ(ibcore::portid_str(ibcore::parse_target("0,1,3", {})), "DR path slid 65535; dlid 65535; 0,1,3");
  EXPECT_EQ(ibcore::portid_str(ibcore::parse_target("0", {.form = IBPath::Form::DR})),
            "DR path slid 65535; dlid 65535; 0");
  IBPath c = ibcore::parse_target("2", {.combined = true}, "0,3");
  c.drSLID = 1;
  EXPECT_EQ(ibcore::portid_str(c), "Lid 2 DR path slid 1; dlid 65535; 0,3");
}
