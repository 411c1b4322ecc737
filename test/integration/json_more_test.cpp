// --json of the health, python-rdma and action commands (issue 15): each
// document parsed by nlohmann::json and its values compared with what the
// same command prints as text on the same simulated fabric; a failing run
// leaves stdout empty with the text run's exit status.
#include <gtest/gtest.h>
#include <signal.h>
#include <cctype>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "iba/enums.h"
#include "iba/hdr.h"
#include "iba/pm.h"
#include "iba/smp.h"
#include "test/integration/json_check.h"
#include "test/integration/sim_ports.h"
#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

using nlohmann::json;
using jsontest::both;
using jsontest::fails_alike;
using jsontest::guid_of;
using jsontest::hex;
using jsontest::ib;
using jsontest::lines;

// A health command's line: "<name>" (0x<GUID>) port <n> lid <l>: <what>.
using Finding = std::tuple<uint64_t, int, unsigned, std::string>;
const std::regex FINDING(R"re(^"(.*)" \(0x([0-9a-f]{16})\)(?: port (\d+))?(?: lid (\d+))?: (.*)$)re");

std::multiset<Finding> text_findings(const std::string& out) {
  std::multiset<Finding> s;
  for (auto& l : lines(out)) {
    std::smatch m;
    if (l.rfind("##", 0) == 0 || !std::regex_match(l, m, FINDING)) continue;
    s.insert({hex(m[2]), m[3].matched ? std::stoi(m[3]) : -1, m[4].matched ? unsigned(std::stoul(m[4])) : 0u, m[5]});
  }
  return s;
}

Finding json_finding(const json& f, const std::string& what_key = "finding") {
  return {guid_of(f["nodeGUID"]), f.contains("portNum") ? f["portNum"].get<int>() : -1,
          f.contains("LID") ? f["LID"].get<unsigned>() : 0u, f[what_key].get<std::string>()};
}

// "## Summary: 6 nodes checked, 1 bad nodes found" -> its numbers.
std::vector<uint64_t> numbers(const std::string& line) {
  std::vector<uint64_t> v;
  std::regex n(R"re(\d+)re");
  for (auto it = std::sregex_iterator(line.begin(), line.end(), n); it != std::sregex_iterator(); ++it)
    v.push_back(std::stoull(it->str()));
  return v;
}
std::string line_starting(const std::string& out, const std::string& head) {
  for (auto& l : lines(out))
    if (l.rfind(head, 0) == 0) return l;
  return "";
}
// The numbers of the text's line starting with head are the JSON
// object's values of keys, in order.
void expect_numbers(const json& o, const std::string& out, const std::string& head, std::vector<const char*> keys) {
  auto n = numbers(line_starting(out, head));
  ASSERT_EQ(n.size(), keys.size()) << head << "\n" << out;
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(o[keys[i]], n[i]) << keys[i];
}

// One fabric for the suite (jsontest::SharedFabric has its layout).
class JsonMore : public jsontest::SharedFabric<JsonMore> {};

// ibcheckerrors with two counters beyond threshold: the same findings
// (node, port, LID, text) and summary; ibchecknet -v lists every port it
// checked, and the bad ones are not "ok".
TEST_F(JsonMore, IbcheckFamilyHasTheTextsFindings) {
  f_->console("PerformanceSet \"Switch1\"[2] PortCounters.SymbolErrorCounter=5");
  f_->console("PerformanceSet \"Hca2\"[1] PortCounters.PortXmitDiscards=7");
  auto [t, d] = both(*f_, {"ibcheckerrors"});
  EXPECT_EQ(t.status, 1);
  auto tf = text_findings(t.out);
  EXPECT_EQ(tf.size(), 2u) << t.out;
  std::multiset<Finding> jf;
  for (const json& f : d["findings"]) jf.insert(json_finding(f));
  EXPECT_EQ(jf, tf);
  // Each counter finding as data: the counter's iba/pm.h name, its value,
  // the threshold.
  std::set<std::tuple<uint64_t, int, std::string, uint64_t, uint64_t, bool>> cf;
  for (const json& f : d["findings"])
    cf.insert({guid_of(f["nodeGUID"]), f["portNum"].get<int>(), f["field"].get<std::string>(),
               f["value"].get<uint64_t>(), f["threshold"].get<uint64_t>(), f["saturated"].get<bool>()});
  EXPECT_EQ(cf, (std::set<std::tuple<uint64_t, int, std::string, uint64_t, uint64_t, bool>>{
                    {0x200000, 2, "symbolErrorCounter", 5, 0, false}, {0x100003, 1, "portXmitDiscards", 7, 0, false}}));
  expect_numbers(d["summary"], t.out, "## Summary", {"nodesChecked", "badNodes"});
  expect_numbers(d["summary"], t.out, "##          ", {"portsChecked", "badPorts"});
  EXPECT_EQ(d["thresholds"]["symbolErrorCounter"], 0);

  // -v: the OK lines are the ports the JSON marks ok, with their state.
  auto [tv, dv] = both(*f_, {"ibchecknet", "-v"});
  std::set<std::tuple<uint64_t, int, std::string>> tok, jok;
  std::regex ok(R"re(^".*" \(0x([0-9a-f]{16})\) port (\d+) lid \d+: OK \((\w+)/)re");
  for (auto& l : lines(tv.out)) {
    std::smatch m;
    if (std::regex_search(l, m, ok)) tok.insert({hex(m[1]), std::stoi(m[2]), m[3]});
  }
  size_t bad = 0;
  for (const json& p : dv["ports"]) {
    if (p["ok"].get<bool>())
      jok.insert({guid_of(p["nodeGUID"]), p["portNum"].get<int>(), p["portState"].get<std::string>()});
    else
      ++bad;
  }
  EXPECT_FALSE(tok.empty());
  EXPECT_EQ(jok, tok);
  EXPECT_EQ(bad, dv["summary"]["badPorts"].get<size_t>());
  EXPECT_EQ(dv["ports"].size(), dv["summary"]["portsChecked"].get<size_t>());

  // One port, one node.
  auto [tp, dp] = both(*f_, {"ibcheckport", "4", "1"});
  EXPECT_EQ(tp.status, 1);
  std::multiset<Finding> jp;
  for (const json& f : dp["findings"]) jp.insert(json_finding(f));
  EXPECT_EQ(jp, text_findings(tp.out));
  EXPECT_EQ(dp["summary"]["portsChecked"], 1);
  auto [tn, dn] = both(*f_, {"ibchecknode", "3"});
  EXPECT_EQ(tn.status, 0);
  EXPECT_TRUE(dn["ok"].get<bool>());
  EXPECT_EQ(guid_of(dn["nodeGUID"]), 0x200001u);
  EXPECT_NE(tn.out.find("\"" + dn["name"].get<std::string>() + "\" (0x0000000000200001)"), std::string::npos) << tn.out;

  // A port the node does not have: the error on stderr, stdout empty.
  auto jr = fails_alike(*f_, {"ibcheckport", "4", "9"});
  EXPECT_NE(jr.err.find("no port 9"), std::string::npos) << jr.err;

  // ibdatacounters: the same ports, the same counter names (their values
  // move with every run's MADs), the summary.
  auto [tc, dc] = both(*f_, {"ibdatacounters"});
  EXPECT_EQ(tc.status, 0);
  std::set<std::tuple<uint64_t, int, unsigned, std::string>> tcs, jcs;
  std::regex word(R"re( (\w+)=\d+)re");
  for (auto& l : lines(tc.out)) {
    std::smatch m;
    std::regex head(R"re(^".*" \(0x([0-9a-f]{16})\) port (\d+) lid (\d+):)re");
    if (!std::regex_search(l, m, head)) continue;
    Finding k{hex(m[1]), std::stoi(m[2]), unsigned(std::stoul(m[3])), ""};
    for (auto it = std::sregex_iterator(l.begin(), l.end(), word); it != std::sregex_iterator(); ++it)
      tcs.insert({std::get<0>(k), std::get<1>(k), std::get<2>(k), jsontest::pm_field((*it)[1])});
  }
  for (const json& p : dc["ports"])
    for (auto& [name, v] : p["counters"].items()) {
      EXPECT_TRUE(v.is_number_unsigned()) << name;
      jcs.insert({guid_of(p["nodeGUID"]), p["portNum"].get<int>(), p["LID"].get<unsigned>(), name});
    }
  EXPECT_FALSE(tcs.empty());
  EXPECT_EQ(jcs, tcs);
  expect_numbers(dc["summary"], tc.out, "## Summary", {"nodes", "portsRead", "failed"});

  // ibclearerrors: what it cleared, then nothing is left to find.
  auto [tx, dx] = both(*f_, {"ibclearerrors"});
  EXPECT_EQ(tx.status, 0);
  EXPECT_EQ(dx["cleared"], "errors");
  expect_numbers(dx["summary"], tx.out, "## Summary", {"nodes", "portsCleared", "failed"});
  EXPECT_TRUE(dx["failures"].empty());
  auto r = f_->run(ib({"ibcheckerrors", "--json"}));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(json::parse(r.out)["findings"].empty()) << r.out;
}

