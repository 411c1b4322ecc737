// The fabric model (fabric.h): topology, LIDs and routes, the event loop,
// the processors and queues, and the agents' answers.
#include "test/model/fabric.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <limits>
#include <map>
#include <queue>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "core/health/checks.h"
#include "iba/introspect.h"
#include "iba/mad.h"
#include "iba/pm.h"
#include "iba/sa.h"
#include "iba/smp.h"

namespace ibmodel {

// --- profiles ------------------------------------------------------------------------

namespace {

// The parameters, declared once: parse() and to_text() walk this table.
struct Param {
  const char* name;
  double Profile::*real = nullptr;
  unsigned Profile::*count = nullptr;
  std::string Profile::*text = nullptr;
};

const Param kParams[] = {
    {"hop_latency_us", &Profile::hop_latency_us},
    {"lane_gbps", &Profile::lane_gbps},
    {"host_latency_us", &Profile::host_latency_us},
    {"host_service_us", &Profile::host_service_us},
    {"vl15_depth", nullptr, &Profile::vl15_depth},
    {"sma_queue", nullptr, &Profile::sma_queue},
    {"smi_forward_us", &Profile::smi_forward_us},
    {"sma_service_us", &Profile::sma_service_us},
    {"hca_queue", nullptr, &Profile::hca_queue},
    {"hca_service_us", &Profile::hca_service_us},
    {"pma_queue", nullptr, &Profile::pma_queue},
    {"pma_service_us", &Profile::pma_service_us},
    {"pma_on_mp", nullptr, &Profile::pma_on_mp},
    {"pma_full_drops", nullptr, &Profile::pma_full_drops},
    {"sa_queue", nullptr, &Profile::sa_queue},
    {"sa_service_us", &Profile::sa_service_us},
    {"sa_record_us", &Profile::sa_record_us},
    {"sa_rmpp", nullptr, &Profile::sa_rmpp},
    {"kernel_timeouts", nullptr, &Profile::kernel_timeouts},
    {"switch_resp_time", nullptr, &Profile::switch_resp_time},
    {"ca_resp_time", nullptr, &Profile::ca_resp_time},
    {"subnet_timeout", nullptr, &Profile::subnet_timeout},
    {"pma_resp_time", nullptr, &Profile::pma_resp_time},
    {"sm_node", nullptr, nullptr, &Profile::sm_node},
    {"sm_smps_per_s", &Profile::sm_smps_per_s},
};

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

}  // namespace

Profile Profile::ideal() { return Profile{}; }

namespace {

// splitmix64 (Steele, Lea and Flood, 2014): a 64-bit counter stepped by
// the golden ratio, each output a bijective mix of it.  Its own code, so a
// seed draws the same profile with every standard library (the
// distributions of <random> are implementation-defined).
struct SplitMix64 {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double unit() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1), 53 bits
  // An integer in [lo, hi], every one alike (the modulo's bias is below
  // 2^-57 for these ranges).
  unsigned between(unsigned lo, unsigned hi) { return lo + unsigned(next() % (uint64_t(hi) - lo + 1)); }
  // A value in [lo, hi] whose logarithm is uniform: as many draws between
  // 2 and 20 us as between 200 and 2000; rounded to 1/per (per 10: to
  // 0.1) as an integer over per, the double nearest that decimal, which is
  // what the profile's text reads back.
  double log_between(double lo, double hi, double per) {
    double v = lo * std::exp(std::log(hi / lo) * unit());
    return std::clamp(std::round(v * per) / per, lo, hi);
  }
};

}  // namespace

// The random profiles' ranges (issue 35: wider than any one vendor's, so a
// flow control tuned on one shape of fabric shows where it breaks).  Each
// parameter is drawn independently, in this order, from the seed's own
// stream; times spanning decades are drawn log-uniform (a uniform draw
// would put 90% of them in the top decade).
// - vl15_depth 1-4: the IBA's minimum is one packet; switch ASICs publish
//   none, 2-4 is what HCAs' VL15 buffers hold.
// - sma_queue, hca_queue 1-32, each on its own: the firmware's queue
//   before the management processor; 1 is the least a processor can have,
//   32 the deepest any shipped profile assumed.
// - smi_forward_us, sma_service_us, hca_service_us 2-2000 us, each on its
//   own: a management processor forwarding a directed-route hop in a few
//   microseconds (a hardware SMI) up to milliseconds (an embedded CPU
//   answering in software, busy with other work); forwarding and answering
//   need not take the same time.
// - pma_queue 1-64 and pma_service_us 2-2000 us; pma_on_mp and
//   pma_full_drops each 0 or 1 (a PMA in the switch's firmware shares its
//   CPU; not every PMA answers BUSY).
// - sa_queue 1-64, sa_service_us 2-200 us, sa_record_us 0.1-2 us: OpenSM
//   on a host CPU, whose answers take tens of microseconds; queue assumed.
// - switch_resp_time, ca_resp_time, pma_resp_time 2-20 and subnet_timeout
//   8-20 (log2 codes of 4.096 us): the IBA allows 0-31; 2 (16 us) is
//   shorter than any processor here takes, 20 (4.3 s) longer than any
//   tool waits; OpenSM's subnet_timeout default is 18.
// - sm_smps_per_s: 0 in one profile of four (an SM between sweeps), else
//   0-2000 per second and switch, and below half of what a switch's SMA
//   answers in a second (a fabric the SM alone saturates tests no tool).
// - hop_latency_us 0.1-5 us (a cut-through switch and a short cable, up to
//   a long optical link and a store-and-forward hop), host_latency_us
//   1-100 us (a kernel MAD path, up to a loaded host).
// The rest (host_service_us 0, sa_rmpp 1, kernel_timeouts 1, the SM on the
// tool's node) are a real host's: fixed.
Profile Profile::random(uint64_t seed) {
  SplitMix64 g{seed};
  Profile p = ideal();
  p.name = "random-" + std::to_string(seed);
  p.vl15_depth = g.between(1, 4);
  p.sma_queue = g.between(1, 32);
  p.hca_queue = g.between(1, 32);
  p.smi_forward_us = g.log_between(2, 2000, 10);
  p.sma_service_us = g.log_between(2, 2000, 10);
  p.hca_service_us = g.log_between(2, 2000, 10);
  p.pma_queue = g.between(1, 64);
  p.pma_service_us = g.log_between(2, 2000, 10);
  p.pma_on_mp = g.between(0, 1);
  p.pma_full_drops = g.between(0, 1);
  p.sa_queue = g.between(1, 64);
  p.sa_service_us = g.log_between(2, 200, 10);
  p.sa_record_us = g.log_between(0.1, 2, 100);
  p.switch_resp_time = g.between(2, 20);
  p.ca_resp_time = g.between(2, 20);
  p.pma_resp_time = g.between(2, 20);
  p.subnet_timeout = g.between(8, 20);
  const bool sm_idle = g.between(0, 3) == 0;
  const double sm_max = std::min(2000.0, 0.5e6 / p.sma_service_us);
  const double sm_rate = std::floor(g.unit() * sm_max);
  p.sm_smps_per_s = sm_idle ? 0 : sm_rate;
  p.hop_latency_us = g.log_between(0.1, 5, 100);
  p.host_latency_us = g.log_between(1, 100, 10);
  // (Drawn last: the draws above, and every profile's figures before the
  // links had a rate, stay as they were.)
  static constexpr double kLaneGbps[] = {2, 4, 8, 13.64, 25, 50, 100, 200};
  p.lane_gbps = kLaneGbps[g.between(0, 7)];
  p.sa_rmpp = 1;
  p.kernel_timeouts = 1;
  return p;
}

Profile Profile::named(const std::string& what) {
  if (what == "ideal") return ideal();
  if (what.rfind("random-", 0) == 0) {
    const std::string n = what.substr(7);
    if (!n.empty() && n.find_first_not_of("0123456789") == std::string::npos && n.size() <= 19)
      return random(std::stoull(n));
  }
  return load(what);
}

Profile Profile::parse(const std::string& text, const std::string& name) {
  Profile p;
  p.name = name;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::string s = line;
    if (size_t h = s.find('#'); h != std::string::npos) s.resize(h);
    s = trim(s);
    if (s.empty()) continue;
    size_t eq = s.find('=');
    auto bad = [&](const std::string& why) {
      return std::runtime_error("profile " + name + " line " + std::to_string(n) + ": " + why);
    };
    if (eq == std::string::npos) throw bad("expected 'name = value'");
    std::string key = trim(s.substr(0, eq)), val = trim(s.substr(eq + 1));
    if (key == "name") {
      p.name = val;
      continue;
    }
    const Param* prm = nullptr;
    for (const auto& x : kParams)
      if (key == x.name) prm = &x;
    if (!prm) throw bad("unknown parameter '" + key + "'");
    try {
      size_t used = 0;
      if (prm->real) {
        double v = std::stod(val, &used);
        if (used != val.size() || v < 0) throw std::invalid_argument(val);
        p.*(prm->real) = v;
      } else if (prm->count) {
        unsigned long v = std::stoul(val, &used);
        if (used != val.size() || val[0] == '-' || v > 1000000) throw std::invalid_argument(val);
        p.*(prm->count) = unsigned(v);
      } else {
        if (val.size() >= 2 && val.front() == '"' && val.back() == '"') val = val.substr(1, val.size() - 2);
        p.*(prm->text) = val;
      }
    } catch (const std::logic_error&) {
      throw bad("bad value '" + val + "' for " + key);
    }
  }
  return p;
}

Profile Profile::load(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read profile " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string base = path.substr(path.find_last_of('/') + 1);
  if (size_t dot = base.rfind(".profile"); dot != std::string::npos && dot + 8 == base.size()) base.resize(dot);
  return parse(ss.str(), base);
}

std::string Profile::to_text() const {
  std::ostringstream o;
  o << "name = " << name << "\n";
  for (const auto& x : kParams) {
    o << x.name << " = ";
    if (x.real)
      o << this->*(x.real);
    else if (x.count)
      o << this->*(x.count);
    else
      o << '"' << this->*(x.text) << '"';
    o << "\n";
  }
  return o.str();
}

// --- the model -----------------------------------------------------------------------

