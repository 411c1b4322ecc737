// dump_fts reads every switch's linear forwarding table during the discovery
// walk (core/fabric/discovery.h read_lft) and prints each switch as soon as its
// table and those before it are in.  Under faults the dump must stay the
// reference's: ports dropping 10% of the MADs (table blocks included) give
// the same output through resends, in bounded time.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test/integration/ibtool_bin.h"
#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

using ittest::ib;

TEST(DumpFtsFaults, LossyPortsGiveTheReferenceDumpThroughResends) {
  testbed::FabricOptions o;
  o.tag = "ftsfaults";
  testbed::Fabric f(testbed::generate("fattree 4"), o);
  auto ref = f.run({"dump_fts"});
  ASSERT_EQ(ref.status, 0) << ref.err;
  auto clean = f.run(ib({"dump_fts"}));
  ASSERT_EQ(clean.status, 0) << clean.err;
  EXPECT_EQ(clean.out, ref.out);
  auto part = f.run(ib({"dump_fts", "-a", "3", "9"}));
  auto ref_part = f.run({"dump_fts", "-a", "3", "9"});
  EXPECT_EQ(part.out, ref_part.out);
  EXPECT_EQ(part.status, ref_part.status);

  const std::vector<std::string> ports = {"\"agg p1 a0\"[1]", "\"edge p2 e1\"[3]", "\"core c1\"[4]",
                                          "\"host p3 e0 h1\"[1]"};
  for (auto& p : ports) ASSERT_EQ(f.console("Error " + p + " 10").find('#'), std::string::npos) << p;
  std::vector<testbed::Result> runs;
  for (int i = 0; i < 3; ++i) runs.push_back(f.run(ib({"dump_fts"}), {}, 60));
  for (auto& p : ports) f.console("Error " + p + " 0");
  for (auto& r : runs) {
    ASSERT_FALSE(r.timed_out) << "dump_fts hung under 10% loss\n" << r.err;
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("W: discovery"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, ref.out);
  }
}

}  // namespace
