// mcm_rereg_test on ibsim + OpenSM: a port re-registers in the IPoIB
// broadcast group (leave, join, SubnAdmGet), the membership is then in the
// SA as the reference saquery sees it, --leave removes it again; GUIDs from
// a file; and the failures (a group the SA cannot create from a join, bad
// GUIDs, a missing file).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <string>

#include "test/integration/ibtool_bin.h"
#include "test/integration/sim_ports.h"
#include "test/testbed/fabric.h"

namespace {

using ittest::IBTOOL;

class McmRereg : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    testbed::FabricOptions o;
    o.tag = "mcm";
    fab_ = std::make_unique<testbed::Fabric>(
        "Hca 1 \"Sm\"\n[1] \"Switch1\"[1]\n\n"
        "Hca 1 \"HostA\"\n[1] \"Switch1\"[2]\n\n"
        "Hca 1 \"HostB\"\n[1] \"Switch1\"[3]\n\n"
        "Switch 8 \"Switch1\"\n[1] \"Sm\"[1]\n[2] \"HostA\"[1]\n[3] \"HostB\"[1]\n",
        o);
  }
  static void TearDownTestSuite() { fab_.reset(); }

  static testbed::Result ibtool(std::vector<std::string> args, const std::string& host = "HostA") {
    args.insert(args.begin(), {IBTOOL, "mcm_rereg_test"});
    return fab_->run(args, {{"SIM_HOST", host}});
  }
  static std::string guid_of(const std::string& host) { return simports::guid(*fab_, host); }
  // The PortGid lines of the broadcast group's members, as the reference
  // saquery prints them (its first reply segment holds three records,
  // enough here; with OpenSM's default SM_Key, 1, or OpenSM hides them).
  static std::string members() {
    auto r = fab_->run({"saquery", "--smkey", "1", "-m"});
    std::string out;
    std::regex re("PortGid\\.+([0-9a-f:]+)");
    for (std::sregex_iterator it(r.out.begin(), r.out.end(), re), end; it != end; ++it) out += (*it)[1].str() + " ";
    return out;
  }
  static std::string gid_of(const std::string& guid) {
    uint64_t v = std::stoull(guid, nullptr, 16);
    char s[64];
    std::snprintf(s, sizeof s, "fe80::%llx:%llx:%llx:%llx", (unsigned long long)(v >> 48),
                  (unsigned long long)(v >> 32 & 0xffff), (unsigned long long)(v >> 16 & 0xffff),
                  (unsigned long long)(v & 0xffff));
    std::string r = s;
    // saquery prints the compressed form: drop leading zero groups.
    r = std::regex_replace(r, std::regex("fe80::(0:)+"), "fe80::");
    return r;
  }

  static inline std::unique_ptr<testbed::Fabric> fab_;
};

TEST_F(McmRereg, JoinQueryLeave) {
  std::string a = guid_of("HostA");
  ASSERT_FALSE(a.empty());
  std::string ga = gid_of(a);
  ASSERT_EQ(members().find(ga), std::string::npos) << members();

  // With OpenSM's SM_Key the SA shows the member's JoinState.
  auto r = ibtool({"--smkey", "1", "-g", a});
  EXPECT_EQ(r.status, 0) << r.err;
  std::regex line("Port " + a + ": was not a member, joined \\(MLID (0x[0-9a-f]{4})\\), registered \\(JoinState 0x1\\)\n"
                  "1 of 1 ports re-registered in ff12:401b:ffff::ffff:ffff\n");
  std::smatch m;
  EXPECT_TRUE(std::regex_match(r.out, m, line)) << r.out << r.err;
  const std::string mlid = m.size() > 1 ? m[1].str() : "?";
  EXPECT_NE(members().find(ga), std::string::npos) << "the SA does not list " << ga << ": " << members();

  // Again, without the SM_Key: now it leaves first, and the SA hides the
  // details but finds the membership.
  r = ibtool({"-g", a});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "Port " + a + ": left, joined (MLID " + mlid +
                       "), registered (JoinState hidden without the SM_Key)\n"
                       "1 of 1 ports re-registered in ff12:401b:ffff::ffff:ffff\n")
      << r.err;

  // --leave: gone afterwards.
  r = ibtool({"--leave", "-g", a});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("registered (JoinState hidden without the SM_Key), left\n"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(members().find(ga), std::string::npos) << members();
}

TEST_F(McmRereg, GuidFile) {
  std::string a = guid_of("HostA"), b = guid_of("HostB");
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  {
    std::ofstream f(fab_->dir() + "/port_guids.list");
    f << "# ports to re-register\n" << a << "\n\n" << b << "   # the other host\n";
  }
  // The default file name, from HostB: HostA's port (a proxy join, which
  // OpenSM accepts) and its own.
  auto r = ibtool({"--smkey", "1", "--leave"}, "HostB");
  EXPECT_EQ(r.status, 0) << r.err;
  std::regex two("Port " + a + ": was not a member, joined \\(MLID 0x[0-9a-f]{4}\\), registered \\(JoinState 0x1\\), left\n"
                 "Port " + b + ": was not a member, joined \\(MLID 0x[0-9a-f]{4}\\), registered \\(JoinState 0x1\\), left\n"
                 "2 of 2 ports re-registered in ff12:401b:ffff::ffff:ffff\n");
  EXPECT_TRUE(std::regex_match(r.out, two)) << r.out << r.err;
  EXPECT_EQ(members().find(gid_of(a)), std::string::npos) << members();
  // The same list on stdin.
  r = fab_->sh(IBTOOL + " mcm_rereg_test --smkey 1 --leave - <port_guids.list", {{"SIM_HOST", "HostB"}});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::regex_match(r.out, two)) << r.out << r.err;
  std::filesystem::remove(fab_->dir() + "/port_guids.list");
}

TEST_F(McmRereg, Failures) {
  std::string a = guid_of("HostA");
  ASSERT_FALSE(a.empty());
  // A group that does not exist: a join with MGID, PortGID and JoinState
  // alone cannot create it, the SA refuses, the run fails.
  auto r = ibtool({"--mgid", "ff12:401b:ffff::1234", "-g", a});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("Port " + a + ": was not a member, join failed (class specific error"), std::string::npos)
      << r.out << r.err;
  EXPECT_NE(r.out.find("0 of 1 ports re-registered in ff12:401b:ffff::1234\n"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("E: "), std::string::npos);

  // Bad input: status 2, nothing on stdout.
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"no_such_file"}, {"-g", "zz"}, {"--mgid", "fe80::1", "-g", a}, {"--mgid", "nonsense", "-g", a}}) {
    r = ibtool(args);
    EXPECT_EQ(r.status, 2) << args[0] << ": " << r.err;
    EXPECT_EQ(r.out, "") << args[0];
    EXPECT_NE(r.err.find("E: "), std::string::npos) << args[0];
  }
  {
    std::ofstream f(fab_->dir() + "/bad.list");
    f << a << "\nnot-a-guid\n";
  }
  r = ibtool({"bad.list"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("bad.list:2: bad port GUID not-a-guid"), std::string::npos) << r.err;
  {
    std::ofstream f(fab_->dir() + "/empty.list");
    f << "# nothing\n";
  }
  r = ibtool({"empty.list"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no port GUIDs"), std::string::npos) << r.err;
}

}  // namespace