namespace {

constexpr int64_t kStart = 1'000'000'000;  // virtual time starts at 1 s (never the epoch)

int64_t ns(double us) { return int64_t(us * 1000.0 + 0.5); }

// A MAD's packet on the wire (Profile::lane_gbps), bits.
constexpr double kWireBits = 290 * 8;

struct Port {
  int peer = -1;          // node, -1: no link
  unsigned peer_port = 0;
  unsigned width = 2;     // PortInfo LinkWidthActive code (1=1x, 2=4x, 4=8x, 8=12x, 16=2x)
  uint16_t lid = 0;       // CA ports (a switch's is the node's)
  uint64_t guid = 0;
  unsigned depth = 0;     // VL15 buffer depth, 0: unbounded
  std::deque<uint32_t> vl15;  // SMPs held for the node's processor
  uint64_t vl15_dropped = 0;
};

// A processor or server: a FIFO of packets and one in service.
struct Server {
  std::string name;
  unsigned cap = 0;       // FIFO capacity including the one in service; 0: unbounded
  std::deque<uint32_t> fifo;
  bool busy = false;
  int64_t work_ns = 0;    // service time of the MADs it finished
  int64_t svc_ns = 0;     // the one in service's
  // (The one in service stays at the FIFO's front until done: counted
  // once.  Counting busy as well made every queue one shorter than its
  // profile said.)
  unsigned occupancy() const { return unsigned(fifo.size()); }
  bool full() const { return cap && occupancy() >= cap; }
};

struct Node {
  bool sw = false;
  uint8_t type = 1;       // NodeInfo NodeType
  std::string desc;
  unsigned nports = 0;
  uint64_t guid = 0;
  uint16_t lid = 0;       // a switch's (port 0)
  std::vector<Port> ports;  // [0..nports]
  Server mp;              // SMI/SMA
  Server pma;
  unsigned held = 0;      // SMPs in its ports' VL15 buffers and its processor
  unsigned waiting = 0;   // of those, in the ports' buffers
  unsigned peak = 0;      // the most held at once
  unsigned own = 0, peak_own = 0;  // of those, the tool's (not the SM's): now, and the most at once
  unsigned rr = 0;        // next port the processor takes from
  bool deaf = false;
  double slow = 1.0;
  uint64_t smi_visits = 0, sma_visits = 0, pma_visits = 0;
  uint64_t probes_out = 0;  // NodeInfos whose directed route's last hop left by one of its ports
  bool last_pma = false;  // Profile::pma_on_mp: the processor's last job was the PMA's
};

enum class Role : uint8_t { Forward, Answer, Deliver };

struct Packet {
  std::array<uint8_t, iba::MAD_SIZE> mad{};
  std::vector<uint8_t> big;  // a whole SA table (sa_rmpp)
  bool dr = false;
  bool smp = false;
  bool response = false;
  bool background = false;  // the SM's (sm_smps_per_s): served, never answered
  Role role = Role::Answer;
  // Directed route: the nodes passed (hop i at trail[i]) and the port each
  // was entered by / left by on the way out.
  std::vector<int> trail;
  std::vector<uint8_t> in_port, out_port;
  unsigned hop = 0;
  unsigned hops = 0;
  // IBA 14.2.2: the LID-routed parts of a directed-route SMP.  dr_slid and
  // dr_dlid are the SMP's DrSLID and DrDLID.  head: an initial LID-routed
  // part (DrSLID not permissive): the directed part starts at trail[0], the
  // node the LRH's DLID named, and the reply leaves it LID-routed to
  // DrSLID.  tail_node: the switch where the directed part ended and the
  // final LID-routed part to DrDLID began (-1: none, or the reply is back
  // there).  lid_leg: on a LID-routed part now (switch hardware forwards it).
  uint16_t dr_slid = 0xffff, dr_dlid = 0xffff;
  bool head = false, lid_leg = false;
  int tail_node = -1;
  uint16_t slid = 0, dlid = 0;
  int at = -1;            // node it is at / queued at
  unsigned port = 0;      // port it entered by
  uint32_t agent = 0;
};

enum class Ev : uint8_t { Arrive, LocalSma, MpDone, PmaDone, SaDone, KernelTimeout, Deliver, SmSmp };

struct Event {
  int64_t t;
  uint64_t seq;
  Ev kind;
  uint32_t pkt;
  int node;
  unsigned port;
  bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

std::string quoted_name(const std::string& line, size_t& pos) {
  size_t a = line.find('"', pos);
  if (a == std::string::npos) throw std::runtime_error("expected a quoted name: " + line);
  size_t b = line.find('"', a + 1);
  if (b == std::string::npos) throw std::runtime_error("unterminated name: " + line);
  pos = b + 1;
  return line.substr(a + 1, b - a - 1);
}

}  // namespace

class ModelPort;

struct Fabric::Impl {
  Profile prof;
  std::string net;  // the topology's text (Fabric::net_text)
  std::vector<Node> nodes;
  std::map<std::string, int> by_desc;
  int local = 0;
  unsigned local_port = 1;
  int sm = 0;
  uint16_t max_lid = 0;
  std::vector<std::pair<int, unsigned>> lid_owner;  // by LID: (node, port)
  // Routing: switches by index, hop distances from each destination switch
  // (computed on first use).
  std::vector<int> sw_index;  // node -> switch index, -1 for a CA
  std::vector<int> switches;
  std::vector<std::vector<uint16_t>> dist;  // [dest switch index][switch index]
  // Whole linear forwarding tables by switch index, computed on a switch's
  // first LFT read (the SMA's answers; packets use route()).
  std::vector<std::vector<uint8_t>> lft_cache;
  std::vector<std::vector<uint16_t>> lids_by_target;
  const std::vector<uint8_t>& lft_of(int sw);
  // Switch-to-switch links by switch index: (port, peer's switch index).
  std::vector<std::vector<std::pair<uint8_t, int>>> sw_links;
  std::vector<int> hops_from_local;
  unsigned depth = 0;

  int64_t now = kStart;
  uint64_t seq = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
  std::vector<Packet> pkts;
  std::vector<uint32_t> free_pkts;
  Server sa;
  // Profile::host_service_us: when the host's server is free next, and
  // its work so far.
  int64_t host_free = 0, host_work = 0;
  // The tool's visits to the SA (requests, of them GetTables) and to the
  // host's server (Fabric::demand).
  uint64_t sa_requests = 0, sa_tables = 0, host_visits = 0;
  // Fabric::stale_sa: the SA's NodeRecords give each port the next LID's,
  // and its LinkRecords lead to the next LID.
  bool stale_sa = false;
  ProcessorOrder order = ProcessorOrder::Fifo;  // Fabric::order
  // The delay from now of a MAD through the host's side: its latency, and
  // its turn at the host's server.
  int64_t host_path() {
    const int64_t lat = ns(prof.host_latency_us);
    if (prof.host_service_us <= 0) return lat;
    const int64_t svc = ns(prof.host_service_us);
    ++host_visits;
    host_free = std::max(now, host_free) + svc;
    host_work += svc;
    return host_free - now + lat;
  }
  Stats stats;
  std::deque<ibcore::RecvMad> inbox;
  struct Held {
    int64_t deadline;
    ibcore::RecvMad mad;
  };
  std::unordered_map<uint64_t, Held> pending;  // by TID: sends the kernel holds
  unsigned loss_every = 0, loss_count = 0;
  bool drop_hybrid = false;  // set_drop_hybrid
  std::function<void(const std::string&)> trace;
  std::unique_ptr<ModelPort> port;

  // --- topology --------------------------------------------------------------
  void parse(const std::string& text);
  void assign_lids();
  const std::vector<uint16_t>& dist_to(int sw_node);
  uint8_t route(int sw, uint16_t dlid);
  bool owner(uint16_t lid, int& node, unsigned& port) const {
    if (lid == 0 || lid > max_lid || lid_owner[lid].first < 0) return false;
    node = lid_owner[lid].first;
    port = lid_owner[lid].second;
    return true;
  }
  uint16_t lid_of_port(int n, unsigned p) const { return nodes[n].sw ? nodes[n].lid : nodes[n].ports[p].lid; }
  uint64_t port_guid(int n, unsigned p) const { return nodes[n].sw ? nodes[n].guid : nodes[n].ports[p].guid; }
  // The SM's LID: its first port with one.
  uint16_t sm_lid() const {
    const Node& s = nodes[size_t(sm)];
    for (unsigned p = 1; p <= s.nports; ++p)
      if (s.ports[p].lid) return s.ports[p].lid;
    return 0;
  }

  // --- events ----------------------------------------------------------------
  void at(int64_t t, Ev kind, uint32_t pkt, int node = -1, unsigned port = 0) {
    events.push({t, seq++, kind, pkt, node, port});
  }
  uint32_t new_packet() {
    if (!free_pkts.empty()) {
      uint32_t i = free_pkts.back();
      free_pkts.pop_back();
      pkts[i] = Packet{};
      return i;
    }
    pkts.emplace_back();
    return uint32_t(pkts.size() - 1);
  }
  void free_packet(uint32_t i) {
    pkts[i].big.clear();
    pkts[i].trail.clear();
    free_pkts.push_back(i);
  }
  // extra: appended (a send's route form).
  void note(const char* what, uint32_t pkt, int node, unsigned port = 0, const char* extra = "") {
    if (!trace) return;
    const Packet& p = pkts[pkt];
    char b[256];
    std::snprintf(b, sizeof b, "%lld %s tid=%08x attr=%04x node=%d port=%u%s", (long long)(now - kStart), what,
                  unsigned(iba::MADHeader::transactionID_at(p.mad.data())), unsigned(iba::MADHeader::attributeID_at(p.mad.data())), node,
                  port, extra);
    trace(b);
  }
  void drop(uint32_t pkt, uint64_t& counter, const char* why, int node, unsigned port = 0) {
    ++counter;
    note(why, pkt, node, port);
    free_packet(pkt);
  }
  bool step();
  void run_until(int64_t deadline);

  // --- the path of a packet ---------------------------------------------------
  void client_send(uint32_t agent, const uint8_t* mad, size_t len, const ibcore::IBPath& path, int timeout_ms);
  void transmit(uint32_t pkt, int from, unsigned out_port, int64_t extra_ns = 0);
  int64_t wire_ns(const Port& link) const;  // a packet's time to cross link (Profile::lane_gbps)
  void lid_route(uint32_t pkt, int from, unsigned from_port, int64_t extra_ns);
  void arrive(uint32_t pkt, int node, unsigned port);
  void dr_part_ends(uint32_t pkt, int node, unsigned port);
  void lid_leg_ends(uint32_t pkt, int node, unsigned port);
  void lid_leg_from(uint32_t pkt, int node, unsigned port, uint16_t dlid);
  void to_processor(uint32_t pkt, int node, unsigned port, bool through_buffer);
  void pull(int node);
  void start(int node);
  void next_job(int node);
  void mp_done(int node, uint32_t pkt);
  void gmp_arrive(uint32_t pkt, int node);
  void gmp_done(Server& s, int node, Ev kind);
  void start_server(Server& s, int node, Ev kind);
  void send_reply(uint32_t pkt, int node);
  void deliver(uint32_t pkt);
  void kernel_timeout(uint64_t tid, int64_t deadline);
  void sm_smp(int node);
  int64_t sm_period = 0;
  int64_t sm_from = 0;  // Fabric::set_sm_from (ns of virtual time)
  std::vector<int> sm_ports;  // by node: the port the SM's SMPs arrive by (-1: not found yet)

