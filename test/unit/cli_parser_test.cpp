// The command-line parser of the commands (core/cli/cli.h): every syntax form
// getopt_long accepts, counting flags, positionals, and the usage errors.
#include "core/cli/cli.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cli = ibtool::cli;

namespace {

// A command's worth of options, bound to plain members.
struct Opts {
  bool all = false, sa = false;
  int debug = 0;
  unsigned verbose = 0;
  int timeout = 0;
  uint16_t lid = 0;
  uint64_t guid = 0;
  int8_t small = 0;
  std::string ca, config;
  std::vector<std::string> reads;
  std::optional<int> maybe;
  std::vector<std::string> args;
  int callbacks = 0;

  cli::App app{"tool"};
  Opts() {
    app.add_flag("-a,--all", all, "all");
    app.add_flag("--sa", sa, "sa");
    app.add_flag("-d,--debug", debug, "debug");
    app.add_flag("-v,--verbose", verbose, "verbose");
    app.add_option("-t,--timeout", timeout, "timeout")->option_text("<ms>");
    app.add_option("-s,--sm_port", lid, "lid");
    app.add_option("-G,--guid", guid, "guid");
    app.add_option("--small", small, "small");
    app.add_option("-C,--Ca", ca, "ca");
    app.add_option("-R,--Read", reads, "read");
    app.add_option("--maybe", maybe, "maybe");
    app.add_option("-z,--config", config, "config file");
    app.add_flag_callback("--count", [this] { ++callbacks; }, "count");
    app.add_option("args", args, "positionals");
  }
  cli::App::Result parse(std::vector<std::string> a) { return app.parse(a); }
};

TEST(CliParser, ShortFlagsAlone) {
  Opts o;
  EXPECT_EQ(o.parse({"-a"}), cli::App::Result::Ok);
  EXPECT_TRUE(o.all);
  EXPECT_FALSE(o.sa);
}

TEST(CliParser, LongFlag) {
  Opts o;
  o.parse({"--all", "--sa"});
  EXPECT_TRUE(o.all);
  EXPECT_TRUE(o.sa);
}

TEST(CliParser, CountingFlagsRepeatedAndClustered) {
  Opts o;
  o.parse({"-d", "-d", "-vvv", "--debug", "-dv"});
  EXPECT_EQ(o.debug, 4);
  EXPECT_EQ(o.verbose, 4u);
}

TEST(CliParser, ShortValueJoinedAndSeparate) {
  Opts o;
  o.parse({"-t100", "-C", "mlx5_0"});
  EXPECT_EQ(o.timeout, 100);
  EXPECT_EQ(o.ca, "mlx5_0");
  Opts p;
  p.parse({"-t", "200"});
  EXPECT_EQ(p.timeout, 200);
}

TEST(CliParser, ClusterEndingInAValueOption) {
  Opts o;
  o.parse({"-avt", "7"});
  EXPECT_TRUE(o.all);
  EXPECT_EQ(o.verbose, 1u);
  EXPECT_EQ(o.timeout, 7);
  Opts p;
  p.parse({"-dt9"});
  EXPECT_EQ(p.debug, 1);
  EXPECT_EQ(p.timeout, 9);
}

TEST(CliParser, LongValueWithEqualsAndSeparate) {
  Opts o;
  o.parse({"--timeout=300", "--Ca", "dev"});
  EXPECT_EQ(o.timeout, 300);
  EXPECT_EQ(o.ca, "dev");
  Opts p;
  p.parse({"--Ca="});
  EXPECT_EQ(p.ca, "");
}

TEST(CliParser, ValueMayStartWithADash) {
  Opts o;
  o.parse({"-C", "-weird", "-t", "-5"});
  EXPECT_EQ(o.ca, "-weird");
  EXPECT_EQ(o.timeout, -5);
}

TEST(CliParser, IntegersInTheReferenceForms) {
  Opts o;
  o.parse({"-s", "0x1f", "-G", "0x0002c90000000001", "-t", "010"});
  EXPECT_EQ(o.lid, 0x1f);
  EXPECT_EQ(o.guid, 0x0002c90000000001ull);
  EXPECT_EQ(o.timeout, 8);  // octal, as strtol(.., 0)
}

TEST(CliParser, ValueGivenTwiceKeepsTheLast) {
  Opts o;
  o.parse({"-t", "1", "--timeout", "2"});
  EXPECT_EQ(o.timeout, 2);
}

TEST(CliParser, VectorOptionTakesOneValueEachTime) {
  Opts o;
  o.reads = {"stale"};
  o.parse({"-R", "a", "x", "--Read=b", "-Rc"});
  EXPECT_EQ(o.reads, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(o.args, (std::vector<std::string>{"x"}));
}

TEST(CliParser, OptionalValue) {
  Opts o;
  o.parse({});
  EXPECT_FALSE(o.maybe.has_value());
  o.parse({"--maybe", "3"});
  EXPECT_EQ(o.maybe, 3);
}

TEST(CliParser, ValueOptionTakesTheNextWord) {
  Opts o;
  o.parse({"-z", "/etc/x.conf", "pos"});
  EXPECT_EQ(o.config, "/etc/x.conf");
  EXPECT_EQ(o.args, (std::vector<std::string>{"pos"}));
}

TEST(CliParser, FlagCallbackRunsEachTime) {
  Opts o;
  o.parse({"--count", "--count"});
  EXPECT_EQ(o.callbacks, 2);
}

TEST(CliParser, PositionalsInterleavedWithOptions) {
  Opts o;
  o.parse({"nodeinfo", "-d", "2", "--all", "3"});
  EXPECT_EQ(o.args, (std::vector<std::string>{"nodeinfo", "2", "3"}));
  EXPECT_EQ(o.debug, 1);
  EXPECT_TRUE(o.all);
}

TEST(CliParser, DoubleDashEndsOptions) {
  Opts o;
  o.parse({"-a", "--", "-d", "--all", "x"});
  EXPECT_EQ(o.args, (std::vector<std::string>{"-d", "--all", "x"}));
  EXPECT_EQ(o.debug, 0);
}

TEST(CliParser, NegativeNumberAndLoneDashArePositionals) {
  Opts o;
  o.parse({"-1", "-", "-0x10"});
  EXPECT_EQ(o.args, (std::vector<std::string>{"-1", "-", "-0x10"}));
}

TEST(CliParser, DigitShortOptionWinsOverNegativeNumber) {
  bool one = false;
  std::vector<std::string> args;
  cli::App app("tool");
  app.add_flag("-1", one, "one");
  app.add_option("args", args, "args");
  std::vector<std::string> a{"-1", "-2"};
  app.parse(a);
  EXPECT_TRUE(one);
  EXPECT_EQ(args, (std::vector<std::string>{"-2"}));
}

TEST(CliParser, ScalarPositionalsFillInOrder) {
  std::string target;
  int port = -1;
  std::vector<std::string> rest;
  cli::App app("tool");
  app.add_option("target", target, "t")->required();
  app.add_option("port", port, "p");
  app.add_option("rest", rest, "r");
  std::vector<std::string> a{"0x10", "3", "x", "y"};
  app.parse(a);
  EXPECT_EQ(target, "0x10");
  EXPECT_EQ(port, 3);
  EXPECT_EQ(rest, (std::vector<std::string>{"x", "y"}));
}

TEST(CliParser, HelpAndVersion) {
  Opts o;
  EXPECT_EQ(o.parse({"-h"}), cli::App::Result::Help);
  Opts p;
  EXPECT_EQ(p.parse({"x", "--help", "--no-such"}), cli::App::Result::Help);
  Opts v;
  v.app.set_version_flag("-V,--version", "tool 1.0");
  EXPECT_EQ(v.parse({"-V"}), cli::App::Result::Version);
  EXPECT_EQ(v.app.version(), "tool 1.0");
}

TEST(CliParser, HelpFlagRenamedFreesTheShortName) {
  bool h = false;
  cli::App app("tool");
  app.set_help_flag("--help");
  app.add_flag("-h", h, "short help");
  std::vector<std::string> a{"-h"};
  EXPECT_EQ(app.parse(a), cli::App::Result::Ok);
  EXPECT_TRUE(h);
  std::vector<std::string> b{"--help"};
  EXPECT_EQ(app.parse(b), cli::App::Result::Help);
}

// Each usage error: ParseError with a message naming the culprit; a bad
// value (the dispatcher prints one line for it, not the usage) is a
// ValidationError, a syntax error (unknown option, missing value) is not.
void expect_error(std::vector<std::string> args, const std::string& needle) {
  Opts o;
  bool bad_value = needle.find("invalid value") != std::string::npos;
  try {
    o.parse(args);
    ADD_FAILURE() << "no error for " << needle;
  } catch (const cli::ParseError& e) {
    EXPECT_EQ(std::string(e.what()), needle);
    EXPECT_EQ(dynamic_cast<const cli::ValidationError*>(&e) != nullptr, bad_value) << e.what();
  }
}

TEST(CliParser, UnknownOptions) {
  expect_error({"--no-such-option"}, "unrecognized option '--no-such-option'");
  expect_error({"--no-such=3"}, "unrecognized option '--no-such'");
  expect_error({"-q"}, "unrecognized option '-q'");
  expect_error({"-aq"}, "unrecognized option '-q'");
}

TEST(CliParser, MissingValue) {
  expect_error({"-t"}, "option '-t' requires an argument");
  expect_error({"--timeout"}, "option '--timeout' requires an argument");
  expect_error({"-d", "-C"}, "option '-C' requires an argument");
}

TEST(CliParser, FlagGivenAValue) { expect_error({"--all=1"}, "option '--all' doesn't allow an argument"); }

TEST(CliParser, BadNumbers) {
  // (The words of the getopt parser that came before CLI11, which scripts
  // read: the option as given, its long name for a prefix.)
  expect_error({"-t", "abc"}, "invalid value 'abc' for -t");
  expect_error({"--timeout=12x"}, "invalid value '12x' for --timeout");
  expect_error({"--time=12x"}, "invalid value '12x' for --timeout");
  expect_error({"-s", "65536"}, "invalid value '65536' for -s");   // uint16_t
  expect_error({"--small", "128"}, "invalid value '128' for --small");  // int8_t
  expect_error({"-t", "99999999999"}, "invalid value '99999999999' for -t");  // int
  expect_error({"-t", "08"}, "invalid value '08' for -t");   // octal, as strtol(.., 0)
  expect_error({"-t", "1.5"}, "invalid value '1.5' for -t");
  expect_error({"--maybe", "x"}, "invalid value 'x' for --maybe");
}

// An empty value is no number (CLI11 alone reads it as 0).
TEST(CliParser, EmptyNumberIsAnError) {
  expect_error({"-t", ""}, "invalid value '' for -t");
  expect_error({"--timeout="}, "invalid value '' for --timeout");
  expect_error({"-s", ""}, "invalid value '' for -s");
  expect_error({"--maybe="}, "invalid value '' for --maybe");
}

// A negative number for an unsigned option (CLI11 alone wraps it).
TEST(CliParser, NegativeToUnsignedIsAnError) {
  expect_error({"-s", "-1"}, "invalid value '-1' for -s");          // uint16_t
  expect_error({"-G", "-1"}, "invalid value '-1' for -G");          // uint64_t
  expect_error({"--guid=-0x10"}, "invalid value '-0x10' for --guid");
  expect_error({"-v", "-s-5"}, "invalid value '-5' for -s");
  Opts o;  // a signed option takes it
  o.parse({"-t", "-1", "--small=-128"});
  EXPECT_EQ(o.timeout, -1);
  EXPECT_EQ(o.small, -128);
}

// The value error is met after a missing value, before an unknown option
// (getopt's reading applied the values it had first).
TEST(CliParser, ErrorOrder) {
  expect_error({"-t", "x", "--bogus"}, "invalid value 'x' for -t");
  expect_error({"--bogus", "-t", "x", "-s"}, "option '-s' requires an argument");
  expect_error({"--time"}, "option '--time' requires an argument");  // as typed
}

TEST(CliParser, ExtraPositional) {
  std::string one;
  cli::App app("tool");
  app.add_option("one", one, "one");
  std::vector<std::string> a{"a", "b"};
  try {
    app.parse(a);
    ADD_FAILURE() << "no error";
  } catch (const cli::ParseError& e) {
    EXPECT_STREQ(e.what(), "unexpected argument 'b'");
  }
  EXPECT_EQ(one, "a");
}

TEST(CliParser, OperandsFillThePositionalsInOrderAroundOptions) {
  std::string op;
  std::vector<std::string> rest;
  bool v = false;
  cli::App app("tool");
  app.add_option("op", op, "op");
  app.add_option("rest", rest, "rest");
  app.add_flag("-v", v, "v");
  std::vector<std::string> a{"x", "-v", "y", "--", "-z"};
  app.parse(a);
  EXPECT_EQ(op, "x");
  EXPECT_EQ(rest, (std::vector<std::string>{"y", "-z"}));
  EXPECT_TRUE(v);
}

TEST(CliParser, FirstUnplacedWordIsTheError) {
  std::string one;
  cli::App app("tool");
  app.add_option("one", one, "one");
  auto error = [&](std::vector<std::string> a) {
    try {
      app.parse(a);
    } catch (const cli::ParseError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error({"a", "--", "b"}), "unexpected argument 'b'");   // not "--"
  EXPECT_EQ(error({"a", "b", "--zz"}), "unexpected argument 'b'");  // in order
  EXPECT_EQ(error({"--zz", "a", "b"}), "unrecognized option '--zz'");
  EXPECT_EQ(error({"-q", "a"}), "unrecognized option '-q'");
}

TEST(CliParser, RequiredMissing) {
  std::string target;
  cli::App app("tool");
  app.add_option("target", target, "t")->required();
  std::vector<std::string> none;
  EXPECT_THROW(app.parse(none), cli::ParseError);
  try {
    app.parse(none);
  } catch (const cli::ParseError& e) {
    EXPECT_STREQ(e.what(), "target is required");
  }
}

TEST(CliParser, Excludes) {
  bool a = false, b = false;
  cli::App app("tool");
  auto* oa = app.add_flag("--enable", a, "a");
  auto* ob = app.add_flag("--disable", b, "b");
  oa->excludes(ob);
  std::vector<std::string> one{"--enable"};
  EXPECT_NO_THROW(app.parse(one));
  cli::App app2("tool");
  bool c = false, d = false;
  app2.add_flag("--enable", c, "a")->excludes(app2.add_flag("--disable", d, "b"));
  std::vector<std::string> both{"--disable", "--enable"};
  try {
    app2.parse(both);
    ADD_FAILURE() << "no error";
  } catch (const cli::ParseError& e) {  // (not CLI11's "--enable excludes --disable")
    EXPECT_STREQ(e.what(), "--enable cannot be given with --disable");
  }
  cli::App app3("tool");
  bool e = false, f = false;
  auto* oe = app3.add_flag("-e,--enable", e, "a");
  oe->excludes(app3.add_flag("-f", f, "b"));
  std::vector<std::string> both3{"-ef"};
  try {
    app3.parse(both3);
    ADD_FAILURE() << "no error";
  } catch (const cli::ParseError& x) {
    EXPECT_STREQ(x.what(), "--enable cannot be given with -f");
  }
}

TEST(CliParser, ValidatorsAndCallbacks) {
  std::string mode;
  bool seen = false;
  cli::App app("tool");
  app.add_option("--discovery", mode, "mode")->check(cli::Validator(
      [](std::string& v) { return v == "DR" || v == "LID" || v == "SA" ? std::string() : v + " not in {DR,LID,SA}"; },
      "MODE"));
  app.callback([&] {
    seen = true;
    if (mode == "LID") throw cli::ValidationError("--discovery", "LID not allowed here");
  });
  std::vector<std::string> ok{"--discovery", "DR"};
  app.parse(ok);
  EXPECT_EQ(mode, "DR");
  EXPECT_TRUE(seen);
  std::vector<std::string> bad{"--discovery=XX"};
  try {
    app.parse(bad);
    ADD_FAILURE() << "no error";
  } catch (const cli::ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("--discovery: XX not in {DR,LID,SA}"), std::string::npos) << e.what();
  }
  std::vector<std::string> lid{"--discovery", "LID"};
  EXPECT_THROW(app.parse(lid), cli::ValidationError);
}

TEST(CliParser, OptionFunctionConvertsItsType) {
  unsigned got = 0;
  std::string text;
  cli::App app("tool");
  app.add_option("-m,--mlid", got, "mlid");
  app.add_option_function<std::string>("--key", [&](const std::string& v) { text = v; }, "key");
  std::vector<std::string> a{"-m", "0xc001", "--key=abc"};
  app.parse(a);
  EXPECT_EQ(got, 0xc001u);
  EXPECT_EQ(text, "abc");
  std::vector<std::string> bad{"--mlid", "zz"};
  EXPECT_THROW(app.parse(bad), cli::ParseError);
}

// What --help, the man pages and the completion show: the options as the
// CLI::App holding them all has them, in declaration order.
TEST(CliParser, ShownAsCli11HoldsThem) {
  Opts o;
  std::vector<cli::App::Shown> v = o.app.shown();
  ASSERT_GE(v.size(), 15u);
  EXPECT_EQ(v[0].names, "-h,--help");
  auto find = [&](const std::string& names) {
    for (const auto& s : v)
      if (s.names == names) return s;
    ADD_FAILURE() << names;
    return cli::App::Shown{};
  };
  EXPECT_EQ(find("-t,--timeout").value, "<ms>");
  EXPECT_EQ(find("-s,--sm_port").value, "UINT");  // CLI11's type name
  EXPECT_EQ(find("-C,--Ca").value, "TEXT");
  EXPECT_EQ(find("-C,--Ca").description, "ca");
  EXPECT_TRUE(find("-C,--Ca").takes_value);
  EXPECT_FALSE(find("-a,--all").takes_value);
  EXPECT_EQ(find("-a,--all").value, "");
  EXPECT_TRUE(find("args").positional);
  size_t all = 0, timeout = 0;
  for (size_t i = 0; i < v.size(); ++i) all = v[i].names == "-a,--all" ? i : all, timeout = v[i].names == "-t,--timeout" ? i : timeout;
  EXPECT_LT(all, timeout);
}

TEST(CliParser, OwnedAndLiteralTexts) {
  std::string v;
  bool r = false;
  cli::App app("tool");
  {
    std::string desc = std::string("default: ") + "/etc/file";
    app.add_option("--file", v, desc)->option_text(std::string("<") + "file>");
  }  // the temporaries are gone: the option keeps copies
  app.add_flag("-r", r, "r")->required();
  auto shown = app.shown();
  ASSERT_EQ(shown.size(), 3u);
  EXPECT_EQ(shown[1].names, "--file");
  EXPECT_EQ(shown[1].value, "<file>");
  EXPECT_EQ(shown[1].description, "default: /etc/file");
  EXPECT_TRUE(shown[2].required);
}

}  // namespace

// getopt_long's unique prefixes, which the CLI11 engine adds as names.
TEST(CliParser, UniquePrefixOfALongOption) {
  Opts o;
  o.parse({"--time", "7", "--verb", "--Re=a", "--cou"});
  EXPECT_EQ(o.timeout, 7);
  EXPECT_EQ(o.verbose, 1u);
  EXPECT_EQ(o.reads, (std::vector<std::string>{"a"}));
  EXPECT_EQ(o.callbacks, 1);
  // An exact name wins over a longer name it is a prefix of.
  bool sa = false, sapath = false;
  cli::App app("tool");
  app.add_flag("--sa", sa, "sa");
  app.add_flag("--sa-path", sapath, "sa path");
  std::vector<std::string> a{"--sa"};
  app.parse(a);
  EXPECT_TRUE(sa);
  EXPECT_FALSE(sapath);
}

TEST(CliParser, AmbiguousPrefixNamesThePossibilities) {
  expect_error({"--s"}, "option '--s' is ambiguous; possibilities: '--sa' '--sm_port' '--small'");
}

TEST(CliParser, EmptyValueAfterEquals) {
  Opts o;
  o.ca = "x";
  o.parse({"--Ca=", "pos"});
  EXPECT_EQ(o.ca, "");
  EXPECT_EQ(o.args, (std::vector<std::string>{"pos"}));
}

// An early() option applies before every other value, wherever it stands
// and however it is spelled, then the after_early callbacks run (the config
// file is read there), then the rest of the line, which so wins.
TEST(CliParser, EarlyOptionsApplyFirstInEverySpelling) {
  for (std::vector<std::string> line : std::vector<std::vector<std::string>>{
           {"-C", "x", "-z", "F", "pos"}, {"-vzF", "-Cx"}, {"-zF", "-C", "x"}, {"--config", "F", "--Ca=x"},
           {"--Ca", "x", "--config=F"}, {"--conf", "F", "-Cx"}, {"-Cx", "--conf=F"}, {"-vz", "F", "-Cx"}}) {
    std::string config, ca_at_hook = "unset", ca;
    std::vector<std::string> order;
    cli::App app("tool");
    int verbose = 0;
    app.add_flag("-v,--verbose", verbose, "v");
    app.add_option_function<std::string>("-C,--Ca", [&](const std::string& s) { ca = s, order.push_back("C"); }, "ca");
    app.add_option_function<std::string>("-z,--config", [&](const std::string& s) { config = s, order.push_back("z"); },
                                         "config")
        ->early();
    std::string compat;
    app.add_option("--compat", compat, "compat");
    std::vector<std::string> pos;
    app.add_option("args", pos, "positionals");
    app.after_early([&] { ca_at_hook = ca, order.push_back("hook"); });
    ASSERT_EQ(app.parse(line), cli::App::Result::Ok) << line[0];
    EXPECT_EQ(verbose, line[0].starts_with("-vz") ? 1 : 0);
    EXPECT_EQ(config, "F") << line[0];
    EXPECT_EQ(ca_at_hook, "") << line[0];
    EXPECT_EQ(ca, "x") << line[0];
    EXPECT_EQ(order, (std::vector<std::string>{"z", "hook", "C"})) << line[0];
  }
}

TEST(CliParser, AfterEarlyRunsWithoutTheEarlyOptionAndNotForHelp) {
  int hooks = 0;
  std::string config = "default";
  cli::App app("tool");
  app.add_option("-z,--config", config, "config")->early();
  app.after_early([&] { ++hooks; });
  app.parse({});
  EXPECT_EQ(hooks, 1);
  EXPECT_EQ(config, "default");
  EXPECT_EQ(app.parse({"--help"}), cli::App::Result::Help);
  EXPECT_EQ(hooks, 1);
  // A value of another option is no early option.
  std::string ca;
  app.add_option("-C", ca, "ca");
  app.parse({"-C", "-z"});
  EXPECT_EQ(ca, "-z");
  EXPECT_EQ(config, "default");
}
