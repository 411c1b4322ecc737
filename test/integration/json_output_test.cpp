// --json on the simulated fabric: each command's document parsed by a real
// parser (nlohmann::json) and its values compared with what the same
// command prints as text on the same fabric; errors stay on stderr with the
// text run's exit status; commands and modes without a JSON form refuse
// --json instead of printing text.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "test/integration/json_check.h"
#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

using nlohmann::json;
using jsontest::guid_of;
using jsontest::hex;
using jsontest::ib;
using jsontest::lines;

class Json : public jsontest::SharedFabric<Json> {
protected:
  // The text run and the --json run of args; the JSON parsed (a parse
  // failure fails the test).
  static std::pair<testbed::Result, json> both(std::vector<std::string> args, testbed::Result* jr = nullptr) {
    return jsontest::both(*f_, std::move(args), jr);
  }
};

// The links of the topology text and of the JSON: (node GUID, port, remote
// node GUID, remote port); nodes by GUID, type and description.
TEST_F(Json, IbnetdiscoverHasTheTextsNodesAndLinks) {
  auto [t, d] = both({"ibnetdiscover"});
  ASSERT_EQ(t.status, 0);
  std::set<std::tuple<uint64_t, unsigned, uint64_t, unsigned>> tl, jl;
  std::map<uint64_t, std::string> tn, jn;
  std::regex node(R"re(^(Switch|Ca|Rt)\s+(\d+)\s+"[SHR]-([0-9a-f]{16})"\s+# "([^"]*)")re");
  std::regex link(R"re(^\[(\d+)\](?:\([0-9a-f]+\))?\s+"[SHR]-([0-9a-f]{16})"\[(\d+)\])re");
  uint64_t cur = 0;
  for (auto& l : lines(t.out)) {
    std::smatch m;
    if (std::regex_search(l, m, node)) {
      cur = hex(m[3]);
      tn[cur] = std::string(m[1] == "Ca" ? "CA" : m[1] == "Rt" ? "Router" : "Switch") + "/" + m[4].str();
    } else if (std::regex_search(l, m, link)) {
      tl.insert({cur, std::stoul(m[1]), hex(m[2]), std::stoul(m[3])});
    }
  }
  for (const json& n : d["nodes"]) {
    uint64_t g = guid_of(n["nodeGUID"]);
    jn[g] = n["nodeType"].get<std::string>() + "/" + n["nodeDescription"].get<std::string>();
    EXPECT_EQ(n["nodeInfo"]["nodeGUID"], n["nodeGUID"]);
    for (const json& p : n["ports"])
      jl.insert({g, p["portNum"].get<unsigned>(), guid_of(p["remote"]["nodeGUID"]), p["remote"]["portNum"].get<unsigned>()});
  }
  EXPECT_EQ(tn.size(), 6u);
  EXPECT_EQ(jn, tn);
  EXPECT_FALSE(tl.empty());
  EXPECT_EQ(jl, tl);

  // -l: the same nodes, no ports; --pretty: the same document.
  auto [tl2, dl] = both({"ibnetdiscover", "-l"});
  EXPECT_EQ(dl["nodes"].size(), lines(tl2.out).size());
  EXPECT_FALSE(dl["nodes"][0].contains("ports"));
  auto p = f_->run(ib({"ibnetdiscover", "--pretty"}));
  ASSERT_EQ(p.status, 0);
  json dp = json::parse(p.out);
  EXPECT_GT(lines(p.out).size(), 100u);
  EXPECT_EQ(dp, d);
}

// iblinkinfo -l: one line a port; the JSON's ports with the same LID, port,
// state and remote end.
TEST_F(Json, IblinkinfoHasTheTextsPorts) {
  auto [t, d] = both({"iblinkinfo", "-l"});
  ASSERT_EQ(t.status, 0);
  using Row = std::tuple<uint64_t, unsigned, unsigned, std::string, unsigned, unsigned>;
  std::set<Row> tr, jr;
  std::regex row(R"re(^0x([0-9a-f]{16}) ".*"\s+(\d+)\s+(\d+)\[..\] ==\(.*?(\w+)/\s*\w+\)==>\s+0x[0-9a-f]{16}\s+(\d+)\s+(\d+)\[)re");
  for (auto& l : lines(t.out)) {
    std::smatch m;
    if (std::regex_search(l, m, row))
      tr.insert({hex(m[1]), std::stoul(m[2]), std::stoul(m[3]), m[4], std::stoul(m[5]), std::stoul(m[6])});
  }
  for (const json& n : d["nodes"])
    for (const json& p : n["ports"])
      if (!p["remote"].is_null())
        jr.insert({guid_of(p["portGUID"]), p["LID"].get<unsigned>(), p["portNum"].get<unsigned>(),
                   p["portState"].get<std::string>(), p["remote"]["LID"].get<unsigned>(),
                   p["remote"]["portNum"].get<unsigned>()});
  EXPECT_EQ(tr.size(), 12u);  // 4 links between switches and CAs, 2 between the switches: 12 ends
  EXPECT_EQ(jr, tr);
}

// dump_fts: every row (switch, LID, out port, destination port GUID).
TEST_F(Json, DumpFtsHasTheTextsRows) {
  auto [t, d] = both({"dump_fts"});
  ASSERT_EQ(t.status, 0);
  using Row = std::tuple<uint64_t, unsigned, unsigned, uint64_t>;
  std::set<Row> tr, jr;
  std::regex head(R"re(guid 0x([0-9a-f]{16}) \()re");
  std::regex row(R"re(^0x([0-9a-f]{4}) (\d{3}) : \(.* portguid 0x([0-9a-f]{16}):)re");
  uint64_t sw = 0;
  for (auto& l : lines(t.out)) {
    std::smatch m;
    if (l.rfind("Unicast lids", 0) == 0 && std::regex_search(l, m, head)) sw = hex(m[1]);
    else if (std::regex_search(l, m, row)) tr.insert({sw, unsigned(hex(m[1])), std::stoul(m[2]), hex(m[3])});
  }
  std::map<unsigned, uint64_t> dest;  // LID -> port GUID, listed once
  for (const json& e : d["destinations"]) dest[e["LID"].get<unsigned>()] = guid_of(e["destination"]["portGUID"]);
  EXPECT_EQ(dest.size(), 6u);
  for (const json& s : d["switches"])
    for (const json& e : s["lft"])
      jr.insert({guid_of(s["nodeGUID"]), e["LID"].get<unsigned>(), e["port"].get<unsigned>(), dest[e["LID"]]});
  EXPECT_EQ(tr.size(), 12u);
  EXPECT_EQ(jr, tr);
}

// ibqueryerrors after counters are set through ibsim's console: the same
// ports and error counter values, the same data counters (their values
// move with the MADs of each run), the same summary and exit status.
TEST_F(Json, IbqueryerrorsHasTheTextsCounters) {
  f_->console("PerformanceSet \"Switch1\"[2] PortCounters.SymbolErrorCounter=5");
  f_->console("PerformanceSet \"Hca2\"[1] PortCounters.PortXmitDiscards=7");
  auto [t, d] = both({"ibqueryerrors", "--data"});
  EXPECT_EQ(t.status, 1);
  std::set<std::tuple<uint64_t, std::string, std::string, uint64_t>> tc, jc;
  std::regex port(R"re(^\s+GUID 0x([0-9a-f]+) port (\w+):)re");
  std::regex item(R"re(\[(\w+) == (\d+))re");
  for (auto& l : lines(t.out)) {
    std::smatch m;
    if (!std::regex_search(l, m, port)) continue;
    uint64_t g = hex(m[1]);
    std::string pn = m[2];
    for (auto it = std::sregex_iterator(l.begin(), l.end(), item); it != std::sregex_iterator(); ++it) {
      bool data = (*it)[1].str().find("Data") != std::string::npos || (*it)[1].str().find("Pkts") != std::string::npos;
      tc.insert({g, pn, jsontest::pm_field((*it)[1]), data ? 0 : std::stoull((*it)[2])});
    }
  }
  for (const json& n : d["nodes"])
    for (const json& p : n["ports"]) {
      std::string pn = p["allPorts"].get<bool>() ? "ALL" : std::to_string(p["portNum"].get<unsigned>());
      for (auto& [name, v] : p["errors"].items()) jc.insert({guid_of(p["portGUID"]), pn, name, v.get<uint64_t>()});
      for (auto& [name, v] : p["data"].items()) {
        EXPECT_GT(v.get<uint64_t>(), 0u) << name;
        jc.insert({guid_of(p["portGUID"]), pn, name, 0});
      }
    }
  // The text's names, the JSON's iba/pm.h ones.
  EXPECT_TRUE(tc.count({0x100004, "1", "portXmitDiscards", 7}));
  EXPECT_TRUE(tc.count({0x200000, "2", "symbolErrorCounter", 5}));
  EXPECT_EQ(jc, tc);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(t.out, m, std::regex(R"re(Summary: (\d+) nodes checked, (\d+) bad)re")));
  EXPECT_EQ(d["summary"]["nodesChecked"], std::stoul(m[1]));
  EXPECT_EQ(d["summary"]["badNodes"], std::stoul(m[2]));
  EXPECT_EQ(d["summary"]["badPorts"], 2);
  // -r: each reported port's link, as the text's "Link info" line names it.
  auto [tr, dr] = both({"ibqueryerrors", "-r"});
  std::smatch li;
  ASSERT_TRUE(std::regex_search(tr.out, li, std::regex(R"re(Link info:\s+(\d+)\s+1\[.*==>\s+0x([0-9a-f]{16})\s+(\d+)\s+(\d+)\[)re")));
  bool found = false;
  for (const json& n : dr["nodes"])
    for (const json& p : n["ports"])
      if (p["portNum"] == 1 && p.contains("link") && p["link"]["LID"] == std::stoul(li[1])) {
        EXPECT_EQ(guid_of(p["link"]["remote"]["portGUID"]), hex(li[2]));
        EXPECT_EQ(p["link"]["remote"]["LID"], std::stoul(li[3]));
        EXPECT_EQ(p["link"]["remote"]["portNum"], std::stoul(li[4]));
        found = true;
      }
  EXPECT_TRUE(found) << tr.out;
  f_->console("PerformanceSet \"Switch1\"[2] PortCounters.SymbolErrorCounter=0");
  f_->console("PerformanceSet \"Hca2\"[1] PortCounters.PortXmitDiscards=0");
}

// A failure: nothing on stdout, the message on stderr, the text run's
// status.
TEST_F(Json, ErrorsStayOnStderrWithTheSameStatus) {
  testbed::Result r;
  auto t = f_->run(ib({"ibnetdiscover", "-C", "nosuch"}));
  r = f_->run(ib({"ibnetdiscover", "-C", "nosuch", "--json"}));
  EXPECT_NE(t.status, 0);
  EXPECT_EQ(r.status, t.status);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("iberror: failed"), std::string::npos) << r.err;
}