  // --- the agents ---------------------------------------------------------------
  void sma_answer(Packet& p, int node);
  void pma_answer(Packet& p, int node);
  void sa_answer(Packet& p);
  iba::SMPNodeInfo node_info(int n, unsigned in) const;
  iba::SMPPortInfo port_info(int n, unsigned port, unsigned in) const;
  iba::SAPathRecord path_record(int sn, unsigned sp, int dn, unsigned dp) const;
  int64_t service_ns(const Packet& p, int node) const;
};

// The end port: a Transport whose clock is the model's.
class ModelPort : public ibcore::Transport {
public:
  explicit ModelPort(Fabric::Impl& f) : f_(f) {}
  Clock::time_point now() const override { return Clock::time_point(std::chrono::nanoseconds(f_.now)); }
  int client_agent(uint8_t mgmt_class, uint8_t) override { return mgmt_class; }
  int server_agent(uint8_t, uint8_t, uint32_t, uint32_t) override {
    throw std::runtime_error("the fabric model has no server agents");
  }
  void send(int agent, const uint8_t* mad, size_t len, const ibcore::IBPath& path, int timeout_ms) override {
    f_.client_send(uint32_t(agent), mad, len, path, timeout_ms);
  }
  bool recv(ibcore::RecvMad& out, int timeout_ms) override {
    if (f_.inbox.empty()) {
      // Run the simulation until something is there or the wait is over.
      int64_t deadline = timeout_ms < 0 ? INT64_MAX : f_.now + int64_t(timeout_ms) * 1'000'000;
      f_.run_until(deadline);
      if (f_.inbox.empty()) return false;
    }
    out = std::move(f_.inbox.front());
    f_.inbox.pop_front();
    return true;
  }
  uint16_t local_lid() const override { return f_.lid_of_port(f_.local, f_.local_port); }
  uint8_t local_port() const override { return uint8_t(f_.local_port); }
  iba::Gid local_gid() const override {
    return iba::Gid::from(0xfe80000000000000ull, f_.port_guid(f_.local, f_.local_port));
  }
  uint16_t sm_lid() const override { return f_.sm_lid(); }

private:
  Fabric::Impl& f_;
};

// --- topology -------------------------------------------------------------------------

void Fabric::Impl::parse(const std::string& text) {
  struct Line {
    int node;
    unsigned port;
    std::string peer;
    unsigned peer_port;
    unsigned width;
  };
  std::vector<Line> lines;
  std::istringstream in(text);
  std::string line;
  int cur = -1;
  uint64_t ca_guid = 0x100000, sw_guid = 0x200000;
  while (std::getline(in, line)) {
    std::string s = trim(line);
    if (s.empty() || s[0] == '#') continue;
    if (s[0] == '[') {
      if (cur < 0) throw std::runtime_error("net: a port line before any node: " + s);
      size_t close = s.find(']');
      if (close == std::string::npos) throw std::runtime_error("net: bad port line: " + s);
      unsigned port = unsigned(std::stoul(s.substr(1, close - 1)));
      size_t pos = close + 1;
      std::string peer = quoted_name(s, pos);
      size_t a = s.find('[', pos), b = s.find(']', pos);
      if (a == std::string::npos || b == std::string::npos || b < a)
        throw std::runtime_error("net: no peer port: " + s);
      unsigned pp = unsigned(std::stoul(s.substr(a + 1, b - a - 1)));
      unsigned width = 2;
      if (size_t w = s.find("w=", b); w != std::string::npos) {
        unsigned x = unsigned(std::stoul(s.substr(w + 2)));
        width = x == 1 ? 1 : x == 8 ? 4 : x == 12 ? 8 : x == 2 ? 16 : 2;
      }
      if (port == 0 || port > nodes[size_t(cur)].nports)
        throw std::runtime_error("net: port " + std::to_string(port) + " out of range: " + s);
      lines.push_back({cur, port, peer, pp, width});
      continue;
    }
    std::istringstream ls(s);
    std::string kind;
    unsigned n = 0;
    ls >> kind >> n;
    if (kind != "Switch" && kind != "Hca" && kind != "Rt") throw std::runtime_error("net: unexpected line: " + s);
    if (n == 0 || n > 254) throw std::runtime_error("net: bad port count: " + s);
    size_t pos = 0;
    Node nd;
    nd.desc = quoted_name(s, pos);
    nd.sw = kind == "Switch";
    nd.type = nd.sw ? 2 : kind == "Rt" ? 3 : 1;
    nd.nports = n;
    nd.ports.resize(n + 1);
    if (nd.sw) {
      nd.guid = sw_guid++;
    } else {
      nd.guid = ca_guid;
      for (unsigned p = 1; p <= n; ++p) nd.ports[p].guid = ca_guid + p;
      ca_guid += n + 1;
    }
    if (by_desc.count(nd.desc)) throw std::runtime_error("net: node \"" + nd.desc + "\" listed twice");
    by_desc[nd.desc] = int(nodes.size());
    nodes.push_back(std::move(nd));
    cur = int(nodes.size() - 1);
  }
  if (nodes.empty()) throw std::runtime_error("net: no nodes");
  for (const auto& l : lines) {
    auto it = by_desc.find(l.peer);
    if (it == by_desc.end()) throw std::runtime_error("net: link to unknown node \"" + l.peer + "\"");
    Node& b = nodes[size_t(it->second)];
    if (l.peer_port == 0 || l.peer_port > b.nports)
      throw std::runtime_error("net: peer port out of range on \"" + l.peer + "\"");
    Port& pa = nodes[size_t(l.node)].ports[l.port];
    Port& pb = b.ports[l.peer_port];
    pa.peer = it->second;
    pa.peer_port = l.peer_port;
    pb.peer = l.node;
    pb.peer_port = l.port;
    pa.width = pb.width = std::min(pa.width == 2 ? l.width : pa.width, l.width);
  }
  // The tool's node: the first Hca, its first connected port.
  local = -1;
  for (size_t i = 0; i < nodes.size() && local < 0; ++i)
    if (nodes[i].type == 1) local = int(i);
  if (local < 0) throw std::runtime_error("net: no Hca to attach the tool to");
  local_port = 0;
  for (unsigned p = 1; p <= nodes[size_t(local)].nports && !local_port; ++p)
    if (nodes[size_t(local)].ports[p].peer >= 0) local_port = p;
  if (!local_port) local_port = 1;
  sm = local;
  if (!prof.sm_node.empty()) {
    auto it = by_desc.find(prof.sm_node);
    if (it == by_desc.end() || nodes[size_t(it->second)].sw)
      throw std::runtime_error("profile: sm_node \"" + prof.sm_node + "\" is not a CA of the fabric");
    sm = it->second;
  }
}

void Fabric::Impl::assign_lids() {
  // Breadth first from the SM's port, ports in number order: a switch gets
  // one LID (port 0), a CA port its own when the sweep reaches it.
  lid_owner.assign(1, {-1, 0});
  std::vector<char> seen_sw(nodes.size(), 0);
  std::deque<int> todo;
  auto give = [&](int n, unsigned p) {
    Node& x = nodes[size_t(n)];
    uint16_t l = uint16_t(lid_owner.size());
    if (x.sw) {
      if (seen_sw[size_t(n)]) return;
      seen_sw[size_t(n)] = 1;
      x.lid = l;
      lid_owner.push_back({n, 0});
      todo.push_back(n);
    } else {
      if (x.ports[p].lid) return;
      x.ports[p].lid = l;
      lid_owner.push_back({n, p});
    }
  };
  unsigned smp = 0;
  for (unsigned p = 1; p <= nodes[size_t(sm)].nports && !smp; ++p)
    if (nodes[size_t(sm)].ports[p].peer >= 0) smp = p;
  if (!smp) smp = 1;
  give(sm, smp);
  if (Port& p = nodes[size_t(sm)].ports[smp]; p.peer >= 0) give(p.peer, p.peer_port);
  while (!todo.empty()) {
    int n = todo.front();
    todo.pop_front();
    for (unsigned p = 1; p <= nodes[size_t(n)].nports; ++p) {
      const Port& x = nodes[size_t(n)].ports[p];
      if (x.peer >= 0) give(x.peer, x.peer_port);
    }
  }
  max_lid = uint16_t(lid_owner.size() - 1);
  sw_index.assign(nodes.size(), -1);
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].sw) {
      sw_index[i] = int(switches.size());
      switches.push_back(int(i));
    }
  dist.resize(switches.size());
  sw_links.resize(switches.size());
  lft_cache.resize(switches.size());
  for (size_t i = 0; i < switches.size(); ++i) {
    const Node& x = nodes[size_t(switches[i])];
    for (unsigned p = 1; p <= x.nports; ++p)
      if (x.ports[p].peer >= 0 && nodes[size_t(x.ports[p].peer)].sw)
        sw_links[i].push_back({uint8_t(p), sw_index[size_t(x.ports[p].peer)]});
  }
  // Hops from the tool's node, through switches only (as directed routes go).
  hops_from_local.assign(nodes.size(), -1);
  hops_from_local[size_t(local)] = 0;
  std::deque<int> q{local};
  while (!q.empty()) {
    int n = q.front();
    q.pop_front();
    if (n != local && !nodes[size_t(n)].sw) continue;
    for (unsigned p = 1; p <= nodes[size_t(n)].nports; ++p) {
      if (n == local && p != local_port) continue;
      int m = nodes[size_t(n)].ports[p].peer;
      if (m < 0 || hops_from_local[size_t(m)] >= 0) continue;
      hops_from_local[size_t(m)] = hops_from_local[size_t(n)] + 1;
      depth = std::max(depth, unsigned(hops_from_local[size_t(m)]));
      q.push_back(m);
    }
  }
}

const std::vector<uint16_t>& Fabric::Impl::dist_to(int sw_node) {
  auto& d = dist[size_t(sw_index[size_t(sw_node)])];
  if (!d.empty()) return d;
  d.assign(switches.size(), 0xffff);
  std::vector<int> q{sw_index[size_t(sw_node)]};
  d[size_t(q[0])] = 0;
  for (size_t k = 0; k < q.size(); ++k) {
    const uint16_t dn = d[size_t(q[k])];
    for (auto [p, m] : sw_links[size_t(q[k])]) {
      uint16_t& dm = d[size_t(m)];
      if (dm != 0xffff) continue;
      dm = uint16_t(dn + 1);
      q.push_back(m);
    }
  }
  return d;
}

// Min-hop: the port of switch sw on a shortest path to dlid's owner; among
// equal ports, the (dlid mod count)-th, which spreads destinations over
// parallel paths deterministically.  0: the switch itself; 0xff: none.
uint8_t Fabric::Impl::route(int sw, uint16_t dlid) {
  int dn;
  unsigned dp;
  if (!owner(dlid, dn, dp)) return 0xff;
  if (dn == sw) return 0;
  int target = dn;
  if (!nodes[size_t(dn)].sw) {
    // A CA port: its switch, or the port itself when linked to sw.
    const Port& cp = nodes[size_t(dn)].ports[dp];
    if (cp.peer == sw) return uint8_t(cp.peer_port);
    if (cp.peer < 0 || !nodes[size_t(cp.peer)].sw) return 0xff;
    target = cp.peer;
  }
  const auto& d = dist_to(target);
  const int si = sw_index[size_t(sw)];
  uint16_t here = d[size_t(si)];
  if (here == 0xffff) return 0xff;
  if (here == 0) return 0;
  uint8_t cand[256];
  unsigned nc = 0;
  for (auto [p, m] : sw_links[size_t(si)])
    if (d[size_t(m)] == here - 1) cand[nc++] = p;
  return nc ? cand[dlid % nc] : 0xff;
}

const std::vector<uint8_t>& Fabric::Impl::lft_of(int sw) {
  auto& t = lft_cache[size_t(sw_index[size_t(sw)])];
  if (!t.empty()) return t;
  if (lids_by_target.empty()) {
    // The LIDs each switch is the last switch for: its own and its CAs'.
    lids_by_target.resize(switches.size());
    for (uint16_t l = 1; l <= max_lid; ++l) {
      auto [n, p] = lid_owner[l];
      int last = nodes[size_t(n)].sw ? n : nodes[size_t(n)].ports[p].peer;
      if (last >= 0 && nodes[size_t(last)].sw) lids_by_target[size_t(sw_index[size_t(last)])].push_back(l);
    }
  }
  // route() for every LID, the candidate ports found once per target
  // switch.
  t.assign(size_t(max_lid) + 1, 0xff);
  const int si = sw_index[size_t(sw)];
  uint8_t cand[256];
  for (size_t ti = 0; ti < switches.size(); ++ti) {
    if (lids_by_target[ti].empty()) continue;
    const auto& d = dist_to(switches[ti]);
    const uint16_t here = d[size_t(si)];
    if (here == 0xffff || here == 0) continue;
    unsigned nc = 0;
    for (auto [p, m] : sw_links[size_t(si)])
      if (d[size_t(m)] == here - 1) cand[nc++] = p;
    if (nc)
      for (uint16_t l : lids_by_target[ti]) t[l] = cand[l % nc];
  }
  // Its own LID and its CAs' ports (0 and the port they hang on).
  for (uint16_t l : lids_by_target[size_t(si)]) t[l] = route(sw, l);
  return t;
}

// --- the event loop -----------------------------------------------------------------------

bool Fabric::Impl::step() {
  if (events.empty()) return false;
  Event e = events.top();
  events.pop();
  now = e.t;
  ++stats.events;
  switch (e.kind) {
    case Ev::Arrive: arrive(e.pkt, e.node, e.port); break;
    case Ev::LocalSma: to_processor(e.pkt, local, 0, false); break;
    case Ev::MpDone: mp_done(e.node, e.pkt); break;
    case Ev::PmaDone: gmp_done(nodes[size_t(e.node)].pma, e.node, Ev::PmaDone); break;
    case Ev::SaDone: gmp_done(sa, e.node, Ev::SaDone); break;
    case Ev::KernelTimeout: kernel_timeout(uint64_t(e.pkt) | uint64_t(e.port) << 32, e.t); break;
    case Ev::Deliver: deliver(e.pkt); break;
    case Ev::SmSmp: sm_smp(e.node); break;
  }
  return true;
}

