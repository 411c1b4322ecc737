// ibtool exporter on the simulated fabric: the exposition text parsed by
// prometheus_client's parser (test/integration/prom_to_json.py), values
// checked against counters set through ibsim's console (PerformanceSet),
// a second scrape after more are set, --reset-saturated clearing only the
// saturated counter, a scrape during a removed link, and /metrics over
// HTTP on 127.0.0.1.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

using nlohmann::json;

const std::string kParser = std::string(IBTOOL_SOURCE_DIR) + "/test/integration/prom_to_json.py";

struct Scrape {
  json samples;
  // The value of name for a port, by node description and port number
  // (-1: no such sample).
  double value(const std::string& name, const std::string& node, int port) const {
    for (const json& s : samples)
      if (s["name"] == name && s["labels"].value("node_desc", "") == node &&
          s["labels"].value("port", "") == std::to_string(port))
        return s["value"].get<double>();
    return -1;
  }
  double scalar(const std::string& name) const {
    for (const json& s : samples)
      if (s["name"] == name) return s["value"].get<double>();
    return -1;
  }
  size_t count(const std::string& name, const std::string& node = "") const {
    size_t n = 0;
    for (const json& s : samples)
      n += s["name"] == name && (node.empty() || s["labels"].value("node_desc", "") == node);
    return n;
  }
};

class Exporter : public ::testing::Test {
protected:
  void SetUp() override { f_ = std::make_unique<testbed::Fabric>(testbed::generate("example net.2sw2path4hca")); }
  // One scrape with --once (plus args), parsed.
  Scrape scrape(const std::string& args = "") {
    auto r = f_->sh(std::string(IBTOOL_PATH) + " exporter --once " + args + " > m.prom && /usr/bin/python3 " +
                    kParser + " < m.prom");
    EXPECT_EQ(r.status, 0) << r.err;
    Scrape s;
    try {
      s.samples = json::parse(r.out);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "parser output: " << e.what() << r.out << r.err;
    }
    return s;
  }
  std::unique_ptr<testbed::Fabric> f_;
};

