// Generic checks over every registered GMP structure (formats, attributes
// and attribute variants of every class in gmp_classes()): fields lie inside the
// structure and do not overlap, every leaf survives print -> parse, and the
// class tables are consistent.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "iba/introspect.h"
#include "iba/mad.h"

using namespace iba;

namespace {

std::vector<const StructDesc*> all_gmp_structs() {
  std::vector<const StructDesc*> v;
  std::set<const StructDesc*> seen;
  for (const ClassDesc* c : gmp_classes()) {
    if (seen.insert(c->format).second) v.push_back(c->format);
    for (const auto& a : c->attrs)
      if (seen.insert(a.desc).second) v.push_back(a.desc);
    for (const auto& a : c->variants)
      if (seen.insert(a.desc).second) v.push_back(a.desc);
  }
  return v;
}

void fill_random(const StructDesc& d, uint8_t* buf, std::mt19937_64& rng) {
  for (uint32_t i = 0; i < d.size; ++i) buf[i] = uint8_t(rng());
  // Strings must be printable to survive print -> parse; reserved space zero.
  for (const auto& l : leaves(d, true)) {
    const FieldDesc& f = *l.field;
    if (f.kind == Kind::Rsv) set_bits(buf, l.bit_off, f.total_bits() > 64 ? 0 : f.total_bits(), 0);
    if (f.kind == Kind::Rsv && f.total_bits() > 64) std::memset(buf + l.bit_off / 8, 0, f.total_bits() / 8);
    if (f.kind == Kind::Str)
      for (uint32_t k = 0; k < f.total_bits() / 8; ++k) buf[l.bit_off / 8 + k] = uint8_t('a' + rng() % 26);
  }
}

}  // namespace

TEST(GmpRoundTrip, ClassesAreRegistered) {
  std::set<uint8_t> classes;
  for (const ClassDesc* c : gmp_classes()) {
    classes.insert(c->mgmt_class);
    EXPECT_EQ(c->format->size, MAD_SIZE) << c->name;
    EXPECT_LE(c->data_off + c->data_size, MAD_SIZE) << c->name;
    EXPECT_FALSE(c->attrs.empty()) << c->name;
    for (const auto& a : c->attrs) {
      EXPECT_NE(a.methods, 0u) << c->name << " " << a.desc->name;
      // CongestionLog alone starts early in the CC MAD (CC_LOG_DATA_OFF).
      uint32_t room = c->mgmt_class == mgmt::CC && a.id == 0x13 ? MAD_SIZE - 32 : c->data_size;
      EXPECT_LE(a.desc->size, room) << c->name << " " << a.desc->name;
      EXPECT_EQ(find_attr(*c, a.desc->name), &a);
    }
    EXPECT_EQ(find_class(c->mgmt_class, c->class_version), c);
  }
  for (uint8_t m : {mgmt::SUBN_ADM, mgmt::PERF, mgmt::CC, mgmt::DEV_MGT, mgmt::BM, mgmt::SNMP, mgmt::COM_MGT,
                    mgmt::OFA_VENDOR})
    EXPECT_TRUE(classes.count(m)) << int(m);
  const ClassDesc* sa = find_class(mgmt::SUBN_ADM);
  ASSERT_TRUE(sa);
  auto* pr = find_attr(*sa, uint16_t(0x35));
  ASSERT_TRUE(pr);
  EXPECT_STREQ(pr->desc->name, "SAPathRecord");
  EXPECT_TRUE(pr->methods & M_GET_TABLE);
  auto* nr = find_attr(*sa, "sanoderecord");
  ASSERT_TRUE(nr);
  EXPECT_EQ(nr->id, 0x11);
}

TEST(GmpRoundTrip, FieldsInsideAndDisjoint) {
  for (const StructDesc* d : all_gmp_structs()) {
    std::vector<int> owner(d->size * 8, -1);
    auto ls = leaves(*d, true);
    for (size_t i = 0; i < ls.size(); ++i) {
      uint32_t bits = ls[i].field->total_bits();
      ASSERT_LE(ls[i].bit_off + bits, d->size * 8) << d->name << "." << ls[i].path;
      for (uint32_t b = ls[i].bit_off; b < ls[i].bit_off + bits; ++b) {
        // A later IBA field declared inside a reserved one (iba/struct.h)
        // is part of it, and of its SA component.
        if (owner[b] >= 0 && ls[size_t(owner[b])].field->kind == Kind::Rsv &&
            ls[size_t(owner[b])].component == ls[i].component)
          continue;
        EXPECT_EQ(owner[b], -1) << d->name << "." << ls[i].path << " overlaps "
                                << (owner[b] >= 0 ? ls[size_t(owner[b])].path : "") << " at bit " << b;
        if (owner[b] != -1) break;
        owner[b] = int(i);
      }
    }
  }
}

TEST(GmpRoundTrip, EveryLeafPrintsAndParsesBack) {
  std::mt19937_64 rng(42);
  for (const StructDesc* d : all_gmp_structs()) {
    std::vector<uint8_t> a(d->size), b(d->size, 0);
    fill_random(*d, a.data(), rng);
    for (const auto& l : leaves(*d)) {
      std::string text = format_value(l, a.data()), err;
      // Strings print quoted; the parser takes the bare text.
      if (l.field->kind == Kind::Str && text.size() >= 2) text = text.substr(1, text.size() - 2);
      // Arrays print as [a,b,...]; the parser takes a,b,...
      if (l.field->count > 1 && l.field->kind != Kind::Bytes && text.size() >= 2 && text.front() == '[')
        text = text.substr(1, text.size() - 2);
      ASSERT_TRUE(set_from_text(l, b.data(), text, &err)) << d->name << "." << l.path << " '" << text << "': " << err;
    }
    EXPECT_EQ(a, b) << d->name;
    // And through the name: find_field resolves every leaf path.
    for (const auto& l : leaves(*d)) {
      auto r = find_field(*d, l.path);
      ASSERT_TRUE(r) << d->name << "." << l.path;
      EXPECT_EQ(r->bit_off, l.bit_off);
    }
  }
}
