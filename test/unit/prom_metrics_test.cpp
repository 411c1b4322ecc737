// The Prometheus text writer (core/out/promtext) and the metric names and
// HELP made from the iba/ declarations (core/health/pmmetrics).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>

#include "core/health/pmmetrics.h"
#include "core/out/promtext.h"
#include "iba/pm.h"

namespace {

using namespace ibcore;

TEST(PromText, FloatsShortestRoundTrip) {
  for (double v : {0.1, 1.0 / 3, 0.000123, 12345678.9, 1e21, 2.5e-308, 123456789012345678.0}) {
    std::string s;
    prom::append_double(s, v);
    EXPECT_EQ(std::strtod(s.c_str(), nullptr), v) << s;
    char b[40];
    std::snprintf(b, sizeof b, "%.17g", v);
    EXPECT_LE(s.size(), std::string(b).size()) << s;
  }
  std::string s;
  prom::append_double(s, 0.1);
  EXPECT_EQ(s, "0.1");
  s.clear();
  prom::append_double(s, std::numeric_limits<double>::infinity());
  EXPECT_EQ(s, "+Inf");
  s.clear();
  prom::append_double(s, std::nan(""));
  EXPECT_EQ(s, "NaN");
}

TEST(PromText, LabelsAndHelpEscaped) {
  std::string l;
  prom::label(l, "node_desc", "a \"b\"\\c\nd");
  prom::label(l, "port", "1");
  EXPECT_EQ(l, "node_desc=\"a \\\"b\\\"\\\\c\\nd\",port=\"1\"");
  std::string out;
  {
    prom::Writer w([&](const char* d, size_t n) { out.append(d, n); });
    w.family("x_total", "counter", "two\nlines \\ here");
    w.sample("x_total", l, uint64_t(18446744073709551615ull));
    w.sample("y", "", 0.5);
  }
  EXPECT_EQ(out,
            "# HELP x_total two\\nlines \\\\ here\n# TYPE x_total counter\n"
            "x_total{node_desc=\"a \\\"b\\\"\\\\c\\nd\",port=\"1\"} 18446744073709551615\ny 0.5\n");
}

TEST(PmMetrics, NamesFollowPrometheusAndNodeExporter) {
  auto m = health::counter_metrics({&iba::PMPortCounters::DESC, &iba::PMPortCountersExtended::DESC});
  std::set<std::string> names;
  for (const auto& x : m) {
    EXPECT_TRUE(names.insert(x.name).second) << "two fields named " << x.name;
    EXPECT_EQ(x.name.rfind("ib_port_", 0), 0u) << x.name;
    EXPECT_TRUE(x.name.ends_with("_total")) << x.name;
    EXPECT_EQ(x.name.find("counter"), std::string::npos) << x.name;
    EXPECT_NE(x.help.find("From Port"), std::string::npos) << x.help;
  }
  // 18 PortCounters counters + 4 unicast/multicast of the extended one.
  EXPECT_EQ(m.size(), 22u);
  auto find = [&](const std::string& f) {
    for (const auto& x : m)
      if (x.field == f) return x;
    ADD_FAILURE() << f;
    return health::CounterMetric{};
  };
  EXPECT_EQ(find("portXmitData").name, "ib_port_data_transmitted_bytes_total");
  EXPECT_EQ(find("portXmitData").scale, 4u);
  EXPECT_EQ(find("portRcvPkts").name, "ib_port_packets_received_total");
  EXPECT_EQ(find("portRcvPkts").scale, 1u);
  EXPECT_EQ(find("symbolErrorCounter").name, "ib_port_symbol_error_total");
  EXPECT_EQ(find("linkDownedCounter").name, "ib_port_link_downed_total");
  EXPECT_EQ(find("portXmitWait").name, "ib_port_transmit_wait_total");
  // The HELP gives each source and its width, from the declarations.
  EXPECT_NE(find("symbolErrorCounter").help.find("PortCounters.SymbolErrorCounter (16 bits)"), std::string::npos);
  EXPECT_NE(find("symbolErrorCounter").help.find("PortCountersExtended.SymbolErrorCounter (64 bits)"),
            std::string::npos);
  EXPECT_NE(find("portUnicastXmitPkts").help.find("PortCountersExtended.PortUnicastXmitPkts (64 bits)"),
            std::string::npos);
  // A field without an entry still gets a sound name.
  EXPECT_EQ(health::counter_metric_name("portFooBarCounter"), "ib_port_foo_bar_total");
  for (const auto& g : health::link_metrics()) EXPECT_NE(g.help.find("PortInfo."), std::string::npos) << g.name;
  EXPECT_NE(health::link_metrics()[0].help.find("1 Down"), std::string::npos);
}

}  // namespace