// ibidsverify: the same problems and summary (a healthy fabric: none).
TEST_F(JsonMore, IbidsverifyHasTheTextsSummary) {
  auto [t, d] = both(*f_, {"ibidsverify"});
  EXPECT_EQ(t.status, 0);
  std::multiset<Finding> jf;
  for (const json& f : d["findings"]) jf.insert(json_finding(f));
  EXPECT_EQ(jf, text_findings(t.out));
  expect_numbers(d["summary"], t.out, "## Summary", {"nodes", "endPortsChecked", "problems"});
  EXPECT_EQ(d["summary"]["nodes"], 6);
}

// ibprintswitch -l / ibprintca <node>: the list's nodes, the block's ports.
TEST_F(JsonMore, IbprintHasTheTextsNodesAndPorts) {
  auto [t, d] = both(*f_, {"ibprintswitch", "-l"});
  EXPECT_EQ(t.status, 0);
  std::vector<std::pair<uint64_t, unsigned>> tl, jl;
  std::regex row(R"re(^Switch\s+: 0x([0-9a-f]{16}) ports (\d+) )re");
  for (auto& l : lines(t.out)) {
    std::smatch m;
    if (std::regex_search(l, m, row)) tl.push_back({hex(m[1]), unsigned(std::stoul(m[2]))});
  }
  for (const json& n : d["nodes"]) jl.push_back({guid_of(n["nodeGUID"]), n["numPorts"].get<unsigned>()});
  EXPECT_EQ(tl.size(), 2u) << t.out;
  EXPECT_EQ(jl, tl);

  auto [tb, db] = both(*f_, {"ibprintca", "Hca2"});
  EXPECT_EQ(tb.status, 0);
  EXPECT_EQ(guid_of(db["node"]["nodeGUID"]), 0x100003u);
  std::set<std::tuple<unsigned, uint64_t, unsigned>> tp, jp;
  std::regex link(R"re(^\[(\d+)\](?:\([0-9a-f]+\))?\s+"[SHR]-([0-9a-f]{16})"\[(\d+)\])re");
  for (auto& l : lines(tb.out)) {
    std::smatch m;
    if (std::regex_search(l, m, link)) tp.insert({unsigned(std::stoul(m[1])), hex(m[2]), unsigned(std::stoul(m[3]))});
  }
  for (const json& p : db["node"]["ports"])
    jp.insert({p["portNum"].get<unsigned>(), guid_of(p["remote"]["nodeGUID"]), p["remote"]["portNum"].get<unsigned>()});
  EXPECT_FALSE(tp.empty());
  EXPECT_EQ(jp, tp);

  // A node that is not there: stderr, the text's status, stdout empty.
  fails_alike(*f_, {"ibprintca", "NoSuchHca"});
}

// ibfindnodesusing on each port of Switch1: the same LIDs in each direction
// (ports the switch does not have: the same error, stdout empty).
TEST_F(JsonMore, IbfindnodesusingHasTheTextsLids) {
  size_t seen = 0;
  for (int port = 1; port <= 8; ++port) {
    auto [t, d] = both(*f_, {"ibfindnodesusing", "Switch1", std::to_string(port)});
    // The text's sections: a "Switch ..." line, then "  lid N ..." lines.
    std::vector<std::pair<uint64_t, std::set<unsigned>>> ts, js;
    std::regex head(R"re(^Switch 0x([0-9a-f]{16}) ".*" port (\d+))re"), lid(R"re(^  lid (\d+))re");
    for (auto& l : lines(t.out)) {
      std::smatch m;
      if (std::regex_search(l, m, head)) ts.push_back({hex(m[1]), {}});
      else if (std::regex_search(l, m, lid) && !ts.empty()) ts.back().second.insert(unsigned(std::stoul(m[1])));
    }
    for (const json& dir : d["directions"]) {
      js.push_back({guid_of(dir["switch"]["nodeGUID"]), {}});
      for (const json& e : dir["destinations"]) js.back().second.insert(e["LID"].get<unsigned>());
    }
    EXPECT_EQ(js, ts) << port << "\n" << t.out;
    seen += ts.size();
  }
  EXPECT_GT(seen, 8u);  // some ports lead to the other switch: two directions
  fails_alike(*f_, {"ibfindnodesusing", "Switch1", "9"});
}

// check_lft_balance's text and JSON of one run: the same switches (name,
// GUID) with the same per-port LID counts; the JSON returned.
json lft_balance_matches(const testbed::Fabric& f, const std::vector<std::string>& args) {
  auto [t, d] = both(f, args);
  EXPECT_EQ(t.status, 0);
  std::map<std::string, std::map<unsigned, unsigned>> tc, jc;
  std::string cur;
  std::regex head(R"re(Switch Port Usage: (.*), (\S+)$)re"), port(R"re(^Port (\d+): (\d+)$)re");
  for (auto& l : lines(t.out)) {
    std::smatch m;
    if (std::regex_search(l, m, head)) tc[cur = m[1].str() + "/" + std::to_string(hex(m[2]))];
    else if (std::regex_search(l, m, port)) tc[cur][unsigned(std::stoul(m[1]))] = unsigned(std::stoul(m[2]));
  }
  for (const json& s : d["switches"]) {
    auto& m = jc[s["name"].get<std::string>() + "/" + std::to_string(guid_of(s["nodeGUID"]))];
    for (const json& p : s["ports"]) m[p["portNum"].get<unsigned>()] = p["LIDs"].get<unsigned>();
  }
  EXPECT_FALSE(tc.empty()) << t.out;
  EXPECT_EQ(jc, tc) << t.out;
  return d;
}