// Modes and commands without a JSON form refuse --json.
TEST_F(Json, NoJsonFormRefusesJson) {
  for (std::vector<std::string> a : {std::vector<std::string>{"ibnetdiscover", "-p", "--json"},
                                     {"ibnetdiscover", "-g", "-j"},
                                     {"dump_lfts", "--json"},
                                     {"ibsendtrap", "--json"}}) {
    auto r = f_->run(ib(a));
    EXPECT_NE(r.status, 0) << a[0];
    EXPECT_EQ(r.out, "") << a[0];
    EXPECT_NE(r.err.find("json"), std::string::npos) << r.err;
  }
}

}  // namespace

namespace {

// The "name:.....value" lines of the reference's attribute layouts, by name
// with the dots and spaces gone.
std::map<std::string, std::string> dotted(const std::string& text) {
  return jsontest::named_values(text, std::regex(R"re(^\s*(\w+):?\.+\s*(.*?)\s*$)re"));
}

// smpquery, sminfo and perfquery: the attribute's fields under their iba/
// names, with the values the text shows.
TEST_F(Json, SmpqueryPerfquerySminfoHaveTheTextsValues) {
  auto [t, d] = both({"smpquery", "nodeinfo", "2"});
  ASSERT_EQ(t.status, 0);
  auto m = dotted(t.out);
  EXPECT_EQ(d["NodeInfo"]["nodeGUID"], m.at("Guid"));
  EXPECT_EQ(d["NodeInfo"]["numPorts"], std::stoul(m.at("NumPorts")));
  EXPECT_EQ(d["NodeInfo"]["nodeType"], "Switch");

  auto [tp, dp] = both({"smpquery", "portinfo", "4", "1"});
  ASSERT_EQ(tp.status, 0);
  m = dotted(tp.out);
  EXPECT_EQ(dp["portNum"], 1);
  EXPECT_EQ(dp["PortInfo"]["LID"], std::stoul(m.at("Lid")));
  EXPECT_EQ(dp["PortInfo"]["portState"], m.at("LinkState"));
  EXPECT_EQ(dp["PortInfo"]["portPhysicalState"], m.at("PhysLinkState"));
  EXPECT_FALSE(dp["PortInfo"].contains("MKey")) << "M_Key only with -K, as the text";

  auto [ts, ds] = both({"sminfo"});
  ASSERT_EQ(ts.status, 0);
  std::smatch x;
  ASSERT_TRUE(std::regex_search(ts.out, x, std::regex(R"re(sm guid 0x([0-9a-f]+), activity count (\d+) priority (\d+) state (\d+))re")));
  EXPECT_EQ(guid_of(ds["SMInfo"]["GUID"]), hex(x[1]));
  EXPECT_EQ(ds["SMInfo"]["priority"], std::stoul(x[3]));
  EXPECT_EQ(ds["SMInfo"]["SMStateRaw"], std::stoul(x[4]));
  EXPECT_FALSE(ds["SMInfo"].contains("SMKey"));

  f_->console("PerformanceSet \"Hca3\"[1] PortCounters.LinkDownedCounter=3");
  auto [tq, dq] = both({"perfquery", "5", "1"});
  ASSERT_EQ(tq.status, 0);
  m = dotted(tq.out);
  EXPECT_EQ(dq["LID"], 5);
  EXPECT_EQ(dq["ports"][0]["PortCounters"]["linkDownedCounter"], 3);
  EXPECT_EQ(dq["ports"][0]["PortCounters"]["linkDownedCounter"], std::stoul(m.at("LinkDownedCounter")));
  EXPECT_EQ(dq["ports"][0]["PortCounters"]["symbolErrorCounter"], std::stoul(m.at("SymbolErrorCounter")));
  f_->console("PerformanceSet \"Hca3\"[1] PortCounters.LinkDownedCounter=0");

  // -c (PortSamplesControl): ibsim's PMA does not answer it, so here only
  // the failure is seen: the text run's status and nothing on stdout.
  auto tc = f_->run(ib({"perfquery", "-c", "5", "1"}));
  auto jc = f_->run(ib({"perfquery", "-c", "5", "1", "--json"}));
  EXPECT_NE(tc.status, 0);
  EXPECT_EQ(jc.status, tc.status);
  EXPECT_EQ(jc.out, "");
}

// The numbers of the text's table rows ("   8: 0xffff 0x0000 ...",
// "ports: in  1, out  2: | 0| 1|...", "VL    : |0x1 |..."), after the
// row's label.
std::vector<std::vector<uint64_t>> table_rows(const std::string& text, const std::regex& row) {
  std::vector<std::vector<uint64_t>> v;
  for (auto& l : lines(text)) {
    std::smatch m;
    if (!std::regex_search(l, m, row)) continue;
    std::vector<uint64_t> nums;
    std::string rest = m.suffix();
    std::regex num(R"(0x[0-9a-fA-F]+|\d+)");
    for (std::sregex_iterator i(rest.begin(), rest.end(), num), e; i != e; ++i) nums.push_back(std::stoull(i->str(), nullptr, 0));
    v.push_back(nums);
  }
  return v;
}

// smpquery's tables: the same entries as the text's rows.
TEST_F(Json, SmpqueryTablesHaveTheTextsValues) {
  std::smatch m;
  for (const char* dest : {"2", "5"}) {  // a switch, a CA
    auto [t, d] = both({"smpquery", "pkeys", dest, "1"});
    ASSERT_EQ(t.status, 0) << t.err;
    std::vector<uint64_t> flat;
    for (auto& r : table_rows(t.out, std::regex(R"(^ *\d+:)"))) flat.insert(flat.end(), r.begin(), r.end());
    ASSERT_TRUE(std::regex_search(t.out, m, std::regex(R"((\d+) pkeys capacity)")));
    EXPECT_EQ(d["PKeyTable"]["capacity"], std::stoul(m[1]));
    EXPECT_EQ(d["PKeyTable"]["PKeyBlock"].get<std::vector<uint64_t>>(), flat) << dest;
    EXPECT_EQ(d["portNum"], 1);
  }

  auto [tg, dg] = both({"smpquery", "guidinfo", "5"});
  ASSERT_EQ(tg.status, 0) << tg.err;
  std::vector<uint64_t> guids;
  for (auto& r : table_rows(tg.out, std::regex(R"(^ *\d+:)"))) guids.insert(guids.end(), r.begin(), r.end());
  ASSERT_EQ(dg["GUIDInfo"]["GUIDs"].size(), guids.size());
  for (size_t i = 0; i < guids.size(); ++i) EXPECT_EQ(guid_of(dg["GUIDInfo"]["GUIDs"][i]), guids[i]);

  auto [ts, ds] = both({"smpquery", "sl2vl", "2", "1"});
  ASSERT_EQ(ts.status, 0) << ts.err;
  auto rows = table_rows(ts.out, std::regex(R"(^ports: in +\d+, out +\d+:)"));
  ASSERT_EQ(ds["SLToVLMappingTable"]["tables"].size(), rows.size());
  ASSERT_GT(rows.size(), 1u);
  for (size_t i = 0; i < rows.size(); ++i) {
    auto& jt = ds["SLToVLMappingTable"]["tables"][i];
    EXPECT_EQ(jt["inPort"], i);
    EXPECT_EQ(jt["outPort"], 1);
    EXPECT_EQ(jt["SLtoVL"].get<std::vector<uint64_t>>(), rows[i]);
  }

  auto [tv, dv] = both({"smpquery", "vlarb", "5", "1"});
  ASSERT_EQ(tv.status, 0) << tv.err;
  ASSERT_TRUE(std::regex_search(tv.out, m, std::regex(R"(LowCap (\d+) HighCap (\d+))")));
  auto& vt = dv["VLArbitrationTable"];
  EXPECT_EQ(vt["VLArbitrationLowCap"], std::stoul(m[1]));
  EXPECT_EQ(vt["VLArbitrationHighCap"], std::stoul(m[2]));
  auto vls = table_rows(tv.out, std::regex(R"(^VL +: \|)"));
  auto ws = table_rows(tv.out, std::regex(R"(^WEIGHT: \|)"));
  std::vector<uint64_t> jvl, jw, tvl, tw;
  for (auto* k : {"low", "high"})
    for (auto& e : vt[k]) {
      jvl.push_back(e["VL"]);
      jw.push_back(e["weight"]);
    }
  for (auto& r : vls) tvl.insert(tvl.end(), r.begin(), r.end());
  for (auto& r : ws) tw.insert(tw.end(), r.begin(), r.end());
  EXPECT_EQ(jvl, tvl);
  EXPECT_EQ(jw, tw);
  EXPECT_FALSE(jvl.empty());
}

}  // namespace

