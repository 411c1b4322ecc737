// ibdiag.conf, the reference's config file: what each key sets and what is
// ignored (as the reference ignores it).
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/base/config.h"
#include "core/base/textfile.h"

namespace {

TEST(IbdiagConf, EveryKeySetsItsSetting) {
  ibcore::Config c;
  ibcore::parse_ibdiag_conf(
      "# comment\n  CA = mlx5_1 \nPort=2\ntimeout=0x20\nMLX_EPI=false\nm_key=0x1234567890abcdef\nsa_key=010\n", c);
  EXPECT_EQ(c.ca, "mlx5_1");
  EXPECT_EQ(c.port, 2);
  EXPECT_EQ(c.timeout_ms, 32);
  EXPECT_FALSE(c.mlx_epi);
  ASSERT_TRUE(c.mkey.has_value());
  EXPECT_EQ(*c.mkey, 0x1234567890abcdefULL);
  ASSERT_TRUE(c.smkey.has_value());
  EXPECT_EQ(*c.smkey, 8u);  // base 0: a leading 0 is octal
}

TEST(IbdiagConf, BadValuesAndUnknownLinesLeaveTheDefaults) {
  ibcore::Config c;
  ibcore::parse_ibdiag_conf("Port=-1\ntimeout=99999999999\nm_key=zz\nnot a setting\nretries=9\n=\nsa_key=\n", c);
  EXPECT_EQ(c.port, 0);
  EXPECT_EQ(c.timeout_ms, 0);
  EXPECT_FALSE(c.mkey.has_value());
  EXPECT_FALSE(c.smkey.has_value());
  EXPECT_TRUE(c.mlx_epi);
  EXPECT_TRUE(c.ca.empty());
}

TEST(IbdiagConf, CompatFromTheFileThenTheEnvironment) {
  ibcore::Config c;
  EXPECT_EQ(c.compat, iba::ref::Compat::Diags44);
  ibcore::parse_ibdiag_conf("compat = current\n", c);
  EXPECT_EQ(c.compat, iba::ref::Compat::Current);
  ibcore::parse_ibdiag_conf("compat=45\n", c);  // ignored, as the reference ignores bad values
  EXPECT_EQ(c.compat, iba::ref::Compat::Current);
  ::setenv("IBTOOL_COMPAT", "44", 1);
  EXPECT_EQ(ibcore::apply_environment(c), "");
  EXPECT_EQ(c.compat, iba::ref::Compat::Diags44);
  ::setenv("IBTOOL_COMPAT", "newest", 1);
  EXPECT_EQ(ibcore::apply_environment(c), "IBTOOL_COMPAT: 'newest' is not one of 44, current");
  ::setenv("IBTOOL_COMPAT", "", 1);  // empty: as unset
  c.compat = iba::ref::Compat::Current;
  EXPECT_EQ(ibcore::apply_environment(c), "");
  EXPECT_EQ(c.compat, iba::ref::Compat::Current);
  ::unsetenv("IBTOOL_COMPAT");
}

TEST(ParseNumber, StrtoullBaseZeroWithNothingAfter) {
  uint64_t v = 0;
  EXPECT_TRUE(ibcore::parse_number("0x10", v));
  EXPECT_EQ(v, 16u);
  EXPECT_TRUE(ibcore::parse_number("010", v));
  EXPECT_EQ(v, 8u);
  EXPECT_TRUE(ibcore::parse_number("18446744073709551615", v));
  EXPECT_EQ(v, UINT64_MAX);
  EXPECT_FALSE(ibcore::parse_number("18446744073709551616", v));
  EXPECT_FALSE(ibcore::parse_number("-1", v));
  EXPECT_FALSE(ibcore::parse_number("", v));
  EXPECT_FALSE(ibcore::parse_number("12abc", v));
  EXPECT_FALSE(ibcore::parse_number("0x", v));
}

}  // namespace