void Fabric::Impl::run_until(int64_t deadline) {
  while (inbox.empty()) {
    if (events.empty() || events.top().t > deadline) {
      if (deadline != INT64_MAX) now = std::max(now, deadline);
      return;
    }
    step();
  }
}

void Fabric::Impl::client_send(uint32_t agent, const uint8_t* mad, size_t len, const ibcore::IBPath& path,
                               int timeout_ms) {
  ++stats.mads_in;
  uint32_t i = new_packet();
  Packet& p = pkts[i];
  std::memcpy(p.mad.data(), mad, std::min(len, p.mad.size()));
  p.agent = agent;
  const uint8_t cls = iba::MADHeader::mgmtClass_at(p.mad.data());
  p.response = iba::MADHeader::method_at(p.mad.data()) & iba::method::RESPONSE;
  uint64_t tid = iba::MADHeader::transactionID_at(p.mad.data());
  if (!p.response && timeout_ms > 0 && prof.kernel_timeouts) {
    ibcore::RecvMad r;
    r.data = p.mad;
    r.len = len;
    r.status = ETIMEDOUT;
    r.agent = int(agent);
    int64_t deadline = now + int64_t(timeout_ms) * 1'000'000;
    pending[tid] = Held{deadline, r};
    at(deadline, Ev::KernelTimeout, uint32_t(tid), -1, unsigned(tid >> 32));
  }
  if (trace) {
    // The route form: LID-routed, directed (h hops), or hybrid (LID-routed
    // to dlid, then h hops).
    char r[64];
    if (!path.is_dr()) std::snprintf(r, sizeof r, " route=lid dlid=%u", unsigned(path.DLID));
    else if (path.lid_head()) std::snprintf(r, sizeof r, " route=hybrid%u dlid=%u", path.hop_count(), unsigned(path.DLID));
    else std::snprintf(r, sizeof r, " route=dr%u", path.hop_count());
    note("send", i, local, local_port, r);
  }
  if (drop_hybrid && path.lid_head()) {
    drop(i, stats.drops_route, "hybrid-drop", local, local_port);
    return;
  }
  if (loss_every && ++loss_count % loss_every == 0) {
    drop(i, stats.drops_queue, "lost", local, local_port);
    return;
  }
  const int64_t host = host_path();
  if (cls == iba::mgmt::SUBN_DIRECTED_ROUTE) {
    p.dr = p.smp = true;
    p.hops = unsigned(iba::SMPFormatDirected::hopCount_at(p.mad.data()));
    p.dr_slid = uint16_t(iba::SMPFormatDirected::drSLID_at(p.mad.data()));
    p.dr_dlid = uint16_t(iba::SMPFormatDirected::drDLID_at(p.mad.data()));
    if (p.hops > 63 || iba::SMPFormatDirected::hopPointer_at(p.mad.data()) != 0) {
      // C14-6: at most 63 hops; a request leaves with hop pointer 0.
      drop(i, stats.drops_route, "dr-bad-header", local);
      return;
    }
    if (p.dr_slid != 0xffff) {
      // An initial LID-routed part (IBA 14.2.2): the LRH's DLID names the
      // node where the directed part begins; it must be a unicast LID.
      if (path.DLID == 0 || path.DLID >= 0xc000) {
        drop(i, stats.drops_route, "dr-slid-without-dlid", local);
        return;
      }
      p.head = p.lid_leg = true;
      p.dlid = path.DLID;
      p.slid = lid_of_port(local, local_port);
      lid_route(i, local, local_port, host);
      return;
    }
    p.trail.push_back(local);
    p.in_port.push_back(uint8_t(local_port));
    p.hop = 0;
    if (p.hops == 0) {
      if (p.dr_dlid != 0xffff) {
        // C14-9:3: only a switch starts a final LID-routed part.
        drop(i, stats.drops_route, "dr-dlid-at-ca", local);
        return;
      }
      // The local port's own SMA (in the HCA, past the host's path).
      p.out_port.push_back(0);
      p.role = Role::Answer;
      at(now + host, Ev::LocalSma, i);
      return;
    }
    unsigned out = unsigned(iba::SMPFormatDirected::initialPath_at(p.mad.data(), 1));
    if (out != local_port) {
      // A CA sends a directed route out of the port it is on.
      drop(i, stats.drops_route, "dr-bad-first-port", local, out);
      return;
    }
    p.out_port.push_back(uint8_t(out));
    transmit(i, local, out, host);
    return;
  }
  p.smp = cls == iba::mgmt::SUBN_LID_ROUTED;
  p.dlid = path.DLID;
  p.slid = lid_of_port(local, local_port);
  lid_route(i, local, local_port, host);
}

void Fabric::Impl::transmit(uint32_t pkt, int from, unsigned out_port, int64_t extra_ns) {
  const Port& o = nodes[size_t(from)].ports[out_port];
  if (o.peer < 0) {
    drop(pkt, stats.drops_route, "no-link", from, out_port);
    return;
  }
  at(now + extra_ns + ns(prof.hop_latency_us) + wire_ns(o), Ev::Arrive, pkt, o.peer, o.peer_port);
}

int64_t Fabric::Impl::wire_ns(const Port& link) const {
  if (prof.lane_gbps <= 0) return 0;
  return int64_t(kWireBits / (prof.lane_gbps * ibcore::health::width_lanes(link.width)) + 0.5);
}

// A LID-routed packet from node `from` (a CA sends out of from_port): the
// switches' forwarding tables, in hardware; one arrival at the end.
void Fabric::Impl::lid_route(uint32_t pkt, int from, unsigned from_port, int64_t extra_ns) {
  Packet& p = pkts[pkt];
  int dn;
  unsigned dp;
  if (!owner(p.dlid, dn, dp)) {
    drop(pkt, stats.drops_route, "no-such-lid", from);
    return;
  }
  if (dn == from && (nodes[size_t(from)].sw || dp == from_port)) {
    // Loopback: the local agent.
    at(now + extra_ns, Ev::Arrive, pkt, from, nodes[size_t(from)].sw ? 0 : from_port);
    return;
  }
  int n = from;
  unsigned out = nodes[size_t(from)].sw ? route(from, p.dlid) : from_port;
  unsigned hops = 0;
  int64_t slowest = 0;  // (cut through: the slowest link's time, once)
  while (true) {
    if (out == 0xff || out == 0) {
      drop(pkt, stats.drops_route, "no-route", n);
      return;
    }
    const Port& o = nodes[size_t(n)].ports[out];
    if (o.peer < 0 || ++hops > 64) {
      drop(pkt, stats.drops_route, "no-link", n, out);
      return;
    }
    int m = o.peer;
    unsigned in = o.peer_port;
    slowest = std::max(slowest, wire_ns(o));
    if (m == dn && (nodes[size_t(m)].sw || in == dp)) {
      at(now + extra_ns + int64_t(hops) * ns(prof.hop_latency_us) + slowest, Ev::Arrive, pkt, m, in);
      return;
    }
    if (!nodes[size_t(m)].sw) {
      drop(pkt, stats.drops_route, "lid-route-into-ca", m, in);
      return;
    }
    n = m;
    out = route(m, p.dlid);
  }
}

int64_t Fabric::Impl::service_ns(const Packet& p, int node) const {
  const Node& x = nodes[size_t(node)];
  double us = 0;
  if (p.role == Role::Forward)
    us = prof.smi_forward_us;
  else
    us = x.sw ? prof.sma_service_us : prof.hca_service_us;
  return ns(us * x.slow);
}

void Fabric::Impl::arrive(uint32_t pkt, int node, unsigned port) {
  Packet& p = pkts[pkt];
  if (!p.response) {
    p.at = node;
    p.port = port;
  }
  if (p.dr) {
    if (p.lid_leg) {
      lid_leg_ends(pkt, node, port);
      return;
    }
    if (!p.response) {
      // Outbound: one more hop done.
      ++p.hop;
      p.trail.push_back(node);
      p.in_port.push_back(uint8_t(port));
      if (p.hop == p.hops) {
        dr_part_ends(pkt, node, port);
        return;
      }
      if (!nodes[size_t(node)].sw) {
        drop(pkt, stats.drops_route, "dr-through-ca", node, port);
        return;
      }
      p.role = Role::Forward;
      to_processor(pkt, node, port, true);
    } else {
      // Returning: hop index p.hop is where it is now.  At hop 0 it is
      // home, unless the directed part began at a node entered by LID:
      // that node's SMI sends it on to DrSLID (C14-13:3).
      if (p.hop == 0 && !p.head) {
        at(now + host_path(), Ev::Deliver, pkt);
        return;
      }
      p.role = Role::Forward;
      to_processor(pkt, node, port, true);
    }
    return;
  }
  if (p.response) {
    at(now + host_path(), Ev::Deliver, pkt);
    return;
  }
  if (p.smp) {
    p.role = Role::Answer;
    // A LID-routed SMP addressed to a CA's own sending port (loopback)
    // does not pass a receive buffer.
    to_processor(pkt, node, port, !(node == local && port == local_port) || nodes[size_t(node)].sw);
    return;
  }
  gmp_arrive(pkt, node);
}

// The outbound directed part ends at node (hop pointer = hop count): its
// SMA answers, unless DrDLID names a final LID-routed part, which only a
// switch's SMI starts (C14-9:3; a CA drops it).
void Fabric::Impl::dr_part_ends(uint32_t pkt, int node, unsigned port) {
  Packet& p = pkts[pkt];
  if (p.dr_dlid != 0xffff && !nodes[size_t(node)].sw) {
    drop(pkt, stats.drops_route, "dr-dlid-at-ca", node, port);
    return;
  }
  p.role = p.dr_dlid != 0xffff ? Role::Forward : Role::Answer;
  to_processor(pkt, node, port, true);
}

// A LID-routed part of a directed-route SMP arrived at node (IBA 14.2.2).
void Fabric::Impl::lid_leg_ends(uint32_t pkt, int node, unsigned port) {
  Packet& p = pkts[pkt];
  p.lid_leg = false;
  if (!p.response && p.tail_node < 0) {
    // The initial part: the directed part begins here, with hop pointer 0
    // (C14-9:1): a switch sends it out of InitialPath[1], a CA only out of
    // the port it came in by.
    p.trail.push_back(node);
    p.in_port.push_back(uint8_t(port));
    p.hop = 0;
    if (p.hops == 0) {
      dr_part_ends(pkt, node, port);
      return;
    }
    const unsigned out = unsigned(iba::SMPFormatDirected::initialPath_at(p.mad.data(), 1));
    if (!nodes[size_t(node)].sw && out != port) {
      drop(pkt, stats.drops_route, "dr-through-ca", node, port);
      return;
    }
    p.role = Role::Forward;
    to_processor(pkt, node, port, true);
  } else if (!p.response) {
    // The final part, at DrDLID: its SMA answers.
    p.role = Role::Answer;
    to_processor(pkt, node, port, !(node == local && port == local_port) || nodes[size_t(node)].sw);
  } else if (p.tail_node >= 0) {
    // The reply, back at the switch where the final part began: its SMI
    // takes it along the directed part's return path.
    p.tail_node = -1;
    p.role = Role::Forward;
    to_processor(pkt, node, port, true);
  } else {
    // The reply, at DrSLID: home.
    at(now + host_path(), Ev::Deliver, pkt);
  }
}

// Send pkt on a LID-routed part from node (entered by port) to dlid; the
// LRH's SLID is node's.
void Fabric::Impl::lid_leg_from(uint32_t pkt, int node, unsigned port, uint16_t dlid) {
  Packet& p = pkts[pkt];
  p.lid_leg = true;
  p.slid = lid_of_port(node, nodes[size_t(node)].sw ? 0 : port);
  p.dlid = dlid;
  lid_route(pkt, node, port, 0);
}

