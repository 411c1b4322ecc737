// Two SMs (issue 16): a second OpenSM at a lower priority on another node
// goes STANDBY; the master is killed; the standby takes over (its SMInfo
// polls of the master go unanswered) and brings the subnet up again.  Then
// sminfo, an SA query, a GMP whose path comes from the SA (perfquery) and
// ibnetdiscover --sa all reach the new master, and an exporter started
// before the failover serves a whole scrape after it without a restart
// (the library sends an SA MAD that timed out on the old SM's LID again to
// the SM the local port's PortInfo names: core/rpc/smfollow MadEngine::follow_sm).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

using nlohmann::json;
using testbed::Fabric;

const std::string kParser = std::string(IBTOOL_SOURCE_DIR) + "/test/integration/prom_to_json.py";

// The count of state lines in an OpenSM log ("Entering MASTER state").
size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

int free_tcp_port() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = -1;
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(s);
  return port;
}

// One GET of /metrics, as samples (prom_to_json.py).
json scrape(const Fabric& f, int port) {
  auto r = f.sh("/usr/bin/python3 -c 'import sys, urllib.request as u; "
                "sys.stdout.write(u.urlopen(\"http://127.0.0.1:%s/metrics\" % sys.argv[1], timeout=60).read().decode())' " +
                    std::to_string(port) + " > m.prom && /usr/bin/python3 " + kParser + " < m.prom",
                {{"LD_PRELOAD", ""}}, 90);
  EXPECT_EQ(r.status, 0) << r.err;
  try {
    return json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "parser output: " << e.what() << r.out << r.err;
    return json::array();
  }
}

double scalar(const json& samples, const std::string& name) {
  for (const json& s : samples)
    if (s["name"] == name) return s["value"].get<double>();
  return -1;
}
size_t count(const json& samples, const std::string& name) {
  size_t n = 0;
  for (const json& s : samples) n += s["name"] == name;
  return n;
}

// The LID of the port a tool on `host` uses (its own PortInfo).
int lid_of(const Fabric& f, const std::string& host) {
  auto r = f.run({IBTOOL_PATH, "smpquery", "portinfo", "-D", "0"}, {{"SIM_HOST", host}}, 60);
  std::smatch m;
  if (r.status != 0 || !std::regex_search(r.out, m, std::regex("\nLid:\\.+([0-9]+)"))) return -1;
  return std::stoi(m[1]);
}

}  // namespace