// check_lft_balance -v: every switch with its ports' LID counts, from the
// SA, and from files (a dump where more LIDs go out of one port).
TEST_F(JsonMore, CheckLftBalanceHasTheTextsCounts) {
  ASSERT_EQ(f_->run(ib({"ibnetdiscover", "--cache", "lftbal.cache"})).status, 0);
  std::ofstream(f_->dir() + "/lftbal.lfts")
      << "Unicast lids [0x0-0x8] of switch DR path slid 0; dlid 0; 0,3 guid 0x0000000000200001 (Switch2):\n"
         "  Lid  Out   Destination\n"
         "       Port     Info \n"
         "0x0001 003 : (Switch portguid 0x0000000000200000: 'Switch1')\n"
         "0x0002 003 : (Channel Adapter portguid 0x0000000000100001: 'Hca1')\n"
         "0x0003 000 : (Switch portguid 0x0000000000200001: 'Switch2')\n"
         "0x0004 001 : (Channel Adapter portguid 0x0000000000100004: 'Hca2')\n"
         "0x0005 005 : (Channel Adapter portguid 0x0000000000100007: 'Hca3')\n"
         "0x0006 002 : (Channel Adapter portguid 0x000000000010000a: 'Hca4')\n"
         "0x0007 003 : (Channel Adapter portguid 0x000000000010000b: 'Hca5')\n"
         "0x0008 003 : (Channel Adapter portguid 0x000000000010000c: 'Hca6')\n"
         "8 valid lids dumped \n";
  lft_balance_matches(*f_, {"check_lft_balance", "--sa", "-v"});
  json d = lft_balance_matches(*f_, {"check_lft_balance", "-l", "lftbal.lfts", "-i", "lftbal.cache", "-v"});
  ASSERT_EQ(d["switches"].size(), 1u);
  EXPECT_FALSE(d["switches"][0]["ports"].empty());
  // Missing files, no --sa: the usage on stderr, nothing on stdout.
  fails_alike(*f_, {"check_lft_balance"});
}


// vendstat: ibsim has no agent of the vendor class.  -N ends the command
// (the iberror line on stderr, stdout empty); -i reports the failed query
// as null and ends well, as the text does.  (Not LID 1: an unanswered GMP
// there disconnects OpenSM's client.)
TEST_F(JsonMore, VendstatFailuresKeepStdoutEmpty) {
  auto jr = fails_alike(*f_, {"vendstat", "-N", "3"});
  EXPECT_EQ(jr.status, 255);
  EXPECT_NE(jr.err.find("iberror"), std::string::npos) << jr.err;
  auto [ti, di] = both(*f_, {"vendstat", "-i", "3", "1"});
  EXPECT_EQ(ti.status, 0);
  EXPECT_TRUE(di.contains("counterGroupInfo"));
  EXPECT_TRUE(di["counterGroupInfo"].is_null());
  EXPECT_EQ(di["portNum"], 1);
}

// ibswportwatch -n 2: two samples with the four rates; without -n --json
// is refused (a document needs an end).
TEST_F(JsonMore, IbswportwatchWritesOneSampleAnInterval) {
  auto r = f_->run(ib({"ibswportwatch", "-n", "2", "-p", "0.2", "--json", "2", "1"}));
  EXPECT_EQ(r.status, 0) << r.err;
  json d = json::parse(r.out);
  EXPECT_EQ(d["portNum"], 1);
  ASSERT_EQ(d["samples"].size(), 2u);
  for (const json& s : d["samples"]) {
    EXPECT_EQ(s["rates"].size(), 4u);
    EXPECT_TRUE(s["rates"]["portXmitData"].is_number_unsigned());
    EXPECT_TRUE(s["errors"].empty());
  }
  EXPECT_LT(d["samples"][0]["elapsedMs"].get<uint64_t>(), d["samples"][1]["elapsedMs"].get<uint64_t>());
  r = f_->run(ib({"ibswportwatch", "--json", "2", "1"}));
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("-n"), std::string::npos) << r.err;
}

// set_port_state -n and init_all_ports -n: the ports the text names, with
// the states it shows; nothing is changed.
TEST_F(JsonMore, DryRunsHaveTheTextsPorts) {
  auto [t, d] = both(*f_, {"set_port_state", "--init", "-n", "2@2", "3@1"});
  EXPECT_EQ(t.status, 0) << t.err;
  std::vector<std::tuple<uint64_t, int, std::string, std::string>> tl, jl;
  std::regex row(
      R"re(^".*" \(0x([0-9a-f]{16})\) port (\d+) lid \d+: would reset to Init via DR path (\S+), now (\w+)/)re");
  for (auto& l : lines(t.out)) {
    std::smatch m;
    if (std::regex_search(l, m, row)) tl.push_back({hex(m[1]), std::stoi(m[2]), m[3], m[4]});
  }
  EXPECT_EQ(d["action"], "init");
  EXPECT_TRUE(d["dryRun"].get<bool>());
  for (const json& p : d["ports"]) {
    EXPECT_FALSE(p["changed"].get<bool>());
    jl.push_back({guid_of(p["nodeGUID"]), p["portNum"].get<int>(), jsontest::dr_text(p["DRPath"]),
                  p["portState"].get<std::string>()});
  }
  EXPECT_EQ(tl.size(), 2u) << t.out;
  EXPECT_EQ(jl, tl);

  auto [ti, di] = both(*f_, {"init_all_ports", "-n"});
  std::vector<std::tuple<uint64_t, int, std::string>> til, jil;
  std::regex irow(R"re(^".*" \(0x([0-9a-f]{16})\) port (\d+) lid \d+: would reset to Init via DR path (\S+),)re");
  for (auto& l : lines(ti.out)) {
    std::smatch m;
    if (std::regex_search(l, m, irow)) til.push_back({hex(m[1]), std::stoi(m[2]), m[3]});
  }
  for (const json& p : di["resets"])
    jil.push_back({guid_of(p["nodeGUID"]), p["portNum"].get<int>(), jsontest::dr_text(p["DRPath"])});
  EXPECT_FALSE(til.empty());
  EXPECT_EQ(jil, til);
  expect_numbers(di["summary"], ti.out, "## Summary",
                 {"links", "wouldReset", "alreadyInit", "failed", "notResettable"});
}

// mcm_rereg_test and set_guid --list: each port's outcome, the records.
TEST_F(JsonMore, McmReregAndSetGuidListHaveTheTextsResults) {
  auto [t, d] = both(*f_, {"mcm_rereg_test", "-g", "0x100004", "--leave"});
  EXPECT_EQ(t.status, 0) << t.err;
  ASSERT_EQ(d["ports"].size(), 1u);
  const json& p = d["ports"][0];
  EXPECT_EQ(guid_of(p["portGUID"]), 0x100004u);
  EXPECT_TRUE(p["ok"].get<bool>());
  EXPECT_NE(t.out.find(p["outcome"].get<std::string>()), std::string::npos) << t.out;
  char mlid[16];
  std::snprintf(mlid, sizeof mlid, "0x%04x", p["MLID"].get<unsigned>());
  EXPECT_NE(t.out.find(std::string("MLID ") + mlid), std::string::npos) << t.out;
  EXPECT_EQ(d["reregistered"], 1);

  auto [tg, dg] = both(*f_, {"set_guid", "--list", "4"});
  EXPECT_EQ(tg.status, 0) << tg.err;
  EXPECT_EQ(dg["LID"], 4);
  ASSERT_FALSE(dg["records"].empty());
  std::smatch m;
  ASSERT_TRUE(std::regex_search(tg.out, m, std::regex(R"re(LID\.+(\d+))re"))) << tg.out;
  EXPECT_EQ(dg["records"][0]["LID"], std::stoul(m[1]));

  // An alias GUID set and deleted again: the slot's GUID, the SA's record.
  auto r = f_->run(ib({"set_guid", "--json", "4", "1", "0x0002c9030000ab01"}));
  ASSERT_EQ(r.status, 0) << r.err;
  json s = json::parse(r.out);
  EXPECT_EQ(s["action"], "set");
  EXPECT_EQ(s["index"], 1);
  EXPECT_EQ(s["GUID"], "0x0002c9030000ab01");
  EXPECT_EQ(s["GUIDInfoRecord"]["GUIDInfo"]["GUID1"], "0x0002c9030000ab01");
  r = f_->run(ib({"set_guid", "--json", "--delete", "4", "1"}));
  ASSERT_EQ(r.status, 0) << r.err;
  s = json::parse(r.out);
  EXPECT_EQ(s["action"], "delete");
  EXPECT_EQ(s["GUID"], "0x0002c9030000ab01");
  EXPECT_EQ(s["GUIDInfoRecord"]["GUIDInfo"]["GUID1"], "0x0000000000000000");
  // Bad input: the usage error, nothing on stdout.
  EXPECT_EQ(fails_alike(*f_, {"set_guid", "4", "300", "1"}).status, 2);
}

