// Conformance rows: one line each in test/conformance/rows/*.rows.
//
//   # comment
//   topology: example net.2sw2path4hca      (applies to the rows below it)
//   smpquery nodeinfo 1
//   ibstat -l | legacy
//   ibnetdiscover | normalize=timestamp
//   ibaddr -G 0x0000000000100001 | ibtool: ibaddr 0000:0000:0010:0001
//   ibstatus ibsim0:1 | mode=sysfs
//   console: PerformanceSet "Switch1"[3] PortCounters.SymbolErrorCounter=5
//   ibqueryerrors                           (runs with that fault injected)
//
// "console: CMD" sends CMD to ibsim's console (test/testbed Fabric::console)
// right after the fabric comes up (SUBNET UP), before any row runs on it.
// Console lines apply to the rows below them up to the next `topology:`
// line, and accumulate: a second console line adds to the first.  The
// fabric of a row is keyed by its topology AND its console list, so rows
// with faults never share a fabric with clean rows or with rows that have
// other faults (each distinct list starts a fabric of its own, faults
// applied in file order).  ibsim printing an error for a command fails every
// row on that fabric.
//
// A row is the reference's command line (shell-like quoting: '..', "..",
// backslash), then options after " | ":
//   ibtool: ARGS     ibtool's command line when it differs on purpose (an
//                    ibtool-only form checked against the equivalent
//                    reference invocation).  Default: the same as the
//                    reference's.
//   legacy           also run ibtool through a link named like the
//                    reference command (argv[0]), as packagers install it.
//   legacy=NAME      the same through a link named NAME (e.g. dump_lfts.sh).
//   normalize=WHAT   only what differs between two runs of the reference
//                    itself: timestamp (ibnetdiscover's "generated on"
//                    line), activity (sminfo's activity count), counters
//                    (data/packet counters moved by the MADs of the run),
//                    relay (ibsim's PortRcvSwitchRelayErrors, which runs
//                    under a fault raise), elapsed (ibping's run time and
//                    round trips).
//   mode=sysfs       run both without umad2sim, with umad2sim's sysfs tree
//                    mounted on /sys/class (tools reading sysfs directly).
//   env=KEY=VALUE    extra environment for both (e.g. SIM_HOST=node).
//   timeout=SECONDS  per command (default 120).
//   golden=FILE      the expected stdout is FILE's bytes (relative to the
//                    rows file), not the reference's: output of a tool that
//                    cannot run in CI (upstream's current release, built
//                    from source), captured once by running the row's
//                    command with IBTOOL_CONFORMANCE_CAPTURE=1 and that tool
//                    first in PATH; the directory of the files says which
//                    version.  status=N: its exit status (default 0).
//   stderr           compare stderr too (the lines scripts parse, such as
//                    the discovery library's warnings), with what differs
//                    between two runs of the reference itself made equal:
//                    pids ("[12345]") and umad2sim's client slot
//                    ("attached as client N").
#pragma once

#include <string>
#include <vector>

namespace conformance {

struct Row {
  std::string file;  // rows file it came from
  int line = 0;
  std::string topology;                 // topology spec (testbed::generate)
  std::vector<std::string> console;     // ibsim console commands applied first
  std::vector<std::string> reference;   // argv of the reference tool
  std::vector<std::string> ibtool;      // argv after the ibtool binary
  std::vector<std::string> legacy;      // link names to run ibtool as
  std::vector<std::string> normalize;
  std::vector<std::pair<std::string, std::string>> env;
  bool sysfs = false;
  double timeout = 120;
  bool compare_stderr = false;
  std::string golden;     // expected stdout from this file instead of the reference
  int golden_status = 0;  // and this exit status
};

// Split a command line the way a shell would for simple words.
std::vector<std::string> split_args(const std::string& s);
// The key of the fabric a row runs on: the topology, plus the console
// commands (one a line) when there are any.
std::string fabric_key(const Row& r);
// Whether ibsim's answer to a console command reports a failure.
bool console_failed(const std::string& answer);
// Parse a rows file; throws std::runtime_error naming file:line on errors.
std::vector<Row> parse_rows(const std::string& text, const std::string& file);
// Apply one named normalisation to a tool's stdout; throws on an unknown name.
std::string normalize(const std::string& what, const std::string& out);
// stderr as the stderr option compares it.
std::string normalize_stderr(const std::string& err);
// A unified-style line diff (3 lines of context), empty if a == b.
std::string unified_diff(const std::string& a, const std::string& b, const std::string& name_a,
                         const std::string& name_b);

}  // namespace conformance
