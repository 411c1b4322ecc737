// vendstat against a fake Mellanox vendor class (0x0a) agent: ibsim has
// none, so every success layout of vendstat was untested on a fabric.  The
// agent is this test program itself, run again on a node of the simulated
// fabric as that node's SM client (umad2sim's SIM_SET_ISSM=1, which ibsim
// hands the node's QP1 requests to; OpenSM runs with ignore_other_sm so it
// never polls it).  It answers ClassPortInfo, an IS3 GeneralInfo, counter
// group info and configuration, and configuration space records whose data
// is derived from the address.  Each mode's --json is compared with the
// text of the same mode.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <span>
#include <sstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "core/transport/devices.h"
#include "core/rpc/server.h"
#include "core/transport/open.h"
#include "iba/mad.h"
#include "iba/vendor.h"
#include "test/integration/json_check.h"
#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

using nlohmann::json;
using jsontest::ib;
using jsontest::lines;

// The data a config space record reads at addr (nothing in particular,
// only different per address).
uint32_t space_value(uint32_t addr) { return (addr * 2654435761u) ^ 0x5a5a0000u; }

std::atomic<bool> g_stop{false};

// The counter groups the last Set selected (a Get reads them back).
std::vector<uint8_t> g_groups(232, 0);

// The agent's answer to one request (data area of the reply).
std::vector<uint8_t> answer(uint8_t method, uint16_t attr, std::span<const uint8_t> req) {
  std::vector<uint8_t> d(232, 0);
  switch (attr) {
    case iba::AttrId<iba::MLXConfigCounterGroups>::value:
      if (method == iba::method::SET) g_groups.assign(req.begin(), req.begin() + std::min(req.size(), d.size()));
      return g_groups;
    case iba::AttrId<iba::MLXGeneralInfoIS3>::value: {
      iba::MLXGeneralInfoIS3 g;
      g.set_hwRevision(0xa1).set_hwDeviceID(0xb924).set_hwUptime(0x1234567);
      g.set_fwMajor(7).set_fwMinor(4).set_fwSubMinor(30).set_fwBuildID(0x42);
      g.set_fwMonth(0x11).set_fwDay(0x25).set_fwYear(0x2026).set_fwIniFileVersion(9);
      g.set_swMajor(1).set_swMinor(2).set_swSubMinor(3);
      auto b = g.bytes();
      std::memcpy(d.data(), b.data(), b.size());
      const char psid[] = "MT_0FC0110009";
      std::memcpy(d.data() + 56, psid, sizeof psid - 1);  // fwPSID: bit 448
      break;
    }
    case iba::AttrId<iba::MLXConfigSpaceAccess>::value: {
      // Every record as asked, its data read (a Get) or kept (a Set).
      iba::MLXConfigSpaceAccess cs;
      cs.load(req.subspan(0, std::min(req.size(), size_t(iba::MLXConfigSpaceAccess::DESC.size))));
      for (size_t i = 0; i < 18; ++i) {
        auto r = cs.record(i);
        if (r.address() && r.data() == 0) r.set_data(space_value(uint32_t(r.address())));
        cs.set_record(i, r);
      }
      auto b = cs.bytes();
      std::memcpy(d.data(), b.data(), b.size());
      break;
    }
    case iba::AttrId<iba::MLXCounterGroupInfo>::value: {
      iba::MLXCounterGroupInfo ci;
      ci.set_numOfCounterGroups(3);
      auto b = ci.bytes();
      std::memcpy(d.data(), b.data(), b.size());
      // Three masks: two in the structure, the third after it.
      const uint32_t masks[] = {0x1f, 0x3e0, 0x7c00};
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 4; ++k) d[12 + 4 * i + k] = uint8_t(masks[i] >> (24 - 8 * k));
      break;
    }
    default:  // ClassPortInfo: the request echoed
      std::memcpy(d.data(), req.data(), std::min(req.size(), d.size()));
  }
  return d;
}