// rdma_bw on the fake verbs provider, bidirectional: each end's document
// names the other's address as the other names its own; both received and
// sent what the text run of the same sizes says.
TEST_F(JsonMore, RdmaBwDocumentsOfBothEnds) {
  auto bw = [&](const std::string& port, const std::string& flags) {
    std::string env = "LD_LIBRARY_PATH=" + std::string(FAKEVERBS_DIR) + " SIM_HOST=";
    std::string cmd = env + "Hca1 " + IBTOOL_PATH + " rdma_bw -p " + port + " -b -s 5000 -n 40 " + flags +
                      " >srv-" + port + ".out 2>srv-" + port + ".err & spid=$!; sleep 0.5; " + env + "Hca2 " +
                      IBTOOL_PATH + " rdma_bw -p " + port + " -b -s 5000 -n 40 " + flags +
                      " localhost; c=$?; wait $spid; s=$?; [ $c = 0 ] && [ $s = 0 ]";
    auto r = f_->sh(cmd, {}, 120);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    std::ifstream in(f_->dir() + "/srv-" + port + ".out");
    std::stringstream srv;
    srv << in.rdbuf();
    return std::make_pair(r.out, srv.str());
  };
  auto [ct, st] = bw("19561", "");
  EXPECT_NE(ct.find("Sent 40 RDMA WRITEs of 5000 bytes (200000 bytes)"), std::string::npos) << ct;
  EXPECT_NE(st.find("Received 5000 bytes from the peer: all as written"), std::string::npos) << st;
  auto [cj, sj] = bw("19562", "--json");
  json c = json::parse(cj), s = json::parse(sj);
  EXPECT_EQ(c["role"], "client");
  EXPECT_EQ(s["role"], "server");
  EXPECT_EQ(c["local"], s["remote"]);
  EXPECT_EQ(c["remote"], s["local"]);
  for (const json* d : {&c, &s}) {
    EXPECT_EQ((*d)["received"], json::parse(R"({"bytes": 5000, "asWritten": true})"));
    EXPECT_TRUE((*d)["peerReceivedAsWritten"].get<bool>());
    EXPECT_EQ((*d)["sent"]["writes"], 40);
    EXPECT_EQ((*d)["sent"]["bytes"], 200000);
    EXPECT_GT((*d)["sent"]["seconds"].get<double>(), 0.0);
  }
}

// --- one naming rule, one type per kind of value (docs/json.md) ------

// What iba/ declares, for the rule every document follows: field names
// (every class's format and attributes, nested structures included), the
// structures' names, the counters (unsigned fields of the PM class's
// attributes), the LIDs and the identifiers wider than a JSON number holds.
struct Declared {
  std::set<std::string> names, structs, counters, lids, wide;
  std::map<std::string, std::string> by_lower;  // lowercase -> a declared spelling

  Declared() {
    std::set<std::string> narrow;
    for (const iba::ClassDesc* c : iba::all_classes()) {
      add(*c->format, false, narrow);
      for (auto attrs : {c->attrs, c->variants})
        for (const iba::AttrDesc& a : attrs) add(*a.desc, c->mgmt_class == iba::mgmt::PERF, narrow);
    }
    // The packet headers (iba/hdr.h): rdma_bw's QP attributes are theirs.
    for (const iba::StructDesc* h : {&iba::HdrBTH::DESC, &iba::HdrRETH::DESC}) add(*h, false, narrow);
    for (const std::string& n : narrow) wide.erase(n);  // wide only where always wide
  }
  void add(const iba::StructDesc& d, bool pm, std::set<std::string>& narrow) {
    if (!structs.insert(d.name).second) return;
    for (const iba::FieldDesc& f : d.field_list()) {
      if (f.kind == iba::Kind::Rsv) continue;
      names.insert(std::string(f.name));
      by_lower[lower(std::string(f.name))] = std::string(f.name);
      if (pm && f.kind == iba::Kind::Uint) counters.insert(std::string(f.name));
      if (f.kind == iba::Kind::Lid) lids.insert(std::string(f.name));
      if ((f.kind == iba::Kind::Hex || f.kind == iba::Kind::Guid) && f.width > 53) wide.insert(std::string(f.name));
      else if (f.kind == iba::Kind::Hex || f.kind == iba::Kind::Uint) narrow.insert(std::string(f.name));
      if (f.kind == iba::Kind::Struct) add(*f.sub, pm, narrow);
    }
  }
  static std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }
  // A structure's attribute name: "PortInfo" for SMPPortInfo.
  bool attribute(const std::string& k) const {
    for (const std::string& s : structs)
      if (s.size() >= k.size() && s.compare(s.size() - k.size(), k.size(), k) == 0) return true;
    return false;
  }
};

// Every key of d follows the naming rule and every value has its kind's
// type; the problems found, as "command: path: problem".
void walk(const Declared& iba, const std::string& cmd, const json& v, const std::string& path,
          const std::string& key, std::vector<std::string>& bad) {
  auto problem = [&](const std::string& what) { bad.push_back(cmd + ": " + path + ": " + what); };
  if (v.is_object()) {
    for (auto& [k, x] : v.items()) {
      std::string base = k.size() > 3 && k.compare(k.size() - 3, 3, "Raw") == 0 ? k.substr(0, k.size() - 3) : k;
      // ibtool's own keys led by an IBA acronym (docs/json.md).
      static const std::set<std::string> OWN = {"DRPath", "GUIDs", "SMLID"};
      if (!iba.names.count(k) && !iba.names.count(base) && !iba.attribute(k) && !OWN.count(k)) {
        auto same = iba.by_lower.find(Declared::lower(k));
        if (same != iba.by_lower.end())
          problem("key \"" + k + "\" is iba/'s \"" + same->second + "\" spelled another way");
        else if (std::isupper(static_cast<unsigned char>(k[0])))
          problem("key \"" + k + "\" is neither an iba/ name nor lowerCamelCase");
      }
      walk(iba, cmd, x, path + "." + k, k, bad);
    }
    return;
  }
  if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) walk(iba, cmd, v[i], path + "[" + std::to_string(i) + "]", key, bad);
    return;
  }
  bool lid = iba.lids.count(key) || key == "LID" || key == "lid";
  if (lid && !v.is_number_unsigned() && !v.is_null()) problem("a LID that is not a number: " + v.dump());
  bool guid = key.size() >= 4 && key.compare(key.size() - 4, 4, "GUID") == 0;
  if ((iba.wide.count(key) || guid) && !v.is_string() && !v.is_null())
    problem("a 64-bit identifier that is not a string: " + v.dump());
  if (v.is_number_unsigned() && v.get<uint64_t>() > (uint64_t(1) << 53) && !iba.counters.count(key))
    problem("a number above 2^53 that is not a counter: " + v.dump());
  if (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < -(int64_t(1) << 53))
    problem("a number below -2^53: " + v.dump());
}

