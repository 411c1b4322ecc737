// core/out/json.h additions for the health and action commands: JsonOut::real
// (measurements read back as the same double; non-finite values as null)
// and JsonDoc (the document reaches the FILE only on commit(), so a run
// that fails part way writes nothing).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "test/unit/mem_file.h"
#include "core/out/json.h"

namespace {

using nlohmann::json;

// A memory FILE and what was written to it.
using Mem = testutil::MemFile;

TEST(JsonDoc, RealsReadBackExactly) {
  Mem m;
  {
    ibcore::JsonDoc doc(false);
    doc.j().obj().key("a").real(0.1).key("b").real(1234.5678e10).key("c").real(3.0);
    doc.j().key("inf").real(std::numeric_limits<double>::infinity()).key("nan").real(std::nan(""));
    doc.j().key("neg").real(-2.5e-7).end();
    doc.commit(m.f);
  }
  json d = json::parse(m.text());
  EXPECT_EQ(d["a"].get<double>(), 0.1);
  EXPECT_EQ(d["b"].get<double>(), 1234.5678e10);
  EXPECT_EQ(d["c"].get<double>(), 3.0);
  EXPECT_TRUE(d["inf"].is_null());
  EXPECT_TRUE(d["nan"].is_null());
  EXPECT_EQ(d["neg"].get<double>(), -2.5e-7);
}

TEST(JsonDoc, NothingIsWrittenWithoutCommit) {
  Mem m;
  try {
    ibcore::JsonDoc doc(true);
    // More than TextOut's 64 kB buffer: flushed into the document's own
    // memory, never to the FILE.
    doc.j().obj().key("rows").arr();
    for (int i = 0; i < 20000; ++i) doc.j().num(uint64_t(i) * 1000003u);
    throw std::runtime_error("the run fails part way");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(m.text(), "");

  ibcore::JsonDoc doc(true);
  doc.j().obj().key("rows").arr();
  for (int i = 0; i < 20000; ++i) doc.j().num(uint64_t(i) * 1000003u);
  doc.j().end().end();
  doc.commit(m.f);
  json d = json::parse(m.text());
  ASSERT_EQ(d["rows"].size(), 20000u);
  EXPECT_EQ(d["rows"][19999].get<uint64_t>(), uint64_t(19999) * 1000003u);
}

// An unclosed document is a writer bug: commit() says so and writes nothing.
TEST(JsonDoc, CommitOfAnOpenDocumentThrows) {
  Mem m;
  ibcore::JsonDoc doc(false);
  doc.j().obj().key("x").num(1);
  EXPECT_THROW(doc.commit(m.f), std::logic_error);
  EXPECT_EQ(m.text(), "");
}

}  // namespace