TEST_F(Exporter, CountersAsSetThenMoreThenReset) {
  f_->console("PerformanceSet \"Switch1\"[2] PortCounters.SymbolErrorCounter=5");
  f_->console("PerformanceSet \"Hca2\"[1] PortCounters.PortXmitDiscards=7");
  f_->console("PerformanceSet \"Switch2\"[3] PortCountersExtended.PortXmitData=5000000000");
  Scrape a = scrape();
  EXPECT_EQ(a.scalar("ib_scrape_success"), 1);
  EXPECT_EQ(a.scalar("ib_scrape_nodes"), 6);
  EXPECT_EQ(a.scalar("ib_scrape_timeouts"), 0);
  EXPECT_GT(a.scalar("ib_scrape_mads"), 0);
  EXPECT_EQ(a.value("ib_port_counters_symbol_error_counter_total", "Switch1", 2), 5);
  EXPECT_EQ(a.value("ib_port_counters_symbol_error_counter_total", "Switch1", 1), 0);
  EXPECT_EQ(a.value("ib_port_counters_port_xmit_discards_total", "Hca2", 1), 7);
  // Every PortCounters counter, for every port asked (16 switch ports, 4 CA ports).
  EXPECT_EQ(a.count("ib_port_counters_vl15_dropped_total"), 20u);
  EXPECT_EQ(a.count("ib_port_counters_port_xmit_wait_total"), 20u);
  // The data counters come from PortCountersExtended (64 bits; ibsim's PMAs
  // have it), not from PortCounters' 32-bit copies; ibsim's PMAs lack the
  // additional extended counters, so the errors come from PortCounters.
  EXPECT_EQ(a.count("ib_port_counters_port_xmit_data_total"), 0u);
  EXPECT_EQ(a.count("ib_port_counters_ext_port_xmit_data_total"), 20u);
  EXPECT_EQ(a.count("ib_port_counters_ext_port_unicast_xmit_pkts_total"), 20u);
  EXPECT_EQ(a.count("ib_port_counters_ext_symbol_error_counter_total"), 0u);
  double xd = a.value("ib_port_counters_ext_port_xmit_data_total", "Switch2", 3);
  EXPECT_GE(xd, 5e9);  // (plus the scrape's own MADs through that port)
  EXPECT_LT(xd, 5e9 + 1e7);
  // Switch2's AllPortSelect sum shows no error: its ports' error counters
  // are 0 without their own PortCounters reads; Switch1's shows one, so
  // its ports are read one by one, as are the CA ports (no sum there).
  EXPECT_EQ(a.scalar("ib_scrape_pm_all_port_sums"), 2);
  EXPECT_EQ(a.scalar("ib_scrape_pm_clean_sums"), 1);
  EXPECT_EQ(a.scalar("ib_scrape_pm_port_counters_reads"),
            double(a.count("ib_port_counters_vl15_dropped_total", "Switch1") + 4));
  EXPECT_EQ(a.scalar("ib_scrape_pm_port_counters_ext_reads"), 20);
  EXPECT_EQ(a.value("ib_port_counters_symbol_error_counter_total", "Switch2", 1), 0);
  EXPECT_EQ(a.value("ib_port_counters_saturated", "Switch2", 1), 0);
  EXPECT_EQ(a.value("ib_port_port_state", "Hca2", 1), 4);
  EXPECT_EQ(a.value("ib_port_link_width_active", "Hca2", 1), 2);
  // Labels: the remote end.
  for (const json& s : a.samples)
    if (s["name"] == "ib_port_port_state" && s["labels"]["node_desc"] == "Hca2") {
      EXPECT_EQ(s["labels"]["remote_desc"], "Switch2");
      EXPECT_EQ(s["labels"]["remote_port"], "1");
      EXPECT_EQ(s["labels"]["node_type"], "CA");
      EXPECT_EQ(s["labels"]["lid"], "4");
    }

  // More injected: the second scrape follows.
  f_->console("PerformanceSet \"Switch1\"[2] PortCounters.SymbolErrorCounter=9");
  f_->console("PerformanceSet \"Hca3\"[1] PortCounters.LinkDownedCounter=3");
  f_->console("PerformanceSet \"Switch2\"[4] PortCounters.PortRcvErrors=4");
  Scrape b = scrape();
  // Switch2's sum now shows the error: its ports are read, the value shows.
  EXPECT_EQ(b.value("ib_port_counters_port_rcv_errors_total", "Switch2", 4), 4);
  EXPECT_EQ(b.value("ib_port_counters_port_rcv_errors_total", "Switch2", 3), 0);
  EXPECT_EQ(b.scalar("ib_scrape_pm_clean_sums"), 0);
  EXPECT_EQ(b.value("ib_port_counters_symbol_error_counter_total", "Switch1", 2), 9);
  EXPECT_EQ(b.value("ib_port_counters_link_downed_counter_total", "Hca3", 1), 3);
  EXPECT_EQ(b.value("ib_port_counters_port_xmit_discards_total", "Hca2", 1), 7);
  EXPECT_EQ(b.value("ib_port_counters_saturated", "Hca3", 1), 0);

  // Saturated (16-bit SymbolErrorCounter at 65535): flagged, and with
  // --reset-saturated reset alone (the port's other counters stay).
  f_->console("PerformanceSet \"Hca2\"[1] PortCounters.SymbolErrorCounter=65535");
  Scrape c = scrape("--reset-saturated");
  EXPECT_EQ(c.value("ib_port_counters_saturated", "Hca2", 1), 1);
  EXPECT_EQ(c.value("ib_port_counters_saturated_reset", "Hca2", 1), 1);
  EXPECT_EQ(c.scalar("ib_scrape_saturated_resets"), 1);
  Scrape d = scrape();
  EXPECT_EQ(d.value("ib_port_counters_symbol_error_counter_total", "Hca2", 1), 0);
  EXPECT_EQ(d.value("ib_port_counters_port_xmit_discards_total", "Hca2", 1), 7);
  EXPECT_EQ(d.value("ib_port_counters_saturated", "Hca2", 1), 0);
  EXPECT_EQ(d.value("ib_port_counters_symbol_error_counter_total", "Switch1", 2), 9);
}

