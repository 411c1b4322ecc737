// core/base/regex: PCRE2 matching with Perl's captures, and Perl's numeric value
// of a string, as check_lft_balance (a Perl script in the reference) needs.
#include <gtest/gtest.h>

#include <cmath>

#include "core/base/error.h"
#include "core/base/regex.h"

using ibcore::Regex;

TEST(CoreRegex, GreedyCapturesAreThePerlOnes) {
  // The script's host line pattern: the greedy ".+" before " (.+) :" takes
  // as much as it can, so a name with " : (" in it still gives the port
  // word nearest the last " : (".
  Regex re(".+ (.+) : \\(.+ portguid .+: '(.+)'\\)");
  Regex::Match m;
  ASSERT_TRUE(re.search("0x0004 002 : (Channel Adapter portguid 0x0002c90300001111: 'H1 mlx5_0')", m));
  EXPECT_EQ(m.group(1), "002");
  EXPECT_EQ(m.group(2), "H1 mlx5_0");
  ASSERT_TRUE(re.search("0x0005 003 : (Channel Adapter portguid 0x1: 'a' : (b portguid 2: 'c')", m));
  EXPECT_EQ(m.group(1), "'a'");  // what perl -e prints for $1
  EXPECT_EQ(m.group(2), "c");
  EXPECT_FALSE(re.search("no match here"));
}

TEST(CoreRegex, UnsetGroupsAreUndef) {
  Regex re("a(x)?(b)");
  Regex::Match m;
  ASSERT_TRUE(re.search("zab", m));
  EXPECT_EQ(m.group(0), "ab");
  EXPECT_FALSE(m.group(1).has_value());
  EXPECT_EQ(m.group(2), "b");
  EXPECT_FALSE(m.group(7).has_value());
}

TEST(CoreRegex, BadPatternIsAnError) {
  try {
    Regex re("guid (.+");
    FAIL() << "no error";
  } catch (const ibcore::Error& e) {
    EXPECT_NE(std::string(e.what()).find("offset"), std::string::npos) << e.what();
  }
}

TEST(CoreRegex, PerlNumbers) {
  using ibcore::perl_number;
  EXPECT_EQ(perl_number(std::nullopt), 0);
  EXPECT_EQ(perl_number(std::string("")), 0);
  EXPECT_EQ(perl_number(std::string("abc")), 0);
  EXPECT_EQ(perl_number(std::string("  12abc")), 12);
  EXPECT_EQ(perl_number(std::string("-3.5e2x")), -350);
  EXPECT_EQ(perl_number(std::string("+.5")), 0.5);
  EXPECT_EQ(perl_number(std::string("7.")), 7);
  EXPECT_EQ(perl_number(std::string("1e")), 1);      // an exponent without digits is not taken
  EXPECT_EQ(perl_number(std::string("0x1A")), 0);    // no hex, unlike strtod
  EXPECT_EQ(perl_number(std::string("-Infinity")), -HUGE_VAL);
  EXPECT_EQ(perl_number(std::string("INF")), HUGE_VAL);
  EXPECT_TRUE(std::isnan(perl_number(std::string("nan"))));
  EXPECT_EQ(perl_number(std::string("002")), 2);
}
