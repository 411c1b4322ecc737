#include "test/conformance/rows.h"

#include <algorithm>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace conformance {

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

}  // namespace

std::vector<std::string> split_args(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  bool have = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == ' ' || c == '\t') {
      if (have) out.push_back(cur);
      cur.clear();
      have = false;
    } else if (c == '\'') {
      size_t j = s.find('\'', i + 1);
      if (j == std::string::npos) throw std::runtime_error("unterminated ' in: " + s);
      cur += s.substr(i + 1, j - i - 1);
      have = true;
      i = j;
    } else if (c == '"') {
      have = true;
      for (++i; i < s.size() && s[i] != '"'; ++i) {
        if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == '"' || s[i + 1] == '\\')) ++i;
        cur += s[i];
      }
      if (i >= s.size()) throw std::runtime_error("unterminated \" in: " + s);
    } else if (c == '\\' && i + 1 < s.size()) {
      cur += s[++i];
      have = true;
    } else {
      cur += c;
      have = true;
    }
  }
  if (have) out.push_back(cur);
  return out;
}

std::vector<Row> parse_rows(const std::string& text, const std::string& file) {
  std::vector<Row> rows;
  std::string topology;
  std::vector<std::string> console;
  int n = 0;
  for (const std::string& raw : lines_of(text)) {
    ++n;
    std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    auto where = [&] { return file + ":" + std::to_string(n) + ": "; };
    if (line.rfind("topology:", 0) == 0) {
      topology = trim(line.substr(9));
      if (topology.empty()) throw std::runtime_error(where() + "empty topology");
      console.clear();
      continue;
    }
    if (line.rfind("console:", 0) == 0) {
      if (topology.empty()) throw std::runtime_error(where() + "'console:' before any 'topology:' line");
      std::string cmd = trim(line.substr(8));
      if (cmd.empty()) throw std::runtime_error(where() + "empty console command");
      console.push_back(cmd);
      continue;
    }
    if (topology.empty()) throw std::runtime_error(where() + "row before any 'topology:' line");
    Row r;
    r.file = file;
    r.line = n;
    r.topology = topology;
    r.console = console;
    std::vector<std::string> parts;
    for (size_t pos = 0;;) {
      size_t bar = line.find(" | ", pos);
      parts.push_back(trim(line.substr(pos, bar == std::string::npos ? std::string::npos : bar - pos)));
      if (bar == std::string::npos) break;
      pos = bar + 3;
    }
    try {
      r.reference = split_args(parts[0]);
    } catch (const std::exception& e) {
      throw std::runtime_error(where() + e.what());
    }
    if (r.reference.empty()) throw std::runtime_error(where() + "empty command");
    r.ibtool = r.reference;
    for (size_t i = 1; i < parts.size(); ++i) {
      const std::string& o = parts[i];
      if (o.rfind("ibtool:", 0) == 0) {
        r.ibtool = split_args(trim(o.substr(7)));
        if (r.ibtool.empty()) throw std::runtime_error(where() + "empty ibtool: command");
      } else if (o == "legacy") {
        r.legacy.push_back(r.reference[0]);
      } else if (o.rfind("legacy=", 0) == 0) {
        r.legacy.push_back(o.substr(7));
      } else if (o.rfind("normalize=", 0) == 0) {
        std::string w = o.substr(10);
        normalize(w, "");  // validates the name
        r.normalize.push_back(w);
      } else if (o == "stderr") {
        r.compare_stderr = true;
      } else if (o == "mode=sysfs") {
        r.sysfs = true;
      } else if (o.rfind("env=", 0) == 0) {
        auto eq = o.find('=', 4);
        if (eq == std::string::npos) throw std::runtime_error(where() + "env= needs KEY=VALUE");
        r.env.emplace_back(o.substr(4, eq - 4), o.substr(eq + 1));
      } else if (o.rfind("timeout=", 0) == 0) {
        r.timeout = std::stod(o.substr(8));
      } else if (o.rfind("golden=", 0) == 0) {
        r.golden = o.substr(7);
        if (r.golden.empty()) throw std::runtime_error(where() + "golden= needs a file");
      } else if (o.rfind("status=", 0) == 0) {
        r.golden_status = std::stoi(o.substr(7));
      } else {
        throw std::runtime_error(where() + "unknown row option '" + o + "'");
      }
    }
    if (r.golden_status != 0 && r.golden.empty()) throw std::runtime_error(where() + "status= is for golden rows");
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string fabric_key(const Row& r) {
  std::string k = r.topology;
  for (const auto& c : r.console) k += "\n" + c;
  return k;
}

bool console_failed(const std::string& answer) {
  for (std::string l : lines_of(answer)) {
    while (l.rfind("sim> ", 0) == 0) l = l.substr(5);
    if (l.find("unknown - skipped") != std::string::npos || l.find("Usage:") != std::string::npos) return true;
    // ibsim reports a refused command as "# what went wrong"; its dumps'
    // own comment lines are "# Net status ...", "#  dumped ..." and "#\t...".
    if (l.rfind("# ", 0) == 0 && l.size() > 2 && l[2] != ' ' && l.rfind("# Net status", 0) != 0) return true;
  }
  return false;
}

std::string normalize_stderr(const std::string& err) {
  static const std::regex pid(R"(\[[0-9]+\])"), client("attached as client [0-9]+");
  return std::regex_replace(std::regex_replace(err, pid, "[PID]"), client, "attached as client N");
}

std::string normalize(const std::string& what, const std::string& out) {
  if (what == "timestamp") {
    static const std::regex re(R"((# Topology file: generated on )[^\n]*)");
    return std::regex_replace(out, re, "$1<time>");
  }
  if (what == "activity") {
    // (sminfo's line; saquery's SMInfoRecord prints it as ActCount.....N.)
    static const std::regex re(R"((activity count |ActCount\.+)\d+)");
    return std::regex_replace(out, re, "$1<n>");
  }
  if (what == "counters") {
    // Data and packet counters (PortXmitData, PortRcvPkts,
    // PortUnicastXmitPkts, ... and the short Xmt/Rcv forms) followed by
    // separators (dots, colons, spaces, '==') and a number, and the human
    // form ibqueryerrors --data prints after it (" (3.938KB)", " (14.000)").
    static const std::regex re(
        R"(((?:Port)?(?:Unicast|Multicast)?(?:Xmit|Xmt|Rcv)(?:Data|Pkts)[^0-9\n]*?)(0x[0-9a-fA-F]+|\d+)( \([0-9.]+[KMGTPE]?B?\))?)");
    std::string res;
    auto last = out.cbegin();
    for (std::sregex_iterator it(out.begin(), out.end(), re), end; it != end; ++it) {
      const std::smatch& m = *it;
      res.append(last, m[0].first);
      res += m.str(1) + "<n>" + (m[3].matched ? " (<n>)" : "");
      last = m[0].second;
    }
    res.append(last, out.cend());
    return res;
  }
  if (what == "relay") {
    // ibsim's PortRcvSwitchRelayErrors: it counts the packets the simulator
    // could not deliver, the runs' own undeliverable SMPs among them, so
    // under a fault it grows from one run to the next (the fault matrix's
    // M_Key column: the reference read 29 at the host's port, ibtool, run
    // after it, 30).  The line is kept, its value not.
    static const std::regex re(R"((PortRcvSwitchRelayErrors == )\d+)");
    return std::regex_replace(out, re, "$1<n>");
  }
  if (what == "elapsed") {
    // ibping's statistics: the run's wall time ("time 2010 ms") and the
    // round trips ("rtt min/avg/max = 0.161/0.180/0.199 ms").
    static const std::regex t(R"((packet loss, time )\d+( ms))"), rtt(R"((rtt min/avg/max = )[0-9./]+( ms))");
    return std::regex_replace(std::regex_replace(out, t, "$1<n>$2"), rtt, "$1<n>$2");
  }
  throw std::runtime_error("unknown normalisation '" + what + "' (timestamp, activity, counters, relay, elapsed)");
}

std::string unified_diff(const std::string& a, const std::string& b, const std::string& name_a,
                         const std::string& name_b) {
  if (a == b) return {};
  std::vector<std::string> x = lines_of(a), y = lines_of(b);
  // Common prefix and suffix, then an LCS over the middle when it is small.
  size_t pre = 0;
  while (pre < x.size() && pre < y.size() && x[pre] == y[pre]) ++pre;
  size_t suf = 0;
  while (suf < x.size() - pre && suf < y.size() - pre && x[x.size() - 1 - suf] == y[y.size() - 1 - suf]) ++suf;
  size_t n = x.size() - pre - suf, m = y.size() - pre - suf;
  // ops: ' ' keep, '-' from a, '+' from b, over the middle.
  std::vector<std::pair<char, std::string>> ops;
  if (n * m <= 4'000'000) {
    std::vector<std::vector<uint32_t>> L(n + 1, std::vector<uint32_t>(m + 1, 0));
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        L[i][j] = x[pre + i] == y[pre + j] ? L[i + 1][j + 1] + 1 : std::max(L[i + 1][j], L[i][j + 1]);
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && x[pre + i] == y[pre + j]) {
        ops.emplace_back(' ', x[pre + i]);
        ++i, ++j;
      } else if (i < n && (j == m || L[i + 1][j] >= L[i][j + 1])) {
        ops.emplace_back('-', x[pre + i++]);  // deletions first, as diff -u
      } else {
        ops.emplace_back('+', y[pre + j++]);
      }
    }
  } else {
    for (size_t i = 0; i < n; ++i) ops.emplace_back('-', x[pre + i]);
    for (size_t j = 0; j < m; ++j) ops.emplace_back('+', y[pre + j]);
  }
  std::vector<std::pair<char, std::string>> all;
  for (size_t i = 0; i < pre; ++i) all.emplace_back(' ', x[i]);
  all.insert(all.end(), ops.begin(), ops.end());
  for (size_t i = x.size() - suf; i < x.size(); ++i) all.emplace_back(' ', x[i]);
  // Print hunks with 3 lines of context.
  std::string out = "--- " + name_a + "\n+++ " + name_b + "\n";
  const size_t ctx = 3;
  size_t k = 0;
  while (k < all.size()) {
    if (all[k].first == ' ') {
      ++k;
      continue;
    }
    size_t start = k >= ctx ? k - ctx : 0, end = k;
    // Extend while changes are within 2*ctx of each other.
    while (end < all.size()) {
      if (all[end].first != ' ') {
        ++end;
        continue;
      }
      size_t run = end;
      while (run < all.size() && all[run].first == ' ') ++run;
      if (run < all.size() && run - end <= 2 * ctx) end = run;
      else {
        end = std::min(all.size(), end + ctx);
        break;
      }
    }
    size_t la = 1, lb = 1;
    for (size_t q = 0; q < start; ++q) {
      if (all[q].first != '+') ++la;
      if (all[q].first != '-') ++lb;
    }
    size_t ca = 0, cb = 0;
    for (size_t q = start; q < end; ++q) {
      if (all[q].first != '+') ++ca;
      if (all[q].first != '-') ++cb;
    }
    out += "@@ -" + std::to_string(la) + "," + std::to_string(ca) + " +" + std::to_string(lb) + "," +
           std::to_string(cb) + " @@\n";
    for (size_t q = start; q < end; ++q) out += std::string(1, all[q].first) + all[q].second + "\n";
    k = end;
  }
  bool nla = !a.empty() && a.back() != '\n', nlb = !b.empty() && b.back() != '\n';
  if (nla != nlb) out += "\\ no newline at end of " + (nla ? name_a : name_b) + "\n";
  return out;
}

}  // namespace conformance
