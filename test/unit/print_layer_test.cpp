// core/out/print.h: one description of a result gives the reference's text
// in text mode and the JSON document in JSON mode; PRINT_FP and PRINT_JSON
// values show on their side only; formats take any integer width.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "test/unit/mem_file.h"
#include "core/out/print.h"
#include "iba/refprint_smp.h"
#include "iba/smp.h"

namespace {

using ibcore::PRINT_ANY;
using ibcore::PRINT_FP;
using ibcore::PRINT_JSON;
using ibcore::Printer;
using nlohmann::json;

using Mem = testutil::MemFile;

// One description of a port's address, as a command would write it.
void describe(Printer& p, bool dec) {
  iba::Gid g = iba::Gid::from(0xfe80000000000000ull, 0x0002c90300001491ull);
  p.open_object();
  p.gid(PRINT_ANY, "GID", "GID %s ", g);
  p.guid(PRINT_JSON, "portGUID", nullptr, 0x0002c90300001491ull);
  p.text("LID start ");
  p.uint(PRINT_ANY, "LID", dec ? "%u" : "0x%x", 12);
  p.uint(PRINT_JSON, "LMC", nullptr, 2);
  p.uint(PRINT_ANY, "endLID", dec ? " end %u" : " end 0x%x", 15);
  p.text("\n");
  p.close_object();
  p.finish();
}

TEST(PrintLayer, TextAndJsonFromOneDescription) {
  Mem t, j;
  {
    Printer p(t.f, false, false);
    describe(p, false);
  }
  EXPECT_EQ(t.text(), "GID fe80::2:c903:0:1491 LID start 0xc end 0xf\n");
  {
    Printer p(j.f, true, false);
    describe(p, false);
  }
  EXPECT_EQ(j.text(),
            "{\"GID\":\"fe80::2:c903:0:1491\",\"portGUID\":\"0x0002c90300001491\",\"LID\":12,\"LMC\":2,"
            "\"endLID\":15}\n");
}

TEST(PrintLayer, PrettyIsTheSameDocument) {
  Mem a, b;
  {
    Printer p(a.f, true, false);
    describe(p, true);
  }
  {
    Printer p(b.f, true, true);
    describe(p, true);
  }
  EXPECT_NE(a.text(), b.text());
  EXPECT_EQ(json::parse(a.text()), json::parse(b.text()));
}

TEST(PrintLayer, FormatsTakeAnyIntegerWidth) {
  Mem t;
  {
    Printer p(t.f, false, false);
    p.guid(PRINT_ANY, "g", "0x%016x", 0x0002c90300001491ull);
    p.uint(PRINT_ANY, "w", " [%4u]", 7);
    p.sint(PRINT_ANY, "s", " %d", -5);
    p.uint(PRINT_ANY, "h", " %lx", 0xabcdef0123ull);
    p.real(PRINT_ANY, "r", " %.2f", 1.005e3);
    p.str(PRINT_ANY, "n", " %-6s|", "ab");
    p.str(PRINT_ANY, "m", " 100%% %s%%", "x");
    p.boolean(PRINT_ANY, "b", " %s", true, "yes", "no");
    p.enumeration(PRINT_ANY, "e", " state %s", "Active", 4);
    p.null("z");
    p.text("\n");
    p.finish();
  }
  EXPECT_EQ(t.text(), "0x0002c90300001491 [   7] -5 abcdef0123 1005.00 ab    | 100% x% yes state Active\n");
}

TEST(PrintLayer, JsonKindsAndNesting) {
  Mem j;
  {
    Printer p(j.f, true, false);
    p.open_object();
    p.text("never in the document %d\n", 1);
    p.uint(PRINT_FP, "hidden", "%u", 1);
    p.open_array("rows");
    for (unsigned i = 0; i < 2; ++i) {
      p.open_object().uint(PRINT_ANY, "i", "%u", i).sint(PRINT_ANY, "s", "%d", -int(i)).close_object();
    }
    p.uint(PRINT_ANY, nullptr, "%u", 9);
    p.close_array();
    p.boolean(PRINT_ANY, "b", "%s", false).enumeration(PRINT_ANY, "state", "%s", "Active", 4);
    p.null("none").real(PRINT_JSON, "r", nullptr, 0.5).str(PRINT_JSON, "n", nullptr, "a\"b");
    p.json_value("dest", [](ibcore::JsonOut& w) { w.obj().kv("LID", 3).end(); });
    p.close_object();
    p.finish();
  }
  json d = json::parse(j.text());
  EXPECT_FALSE(d.contains("hidden"));
  EXPECT_EQ(d["rows"], json::parse(R"([{"i":0,"s":0},{"i":1,"s":-1},9])"));
  EXPECT_EQ(d["b"], false);
  EXPECT_EQ(d["state"], "Active");
  EXPECT_EQ(d["stateRaw"], 4);
  EXPECT_TRUE(d["none"].is_null());
  EXPECT_EQ(d["r"], 0.5);
  EXPECT_EQ(d["n"], "a\"b");
  EXPECT_EQ(d["dest"]["LID"], 3);
}

TEST(PrintLayer, AttributeThroughItsDeclaration) {
  iba::SMPNodeInfo ni;
  ni.set_nodeType(2).set_numPorts(36).set_nodeGUID(0x0002c90300001491ull);
  int layouts = 0;
  auto layout = [&] {
    ++layouts;
    return iba::ref::smp_print(ni);
  };
  Mem t, j;
  {
    Printer p(t.f, false, false);
    p.attribute("NodeInfo", iba::SMPNodeInfo::DESC, ni.buf.data(), layout);
    p.finish();
  }
  EXPECT_EQ(t.text(), iba::ref::smp_print(ni));
  EXPECT_EQ(layouts, 1);
  {
    Printer p(j.f, true, false);
    p.open_object().attribute("NodeInfo", iba::SMPNodeInfo::DESC, ni.buf.data(), layout).close_object();
    p.finish();
  }
  EXPECT_EQ(layouts, 1);  // the text's layout is not made for JSON
  json d = json::parse(j.text());
  EXPECT_EQ(d["NodeInfo"]["numPorts"], 36);
  EXPECT_EQ(d["NodeInfo"]["nodeGUID"], "0x0002c90300001491");
}

TEST(PrintLayer, WholeDocumentOnlyWhenFinished) {
  Mem j;
  {
    Printer p(j.f, true, false, Printer::Doc::Whole);
    p.open_object().uint(PRINT_ANY, "a", "%u", 1);
    p.close_all();  // a failed run: nothing written
  }
  EXPECT_EQ(j.text(), "");
  {
    Printer p(j.f, true, false, Printer::Doc::Whole);
    p.open_object().uint(PRINT_ANY, "a", "%u", 1).close_object();
    EXPECT_EQ(j.text(), "");
    p.finish();
  }
  EXPECT_EQ(j.text(), "{\"a\":1}\n");
}

TEST(PrintLayer, StreamCloseAllLeavesOneDocument) {
  Mem j;
  {
    Printer p(j.f, true, false);
    p.open_object().open_array("rows").uint(PRINT_ANY, nullptr, "%u", 1);
    p.close_all();
  }
  EXPECT_EQ(j.text(), "{\"rows\":[1]}\n");
}

// The row path: the same calls give the text (buffered, flushed in order
// with the printf-style calls) and the JSON; cached() makes a fragment's
// text once.
void describe_rows(Printer& p, std::string& cache, int& made) {
  p.open_object().open_array("rows");
  for (unsigned lid = 9; lid <= 10; ++lid) {
    p.open_object().lit("0x").uint(PRINT_ANY, "LID", "%04x", lid).lit(' ').uint(PRINT_ANY, "port", "%03u", lid - 8);
    p.lit(" (").str(PRINT_ANY, "name", "%6s", "Hca1").lit(") ").guid(PRINT_ANY, "guid", "%016x", 0x1491);
    p.uint(PRINT_FP, nullptr, "%3u", 7).uint(PRINT_JSON, "hidden", nullptr, 5);
    p.cached(cache, true, [&] {
      ++made;
      p.lit(" ->").enumeration(PRINT_ANY, "state", "%s", "Active", 4);
    });
    p.lit('\n').close_object();
  }
  p.close_array();
  p.uint(PRINT_FP, nullptr, "%u rows\n", 2);
  p.close_object();
  p.finish();
}

TEST(PrintLayer, RowPathTextAndJsonFromOneDescription) {
  std::string cache;
  int made = 0;
  Mem t;
  {
    Printer p(t.f, false, false);
    describe_rows(p, cache, made);
  }
  EXPECT_EQ(t.text(),
            "0x0009 001 (  Hca1) 0000000000001491  7 ->Active\n"
            "0x000a 002 (  Hca1) 0000000000001491  7 ->Active\n"
            "2 rows\n");
  EXPECT_EQ(made, 1);  // (the cached text made once)
  EXPECT_EQ(cache, " ->Active");
  std::string none;
  Mem j;
  {
    Printer p(j.f, true, false);
    describe_rows(p, none, made);
  }
  EXPECT_EQ(made, 3);  // (its JSON described each time)
  EXPECT_TRUE(none.empty());
  json d = json::parse(j.text());
  ASSERT_EQ(d["rows"].size(), 2u);
  EXPECT_EQ(d["rows"][1], json::parse(R"({"LID":10,"port":2,"name":"Hca1","guid":"0x0000000000001491",)"
                                      R"("hidden":5,"state":"Active","stateRaw":4})"));
}

TEST(PrintLayer, BadFormatIsAWriterBug) {
  // (a literal that is not a format does not compile; these are chosen at
  // run time)
  const char* none = "no conversion";
  const char* num = "%u";
  const char* str = "%s";
  const char* two = "%u %u";
  Mem t;
  Printer p(t.f, false, false);
  EXPECT_THROW(p.uint(PRINT_ANY, "a", none, 1), std::logic_error);
  EXPECT_THROW(p.str(PRINT_ANY, "a", num, "x"), std::logic_error);
  EXPECT_THROW(p.uint(PRINT_ANY, "a", str, 1), std::logic_error);
  EXPECT_THROW(p.uint(PRINT_ANY, "a", two, 1), std::logic_error);
}

// The conversions written without printf give printf's bytes, and the rest
// go through it: each case against snprintf.
TEST(PrintLayer, ConversionsAsPrintfWritesThem) {
  const char* fmts[] = {"%u", "%5u", "%05u", "%-5u|", "%02u", "%x", "%4x", "%04x", "%016x", "%02x", "%X",
                        "%#x", "%o", "%+d", "%8.3u", "[%3u%%]"};
  const uint64_t vals[] = {0, 7, 255, 4096, 123456, 0x0002c90300001491ull};
  for (const char* f : fmts)
    for (uint64_t v : vals) {
      Mem t;
      {
        Printer p(t.f, false, false);
        p.uint(PRINT_ANY, "v", f, v);
      }
      std::string spec(f);
      std::string ll = spec;
      size_t c = ll.find_first_of("uxXod");
      ll.insert(c, "ll");
      char want[64];
      std::snprintf(want, sizeof want, ll.c_str(), static_cast<unsigned long long>(v));
      EXPECT_EQ(t.text(), want) << f << " " << v;
    }
  const char* sfmts[] = {"%s", "%6s", "%-6s|", "%.2s", "<%s>"};
  for (const char* f : sfmts)
    for (const char* v : {"", "ab", "abcdefgh"}) {
      Mem t;
      {
        Printer p(t.f, false, false);
        p.str(PRINT_ANY, "v", f, v);
      }
      char want[64];
      std::snprintf(want, sizeof want, f, v);
      EXPECT_EQ(t.text(), want) << f << " " << v;
    }
  Mem t;
  {
    Printer p(t.f, false, false);
    p.sint(PRINT_ANY, "a", "%d", -12).sint(PRINT_ANY, "b", " %5d", -3).sint(PRINT_ANY, "c", " %d", 4);
  }
  EXPECT_EQ(t.text(), "-12    -3 4");
}

// Each call's text is on the FILE when it returns, in order with writes
// made around the printer; a rows() scope holds it until it ends.
TEST(PrintLayer, TextInOrderWithTheFile) {
  Mem t;
  {
    Printer p(t.f, false, false);
    p.uint(PRINT_ANY, "a", "%u", 1);
    std::fputs("-", t.f);
    p.lit("b");
    std::fputs("-", t.f);
    {
      auto rows = p.rows();
      p.uint(PRINT_ANY, "c", "%u", 3);
      EXPECT_EQ(t.text(), "1-b-");
    }
    EXPECT_EQ(t.text(), "1-b-3");
  }
}

// The two sides' differences are described: json_part and text_part run
// only for their side, per_side chooses.
TEST(PrintLayer, SidesDescribedNotTested) {
  for (bool json : {false, true}) {
    Mem m;
    int jp = 0, tp = 0;
    {
      Printer p(m.f, json, false);
      p.open_object();
      p.json_part([&] {
        ++jp;
        p.uint(PRINT_JSON, "only", nullptr, 1);
      });
      p.text_part([&] {
        ++tp;
        p.lit("words");
      });
      p.str(PRINT_ANY, "order", "%s", p.per_side(std::string("text"), std::string("doc")));
      p.close_object();
      p.finish();
    }
    EXPECT_EQ(jp, json ? 1 : 0);
    EXPECT_EQ(tp, json ? 0 : 1);
    EXPECT_EQ(m.text(), json ? "{\"only\":1,\"order\":\"doc\"}\n" : "wordstext");
  }
}

}  // namespace