// Never a number that was not read (issue 36 item 2): in a document, a PM
// attribute's object (perfquery's "PortCounters", "PortCountersExtended",
// ...) under a root that names the PMA's "capabilityMask" and
// "capabilityMask2", and every PortInfo object ("PortInfo", "portInfo")
// with its own non-zero capability mask, has no number in a field whose
// declared validity (iba/enums.h) those capabilities deny: null, or absent.
size_t validity_denied = 0;  // fields the walk found denied (so it judged some)

void check_validity(const iba::StructDesc& desc, const json& obj, const iba::Capabilities& caps,
                    const std::string& cmd, const std::string& path, std::vector<std::string>& bad) {
  for (const iba::FieldDesc& f : desc.field_list()) {
    if (!f.validity || iba::field_valid(f, caps) != false) continue;
    ++validity_denied;
    std::string k(f.name);
    if (obj.contains(k) && !obj[k].is_null())
      bad.push_back(cmd + ": " + path + "." + k + ": " + obj[k].dump() + " where the capabilities make it invalid");
    if (obj.contains(k + "Raw")) bad.push_back(cmd + ": " + path + "." + k + "Raw: shown where invalid");
  }
}

const iba::StructDesc* pm_attribute(const std::string& key) {
  for (const iba::ClassDesc* c : iba::all_classes()) {
    if (c->mgmt_class != iba::mgmt::PERF) continue;
    for (const iba::AttrDesc& a : c->attrs)
      if (std::string(a.desc->name) == "PM" + key) return a.desc;
  }
  return nullptr;
}

void walk_validity(const std::string& cmd, const json& v, const std::string& path, const iba::Capabilities& pma,
                   std::vector<std::string>& bad) {
  if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) walk_validity(cmd, v[i], path + "[" + std::to_string(i) + "]", pma, bad);
    return;
  }
  if (!v.is_object()) return;
  for (auto& [k, x] : v.items()) {
    if (x.is_object()) {
      if (const iba::StructDesc* d = pm_attribute(k); d && pma.pm_cap) check_validity(*d, x, pma, cmd, path + "." + k, bad);
      if ((k == "PortInfo" || k == "portInfo") && x.contains("capabilityMask") && x["capabilityMask"].is_number() &&
          x["capabilityMask"].get<uint64_t>() != 0) {
        iba::Capabilities own;
        own.port_cap = uint32_t(x["capabilityMask"].get<uint64_t>());
        if (x.contains("capabilityMask2") && x["capabilityMask2"].is_number())
          own.port_cap2 = uint32_t(x["capabilityMask2"].get<uint64_t>());
        check_validity(iba::SMPPortInfo::DESC, x, own, cmd, path + "." + k, bad);
      }
    }
    walk_validity(cmd, x, path + "." + k, pma, bad);
  }
}

// The problems walk() found, one a line.
std::string joined(const std::vector<std::string>& bad) {
  std::string all;
  for (const auto& b : bad) all += b + "\n";
  return all;
}

// One command's stdout: one JSON document (else a failure), walked, its
// destination (when it has one) an object.  Whether it was one document.
bool walk_document(const Declared& iba, const std::string& name, const testbed::Result& r,
                   std::vector<std::string>& bad) {
  json d;
  try {
    d = json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << name << ": not one JSON document: " << e.what() << "\n" << r.out << r.err;
    return false;
  }
  walk(iba, name, d, "", "", bad);
  iba::Capabilities pma;  // (perfquery's root names its PMA's)
  if (d.is_object() && d.contains("capabilityMask") && d["capabilityMask"].is_number()) {
    pma.pm_cap = uint32_t(d["capabilityMask"].get<uint64_t>());
    if (d.contains("capabilityMask2") && d["capabilityMask2"].is_number())
      pma.pm_cap2 = uint32_t(d["capabilityMask2"].get<uint64_t>());
  }
  walk_validity(name, d, "", pma, bad);
  if (d.contains("destination")) EXPECT_TRUE(d["destination"].is_object()) << name << ": " << d["destination"];
  return true;
}

// Every command's document on the test fabric, with counters beyond their
// thresholds (so the error reports carry their counter keys): one naming
// rule (iba/'s names as declared, attribute names, else lowerCamelCase),
// LIDs numbers, 64-bit identifiers strings, nothing numeric above 2^53 but
// a PM counter, a destination an object.
TEST_F(JsonMore, EveryDocumentFollowsTheNamingRuleAndTheTypes) {
  static const Declared iba;
  ASSERT_TRUE(iba.counters.count("portXmitData"));
  ASSERT_TRUE(iba.wide.count("GIDPrefix"));
  ASSERT_TRUE(iba.wide.count("MKey"));
  ASSERT_FALSE(iba.counters.count("GIDPrefix"));
  f_->console("PerformanceSet \"Switch1\"[2] PortCounters.SymbolErrorCounter=5");
  f_->console("PerformanceSet \"Hca2\"[1] PortCounters.PortXmitDiscards=7");
  const std::vector<std::vector<std::string>> commands = {
      {"ibnetdiscover"}, {"iblinkinfo"}, {"dump_fts"}, {"ibqueryerrors", "--data", "--details"}, {"ibroute", "2"},
      {"ibtracert", "1", "6"}, {"smpquery", "nodeinfo", "2"}, {"smpquery", "-K", "portinfo", "4", "1"},
      {"smpquery", "-D", "switchinfo", "0,1"}, {"smpquery", "nodedesc", "2"}, {"smpquery", "pkeys", "4", "1"},
      {"smpquery", "guidinfo", "5"}, {"smpquery", "sl2vl", "2", "1"}, {"smpquery", "vlarb", "5", "1"},
      {"perfquery", "5", "1"}, {"perfquery", "-x", "5", "1"}, {"saquery", "NR", "4"}, {"saquery", "PIR", "4/1"},
      {"saquery", "-s"}, {"saquery", "-g"}, {"saquery", "-m"}, {"saquery", "SMIR"}, {"sminfo"}, {"sminfo", "-D", "0"},
      {"ibaddr", "4"}, {"ibportstate", "-D", "0", "1"}, {"ibportstate", "-K", "4", "1"},
      {"ibccquery", "SwitchPortCongestionSetting", "2"}, {"ibstat"}, {"smpdump", "2", "0x11"}, {"ibhosts"},
      {"ibswitches"}, {"ibnodes"}, {"query", "SubnGet", "PortInfo", "4", "-a", "1"},
      {"query", "SubnAdmGetTable", "NodeRecord"}, {"ibcheckerrors"}, {"ibchecknet", "-v"}, {"ibchecknode", "3"},
      {"ibcheckport", "4", "1"}, {"ibcheckerrs", "4", "1"}, {"ibcheckstate"}, {"ibidsverify"}, {"ibdatacounters"},
      {"ibfindnodesusing", "Switch1", "1"}, {"ibprintca", "Hca2"}, {"ibprintswitch", "-l"},
      {"ibswportwatch", "-n", "1", "-p", "0.1", "2", "1"}, {"init_all_ports", "-n"},
      {"set_port_state", "--init", "-n", "2@2"}, {"ibrouters"}, {"ibprintrt", "-l"}, {"ibdatacounts", "2"},
      {"ibcheckportstate", "4", "1"}, {"ibcheckportwidth", "4", "1"}, {"ibcheckwidth"}, {"ibstatus"},
      {"ibclearerrors"}};
  std::vector<std::string> bad;
  for (const auto& c : commands) {
    std::string name;
    for (const auto& a : c) name += (name.empty() ? "" : " ") + a;
    auto args = c;
    args.push_back("--json");
    auto r = c[0] == "ibstatus" ? f_->run_sysfs(ib(args)) : f_->run(ib(args));
    EXPECT_LE(r.status, 1) << name << ": " << r.err;
    walk_document(iba, name, r, bad);
  }
  f_->console("PerformanceSet \"Switch1\"[2] PortCounters.SymbolErrorCounter=0");
  f_->console("PerformanceSet \"Hca2\"[1] PortCounters.PortXmitDiscards=0");
  EXPECT_TRUE(bad.empty()) << bad.size() << " problems:\n" << joined(bad);
  // ibsim's PMA (CapMask 0x1200, no CapabilityMask2 bits) denies
  // PortCountersExtended's error counters: the walk judged them.
  EXPECT_GT(validity_denied, 0u);
}

