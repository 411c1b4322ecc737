// The testbed against real ibsim + OpenSM processes: fabrics come up (the
// reference ibnetdiscover sees every node), the console works, and nothing
// is left behind after destruction or after the test process is killed.
#include "test/testbed/fabric.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "test/testbed/topology.h"

namespace {

bool process_exists(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }
bool group_exists(pid_t pgid) { return ::kill(-pgid, 0) == 0 || errno != ESRCH; }

// Processes whose environment has IBSIM_SOCKNAME=sock.
std::vector<pid_t> processes_with_socket(const std::string& sock) {
  std::vector<pid_t> out;
  std::string needle = "IBSIM_SOCKNAME=" + sock;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::string n = e.path().filename();
    if (n.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "environ", std::ios::binary);
    std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::istringstream vars(env);
    std::string v;
    while (std::getline(vars, v, '\0'))
      if (v == needle) out.push_back(std::stoi(n));
  }
  return out;
}

bool wait_gone(pid_t pid, double seconds) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (!process_exists(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return !process_exists(pid);
}

// Count the nodes the reference ibnetdiscover finds, by type.
void expect_discovered(testbed::Fabric& f, const std::string& topo) {
  auto r = f.run({"ibnetdiscover"});
  ASSERT_EQ(r.status, 0) << r.err;
  int sw = 0, ca = 0;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Switch\t", 0) == 0) ++sw;
    if (line.rfind("Ca\t", 0) == 0) ++ca;
  }
  auto s = testbed::topo_size(topo);
  EXPECT_EQ(sw, s.switches) << r.out;
  EXPECT_EQ(ca, s.hcas) << r.out;
}

TEST(Fabric, ExamplesComeUp) {
  for (const auto& n : testbed::example_names()) {
    SCOPED_TRACE(n);
    std::string topo = testbed::example(n);
    testbed::Fabric f(topo);
    expect_discovered(f, topo);
  }
}

TEST(Fabric, FatTreeComesUp) {
  std::string topo = testbed::fattree(4);
  testbed::Fabric f(topo);
  expect_discovered(f, topo);
}

TEST(Fabric, IrregularComesUp) {
  std::string topo = testbed::irregular(true);
  testbed::Fabric f(topo);
  expect_discovered(f, topo);
  // Descriptions with spaces, quotes and UTF-8 survive to the SMA: find
  // their raw bytes in some node's NodeDescription (smpdump prints hex).
  auto r = f.run({"ibnetdiscover"});
  EXPECT_NE(r.out.find("host 'quoted' O'Brien"), std::string::npos) << r.out;
  std::string want;
  char hx[3];
  for (unsigned char c : std::string("nœud été ✓ Ωmega")) {
    std::snprintf(hx, sizeof hx, "%02x", c);
    want += hx;
  }
  bool found = false;
  for (int lid = 1; lid <= 20 && !found; ++lid) {
    auto d = f.run({"smpdump", std::to_string(lid), "0x10"});
    std::string hex;
    for (char c : d.out)
      if (std::isxdigit(static_cast<unsigned char>(c))) hex += c;
    found = hex.find(want) != std::string::npos;
  }
  EXPECT_TRUE(found) << "no node has the UTF-8 description";
}

TEST(Fabric, RunReportsOutputAndStatus) {
  testbed::Fabric f(testbed::example("net.1"));
  auto r = f.sh("echo out; echo err >&2; exit 3");
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.status, 3);
  auto e = f.run({"sh", "-c", "echo $IBSIM_SOCKNAME $X"}, {{"X", "extra"}});
  EXPECT_EQ(e.out, f.sockname() + " extra\n");
  auto t = f.run({"sleep", "30"}, {}, 0.5);
  EXPECT_TRUE(t.timed_out);
  auto m = f.run({"/nonexistent/tool"});
  EXPECT_EQ(m.status, 127);
}

// A port given up with an answer still to come (a resent MAD's second
// reply, a timed-out one's late one): umad2sim's receiver finds no agent
// for the reply's class and dereferences a null queue.  ibtool's ports
// stay open, agents and all, while answers may still come (Umad::~Umad).
TEST(Fabric, ALateReplyAfterThePortIsGivenUp) {
  testbed::Fabric f(testbed::example("net.1"));
  for (int i = 0; i < 3; ++i) {
    auto r = f.run({TESTBED_LATE_REPLY});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "ok\n");
  }
}

TEST(Fabric, ConsoleUnlinkHidesANode) {
  std::string topo = testbed::example("net.2sw2path4hca");
  testbed::Fabric f(topo);
  expect_discovered(f, topo);
  f.console("Unlink \"Hca4\"");
  auto r = f.run({"ibnetdiscover"});
  EXPECT_EQ(r.out.find("\"Hca4\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"Hca3\""), std::string::npos) << r.out;
  std::string help = f.console("Help");
  EXPECT_NE(help.find("Unlink"), std::string::npos) << help;
}

