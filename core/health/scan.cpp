// The fabric counter scan's rules and its node-by-node scans (scan.h):
// ErrorScan (ibqueryerrors, the report) and clear_node (ibclear*).
#include "core/health/scan.h"

#include "core/base/error.h"
#include "core/base/regex.h"
#include "core/health/checks.h"
#include "iba/introspect.h"
#include "iba/smp.h"

namespace ibcore::health {

unsigned kind_of(const Node& n) {
  switch (n.type) {
    case NodeType::Switch: return KIND_SWITCH;
    case NodeType::CA: return KIND_CA;
    case NodeType::Router: return KIND_ROUTER;
    default: return 0;
  }
}

std::optional<bool> PortSelect::node(const Subnet& db, uint32_t n) const {
  const Node& x = db.node(n);
  if (kinds != KIND_ALL && !(kinds & kind_of(x))) return false;
  if (!node_regex) return true;
  if (!x.has_desc) return std::nullopt;
  return node_regex->search(map ? map->remap(x.guid, x.description()) : x.description());
}

bool PortSelect::state_only(const Subnet& db, uint32_t slot) const {
  if (down_ports) return false;
  const Port& p = db.port(slot);
  return p.num != 0 && p.has_info && p.state() == 1;  // (PortState Down)
}

uint64_t error_value(const iba::PMPortCounters& pc, const PmaCaps& caps, int i) {
  return i == PortXmitWait && !(caps.mask & PM_CAP_XMIT_WAIT) ? 0 : ERROR_COUNTERS.value(pc, i);
}

uint16_t beyond(const Thresholds& thr, const iba::PMPortCounters& pc, const PmaCaps& caps, uint16_t ignore) {
  uint16_t over = 0;
  for (int i = 0; i < N_ERR; ++i)
    if (!(ignore & (1u << i)) && thr.exceeds(i, error_value(pc, caps, i))) over |= uint16_t(1u << i);
  return over;
}

CounterGroups error_groups() {
  CounterGroups g;
  g.data = false;
  return g;
}
CounterGroups data_groups() {
  CounterGroups g;
  g.errors = g.congestion = false;
  return g;
}

// --- ErrorScan ---------------------------------------------------------------------------

namespace {
uint32_t ahead_key(uint16_t lid, uint8_t port) { return uint32_t(lid) << 8 | port; }

// The LID a node's scan asks its PMA at: a switch's, a CA's or router's
// first port's.
uint16_t scan_lid(const Subnet& db, const Node& n) {
  if (n.is_switch()) return port_lid(db, n, 0);
  for (unsigned p = 1; p <= n.nports; ++p)
    if (db.port(n, p).exists) return port_lid(db, n, p);
  return 0;
}

void rethrow_mad(const std::exception_ptr& e) {
  if (e) std::rethrow_exception(e);
}
}  // namespace

ErrorScan::ErrorScan(PmAccess& pm, const ErrorScanOptions& o) : o_(o), reader_(pm, nullptr, error_groups()) {
  reader_.errors_from_port_counters(true);
}
ErrorScan::~ErrorScan() = default;

void ErrorScan::ahead(const Subnet& db, uint32_t n, unsigned port) {
  if (o_.counters_only) return;
  const Node& x = db.node(n);
  if (!(o_.kinds & (x.is_switch() ? KIND_SWITCH : x.type == NodeType::CA ? KIND_CA : KIND_ROUTER))) return;
  // The LIDs scan_node uses: a switch's; each CA port's own (a CA's first
  // port's for its ClassPortInfo: the port read here for the usual
  // single-port CA; else the scan asks what is missing).
  const Port& p = db.port(x, port);
  uint16_t lid = port_lid(db, x, port);
  if (!lid || !ahead_lids_.insert(lid).second) return;
  if (p.guid) reader_.pm().set_port_guid(lid, p.guid);
  if (!ahead_q_) {
    // READ_AHEAD workers at first, more while the walk leaves half the
    // window free (as the exporter's, PortScan::walk), up to the window.
    Scheduler& s = reader_.pm().sched();
    ahead_q_ = std::make_unique<WorkQueue<AheadItem>>(s, READ_AHEAD, [this](AheadItem it) { return read_ahead(it); });
    const MadEngine& eng = s.engine();
    ahead_q_->grow(std::max(READ_AHEAD, eng.max_outstanding() + 8),
                   [&eng] { return eng.in_flight() + eng.queued() < eng.max_outstanding() / 2; });
  }
  ahead_q_->push({lid, uint8_t(port), x.is_switch()});
}

void ErrorScan::obtain(const Config& cfg, ObtainOptions o, Subnet& db) {
  PmAccess& pm = reader_.pm();
  pm.read_path_table();
  o.sched = &pm.sched();
  o.discovery.on_port_lid = [this](const Subnet& d, uint32_t n, unsigned port) { ahead(d, n, port); };
  // Once the walk has every node, the reads ahead left take the whole
  // window, and more workers as it opens (8 beyond it let it step).  At
  // READ_AHEAD they kept k=16 random-1's scan at 24 in flight for its
  // last 5 ms.
  o.discovery.on_discovered = [this, discovered = o.discovery.on_discovered] {
    if (discovered) discovered();
    if (!ahead_q_) return;
    const MadEngine& eng = reader_.pm().sched().engine();
    ahead_q_->grow(eng.hard_max() + 8, [&eng] { return eng.in_flight() + eng.queued() < eng.max_outstanding() + 8; });
  };
  db = obtain_subnet(cfg, o);
  pm.use_subnet(&db);
}

Task<> ErrorScan::read_ahead(AheadItem it) {
  const PmaCaps caps = usable(co_await reader_.caps(it.lid));
  if (caps.all_port_select()) {
    (void)co_await reader_.sum(it.lid);
    co_return;
  }
  if (it.sw) co_return;  // a switch port by port: the scan reads it
  PortCountersRead r;
  co_await reader_.read(it.lid, it.port, false, r, error_groups(), &caps);
  ahead_[ahead_key(it.lid, it.port)] = std::move(r);
}

const PortCountersRead* ErrorScan::ahead_read(uint16_t lid, uint8_t port) const {
  auto a = ahead_.find(ahead_key(lid, port));
  return a != ahead_.end() ? &a->second : nullptr;
}

std::vector<NodeScan> ErrorScan::run(const Subnet& db, const std::vector<uint32_t>& nodes, ErrorSink& sink) {
  std::vector<NodeScan> outs(nodes.size());
  if (nodes.empty()) return outs;
  Scheduler& s = reader_.pm().sched();
  // A bounded pool of workers over the nodes (not a coroutine frame per
  // node waiting to start).
  auto one = [&](size_t i) -> Task<> {
    if (!clean_ahead(db, nodes[i], outs[i], sink)) co_await scan_node(db, nodes[i], outs[i], sink);
  };
  parallel_for(s, nodes.size(), s.engine().max_outstanding() + 8, one);
  s.run();
  return outs;
}

// A node whose counters were all read ahead and show nothing beyond a
// threshold is done here as scan_node would end it (its rows, its ports
// counted), without the scan's coroutines.
bool ErrorScan::clean_ahead(const Subnet& db, uint32_t ni, NodeScan& out, ErrorSink& sink) const {
  if (o_.counters_only || o_.clear) return false;
  const Node& n = db.node(ni);
  uint16_t lid = scan_lid(db, n);
  const PmaCaps* caps = lid ? reader_.known_caps(lid) : nullptr;
  if (!caps || caps->failed) return false;
  ErrorRow r;
  r.node = ni;
  r.caps = caps;
  if (caps->all_port_select()) {
    const PortSum* s = reader_.known_sum(lid);
    if (!s || !s->ok || beyond(*o_.thr, s->pc, *caps, o_.ignore)) return false;
    r.port = 0xff;
    r.lid = lid;
    r.pc = s->pc;
    sink.row(r);
    out.ports_checked += n.nports;
    return true;
  }
  if (n.is_switch()) return false;
  std::vector<std::pair<unsigned, const PortCountersRead*>> reads;
  for (unsigned p = 1; p <= n.nports; ++p) {
    if (!db.port(n, p).exists) continue;
    const PortCountersRead* a = ahead_read(port_lid(db, n, p), uint8_t(p));
    if (!a || !a->ok() || beyond(*o_.thr, a->pc, *caps, o_.ignore)) return false;
    reads.push_back({p, a});
  }
  for (auto [p, a] : reads) {
    r.port = p;
    r.lid = port_lid(db, n, p);
    r.pc = a->pc;
    sink.row(r);
  }
  out.ports_checked += unsigned(reads.size());
  return true;
}

Task<> ErrorScan::scan_node(const Subnet& db, uint32_t ni, NodeScan& out, ErrorSink& sink) {
  const Node& n = db.node(ni);
  unsigned start = n.is_switch() && n.enhsp0 ? 0 : 1;
  auto port_ok = [&](unsigned p) { return p <= n.nports && db.port(n, p).exists; };
  uint16_t lid = scan_lid(db, n);
  PmaCaps got;
  if (lid) got = co_await reader_.caps(lid);
  // A node of a cached topology that does not answer may have left the
  // fabric since: that is not its PMA failing.
  if (got.failed) {
    const std::string name = o_.map ? o_.map->remap(n.guid, n.description()) : n.description();
    if (co_await gone_from_cache(reader_.pm().sched(), db, ni, lid, name)) {
      out.gone = true;
      co_return;
    }
  }
  if (got.failed) {
    sink.pma_failed(ni, lid, got);
    out.pma_failures++;
  }
  const PmaCaps caps = usable(got);
  bool scan_ports = true;
  if (!o_.counters_only && caps.all_port_select() && lid) {
    if (!co_await check_port(db, ni, 0xff, lid, caps, got.failed, out, sink)) {
      out.ports_checked += n.nports;
      scan_ports = false;
    }
  }
  if (scan_ports)
    for (unsigned p = start; p <= n.nports; ++p) {
      if (!port_ok(p)) continue;
      co_await check_port(db, ni, p, n.is_switch() ? lid : port_lid(db, n, p), caps, got.failed, out, sink);
      out.ports_checked++;
    }
  if (o_.clear && lid) co_await clear(db, ni, lid, caps, sink);
}

// Port p (0xff: the switch's sum) read and judged into a row; true when it
// is reported (a bad port).
Task<bool> ErrorScan::check_port(const Subnet& db, uint32_t ni, unsigned p, uint16_t l, const PmaCaps& caps,
                                 bool caps_failed, NodeScan& out, ErrorSink& sink) {
  (void)db;
  ErrorRow r;
  r.node = ni;
  r.port = p;
  r.lid = l;
  r.caps = &caps;
  r.caps_failed = caps_failed;
  const uint8_t sel = p == 0xff ? 0xff : uint8_t(p);
  auto fail = [&](ErrorRow::Failed f, std::exception_ptr e) {
    r.failed = f;
    r.error = std::move(e);
    ++out.pma_failures;
    sink.row(r);
  };
  if (o_.counters_only) {
    try {
      co_await read_data(r, nullptr);
    } catch (const MADError&) {
      fail(ErrorRow::Failed::Data, std::current_exception());
      co_return false;
    }
    sink.row(r);
    co_return true;
  }
  if (p == 0xff) {
    PortSum s = co_await reader_.sum(l);
    if (!s.ok) {
      if (s.error) fail(ErrorRow::Failed::Counters, s.error);
      co_return false;
    }
    r.pc = s.pc;
  } else {
    PortCountersRead c;
    if (const PortCountersRead* a = ahead_read(l, sel)) c = *a;
    else co_await reader_.read(l, sel, false, c, error_groups(), &caps);
    if (!c.ok()) {
      fail(ErrorRow::Failed::Counters, c.why());
      co_return false;
    }
    r.pc = c.pc;
  }
  r.over = beyond(*o_.thr, r.pc, caps, o_.ignore);
  if (!r.over) {
    sink.row(r);
    co_return false;
  }
  if (o_.details) co_await read_details(r, out);
  if (o_.data) {
    try {
      co_await read_data(r, &r.pc);
    } catch (const MADError&) {
      fail(ErrorRow::Failed::Data, std::current_exception());
      co_return false;
    }
  }
  sink.row(r);
  out.bad = true;
  if (p != 0xff) out.bad_ports++;
  co_return true;
}

// The details attribute of each of PortRcvErrors and PortXmitDiscards
// beyond threshold, in the counters' order.
Task<> ErrorScan::read_details(ErrorRow& r, NodeScan& out) {
  const uint8_t sel = r.port == 0xff ? 0xff : uint8_t(r.port);
  for (int i : {int(PortRcvErrors), int(PortXmitDiscards)}) {
    if (!(r.over & (1u << i))) continue;
    try {
      if (i == PortXmitDiscards) r.xmit = co_await reader_.details<iba::PMPortXmitDiscardDetails>(r.lid, sel);
      else r.rcv = co_await reader_.details<iba::PMPortRcvErrorDetails>(r.lid, sel);
    } catch (const MADError&) {
      (i == PortXmitDiscards ? r.xmit_error : r.rcv_error) = std::current_exception();
      ++out.pma_failures;
    }
  }
}

// The data counters into r.data: the PortCountersExtended ones when the
// PMA has them (all 8, or the first 4 without PortExtendedWidth support),
// else the 4 of PortCounters (pc's, when the errors read it).  Throws the
// read's MADError.
Task<> ErrorScan::read_data(ErrorRow& r, const iba::PMPortCounters* pc) {
  const PmaCaps& caps = *r.caps;
  const uint8_t sel = r.port == 0xff ? 0xff : uint8_t(r.port);
  int count = 4;
  if (pc && !caps.ext()) {
    for (int i = 0; i < count; ++i) r.data[i] = DATA_COUNTERS.value(*pc, i);
  } else {
    PortCountersRead c;
    co_await reader_.read(r.lid, sel, false, c, data_groups(), &caps);
    if (!c.ok()) rethrow_mad(c.why());
    if (c.source == CounterSource::PortCounters) {
      for (int i = 0; i < count; ++i) r.data[i] = DATA_COUNTERS.value(c.pc, i);
    } else {
      if (caps.ext_ietf()) count = N_DATA;
      for (int i = 0; i < count; ++i) r.data[i] = DATA_COUNTERS.value(c.ext, i);
    }
  }
  r.data_count = count;
}

// Every port scanned (all at once where the PMA has AllPortSelect); the
// details attributes too.
Task<> ErrorScan::clear(const Subnet& db, uint32_t ni, uint16_t lid, const PmaCaps& caps, ErrorSink& sink) {
  const Node& n = db.node(ni);
  bool cext = o_.clear_ext && caps.ext();
  std::vector<unsigned> ports;
  if (caps.all_port_select()) ports.push_back(0xff);
  else
    for (unsigned p = n.is_switch() && n.enhsp0 ? 0 : 1; p <= n.nports; ++p)
      if (db.port(n, p).exists) ports.push_back(p);
  for (unsigned p : ports) {
    uint16_t l = p == 0xff || n.is_switch() ? lid : port_lid(db, n, p);
    try {
      co_await reader_.clear(l, uint8_t(p), o_.clear, cext);
    } catch (const MADError& e) {
      sink.clear_failed(ni, p, e, false);
    }
    if (o_.clear_details) {
      try {
        co_await reader_.clear_details<iba::PMPortXmitDiscardDetails>(l, uint8_t(p), 0xf);
        co_await reader_.clear_details<iba::PMPortRcvErrorDetails>(l, uint8_t(p), 0x3f);
      } catch (const MADError& e) {
        sink.clear_failed(ni, p, e, true);
      }
    }
  }
}

// --- clears -------------------------------------------------------------------------------

std::vector<std::pair<uint16_t, unsigned>> clear_targets(const Subnet& db, const Node& n) {
  std::vector<std::pair<uint16_t, unsigned>> todo;
  if (n.is_switch()) {
    uint16_t lid = port_lid(db, n, 0);
    for (unsigned p = n.enhsp0 ? 0 : 1; p <= n.nports; ++p) todo.push_back({lid, p});
  } else {
    for (unsigned p = 1; p <= n.nports; ++p)
      if (db.port(n, p).exists && port_lid(db, n, p)) todo.push_back({port_lid(db, n, p), p});
  }
  return todo;
}

Task<Cleared> clear_node(PortCountersReader& reader, const Subnet& db, uint32_t ni, const NodeNameMap& map,
                         uint16_t select, bool ext,
                         const std::function<void(uint16_t lid, unsigned port, const MADError* e)>& done) {
  const Node& n = db.node(ni);
  std::vector<std::pair<uint16_t, unsigned>> todo = clear_targets(db, n);
  if (todo.empty()) co_return Cleared::Nothing;
  const PmaCaps caps = co_await reader.caps(todo.front().first);
  // A node of a cached topology that no longer answers has left the
  // fabric: said so (a warning), not counted as failed clears.
  if (caps.failed) {
    const std::string name = map.remap(n.guid, n.description());
    if (co_await gone_from_cache(reader.pm().sched(), db, ni, todo.front().first, name)) co_return Cleared::Gone;
  }
  ext = ext && caps.ext();
  // A switch whose PMA has AllPortSelect: its ports 1..N in one clear
  // (port 0 apart); port by port if that fails.
  if (n.is_switch() && caps.all_port_select() && todo.back().second > 0) {
    try {
      co_await reader.clear(todo.front().first, 0xff, select, ext);
      for (auto [lid, p] : todo)
        if (p) done(lid, p, nullptr);
      std::erase_if(todo, [](const auto& t) { return t.second != 0; });
    } catch (const MADError&) {
    }
  }
  for (auto [lid, p] : todo) {
    try {
      co_await reader.clear(lid, uint8_t(p), select, ext);
      done(lid, p, nullptr);
    } catch (const MADError& e) {
      done(lid, p, &e);
    }
  }
  co_return Cleared::Done;
}

}  // namespace ibcore::health