TEST_F(Exporter, ScrapeDuringARemovedLink) {
  f_->console("Unlink \"Hca4\"[1]");
  auto t0 = std::chrono::steady_clock::now();
  Scrape s = scrape("-t 100");
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(secs, 30);
  EXPECT_EQ(s.scalar("ib_scrape_success"), 1);
  // Hca4 is gone; the rest is read, the switch port it hung on is down.
  EXPECT_EQ(s.scalar("ib_scrape_nodes"), 5);
  EXPECT_EQ(s.value("ib_port_port_state", "Hca4", 1), -1);
  EXPECT_EQ(s.value("ib_port_port_state", "Switch2", 2), 1);
  EXPECT_EQ(s.value("ib_port_counters_symbol_error_counter_total", "Hca2", 1), 0);
  EXPECT_GE(s.scalar("ib_scrape_duration_seconds"), 0);
}

TEST_F(Exporter, ServesMetricsOverHttp) {
  // A free port on 127.0.0.1, the server in the background, two GETs.
  auto r = f_->sh(
      "port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); "
      "print(s.getsockname()[1])'); " +
      std::string(IBTOOL_PATH) +
      " exporter --listen 127.0.0.1:$port 2>srv.err & pid=$!; "
      "for i in $(seq 50); do grep -q serving srv.err && break; sleep 0.1; done; "
      "/usr/bin/python3 -c 'import sys, urllib.request as u; "
      "b = u.urlopen(\"http://127.0.0.1:%s/metrics\" % sys.argv[1], timeout=30).read(); "
      "b2 = u.urlopen(\"http://127.0.0.1:%s/metrics\" % sys.argv[1], timeout=30).read(); "
      "sys.stdout.write(b2.decode())' $port > http.prom; rc=$?; kill $pid; "
      "[ $rc = 0 ] && /usr/bin/python3 " + kParser + " < http.prom");
  ASSERT_EQ(r.status, 0) << r.err;
  Scrape s;
  s.samples = json::parse(r.out);
  EXPECT_EQ(s.scalar("ib_scrape_success"), 1);
  EXPECT_EQ(s.count("ib_port_counters_symbol_error_counter_total"), 20u);
  // A bad address is refused clearly.
  auto bad = f_->run({IBTOOL_PATH, "exporter", "--listen", "nonsense"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("ADDR:PORT"), std::string::npos);
}

}  // namespace

namespace {

// --details adds the details attributes; --node-name-map names the nodes
// in the labels.
TEST_F(Exporter, DetailsAndNodeNameMap) {
  ASSERT_EQ(f_->sh("echo '0x0000000000100003 \"rack 4 hca two\"' > map.txt").status, 0);
  Scrape s = scrape("--details --node-name-map map.txt");
  EXPECT_EQ(s.count("ib_port_rcv_error_details_port_local_physical_errors_total"), 20u);
  EXPECT_EQ(s.count("ib_port_xmit_discard_details_port_inactive_discards_total"), 20u);
  EXPECT_EQ(s.scalar("ib_scrape_failed_queries"), 0);
  bool named = false;
  for (const json& x : s.samples)
    if (x["name"] == "ib_port_port_state" && x["labels"]["node_guid"] == "0x0000000000100003") {
      EXPECT_EQ(x["labels"]["node_desc"], "rack 4 hca two");
      named = true;
    }
  EXPECT_TRUE(named);
}

}  // namespace

namespace {

// A node that drops every MAD: the scrape still ends (bounded by the
// timeouts), reads the rest and counts the trouble.
TEST_F(Exporter, ScrapeWithANodeThatDropsMads) {
  f_->console("Error \"Hca3\"[1] 100");
  auto t0 = std::chrono::steady_clock::now();
  Scrape s = scrape("-t 100 --retries 1");
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(secs, 30);
  EXPECT_EQ(s.scalar("ib_scrape_success"), 1);
  EXPECT_GE(s.scalar("ib_scrape_discovery_errors") + s.scalar("ib_scrape_unreachable_nodes") +
                s.scalar("ib_scrape_failed_queries"),
            1);
  EXPECT_GE(s.scalar("ib_scrape_mads_resent"), 1);
  EXPECT_EQ(s.value("ib_port_counters_symbol_error_counter_total", "Hca2", 1), 0);
  EXPECT_EQ(s.value("ib_port_counters_symbol_error_counter_total", "Hca3", 1), -1);
}

}  // namespace
