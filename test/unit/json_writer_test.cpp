// core/out/json.h (the --json writer) and core/fabric/json_net.h, checked by parsing
// what they write with nlohmann::json (Debian nlohmann-json3-dev): values
// exact (64-bit counters, GUIDs as strings), strings escaped so that they
// read back verbatim, --pretty the same document indented, IBA structures
// under their iba/ field names with enumeration names beside.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "core/out/json.h"
#include "core/fabric/json_net.h"
#include "core/fabric/nodemap.h"
#include "iba/introspect.h"
#include "iba/smp.h"
#include "subnet_test_fabric.h"

namespace {

using nlohmann::json;

// Run body on a JsonOut over a memory FILE; the text written.
template <class F>
std::string written(bool pretty, F body) {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  // The stream and its buffer go also when body throws.
  auto done = [&] {
    std::fclose(f);
    std::string s(buf, len);
    std::free(buf);
    return s;
  };
  try {
    ibcore::TextOut o(f);
    ibcore::JsonOut j(o, pretty);
    body(j);
  } catch (...) {
    done();
    throw;
  }
  return done();
}

TEST(JsonWriter, NumbersAndStringsReadBackExactly) {
  const uint64_t big = std::numeric_limits<uint64_t>::max();
  const std::string desc = "node \"q\" \\ tab\there\nnl \x01 caf\xc3\xa9 \xe2\x82\xac";
  std::string s = written(false, [&](ibcore::JsonOut& j) {
    j.obj().kv("big", big).key("neg").snum(-5).kguid("guid", 0x0002c90300001491ull).ks("desc", desc);
    j.kb("t", true).key("n").null().key("a").arr().num(1).num(2).obj().end().arr().end().end();
    j.end().finish();
  });
  EXPECT_EQ(s.back(), '\n');
  EXPECT_EQ(s.find('\n'), s.size() - 1) << "compact: one line";
  json d = json::parse(s);
  EXPECT_EQ(d["big"].get<uint64_t>(), big);
  EXPECT_EQ(d["neg"].get<int64_t>(), -5);
  EXPECT_EQ(d["guid"], "0x0002c90300001491");
  EXPECT_EQ(d["desc"].get<std::string>(), desc);
  EXPECT_EQ(d["t"], true);
  EXPECT_TRUE(d["n"].is_null());
  EXPECT_EQ(d["a"].dump(), "[1,2,{},[]]");
}

TEST(JsonWriter, BytesThatAreNotUtf8StayOneCharacterEach) {
  // A description with Latin-1 bytes (not UTF-8): valid JSON, each byte
  // the character of that value.
  std::string s = written(false, [](ibcore::JsonOut& j) { j.obj().ks("d", "a\xe9\xff" "b").end().finish(); });
  json d = json::parse(s);
  EXPECT_EQ(d["d"].get<std::string>(), "a\xc3\xa9\xc3\xbf" "b");
}

TEST(JsonWriter, EveryByteAtEveryPlaceOfAWordReadsBack) {
  // quoted() skips plain text eight bytes at a time: each byte value at
  // each place of three words still reads back (a lone byte >= 0x80 is
  // not UTF-8, and reads back as the Latin-1 character of that value).
  for (int b = 1; b < 256; ++b)
    for (size_t at = 0; at < 24; ++at) {
      std::string in(24, 'a');
      in[at] = char(b);
      std::string s = written(false, [&](ibcore::JsonOut& j) { j.obj().ks("d", in).end().finish(); });
      std::string want = in;
      if (b >= 0x80) want.replace(at, 1, std::string{char(0xc0 | (b >> 6)), char(0x80 | (b & 0x3f))});
      ASSERT_EQ(json::parse(s)["d"].get<std::string>(), want) << "byte " << b << " at " << at << ": " << s;
    }
}

TEST(JsonWriter, PrettyIsTheSameDocumentIndented) {
  auto body = [](ibcore::JsonOut& j) {
    j.obj().key("x").arr().num(1).obj().kv("y", 2).end().end().kv("z", 3).end().finish();
  };
  std::string compact = written(false, body), pretty = written(true, body);
  EXPECT_NE(compact, pretty);
  EXPECT_EQ(json::parse(compact), json::parse(pretty));
  EXPECT_NE(pretty.find("\n  \"x\": [\n    1,\n    {\n      \"y\": 2\n    }\n  ],"), std::string::npos) << pretty;
}

TEST(JsonWriter, CloseAllLeavesOneWholeDocument) {
  std::string s = written(false, [](ibcore::JsonOut& j) {
    j.obj().key("switches").arr().obj().kv("LID", 2).key("lft");
    j.close_all();
  });
  json d = json::parse(s);
  EXPECT_EQ(d["switches"][0]["LID"], 2);
  EXPECT_TRUE(d["switches"][0]["lft"].is_null());
}

TEST(JsonWriter, UnbalancedDocumentIsAWriterBug) {
  EXPECT_THROW(written(false, [](ibcore::JsonOut& j) { j.obj().finish(); }), std::logic_error);
  EXPECT_THROW(written(false, [](ibcore::JsonOut& j) { j.end(); }), std::logic_error);
}

TEST(JsonWriter, IbaStructureUnderItsDeclaredFieldNames) {
  iba::SMPPortInfo pi;
  pi.set_LID(0x1234).set_MKey(0xfedcba9876543210ull).set_portState(4).set_portPhysicalState(5);
  pi.set_linkWidthActive(2).set_linkWidthSupported(3).set_linkSpeedActive(1).set_neighborMTU(4);
  std::string s = written(false, [&](ibcore::JsonOut& j) { j.obj().fields(pi).end().finish(); });
  json d = json::parse(s);
  // Every non-reserved leaf, by the name query and decode_mad use.
  for (const iba::FieldRef& r : iba::leaves(iba::SMPPortInfo::DESC))
    EXPECT_TRUE(d.contains(r.path)) << r.path;
  EXPECT_FALSE(d.contains("reserved274"));
  EXPECT_EQ(d["LID"], 0x1234);
  // A 64-bit key is a string (a number that large reads back wrong in jq
  // 1.6); a narrower Hex field (capabilityMask) stays a number.
  EXPECT_EQ(d["MKey"], "0xfedcba9876543210");
  EXPECT_TRUE(d["capabilityMask"].is_number_unsigned());
  EXPECT_EQ(d["portState"], "Active");
  EXPECT_EQ(d["portStateRaw"], 4);
  EXPECT_EQ(d["portPhysicalState"], "LinkUp");
  EXPECT_EQ(d["linkWidthActive"], "4x");
  EXPECT_EQ(d["linkWidthSupported"], "1x,4x");
  EXPECT_EQ(d["linkWidthSupportedRaw"], 3);
  EXPECT_EQ(d["linkSpeedActive"], "SDR");
  EXPECT_EQ(d["neighborMTURaw"], 4);

  iba::SMPNodeInfo ni;
  ni.set_nodeType(2).set_nodeGUID(0x200000).set_numPorts(36);
  d = json::parse(written(false, [&](ibcore::JsonOut& j) { j.obj().fields(ni).end().finish(); }));
  EXPECT_EQ(d["nodeType"], "Switch");
  EXPECT_EQ(d["nodeTypeRaw"], 2);
  EXPECT_EQ(d["nodeGUID"], "0x0000000000200000");
  EXPECT_EQ(d["numPorts"], 36);
}

TEST(JsonNet, NodesAndPortsWithTheirRemoteEnds) {
  TestFabric f = TestFabric::two_switches();
  ibcore::Subnet& db = f.db;
  ibcore::NodeNameMap map;
  std::string s = written(false, [&](ibcore::JsonOut& j) {
    j.arr();
    for (const ibcore::Node& n : db.nodes()) ibcore::json_node(j, db, n, map, {});
    j.end().finish();
  });
  json d = json::parse(s);
  ASSERT_EQ(d.size(), db.node_count());
  size_t links = 0;
  for (size_t i = 0; i < db.node_count(); ++i) {
    const ibcore::Node& n = db.node(uint32_t(i));
    const json& o = d[i];
    EXPECT_EQ(o["nodeDescription"], n.description());
    char g[24];
    std::snprintf(g, sizeof g, "0x%016llx", (unsigned long long)n.guid);
    EXPECT_EQ(o["nodeGUID"], g);
    for (const json& p : o["ports"]) {
      const ibcore::Port& port = db.port(n, p["portNum"].get<unsigned>());
      const ibcore::Port* r = db.peer(port);
      ASSERT_EQ(p["remote"].is_null(), r == nullptr);
      if (!r) continue;
      ++links;
      EXPECT_EQ(p["remote"]["portNum"], r->num);
      EXPECT_EQ(p["remote"]["nodeDescription"], db.node_of(*r).description());
    }
  }
  EXPECT_GT(links, 0u);
}

}  // namespace

