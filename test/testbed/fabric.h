// A simulated fabric for tests: ibsim + OpenSM under umad2sim in a private
// scratch directory, torn down by the destructor, by process exit, and by
// SIGINT/SIGTERM/SIGHUP of the test process.
//
//   testbed::Fabric f(testbed::generate("example net.2sw2path4hca"));
//   auto r = f.run({"smpquery", "nodeinfo", "1"});   // r.out, r.err, r.status
//   f.console("Unlink \"Hca1\"[1]");                 // ibsim console command
//
// Every process (ibsim, OpenSM, each run()) gets its own process group and
// PR_SET_PDEATHSIG(SIGKILL), so even a SIGKILLed test leaves nothing behind
// (the scratch directory aside).  A Fabric must be destroyed by the thread
// that created it (PDEATHSIG follows the creating thread).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace testbed {

struct Result {
  std::string out;
  std::string err;
  int status = -1;  // exit status, or 128 + signal number
  bool timed_out = false;
};

// Extra environment for run(): a key with an empty value is removed.
using Env = std::map<std::string, std::string>;

// A process the fabric started in the background (a second OpenSM, a
// server): its stdout and stderr go to files in the scratch directory.
struct Background {
  pid_t pid = -1;
  std::string out, err;  // paths of its stdout and stderr
  std::string log;       // an OpenSM's log file (start_sm)
  int slot = -1;         // (teardown bookkeeping)
};

// Another OpenSM (start_sm): the node it binds to (SIM_HOST: a node id of
// the topology; "" = the default node), opensm.conf lines (sm_priority,
// sminfo_polling_timeout, polling_retry_number ...), and more arguments.
struct SmOptions {
  std::string host;
  std::vector<std::string> conf{};
  std::vector<std::string> args{};
};

struct FabricOptions {
  bool start_sm = true;      // start OpenSM and wait for SUBNET UP
  double up_timeout = 120;   // seconds for ibsim + OpenSM to come up
  // OpenSM options as opensm.conf lines ("ignore_other_sm TRUE"), passed
  // with -F when not empty.
  std::vector<std::string> opensm_conf{};
  std::string tag;           // part of the scratch dir / socket name
};

class Fabric {
public:
  explicit Fabric(const std::string& topology, FabricOptions opts = {});
  ~Fabric();
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;

  // Send one console command to ibsim and wait until it has been handled
  // (ibsim prints its prompt again).  Returns what ibsim printed for it.
  std::string console(const std::string& command, double timeout = 10);

  // Run a program (argv[0] looked up in PATH) under umad2sim in the scratch
  // directory.  timeout in seconds: the process group is killed after it.
  Result run(const std::vector<std::string>& argv, const Env& extra = {}, double timeout = 120) const;
  // Run a shell command line (/bin/sh -c).
  Result sh(const std::string& cmdline, const Env& extra = {}, double timeout = 120) const;
  // Run without umad2sim, in a private mount namespace (unshare -rm) where
  // a snapshot of the simulated device's sysfs tree (as umad2sim builds it)
  // is mounted on /sys/class: tools that read /sys/class/infiniband
  // directly (ibstatus) see the simulated device.  The snapshot is taken
  // once per SIM_HOST value (the node the client attaches to), when first
  // needed: it shows the port as it was then.
  Result run_sysfs(const std::vector<std::string>& argv, const Env& extra = {}, double timeout = 120);

  // Start argv under umad2sim in the background (no waiting): it runs until
  // stop_background() or the fabric stops.  name: part of its output files.
  Background start_background(const std::vector<std::string>& argv, const Env& extra = {},
                              const std::string& name = "bg");
  // Signal its process group (SIGTERM: grace seconds, then SIGKILL) and reap
  // it.  Returns its exit status (128 + signal when killed).
  int stop_background(Background& b, int sig = SIGTERM, double grace = 2);
  // Another OpenSM on o.host, with its own cache directory and log (b.log),
  // started in the background: what it becomes (STANDBY, MASTER) is in its
  // log (OpenSM's "Entering ... state" lines).
  Background start_sm(const SmOptions& o);
  // Kill the first OpenSM at once (SIGKILL: the master SM crashes; nothing
  // is handed over).
  void kill_opensm();
  // Poll cond every 50 ms until it holds (true) or timeout seconds pass.
  static bool wait_until(const std::function<bool()>& cond, double timeout);
  // A file's content ("" when unreadable).
  static std::string read_file(const std::string& path);

  // The environment run() adds (IBSIM_SOCKNAME, LD_PRELOAD).
  Env env() const;
  const std::string& dir() const { return dir_; }
  const std::string& sockname() const { return sock_; }
  pid_t ibsim_pid() const { return ibsim_; }
  pid_t opensm_pid() const { return opensm_; }
  std::string opensm_log() const;

  // Stop everything now (the destructor does it too); idempotent.
  void stop();

private:
  void start_ibsim(const std::string& topology);
  void start_opensm(double timeout, const std::vector<std::string>& conf);
  std::string sysfs_snapshot(const Env& extra);

  std::string dir_, sock_;
  pid_t ibsim_ = -1, opensm_ = -1;
  int console_fd_ = -1;
  int slot_ = -1;
  std::map<std::string, std::string> sysfs_;  // SIM_HOST -> snapshot dir
  std::vector<pid_t> background_;             // live background process groups
  int sms_ = 0;                               // OpenSMs start_sm started
};

// Run argv with the given environment additions in cwd (no fabric);
// used by Fabric::run and available to tests.
Result run_process(const std::vector<std::string>& argv, const Env& extra, const std::string& cwd,
                   double timeout);

// Run a reference tool (infiniband-diags) through run, once more (at most
// twice) when it died of SIGSEGV.  Under umad2sim the tail of an SA
// GetTable reply is stale bytes, which the reference's ibqueryerrors reads
// as a PathRecord and uses as an index (HACKING "Test-bed facts"); that is
// not the behaviour being compared.  Each retry is said on stderr.  Never
// for ibtool: its crashes are what the tests are for.
Result again_if_segv(const std::function<Result()>& run, const std::string& what);

// The umad2sim preload library.
extern const char* const kUmad2sim;

}  // namespace testbed