void Fabric::Impl::to_processor(uint32_t pkt, int node, unsigned port, bool through_buffer) {
  Node& x = nodes[size_t(node)];
  Packet& p = pkts[pkt];
  p.at = node;
  p.port = port;
  if (x.deaf) {
    drop(pkt, stats.drops_queue, "deaf", node, port);
    return;
  }
  Port& in = x.ports[through_buffer ? port : 0];
  const unsigned depth = in.depth ? in.depth : prof.vl15_depth;
  if (through_buffer && depth && in.vl15.size() >= depth) {
    ++in.vl15_dropped;
    drop(pkt, p.background ? stats.sm_drops : stats.drops_vl15, "vl15-drop", node, port);
    return;
  }
  in.vl15.push_back(pkt);
  ++x.held;
  ++x.waiting;
  x.peak = std::max(x.peak, x.held);
  if (!p.background) x.peak_own = std::max(x.peak_own, ++x.own);
  if (x.held > stats.peak_sma_queue) {
    stats.peak_sma_queue = x.held;
    stats.peak_sma_node = x.desc;
  }
  note("queued", pkt, node, port);
  pull(node);
  next_job(node);
}

// The processor's FIFO takes SMPs from its ports' VL15 buffers, in turn.
void Fabric::Impl::pull(int node) {
  Node& x = nodes[size_t(node)];
  const unsigned np = x.nports + 1;
  while (x.waiting && !x.mp.full()) {
    bool took = false;
    for (unsigned k = 0; k < np; ++k) {
      unsigned p = (x.rr + k) % np;
      if (!x.ports[p].vl15.empty()) {
        const uint32_t k = x.ports[p].vl15.front();
        x.mp.fifo.push_back(k);
        x.ports[p].vl15.pop_front();
        // (Unqueued: its service begins as it enters, start() has none to begin.)
        if (order == ProcessorOrder::Unqueued) at(now + service_ns(pkts[k], node), Ev::MpDone, k, node);
        --x.waiting;
        x.rr = (p + 1) % np;
        took = true;
        break;
      }
    }
    if (!took) break;
  }
}

void Fabric::Impl::start(int node) {
  Node& x = nodes[size_t(node)];
  if (order == ProcessorOrder::Unqueued || x.mp.busy || x.mp.fifo.empty()) return;
  if (order == ProcessorOrder::ProbesFirst) {
    auto rank = [&](uint32_t k) {
      if (pkts[k].background) return 2;
      return iba::MADHeader::attributeID_at(pkts[k].mad.data()) == iba::AttrId<iba::SMPNodeInfo>::value ? 0 : 1;
    };
    auto first = std::min_element(x.mp.fifo.begin(), x.mp.fifo.end(), [&](uint32_t a, uint32_t b) { return rank(a) < rank(b); });
    if (first != x.mp.fifo.end()) std::rotate(x.mp.fifo.begin(), first, first + 1);
  }
  x.mp.busy = true;
  int64_t s = service_ns(pkts[x.mp.fifo.front()], node);
  x.mp.svc_ns = s;
  at(now + s, Ev::MpDone, x.mp.fifo.front(), node);
}

// What the node's processor does next: its next SMP; under
// Profile::pma_on_mp the PMA's MADs take the same processor, an SMP and a
// PMA MAD in turn while both wait (neither starves the other).
void Fabric::Impl::next_job(int node) {
  Node& x = nodes[size_t(node)];
  if (!prof.pma_on_mp) {
    start(node);
    start_server(x.pma, node, Ev::PmaDone);
    return;
  }
  if (x.mp.busy || x.pma.busy) return;
  const bool smp = !x.mp.fifo.empty(), gmp = !x.pma.fifo.empty();
  if (gmp && (!smp || !x.last_pma)) {
    x.last_pma = true;
    start_server(x.pma, node, Ev::PmaDone);
  } else if (smp) {
    x.last_pma = false;
    start(node);
  }
}

void Fabric::Impl::mp_done(int node, uint32_t done) {
  Node& x = nodes[size_t(node)];
  const uint32_t pkt = done;  // (the FIFO's front, but Unqueued)
  if (order == ProcessorOrder::Unqueued) {
    x.mp.fifo.erase(std::find(x.mp.fifo.begin(), x.mp.fifo.end(), pkt));
    x.mp.work_ns += service_ns(pkts[pkt], node);
  } else {
    x.mp.fifo.pop_front();
    x.mp.busy = false;
    x.mp.work_ns += x.mp.svc_ns;
  }
  --x.held;
  Packet& p = pkts[pkt];
  if (!p.background) --x.own;
  if (p.background) {
    ++stats.sm_smps;
    note("sm-smp", pkt, node);
    free_packet(pkt);
  } else if (p.role == Role::Forward) {
    ++x.smi_visits;
    ++stats.smi_forwards;
    note("smi", pkt, node);
    if (!p.response && p.hop == p.hops) {
      // The end of the directed part: on by LID to DrDLID (C14-9:3).
      p.tail_node = node;
      lid_leg_from(pkt, node, 0, p.dr_dlid);
    } else if (!p.response) {
      unsigned out = unsigned(iba::SMPFormatDirected::initialPath_at(p.mad.data(), p.hop + 1));
      p.out_port.push_back(uint8_t(out));
      if (p.hop + 1 == p.hops && iba::MADHeader::attributeID_at(p.mad.data()) == iba::AttrId<iba::SMPNodeInfo>::value)
        ++x.probes_out;
      if (out == 0 || out > x.nports) {
        drop(pkt, stats.drops_route, "dr-bad-port", node, out);
      } else {
        transmit(pkt, node, out);
      }
    } else if (p.hop == 0) {
      // Back where the directed part began, entered by LID: on to DrSLID
      // (C14-13:3).
      lid_leg_from(pkt, node, p.in_port[0], p.dr_slid);
    } else {
      // Back the way it came: out of the port this hop was entered by.
      unsigned out = p.in_port[p.hop];
      --p.hop;
      transmit(pkt, node, out);
    }
  } else {
    ++x.sma_visits;
    ++stats.sma_answers;
    note("sma", pkt, node);
    sma_answer(p, node);
    send_reply(pkt, node);
  }
  pull(node);
  next_job(node);
}

void Fabric::Impl::gmp_arrive(uint32_t pkt, int node) {
  Packet& p = pkts[pkt];
  const uint8_t cls = iba::MADHeader::mgmtClass_at(p.mad.data());
  Node& x = nodes[size_t(node)];
  Server* s = nullptr;
  Ev kind = Ev::PmaDone;
  if (cls == iba::mgmt::PERF) {
    s = &x.pma;
  } else if (cls == iba::mgmt::SUBN_ADM && node == sm) {
    s = &sa;
    kind = Ev::SaDone;
  }
  if (!s || x.deaf) {
    drop(pkt, stats.drops_queue, s ? "deaf" : "no-agent", node);
    return;
  }
  p.at = node;
  if (kind == Ev::PmaDone && s->occupancy() + 1 > stats.peak_pma) {
    stats.peak_pma = s->occupancy() + 1;  // (one turned away counts: what arrived at once)
    stats.peak_pma_node = x.desc;
  }
  if (s->full() && kind == Ev::PmaDone && prof.pma_full_drops) {
    drop(pkt, stats.drops_pma, "pma-full", node);
    return;
  }
  if (s->full()) {
    // OpenSM's way: answer at once with BUSY (status bit 0).
    ++stats.busy;
    note("busy", pkt, node);
    iba::MADHeader::set_status_at(p.mad.data(), 0x0001);
    iba::MADHeader::set_method_at(p.mad.data(), uint8_t(iba::MADHeader::method_at(p.mad.data()) | iba::method::RESPONSE));
    send_reply(pkt, node);
    return;
  }
  s->fifo.push_back(pkt);
  if (kind == Ev::SaDone) {
    ++sa_requests;
    if (iba::MADHeader::method_at(p.mad.data()) == iba::method::GET_TABLE) ++sa_tables;
  }
  if (kind == Ev::PmaDone)
    next_job(node);
  else
    start_server(*s, node, kind);
}

void Fabric::Impl::start_server(Server& s, int node, Ev kind) {
  if (s.busy || s.fifo.empty()) return;
  s.busy = true;
  const Packet& p = pkts[s.fifo.front()];
  double us = kind == Ev::SaDone ? prof.sa_service_us : prof.pma_service_us;
  if (kind == Ev::SaDone && iba::MADHeader::method_at(p.mad.data()) == iba::method::GET_TABLE)
    us += prof.sa_record_us * double(max_lid);
  int64_t t = ns(us * nodes[size_t(node)].slow);
  s.svc_ns = t;
  at(now + t, kind, s.fifo.front(), node);
}

void Fabric::Impl::gmp_done(Server& s, int node, Ev kind) {
  uint32_t pkt = s.fifo.front();
  s.fifo.pop_front();
  s.busy = false;
  s.work_ns += s.svc_ns;
  ++stats.gmp_answers;
  Packet& p = pkts[pkt];
  note(kind == Ev::SaDone ? "sa" : "pma", pkt, node);
  if (kind == Ev::SaDone) {
    sa_answer(p);
  } else {
    ++nodes[size_t(node)].pma_visits;
    pma_answer(p, node);
  }
  send_reply(pkt, node);
  if (kind == Ev::PmaDone) {
    pull(node);  // (under pma_on_mp the processor was the PMA's: SMPs may wait)
    next_job(node);
  } else {
    start_server(s, node, kind);
  }
}

// The answer leaves node: a directed-route one back along its trail, a
// LID-routed one to the requester's LID.
void Fabric::Impl::send_reply(uint32_t pkt, int node) {
  Packet& p = pkts[pkt];
  p.response = true;
  if (p.dr) {
    if (p.tail_node >= 0) {
      // Answered at DrDLID: LID-routed back to the switch where the final
      // part began (the request's SLID).
      lid_leg_from(pkt, node, p.port, nodes[size_t(p.tail_node)].lid);
      return;
    }
    // Hop p.hop == p.hops is where it was answered.
    if (p.hop == 0) {
      if (p.head)
        lid_leg_from(pkt, node, p.port, p.dr_slid);  // answered where the LID-routed part ended
      else
        at(now + host_path(), Ev::Deliver, pkt);
      return;
    }
    unsigned out = p.in_port[p.hop];
    --p.hop;
    transmit(pkt, node, out);
    return;
  }
  std::swap(p.slid, p.dlid);
  p.slid = lid_of_port(node, p.port);
  lid_route(pkt, node, p.port, 0);
}

void Fabric::Impl::deliver(uint32_t pkt) {
  Packet& p = pkts[pkt];
  uint64_t tid = iba::MADHeader::transactionID_at(p.mad.data());
  if (prof.kernel_timeouts) {
    auto it = pending.find(tid);
    if (it == pending.end()) {
      // The kernel timed the send out already: nobody takes this reply.
      ++stats.late_replies;
      note("late", pkt, local);
      free_packet(pkt);
      return;
    }
    pending.erase(it);
  }
  ibcore::RecvMad r;
  r.data = p.mad;
  r.len = iba::MAD_SIZE;
  r.agent = int(p.agent);
  r.addr.lid = p.slid;
  r.addr.qpn = p.smp ? 0 : 1;
  if (!p.big.empty()) r.big = std::move(p.big);
  ++stats.replies;
  note("deliver", pkt, local);
  inbox.push_back(std::move(r));
  free_packet(pkt);
}

void Fabric::Impl::kernel_timeout(uint64_t tid, int64_t deadline) {
  auto it = pending.find(tid);
  if (it == pending.end() || it->second.deadline != deadline) return;
  ++stats.kernel_timeouts;
  if (trace) {
    char b[96];
    std::snprintf(b, sizeof b, "%lld kernel-timeout tid=%08x", (long long)(now - kStart), unsigned(tid));
    trace(b);
  }
  inbox.push_back(std::move(it->second.mad));
  pending.erase(it);
}

