// The conformance harness: every row of test/conformance/rows/*.rows is a
// GoogleTest test (suite = rows file name) that runs the reference tool and
// ibtool on the same simulated fabric and compares stdout (exactly, after
// the row's allowed normalisations) and the exit status.  One fabric per
// topology and list of injected faults (`console:` lines) per process,
// shared by the rows that name both.
//
// Rows are added together with the command they test: a row whose command
// ibtool does not register fails (it is not skipped), so a command that
// disappears from the binary cannot hide behind its rows.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "test/conformance/rows.h"
#include "test/testbed/fabric.h"
#include "test/testbed/topology.h"

namespace {

namespace fs = std::filesystem;

std::string g_ibtool = IBTOOL_PATH;
std::string g_linkdir;  // legacy-name links to ibtool

struct FabricSlot {
  std::unique_ptr<testbed::Fabric> fabric;
  std::string error;
};
std::map<std::string, FabricSlot> g_fabrics;

// The fabric of a row: one per topology and console list (rows with injected
// faults get a fabric of their own, the faults applied once it is up).
testbed::Fabric* fabric_for(const conformance::Row& r, std::string& error) {
  std::string key = conformance::fabric_key(r);
  auto it = g_fabrics.find(key);
  if (it == g_fabrics.end()) {
    FabricSlot s;
    try {
      s.fabric = std::make_unique<testbed::Fabric>(testbed::generate(r.topology), testbed::FabricOptions{.start_sm = true, .up_timeout = 120, .tag = "conf"});
      for (const auto& c : r.console) {
        std::string answer = s.fabric->console(c);
        if (conformance::console_failed(answer))
          throw std::runtime_error("ibsim refused console command '" + c + "': " + answer);
      }
    } catch (const std::exception& e) {
      s.fabric.reset();
      s.error = e.what();
    }
    it = g_fabrics.emplace(key, std::move(s)).first;
  }
  error = it->second.error;
  return it->second.fabric.get();
}

std::map<std::string, bool> g_registered;
bool registered(const std::string& name) {
  auto it = g_registered.find(name);
  if (it != g_registered.end()) return it->second;
  auto r = testbed::run_process({g_ibtool, "help", name}, {}, "/", 30);
  return g_registered[name] = (r.status == 0);
}

// Whether a command takes --transport (every MAD-sending command): its rows
// run a second time over verbs, through the fake provider (test/fakeverbs).
std::map<std::string, bool> g_transport;
bool takes_transport(const std::string& name) {
  auto it = g_transport.find(name);
  if (it != g_transport.end()) return it->second;
  auto r = testbed::run_process({g_ibtool, name, "--help"}, {}, "/", 30);
  return g_transport[name] = r.out.find("--transport") != std::string::npos;
}

// The refusal of a MAD that cannot go over verbs (an SMP, a MAD server).
bool refused_over_verbs(const std::string& err) {
  return err.find("cannot be sent over verbs") != std::string::npos ||
         err.find("cannot run over verbs") != std::string::npos;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& a : v) {
    bool plain = !a.empty() && a.find_first_of(" \t'\"\\|$*?") == std::string::npos;
    s += (s.empty() ? "" : " ") + (plain ? a : "'" + a + "'");
  }
  return s;
}

std::string link_to_ibtool(const std::string& name) {
  fs::path p = fs::path(g_linkdir) / name;
  std::error_code ec;
  if (!fs::is_symlink(p, ec)) fs::create_symlink(g_ibtool, p);
  return p.string();
}

class RowTest : public testing::Test {
public:
  explicit RowTest(conformance::Row row) : row_(std::move(row)) {}
  void TestBody() override;

private:
  conformance::Row row_;
};

