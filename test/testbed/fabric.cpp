#include "test/testbed/fabric.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "test/testbed/topology.h"

extern char** environ;

namespace testbed {

const char* const kUmad2sim = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";

namespace {

using Clock = std::chrono::steady_clock;

// --- emergency teardown ------------------------------------------------------
// Fixed-size, lock-free table of live fabrics readable from a signal
// handler: the process groups to kill and the directory to remove.
constexpr int kSlots = 64;
struct Slot {
  std::atomic<int> used{0};
  pid_t owner = 0;  // a forked child inherits the table: not its fabrics
  // [0] ibsim, [1] OpenSM, the rest background processes.
  static constexpr int kGroups = 10;
  std::atomic<pid_t> pgid[kGroups]{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
  char dir[PATH_MAX];
};
Slot g_slots[kSlots];

void kill_slot(Slot& s) {
  for (auto& pg : s.pgid) {
    pid_t p = pg.exchange(-1);
    if (p > 0) {
      ::kill(-p, SIGKILL);
      ::waitpid(p, nullptr, 0);
    }
  }
  // Remove the scratch directory with rm (fork/exec are async-signal-safe).
  pid_t rm = ::fork();
  if (rm == 0) {
    char* argv[] = {const_cast<char*>("rm"), const_cast<char*>("-rf"), const_cast<char*>("--"), s.dir, nullptr};
    char* envp[] = {nullptr};
    ::execve("/bin/rm", argv, envp);
    ::_exit(127);
  }
  if (rm > 0) ::waitpid(rm, nullptr, 0);
  s.used.store(0);
}

void kill_all() {
  pid_t self = ::getpid();
  for (auto& s : g_slots)
    if (s.used.load() == 1 && s.owner == self) kill_slot(s);
}

void on_signal(int sig) {
  kill_all();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::atexit(kill_all);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      ::sigaction(sig, nullptr, &old);
      if (old.sa_handler != SIG_DFL) continue;  // someone else handles it
      struct sigaction sa {};
      sa.sa_handler = on_signal;
      sigemptyset(&sa.sa_mask);
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

int take_slot(const std::string& dir) {
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (g_slots[i].used.compare_exchange_strong(expected, 2)) {  // 2: being filled
      std::snprintf(g_slots[i].dir, sizeof g_slots[i].dir, "%s", dir.c_str());
      g_slots[i].owner = ::getpid();
      for (auto& pg : g_slots[i].pgid) pg = -1;
      g_slots[i].used.store(1);
      return i;
    }
  }
  throw std::runtime_error("testbed: too many fabrics alive at once");
}

// --- processes ---------------------------------------------------------------
std::vector<std::string> make_env(const Env& extra) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : extra) {
    if (v.empty()) env.erase(k);
    else env[k] = v;
  }
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

// Fork and exec argv in its own process group, killed when we die.
// fds: the child's stdin, stdout, stderr (-1: /dev/null).
pid_t spawn(const std::vector<std::string>& argv, const Env& extra, const std::string& cwd, int in_fd,
            int out_fd, int err_fd) {
  if (argv.empty()) throw std::runtime_error("testbed: empty command");
  std::vector<std::string> envs = make_env(extra);
  std::vector<char*> cargv, cenv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  for (const auto& e : envs) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("testbed: fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, SIG_DFL);
    int devnull = ::open("/dev/null", O_RDWR);
    ::dup2(in_fd >= 0 ? in_fd : devnull, 0);
    ::dup2(out_fd >= 0 ? out_fd : devnull, 1);
    ::dup2(err_fd >= 0 ? err_fd : devnull, 2);
    ::close_range(3, ~0u, 0);
    if (::chdir(cwd.c_str()) != 0) {
      dprintf(2, "testbed: chdir %s: %s\n", cwd.c_str(), std::strerror(errno));
      ::_exit(127);
    }
    ::execvpe(cargv[0], cargv.data(), cenv.data());
    dprintf(2, "testbed: exec %s: %s\n", cargv[0], std::strerror(errno));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so kill(-pid) works at once
  return pid;
}

int decode_status(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return -1;
}

// Terminate a process group: SIGTERM, grace, SIGKILL; reap the leader.
void terminate(pid_t pid, double grace) {
  if (pid <= 0) return;
  ::kill(-pid, SIGTERM);
  auto until = Clock::now() + std::chrono::duration<double>(grace);
  while (Clock::now() < until) {
    if (::waitpid(pid, nullptr, WNOHANG) == pid) {
      ::kill(-pid, SIGKILL);  // stragglers of the group
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(-pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string tail(const std::string& s, size_t lines) {
  size_t pos = s.size();
  for (size_t n = 0; n <= lines && pos > 0; ++n) {
    pos = s.rfind('\n', pos - 1);
    if (pos == std::string::npos) return s;
  }
  return s.substr(pos + 1);
}

bool alive(pid_t pid, int* status) {
  int st = 0;
  pid_t r = ::waitpid(pid, &st, WNOHANG);
  if (r == pid) {
    if (status) *status = decode_status(st);
    return false;
  }
  return true;
}

size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

std::atomic<int> g_counter{0};

}  // namespace

Result run_process(const std::vector<std::string>& argv, const Env& extra, const std::string& cwd,
                   double timeout) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("testbed: pipe: ") + std::strerror(errno));
  pid_t pid;
  try {
    pid = spawn(argv, extra, cwd, -1, out[1], err[1]);
  } catch (...) {
    for (int fd : {out[0], out[1], err[0], err[1]}) ::close(fd);
    throw;
  }
  ::close(out[1]);
  ::close(err[1]);
  Result r;
  auto deadline = Clock::now() + std::chrono::duration<double>(timeout);
  std::optional<Clock::time_point> exited_at;
  int status = -1;
  bool reaped = false;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* bufs[2] = {&r.out, &r.err};
  int open_fds = 2;
  while (open_fds > 0) {
    auto now = Clock::now();
    if (now >= deadline) {
      r.timed_out = true;
      break;
    }
    // A child that exited but left background processes holding the pipes:
    // give them a moment, then stop reading.
    if (reaped && exited_at && now - *exited_at > std::chrono::seconds(2)) break;
    int rc = ::poll(fds, 2, 100);
    if (rc < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        bufs[i]->append(buf, size_t(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
    if (!reaped) {
      int st = 0;
      if (::waitpid(pid, &st, WNOHANG) == pid) {
        reaped = true;
        status = decode_status(st);
        exited_at = Clock::now();
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  ::kill(-pid, SIGKILL);  // whatever is left of the group
  if (!reaped) {
    int st = 0;
    ::waitpid(pid, &st, 0);
    status = decode_status(st);
  }
  r.status = r.timed_out ? -1 : status;
  return r;
}

Result again_if_segv(const std::function<Result()>& run, const std::string& what) {
  Result r = run();
  for (int again = 0; again < 2 && r.status == 128 + SIGSEGV; ++again) {
    std::fprintf(stderr, "testbed: the reference '%s' died of SIGSEGV (stale bytes of an SA reply under umad2sim); run again\n",
                 what.c_str());
    r = run();
  }
  return r;
}

Fabric::Fabric(const std::string& topology, FabricOptions opts) {
  install_handlers();
  std::string tmpl = "/tmp/testbed-" + (opts.tag.empty() ? std::string("fabric") : opts.tag) + "-XXXXXX";
  std::vector<char> t(tmpl.begin(), tmpl.end());
  t.push_back('\0');
  if (!::mkdtemp(t.data())) throw std::runtime_error("testbed: mkdtemp: " + std::string(std::strerror(errno)));
  dir_ = t.data();
  slot_ = take_slot(dir_);
  sock_ = "testbed-" + std::to_string(::getpid()) + "-" + std::to_string(g_counter++) + "-" +
          dir_.substr(dir_.size() - 6);
  try {
    start_ibsim(topology);
    if (opts.start_sm) start_opensm(opts.up_timeout, opts.opensm_conf);
  } catch (...) {
    stop();
    throw;
  }
}

Fabric::~Fabric() { stop(); }

void Fabric::start_ibsim(const std::string& topology) {
  {
    std::ofstream f(dir_ + "/topo.net");
    f << topology;
    if (!f) throw std::runtime_error("testbed: cannot write " + dir_ + "/topo.net");
  }
  std::string fifo = dir_ + "/console";
  if (::mkfifo(fifo.c_str(), 0600) != 0) throw std::runtime_error("testbed: mkfifo: " + std::string(std::strerror(errno)));
  // Read-write: neither side ever blocks on open or sees EOF.
  console_fd_ = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  if (console_fd_ < 0) throw std::runtime_error("testbed: open console fifo: " + std::string(std::strerror(errno)));
  int log = ::open((dir_ + "/ibsim.log").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  TopoSize sz = topo_size(topology);
  int nodes = std::max(2048, sz.nodes + 16), switches = std::max(256, sz.switches + 16),
      ports = std::max(13312, sz.ports + 64);
  ibsim_ = spawn({"ibsim", "-s", "-N", std::to_string(nodes), "-S", std::to_string(switches), "-P",
                  std::to_string(ports), "topo.net"},
                 {{"IBSIM_SOCKNAME", sock_}, {"LD_PRELOAD", ""}}, dir_, console_fd_, log, log);
  ::close(log);
  g_slots[slot_].pgid[0] = ibsim_;
  auto deadline = Clock::now() + std::chrono::seconds(60);
  while (true) {
    if (slurp(dir_ + "/ibsim.log").find("Network simulator ready") != std::string::npos) return;
    int st;
    if (!alive(ibsim_, &st)) {
      ibsim_ = -1;
      g_slots[slot_].pgid[0] = -1;
      throw std::runtime_error("testbed: ibsim exited with status " + std::to_string(st) + " in " + dir_ +
                               ":\n" + tail(slurp(dir_ + "/ibsim.log"), 15));
    }
    if (Clock::now() > deadline)
      throw std::runtime_error("testbed: ibsim not ready after 60 s:\n" + tail(slurp(dir_ + "/ibsim.log"), 15));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void Fabric::start_opensm(double timeout, const std::vector<std::string>& conf) {
  std::string osm_dir = dir_ + "/osm";
  std::filesystem::create_directories(osm_dir);
  std::vector<std::string> argv{"opensm", "-d2", "-f", dir_ + "/osm.log"};
  if (!conf.empty()) {
    std::ofstream f(dir_ + "/opensm.conf");
    for (const auto& l : conf) f << l << "\n";
    if (!f) throw std::runtime_error("testbed: cannot write " + dir_ + "/opensm.conf");
    argv.insert(argv.end(), {"-F", dir_ + "/opensm.conf"});
  }
  int log = ::open((dir_ + "/opensm.out").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  Env env = this->env();
  env["OSM_TMP_DIR"] = osm_dir;
  env["OSM_CACHE_DIR"] = osm_dir;
  opensm_ = spawn(argv, env, dir_, -1, log, log);
  ::close(log);
  g_slots[slot_].pgid[1] = opensm_;
  auto deadline = Clock::now() + std::chrono::duration<double>(timeout);
  while (true) {
    if (opensm_log().find("SUBNET UP") != std::string::npos) return;
    int st;
    if (!alive(opensm_, &st)) {
      opensm_ = -1;
      g_slots[slot_].pgid[1] = -1;
      throw std::runtime_error("testbed: OpenSM exited with status " + std::to_string(st) + " before SUBNET UP in " +
                               dir_ + ":\n" + tail(opensm_log(), 15) + tail(slurp(dir_ + "/opensm.out"), 5));
    }
    if (!alive(ibsim_, &st)) {
      ibsim_ = -1;
      g_slots[slot_].pgid[0] = -1;
      throw std::runtime_error("testbed: ibsim died (status " + std::to_string(st) + ") while OpenSM came up:\n" +
                               tail(slurp(dir_ + "/ibsim.log"), 15));
    }
    if (Clock::now() > deadline) {
      std::ostringstream m;
      m << "testbed: no 'SUBNET UP' in " << dir_ << "/osm.log after " << timeout << " s; its last lines:\n"
        << tail(opensm_log(), 15);
      throw std::runtime_error(m.str());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::string Fabric::opensm_log() const { return slurp(dir_ + "/osm.log"); }

Env Fabric::env() const { return {{"IBSIM_SOCKNAME", sock_}, {"LD_PRELOAD", kUmad2sim}}; }

std::string Fabric::console(const std::string& command, double timeout) {
  if (console_fd_ < 0 || ibsim_ <= 0) throw std::runtime_error("testbed: console: fabric is stopped");
  const std::string prompt = "sim> ";
  std::string before = slurp(dir_ + "/ibsim.log");
  size_t n = count_of(before, prompt);
  std::string line = command + "\n";
  if (::write(console_fd_, line.data(), line.size()) != ssize_t(line.size()))
    throw std::runtime_error("testbed: console write: " + std::string(std::strerror(errno)));
  auto deadline = Clock::now() + std::chrono::duration<double>(timeout);
  while (Clock::now() < deadline) {
    std::string now = slurp(dir_ + "/ibsim.log");
    if (count_of(now, prompt) > n) {
      // ibsim's answer: what it printed after the last prompt we had seen.
      size_t start = before.rfind(prompt);
      start = start == std::string::npos ? before.size() : start + prompt.size();
      std::string out = now.substr(std::min(start, now.size()));
      auto last = out.rfind(prompt);
      return last == std::string::npos ? out : out.substr(0, last);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  throw std::runtime_error("testbed: ibsim did not answer console command '" + command + "'");
}

Result Fabric::run(const std::vector<std::string>& argv, const Env& extra, double timeout) const {
  Env env = this->env();
  for (const auto& [k, v] : extra) env[k] = v;
  return run_process(argv, env, dir_, timeout);
}

Result Fabric::sh(const std::string& cmdline, const Env& extra, double timeout) const {
  return run({"/bin/sh", "-c", cmdline}, extra, timeout);
}

std::string Fabric::sysfs_snapshot(const Env& extra) {
  // One snapshot per node clients attach to (SIM_HOST).
  auto host = extra.find("SIM_HOST");
  std::string key = host == extra.end() ? "" : host->second;
  if (auto it = sysfs_.find(key); it != sysfs_.end()) return it->second;
  std::string dest = dir_ + "/sysfs-class-" + std::to_string(sysfs_.size());
  // A helper under umad2sim copies the tree umad2sim builds for it.
  Env env;
  if (!key.empty()) env["SIM_HOST"] = key;
  Result r = run({TESTBED_SYSFS_SNAPSHOT, dest}, env);
  if (r.status != 0 || !std::filesystem::is_directory(dest + "/infiniband"))
    throw std::runtime_error("testbed: could not snapshot umad2sim's sysfs tree: " + r.err);
  return sysfs_[key] = dest;
}

Result Fabric::run_sysfs(const std::vector<std::string>& argv, const Env& extra, double timeout) {
  std::string snap = sysfs_snapshot(extra);
  std::vector<std::string> a = {"unshare", "-rm", "/bin/sh", "-c",
                                "mount --bind \"$0\" /sys/class && exec \"$@\"", snap};
  a.insert(a.end(), argv.begin(), argv.end());
  Env env = {{"IBSIM_SOCKNAME", sock_}, {"LD_PRELOAD", ""}};
  for (const auto& [k, v] : extra) env[k] = v;
  return run_process(a, env, dir_, timeout);
}

Background Fabric::start_background(const std::vector<std::string>& argv, const Env& extra,
                                    const std::string& name) {
  if (ibsim_ <= 0) throw std::runtime_error("testbed: start_background: fabric is stopped");
  int group = -1;
  for (int i = 2; i < Slot::kGroups; ++i)
    if (g_slots[slot_].pgid[i].load() == -1) {
      group = i;
      break;
    }
  if (group < 0) throw std::runtime_error("testbed: too many background processes in one fabric");
  Background b;
  std::string stem = dir_ + "/" + name + "-" + std::to_string(g_counter++);
  b.out = stem + ".out";
  b.err = stem + ".err";
  int out = ::open(b.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int err = ::open(b.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  Env env = this->env();
  for (const auto& [k, v] : extra) env[k] = v;
  try {
    b.pid = spawn(argv, env, dir_, -1, out, err);
  } catch (...) {
    ::close(out);
    ::close(err);
    throw;
  }
  ::close(out);
  ::close(err);
  g_slots[slot_].pgid[group] = b.pid;
  b.slot = group;
  background_.push_back(b.pid);
  return b;
}

int Fabric::stop_background(Background& b, int sig, double grace) {
  if (b.pid <= 0) return -1;
  ::kill(-b.pid, sig);
  int status = -1;
  auto until = Clock::now() + std::chrono::duration<double>(grace);
  while (alive(b.pid, &status)) {
    if (Clock::now() >= until) {
      ::kill(-b.pid, SIGKILL);
      int st = 0;
      ::waitpid(b.pid, &st, 0);
      status = decode_status(st);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(-b.pid, SIGKILL);  // stragglers of the group
  std::erase(background_, b.pid);
  if (slot_ >= 0 && b.slot >= 2) g_slots[slot_].pgid[b.slot] = -1;
  b.pid = -1;
  return status;
}

Background Fabric::start_sm(const SmOptions& o) {
  std::string name = "osm" + std::to_string(++sms_);
  std::string cache = dir_ + "/" + name;
  std::filesystem::create_directories(cache);
  std::vector<std::string> argv{"opensm", "-d2", "-f", dir_ + "/" + name + ".log"};
  if (!o.conf.empty()) {
    std::string conf = dir_ + "/" + name + ".conf";
    std::ofstream f(conf);
    for (const auto& l : o.conf) f << l << "\n";
    if (!f) throw std::runtime_error("testbed: cannot write " + conf);
    argv.insert(argv.end(), {"-F", conf});
  }
  argv.insert(argv.end(), o.args.begin(), o.args.end());
  Env env{{"OSM_TMP_DIR", cache}, {"OSM_CACHE_DIR", cache}};
  if (!o.host.empty()) env["SIM_HOST"] = o.host;
  Background b = start_background(argv, env, name);
  b.log = dir_ + "/" + name + ".log";
  return b;
}

void Fabric::kill_opensm() {
  if (opensm_ <= 0) return;
  ::kill(-opensm_, SIGKILL);
  ::waitpid(opensm_, nullptr, 0);
  opensm_ = -1;
  if (slot_ >= 0) g_slots[slot_].pgid[1] = -1;
}

bool Fabric::wait_until(const std::function<bool()>& cond, double timeout) {
  auto until = Clock::now() + std::chrono::duration<double>(timeout);
  for (;;) {
    if (cond()) return true;
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string Fabric::read_file(const std::string& path) { return slurp(path); }

void Fabric::stop() {
  // Background processes and OpenSM first (they talk to ibsim while they exit).
  for (pid_t b : background_) terminate(b, 1.0);
  background_.clear();
  if (opensm_ > 0) terminate(opensm_, 1.0);
  opensm_ = -1;
  if (ibsim_ > 0) terminate(ibsim_, 1.0);
  ibsim_ = -1;
  if (console_fd_ >= 0) ::close(console_fd_);
  console_fd_ = -1;
  if (slot_ >= 0) {
    for (auto& pg : g_slots[slot_].pgid) pg = -1;
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    g_slots[slot_].used.store(0);
    slot_ = -1;
  }
}

}  // namespace testbed