// The SM's background SMP to switch `node`: it arrives by the port the
// switch routes the SM's LID to, and the next one is due a period later.
void Fabric::Impl::sm_smp(int node) {
  if (now < sm_from) {  // (not begun yet: Fabric::set_sm_from)
    at(now + sm_period, Ev::SmSmp, 0, node);
    return;
  }
  uint32_t i = new_packet();
  Packet& p = pkts[i];
  p.smp = true;
  p.background = true;
  p.role = Role::Answer;
  iba::MADHeader::set_attributeID_at(p.mad.data(), iba::AttrId<iba::SMPPortInfo>::value);
  // The port it arrives by, found once per switch (route() per SMP was
  // most of a big fabric's background cost).
  if (sm_ports.empty()) sm_ports.assign(nodes.size(), -1);
  int& cached = sm_ports[size_t(node)];
  if (cached < 0) cached = int(route(node, sm_lid()));
  unsigned port = unsigned(cached);
  if (port == 0xff) port = 0;
  at(now + sm_period, Ev::SmSmp, 0, node);
  to_processor(i, node, port, port != 0);
}

// --- the agents -------------------------------------------------------------------------

iba::SMPNodeInfo Fabric::Impl::node_info(int n, unsigned in) const {
  // The values ibsim's SMA gives (the test bed's): vendor and device 0,
  // revision 0xa1, partition capacity 8 (switch) or 64.
  const Node& x = nodes[size_t(n)];
  iba::SMPNodeInfo ni;
  ni.set_baseVersion(1).set_classVersion(1).set_nodeType(x.type).set_numPorts(x.nports);
  ni.set_systemImageGUID(x.guid).set_nodeGUID(x.guid).set_portGUID(port_guid(n, x.sw ? 0 : in));
  ni.set_partitionCap(x.sw ? 8 : 64).set_deviceID(0).set_revision(0xa1);
  ni.set_localPortNum(in).set_vendorID(0);
  return ni;
}

iba::SMPPortInfo Fabric::Impl::port_info(int n, unsigned port, unsigned in) const {
  const Node& x = nodes[size_t(n)];
  const Port& pt = x.ports[port];
  const bool mgmt = x.sw ? port == 0 : true;  // a port with the node's LID and SM fields
  const bool up = port == 0 ? true : pt.peer >= 0;
  const unsigned width = port == 0 && x.sw ? x.ports[in ? in : 0].width : pt.width;
  iba::SMPPortInfo pi;
  if (mgmt) {
    pi.set_GIDPrefix(0xfe80000000000000ull).set_LID(lid_of_port(n, port)).set_masterSMLID(sm_lid());
    // IsTrap, IsSLMapping, IsExtendedSpeeds, IsCapabilityMask2 (+ IsSM,
    // IsVendorClass, IsCapabilityMaskNotice on the SM's CA), as ibsim.
    uint32_t cap = 0xc048;
    if (!x.sw && n == sm) cap |= 0x0002 | 0x80000 | 0x400000;
    pi.set_capabilityMask(cap).set_capabilityMask2(0x30);
    pi.set_subnetTimeOut(prof.subnet_timeout).set_respTimeValue(x.sw ? prof.switch_resp_time : prof.ca_resp_time);
    pi.set_GUIDCap(x.sw ? 1 : 32);
  }
  pi.set_localPortNum(in);
  pi.set_linkWidthEnabled(width).set_linkWidthSupported(0x1f).set_linkWidthActive(width);
  pi.set_linkSpeedSupported(7).set_linkSpeedActive(1).set_linkSpeedEnabled(1);
  pi.set_portState(up ? 4 : 1).set_portPhysicalState(up ? 5 : 2).set_linkDownDefaultState(2);
  const bool sw0 = x.sw && port == 0;
  pi.set_neighborMTU(sw0 ? 1 : 4).set_MTUCap(sw0 ? 3 : 4).set_VLCap(4).set_operationalVLs(4);
  pi.set_VLArbitrationHighCap(8).set_VLArbitrationLowCap(8).set_VLStallCount(sw0 ? 0 : 7);
  pi.set_HOQLife(x.sw && port && up ? 16 : 0);
  return pi;
}


namespace {

// A response in place of the request: GetResp (same attribute), status.
void make_response(uint8_t* m, bool dr, uint16_t status) {
  iba::MADHeader::set_method_at(m, uint8_t(iba::method::GET_RESP));
  if (dr) {
    iba::SMPFormatDirected::set_D_at(m, 1);
    iba::SMPFormatDirected::set_status_at(m, status);
  } else {
    iba::MADHeader::set_status_at(m, status);
  }
}

template <class T>
void put(uint8_t* m, const T& v) {
  const iba::ClassDesc* c = iba::find_class(iba::MADHeader::mgmtClass_at(m));
  size_t off = c ? c->data_off : iba::MADHeader::SIZE;
  std::memset(m + off, 0, iba::MAD_SIZE - off);
  std::memcpy(m + off, v.bytes().data(), std::min(v.bytes().size(), iba::MAD_SIZE - off));
}

template <class T>
T get(const uint8_t* m) {
  const iba::ClassDesc* c = iba::find_class(iba::MADHeader::mgmtClass_at(m));
  size_t off = c ? c->data_off : iba::MADHeader::SIZE;
  T v;
  v.load(std::span<const uint8_t>(m + off, std::min(T::SIZE, iba::MAD_SIZE - off)));
  return v;
}

constexpr uint16_t ST_UNSUP_ATTR = 0x000c;   // unsupported method/attribute (bits 2-4 = 3)
constexpr uint16_t ST_BAD_MOD = 0x001c;      // invalid attribute or modifier (bits 2-4 = 7)
constexpr uint16_t SA_NO_RECORDS = 0x0300;   // SA class-specific ERR_NO_RECORDS

}  // namespace

void Fabric::Impl::sma_answer(Packet& p, int node) {
  uint8_t* m = p.mad.data();
  const Node& x = nodes[size_t(node)];
  unsigned in = p.dr && p.tail_node < 0 ? p.in_port[p.hop] : p.port;
  if (x.sw && p.dr && p.hop == 0) in = 0;
  const uint16_t attr = uint16_t(iba::MADHeader::attributeID_at(m));
  const uint32_t mod = uint32_t(iba::MADHeader::attributeModifier_at(m));
  if (iba::MADHeader::method_at(m) != iba::method::GET) {
    make_response(m, p.dr, ST_UNSUP_ATTR);
    return;
  }
  switch (attr) {
    case iba::AttrId<iba::SMPNodeDescription>::value: {
      iba::SMPNodeDescription d;
      d.set_nodeString(x.desc);
      put(m, d);
      break;
    }
    case iba::AttrId<iba::SMPNodeInfo>::value: put(m, node_info(node, in)); break;
    case iba::AttrId<iba::SMPSwitchInfo>::value: {
      if (!x.sw) {
        make_response(m, p.dr, ST_UNSUP_ATTR);
        return;
      }
      // ibsim's switch: 30720 LFT entries, 1024 multicast, life time 18.
      iba::SMPSwitchInfo si;
      si.set_linearFDBCap(30720).set_multicastFDBCap(1024).set_linearFDBTop(max_lid);
      si.set_lifeTimeValue(18).set_partitionEnforcementCap(64).set_filterRawInboundCap(1).set_filterRawOutboundCap(1);
      put(m, si);
      break;
    }
    case iba::AttrId<iba::SMPPortInfo>::value: {
      unsigned port = mod & 0xff;
      if (!x.sw && port == 0) port = in;
      if (port > x.nports) {
        make_response(m, p.dr, ST_BAD_MOD);
        return;
      }
      put(m, port_info(node, port, in));
      break;
    }
    case iba::AttrId<iba::SMPLinearForwardingTable>::value: {
      if (!x.sw || mod * 64 > 30720) {
        make_response(m, p.dr, x.sw ? ST_BAD_MOD : ST_UNSUP_ATTR);
        return;
      }
      iba::SMPLinearForwardingTable t;
      const auto& lft = lft_of(node);
      for (unsigned i = 0; i < 64; ++i) {
        unsigned l = mod * 64 + i;
        t.set_portBlock(i, l <= max_lid ? lft[l] : 0xff);
      }
      put(m, t);
      break;
    }
    case iba::AttrId<iba::SMPMulticastForwardingTable>::value: {
      if (!x.sw) {
        make_response(m, p.dr, ST_UNSUP_ATTR);
        return;
      }
      put(m, iba::SMPMulticastForwardingTable{});  // no multicast groups
      break;
    }
    case iba::AttrId<iba::SMPGUIDInfo>::value: {
      iba::SMPGUIDInfo g;
      if (mod == 0) g.set_GUID0(port_guid(node, x.sw ? 0 : in));
      put(m, g);
      break;
    }
    case iba::AttrId<iba::SMPPKeyTable>::value: {
      iba::SMPPKeyTable t;
      if (mod == 0) t.set_PKeyBlock(0, 0xffff);
      put(m, t);
      break;
    }
    default: make_response(m, p.dr, ST_UNSUP_ATTR); return;
  }
  make_response(m, p.dr, 0);
}

namespace {
// A port's VL15Dropped as its PMA counts it; sel 0xff (AllPortSelect): the
// sum over the node's ports.
uint64_t vl15_dropped(const Node& x, unsigned sel) {
  if (sel != 0xff) return x.ports[sel].vl15_dropped;
  uint64_t n = 0;
  for (unsigned i = 0; i <= x.nports; ++i) n += x.ports[i].vl15_dropped;
  return n;
}
}  // namespace

void Fabric::Impl::pma_answer(Packet& p, int node) {
  uint8_t* m = p.mad.data();
  const Node& x = nodes[size_t(node)];
  const uint16_t attr = uint16_t(iba::MADHeader::attributeID_at(m));
  const uint8_t method = uint8_t(iba::MADHeader::method_at(m));
  switch (attr) {
    case iba::AttrId<iba::MADClassPortInfo>::value: {
      // ibsim's PMA: AllPortSelect (switches), extended 64-bit counters,
      // PortXmitWait.
      iba::MADClassPortInfo c;
      c.set_baseVersion(1).set_classVersion(1).set_capabilityMask(x.sw ? 0x1300 : 0x1200);
      c.set_respTimeValue(prof.pma_resp_time);
      put(m, c);
      break;
    }
    case iba::AttrId<iba::PMPortCounters>::value: {
      auto q = get<iba::PMPortCounters>(m);
      unsigned sel = unsigned(q.portSelect());
      iba::PMPortCounters r;
      r.set_portSelect(sel).set_counterSelect(q.counterSelect());
      if (sel != 0xff && sel > x.nports) {
        make_response(m, false, ST_BAD_MOD);
        return;
      }
      r.set_VL15Dropped(std::min<uint64_t>(vl15_dropped(x, sel), 0xffff));
      put(m, r);
      break;
    }
    case iba::AttrId<iba::PMPortCountersExtended>::value: {
      auto q = get<iba::PMPortCountersExtended>(m);
      unsigned sel = unsigned(q.portSelect());
      if (sel != 0xff && sel > x.nports) {
        make_response(m, false, ST_BAD_MOD);
        return;
      }
      iba::PMPortCountersExtended r;
      r.set_portSelect(sel).set_counterSelect(q.counterSelect());
      r.set_VL15Dropped(vl15_dropped(x, sel));
      put(m, r);
      break;
    }
    default: make_response(m, false, ST_UNSUP_ATTR); return;
  }
  (void)method;
  make_response(m, false, 0);
}

iba::SAPathRecord Fabric::Impl::path_record(int sn, unsigned sp, int dn, unsigned dp) const {
  iba::SAPathRecord r;
  r.set_DGID(iba::Gid::from(0xfe80000000000000ull, port_guid(dn, dp)));
  r.set_SGID(iba::Gid::from(0xfe80000000000000ull, port_guid(sn, sp)));
  r.set_DLID(lid_of_port(dn, dp)).set_SLID(lid_of_port(sn, sp));
  r.set_reversible(1).set_PKey(0xffff).set_SL(0);
  // 2048-byte MTU, 10 Gb/s (4x SDR), OpenSM's packet life time 18 ("exactly" selectors).
  r.set_MTUSelector(2).set_MTU(4).set_rateSelector(2).set_rate(3);
  r.set_packetLifeTimeSelector(2).set_packetLifeTime(18);
  return r;
}