// The agent: only when run by the test below (JSON_MLX_AGENT names the
// file to create once it is registered).
TEST(FakeMlxAgent, Serve) {
  const char* ready = std::getenv("JSON_MLX_AGENT");
  if (!ready) GTEST_SKIP() << "the fake vendor agent runs only when JsonVendstat starts it";
  std::signal(SIGTERM, [](int) { g_stop = true; });
  auto t = ibcore::open_transport(ibcore::get_end_port("", 0), ibcore::Config{});
  ibcore::MadServer srv(*t, iba::MLX_VENDOR_CLASS, 1, iba::M_GET | iba::M_SET);
  std::ofstream(ready) << "ready\n";
  const iba::ClassDesc* cls = iba::find_class(iba::MLX_VENDOR_CLASS, 1);
  while (!g_stop) {
    ibcore::IncomingMad in;
    if (!srv.recv(in, 250)) continue;
    const uint8_t* m = in.raw.data.data();
    if (m[1] != iba::MLX_VENDOR_CLASS) continue;
    ibcore::ParsedRequest p;
    p.in = &in;
    p.cls = cls;
    p.reply_path = in.raw.addr.to_path();
    p.reply_path.reverse(true);
    if (!p.reply_path.qkey) p.reply_path.qkey = ibcore::GSI_QKEY;
    uint16_t attr = uint16_t(m[16] << 8 | m[17]);
    auto d = answer(m[3], attr, std::span<const uint8_t>(m + cls->data_off, iba::MAD_SIZE - cls->data_off));
    srv.send_reply(p, d);
  }
}

// One vendstat run of with_agent(): its stdout and exit status.
struct VendRun {
  std::string out;
  int status = -1;
};

class JsonVendstat : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    testbed::FabricOptions o;
    o.tag = "mlxagent";
    o.opensm_conf = {"ignore_other_sm TRUE"};
    f_ = new testbed::Fabric(testbed::generate("example net.2sw2path4hca"), o);
  }
  static void TearDownTestSuite() {
    delete f_;
    f_ = nullptr;
  }

  // Run each command line from node Hca1 while the agent serves on Hca2.
  static std::vector<VendRun> with_agent(const std::vector<std::vector<std::string>>& cmds) {
    char self[4096] = {};
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    EXPECT_GT(n, 0);
    std::string d = f_->dir();
    std::string s = "rm -f agent.ready; JSON_MLX_AGENT=" + d + "/agent.ready SIM_HOST=Hca2 SIM_SET_ISSM=1 " +
                    std::string(self) + " --gtest_filter=FakeMlxAgent.Serve >agent.out 2>agent.err & p=$!\n" +
                    "i=0; until [ -e agent.ready ] || [ $i -ge 200 ]; do i=$((i+1)); sleep 0.05; done\n";
    for (size_t i = 0; i < cmds.size(); ++i) {
      std::string line = "SIM_HOST=Hca1 " + std::string(IBTOOL_PATH);
      for (auto& a : cmds[i]) line += " '" + a + "'";
      s += line + " >v" + std::to_string(i) + ".out 2>v" + std::to_string(i) + ".err; echo $? >v" +
           std::to_string(i) + ".st\n";
    }
    s += "kill -TERM $p; wait $p\n";
    auto r = f_->sh(s, {}, 300);
    EXPECT_TRUE(std::filesystem::exists(d + "/agent.ready")) << r.err;
    std::vector<VendRun> out;
    for (size_t i = 0; i < cmds.size(); ++i) {
      auto slurp = [&](const std::string& f) {
        std::ifstream in(d + "/" + f);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
      };
      VendRun x;
      x.out = slurp("v" + std::to_string(i) + ".out");
      std::string st = slurp("v" + std::to_string(i) + ".st");
      x.status = st.empty() ? -1 : std::atoi(st.c_str());
      out.push_back(x);
    }
    return out;
  }
  static testbed::Fabric* f_;
};
testbed::Fabric* JsonVendstat::f_ = nullptr;

// "name:   value" lines of vendstat -N.
std::map<std::string, std::string> colon_lines(const std::string& text) {
  return jsontest::named_values(text, std::regex(R"re(^(\w+):\s+(.*)$)re"));
}