// A switch's optional fields are valid by its port 0's masks (IBA
// reserves them on its other ports): SwitchInfo's MulticastFDBTop and an
// external port's extended speeds are null in --json unless port 0
// announces them, numbers where it does; the text is the reference's.
TEST_F(JsonMore, SwitchFieldsFollowPortZerosMasks) {
  auto doc = [&](std::vector<std::string> a) {
    a.push_back("--json");
    auto r = f_->run(ib(a));
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(r.out);
  };
  json p0 = doc({"smpquery", "-D", "portinfo", "0,1", "0"})["PortInfo"];
  ASSERT_TRUE(p0["capabilityMask"].is_number()) << p0;
  const uint64_t cap = p0["capabilityMask"].get<uint64_t>();
  ASSERT_NE(cap, 0u);
  json si = doc({"smpquery", "-D", "switchinfo", "0,1"})["SwitchInfo"];
  ASSERT_TRUE(si.contains("multicastFDBTop")) << si;
  EXPECT_EQ(si["multicastFDBTop"].is_null(), !(cap & iba::enums::CAP_IS_MCAST_FDB_TOP)) << si << " cap " << cap;
  json p1 = doc({"smpquery", "-D", "portinfo", "0,1", "1"})["PortInfo"];
  ASSERT_EQ(p1["capabilityMask"], 0) << "a switch's external port reports no masks";
  EXPECT_EQ(p1["linkSpeedExtActive"].is_null(), !(cap & iba::enums::CAP_IS_EXTENDED_SPEEDS)) << p1 << " cap " << cap;
  json ps = doc({"ibportstate", "-D", "0,1", "1"})["PortInfo"];
  ASSERT_EQ(ps["capabilityMask"], 0) << ps;
  EXPECT_EQ(ps["linkSpeedExtActive"].is_null(), !(cap & iba::enums::CAP_IS_EXTENDED_SPEEDS)) << ps << " cap " << cap;
  auto text = f_->run(ib({"smpquery", "-D", "switchinfo", "0,1"}));
  EXPECT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("MulticastFDBTop"), std::string::npos) << text.out;
}

// The documents the walk above cannot get from one command line, each run
// with what it needs: an input (decode_mad --attr on smpdump's output), a group
// joined first (ibtracert -m: mcm_rereg_test joins the ports of lids 1 and
// 4, and leaves afterwards), the fake verbs provider (rdma_bw, both ends),
// a fake sysfs tree (set_nodedesc), the SA's tables (check_lft_balance
// --sa), an alias GUID added and deleted (set_guid).  subnet_diff's are
// walked by JsonMoreDiff (a fabric of its own, a link taken away), ibping's
// and ibsysstat's by JsonMoreServers (servers on one-port nodes).
TEST_F(JsonMore, DocumentsThatNeedMoreFollowTheNamingRuleAndTheTypes) {
  static const Declared iba;
  const std::string ibt = IBTOOL_PATH;
  std::vector<std::pair<std::string, testbed::Result>> docs;  // command, its run
  auto add = [&](const std::string& name, const testbed::Result& r) {
    EXPECT_EQ(r.status, 0) << name << ": " << r.out << r.err;
    docs.push_back({name, r});
  };
  for (const char* attr : {"0x11 | IB decode_mad --attr SMPNodeInfo", "0x15 1 | IB decode_mad --attr SMPPortInfo"}) {
    std::string c = std::regex_replace(std::string(ibt + " smpdump -D 0 ") + attr + " --json", std::regex("IB"), ibt);
    add(std::string("decode_mad ") + attr, f_->sh(c));
  }

  add("check_lft_balance --sa -v", f_->run(ib({"check_lft_balance", "--sa", "-v", "--json"})));

  // ibtracert -m: the ports of lids 1 and 4 join a group first.
  std::string mlid;
  std::vector<std::string> joined_guids;
  for (const char* lid : {"1", "4"}) {
    auto ni = f_->run(ib({"smpquery", "nodeinfo", lid, "--json"}));
    ASSERT_EQ(ni.status, 0) << ni.err;
    joined_guids.push_back(json::parse(ni.out)["NodeInfo"]["portGUID"]);
    auto j = f_->run(ib({"mcm_rereg_test", "--smkey", "1", "-g", joined_guids.back(), "--json"}));
    add(std::string("mcm_rereg_test -g ") + joined_guids.back(), j);
    std::smatch m;
    std::string all = j.out;
    if (std::regex_search(all, m, std::regex(R"re("MLID"\s*:\s*(\d+))re"))) mlid = m[1];
  }
  ASSERT_FALSE(mlid.empty()) << docs.back().second.out;
  add("ibtracert -m", f_->run(ib({"ibtracert", "-m", mlid, "1", "4", "--json"})));
  for (const auto& g : joined_guids)
    add("mcm_rereg_test --leave", f_->run(ib({"mcm_rereg_test", "--smkey", "1", "-g", g, "--leave", "--json"})));

  add("set_guid --list", f_->run(ib({"set_guid", "--list", "4", "--json"})));
  add("set_guid add", f_->run(ib({"set_guid", "--json", "4", "1", "0x0002c9030000ab02"})));
  add("set_guid --delete", f_->run(ib({"set_guid", "--json", "--delete", "4", "1"})));

  // rdma_bw on the fake verbs provider: the server's document and the client's.
  {
    std::string env = "LD_LIBRARY_PATH=" + std::string(FAKEVERBS_DIR) + " SIM_HOST=";
    auto r = f_->sh(env + "Hca1 " + ibt + " rdma_bw -p 19563 -s 5000 -n 4 --json >bw-srv.json 2>bw-srv.err & s=$!; "
                    "sleep 0.5; " + env + "Hca2 " + ibt + " rdma_bw -p 19563 -s 5000 -n 4 --json localhost; c=$?; "
                    "wait $s; [ $? = 0 ] && exit $c; exit 9",
                    {}, 120);
    add("rdma_bw (client)", r);
    std::ifstream in(f_->dir() + "/bw-srv.json");
    std::stringstream srv;
    srv << in.rdbuf();
    testbed::Result sr;
    sr.out = srv.str();
    docs.push_back({"rdma_bw (server)", sr});
  }

  // set_nodedesc on a fake sysfs tree.
  {
    namespace fs = std::filesystem;
    fs::path root = fs::path(f_->dir()) / "nodedesc-sysfs";
    fs::create_directories(root / "class/infiniband/mlx5_0");
    std::ofstream(root / "class/infiniband/mlx5_0/node_desc") << "factory\n";
    for (std::vector<std::string> a : {std::vector<std::string>{"--json", "node01 HCA-1"}, {"-v", "--json"}}) {
      a.insert(a.begin(), {ibt, "set_nodedesc"});
      add("set_nodedesc " + a[2],
          testbed::run_process(a, {{"IBTOOL_SYSFS_ROOT", root.string()}, {"LD_PRELOAD", ""}}, root.string(), 60));
    }
  }

  std::vector<std::string> bad;
  std::set<std::string> walked;
  for (const auto& [name, r] : docs)
    if (walk_document(iba, name, r, bad)) walked.insert(name.substr(0, name.find(' ')));
  EXPECT_EQ(walked, (std::set<std::string>{"decode_mad", "check_lft_balance", "mcm_rereg_test", "ibtracert", "set_guid",
                                           "rdma_bw", "set_nodedesc"}));
  EXPECT_TRUE(bad.empty()) << bad.size() << " problems:\n" << joined(bad);
}

