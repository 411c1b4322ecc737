#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>

#include "iba/hdr.h"
#include "iba/introspect.h"
#include "iba/mad.h"
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

// --- generic checks over every registered structure ---------------------------
namespace {

void collect_structs(const StructDesc& d, std::set<const StructDesc*>& out) {
  if (!out.insert(&d).second) return;
  for (const auto& f : d.field_list())
    if (f.kind == Kind::Struct) collect_structs(*f.sub, out);
}

std::set<const StructDesc*> all_structs() {
  std::set<const StructDesc*> s;
  for (const ClassDesc* c : all_classes()) {
    collect_structs(*c->format, s);
    for (const auto& a : c->attrs) collect_structs(*a.desc, s);
    for (const auto& a : c->variants) collect_structs(*a.desc, s);
  }
  for (const StructDesc* d : {&HdrLRH::DESC, &HdrGRH::DESC, &HdrBTH::DESC, &HdrDETH::DESC, &HdrRDETH::DESC,
                              &HdrRETH::DESC, &HdrAETH::DESC, &HdrAtomicETH::DESC, &HdrAtomicAckETH::DESC,
                              &HdrImmDt::DESC, &HdrIETH::DESC, &NoticeTrap64::DESC, &NoticeTrap128::DESC,
                              &NoticeTrap129::DESC, &NoticeTrap144::DESC, &NoticeTrap145::DESC,
                              &NoticeTrap256::DESC, &NoticeTrap257::DESC, &NoticeTrap259::DESC})
    collect_structs(*d, s);
  return s;
}

}  // namespace

// Fields are in order, do not overlap, lie inside the structure and (with
// the reserved ones) cover every bit of it; the only overlap is a later IBA
// field declared inside the reserved field before it (struct.h).
TEST(IbaStructAll, FieldsTileTheStructure) {
  for (const StructDesc* d : all_structs()) {
    SCOPED_TRACE(d->name);
    uint32_t next = 0, rsv_lo = 0, rsv_hi = 0, inner = 0;
    for (const auto& f : d->field_list()) {
      if (f.kind != Kind::Rsv && rsv_hi > rsv_lo && f.bit_off >= rsv_lo && f.bit_off + f.total_bits() <= rsv_hi) {
        EXPECT_GE(f.bit_off, inner) << f.name << " overlaps the field before it inside " << rsv_lo;
        inner = f.bit_off + f.total_bits();
        continue;
      }
      rsv_lo = rsv_hi = 0;
      if (f.kind == Kind::Rsv) {
        rsv_lo = inner = f.bit_off;
        rsv_hi = f.bit_off + f.total_bits();
      }
      EXPECT_EQ(f.bit_off, next) << f.name << " (gap or overlap before it)";
      EXPECT_GT(f.width, 0u) << f.name;
      if (f.kind == Kind::Struct) {
        EXPECT_EQ(f.width, f.sub->size * 8) << f.name;
      }
      next = f.bit_off + f.total_bits();
    }
    EXPECT_EQ(next, d->size * 8) << "fields do not end at the structure's end";
  }
}

