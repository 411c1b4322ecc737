#include "test/testbed/topology.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace testbed {

namespace {

const char* const kExampleDir = "/usr/share/doc/ibsim-utils/net-examples";

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read topology file " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool is_header(const std::string& line, std::string* kind, int* ports) {
  std::istringstream ls(line);
  std::string k;
  int n = 0;
  if (!(ls >> k >> n)) return false;
  if (k != "Switch" && k != "Hca" && k != "Rt") return false;
  if (kind) *kind = k;
  if (ports) *ports = n;
  return true;
}

// A writer for net files with links declared once and printed on both ends.
class Net {
public:
  int add(const std::string& kind, int ports, const std::string& name) {
    nodes_.push_back({kind, ports, name, {}});
    return int(nodes_.size()) - 1;
  }
  void link(int a, int pa, int b, int pb, const std::string& extra = "") {
    nodes_[a].lines.push_back({pa, b, pb, extra});
    nodes_[b].lines.push_back({pb, a, pa, extra});
  }
  std::string str() const {
    std::string out;
    for (const auto& n : nodes_) {
      out += n.kind + " " + std::to_string(n.ports) + " \"" + n.name + "\"\n";
      auto lines = n.lines;
      std::sort(lines.begin(), lines.end(), [](const L& x, const L& y) { return x.port < y.port; });
      for (const auto& l : lines) {
        out += "[" + std::to_string(l.port) + "] \"" + nodes_[l.peer].name + "\"[" + std::to_string(l.peer_port) +
               "]";
        if (!l.extra.empty()) out += " " + l.extra;
        out += "\n";
      }
      out += "\n";
    }
    return out;
  }

private:
  struct L {
    int port, peer, peer_port;
    std::string extra;
  };
  struct N {
    std::string kind;
    int ports;
    std::string name;
    std::vector<L> lines;
  };
  std::vector<N> nodes_;
};

}  // namespace

TopoSize topo_size(const std::string& text) {
  TopoSize s;
  std::istringstream in(text);
  std::string line, kind;
  int ports = 0;
  while (std::getline(in, line)) {
    if (!is_header(line, &kind, &ports)) continue;
    ++s.nodes;
    if (kind == "Switch") ++s.switches;
    if (kind == "Hca") ++s.hcas;
    s.ports += ports + 1;
  }
  return s;
}

std::string fattree(int k) {
  if (k < 2 || k % 2 != 0 || k > 254) throw std::runtime_error("fattree: k must be even, 2..254");
  const int h = k / 2;
  Net net;
  // Hosts first (host 0 is where clients attach), then edge, aggregation
  // and core switches.
  std::vector<int> host(size_t(k) * h * h), edge(size_t(k) * h), agg(size_t(k) * h), core(size_t(h) * h);
  for (int p = 0; p < k; ++p)
    for (int e = 0; e < h; ++e)
      for (int i = 0; i < h; ++i)
        host[(p * h + e) * h + i] =
            net.add("Hca", 1, "host p" + std::to_string(p) + " e" + std::to_string(e) + " h" + std::to_string(i));
  for (int p = 0; p < k; ++p)
    for (int e = 0; e < h; ++e) edge[p * h + e] = net.add("Switch", k, "edge p" + std::to_string(p) + " e" + std::to_string(e));
  for (int p = 0; p < k; ++p)
    for (int a = 0; a < h; ++a) agg[p * h + a] = net.add("Switch", k, "agg p" + std::to_string(p) + " a" + std::to_string(a));
  for (int c = 0; c < h * h; ++c) core[c] = net.add("Switch", k, "core c" + std::to_string(c));
  for (int p = 0; p < k; ++p)
    for (int e = 0; e < h; ++e) {
      for (int i = 0; i < h; ++i) net.link(edge[p * h + e], 1 + i, host[(p * h + e) * h + i], 1);
      for (int a = 0; a < h; ++a) net.link(edge[p * h + e], 1 + h + a, agg[p * h + a], 1 + e);
    }
  for (int p = 0; p < k; ++p)
    for (int a = 0; a < h; ++a)
      for (int j = 0; j < h; ++j) net.link(agg[p * h + a], 1 + h + j, core[a * h + j], 1 + p);
  return net.str();
}

std::string irregular(bool narrow_link) {
  Net net;
  // The first node is a dual-port host with one port on each of two ring
  // switches.
  int dual = net.add("Hca", 2, "dual port host");
  int s[4];
  for (int i = 0; i < 4; ++i) s[i] = net.add("Switch", 8, "ring switch " + std::to_string(i + 1));
  int quoted = net.add("Hca", 1, "host 'quoted' O'Brien");
  int utf8 = net.add("Hca", 1, "nœud été ✓ Ωmega");
  int half = net.add("Hca", 2, "half connected host");
  int lone = net.add("Switch", 4, "leaf switch with spare ports");
  int narrow = net.add("Hca", 1, "narrow link host");
  // The ring: port 1 to the next switch's port 2.
  for (int i = 0; i < 4; ++i) net.link(s[i], 1, s[(i + 1) % 4], 2);
  // Two more parallel links between switch 1 and switch 2 (three in all).
  net.link(s[0], 3, s[1], 3);
  net.link(s[0], 4, s[1], 4);
  net.link(dual, 1, s[0], 5);
  net.link(dual, 2, s[2], 5);
  net.link(quoted, 1, s[1], 5);
  net.link(utf8, 1, s[3], 5);
  net.link(half, 2, s[2], 6);  // port 1 left unconnected
  net.link(lone, 1, s[3], 6);  // ports 2..4 left unconnected
  net.link(narrow, 1, lone, 3, narrow_link ? "w=1" : "");
  return net.str();
}

