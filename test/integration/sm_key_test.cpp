// The SA's SM_Key (issue 16): OpenSM gives P_KeyTableRecords only to
// trusted requests, those carrying its SM_Key (OpenSM's default, 1, on the
// test bed), refuses them without a key (ERR_REQ_INVALID) and ignores a
// request that carries a wrong key (no reply).  saquery then fails (the
// reference's ERROR line; a timeout with a line that names --smkey), an SMP
// read answered from SA records (--sa) fails with a line naming --smkey;
// with --smkey, or sa_key in an ibdiag.conf given with -z, both work.
// And an SMP that gets no reply (ibsim never checks M_Keys: a port told to
// drop every MAD) ends with one line saying an M_Key violation may be the
// cause, naming -y, or, with a key given by -y or m_key in ibdiag.conf,
// saying to check it; stdout stays the reference's.
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

TEST(MKeyHint, AnSmpTimeoutNamesTheKeyOnce) {
  testbed::Fabric f(testbed::generate("example net.2sw2path4hca"));
  auto lid = f.run({"smpquery", "portinfo", "-D", "0"}, {{"SIM_HOST", "Hca2"}}, 60);
  ASSERT_EQ(lid.status, 0) << lid.err;
  auto at = lid.out.find("\nLid:");
  ASSERT_NE(at, std::string::npos) << lid.out;
  std::string l = lid.out.substr(lid.out.find_first_of("0123456789", at), std::string::npos);
  l = l.substr(0, l.find('\n'));
  f.console("Error \"Hca2\"[1] 100");
  const std::string hint = "E: no reply may also be an M_Key violation: a protected port drops an SMP Get "
                           "(protection level 2 or 3) carrying ";
  auto ref = f.run({"smpquery", "-t", "100", "nodeinfo", l}, {}, 60);
  auto r = f.run({IBTOOL_PATH, "smpquery", "-t", "100", "nodeinfo", l}, {}, 60);
  EXPECT_EQ(r.status, 255);
  EXPECT_EQ(r.out, ref.out);  // the reference's iberror line, unchanged
  EXPECT_NE(r.err.find("timed out to lid " + l + "\n" + hint +
                       "no M_Key; give the key with -y KEY (or m_key in ibdiag.conf)\n"),
            std::string::npos)
      << r.err;
  // By GUID (resolved through the SA to its LID) and by directed route
  // (Hca1 -> Switch1 port 3 -> Switch2 port 1, LinkUp: something is
  // there): the same hint.
  r = f.run({IBTOOL_PATH, "smpquery", "-t", "100", "-G", "nodeinfo", "0x0000000000100004"}, {}, 60);
  EXPECT_EQ(r.status, 255);
  EXPECT_NE(r.err.find(hint + "no M_Key"), std::string::npos) << r.err;
  r = f.run({IBTOOL_PATH, "smpquery", "-t", "100", "-D", "nodeinfo", "0,1,3,1"}, {{"SIM_HOST", "Hca1"}}, 60);
  EXPECT_EQ(r.status, 255);
  EXPECT_NE(r.err.find("timed out to DR path 0,1,3,1\n" + hint + "no M_Key"), std::string::npos) << r.err;
  // A key given: check it.
  r = f.run({IBTOOL_PATH, "smpquery", "-t", "100", "-y", "0x1234", "nodeinfo", l}, {}, 60);
  EXPECT_EQ(r.status, 255);
  EXPECT_NE(r.err.find(hint + "a wrong M_Key; check the key given with -y KEY (or m_key in ibdiag.conf)\n"),
            std::string::npos)
      << r.err;
  {
    std::ofstream c(f.dir() + "/mkey.conf");
    c << "m_key=0x1234\n";
  }
  r = f.run({IBTOOL_PATH, "smpquery", "-z", f.dir() + "/mkey.conf", "-t", "100", "nodeinfo", l}, {}, 60);
  EXPECT_EQ(r.status, 255);
  EXPECT_NE(r.err.find(hint + "a wrong M_Key"), std::string::npos) << r.err;
  // Once per failure, and not for nodes that answer.
  size_t lines = 0;
  for (size_t p = r.err.find("M_Key violation"); p != std::string::npos; p = r.err.find("M_Key violation", p + 1))
    ++lines;
  EXPECT_EQ(lines, 1u) << r.err;
  r = f.run({IBTOOL_PATH, "smpquery", "-y", "0x1234", "nodeinfo", "1"}, {}, 60);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("M_Key"), std::string::npos) << r.err;
}