namespace {

// ibhosts, ibswitches, ibnodes: the nodes of the text's lines; ibroute: the
// text's rows with their destinations.
TEST_F(Json, NodeListsAndIbrouteHaveTheTextsValues) {
  for (const char* cmd : {"ibhosts", "ibswitches", "ibnodes"}) {
    auto [t, d] = both({cmd});
    ASSERT_EQ(t.status, 0) << cmd;
    std::vector<std::pair<uint64_t, unsigned>> tn, jn;
    std::regex re(R"re(^(Ca|Switch)\s+: 0x([0-9a-f]+) ports (\d+) )re");
    for (auto& l : lines(t.out)) {
      std::smatch m;
      if (std::regex_search(l, m, re)) tn.push_back({hex(m[2]), std::stoul(m[3])});
    }
    for (const json& n : d["nodes"]) jn.push_back({guid_of(n["nodeGUID"]), n["numPorts"].get<unsigned>()});
    EXPECT_FALSE(tn.empty()) << cmd;
    EXPECT_EQ(jn, tn) << cmd;
  }
  auto [t, d] = both({"ibroute", "2"});
  ASSERT_EQ(t.status, 0);
  std::set<std::tuple<unsigned, unsigned, uint64_t>> tr, jr;
  std::regex row(R"re(^0x([0-9a-f]{4}) (\d{3}) : \(.* portguid 0x([0-9a-f]{16}):)re");
  for (auto& l : lines(t.out)) {
    std::smatch m;
    if (std::regex_search(l, m, row)) tr.insert({unsigned(hex(m[1])), std::stoul(m[2]), hex(m[3])});
  }
  for (const json& e : d["lft"])
    jr.insert({e["LID"].get<unsigned>(), e["port"].get<unsigned>(), guid_of(e["destination"]["portGUID"])});
  EXPECT_EQ(tr.size(), 6u);
  EXPECT_EQ(jr, tr);
  EXPECT_EQ(d["nodeGUID"], "0x0000000000200000");
}

}  // namespace