// The destination of a single-destination command as data: a LID as a
// number, a directed route as an array.
TEST_F(JsonMore, DestinationsAreObjects) {
  auto [t, d] = both(*f_, {"sminfo"});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_EQ(d["destination"], json::parse(R"({"LID": 1})")) << d;
  auto [t2, d2] = both(*f_, {"smpquery", "-D", "nodeinfo", "0,1"});
  ASSERT_EQ(t2.status, 0) << t2.err;
  EXPECT_EQ(d2["destination"], json::parse(R"({"DRPath": [0, 1]})")) << d2;
  auto [t3, d3] = both(*f_, {"ibaddr", "4"});
  ASSERT_EQ(t3.status, 0) << t3.err;
  EXPECT_TRUE(d3["GIDPrefix"].is_string()) << d3;
  EXPECT_EQ(d3["GIDPrefix"], "0xfe80000000000000") << d3;
}

// --pretty: the same document, indented.
TEST_F(JsonMore, PrettyIsTheSameDocument) {
  auto a = f_->run(ib({"ibidsverify", "--json"}));
  auto b = f_->run(ib({"ibidsverify", "--pretty"}));
  ASSERT_EQ(a.status, 0);
  ASSERT_EQ(b.status, 0);
  EXPECT_EQ(lines(a.out).size(), 1u);
  EXPECT_GT(lines(b.out).size(), 3u);
  EXPECT_EQ(json::parse(a.out), json::parse(b.out));
}

// ibping's and ibsysstat's documents, against servers started here (a
// fabric of its own: the simulator hands a server's MADs over on one-port
// nodes only), walked as above; a lost ping is a document too.
TEST(JsonMoreServers, PingAndSysstatFollowTheNamingRuleAndTheTypes) {
  testbed::FabricOptions o;
  o.tag = "jsonsrv";
  o.opensm_conf = {"ignore_other_sm TRUE"};
  testbed::Fabric f(simports::one_switch({"Sm", "Client", "PingSrv", "StatSrv"}), o);
  const std::string ibt = IBTOOL_PATH, ping = simports::lid(f, "PingSrv"), stat = simports::lid(f, "StatSrv");
  ASSERT_FALSE(ping.empty());
  ASSERT_FALSE(stat.empty());
  // A server on host, ready when probe succeeds (a request that arrives
  // before it registered its agent kills it: wait for it to sleep in
  // umad2sim's read first), then the client from node Client: its stdout
  // and status.
  auto served = [&](const std::string& host, const std::string& server, const std::string& probe,
                    const std::string& client) {
    std::string s = "SIM_HOST=" + host + " SIM_SET_ISSM=1 " + ibt + " " + server + " >srv-" + host + ".out 2>srv-" + host +
                    ".err & p=$!\n";
    s += "w=0; n=0; while [ $w -lt 2 ] && [ $n -lt 600 ] && kill -0 $p 2>/dev/null; do "
         "case \"$(cat /proc/$p/wchan 2>/dev/null)\" in futex*) w=$((w+1));; *) w=0;; esac; "
         "n=$((n+1)); sleep 0.05; done\n";
    s += "i=0; until SIM_HOST=Client " + ibt + " " + probe + " >/dev/null 2>&1; do i=$((i+1)); [ $i -ge 60 ] && break; "
         "kill -0 $p 2>/dev/null || break; done\n";
    s += "SIM_HOST=Client " + ibt + " " + client + "; c=$?\nkill -TERM $p; wait $p; exit $c\n";
    return f.sh(s, {}, 120);
  };
  std::vector<std::pair<std::string, testbed::Result>> runs = {
      {"ibping", served("PingSrv", "ibping -S", "ibping -c 1 -t 200 --strict " + ping, "ibping -c 2 --json " + ping)},
      {"ibsysstat", served("StatSrv", "ibsysstat -S", "ibsysstat -t 200 " + stat, "ibsysstat --json " + stat)},
      {"ibsysstat host", served("StatSrv", "ibsysstat -S", "ibsysstat -t 200 " + stat, "ibsysstat --json " + stat + " host")},
      {"ibping (lost)", f.run({ibt, "ibping", "-c", "1", "-t", "100", "--json", stat}, {{"SIM_HOST", "Client"}})}};
  static const Declared iba;
  std::vector<std::string> bad;
  for (const auto& [name, r] : runs) {
    EXPECT_EQ(r.status, 0) << name << ": " << r.out << r.err;
    walk_document(iba, name, r, bad);
  }
  auto d = json::parse(runs[0].second.out);
  EXPECT_NE(d.dump().find("\"received\":2"), std::string::npos) << d.dump();
  EXPECT_TRUE(bad.empty()) << joined(bad);
}

// subnet_diff on a fabric of its own (a link is taken away): the text's
// differences, in its order.
TEST(JsonMoreDiff, SubnetDiffHasTheTextsDifferences) {
  testbed::Fabric f(testbed::generate("example net.2sw2path4hca"));
  ASSERT_EQ(f.run(ib({"ibnetdiscover", "--cache", "before.cache"})).status, 0);
  auto [t0, d0] = both(f, {"subnet_diff", "before.cache"});
  EXPECT_EQ(t0.status, 0);
  EXPECT_TRUE(d0["differences"].empty());
  f.console("Unlink \"Hca4\"[1]");
  auto [t, d] = both(f, {"subnet_diff", "--discovery", "DR", "before.cache"});
  EXPECT_EQ(t.status, 1);
  auto tl = lines(t.out);
  ASSERT_EQ(tl.size(), 4u) << t.out;
  ASSERT_EQ(d["differences"].size(), 4u);
  const char* what[] = {"node", "endPort", "LID", "link"};
  for (size_t i = 0; i < 4; ++i) {
    const json& x = d["differences"][i];
    EXPECT_EQ(x["change"], "removed");
    EXPECT_EQ(x["what"], what[i]);
  }
  EXPECT_EQ(guid_of(d["differences"][0]["node"]["nodeGUID"]), 0x100009u);
  EXPECT_EQ(d["differences"][0]["node"]["nodeType"], "CA");
  EXPECT_EQ(guid_of(d["differences"][1]["port"]["portGUID"]), 0x10000au);
  EXPECT_EQ(d["differences"][2]["LID"], 6);
  const json& ends = d["differences"][3]["ends"];
  EXPECT_EQ(guid_of(ends[0]["nodeGUID"]), 0x100009u);
  EXPECT_EQ(guid_of(ends[1]["nodeGUID"]), 0x200001u);
  EXPECT_EQ(ends[1]["portNum"], 2);
  // Both documents follow the naming rule and the types.
  std::vector<std::string> bad;
  const Declared iba;
  walk(iba, "subnet_diff", d0, "", "", bad);
  walk(iba, "subnet_diff", d, "", "", bad);
  EXPECT_TRUE(bad.empty()) << joined(bad);
  // An unreadable cache: the error on stderr, status 2 both ways.
  EXPECT_EQ(fails_alike(f, {"subnet_diff", "no-such.cache"}).status, 2);
}