namespace {

// decode_mad --attr --json: the payload's fields, as its text decode shows
// them (no fabric needed).
TEST(JsonDecodeMad, PayloadFieldsAsTheTextShows) {
  auto run = [](const std::string& args) {
    std::string cmd = "printf '00 01 02 03 04 05 06 07 fe 80 00 00 00 00 00 00 00 2a' | " + std::string(IBTOOL_PATH) +
                      " decode_mad --attr SMPPortInfo " + args;
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    char b[4096];
    size_t n;
    while ((n = std::fread(b, 1, sizeof b, p)) > 0) out.append(b, n);
    EXPECT_EQ(pclose(p), 0) << cmd;
    return out;
  };
  std::string text = run("");
  json d = json::parse(run("--json"));
  EXPECT_EQ(d["attribute"], "SMPPortInfo");
  EXPECT_EQ(d["attributeID"], 21);
  EXPECT_EQ(d["data"]["MKey"], "0x0001020304050607");
  EXPECT_EQ(d["data"]["GIDPrefix"], "0xfe80000000000000");
  EXPECT_EQ(d["data"]["LID"], 42);
  EXPECT_NE(text.find("MKey=0x0001020304050607"), std::string::npos) << text;
  EXPECT_NE(text.find("LID=42,"), std::string::npos) << text;
}

}  // namespace
