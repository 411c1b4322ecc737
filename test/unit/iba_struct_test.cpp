#include <gtest/gtest.h>

#include "iba/introspect.h"
#include "iba/smp.h"

using namespace iba;

TEST(IbaStruct, TypedAccessorsUseNetworkOrder) {
  SMPNodeInfo ni;
  ni.set_nodeType(2).set_numPorts(36).set_nodeGUID(0x0002c90300001491ull).set_vendorID(0x2c9);
  EXPECT_EQ(ni.buf[2], 2);
  EXPECT_EQ(ni.buf[3], 36);
  EXPECT_EQ(ni.buf[12], 0x00);
  EXPECT_EQ(ni.buf[13], 0x02);
  EXPECT_EQ(ni.buf[19], 0x91);
  EXPECT_EQ(ni.nodeGUID(), 0x0002c90300001491ull);
  EXPECT_EQ(ni.vendorID(), 0x2c9u);
  EXPECT_EQ(ni.buf[37], 0x00);
  EXPECT_EQ(ni.buf[38], 0x02);
  EXPECT_EQ(ni.buf[39], 0xc9);
}

TEST(IbaStruct, UnalignedBits) {
  uint8_t b[4] = {};
  set_bits(b, 3, 7, 0x55);
  EXPECT_EQ(get_bits(b, 3, 7), 0x55u);
  EXPECT_EQ(b[0], 0x15);
  EXPECT_EQ(b[1], 0x40);
  set_bits(b, 3, 7, 0);
  EXPECT_EQ(b[0] | b[1], 0);
}

TEST(IbaIntrospect, GetSetByName) {
  SMPNodeInfo ni;
  std::string err;
  auto r = find_field(SMPNodeInfo::DESC, "nodeguid", &err);
  ASSERT_TRUE(r) << err;
  EXPECT_TRUE(set_from_text(*r, ni.raw(), "0002:c903:0000:1491", &err)) << err;
  EXPECT_EQ(ni.nodeGUID(), 0x0002c90300001491ull);
  EXPECT_EQ(format_value(*r, ni.raw()), "0002:c903:0000:1491");
  EXPECT_FALSE(find_field(SMPNodeInfo::DESC, "nosuch", &err));
  EXPECT_NE(err.find("nodeGUID"), std::string::npos);
  auto n = find_field(SMPNodeInfo::DESC, "numPorts");
  EXPECT_FALSE(set_from_text(*n, ni.raw(), "256", &err));
  EXPECT_TRUE(set_from_text(*n, ni.raw(), "0x24", &err));
  EXPECT_EQ(ni.numPorts(), 36u);
}

TEST(IbaIntrospect, NestedAndComponentMask) {
  SMPFormat f;
  auto r = find_field(SMPFormat::DESC, "hdr.attributeID");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bit_off, 128u);
  EXPECT_EQ(r->component, 7u);  // 7th leaf, the reserved word counted
  EXPECT_TRUE(set_from_text(*r, f.raw(), "0x11"));
  EXPECT_EQ(f.hdr().attributeID(), 0x11u);
}