// Pack -> unpack: every non-reserved leaf printed as text and parsed back
// into a zeroed buffer rebuilds the same bytes outside reserved space.
TEST(IbaStructAll, TextRoundTripOfEveryLeaf) {
  std::mt19937 rng(99);
  for (const StructDesc* d : all_structs()) {
    SCOPED_TRACE(d->name);
    std::vector<uint8_t> a(d->size), b(d->size, 0), rsv(d->size, 0);
    for (auto& c : a) c = uint8_t(rng());
    auto all = leaves(*d, true);
    for (const auto& l : all) {
      if (l.field->kind == Kind::Rsv) {
        for (uint32_t i = 0; i < l.width(); ++i) set_bits(rsv.data(), l.bit_off + i, 1, 1);
        continue;
      }
      if (l.field->kind == Kind::Str) {  // strings stop at a NUL: use printable text
        for (uint32_t i = 0; i < l.width() / 8; ++i) a[l.bit_off / 8 + i] = uint8_t('a' + rng() % 26);
      }
    }
    for (const auto& l : all) {
      if (l.field->kind == Kind::Rsv) continue;
      std::string text = format_value(l, a.data()), err;
      if (l.field->kind == Kind::Str) text = text.substr(1, text.size() - 2);  // unquote
      if (l.field->kind == Kind::Struct && l.field->count > 1) {
        // Arrays of structures print as {..} lists: copy them as bytes.
        std::memcpy(b.data() + l.bit_off / 8, a.data() + l.bit_off / 8, l.width() / 8);
        continue;
      }
      if (l.field->count > 1 && text.size() > 1 && text.front() == '[') text = text.substr(1, text.size() - 2);
      EXPECT_TRUE(set_from_text(l, b.data(), text, &err)) << l.path << ": " << err << " text " << text;
    }
    // Reserved bits inside arrays of structures were copied with them.
    for (size_t i = 0; i < a.size(); ++i) {
      uint8_t m = uint8_t(~rsv[i]);
      EXPECT_EQ(a[i] & m, b[i] & m) << "byte " << i;
    }
  }
}

// The typed accessors and the field table agree (one field of each kind).
TEST(IbaStructAll, AccessorsMatchTable) {
  SMPPortInfo p;
  p.set_LMC(5).set_linkSpeedExtEnabled(30).set_capabilityMask2(0x30).set_MKey(0x1122334455667788ull);
  EXPECT_EQ(get_uint(*find_field(SMPPortInfo::DESC, "LMC"), p.raw()), 5u);
  EXPECT_EQ(get_uint(*find_field(SMPPortInfo::DESC, "linkSpeedExtEnabled"), p.raw()), 30u);
  EXPECT_EQ(p.buf[63], 30);
  EXPECT_EQ(p.buf[60], 0x00);
  EXPECT_EQ(p.buf[61], 0x30);
  EXPECT_EQ(p.buf[0], 0x11);
  SMPVLArbitrationTable v;
  v.set_VLWeightBlock(3, SMPVLArbitrationEntry().set_VL(7).set_weight(200));
  EXPECT_EQ(v.buf[6], 7);
  EXPECT_EQ(v.buf[7], 200);
  HdrBTH bth;
  bth.set_opcode(0x64).set_PKey(0xffff).set_destQP(1).set_PSN(0xabcdef);
  EXPECT_EQ(bth.buf[0], 0x64);
  EXPECT_EQ(bth.buf[7], 1);
  EXPECT_EQ(bth.buf[11], 0xef);
}

// Structures are written {name=value,...}, alone or in arrays.
TEST(IbaIntrospect, StructValuesFromText) {
  SMPVLArbitrationTable v;
  std::string err;
  auto e = find_field(SMPVLArbitrationTable::DESC, "VLWeightBlock[3]", &err);
  ASSERT_TRUE(e) << err;
  EXPECT_TRUE(set_from_text(*e, v.raw(), "{VL=7,weight=200}", &err)) << err;
  EXPECT_EQ(v.VLWeightBlock(3).VL(), 7u);
  EXPECT_EQ(v.VLWeightBlock(3).weight(), 200u);
  auto all = find_field(SMPVLArbitrationTable::DESC, "VLWeightBlock", &err);
  EXPECT_TRUE(set_from_text(*all, v.raw(), "[{VL=1,weight=2},{VL=3,weight=4}]", &err)) << err;
  EXPECT_EQ(v.VLWeightBlock(1).weight(), 4u);
  EXPECT_FALSE(set_from_text(*e, v.raw(), "{VL=7,nosuch=1}", &err));
  EXPECT_NE(err.find("nosuch"), std::string::npos) << err;
  EXPECT_FALSE(set_from_text(*e, v.raw(), "{VL=77}", &err));
}
