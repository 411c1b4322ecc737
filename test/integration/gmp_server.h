// A GMP server (ibping -S, ibsysstat -S, ours or the reference's) on a
// simulated node for the length of some client runs: shared by the tests
// that ping servers (ofa_e2e_test.cpp, sm_dead_test.cpp).
//
// Two simulator facts shape it: ibsim hands an unsolicited request for QP1
// only to a client attached as the node's SM, so the server runs with
// umad2sim's SIM_SET_ISSM=1 (and OpenSM, if it runs, needs ignore_other_sm);
// and a request reaching a server before it registered its agent kills it,
// so the clients start only once it waits for MADs (its main thread asleep
// on a futex, seen twice in a row) and, with a probe, once the probe works.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test/testbed/fabric.h"

namespace gmpserver {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct ClientRun {
  std::string out, err;
  int status = -1;
};

struct ServerRun {
  std::vector<ClientRun> clients;
  std::string server_err;
  int server_status = -1;
  bool ready = false;
};

// Start `server` on node `host`, wait until it waits for MADs and `probe`
// (a client line run from node `client`; "" = none) succeeds, run each
// client line from node `client`, then stop the server with SIGTERM.
inline ServerRun with_server(const testbed::Fabric& fab, const std::string& host, const std::string& server,
                             const std::string& probe, const std::vector<std::string>& clients,
                             const std::string& client = "Client") {
  namespace fs = std::filesystem;
  std::string d = fab.dir() + "/run-" + host;
  fs::create_directories(d);
  std::string s = "cd '" + d + "'\n";
  s += "SIM_HOST=" + host + " SIM_SET_ISSM=1 " + server + " >srv.out 2>srv.err & p=$!\n";
  s += "w=0; n=0; while [ $w -lt 2 ] && [ $n -lt 600 ] && kill -0 $p 2>/dev/null; do "
       "case \"$(cat /proc/$p/wchan 2>/dev/null)\" in futex*) w=$((w+1));; *) w=0;; esac; "
       "n=$((n+1)); sleep 0.05; done\n";
  if (!probe.empty()) {
    s += "i=0; until SIM_HOST=" + client + " " + probe + " >/dev/null 2>&1; do i=$((i+1)); "
         "[ $i -ge 60 ] && break; kill -0 $p 2>/dev/null || break; done\n";
    s += "[ $i -lt 60 ] && kill -0 $p 2>/dev/null && echo ready >ready\n";
  } else {
    s += "kill -0 $p 2>/dev/null && echo ready >ready\n";
  }
  for (size_t i = 0; i < clients.size(); ++i) {
    std::string n = std::to_string(i);
    s += "SIM_HOST=" + client + " " + clients[i] + " >c" + n + ".out 2>c" + n + ".err; echo $? >c" + n + ".st\n";
  }
  s += "kill -TERM $p; wait $p; echo $? >srv.st\n";
  fab.sh(s, {}, 300);
  ServerRun out;
  out.ready = fs::exists(d + "/ready");
  out.server_err = slurp(d + "/srv.err");
  out.server_status = std::atoi(slurp(d + "/srv.st").c_str());
  for (size_t i = 0; i < clients.size(); ++i) {
    std::string n = std::to_string(i);
    ClientRun c;
    c.out = slurp(d + "/c" + n + ".out");
    c.err = slurp(d + "/c" + n + ".err");
    std::string st = slurp(d + "/c" + n + ".st");
    c.status = st.empty() ? -1 : std::atoi(st.c_str());
    out.clients.push_back(c);
  }
  fs::remove_all(d);
  return out;
}

}  // namespace gmpserver