namespace {

// ibportstate: the PortInfo the text shows (and the peer's, for an active
// switch port reached by a directed route); a change is refused with
// --json, and a failed peer query leaves stdout empty.
TEST_F(Json, IbportstateHasTheTextsPortInfo) {
  auto [t, d] = both({"ibportstate", "-D", "0,1", "1"});
  ASSERT_EQ(t.status, 0) << t.err;
  // The text: the port's block, then "Peer PortInfo:" and the peer's.
  size_t peer_at = t.out.find("Peer PortInfo:");
  ASSERT_NE(peer_at, std::string::npos) << t.out;
  auto mine = dotted(t.out.substr(0, peer_at)), theirs = dotted(t.out.substr(peer_at));
  EXPECT_EQ(d["nodeType"], "Switch");
  EXPECT_EQ(d["portNum"], 1);
  EXPECT_EQ(d["PortInfo"]["portState"], mine.at("LinkState"));
  EXPECT_EQ(d["PortInfo"]["portPhysicalState"], mine.at("PhysLinkState"));
  EXPECT_EQ(d["PortInfo"]["LID"], std::stoul(mine.at("Lid")));
  EXPECT_EQ(d["PortInfo"]["masterSMLID"], std::stoul(mine.at("SMLid")));
  EXPECT_FALSE(d["PortInfo"].contains("MKey"));  // as the text: not without -K
  ASSERT_TRUE(d.contains("peer"));
  EXPECT_EQ(d["peer"]["destination"], json::parse(R"({"DRPath": [0, 1, 1]})"));
  EXPECT_EQ(d["peer"]["PortInfo"]["portState"], theirs.at("LinkState"));
  EXPECT_EQ(d["peer"]["PortInfo"]["LID"], std::stoul(theirs.at("Lid")));
  auto k = f_->run(ib({"ibportstate", "-D", "0", "1", "-K", "--json"}));
  EXPECT_TRUE(json::parse(k.out)["PortInfo"].contains("MKey")) << k.out;
  auto set = f_->run(ib({"ibportstate", "-D", "0", "1", "enable", "--json"}));
  EXPECT_EQ(set.status, 2);
  EXPECT_EQ(set.out, "");
  EXPECT_NE(set.err.find("--json shows a query"), std::string::npos) << set.err;
}

// ibccquery: every field the text shows, under its iba/ name (the text's
// label without underscores, compared ignoring case), with the same value.
TEST_F(Json, IbccqueryHasTheTextsFields) {
  auto norm = [](std::string k) {
    std::string o;
    for (char ch : k)
      if (ch != '_') o += char(std::tolower(static_cast<unsigned char>(ch)));
    return o;
  };
  for (std::vector<std::string> a : {std::vector<std::string>{"ibccquery", "CongestionInfo", "2"},
                                     {"ibccquery", "CongestionKeyInfo", "3"},
                                     {"ibccquery", "CACongestionSetting", "2"}}) {
    auto [t, d] = both(a);
    ASSERT_EQ(t.status, 0) << a[1] << t.err;
    EXPECT_EQ(d["destination"]["LID"], std::stoul(a[2]));
    const json& f = d[a[1]];
    std::map<std::string, const json*> by;
    for (auto it = f.begin(); it != f.end(); ++it) by[norm(it.key())] = &it.value();
    int compared = 0;
    for (auto& [label, value] : dotted(t.out)) {
      auto it = by.find(norm(label));
      if (it == by.end() || !it->second->is_number()) continue;
      EXPECT_EQ(it->second->get<uint64_t>(), std::stoull(value, nullptr, 0)) << a[1] << " " << label;
      ++compared;
    }
    EXPECT_GE(compared, 2) << a[1] << ": too few fields matched\n" << t.out << d.dump();
  }
  // A switch's ports: one entry per port the text lists.
  auto [t, d] = both({"ibccquery", "SwitchPortCongestionSetting", "2"});
  ASSERT_EQ(t.status, 0) << t.err;
  size_t ports = 0;
  for (auto& l : lines(t.out)) ports += l.rfind("Port:", 0) == 0;
  EXPECT_EQ(d["SwitchPortCongestionSetting"].size(), ports);
  EXPECT_EQ(d["SwitchPortCongestionSetting"][1]["port"], 1);
  // A failure: nothing on stdout.
  auto bad = f_->run(ib({"ibccquery", "CongestionLog", "2", "--json"}));
  EXPECT_NE(bad.status, 0);
  EXPECT_EQ(bad.out, "");
}

// ibstatus: sysfs' values as the text shows them, states split into name
// and number.
TEST_F(Json, IbstatusHasTheTextsValues) {
  auto t = f_->run_sysfs(ib({"ibstatus"}));
  auto r = f_->run_sysfs(ib({"ibstatus", "--json"}));
  ASSERT_EQ(t.status, 0) << t.err;
  ASSERT_EQ(r.status, 0) << r.err;
  json d = json::parse(r.out);
  ASSERT_GE(d["ports"].size(), 1u);
  const json& p = d["ports"][0];
  std::map<std::string, std::string> m;
  std::regex kv(R"re(^\t([a-z_ ]+):\t+ ?(.*)$)re");
  for (auto& l : lines(t.out)) {
    std::smatch x;
    if (std::regex_search(l, x, kv) && !m.count(x[1])) m[x[1]] = x[2];
  }
  EXPECT_EQ(p["defaultGID"], m.at("default gid"));
  EXPECT_EQ(p["LID"], hex(m.at("base lid")));
  EXPECT_EQ(p["SMLID"], hex(m.at("sm lid")));
  EXPECT_EQ(std::to_string(p["portStateRaw"].get<int>()) + ": " + p["portState"].get<std::string>(), m.at("state"));
  EXPECT_EQ(std::to_string(p["portPhysicalStateRaw"].get<int>()) + ": " + p["portPhysicalState"].get<std::string>(),
            m.at("phys state"));
  EXPECT_EQ(p["rate"], m.at("rate"));
  EXPECT_EQ(p["linkLayer"], m.at("link_layer"));
  auto bad = f_->run_sysfs(ib({"ibstatus", "--json", "nosuchdev"}));
  EXPECT_EQ(bad.status, 255);
  EXPECT_EQ(bad.out, "");
  EXPECT_NE(bad.err.find("Fatal error:  device 'nosuchdev'"), std::string::npos) << bad.err;
}

// smpdump: the text's hex words as one string, and the decoded fields of a
// known attribute as smpquery shows them.
TEST_F(Json, SmpdumpHasTheTextsBytes) {
  auto [t, d] = both({"smpdump", "2", "0x11"});
  ASSERT_EQ(t.status, 0);
  std::string hex;
  for (char c : t.out)
    if (std::isxdigit(static_cast<unsigned char>(c))) hex += c;
  EXPECT_EQ(d["data"], hex);
  EXPECT_EQ(d["attributeID"], 0x11);
  EXPECT_EQ(d["attribute"], "SMPNodeInfo");
  auto [n, nd] = both({"smpquery", "nodeinfo", "2"});
  EXPECT_EQ(d["fields"]["nodeGUID"], nd["NodeInfo"]["nodeGUID"]);
  EXPECT_EQ(d["fields"]["numPorts"], nd["NodeInfo"]["numPorts"]);
  // An attribute iba/ does not declare: bytes only.
  auto [u, ud] = both({"smpdump", "2", "0xff00"});
  EXPECT_FALSE(ud.contains("fields"));
  EXPECT_EQ(ud["data"].get<std::string>().size(), 128u);
}

TEST_F(Json, IbaddrHasTheTextsValues) {
  auto [t, d] = both({"ibaddr", "4"});
  ASSERT_EQ(t.status, 0);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(t.out, m, std::regex(R"re(^GID (\S+) LID start 0x([0-9a-f]+) end 0x([0-9a-f]+))re")));
  EXPECT_EQ(d["GID"], m[1].str());
  EXPECT_EQ(d["LID"], hex(m[2]));
  EXPECT_EQ(d["endLID"], hex(m[3]));
}

}  // namespace