TEST(SmFailover, StandbyTakesOverAndTheToolsFollow) {
  // The master at priority 10 on Hca1 (the tools' default node), the
  // standby at 1 on Hca4, polling the master every second and giving up
  // after two unanswered polls.
  testbed::FabricOptions o;
  o.opensm_conf = {"sm_priority 10"};
  Fabric f(testbed::generate("example net.2sw2path4hca"), o);
  const testbed::SmOptions standby_opts{.host = "Hca4",
                                        .conf = {"sm_priority 1", "sminfo_polling_timeout 1000", "polling_retry_number 2"}};
  testbed::Background standby = f.start_sm(standby_opts);
  ASSERT_TRUE(Fabric::wait_until([&] { return count_of(Fabric::read_file(standby.log), "Entering STANDBY state") > 0; }, 60))
      << Fabric::read_file(standby.log);
  EXPECT_EQ(count_of(Fabric::read_file(standby.log), "Entering MASTER state"), 0u);

  const int master_lid = lid_of(f, "Hca1"), standby_lid = lid_of(f, "Hca4");
  ASSERT_GT(master_lid, 0);
  ASSERT_GT(standby_lid, 0);
  ASSERT_NE(master_lid, standby_lid);
  // Both SMs as sminfo sees them.
  auto r = f.run({IBTOOL_PATH, "sminfo"}, {}, 60);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("sminfo: sm lid " + std::to_string(master_lid) + " "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("priority 10 state 3 SMINFO_MASTER"), std::string::npos) << r.out;
  r = f.run({IBTOOL_PATH, "sminfo", std::to_string(standby_lid)}, {}, 60);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("priority 1 state 2 SMINFO_STANDBY"), std::string::npos) << r.out;

  // A long-lived exporter, one scrape before the failover.
  const int port = free_tcp_port();
  ASSERT_GT(port, 0);
  testbed::Background exporter =
      f.start_background({IBTOOL_PATH, "exporter", "--down-ports", "all", "--listen", "127.0.0.1:" + std::to_string(port)},
                         {}, "exporter");
  ASSERT_TRUE(Fabric::wait_until([&] { return Fabric::read_file(exporter.err).find("serving") != std::string::npos; }, 30))
      << Fabric::read_file(exporter.err);
  json before = scrape(f, port);
  EXPECT_EQ(scalar(before, "ib_scrape_success"), 1);
  const size_t ports = count(before, "ib_port_symbol_error_total");
  EXPECT_EQ(ports, 20u);

  // The master crashes; the standby takes over.
  f.kill_opensm();
  auto is_master = [](const testbed::Background& sm, double seconds) {
    return Fabric::wait_until(
        [&] {
          std::string log = Fabric::read_file(sm.log);
          size_t m = log.find("Entering MASTER state");
          return m != std::string::npos && log.find("SUBNET UP", m) != std::string::npos;
        },
        seconds);
  };
  bool taken_over = is_master(standby, 60);
  std::string stuck_log;
  if (!taken_over) {
    // Under ibsim the standby OpenSM sometimes enters DISCOVERING after
    // its polls go unanswered and never leaves it (seen about once in
    // fifteen runs; its log ends there): OpenSM's failure, not the tools'.
    // An OpenSM started again on the same node (same port, same LID)
    // finds no master and becomes one, which is the takeover this test
    // needs for the tools.
    stuck_log = Fabric::read_file(standby.log);
    f.stop_background(standby);
    standby = f.start_sm(standby_opts);
    taken_over = is_master(standby, 90);
  }
  ASSERT_TRUE(taken_over) << stuck_log << "\n--- started again:\n" << Fabric::read_file(standby.log);

  // sminfo asks the SM the port knows now.
  r = f.run({IBTOOL_PATH, "sminfo"}, {}, 60);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("sminfo: sm lid " + std::to_string(standby_lid) + " "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("priority 1 state 3 SMINFO_MASTER"), std::string::npos) << r.out;
  // The SA answers, and its records of the SM ports name the new master ...
  r = f.run({IBTOOL_PATH, "saquery", "-s"}, {}, 60);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("EndPortLid.............." + std::to_string(standby_lid) + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("master_sm_base_lid......" + std::to_string(standby_lid) + "\n"), std::string::npos) << r.out;
  // ... a PM query whose path is the SA's PathRecord ...
  r = f.run({IBTOOL_PATH, "perfquery", std::to_string(standby_lid), "1"}, {}, 60);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PortXmitData"), std::string::npos) << r.out;
  // ... and a discovery through the SA alone.
  r = f.run({IBTOOL_PATH, "ibnetdiscover", "--sa"}, {}, 120);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(count_of(r.out, "\nSwitch\t"), 2u) << r.out;
  EXPECT_EQ(count_of(r.out, "\nCa\t"), 4u) << r.out;

  // The exporter, never restarted, serves a whole scrape.
  json after = scrape(f, port);
  EXPECT_EQ(scalar(after, "ib_scrape_success"), 1);
  EXPECT_EQ(count(after, "ib_port_symbol_error_total"), ports);
  EXPECT_EQ(scalar(after, "ib_scrape_failed_queries"), 0) << Fabric::read_file(exporter.err);
  EXPECT_EQ(f.stop_background(exporter), 128 + SIGTERM) << Fabric::read_file(exporter.err);
}
