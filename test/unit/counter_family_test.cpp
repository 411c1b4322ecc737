// The counter families (core/health/counters.h): constant tables worked
// out at compile time from iba/pm.h's declarations.  Each counter's JSON
// name, saturation value and value must be what the declaration of its
// field says, looked up the slow way (iba::find_field, case-insensitive, as
// the families were built at start-up before); and the tables must be
// constants that cost nothing at start-up and have nothing to destroy at exit.
#include <gtest/gtest.h>

#include <type_traits>

#include "core/health/counters.h"
#include "iba/introspect.h"
#include "iba/pm.h"

namespace {

using ibcore::health::CounterFamily;
using ibcore::health::DATA_COUNTERS;
using ibcore::health::ERROR_COUNTERS;

// Constant-initialized, with no destructor: no static constructor runs at
// start-up and none of it is torn down at exit, while the exporter's
// threads may still read it.
static_assert(std::is_trivially_destructible_v<CounterFamily>);
constexpr uint64_t kSymbolMax = ERROR_COUNTERS.max(ibcore::health::SymbolErrorCounter);
static_assert(kSymbolMax == 0xffff);
static_assert(DATA_COUNTERS.max(ibcore::health::PortUnicastXmitPkts) == ~uint64_t(0));

// Every counter of a family against the declarations: fill each structure
// with a distinct value per field and read it back through the family.
void expect_matches_declarations(const CounterFamily& fam) {
  iba::PMPortCounters pc;
  iba::PMPortCountersExtended ext;
  for (int i = 0; i < fam.size(); ++i) {
    SCOPED_TRACE(fam.name(i));
    std::optional<iba::FieldRef> a = iba::find_field(iba::PMPortCounters::DESC, fam.name(i));
    std::optional<iba::FieldRef> b = iba::find_field(iba::PMPortCountersExtended::DESC, fam.name(i));
    ASSERT_TRUE(a || b) << "no PM field";
    const iba::FieldRef& r = a ? *a : *b;
    EXPECT_STREQ(fam.field(i), r.field->name.c_str());
    EXPECT_EQ(fam.max(i), r.width() >= 64 ? ~uint64_t(0) : (uint64_t(1) << r.width()) - 1);
    EXPECT_EQ(fam.index(fam.name(i)), i);
    uint64_t v = 0x0123456789abcdefull + uint64_t(i) * 0x1111;
    if (a) iba::set_bits(pc.raw(), a->bit_off, a->width(), v);
    if (b) iba::set_bits(ext.raw(), b->bit_off, b->width(), v + 1);
    EXPECT_EQ(fam.value(pc, i), a ? v & fam.max(i) : 0);
    auto ext_max = b && b->width() < 64 ? (uint64_t(1) << b->width()) - 1 : ~uint64_t(0);
    EXPECT_EQ(fam.value(ext, i), b ? (v + 1) & ext_max : 0);
  }
  EXPECT_STREQ(fam.name(fam.size()), "?");
  EXPECT_STREQ(fam.field(-1), "?");
  EXPECT_EQ(fam.index("NoSuchCounter"), -1);
}

TEST(CounterFamily, ErrorCountersAreTheDeclaredFields) {
  ASSERT_EQ(ERROR_COUNTERS.size(), ibcore::health::N_ERR);
  expect_matches_declarations(ERROR_COUNTERS);
  // The reference's names, and iba/pm.h's for --json.
  EXPECT_STREQ(ERROR_COUNTERS.name(ibcore::health::VL15Dropped), "VL15Dropped");
  EXPECT_STREQ(ERROR_COUNTERS.field(ibcore::health::SymbolErrorCounter), "symbolErrorCounter");
  EXPECT_EQ(ERROR_COUNTERS.max(ibcore::health::LocalLinkIntegrityErrors), 0xfu);
}

TEST(CounterFamily, DataCountersAreTheDeclaredFields) {
  ASSERT_EQ(DATA_COUNTERS.size(), ibcore::health::N_DATA);
  expect_matches_declarations(DATA_COUNTERS);
  // The 4 PortCounters has, and the 4 only PortCountersExtended has (their
  // field and width are its).
  EXPECT_EQ(DATA_COUNTERS.max(ibcore::health::PortXmitData), 0xffffffffu);
  EXPECT_STREQ(DATA_COUNTERS.field(ibcore::health::PortMulticastRcvPkts), "portMulticastRcvPkts");
  iba::PMPortCounters pc;
  EXPECT_EQ(DATA_COUNTERS.value(pc, ibcore::health::PortUnicastXmitPkts), 0u);
}

}  // namespace
