// set_port_state and init_all_ports on a simulated fabric (ibsim + OpenSM),
// checked with the reference tools (smpquery) reading the ports back.
//
// The fabric is ibsim's net.2sw2path4hca: Hca1 (local) - Switch1, Hca3 -
// Switch1, Switch1 ports 3 and 5 - Switch2 ports 3 and 5 (two parallel
// links), Switch2 - Hca2, Hca4.  DR 0,1 is Switch1; 0,1,3 and 0,1,5 are
// Switch2.
//
// ibsim does not simulate link training: a port set to Polling stays in
// Polling and a disabled link's far end stays LinkUp; but no packet
// crosses a port that is not LinkUp.  The tests therefore check what the
// port itself says and that traffic through it stops, and play the
// physical layer with the console (Unlink + Link) to let a re-enabled link
// come up.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "test/integration/ibtool_bin.h"
#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

using ittest::ib;

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

// A PortInfo field as the reference smpquery prints it ("PhysLinkState:....Disabled").
std::string field(testbed::Fabric& f, const std::string& dr, const std::string& port, const std::string& name) {
  auto r = f.run({"smpquery", "-D", "portinfo", dr, port});
  std::smatch m;
  std::regex re(name + ":\\.+([^\\n]*)");
  if (r.status != 0 || !std::regex_search(r.out, m, re)) return "<smpquery failed: " + r.err + ">";
  return m[1];
}

bool reachable(testbed::Fabric& f, const std::string& dr) {
  return f.run({"smpquery", "-t", "200", "-D", "nodeinfo", dr}).status == 0;
}

// The physical layer bringing a link up again (ibsim does not train links).
void retrain(testbed::Fabric& f, const std::string& a, int pa, const std::string& b, int pb) {
  std::string pa_s = "\"" + a + "\"[" + std::to_string(pa) + "]";
  f.console("Unlink " + pa_s);
  f.console("Link " + pa_s + " \"" + b + "\"[" + std::to_string(pb) + "]");
}

class PortState : public ::testing::Test {
protected:
  void SetUp() override { f_ = std::make_unique<testbed::Fabric>(testbed::generate("example net.2sw2path4hca")); }
  std::unique_ptr<testbed::Fabric> f_;
};

