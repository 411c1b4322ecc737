// print_finding (core/health/json_health): one description of a finding
// gives health::describe()'s line as text and the finding's object as JSON.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/health/json_health.h"
#include "test/unit/mem_file.h"
#include "test/unit/subnet_test_fabric.h"

namespace {

namespace H = ibcore::health;

std::string text_of(const ibcore::Subnet& db, const H::Finding& f, const ibcore::NodeNameMap& map) {
  testutil::MemFile m;
  {
    ibcore::Printer p(m.f, false, false);
    print_finding(p, db, f, map);
    p.finish();
  }
  return m.text();
}

std::string json_of(const ibcore::Subnet& db, const H::Finding& f, const ibcore::NodeNameMap& map) {
  testutil::MemFile m;
  {
    ibcore::Printer p(m.f, true, false);
    print_finding(p, db, f, map);
    p.finish();
  }
  return m.text();
}

TEST(PrintFinding, TextIsDescribeAndJsonHasTheFindingsFacts) {
  auto fab = TestFabric::two_switches();
  const auto& db = fab.db;
  ibcore::NodeNameMap map = ibcore::NodeNameMap::open("");
  H::Finding port = H::make_finding(db, 0, 1, "link down");
  port.lid = 7;
  H::Finding counter = H::make_finding(db, 2, 1, "SymbolErrorCounter exceeds threshold");
  counter.check = "counter";
  counter.field = "symbolErrorCounter";
  counter.numeric = true;
  counter.value = 12;
  counter.threshold = 10;
  counter.threshold_set = true;
  counter.detail = "more";
  H::Finding state = H::make_finding(db, 1, 2, "port state Init");
  state.check = "portState";
  state.field = "portState";
  state.value_name = "Init";
  state.expected = "Active";
  state.fact("portPhysicalState", "LinkUp").fact("lids", uint64_t(3));
  H::Finding subnet;
  subnet.what = "no SM found";
  for (const H::Finding& f : {port, counter, state, subnet}) {
    std::string name = f.node == ibcore::NO_INDEX ? "" : db.node(f.node).description();
    EXPECT_EQ(text_of(db, f, map), H::describe(db, f, name) + "\n");
  }
  EXPECT_EQ(json_of(db, port, map), R"({"nodeGUID":"0x0000000000200000","name":"Switch1","nodeDescription":"Switch1","portNum":1,"LID":7,"finding":"link down"})" "\n");
  EXPECT_EQ(json_of(db, counter, map), R"({"nodeGUID":"0x0000000000100000","name":"Hca1","nodeDescription":"Hca1","portNum":1,"LID":2,)"
            R"("finding":"SymbolErrorCounter exceeds threshold","check":"counter","field":"symbolErrorCounter",)"
            R"("value":12,"threshold":10,"saturated":false,"detail":"more"})" "\n");
  EXPECT_EQ(json_of(db, state, map), R"({"nodeGUID":"0x0000000000200001","name":"Switch2","nodeDescription":"Switch2","portNum":2,"LID":3,)"
            R"("finding":"port state Init","check":"portState","field":"portState","value":"Init","expected":"Active",)"
            R"("portPhysicalState":"LinkUp","lids":3})" "\n");
  EXPECT_EQ(json_of(db, subnet, map), R"({"finding":"no SM found"})" "\n");
  // -v: the detail on a line of its own.
  testutil::MemFile m;
  {
    ibcore::Printer p(m.f, false, false);
    print_finding(p, db, counter, map, true);
    p.finish();
  }
  EXPECT_EQ(m.text(), H::describe(db, counter, db.node(counter.node).description()) + "\n    more\n");
  EXPECT_EQ(text_of(db, port, map), "\"Switch1\" (0x0000000000200000) port 1 lid 7: link down\n");
}

}  // namespace
