// core/out/jsonschema.h: a command's --json-schema is derived from the
// document its descriptions wrote, read by docs/json.md's rules.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "core/out/jsonschema.h"

namespace {

using Json = nlohmann::ordered_json;

Json schema(const std::string& doc) { return Json::parse(ibcore::json_schema_of(doc, false)); }

TEST(JsonSchema, TypesFormatsAndEnumerations) {
  Json s = schema(R"({"nodeGUID": "0x0002c90300001491", "name": "sw1", "LID": 3, "rate": 2.5, "ok": true,
                      "portState": "Active", "portStateRaw": 4, "gone": null})");
  EXPECT_EQ(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
  EXPECT_EQ(s["type"], "object");
  const Json& p = s["properties"];
  EXPECT_EQ(p["nodeGUID"], Json::parse(R"({"type": "string", "format": "guid"})"));
  EXPECT_EQ(p["name"], Json::parse(R"({"type": "string"})"));
  EXPECT_EQ(p["LID"]["type"], "integer");
  EXPECT_EQ(p["rate"]["type"], "number");
  EXPECT_EQ(p["ok"]["type"], "boolean");
  EXPECT_EQ(p["gone"]["type"], "null");
  EXPECT_TRUE(p["portState"].contains("description"));   // a name with its Raw beside
  EXPECT_FALSE(p["name"].contains("description"));
  EXPECT_EQ(p["portStateRaw"]["type"], "integer");
  // The document's order, every member required (one instance).
  std::string order;
  for (auto& [k, v] : p.items()) order += k + " ";
  EXPECT_EQ(order, "nodeGUID name LID rate ok portState portStateRaw gone ");
  EXPECT_EQ(s["required"].size(), 8u);
}

TEST(JsonSchema, ArraysAreTheUnionOfTheirElements) {
  // A member one element lacks is not required; null in one and a number
  // in another (a field its capability denies) is both.
  Json s = schema(R"({"ports": [{"portNum": 1, "xmitWait": 7}, {"portNum": 2, "xmitWait": null, "extra": "x"}],
                      "empty": [], "guids": ["0x0000000000000001", "not a guid"]})");
  const Json& ports = s["properties"]["ports"];
  EXPECT_EQ(ports["type"], "array");
  const Json& item = ports["items"];
  EXPECT_EQ(item["type"], "object");
  EXPECT_EQ(item["properties"]["xmitWait"]["type"], Json::parse(R"(["integer", "null"])"));
  EXPECT_EQ(item["required"], Json::parse(R"(["portNum", "xmitWait"])"));
  EXPECT_TRUE(item["properties"].contains("extra"));
  EXPECT_EQ(s["properties"]["empty"], Json::parse(R"({"type": "array"})"));
  EXPECT_FALSE(s["properties"]["guids"]["items"].contains("format"));  // not every string a GUID
}

TEST(JsonSchema, IntegersAndRealsMakeANumber) {
  Json s = schema(R"([1, 2.5, 3])");
  EXPECT_EQ(s["type"], "array");
  EXPECT_EQ(s["items"]["type"], "number");
}

TEST(JsonSchema, NotOneDocumentIsAnError) {
  EXPECT_THROW(ibcore::json_schema_of("{\"a\": 1} {\"b\": 2}", false), std::invalid_argument);
  EXPECT_THROW(ibcore::json_schema_of("", false), std::invalid_argument);
  EXPECT_THROW(ibcore::json_schema_of("{\"a\": ", false), std::invalid_argument);
}

}  // namespace