TEST(Fabric, UnknownTopologyFailsClearly) {
  try {
    testbed::Fabric f("Hca 1 \"a\"\n[1] \"nowhere\"[1]\n", {.start_sm = true, .up_timeout = 5, .tag = "broken"});
    FAIL() << "a broken topology came up";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("testbed:"), std::string::npos) << e.what();
  }
}

TEST(Fabric, DestroyLeavesNothing) {
  pid_t ibsim, opensm;
  std::string dir, sock;
  {
    testbed::Fabric f(testbed::example("net.1"));
    ibsim = f.ibsim_pid();
    opensm = f.opensm_pid();
    dir = f.dir();
    sock = f.sockname();
    ASSERT_TRUE(process_exists(ibsim));
    ASSERT_TRUE(process_exists(opensm));
    auto r = f.run({"smpquery", "nodeinfo", "1"});
    EXPECT_EQ(r.status, 0) << r.err;
  }
  EXPECT_FALSE(process_exists(ibsim));
  EXPECT_FALSE(process_exists(opensm));
  EXPECT_FALSE(group_exists(ibsim));
  EXPECT_FALSE(group_exists(opensm));
  EXPECT_TRUE(processes_with_socket(sock).empty());
  EXPECT_FALSE(std::filesystem::exists(dir));
}

// A child process starts a fabric, reports it, and is killed by `sig`.
void interrupted_child(int sig, bool expect_dir_removed) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(p[0]);
    try {
      auto* f = new testbed::Fabric(testbed::example("net.1"));  // never destroyed
      std::string info = f->sockname() + " " + std::to_string(f->ibsim_pid()) + " " +
                         std::to_string(f->opensm_pid()) + " " + f->dir() + "\n";
      if (::write(p[1], info.data(), info.size()) < 0) ::_exit(2);
    } catch (...) {
      ::_exit(1);
    }
    for (;;) ::pause();
  }
  ::close(p[1]);
  std::string info;
  char buf[512];
  ssize_t n;
  while ((n = ::read(p[0], buf, sizeof buf)) > 0) {
    info.append(buf, size_t(n));
    if (info.find('\n') != std::string::npos) break;
  }
  ::close(p[0]);
  std::istringstream is(info);
  std::string sock, dir;
  pid_t ibsim = 0, opensm = 0;
  is >> sock >> ibsim >> opensm >> dir;
  ASSERT_GT(ibsim, 0) << "child did not start its fabric";
  EXPECT_FALSE(processes_with_socket(sock).empty());
  ::kill(child, sig);
  int st = 0;
  ::waitpid(child, &st, 0);
  EXPECT_TRUE(WIFSIGNALED(st)) << "child status " << st;
  EXPECT_TRUE(wait_gone(ibsim, 5));
  EXPECT_TRUE(wait_gone(opensm, 5));
  EXPECT_TRUE(processes_with_socket(sock).empty());
  if (expect_dir_removed) {
    EXPECT_FALSE(std::filesystem::exists(dir));
  } else {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
}

TEST(Fabric, SigtermedTestLeavesNothing) { interrupted_child(SIGTERM, true); }
TEST(Fabric, SigintedTestLeavesNothing) { interrupted_child(SIGINT, true); }
// SIGKILL cannot be handled: the processes die through PR_SET_PDEATHSIG;
// the scratch directory stays (removed here).
TEST(Fabric, SigkilledTestLeavesNoProcess) { interrupted_child(SIGKILL, false); }

}  // namespace

namespace {

// The largest fabric the benchmarks use (8192 hosts, 1280 switches; about a
// minute of OpenSM and ibsim CPU).  Run it with
//   testbed_tests --gtest_also_run_disabled_tests --gtest_filter='*FatTree32*'
TEST(Fabric, DISABLED_FatTree32ComesUp) {
  std::string topo = testbed::fattree(32);
  testbed::Fabric f(topo, {.start_sm = true, .up_timeout = 900, .tag = "ft32"});
  expect_discovered(f, topo);
}

}  // namespace

// A reference tool that died of SIGSEGV is run again, twice at most; any
// other status (a failure the rows compare) is kept as it came.
TEST(Fabric, AReferenceThatDiedOfSigsegvIsRunAgain) {
  auto runs = [](std::vector<int> statuses) {
    size_t n = 0;
    testbed::Result r = testbed::again_if_segv(
        [&] {
          testbed::Result x;
          x.status = statuses[std::min(n++, statuses.size() - 1)];
          return x;
        },
        "tool");
    return std::make_pair(n, r.status);
  };
  EXPECT_EQ(runs({139, 0}), std::make_pair(size_t(2), 0));
  EXPECT_EQ(runs({139, 139, 139, 0}), std::make_pair(size_t(3), 139));
  EXPECT_EQ(runs({1}), std::make_pair(size_t(1), 1));
  EXPECT_EQ(runs({134}), std::make_pair(size_t(1), 134));  // SIGABRT is not the stale-bytes crash
}
