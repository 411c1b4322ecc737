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

#include <sys/types.h>

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
};

// Run argv with the given environment additions in cwd (no fabric);
// used by Fabric::run and available to tests.
Result run_process(const std::vector<std::string>& argv, const Env& extra, const std::string& cwd,
                   double timeout);

// The umad2sim preload library.
extern const char* const kUmad2sim;

}  // namespace testbed
