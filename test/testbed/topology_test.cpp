#include "test/testbed/topology.h"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

namespace {

struct Parsed {
  std::vector<std::string> kinds, names;
  // (node, port) -> (peer, peer port)
  std::map<std::pair<std::string, int>, std::pair<std::string, int>> links;
};

Parsed parse(const std::string& text) {
  Parsed p;
  std::istringstream in(text);
  std::string line, cur;
  static const std::regex header(R"(^(Switch|Hca)\s+(\d+)\s+\"(.*)\"\s*$)");
  static const std::regex port(R"(^\[(\d+)\]\s+\"(.*)\"\[(\d+)\](\s+w=\d+)?\s*$)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, header)) {
      p.kinds.push_back(m[1]);
      p.names.push_back(cur = m[3]);
    } else if (std::regex_match(line, m, port)) {
      EXPECT_FALSE(cur.empty());
      auto key = std::make_pair(cur, std::stoi(m[1]));
      EXPECT_EQ(p.links.count(key), 0u) << "port listed twice: " << line;
      p.links[key] = {m[2], std::stoi(m[3])};
    }
  }
  return p;
}

void expect_consistent(const Parsed& p) {
  ASSERT_FALSE(p.kinds.empty());
  EXPECT_EQ(p.kinds.front(), "Hca") << "a host must be listed first";
  std::set<std::string> names(p.names.begin(), p.names.end());
  EXPECT_EQ(names.size(), p.names.size()) << "node names must be unique";
  for (const auto& [a, b] : p.links) {
    EXPECT_TRUE(names.count(b.first)) << "link to unknown node " << b.first;
    auto back = p.links.find(b);
    ASSERT_NE(back, p.links.end()) << a.first << "[" << a.second << "] -> " << b.first << "[" << b.second
                                   << "] has no reverse";
    EXPECT_EQ(back->second, a);
  }
}

TEST(Topology, FatTreeSizes) {
  for (int k : {2, 4, 8, 32}) {
    auto t = testbed::fattree(k);
    auto s = testbed::topo_size(t);
    EXPECT_EQ(s.hcas, k * k * k / 4) << "k=" << k;
    EXPECT_EQ(s.switches, 5 * k * k / 4) << "k=" << k;
    Parsed p = parse(t);
    expect_consistent(p);
    // Every switch port is used: k ports each; every host port too.
    EXPECT_EQ(p.links.size(), size_t(s.switches) * k + s.hcas) << "k=" << k;
  }
  EXPECT_EQ(testbed::topo_size(testbed::fattree(32)).nodes, 9472);
  EXPECT_THROW(testbed::fattree(3), std::runtime_error);
  EXPECT_THROW(testbed::generate("fattree x"), std::runtime_error);
}

TEST(Topology, IrregularFeatures) {
  auto t = testbed::irregular(true);
  Parsed p = parse(t);
  expect_consistent(p);
  // Parallel links: some pair of switches joined by more than one link.
  std::map<std::pair<std::string, std::string>, int> pairs;
  for (const auto& [a, b] : p.links) pairs[{a.first, b.first}]++;
  int most = 0;
  for (const auto& [k, n] : pairs) most = std::max(most, n);
  EXPECT_GE(most, 2);
  // A dual-port host with its ports on two different switches.
  bool split = false;
  for (const auto& n : p.names) {
    auto a = p.links.find({n, 1}), b = p.links.find({n, 2});
    if (a != p.links.end() && b != p.links.end() && a->second.first != b->second.first) split = true;
  }
  EXPECT_TRUE(split);
  EXPECT_NE(t.find("w=1"), std::string::npos);
  EXPECT_EQ(testbed::irregular(false).find("w=1"), std::string::npos);
  EXPECT_NE(t.find("\xc5\x93"), std::string::npos);  // UTF-8 in a description
  EXPECT_NE(t.find('\''), std::string::npos);
  // Unconnected ports: more ports declared than linked.
  EXPECT_GT(testbed::topo_size(t).ports - testbed::topo_size(t).nodes, int(p.links.size()));
}

// The larger irregular fabric (issue 35): the same text for the same
// count, every switch reached, chains that make it deep, parallel links,
// dual-port hosts split over two switches, unconnected ports.
TEST(Topology, IrregularLarge) {
  auto t = testbed::irregular_large(64);
  EXPECT_EQ(t, testbed::generate("irregular-large 64"));
  EXPECT_NE(t, testbed::irregular_large(65));
  Parsed p = parse(t);
  expect_consistent(p);
  const testbed::TopoSize s = testbed::topo_size(t);
  EXPECT_EQ(s.switches, 64 + 8 * 3);
  EXPECT_GT(s.hcas, 64 * 2);
  EXPECT_EQ(t.rfind("Hca", 0), 0u);  // a host first
  std::map<std::pair<std::string, std::string>, int> pairs;
  for (const auto& [a, b] : p.links) pairs[{a.first, b.first}]++;
  int most = 0;
  for (const auto& [k, n] : pairs) most = std::max(most, n);
  EXPECT_GE(most, 2);
  // Breadth first from the first host: everything but the half-connected
  // hosts' first ports is reached, the chains' hosts 5 or more hops away.
  std::map<std::string, int> hops{{"mesh host 1.0", 0}};
  std::vector<std::string> todo{"mesh host 1.0"};
  for (size_t k = 0; k < todo.size(); ++k)
    for (const auto& [a, b] : p.links)
      if (a.first == todo[k] && !hops.count(b.first)) {
        hops[b.first] = hops[todo[k]] + 1;
        todo.push_back(b.first);
      }
  EXPECT_EQ(int(hops.size()), s.nodes);
  EXPECT_GE(hops["chain host 7"], 5);
  EXPECT_GT(s.ports - s.nodes, int(p.links.size()));
  EXPECT_THROW(testbed::generate("irregular-large 3"), std::runtime_error);
  EXPECT_THROW(testbed::generate("irregular-large x"), std::runtime_error);
}

TEST(Topology, ExamplesPutAHostFirst) {
  auto names = testbed::example_names();
  ASSERT_FALSE(names.empty()) << "ibsim-utils' net-examples are missing";
  for (const auto& n : names) {
    auto t = testbed::example(n);
    Parsed p = parse(t);
    ASSERT_FALSE(p.kinds.empty()) << n;
    EXPECT_EQ(p.kinds.front(), "Hca") << n;
  }
  EXPECT_THROW(testbed::example("no-such-example"), std::runtime_error);
  EXPECT_THROW(testbed::generate("bogus"), std::runtime_error);
}

}  // namespace
