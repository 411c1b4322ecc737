// The SA's SM_Key (issue 16): OpenSM gives P_KeyTableRecords only to
// trusted requests, those carrying its SM_Key (OpenSM's default, 1, on the
// test bed), refuses them without a key (ERR_REQ_INVALID) and ignores a
// request that carries a wrong key (no reply).  saquery then fails (the
// reference's ERROR line; a timeout with a line that names --smkey), an SMP
// read answered from SA records (--sa) fails with a line naming --smkey;
// with --smkey, or sa_key in an ibdiag.conf given with -z, both work.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>

#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

class SmKey : public ::testing::Test {
protected:
  static void SetUpTestSuite() { f_ = new testbed::Fabric(testbed::generate("example net.2sw2path4hca")); }
  static void TearDownTestSuite() {
    delete f_;
    f_ = nullptr;
  }
  static testbed::Result ibtool(std::vector<std::string> args) {
    args.insert(args.begin(), IBTOOL_PATH);
    return f_->run(args, {}, 60);
  }
  static testbed::Fabric* f_;
};
testbed::Fabric* SmKey::f_ = nullptr;

}  // namespace

TEST_F(SmKey, PKeyTableRecordsNeedTheSmKey) {
  auto r = ibtool({"saquery", "PKTR", "1"});
  EXPECT_EQ(r.status, 5) << r.out;  // EIO, as the reference
  EXPECT_NE(r.err.find("ERROR: Query result returned 0x0200, class specific error 2 (ERR_REQ_INVALID)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("PKeyTableRecord dump"), std::string::npos) << r.out;

  r = ibtool({"saquery", "--smkey", "1", "PKTR", "1"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("0xffff"), std::string::npos) << r.out;

  // The key from an ibdiag.conf file.
  {
    std::ofstream c(f_->dir() + "/smkey.conf");
    c << "# the SA's key\nsa_key=1\n";
  }
  r = ibtool({"saquery", "-z", f_->dir() + "/smkey.conf", "PKTR", "1"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("0xffff"), std::string::npos) << r.out;
  // A wrong key gets no reply at all: the timeout, and a line naming the key.
  r = ibtool({"saquery", "--smkey", "2", "-t", "200", "PKTR", "1"});
  EXPECT_EQ(r.status, 110) << r.out;  // ETIMEDOUT, as the reference
  EXPECT_NE(r.err.find("E: no reply from the SA may also be a wrong SM_Key"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("check the key given with --smkey (or sa_key in ibdiag.conf)\n"), std::string::npos) << r.err;
  // Queries that need no trust work with no key, and say nothing of keys.
  r = ibtool({"saquery", "-s"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("SM_Key"), std::string::npos) << r.err;
}

TEST_F(SmKey, SaReadOfThePKeyTable) {
  auto r = ibtool({"smpquery", "--sa", "pkeys", "1"});
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.err.find("give its SM_Key with --smkey"), std::string::npos) << r.err;
  r = ibtool({"smpquery", "--sa", "--smkey", "1", "pkeys", "1"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("0xffff"), std::string::npos) << r.out;
}