// set_port_state changing ports (a fabric of its own): the --json run says
// what the text run says of the same action on another port: the DR path
// and the SubnSet reply's states.  (ibsim does not train links: an enabled
// port stays in Polling.)
TEST(JsonMoreActions, SetPortStateSaysWhatItDid) {
  testbed::Fabric f(testbed::generate("example net.2sw2path4hca"));
  auto t = f.run(ib({"set_port_state", "--disable", "Switch1@3"}));
  ASSERT_EQ(t.status, 0) << t.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(t.out, m, std::regex(R"re(disabled via DR path (\S+), now (\w+)/(\w+))re"))) << t.out;
  auto r = f.run(ib({"set_port_state", "--disable", "--json", "Switch2@2"}));
  ASSERT_EQ(r.status, 0) << r.err;
  json d = json::parse(r.out);
  EXPECT_EQ(d["action"], "disable");
  EXPECT_FALSE(d["dryRun"].get<bool>());
  ASSERT_EQ(d["ports"].size(), 1u);
  const json& p = d["ports"][0];
  EXPECT_EQ(guid_of(p["nodeGUID"]), 0x200001u);
  EXPECT_EQ(p["portNum"], 2);
  EXPECT_TRUE(p["changed"].get<bool>());
  EXPECT_EQ(p["portState"], m[2].str());
  EXPECT_EQ(p["portPhysicalState"], m[3].str());
  EXPECT_EQ(p["portPhysicalState"], "Disabled");
  EXPECT_EQ(p["portPhysicalStateRaw"], 3);
  // Both back on: Polling, each by its own DR path.
  r = f.run(ib({"set_port_state", "--enable", "--json", "-D", "0,1@3", "0,1,5@2"}));
  ASSERT_EQ(r.status, 0) << r.err;
  d = json::parse(r.out);
  ASSERT_EQ(d["ports"].size(), 2u);
  EXPECT_EQ(jsontest::dr_text(d["ports"][0]["DRPath"]), m[1].str());
  for (const json& x : d["ports"]) {
    EXPECT_TRUE(x["changed"].get<bool>());
    EXPECT_EQ(x["portPhysicalState"], "Polling");
  }
  // A remote CA port cannot be set: the error, nothing on stdout.
  auto e = fails_alike(f, {"set_port_state", "--disable", "Hca2@1"});
  EXPECT_NE(e.err.find("change its peer instead"), std::string::npos) << e.err;
}

// init_all_ports --json resetting every link: the ports and DR paths of the
// text dry run, in its order, each answered in Init (the SM held, so that
// nothing activates them again); a second run finds them all in Init.
TEST(JsonMoreActions, InitAllPortsSaysWhatItReset) {
  testbed::Fabric f(testbed::generate("example net.2sw2path4hca"));
  auto t = f.run(ib({"init_all_ports", "-n"}));
  ASSERT_EQ(t.status, 0) << t.err;
  std::vector<std::tuple<uint64_t, int, std::string>> tl, jl;
  std::regex row(R"re(^".*" \(0x([0-9a-f]{16})\) port (\d+) lid \d+: would reset to Init via DR path (\S+),)re");
  for (auto& l : lines(t.out)) {
    std::smatch m;
    if (std::regex_search(l, m, row)) tl.push_back({hex(m[1]), std::stoi(m[2]), m[3]});
  }
  struct Held {
    pid_t pid;
    ~Held() { ::kill(pid, SIGCONT); }
  } held{f.opensm_pid()};
  ASSERT_EQ(::kill(held.pid, SIGSTOP), 0);
  auto r = f.run(ib({"init_all_ports", "--json"}));
  ASSERT_EQ(r.status, 0) << r.err;
  json d = json::parse(r.out);
  EXPECT_FALSE(d["dryRun"].get<bool>());
  for (const json& p : d["resets"]) {
    jl.push_back({guid_of(p["nodeGUID"]), p["portNum"].get<int>(), jsontest::dr_text(p["DRPath"])});
    EXPECT_TRUE(p["ok"].get<bool>());
    EXPECT_EQ(p["portStateRaw"], 2);  // Init
    EXPECT_EQ(p["portPhysicalState"], "LinkUp");
  }
  EXPECT_EQ(tl.size(), 6u) << t.out;
  EXPECT_EQ(jl, tl);
  expect_numbers(d["summary"], t.out, "## Summary", {"links", "reset", "alreadyInit", "failed", "notResettable"});
  r = f.run(ib({"init_all_ports", "--json"}));
  EXPECT_EQ(r.status, 0) << r.err;
  d = json::parse(r.out);
  EXPECT_TRUE(d["resets"].empty());
  EXPECT_EQ(d["summary"]["alreadyInit"], 6);
  EXPECT_EQ(d["summary"]["reset"], 0);
}

// set_nodedesc on a fake sysfs tree: what was set on each device, and -v's
// descriptions; the legacy name's notice goes to stderr; a device -C does
// not name leaves stdout empty with the text's status.
TEST(JsonMoreNodeDesc, SetAndViewNameEachDevice) {
  namespace fs = std::filesystem;
  char tmpl[] = "/tmp/json_more_nodedesc-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  fs::path root = tmpl;
  for (const char* d : {"mlx5_0", "mlx5_1"}) {
    fs::create_directories(root / "class/infiniband" / d);
    std::ofstream(root / "class/infiniband" / d / "node_desc") << "factory " << d << "\n";
  }
  auto run = [&](std::vector<std::string> args, const char* as = "set_nodedesc") {
    args.insert(args.begin(), {IBTOOL_PATH, as});
    return testbed::run_process(args, {{"IBTOOL_SYSFS_ROOT", root.string()}, {"LD_PRELOAD", ""}}, root.string(), 60);
  };
  auto r = run({"--json", "node01 HCA-1"});
  EXPECT_EQ(r.status, 0) << r.err;
  json d = json::parse(r.out);
  EXPECT_EQ(d["nodeDescription"], "node01 HCA-1");
  ASSERT_EQ(d["devices"].size(), 2u);
  for (const json& x : d["devices"]) EXPECT_TRUE(x["set"].get<bool>());
  auto t = run({"-v"});
  r = run({"-v", "--json"}, "set_nodedesc.sh");
  EXPECT_EQ(r.status, t.status);
  EXPECT_NE(r.err.find("deprecated"), std::string::npos) << r.err;
  d = json::parse(r.out);
  std::set<std::string> tl, jl;
  for (auto& l : lines(t.out)) tl.insert(l);
  for (const json& x : d["devices"])
    jl.insert(x["device"].get<std::string>() + ": " + x["nodeDescription"].get<std::string>());
  EXPECT_EQ(jl, tl);
  EXPECT_TRUE(jl.count("mlx5_1: node01 HCA-1"));
  t = run({"-C", "mlx9", "-v"});
  r = run({"-C", "mlx9", "-v", "--json"});
  EXPECT_EQ(r.status, t.status);
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(r.out, "");
  std::error_code ec;
  fs::remove_all(root, ec);
}

}  // namespace
