// Helpers of the --json integration tests (json_output_test.cpp,
// json_more_test.cpp): run a command as text and as JSON on a simulated
// fabric, parse the document, read the text's lines.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "iba/introspect.h"
#include "iba/mad.h"
#include "test/integration/ibtool_bin.h"
#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace jsontest {

using nlohmann::json;

using ittest::ib;

inline std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l)) v.push_back(l);
  return v;
}

// The lines of text that re matches, as a map of its first group to its
// second ("name: value" layouts).
inline std::map<std::string, std::string> named_values(const std::string& text, const std::regex& re) {
  std::map<std::string, std::string> m;
  for (auto& l : lines(text)) {
    std::smatch x;
    if (std::regex_search(l, x, re)) m[x[1]] = x[2];
  }
  return m;
}

inline uint64_t hex(const std::string& s) { return std::stoull(s, nullptr, 16); }
inline uint64_t guid_of(const json& j) { return std::stoull(j.get<std::string>(), nullptr, 16); }
// The field iba/pm.h declares under the reference's counter name
// ("SymbolErrorCounter" -> "symbolErrorCounter"): the --json key of a
// counter the text names.  Its own name when no PM attribute declares it.
inline std::string pm_field(const std::string& text_name) {
  for (const iba::ClassDesc* c : iba::all_classes()) {
    if (c->mgmt_class != iba::mgmt::PERF) continue;
    for (const iba::AttrDesc& a : c->attrs)
      for (const iba::FieldDesc& f : a.desc->field_list())
        if (iba::iequals(f.name, text_name)) return std::string(f.name);
  }
  return text_name;
}
// A "DRPath" array ([0,1,5]) as the text writes the route ("0,1,5").
inline std::string dr_text(const json& a) {
  std::string s;
  for (const json& h : a) s += (s.empty() ? "" : ",") + std::to_string(h.get<unsigned>());
  return s;
}

// The text run and the --json run of args on f; the JSON parsed (a parse
// failure fails the test), the exit statuses compared.  jr: the JSON run.
inline std::pair<testbed::Result, json> both(const testbed::Fabric& f, std::vector<std::string> args,
                                             testbed::Result* jr = nullptr) {
  auto t = f.run(ib(args));
  args.push_back("--json");
  auto r = f.run(ib(args));
  if (jr) *jr = r;
  EXPECT_EQ(r.status, t.status) << r.err;
  json d;
  try {
    d = json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not one JSON document: " << e.what() << "\n" << r.out << r.err;
  }
  return {t, d};
}

// A run that fails: the --json run ends with the text run's status (not 0)
// and leaves stdout empty.  The --json run returned (its stderr to check).
inline testbed::Result fails_alike(const testbed::Fabric& f, std::vector<std::string> args) {
  auto t = f.run(ib(args));
  args.push_back("--json");
  auto r = f.run(ib(args));
  EXPECT_NE(t.status, 0) << t.out << t.err;
  EXPECT_EQ(r.status, t.status) << r.err;
  EXPECT_EQ(r.out, "") << r.err;
  return r;
}

// A suite whose tests share one fabric, net.2sw2path4hca as the testbed
// lays it out: Hca1 (0x100000) lid 1, Switch1 (0x200000) lid 2, Switch2
// (0x200001) lid 3, Hca2 (0x100003, port 0x100004) lid 4, Hca3 lid 5, Hca4
// lid 6.  Suite: the deriving fixture (one fabric per suite).
template <class Suite>
class SharedFabric : public ::testing::Test {
protected:
  static void SetUpTestSuite() { f_ = new testbed::Fabric(testbed::generate("example net.2sw2path4hca")); }
  static void TearDownTestSuite() {
    delete f_;
    f_ = nullptr;
  }
  static inline testbed::Fabric* f_ = nullptr;
};

}  // namespace jsontest