TEST_F(JsonVendstat, EveryModeHasTheTextsValues) {
  const std::string g = "0x0000000000100004";  // Hca2's port
  std::vector<std::vector<std::string>> cmds = {
      {"vendstat", "-G", "-N", "-w", g},          {"vendstat", "-G", "-N", "-w", "--json", g},
      {"vendstat", "-G", "-i", g, "1"},           {"vendstat", "-G", "-i", "--json", g, "1"},
      {"vendstat", "-G", "-c", "1,2", g, "1"},    {"vendstat", "-G", "-c", "1,2", "--json", g, "1"},
      {"vendstat", "-G", "-R", "0x100,0xff00", "-W", "0x200,0x5,0xff", g},
      {"vendstat", "-G", "-R", "0x100,0xff00", "-W", "0x200,0x5,0xff", "--json", g}};
  auto r = with_agent(cmds);
  ASSERT_EQ(r.size(), cmds.size());
  for (size_t i = 0; i < r.size(); i += 2) {
    EXPECT_EQ(r[i].status, 0) << r[i].out;
    EXPECT_EQ(r[i + 1].status, r[i].status) << r[i + 1].out;
  }
  // -N -w: the general information, the non-zero PortXmitWait counters.
  json n = json::parse(r[1].out);
  auto t = colon_lines(r[0].out);
  const json& gi = n["generalInfo"];
  EXPECT_EQ(t["hw_dev_id"], "0xb924");
  EXPECT_EQ(gi["hwDeviceID"], 0xb924);
  EXPECT_EQ(std::stoul(t["hw_dev_rev"], nullptr, 16), gi["hwRevision"].get<unsigned>());
  EXPECT_EQ(std::stoul(t["hw_uptime"], nullptr, 16), gi["hwUptime"].get<unsigned>());
  EXPECT_EQ(t["fw_version"], gi["fwVersion"]);
  EXPECT_EQ(t["sw_version"], gi["swVersion"]);
  EXPECT_EQ(t["fw_psid"], "'" + gi["fwPSID"].get<std::string>() + "'");
  EXPECT_EQ(std::stoul(t["fw_build_id"], nullptr, 16), gi["fwBuildID"].get<unsigned>());
  // (In the text's order: IS3's table numbers ports 4..19, 21..24, 1..4.)
  std::vector<std::pair<unsigned, unsigned>> tw, jw;
  std::regex wait(R"re(^Port (\d+): PortXmitWait 0x([0-9a-f]+)$)re");
  for (auto& l : lines(r[0].out)) {
    std::smatch m;
    if (std::regex_search(l, m, wait))
      tw.push_back({unsigned(std::stoul(m[1])), unsigned(std::stoul(m[2], nullptr, 16))});
  }
  for (const json& p : n["portXmitWait"])
    jw.push_back({p["portNum"].get<unsigned>(), p["portXmitWait"].get<unsigned>()});
  EXPECT_EQ(tw.size(), 24u) << r[0].out;
  EXPECT_EQ(jw, tw);

  // -i: the group count and masks.
  json ci = json::parse(r[3].out)["counterGroupInfo"];
  std::vector<unsigned> tm, jm;
  for (auto& l : lines(r[2].out)) {
    std::smatch m;
    if (std::regex_search(l, m, std::regex(R"re(^group\d+ mask (0x[0-9a-f]+|0)$)re")))
      tm.push_back(unsigned(std::stoul(m[1], nullptr, 16)));
  }
  for (const json& m : ci["groupMask"]) jm.push_back(m.get<unsigned>());
  EXPECT_EQ(ci["numOfCounterGroups"], 3);
  EXPECT_EQ(jm, (std::vector<unsigned>{0x1f, 0x3e0, 0x7c00}));
  EXPECT_EQ(jm, tm);

  // -c: what was asked, set, and read back.
  json cg = json::parse(r[5].out)["configCounterGroups"];
  EXPECT_NE(r[4].out.find("configuring group0 1 group1 2"), std::string::npos) << r[4].out;
  EXPECT_EQ(cg["groupSelect0"], 1);
  EXPECT_EQ(cg["groupSelect1"], 2);
  EXPECT_TRUE(cg["set"].get<bool>());
  EXPECT_EQ(cg["read"]["groupSelect0"], 1);

  // -R/-W: the records as the text prints them, in its order.
  json cs = json::parse(r[7].out);
  std::vector<std::pair<unsigned, unsigned>> tr, jr;
  std::regex rec(R"re(^Config space record at 0x([0-9a-f]+): 0x([0-9a-f]+)$)re");
  for (auto& l : lines(r[6].out)) {
    std::smatch m;
    if (std::regex_search(l, m, rec))
      tr.push_back({unsigned(std::stoul(m[1], nullptr, 16)), unsigned(std::stoul(m[2], nullptr, 16))});
  }
  for (const char* k : {"configSpaceRead", "configSpaceWritten"})
    for (const json& x : cs[k]) jr.push_back({x["address"].get<unsigned>(), x["data"].get<unsigned>()});
  EXPECT_EQ(tr.size(), 2u) << r[6].out;
  EXPECT_EQ(jr, tr);
  EXPECT_EQ(cs["configSpaceRead"][0]["data"], space_value(0x100) & 0xff00);
  EXPECT_EQ(cs["configSpaceWritten"][0]["data"], 0x5);
}

}  // namespace