void Fabric::Impl::sa_answer(Packet& p) {
  uint8_t* m = p.mad.data();
  const uint16_t attr = uint16_t(iba::MADHeader::attributeID_at(m));
  const uint8_t method = uint8_t(iba::MADHeader::method_at(m));
  const uint64_t mask = iba::SAFormat::componentMask_at(m);
  std::vector<std::vector<uint8_t>> recs;
  size_t rec_size = 0;
  auto has = [&](const iba::StructDesc& d, const char* f) { return (mask & iba::component_mask(d, f)) != 0; };
  // The end port of a (LID, GID) pair in a query; false when the query
  // names one that does not exist or the two disagree.
  auto find_port = [&](bool by_lid, uint16_t l, bool by_gid, const iba::Gid& g, int& n, unsigned& pt) {
    if (by_lid) {
      if (!owner(l, n, pt)) return false;
      if (by_gid && g.guid() != port_guid(n, pt)) return false;
      return true;
    }
    if (by_gid) {
      for (uint16_t x = 1; x <= max_lid; ++x)
        if (port_guid(lid_owner[x].first, lid_owner[x].second) == g.guid()) {
          n = lid_owner[x].first;
          pt = lid_owner[x].second;
          return true;
        }
      return false;
    }
    return false;
  };
  if (attr == iba::AttrId<iba::SAPathRecord>::value) {
    const auto& D = iba::SAPathRecord::DESC;
    auto q = get<iba::SAPathRecord>(m);
    int sn = local, dn = -1;
    unsigned sp = local_port, dp = 0;
    bool src = has(D, "SLID") || has(D, "SGID");
    if (src && !find_port(has(D, "SLID"), uint16_t(q.SLID()), has(D, "SGID"), q.SGID(), sn, sp)) sn = -1;
    rec_size = iba::SAPathRecord::SIZE;
    if (sn >= 0) {
      if (has(D, "DLID") || has(D, "DGID")) {
        if (find_port(has(D, "DLID"), uint16_t(q.DLID()), has(D, "DGID"), q.DGID(), dn, dp)) {
          auto r = path_record(sn, sp, dn, dp);
          recs.emplace_back(r.bytes().begin(), r.bytes().end());
        }
      } else {
        for (uint16_t l = 1; l <= max_lid; ++l) {
          auto r = path_record(sn, sp, lid_owner[l].first, lid_owner[l].second);
          recs.emplace_back(r.bytes().begin(), r.bytes().end());
        }
      }
    }
  } else if (attr == iba::AttrId<iba::SANodeRecord>::value) {
    const auto& D = iba::SANodeRecord::DESC;
    auto q = get<iba::SANodeRecord>(m);
    rec_size = iba::SANodeRecord::SIZE;
    for (uint16_t l = 1; l <= max_lid; ++l) {
      if (has(D, "LID") && q.LID() != l) continue;
      auto [n, pt] = lid_owner[stale_sa ? l % max_lid + 1 : l];
      if (has(D, "nodeInfo.nodeType") && q.nodeInfo().nodeType() != (nodes[size_t(n)].sw ? 2u : 1u)) continue;
      iba::SANodeRecord r;
      r.set_LID(l).set_nodeInfo(node_info(n, pt));
      iba::SMPNodeDescription d;
      d.set_nodeString(nodes[size_t(n)].desc);
      r.set_nodeDescription(d);
      recs.emplace_back(r.bytes().begin(), r.bytes().end());
    }
  } else if (attr == iba::AttrId<iba::SAPortInfoRecord>::value) {
    const auto& D = iba::SAPortInfoRecord::DESC;
    auto q = get<iba::SAPortInfoRecord>(m);
    rec_size = iba::SAPortInfoRecord::SIZE;
    for (uint16_t l = 1; l <= max_lid; ++l) {
      if (has(D, "endportLID") && q.endportLID() != l) continue;
      auto [n, pt] = lid_owner[l];
      const Node& x = nodes[size_t(n)];
      for (unsigned port = x.sw ? 0 : pt; port <= (x.sw ? x.nports : pt); ++port) {
        if (has(D, "portNum") && q.portNum() != port) continue;
        iba::SAPortInfoRecord r;
        r.set_endportLID(l).set_portNum(port).set_portInfo(port_info(n, port, x.sw ? 0 : pt));
        recs.emplace_back(r.bytes().begin(), r.bytes().end());
      }
    }
  } else if (attr == iba::AttrId<iba::SALinkRecord>::value) {
    // Every link once from each end, by the LIDs the SM gave (a switch's
    // is its port 0's); FromLID and FromPort honoured when masked.
    const auto& D = iba::SALinkRecord::DESC;
    auto q = get<iba::SALinkRecord>(m);
    rec_size = iba::SALinkRecord::SIZE;
    for (size_t n = 0; n < nodes.size(); ++n) {
      const Node& x = nodes[n];
      for (unsigned port = 1; port <= x.nports; ++port) {
        const Port& pt = x.ports[port];
        if (pt.peer < 0) continue;
        const uint16_t from = lid_of_port(int(n), port);
        uint16_t to = lid_of_port(pt.peer, pt.peer_port);
        if (!from || !to) continue;
        if (stale_sa) to = uint16_t(to % max_lid + 1);
        if (has(D, "fromLID") && q.fromLID() != from) continue;
        if (has(D, "fromPort") && q.fromPort() != port) continue;
        iba::SALinkRecord r;
        r.set_fromLID(from).set_fromPort(port).set_toPort(pt.peer_port).set_toLID(to);
        recs.emplace_back(r.bytes().begin(), r.bytes().end());
      }
    }
  } else {
    make_response(m, false, ST_UNSUP_ATTR);
    return;
  }
  const size_t data_off = iba::find_class(iba::mgmt::SUBN_ADM)->data_off;
  std::memset(m + data_off, 0, iba::MAD_SIZE - data_off);
  const size_t stride = (rec_size + 7) / 8 * 8;
  iba::SAFormat::set_attributeOffset_at(m, stride / 8);
  if (method == iba::method::GET) {
    if (recs.empty()) {
      make_response(m, false, SA_NO_RECORDS);
      return;
    }
    std::memcpy(m + data_off, recs[0].data(), std::min(recs[0].size(), iba::MAD_SIZE - data_off));
    make_response(m, false, 0);
    return;
  }
  if (method != iba::method::GET_TABLE) {
    make_response(m, false, ST_UNSUP_ATTR);
    return;
  }
  iba::MADHeader::set_method_at(m, uint8_t(iba::method::GET_TABLE_RESP));
  iba::MADHeader::set_status_at(m, 0);
  // RMPP header: one message; its PayloadLength counts every record.
  const uint32_t paylen = uint32_t(20 + recs.size() * stride);
  uint8_t* rmpp = m + iba::MADHeader::SIZE;
  iba::RMPPHeader::set_RMPPVersion_at(rmpp, 1);
  iba::RMPPHeader::set_RMPPType_at(rmpp, 1);  // DATA
  iba::RMPPHeader::set_data1_at(rmpp, 1);     // segment 1
  iba::RMPPHeader::set_data2_at(rmpp, paylen);
  const size_t room = (iba::MAD_SIZE - data_off) / stride;
  for (size_t i = 0; i < recs.size() && i < room; ++i)
    std::memcpy(m + data_off + i * stride, recs[i].data(), recs[i].size());
  if (prof.sa_rmpp) {
    iba::RMPPHeader::set_RMPPFlags_at(rmpp, 0x1 | 0x2 | 0x4);  // active, first, last
  } else {
    // The test bed (OpenSM's first RMPP segment through umad2sim, seen
    // with ibtool -dd): RMPP active, no first/last flag, PayloadLength 0,
    // and only the first 224 bytes of the MAD are the SA's (a PathRecord
    // table holds two whole records and the start of a third, whose LIDs
    // read 0), however few records the table has.
    iba::RMPPHeader::set_RMPPFlags_at(rmpp, 0x1);
    iba::RMPPHeader::set_data1_at(rmpp, 0);
    iba::RMPPHeader::set_data2_at(rmpp, 0);
    iba::RMPPHeader::set_RMPPVersion_at(rmpp, 0);
    iba::RMPPHeader::set_RMPPType_at(rmpp, 0);
    constexpr size_t kTestBedMadBytes = 224;  // observed, not an IBA offset
    std::memset(m + kTestBedMadBytes, 0, iba::MAD_SIZE - kTestBedMadBytes);
  }
  if (prof.sa_rmpp && recs.size() > room) {
    p.big.assign(m, m + data_off);
    for (const auto& r : recs) {
      p.big.insert(p.big.end(), r.begin(), r.end());
      p.big.resize(p.big.size() + (stride - r.size()), 0);
    }
  }
}

// --- Fabric ------------------------------------------------------------------------------

Fabric::Fabric(const std::string& net_text, const Profile& p) : impl_(std::make_unique<Impl>()) {
  Impl& f = *impl_;
  f.prof = p;
  f.net = net_text;
  f.parse(net_text);
  f.assign_lids();
  for (auto& n : f.nodes) {
    n.mp.name = "SMA " + n.desc;
    n.mp.cap = n.sw ? p.sma_queue : p.hca_queue;
    n.pma.name = "PMA " + n.desc;
    n.pma.cap = p.pma_queue;
  }
  f.sa.name = "SA";
  f.sa.cap = p.sa_queue;
  if (p.sm_smps_per_s > 0) {
    // Every switch's first one at an even offset within the period.
    f.sm_period = std::max<int64_t>(1, int64_t(1e9 / p.sm_smps_per_s + 0.5));
    const int64_t n = int64_t(f.switches.size());
    for (int64_t k = 0; k < n; ++k) f.at(f.now + f.sm_period * k / n, Ev::SmSmp, 0, f.switches[size_t(k)]);
  }
  f.port = std::make_unique<ModelPort>(f);
  f.port->settings().outstanding = 0;
}

Fabric::~Fabric() = default;

ibcore::Transport& Fabric::port() { return *impl_->port; }

const Stats& Fabric::stats() const {
  Impl& f = *impl_;
  int64_t best = f.sa.work_ns;
  std::string who = f.sa.name;
  if (f.host_work > best) best = f.host_work, who = "the host";
  for (const auto& n : f.nodes) {
    if (f.prof.pma_on_mp) {
      if (n.mp.work_ns + n.pma.work_ns > best) best = n.mp.work_ns + n.pma.work_ns, who = n.mp.name + " and its PMA";
      continue;
    }
    if (n.mp.work_ns > best) best = n.mp.work_ns, who = n.mp.name;
    if (n.pma.work_ns > best) best = n.pma.work_ns, who = n.pma.name;
  }
  f.stats.busiest_resource_s = double(best) * 1e-9;
  f.stats.busiest_resource = best ? who : "";
  return f.stats;
}

const Profile& Fabric::profile() const { return impl_->prof; }
bool& Fabric::stale_sa() { return impl_->stale_sa; }
ProcessorOrder& Fabric::order() { return impl_->order; }
void Fabric::trace_if(const char* var) {
  if (const char* t = std::getenv(var); t && *t == '1')
    set_trace([](const std::string& l) { std::fprintf(stderr, "%s\n", l.c_str()); });
}
Clock::time_point Fabric::now() const { return impl_->port->now(); }
double Fabric::seconds() const { return double(impl_->now - kStart) * 1e-9; }
size_t Fabric::node_count() const { return impl_->nodes.size(); }
int Fabric::node_by_desc(const std::string& d) const {
  auto it = impl_->by_desc.find(d);
  return it == impl_->by_desc.end() ? -1 : it->second;
}
const std::string& Fabric::desc(int n) const { return impl_->nodes.at(size_t(n)).desc; }
bool Fabric::is_switch(int n) const { return impl_->nodes.at(size_t(n)).sw; }
uint16_t Fabric::lid(int n, unsigned port) const {
  const Node& x = impl_->nodes.at(size_t(n));
  return x.sw ? x.lid : port <= x.nports ? x.ports[port].lid : 0;
}
int Fabric::local_node() const { return impl_->local; }
int Fabric::sm_node() const { return impl_->sm; }
unsigned Fabric::depth() const { return impl_->depth; }
int Fabric::hops_to(int n) const { return impl_->hops_from_local.at(size_t(n)); }
uint8_t Fabric::route(int sw, uint16_t lid) const {
  if (!impl_->nodes.at(size_t(sw)).sw) return 0xff;
  return impl_->route(sw, lid);
}
unsigned Fabric::peak_held(int n) const { return impl_->nodes.at(size_t(n)).peak; }
unsigned Fabric::peak_own(int n) const { return impl_->nodes.at(size_t(n)).peak_own; }