TEST_F(PortState, DisableThenEnableUsesRoutesAvoidingTheChangedLinks) {
  auto& f = *f_;
  ASSERT_EQ(field(f, "0,1", "3", "PhysLinkState"), "LinkUp");
  // Switch2's shortest route is 0,1,3, which crosses the first link being
  // disabled: the route must go around it through port 5.
  auto r = f.run(ib({"set_port_state", "--disable", "-n", "Switch1@3", "Switch2@2"}));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\"Switch1\" (0x0000000000200000) port 3 lid 2: would disable via DR path 0,1, now "
                       "Active/LinkUp\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"Switch2\" (0x0000000000200001) port 2 lid 3: would disable via DR path 0,1,5, now "
                       "Active/LinkUp\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(field(f, "0,1", "3", "PhysLinkState"), "LinkUp") << "a dry run changed a port";

  r = f.run(ib({"set_port_state", "--disable", "Switch1@3", "Switch2@2"}));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(count(r.out, "\n"), 2) << r.out;
  EXPECT_NE(r.out.find("port 3 lid 2: disabled via DR path 0,1, now Active/Disabled"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("port 2 lid 3: disabled via DR path 0,1,5, now Active/Disabled"), std::string::npos) << r.out;
  // The reference reads the same, and nothing crosses the disabled ports.
  EXPECT_EQ(field(f, "0,1", "3", "PhysLinkState"), "Disabled");
  EXPECT_EQ(field(f, "0,1,5", "2", "PhysLinkState"), "Disabled");
  EXPECT_FALSE(reachable(f, "0,1,3"));
  EXPECT_FALSE(reachable(f, "0,1,5,2"));  // Hca4 behind Switch2 port 2
  EXPECT_TRUE(reachable(f, "0,1,5"));

  // Enable (IBA: PortPhysicalState Polling, then the link trains).
  r = f.run(ib({"set_port_state", "--enable", "Switch1@3", "-D", "0,1,5@2"}));
  EXPECT_NE(r.status, 0) << "-D applies to every target: Switch1@3 is not a DR path\n" << r.out;
  r = f.run(ib({"set_port_state", "--enable", "-D", "0,1@3", "0,1,5@2"}));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("port 3 lid 2: enabled via DR path 0,1, now Active/Polling"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("port 2 lid 3: enabled via DR path 0,1,5, now Active/Polling"), std::string::npos) << r.out;
  EXPECT_EQ(field(f, "0,1", "3", "PhysLinkState"), "Polling");
  EXPECT_EQ(field(f, "0,1,5", "2", "PhysLinkState"), "Polling");

  // The links train (played by the console) and come back up.
  retrain(f, "Switch1", 3, "Switch2", 3);
  retrain(f, "Switch2", 2, "Hca4", 1);
  EXPECT_EQ(field(f, "0,1", "3", "PhysLinkState"), "LinkUp");
  EXPECT_TRUE(reachable(f, "0,1,3"));
  EXPECT_TRUE(reachable(f, "0,1,5,2"));
}

TEST_F(PortState, APartitioningSetSucceedsWhenItsTargetsAreOnThisSide) {
  auto& f = *f_;
  // Both links to Switch2: Switch2 is cut off, but both targets are on
  // Switch1, reached without crossing either link.  Targets by LID, node
  // description and (below) port GUID.
  auto r = f.run(ib({"set_port_state", "--disable", "2@3", "Switch1@5"}));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(count(r.out, "disabled via DR path 0,1, now Active/Disabled"), 2) << r.out;
  EXPECT_FALSE(reachable(f, "0,1,3"));
  EXPECT_FALSE(reachable(f, "0,1,5"));
  // Switch2 is gone from the subnet now: a clear error, nothing sent.
  r = f.run(ib({"set_port_state", "--enable", "Switch2@3"}));
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.err.find("'Switch2' is neither an address nor the name of a node in the subnet"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
  r = f.run(ib({"set_port_state", "--enable", "-G", "0x200000@3", "0x200000@5"}));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(count(r.out, "enabled via DR path 0,1, now Active/Polling"), 2) << r.out;
  retrain(f, "Switch1", 3, "Switch2", 3);
  retrain(f, "Switch1", 5, "Switch2", 5);
  EXPECT_TRUE(reachable(f, "0,1,3"));
  EXPECT_TRUE(reachable(f, "0,1,5"));
}

TEST_F(PortState, ImpossibleSetsChangeNothing) {
  auto& f = *f_;
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  for (const Case& c : std::vector<Case>{
           // A remote CA port is only reachable through itself: name the switch end.
           {{"--disable", "Hca2@1"}, "change its peer instead: \"Switch2\" port 1 (-G 0x0000000000200001@1)"},
           {{"--disable", "Hca2"}, "\"Hca2\" has 2 ports: give the port number (Hca2@PORT)"},
           // The local port cuts off every other target.
           {{"--disable", "-D", "0,1@2", "0"}, "No DR path to \"Switch1\""},
           {{"--disable", "Switch1"}, "give the port number (Switch1@PORT)"},
           {{"--disable", "Switch1@9"}, "\"Switch1\" has no port 9"},
           {{"--disable", "Switch1@x"}, "Bad port number in 'Switch1@x'"},
           {{"--disable", "Nowhere@1"}, "'Nowhere' is neither an address nor the name of a node"},
           {{"--disable", "99@1"}, "No port in the subnet matches '99'"},
       }) {
    std::vector<std::string> a = {"set_port_state"};
    a.insert(a.end(), c.args.begin(), c.args.end());
    auto r = f.run(ib(a));
    EXPECT_EQ(r.status, 255) << a[1] << " " << a[2] << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.err), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  // No action, or two: usage error.
  auto r = f.run(ib({"set_port_state", "Switch1@3"}));
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  r = f.run(ib({"set_port_state", "--enable", "--disable", "Switch1@3"}));
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  // Nothing was changed by any of these.
  for (auto [dr, p] : std::vector<std::pair<std::string, std::string>>{{"0,1", "2"}, {"0,1", "3"}, {"0,1,3", "1"}})
    EXPECT_EQ(field(f, dr, p, "PhysLinkState"), "LinkUp") << dr << " port " << p;
  EXPECT_EQ(field(f, "0", "1", "PhysLinkState"), "LinkUp");
}

TEST_F(PortState, InitAllPortsDropsEveryLinkToInit) {
  auto& f = *f_;
  // Six links: Hca1-Switch1, Hca3-Switch1, Switch1-Switch2 (x2), Switch2-Hca2, Switch2-Hca4.
  auto r = f.run(ib({"init_all_ports", "-n"}));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(count(r.out, ": would reset to Init via DR path "), 6) << r.out;
  EXPECT_NE(r.out.find("## Summary: 6 links, 6 would be reset, 0 already in Init, 0 failed, 0 not resettable\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(field(f, "0,1", "3", "LinkState"), "Active") << "a dry run changed a port";

  // Hold the SM so that nothing re-activates the links behind our back.
  struct Held {
    pid_t pid;
    ~Held() { ::kill(pid, SIGCONT); }
  } held{f.opensm_pid()};
  ASSERT_EQ(::kill(held.pid, SIGSTOP), 0);
  r = f.run(ib({"init_all_ports"}));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(count(r.out, ": reset to Init via DR path "), 6) << r.out;
  EXPECT_EQ(count(r.out, "now Initialize/LinkUp"), 6) << r.out;
  EXPECT_NE(r.out.find("## Summary: 6 links, 6 reset to Init, 0 already in Init, 0 failed, 0 not resettable\n"),
            std::string::npos)
      << r.out;
  // Deepest first (Switch2's host links, through Switch2), the local link last.
  auto hca2 = r.out.find("\"Switch2\" (0x0000000000200001) port 1 lid 3: reset to Init via DR path 0,1,");
  auto local = r.out.find(": reset to Init via DR path 0, now");
  EXPECT_NE(hca2, std::string::npos) << r.out;
  ASSERT_NE(local, std::string::npos) << r.out;
  EXPECT_LT(hca2, local);
  EXPECT_EQ(r.out.find("\n", local) + 1, r.out.find("## Summary")) << r.out;
  // The reference reads every end in Init, and the links still carry SMPs.
  for (auto [dr, p] : std::vector<std::pair<std::string, std::string>>{
           {"0", "1"}, {"0,1", "1"}, {"0,1", "2"}, {"0,1", "3"}, {"0,1", "5"}, {"0,1,3", "1"}, {"0,1,3", "2"},
           {"0,1,3", "3"}, {"0,1,3", "5"}, {"0,1,2", "1"}, {"0,1,3,1", "1"}, {"0,1,3,2", "1"}})
    EXPECT_EQ(field(f, dr, p, "LinkState"), "Initialize") << dr << " port " << p;
  // A second run finds nothing to do.
  r = f.run(ib({"init_all_ports"}));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "## Summary: 6 links, 0 reset to Init, 6 already in Init, 0 failed, 0 not resettable\n");
  // Released, the SM activates the links again.
  ::kill(held.pid, SIGCONT);
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (field(f, "0,1,3", "3", "LinkState") != "Active" && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(field(f, "0,1,3", "3", "LinkState"), "Active");
  EXPECT_EQ(field(f, "0", "1", "LinkState"), "Active");
}

}  // namespace
