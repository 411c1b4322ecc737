// The report's data: discovery with the PM reads started ahead, the
// counter scan as ibqueryerrors makes it, the link checks, the SM.
#include "core/report/report.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/base/error.h"
#include "core/fabric/discovery.h"
#include "core/fabric/obtain.h"
#include "core/health/pmaccess.h"
#include "core/health/pmscrape.h"
#include "core/health/scan.h"
#include "core/rpc/sched.h"
#include "iba/enums.h"
#include "iba/smp.h"

namespace ibcore::reporting {

namespace H = ibcore::health;

const char* status_name(LinkStatus s) {
  switch (s) {
    case LinkStatus::Ok: return "ok";
    case LinkStatus::Errors: return "errors";
    case LinkStatus::Degraded: return "degraded";
    case LinkStatus::Down: return "down";
  }
  return "ok";
}

namespace {

// The counter scan of every node, as ibqueryerrors makes it (the fabric
// counter scan's ErrorScan, core/health/scan.h): its rows become each
// port's counters and the nodes that did not answer.
class Scan : public H::ErrorSink {
public:
  Scan(H::PmAccess& pm, Data& d) : scan_(pm, options(d)), d_(d) {}

  // The fabric discovered live, each node's first PM reads made while the
  // walk goes on (ErrorScan::obtain).
  void obtain(const Config& cfg, const ObtainOptions& o, Subnet& db) { scan_.obtain(cfg, o, db); }

  // Every node of d.db, into d.counters and d.scan.
  void run() {
    const Subnet& db = d_.db;
    d_.counters.assign(db.port_slots(), {});
    std::vector<uint32_t> nodes = db.reference_order(NodeType::Unknown);
    for (const H::NodeScan& n : scan_.run(db, nodes, *this)) {
      d_.scan.bad_nodes += n.bad;
      d_.scan.ports_checked += n.ports_checked;
      d_.scan.bad_ports += n.bad_ports;
      d_.scan.pma_failures += n.pma_failures;
    }
    d_.scan.nodes_checked = unsigned(nodes.size());
  }

  void pma_failed(uint32_t node, uint16_t, const H::PmaCaps& got) override {
    failed_node(node, "PMA: ClassPortInfo: " + H::last_layer(got.error));
  }
  void row(const H::ErrorRow& r) override {
    const Subnet& db = d_.db;
    const Node& n = db.node(r.node);
    if (r.port == 0xff) {
      // Every port's error counters are zero when their sum is.
      if (r.failed == H::ErrorRow::Failed::None && !r.over && H::pc_errors_zero(r.pc))
        for (unsigned p = 1; p <= n.nports; ++p) d_.counters[db.port_index(r.node, p)].known = true;
      return;
    }
    const uint32_t slot = db.port_index(r.node, r.port);
    PortCounters& c = d_.counters[slot];
    if (r.failed != H::ErrorRow::Failed::None) {
      c.failed = true;
      if (!r.caps_failed) failed_node(r.node, "PMA: port " + std::to_string(r.port) + ": " + H::last_layer(r.error));
      return;
    }
    c.known = true;
    for (int i = 0; i < H::N_ERR; ++i) c.err[i] = H::error_value(r.pc, *r.caps, i);
    c.over = r.over;
  }

private:
  static H::ErrorScanOptions options(const Data& d) {
    H::ErrorScanOptions o;
    o.thr = &d.thr;
    o.map = &d.map;
    return o;
  }
  void failed_node(uint32_t ni, std::string why) {
    if (failed_.insert(ni).second) d_.unanswered.push_back({ni, std::move(why)});
  }