namespace {

// saquery: the records of the text's dump, fields by the names its
// field=value selection takes.
TEST_F(Json, SaqueryHasTheTextsRecords) {
  auto [t, d] = both({"saquery", "NR", "4"});
  ASSERT_EQ(t.status, 0);
  auto m = dotted(t.out);
  ASSERT_EQ(d["records"].size(), 1u);
  const json& r = d["records"][0];
  EXPECT_EQ(r["attribute"], "SANodeRecord");
  EXPECT_EQ(r["LID"], 4);
  EXPECT_EQ(guid_of(r["nodeInfo"]["portGUID"]), hex(m.at("port_guid")));
  EXPECT_EQ(r["nodeInfo"]["numPorts"], std::stoul(m.at("num_ports")));
  EXPECT_EQ(r["nodeDescription"]["nodeString"], "Hca2");
  auto [tp, dp] = both({"saquery", "PIR", "4/1"});
  ASSERT_EQ(tp.status, 0);
  ASSERT_EQ(dp["records"].size(), 1u);
  EXPECT_EQ(dp["records"][0]["portInfo"]["LID"], 4);
  EXPECT_FALSE(dp["records"][0]["portInfo"].contains("MKey")) << "keys only with -K, as the text";
  // -s: the PortInfoRecords of the SM ports, grouped as the text groups them.
  auto [ts, ds] = both({"saquery", "-s"});
  ASSERT_EQ(ts.status, 0) << ts.err;
  size_t in_text = 0;
  for (auto& l : lines(ts.out)) in_text += l.find("PortInfoRecord dump:") != std::string::npos;
  EXPECT_EQ(ds["records"].size(), in_text) << ts.out;
  ASSERT_GE(ds["records"].size(), 1u);
  EXPECT_EQ(ds["records"][0]["group"], "IsSM");
  EXPECT_EQ(ds["records"][0]["attribute"], "SAPortInfoRecord");
  // -g / -m: the multicast member records, -m with the member's node.
  auto [tg, dg] = both({"saquery", "-g"});
  ASSERT_EQ(tg.status, 0) << tg.err;
  size_t groups = 0;
  for (auto& l : lines(tg.out)) groups += l.find("MGID") != std::string::npos;
  EXPECT_EQ(dg["records"].size(), groups) << tg.out;
  auto [tm, dm] = both({"saquery", "-m"});
  ASSERT_EQ(tm.status, 0) << tm.err;
  if (!dm["records"].empty()) {
    EXPECT_TRUE(dm["records"][0].contains("nodeDescription")) << dm.dump();
  }
}

}  // namespace

