// -Y/--pkey-idx (issue 13): the P_Key index of every GMP sent (SA, PM),
// read back from the -dd trace of the sent MADs; SMPs always index 0.
// Whether the SA answers at another index depends on the P_Key tables of
// the fabric; the index sent is what is checked.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "test/integration/ibtool_bin.h"
#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

using ittest::ib;

// The P_Key indexes of the trace's "D: send <rpc> ... pkey_index N" lines
// whose RPC starts with rpc_prefix.
std::vector<unsigned> sent_indexes(const std::string& err, const std::string& rpc_prefix) {
  std::vector<unsigned> v;
  std::regex line("^D: send (\\S+) .* pkey_index (\\d+)$");
  size_t pos = 0;
  while (pos < err.size()) {
    size_t nl = err.find('\n', pos);
    std::string l = err.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? err.size() : nl + 1;
    std::smatch m;
    if (std::regex_match(l, m, line) && m[1].str().rfind(rpc_prefix, 0) == 0) v.push_back(unsigned(std::stoul(m[2])));
  }
  return v;
}

class PKeyIndex : public ::testing::Test {
protected:
  static void SetUpTestSuite() { f_ = new testbed::Fabric(testbed::generate("example net.2sw2path4hca")); }
  static void TearDownTestSuite() {
    delete f_;
    f_ = nullptr;
  }
  static testbed::Fabric* f_;
};
testbed::Fabric* PKeyIndex::f_ = nullptr;

TEST_F(PKeyIndex, OutOfRangeIsAUsageError) {
  for (const char* bad : {"65536", "-1", "x", "0x10000", ""}) {
    auto r = f_->run(ib({"perfquery", "-Y", bad, "5", "1"}));
    EXPECT_NE(r.status, 0) << bad;
    EXPECT_LT(r.status, 128) << bad;
    EXPECT_NE(r.err.find("--pkey-idx"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << bad;
  }
}

TEST_F(PKeyIndex, DefaultIsZeroForEveryGmp) {
  auto r = f_->run(ib({"perfquery", "-dd", "5", "1"}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto sa = sent_indexes(r.err, "SubnAdm"), pm = sent_indexes(r.err, "Performance");
  ASSERT_FALSE(sa.empty()) << r.err;
  ASSERT_FALSE(pm.empty()) << r.err;
  for (unsigned i : sa) EXPECT_EQ(i, 0u);
  for (unsigned i : pm) EXPECT_EQ(i, 0u);
  // -Y 0 explicitly: the same.
  r = f_->run(ib({"perfquery", "-dd", "--pkey-idx", "0", "5", "1"}));
  ASSERT_EQ(r.status, 0) << r.err;
}

TEST_F(PKeyIndex, SmpsAlwaysUseIndexZero) {
  auto r = f_->run(ib({"smpquery", "-dd", "-Y", "3", "nodeinfo", "5"}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto smp = sent_indexes(r.err, "Subn");
  ASSERT_FALSE(smp.empty()) << r.err;
  for (unsigned i : smp) EXPECT_EQ(i, 0u);
  EXPECT_NE(r.out.find("# Node info"), std::string::npos) << r.out;
}

TEST_F(PKeyIndex, GmpsGoOutWithTheGivenIndex) {
  auto r = f_->run(ib({"perfquery", "-dd", "-Y", "3", "-t", "200", "--retries", "0", "5", "1"}));
  auto sa = sent_indexes(r.err, "SubnAdm");
  ASSERT_FALSE(sa.empty()) << r.err;
  for (unsigned i : sa) EXPECT_EQ(i, 3u);
  for (unsigned i : sent_indexes(r.err, "Performance")) EXPECT_EQ(i, 3u);
  r = f_->run(ib({"saquery", "-dd", "--pkey-idx", "65535", "-t", "200", "--retries", "0", "NodeRecord"}));
  sa = sent_indexes(r.err, "SubnAdm");
  ASSERT_FALSE(sa.empty()) << r.err;
  for (unsigned i : sa) EXPECT_EQ(i, 65535u);
}

}  // namespace