void RowTest::TestBody() {
  const auto& r = row_;
  SCOPED_TRACE(r.file + ":" + std::to_string(r.line) + ": " + join(r.reference));
  ASSERT_TRUE(registered(r.ibtool[0])) << "ibtool does not register the command '" << r.ibtool[0]
                                       << "' (rows are added together with their command)";
  std::string err;
  testbed::Fabric* f = fabric_for(r, err);
  ASSERT_NE(f, nullptr) << "fabric '" << conformance::fabric_key(r) << "' did not come up: " << err;
  testbed::Env env(r.env.begin(), r.env.end());
  auto exec = [&](const std::vector<std::string>& argv) {
    return r.sysfs ? f->run_sysfs(argv, env, r.timeout) : f->run(argv, env, r.timeout);
  };
  auto norm = [&](std::string s) {
    for (const auto& w : r.normalize) s = conformance::normalize(w, s);
    return s;
  };

  // A golden row: the reference's output is a file captured from a tool
  // CI cannot run (rows.h golden=), written again from the row's command
  // with IBTOOL_CONFORMANCE_CAPTURE=1.
  testbed::Result ref;
  bool capture = std::getenv("IBTOOL_CONFORMANCE_CAPTURE");
  if (capture && r.golden.empty()) GTEST_SKIP() << "capturing golden rows only";
  if (!r.golden.empty() && !capture) {
    std::ifstream in(r.golden, std::ios::binary);
    ASSERT_TRUE(in) << "cannot read golden file " << r.golden;
    std::stringstream ss;
    ss << in.rdbuf();
    ref.out = ss.str();
    ref.status = r.golden_status;
  } else {
    ref = testbed::again_if_segv([&] { return exec(r.reference); }, join(r.reference));
    ASSERT_FALSE(ref.timed_out) << "the reference timed out";
    ASSERT_NE(ref.status, 127) << "the reference could not be started: " << ref.err;
    if (!r.golden.empty()) {
      std::ofstream(r.golden, std::ios::binary) << ref.out;
      ASSERT_EQ(ref.status, r.golden_status) << "captured: status " << ref.status << " (say status=N in the row)";
    }
  }

  std::vector<std::pair<std::string, std::vector<std::string>>> runs;
  std::vector<std::string> a = {g_ibtool};
  a.insert(a.end(), r.ibtool.begin(), r.ibtool.end());
  runs.emplace_back("ibtool " + join(r.ibtool), a);
  for (const auto& name : r.legacy) {
    std::vector<std::string> l = {link_to_ibtool(name)};
    l.insert(l.end(), r.ibtool.begin() + 1, r.ibtool.end());
    runs.emplace_back(name + " (link to ibtool) " + join({r.ibtool.begin() + 1, r.ibtool.end()}), l);
  }
  std::string want = norm(ref.out);
  // Over verbs (the fake provider carries GMPs to the simulated SA and
  // PMAs): the same stdout and status, unless the command needs SMPs or a
  // MAD server, which verbs cannot carry: then one clear refusal.
  bool verbs_run = false;
#ifdef FAKEVERBS_DIR
  if (!std::getenv("IBTOOL_CONFORMANCE_NO_VERBS") && takes_transport(r.ibtool[0])) {
    std::vector<std::string> v = {g_ibtool, r.ibtool[0], "--transport", "verbs"};
    v.insert(v.end(), r.ibtool.begin() + 1, r.ibtool.end());
    runs.emplace_back("ibtool " + join(r.ibtool) + " --transport verbs", v);
    verbs_run = true;
  }
#endif
  for (const auto& [label, argv0] : runs) {
    bool over_verbs = verbs_run && &argv0 == &runs.back().second;
    testbed::Result got;
    if (over_verbs) {
      testbed::Env venv = env;
      venv["LD_LIBRARY_PATH"] = FAKEVERBS_DIR;
      got = r.sysfs ? f->run_sysfs(argv0, venv, r.timeout) : f->run(argv0, venv, r.timeout);
      if (got.status != 0 && refused_over_verbs(got.err)) continue;
    } else {
      got = exec(argv0);
    }
    EXPECT_FALSE(got.timed_out) << label << " timed out";
    std::string have = norm(got.out);
    EXPECT_EQ(ref.status, got.status) << "exit status differs: reference " << join(r.reference) << " -> "
                                      << ref.status << ", " << label << " -> " << got.status
                                      << "\nreference stderr:\n" << ref.err << "ibtool stderr:\n" << got.err;
    if (r.compare_stderr && !over_verbs && conformance::normalize_stderr(ref.err) != conformance::normalize_stderr(got.err))
      ADD_FAILURE() << "stderr differs\n"
                    << conformance::unified_diff(conformance::normalize_stderr(ref.err),
                                                 conformance::normalize_stderr(got.err),
                                                 "reference: " + join(r.reference), label);
    if (want != have)
      ADD_FAILURE() << "stdout differs\n"
                    << conformance::unified_diff(want, have, "reference: " + join(r.reference), label)
                    << "reference stderr:\n" << ref.err << "ibtool stderr:\n" << got.err;
  }
}

std::string sanitize(const std::string& s, size_t max) {
  std::string o;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) o += c;
    else if (!o.empty() && o.back() != '_') o += '_';
    if (o.size() >= max) break;
  }
  while (!o.empty() && o.back() == '_') o.pop_back();
  return o;
}

int register_rows(const std::string& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".rows") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  int count = 0;
  for (const auto& p : files) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string suite = sanitize(p.stem().string(), 40);
    for (auto& row : conformance::parse_rows(ss.str(), p.filename().string())) {
      // "topology: file NAME" with a relative NAME: a net file next to the rows.
      if (row.topology.rfind("file ", 0) == 0 && row.topology.size() > 5 && row.topology[5] != '/')
        row.topology = "file " + (p.parent_path() / row.topology.substr(5)).string();
      if (!row.golden.empty() && row.golden[0] != '/') row.golden = (p.parent_path() / row.golden).string();
      std::string name = "L" + std::to_string(row.line) + "_" + sanitize(join(row.reference), 80);
      testing::RegisterTest(suite.c_str(), name.c_str(), nullptr, nullptr, p.c_str(), row.line,
                            [row]() -> testing::Test* { return new RowTest(row); });
      ++count;
    }
  }
  return count;
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const char* rows = std::getenv("IBTOOL_CONFORMANCE_ROWS");
  if (const char* t = std::getenv("IBTOOL_BINARY")) g_ibtool = t;
  try {
    register_rows(rows ? rows : IBTOOL_ROWS_DIR);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "conformance: %s\n", e.what());
    return 1;
  }
  char tmpl[] = "/tmp/testbed-links-XXXXXX";
  if (!mkdtemp(tmpl)) return 1;
  g_linkdir = tmpl;
  int rc = RUN_ALL_TESTS();
  g_fabrics.clear();
  std::error_code ec;
  fs::remove_all(g_linkdir, ec);
  return rc;
}
