// saquery's layouts (iba/refprint_sa.h): every row names a field of its
// record, and a few records built field by field print as the reference
// saquery prints them (byte for byte; the conformance rows compare whole
// outputs against the reference on a live fabric).
#include <gtest/gtest.h>

#include "iba/introspect.h"
#include "iba/refprint_sa.h"
#include "iba/sa.h"

using namespace iba;

TEST(RefPrintSa, EveryLayoutRowNamesAField) {
  for (const StructDesc* d :
       {&SANodeRecord::DESC, &SAPortInfoRecord::DESC, &SASLToVLMappingTableRecord::DESC,
        &SAVLArbitrationTableRecord::DESC, &SALinkRecord::DESC, &SAPathRecord::DESC, &SAMCMemberRecord::DESC,
        &SALinearForwardingTableRecord::DESC, &SAMulticastForwardingTableRecord::DESC, &SAGUIDInfoRecord::DESC,
        &SASwitchInfoRecord::DESC, &SASMInfoRecord::DESC, &MADClassPortInfo::DESC, &SAServiceRecord::DESC,
        &SAInformInfoRecord::DESC, &SAPKeyTableRecord::DESC}) {
    for (bool keys : {false, true}) {
      const ref::SaLayout* l = ref::sa_layout(*d, {.show_keys = keys});
      ASSERT_TRUE(l) << d->name;
      for (const auto& line : l->lines)
        if (line.field) {
          EXPECT_TRUE(find_field(*d, line.field)) << d->name << "." << line.field;
        }
      std::vector<uint8_t> zero(d->size, 0);
      EXPECT_NO_THROW(ref::sa_dump(*d, zero.data(), *l)) << d->name;
    }
  }
  for (const ref::SaLayout* l : {&ref::SA_ISSM, &ref::SA_MC_GROUP, &ref::SA_MC_MEMBER})
    for (const auto& line : l->lines)
      EXPECT_TRUE(find_field(l == &ref::SA_ISSM ? SAPortInfoRecord::DESC : SAMCMemberRecord::DESC, line.field))
          << line.field;
  EXPECT_FALSE(ref::sa_layout(SATraceRecord::DESC));
  EXPECT_THROW(ref::sa_print(SATraceRecord::DESC, std::span<const uint8_t>{}), std::invalid_argument);
}

TEST(RefPrintSa, GUIDInfoRecord) {
  SAGUIDInfoRecord r;
  r.set_LID(4).set_blockNum(0);
  SMPGUIDInfo g;
  set_guid_at(g, 0, 0x100004);
  set_guid_at(g, 3, 0x0002c9030000ab01);
  r.set_GUIDInfo(g);
  EXPECT_EQ(ref::sa_print(r),
            "GUIDInfo Record dump:\n"
            "\t\tLID........................4\n"
            "\t\tBlock......................0\n"
            "\t\tGUID 0.....................0x0000000000100004\n"
            "\t\tGUID 1.....................0x0000000000000000\n"
            "\t\tGUID 2.....................0x0000000000000000\n"
            "\t\tGUID 3.....................0x0002c9030000ab01\n"
            "\t\tGUID 4.....................0x0000000000000000\n"
            "\t\tGUID 5.....................0x0000000000000000\n"
            "\t\tGUID 6.....................0x0000000000000000\n"
            "\t\tGUID 7.....................0x0000000000000000\n");
}

TEST(RefPrintSa, SMInfoKeysHiddenUnlessAsked) {
  SASMInfoRecord r;
  r.set_LID(1);
  SMPSMInfo s;
  s.set_GUID(0x100001).set_SMKey(0x1234).set_priority(3).set_SMState(3);
  r.set_SMInfo(s);
  std::string hidden = ref::sa_print(r), shown = ref::sa_print(r, {.show_keys = true});
  EXPECT_EQ(hidden,
            "SMInfoRecord dump:\n\t\tRID\n\t\tLID...................1\n\t\tSMInfo dump:\n"
            "\t\tGUID..................0x0000000000100001\n"
            "\t\tSM_Key................0x0000000000000000\n"
            "\t\tActCount..............0\n"
            "\t\tPriority..............3\n"
            "\t\tSMState...............3\n");
  EXPECT_NE(shown.find("SM_Key................0x0000000000001234\n"), std::string::npos);
}

TEST(RefPrintSa, PathRecordPrintsSelectorsWithValues) {
  SAPathRecord p;
  p.set_DLID(4).set_SLID(1).set_MTUSelector(2).set_MTU(4).set_rateSelector(2).set_rate(3);
  p.set_packetLifeTimeSelector(2).set_packetLifeTime(0x12).set_PKey(0xffff).set_reversible(1).set_numbPath(1);
  sa_set_service_id(p, 0x1122334455667788ull);
  std::string s = ref::sa_print(p);
  EXPECT_NE(s.find("\t\tservice_id..............0x1122334455667788\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\t\tmtu.....................0x84\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\t\trate....................0x83\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\t\tpkt_life................0x92\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\t\tnum_path_revers.........0x81\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\t\tpkey....................0xFFFF\n"), std::string::npos) << s;
}