namespace {

// ibtracert: the hops of the text (node GUIDs, ports left and entered).
TEST_F(Json, IbtracertHasTheTextsHops) {
  auto [t, d] = both({"ibtracert", "1", "6"});
  ASSERT_EQ(t.status, 0);
  EXPECT_EQ(d["found"], true);
  std::vector<std::tuple<unsigned, uint64_t, unsigned>> th, jh;  // out port, port GUID, in port
  std::regex hop(R"re(^\[(\d+)\] -> \w+ port \{0x([0-9a-f]+)\}\[(\d+)\])re");
  for (auto& l : lines(t.out)) {
    std::smatch m;
    if (std::regex_search(l, m, hop)) th.push_back({std::stoul(m[1]), hex(m[2]), std::stoul(m[3])});
  }
  const json& h = d["hops"];
  for (size_t i = 1; i < h.size(); ++i)
    jh.push_back({h[i - 1]["outPort"].get<unsigned>(), guid_of(h[i]["portGUID"]), h[i]["inPort"].get<unsigned>()});
  EXPECT_EQ(th.size(), 3u);
  EXPECT_EQ(jh, th);
  EXPECT_EQ(h.back()["LID"], 6);
  EXPECT_EQ(h.back()["outPort"], 0);
  // -m: the multicast walk, each hop's node GUID and the port entered as
  // the text shows them ("[out] -> type 0xGUID[in] ...", "From/To ... port N").
  // The ports of lids 1 and 4 join the broadcast group first.
  std::string mlid;
  for (const char* lid : {"1", "4"}) {
    auto ni = f_->run(ib({"smpquery", "nodeinfo", lid, "--json"}));
    std::string guid = json::parse(ni.out)["NodeInfo"]["portGUID"];
    auto j = f_->run(ib({"mcm_rereg_test", "--smkey", "1", "-g", guid}));
    std::smatch m;
    ASSERT_TRUE(std::regex_search(j.out, m, std::regex("MLID (0x[0-9a-f]{4})"))) << j.out << j.err;
    mlid = m[1];
  }
  auto [tm, dm] = both({"ibtracert", "-m", mlid, "1", "4"});
  ASSERT_EQ(tm.status, 0) << tm.err;
  EXPECT_EQ(dm["MLID"], std::stoul(mlid, nullptr, 16));
  std::vector<std::pair<uint64_t, unsigned>> tmh, jmh;  // node GUID, port entered
  std::regex end(R"re(^(From|To) \w+ 0x([0-9a-f]+) port (\d+))re"), mhop(R"re(^\[\d+\] -> \w+ 0x([0-9a-f]+)\[(\d+)\])re");
  for (auto& l : lines(tm.out)) {
    std::smatch m;
    if (std::regex_search(l, m, end) && m[1] == "From") tmh.push_back({hex(m[2]), std::stoul(m[3])});
    else if (std::regex_search(l, m, mhop)) tmh.push_back({hex(m[1]), std::stoul(m[2])});
  }
  for (const auto& x : dm["hops"]) jmh.push_back({guid_of(x["nodeGUID"]), x["inPort"].get<unsigned>()});
  EXPECT_GE(tmh.size(), 2u) << tm.out;
  EXPECT_EQ(jmh, tmh) << tm.out << dm.dump();
}

}  // namespace