  H::ErrorScan scan_;
  Data& d_;
  std::unordered_set<uint32_t> failed_;
};

// The master SM's SMInfo, at the local port's MasterSMLID.
Task<> read_sm(Scheduler& s, uint16_t lid, SmData& out) {
  out.lid = lid;
  if (!lid) {
    out.error = "the local port knows no SM";
    co_return;
  }
  IBPath p;
  p.DLID = lid;
  try {
    iba::SMPSMInfo info = co_await s.SubnGet<iba::SMPSMInfo>(p);
    out.ok = true;
    out.guid = info.GUID();
    out.priority = unsigned(info.priority());
    out.state = unsigned(info.SMState());
    out.act_count = unsigned(info.actCount());
  } catch (const std::exception& e) {
    out.error = e.what();
  }
}

void join(std::string& a, const std::string& b) {
  if (b.empty()) return;
  if (!a.empty()) a += "; ";
  a += b;
}

}  // namespace

void analyse(Data& d) {
  const Subnet& db = d.db;
  d.order.resize(db.node_count());
  for (uint32_t i = 0; i < db.node_count(); ++i) d.order[i] = i;
  std::sort(d.order.begin(), d.order.end(), [&](uint32_t a, uint32_t b) { return db.node(a).guid < db.node(b).guid; });
  d.id.assign(db.node_count(), 0);
  for (uint32_t k = 0; k < d.order.size(); ++k) d.id[d.order[k]] = k;
  // Each link once, from its end first in the document's order.
  auto key = [&](uint32_t slot) { return std::pair<uint32_t, unsigned>(d.id[db.port(slot).node], db.port(slot).num); };
  d.links.clear();
  for (uint32_t i = 0; i < db.port_slots(); ++i) {
    const Port& p = db.port(i);
    if (p.peer != NO_INDEX && key(i) < key(p.peer)) d.links.push_back({i, p.peer});
  }
  std::sort(d.links.begin(), d.links.end(), [&](const Link& x, const Link& y) { return key(x.a) < key(y.a); });
  if (d.counters.size() != db.port_slots()) d.counters.resize(db.port_slots());
  // The checks, per port as ibcheckstate / ibcheckwidth / ibchecknet
  // check them: state at every connected port, width and speed once a
  // link (from its lower slot).
  d.findings.clear();
  std::unordered_map<uint32_t, size_t> link_of;  // port slot -> link
  for (size_t k = 0; k < d.links.size(); ++k) link_of[d.links[k].a] = link_of[d.links[k].b] = k;
  d.link_status.assign(d.links.size(), LinkStatus::Ok);
  d.link_why.assign(d.links.size(), {});
  auto mark = [&](uint32_t slot, LinkStatus s, const std::string& why) {
    auto it = link_of.find(slot);
    if (it == link_of.end()) return;
    if (s > d.link_status[it->second]) d.link_status[it->second] = s;
    join(d.link_why[it->second], why);
  };
  std::vector<uint32_t> order = db.reference_order(NodeType::Unknown);
  std::reverse(order.begin(), order.end());  // discovery order, as ibcheck*
  for (uint32_t ni : order) {
    const Node& n = db.node(ni);
    for (unsigned p = 1; p <= n.nports; ++p) {
      const Port& x = db.port(n, p);
      if (!x.exists || !x.has_info || (x.peer == NO_INDEX && x.phys_state() != PHYS_LINKUP)) continue;
      uint32_t slot = db.port_index(ni, p);
      for (auto& f : H::check_port_state(db, ni, p)) {
        mark(slot, LinkStatus::Down, f.what);
        d.findings.push_back(std::move(f));
      }
      if (x.peer != NO_INDEX && key(x.peer) < key(slot)) continue;  // (from one end)
      for (auto& f : H::check_port_width(db, ni, p)) {
        mark(slot, LinkStatus::Degraded, f.what);
        d.findings.push_back(std::move(f));
      }
      for (auto& f : H::check_port_speed(db, ni, p)) {
        mark(slot, LinkStatus::Degraded, f.what);
        d.findings.push_back(std::move(f));
      }
    }
  }
  for (size_t k = 0; k < d.links.size(); ++k)
    for (uint32_t slot : {d.links[k].a, d.links[k].b})
      if (d.counters[slot].over && d.link_status[k] < LinkStatus::Errors) d.link_status[k] = LinkStatus::Errors;
}

Data gather(const Config& cfg, const GatherOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  Data d;
  if (!d.thr.load(o.thresholds_file) && o.thresholds_file != H::DEFAULT_THRESHOLDS)
    throw Error("Cannot read thresholds file " + o.thresholds_file);
  d.map = NodeNameMap::open(cfg.node_name_map);
  H::PmSession ses(cfg, false, true);
  Scan scan(ses.pm(), d);
  ObtainOptions oo;
  oo.discovery.mlx_epi = cfg.mlx_epi;
  oo.use_config_cache = false;  // (always live)
  DiscoveryResult res;
  oo.result = &res;
  scan.obtain(cfg, oo, d.db);
  d.discovery_errors = unsigned(res.errors.size());
  for (const std::string& e : res.errors) d.unanswered.push_back({NO_INDEX, e});
  scan.run();
  // The SM the local port names.
  uint16_t sm_lid = 0;
  if (d.db.from_node != NO_INDEX) {
    const Node& me = d.db.node(d.db.from_node);
    const Port& lp = d.db.port(me, d.db.from_port);
    if (lp.has_info) sm_lid = uint16_t(lp.port_info().masterSMLID());
  }
  ses.sched().spawn(read_sm(ses.sched(), sm_lid, d.sm));
  ses.sched().run();
  analyse(d);
  // (the scan's nodes answer in any order: the document's order)
  std::stable_sort(d.unanswered.begin(), d.unanswered.end(), [&](const Unanswered& a, const Unanswered& b) {
    uint32_t x = a.node == NO_INDEX ? NO_INDEX : d.id[a.node], y = b.node == NO_INDEX ? NO_INDEX : d.id[b.node];
    return x != y ? x < y : a.what < b.what;
  });
  const FlowStats f = ses.sched().engine().flow_stats();
  d.mads = ses.sched().engine().sent();
  d.resent = ses.sched().engine().resent();
  d.timeouts = f.timeouts;
  d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return d;
}

Summary summarize(const Data& d, unsigned depth) {
  Summary s;
  const Subnet& db = d.db;
  for (const Node& n : db.nodes()) {
    if (n.type == NodeType::Switch) ++s.switches;
    else if (n.type == NodeType::CA) ++s.cas;
    else if (n.type == NodeType::Router) ++s.routers;
  }
  s.links = unsigned(d.links.size());
  std::map<unsigned, unsigned> w, sp;
  for (const Link& l : d.links) {
    const Port& p = db.port(l.a);
    ++w[p.width_active()];
    unsigned es = ext_speed_active(db, p);
    ++sp[es ? 0x100 | es : p.speed_active()];
  }
  for (auto [k, v] : w) {
    const char* nm = iba::enums::name_of(iba::enums::link_widths(), k);
    s.by_width.push_back({nm ? nm : std::to_string(k), v});
  }
  for (auto [k, v] : sp) {
    const char* nm = k & 0x100 ? iba::enums::name_of(iba::enums::link_speeds_ext(), k & 0xff)
                               : iba::enums::name_of(iba::enums::link_speeds(), k);
    s.by_speed.push_back({nm ? nm : std::to_string(k), v});
  }
  for (const auto& f : d.findings) {
    std::string_view c = f.check ? f.check : "";
    if (c == "linkWidth") ++s.width_degraded;
    else if (c == "linkSpeed") ++s.speed_degraded;
    else if (c == "portState") ++s.ports_down;
  }
  for (LinkStatus st : d.link_status) s.degraded_links += st == LinkStatus::Degraded;
  for (const PortCounters& c : d.counters) s.error_ports += c.over != 0;
  s.depth = depth;
  return s;
}

}  // namespace ibcore::reporting