namespace {
// The host's own path both ways (its latency and its server), us: every
// round trip of the bounds starts with it.
double host_trip_us(const Profile& p) { return 2 * (p.host_latency_us + p.host_service_us); }
// The fastest answer an SMA gives (a switch's or a CA's), us: what the
// bounds charge the node at the end of a round trip to a depth.
double least_answer_us(const Profile& p) { return std::min(p.sma_service_us, p.hca_service_us); }
// An SMP's round trip by LID to a node h hops away in an empty fabric,
// answered at least_answer_us, us: no SMI on the way.
double lid_trip_us(const Profile& p, unsigned h) {
  return host_trip_us(p) + 2 * h * p.hop_latency_us + least_answer_us(p);
}
}  // namespace

double Fabric::dr_round_trip_s(unsigned h) const {
  const Profile& p = impl_->prof;
  const double host_us = host_trip_us(p);
  if (h == 0) return (host_us + p.hca_service_us) * 1e-6;
  double us = host_us + 2 * h * p.hop_latency_us + 2 * (h - 1) * p.smi_forward_us + least_answer_us(p);
  return us * 1e-6;
}

double Fabric::critical_path_s() const {
  double s = 0;
  for (unsigned h = 1; h <= depth(); ++h) s += dr_round_trip_s(h);
  return s;
}

double Fabric::work_bound_s() const { return std::max(stats().busiest_resource_s, critical_path_s()); }

Fabric::Demand Fabric::demand() const {
  const Impl& f = *impl_;
  Demand d;
  for (const auto& n : f.nodes) {
    d.smi.push_back(n.smi_visits);
    d.sma.push_back(n.sma_visits);
    d.pma.push_back(n.pma_visits);
    d.probes.push_back(n.probes_out);
  }
  d.sa_requests = f.sa_requests;
  d.sa_tables = f.sa_tables;
  d.host = f.host_visits;
  return d;
}

namespace {
// Node i's own time (us) for demand d: its processor's (its SMI visits, or
// with unavoidable only 2 per probe of its ports, and its SMA's answers;
// its PMA's too under pma_on_mp) over the share the SM leaves it, or its
// PMA's, whichever is longer.
double node_work_us(const Fabric::Impl& f, const Fabric::Demand& d, size_t i, bool unavoidable) {
  const Profile& p = f.prof;
  const Node& x = f.nodes[i];
  const double forwards = unavoidable ? 2.0 * double(i < d.probes.size() ? d.probes[i] : 0) : double(d.smi[i]);
  double mp =
      (forwards * p.smi_forward_us + double(d.sma[i]) * (x.sw ? p.sma_service_us : p.hca_service_us)) * x.slow;
  double pma = double(d.pma[i]) * p.pma_service_us * x.slow;
  if (p.pma_on_mp) mp += pma, pma = 0;
  // The SM's share of a switch's processor (its SMPs are answers).
  const double rho = x.sw ? p.sm_smps_per_s * p.sma_service_us * x.slow * 1e-6 : 0;
  if (mp > 0) mp = rho < 1 ? mp / (1 - rho) : std::numeric_limits<double>::infinity();
  return std::max(mp, pma);
}

// The busiest resource's time (us) for demand d: a node's (node_work_us),
// the SA, the host's server.
double busiest_us(const Fabric::Impl& f, const Fabric::Demand& d, bool unavoidable) {
  const Profile& p = f.prof;
  double best_us = 0;
  for (size_t i = 0; i < f.nodes.size() && i < d.sma.size(); ++i)
    best_us = std::max(best_us, node_work_us(f, d, i, unavoidable));
  best_us = std::max(best_us, double(d.sa_requests) * p.sa_service_us +
                                  double(d.sa_tables) * p.sa_record_us * double(f.max_lid));
  return std::max(best_us, double(d.host) * p.host_service_us);
}

// A node's own time cannot start before the node is reached (us): a node
// h hops away gets its first MAD no sooner than the levels 1 .. h-1
// (level_s: what the walk needs at a depth before it can go on, the
// route form's round trip there for bound_s and phys_s, critical_path_s's
// reasoning; more for walk_s) and its way there (rt_s: the round trip);
// its last answer comes back its way later.  The largest over the nodes
// of that path plus node_work_us: a slow CA at the deepest level answers
// all of its queries after the walk reached it, where the critical path
// charges it one answer at the fastest SMA's pace and the busiest term
// none of the way.
template <class Rt, class Level>
double reached_work_us(const Fabric::Impl& f, const Fabric::Demand& d, bool unavoidable, unsigned depth, Rt rt_s,
                       Level level_s) {
  const Profile& p = f.prof;
  std::vector<double> before(depth + 2, 0.0);  // before[h]: the levels 1 .. h-1, us
  for (unsigned h = 2; h <= depth + 1; ++h) before[h] = before[h - 1] + level_s(h - 1) * 1e6;
  const double answer_us = least_answer_us(p);
  double best_us = 0;
  for (size_t i = 0; i < f.nodes.size() && i < d.sma.size(); ++i) {
    const int h = f.hops_from_local[i];
    if (h < 0 || unsigned(h) > depth) continue;
    const double work = node_work_us(f, d, i, unavoidable);
    if (work <= 0) continue;
    const double way = h == 0 ? host_trip_us(p) : rt_s(unsigned(h)) * 1e6 - answer_us;
    best_us = std::max(best_us, before[size_t(h)] + way + work);
  }
  return best_us;
}
}  // namespace

namespace {
// The window's work (us) for demand d and mads MADs: the time each MAD
// holds its place in the window at the least, its class's least round trip
// in an empty fabric to where it goes (the host's path both ways, the link
// hops both ways, the server that answers it): an SMP to a node's SMA (by
// LID, the cheapest route form), a PM GMP to its PMA, an SA request to the
// SA (a GetTable with its records).  The local node's own SMPs are left
// out: the engine may send them in a slot of their own, outside the window
// (MadEngine::send_local_smp).  A probe (a NodeInfo through a switch's
// port, to a node not known yet) is charged besides its answer the 2
// forwards every route form gets it from that switch's SMI, as the
// busiest term charges them.  MADs the demand does not place (none in a
// complete run) are charged the shortest SMP's round trip.
double window_us(const Fabric::Impl& f, const Fabric::Demand& d, uint64_t mads) {
  const Profile& p = f.prof;
  const double host_us = host_trip_us(p);
  auto trip_us = [&](size_t n, double service_us) {
    return host_us + 2 * double(std::max(f.hops_from_local[n], 0)) * p.hop_latency_us + service_us * f.nodes[n].slow;
  };
  double us = 0;
  uint64_t placed = 0;
  for (size_t i = 0; i < f.nodes.size() && i < d.sma.size() && i < d.pma.size(); ++i) {
    if (int(i) != f.local)
      us += double(d.sma[i]) * trip_us(i, f.nodes[i].sw ? p.sma_service_us : p.hca_service_us);
    us += double(d.pma[i]) * trip_us(i, p.pma_service_us);
    // A probe out of a switch's port (d.probes) is forwarded by that
    // switch's SMI out and back under any route form (the least: a one-hop
    // directed tail), on top of the answer its node's SMA gives (in d.sma).
    if (f.nodes[i].sw && i < d.probes.size()) us += double(d.probes[i]) * 2 * p.smi_forward_us * f.nodes[i].slow;
    placed += d.sma[i] + d.pma[i];
  }
  us += double(d.sa_requests) * (host_us + 2 * double(std::max(f.hops_from_local[size_t(f.sm)], 0)) * p.hop_latency_us +
                                 p.sa_service_us) +
        double(d.sa_tables) * p.sa_record_us * double(f.max_lid);
  placed += d.sa_requests;
  const double shortest_us = std::min(host_us + p.hca_service_us, lid_trip_us(p, 1));
  if (mads > placed) us += double(mads - placed) * shortest_us;
  return us;
}
}  // namespace

double Fabric::bound_s(const Demand& d) const {
  const auto rt = [&](unsigned h) { return dr_round_trip_s(h); };
  const double reached = reached_work_us(*impl_, d, false, depth(), rt, rt);
  return std::max({busiest_us(*impl_, d, false) * 1e-6, critical_path_s(), reached * 1e-6});
}

double Fabric::probe_round_trip_s(unsigned h) const {
  if (h <= 1) return dr_round_trip_s(h);
  const Profile& p = impl_->prof;
  return (lid_trip_us(p, h) + 2 * p.smi_forward_us) * 1e-6;
}

double Fabric::phys_s(const Demand& d, uint64_t mads, unsigned window) const {
  const Impl& f = *impl_;
  const double best_us = busiest_us(f, d, true);
  double path = 0;
  for (unsigned h = 1; h <= depth(); ++h) path += probe_round_trip_s(h);
  const auto rt = [&](unsigned h) { return probe_round_trip_s(h); };
  const double reached = reached_work_us(f, d, true, depth(), rt, rt);
  return std::max({best_us * 1e-6, path, reached * 1e-6, window ? window_us(f, d, mads) / double(window) * 1e-6 : 0});
}

double Fabric::walk_s(const Demand& d, uint64_t mads, unsigned window) const {
  const Profile& p = impl_->prof;
  const auto rt = [&](unsigned h) { return probe_round_trip_s(h); };
  // A level: the probe that finds a node h hops away, then the PortInfo
  // by LID that shows the port the walk leaves it by is up.
  const auto level = [&](unsigned h) {
    return probe_round_trip_s(h) + lid_trip_us(p, h) * 1e-6;
  };
  double path = 0;
  for (unsigned h = 1; h < depth(); ++h) path += level(h);
  if (depth()) path += rt(depth());
  const double reached = reached_work_us(*impl_, d, true, depth(), rt, level);
  return std::max({phys_s(d, mads, window), path, reached * 1e-6});
}

const std::string& Fabric::net_text() const { return impl_->net; }

uint64_t Fabric::smi_visits(int n) const { return impl_->nodes.at(size_t(n)).smi_visits; }
uint64_t Fabric::sma_visits(int n) const { return impl_->nodes.at(size_t(n)).sma_visits; }
uint64_t Fabric::pma_visits(int n) const { return impl_->nodes.at(size_t(n)).pma_visits; }
uint64_t Fabric::vl15_drops(int n, unsigned port) const {
  return impl_->nodes.at(size_t(n)).ports.at(port).vl15_dropped;
}
void Fabric::set_vl15_depth(int n, unsigned port, unsigned depth) {
  impl_->nodes.at(size_t(n)).ports.at(port).depth = depth;
}
void Fabric::set_vl15_dropped(int n, unsigned port, uint64_t count) {
  impl_->nodes.at(size_t(n)).ports.at(port).vl15_dropped = count;
}
void Fabric::set_deaf(int n, bool deaf) { impl_->nodes.at(size_t(n)).deaf = deaf; }
void Fabric::set_slow(int n, double factor) { impl_->nodes.at(size_t(n)).slow = factor; }
void Fabric::set_sm_from(double at_s) { impl_->sm_from = int64_t(at_s * 1e9); }
void Fabric::set_drop_hybrid(bool on) { impl_->drop_hybrid = on; }
void Fabric::set_loss_every(unsigned n) {
  impl_->loss_every = n;
  impl_->loss_count = 0;
}
void Fabric::set_trace(std::function<void(const std::string&)> f) { impl_->trace = std::move(f); }

}  // namespace ibmodel