namespace {

TEST_F(Json, IbstatHasTheTextsValues) {
  auto [t, d] = both({"ibstat"});
  ASSERT_EQ(t.status, 0);
  std::map<std::string, std::string> m;
  std::regex kv(R"re(^\s*([A-Za-z ]+):\s*(.*)$)re");
  for (auto& l : lines(t.out)) {
    std::smatch x;
    if (std::regex_search(l, x, kv)) m[x[1]] = x[2];
  }
  ASSERT_EQ(d["devices"].size(), 1u);
  const json& dev = d["devices"][0];
  EXPECT_EQ(guid_of(dev["nodeGUID"]), hex(m.at("Node GUID")));
  EXPECT_EQ(dev["numPorts"], std::stoul(m.at("Number of ports")));
  const json& p = dev["ports"][0];
  EXPECT_EQ(p["LID"], std::stoul(m.at("Base lid")));
  EXPECT_EQ(p["SMLID"], std::stoul(m.at("SM lid")));
  EXPECT_EQ(guid_of(p["portGUID"]), hex(m.at("Port GUID")));
  EXPECT_EQ(p["portState"], m.at("State"));
  EXPECT_EQ(p["portPhysicalState"], m.at("Physical state"));
}

}  // namespace

namespace {

// query: every field of the reply, as its text lists them.
TEST_F(Json, QueryHasTheTextsFields) {
  auto [t, d] = both({"query", "SubnGet", "PortInfo", "4", "-a", "1"});
  ASSERT_EQ(t.status, 0);
  auto m = dotted(t.out);
  EXPECT_EQ(d["attribute"], "SMPPortInfo");
  EXPECT_EQ(d["data"]["LID"], 4);
  EXPECT_EQ(std::to_string(d["data"]["LID"].get<unsigned>()), m.at("LID"));
  EXPECT_EQ(std::to_string(d["data"]["portStateRaw"].get<unsigned>()), m.at("portState"));
  auto [tt, dt] = both({"query", "SubnAdmGetTable", "NodeRecord"});
  ASSERT_EQ(tt.status, 0);
  size_t n = 0;
  for (auto& l : lines(tt.out)) n += l.rfind("Reply structure #", 0) == 0;
  EXPECT_EQ(dt["records"].size(), n);
  EXPECT_GT(n, 0u);
}

}  // namespace