std::string irregular_large(int n) {
  if (n < 8 || n > 1000) throw std::runtime_error("irregular-large needs 8-1000 switches, got " + std::to_string(n));
  // A fixed mix of the switch's number (splitmix64's finalizer): which
  // chords, how many hosts.
  auto mix = [](uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  constexpr int kPorts = 24;
  Net net;
  std::vector<int> sw(static_cast<size_t>(n)), next(static_cast<size_t>(n), 1);  // next: each switch's next free port
  auto free_port = [&](int i) { return next[size_t(i)] <= kPorts ? next[size_t(i)]++ : 0; };
  // The first node is a host on switch 1 (ibsim attaches its clients there).
  int first = net.add("Hca", 1, "mesh host 1.0");
  for (int i = 0; i < n; ++i) sw[size_t(i)] = net.add("Switch", kPorts, "mesh switch " + std::to_string(i + 1));
  net.link(first, 1, sw[0], free_port(0));
  auto join = [&](int a, int b) {
    int pa = free_port(a), pb = free_port(b);
    if (pa && pb) net.link(sw[size_t(a)], pa, sw[size_t(b)], pb);
  };
  for (int i = 0; i < n; ++i) join(i, (i + 1) % n);  // the ring
  for (int i = 0; i < n; ++i) {
    // A chord to a switch 2 to n/2 steps ahead; every seventh switch
    // joined twice to its neighbour.
    join(i, (i + 2 + int(mix(uint64_t(i)) % uint64_t(n / 2 - 1))) % n);
    if (i % 7 == 3) join(i, (i + 1) % n);
  }
  for (int i = 0; i < n; ++i) {
    const int s = sw[size_t(i)];
    for (int h = 0, m = 1 + int(mix(uint64_t(i) + 1000) % 4); h < m; ++h)
      if (int p = free_port(i)) {
        int host = net.add("Hca", 1, "mesh host " + std::to_string(i + 1) + "." + std::to_string(h + 1));
        net.link(host, 1, s, p);
      }
    if (i % 5 == 0) {
      const int j = (i + n / 2) % n;
      int pa = free_port(i), pb = free_port(j);
      if (pa && pb) {
        int host = net.add("Hca", 2, "mesh dual host " + std::to_string(i + 1));
        net.link(host, 1, s, pa);
        net.link(host, 2, sw[size_t(j)], pb);
      }
    }
    if (i % 9 == 4)
      if (int p = free_port(i)) net.link(net.add("Hca", 2, "mesh half host " + std::to_string(i + 1)), 2, s, p);
    if (i % 8 == 6)
      if (int p = free_port(i)) {
        // A chain of three small switches, a host at its end.
        int up = s, up_port = p;
        for (int c = 1; c <= 3; ++c) {
          int link = net.add("Switch", 4, "chain switch " + std::to_string(i + 1) + "." + std::to_string(c));
          net.link(link, 1, up, up_port);
          up = link;
          up_port = 2;
        }
        net.link(net.add("Hca", 1, "chain host " + std::to_string(i + 1)), 1, up, up_port);
      }
  }
  return net.str();
}

std::vector<std::string> example_names() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(kExampleDir, ec)) {
    std::string n = e.path().filename();
    if (n.rfind("net", 0) == 0) out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string example(const std::string& name) {
  if (name.find('/') != std::string::npos) throw std::runtime_error("example: bad name " + name);
  std::string text = read_file(std::string(kExampleDir) + "/" + name);
  // Split into records (a header line and the lines up to the next header);
  // move the first Hca record to the front.  Comments before the first
  // record are dropped.
  std::vector<std::string> records;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (is_header(line, nullptr, nullptr)) records.emplace_back();
    if (!records.empty()) records.back() += line + "\n";
  }
  size_t first_hca = records.size();
  for (size_t i = 0; i < records.size(); ++i) {
    std::string kind;
    is_header(records[i].substr(0, records[i].find('\n')), &kind, nullptr);
    if (kind == "Hca") {
      first_hca = i;
      break;
    }
  }
  if (first_hca == records.size()) throw std::runtime_error("example " + name + " has no Hca");
  std::string out = records[first_hca];
  if (out.size() < 2 || out.substr(out.size() - 2) != "\n\n") out += "\n";
  for (size_t i = 0; i < records.size(); ++i)
    if (i != first_hca) {
      out += records[i];
      if (records[i].size() < 2 || records[i].substr(records[i].size() - 2) != "\n\n") out += "\n";
    }
  return out;
}

std::string generate(const std::string& spec) {
  std::istringstream ss(spec);
  std::string kind, arg;
  ss >> kind;
  std::getline(ss >> std::ws, arg);
  if (kind == "fattree") {
    int k = 0;
    try {
      k = std::stoi(arg);
    } catch (const std::exception&) {
      throw std::runtime_error("fattree needs an even K, got '" + arg + "'");
    }
    return fattree(k);
  }
  if (kind == "irregular" && arg.empty()) return irregular(true);
  if (kind == "irregular-wide" && arg.empty()) return irregular(false);
  if (kind == "irregular-large") {
    int n = 0;
    try {
      size_t used = 0;
      n = std::stoi(arg, &used);
      if (used != arg.size()) n = 0;
    } catch (const std::exception&) {
    }
    return irregular_large(n);
  }
  if (kind == "example" && !arg.empty()) return example(arg);
  if (kind == "file" && !arg.empty()) return read_file(arg);
  throw std::runtime_error("unknown topology spec '" + spec +
                           "' (fattree K | irregular | irregular-wide | irregular-large N | example NAME | file PATH)");
}

}  // namespace testbed
