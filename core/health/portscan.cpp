// The fabric counter scan, port by port (scan.h PortScan): ibcheck*,
// ibdatacount* and the exporter's collectors.
#include <algorithm>
#include <map>

#include "core/base/error.h"
#include "core/fabric/discovery.h"
#include "core/health/checks.h"
#include "core/health/scan.h"
#include "iba/introspect.h"
#include "iba/mad.h"
#include "iba/smp.h"

namespace ibcore::health {

namespace {

const iba::FieldRef& op_vls_field() {
  static const iba::FieldRef f = iba::field_named(iba::SMPPortInfo::DESC, "operationalVLs");
  return f;
}

}  // namespace

bool sa_refused(const std::exception_ptr& e) {
  if (!e) return false;
  try {
    std::rethrow_exception(e);
  } catch (const MADClassError& m) {
    return m.mgmt_class == uint8_t(iba::mgmt::SUBN_ADM);
  } catch (...) {
  }
  return false;
}

PortScan::PortScan(PmAccess& pm, const PortScanOptions& o) : pm_(pm), o_(o), reader_(pm, o.retry, o.want) {
  reader_.errors_from_port_counters(o.pc_errors);
}

PortRow PortScan::row(const Subnet& db, uint32_t n, unsigned p) {
  PortRow r;
  r.slot = db.port_index(n, p);
  r.node = n;
  r.num = uint8_t(p);
  r.lid = port_lid(db, db.node(n), p);
  return r;
}

void PortScan::sums_for_switches(const Subnet& db, std::vector<PortRow>& rows) {
  std::map<uint32_t, unsigned> switch_ports;  // node -> its ports read (not port 0)
  for (const PortRow& r : rows)
    if (r.num && db.node(r.node).is_switch()) ++switch_ports[r.node];
  for (PortRow& r : rows) {
    auto k = switch_ports.find(r.node);
    r.by_sum = r.num && k != switch_ports.end() && k->second > 1;
  }
}

Task<> PortScan::read(const Subnet& db, PortRow& r, bool walking) {
  if (!pm_wanted()) co_return;
  if (r.node < db.node_count() && db.node(r.node).gone) {  // (refresh_links found it gone: nothing to ask)
    r.gone = true;
    co_return;
  }
  // (db is the database the walk fills: a port met before its PortInfo
  // is read after the walk, when its state is known, so that a Down port
  // costs no PM query where Down ports are not read; a node whose
  // description is not known yet, when the selection names nodes by it)
  std::optional<bool> sel_port = o_.select.node(db, r.node);
  // (the per-VL counters take a port's OperationalVLs from its PortInfo)
  if (walking && (((!o_.select.down_ports || o_.vl) && r.num != 0 &&
                   (r.slot >= db.port_slots() || !db.port(r.slot).has_info)) ||
                  !sel_port)) {
    r.deferred = true;
    co_return;
  }
  r.deferred = false;
  if (!sel_port.value_or(true)) co_return;
  if (r.slot < db.port_slots() && o_.select.state_only(db, r.slot)) co_return;
  r.read = true;
  const uint8_t sel = r.num;
  co_await reader_.read(r.lid, sel, r.by_sum, r.c);
  if (r.c.caps.failed) {
    st_.dead_nodes.insert(r.node);
    if (sa_refused(r.c.caps.error)) st_.no_path.insert(r.lid);
  }
  if (!r.c.ok()) {
    // A node of a cached topology that does not answer may have left the
    // fabric since: that is not its PMA failing.
    if (!db.cache_file.empty()) {
      AsyncSmpSource src(pm_.sched());
      if (!co_await still_present(src, db, r.node, r.lid)) r.gone = true;
    }
    if (r.c.caps.failed) co_return;
  }
  st_.queries_failed += r.c.failed;
  st_.timeouts += r.c.timeouts;
  auto failed = [&](const MADError& e, const char* attr) {
    ++st_.queries_failed;
    if (dynamic_cast<const MADTimeoutError*>(&e)) ++st_.timeouts;
    r.error = std::string(attr) + ": " + e.what();
  };
  if (o_.details) {
    // (each asked again while the retry policy allows, as the reader's
    // queries are)
    for (unsigned retried = 0;; ++retried) {
      try {
        (void)co_await pm_.path(r.lid);  // (a details read is counted once its path is known)
        if (!r.rcv_ok) {
          ++st_.details_reads;
          r.rcv = co_await reader_.details<iba::PMPortRcvErrorDetails>(r.lid, sel);
          r.rcv_ok = true;
        }
        ++st_.details_reads;
        r.xmit = co_await reader_.details<iba::PMPortXmitDiscardDetails>(r.lid, sel);
        r.xmit_ok = true;
        break;
      } catch (const MADError& e) {
        if (o_.retry && o_.retry->again(e, retried)) continue;
        failed(e, "details");
        break;
      }
    }
  }
  if (o_.vl && r.num != 0 && r.slot < db.port_slots() && db.port(r.slot).has_info) {
    // (a PMA known from an earlier scan to lack them: no MAD)
    const uint64_t guid = db.node(r.node).guid;
    if (o_.vl_unsupported && o_.vl_unsupported->count(guid)) {
      r.vl.unsupported = true;
    } else {
      const Port& p = db.port(r.slot);
      const iba::FieldRef& f = op_vls_field();
      co_await reader_.read_vl(r.lid, sel,
                               operational_data_vls(unsigned(iba::get_bits(p.info.data(), f.bit_off, f.width()))),
                               r.vl);
      st_.queries_failed += r.vl.failed;
      st_.timeouts += r.vl.timeouts;
      if (r.vl.unsupported && o_.vl_unsupported && o_.vl_unsupported->insert(guid).second) r.vl_news = true;
    }
  }
  Saturation s = saturation(r.c, o_.want);
  r.saturated = s.count;
  if (o_.reset_saturated && (s.select || s.xmit_wait)) {
    // Only the saturated PortCounters counters: CounterSelect (and
    // CounterSelect2 for PortXmitWait) name exactly those.
    try {
      co_await reader_.reset(r.lid, sel, s.select, s.xmit_wait ? 1 : 0);
      r.reset = true;
      ++st_.resets;
    } catch (const MADError& e) {
      failed(e, "reset of PortCounters");
    }
  }
}

void PortScan::spawn(const Subnet& db, std::vector<PortRow>& rows) {
  // In turns over the nodes, one port of a node at a time (a TurnQueue):
  // a switch's ports, listed together, are not a burst at its PMA.
  Scheduler& s = pm_.sched();
  if (!turns_)
    turns_ = std::make_unique<TurnQueue<std::pair<const Subnet*, PortRow*>>>(
        s, s.engine().max_outstanding() + 8,
        [this](std::pair<const Subnet*, PortRow*> r) { return read(*r.first, *r.second); });
  for (PortRow& r : rows) turns_->push(r.node, {&db, &r});
}

DiscoveryResult PortScan::walk(Subnet& db, std::deque<PortRow>& all, DiscoveryOptions o) {
  Scheduler& s = pm_.sched();
  bool walking = true;
  auto read1 = [&](size_t k) -> Task<> { co_await read(db, all[k], walking); };
  // Read ahead while discovery walks: a node's ports as soon as its LID is
  // known (a switch's all at its port 0 LID, a CA's port at its own), by a
  // few workers so that the walk keeps most of the MAD window, more once
  // it leaves room (the reads left when the walk ends then fill the
  // window: up to its size + 8, as parallel_for's users size it).
  // (in turns over the nodes, one port of a node at a time: a switch's
  // ports, found together, are not a burst at its PMA)
  TurnQueue<size_t> ahead(s, AHEAD, read1);
  const MadEngine& eng = s.engine();
  ahead.grow(std::max(AHEAD, eng.max_outstanding() + 8),
             [&eng] { return eng.in_flight() + eng.queued() < eng.max_outstanding() / 2; });
  std::unordered_set<uint32_t> queued;  // port slots
  auto add = [&](const Subnet& d, uint32_t n, unsigned p) {
    uint32_t slot = d.port_index(n, p);
    uint16_t lid = port_lid(d, d.node(n), p);
    if (slot == NO_INDEX || !lid || !queued.insert(slot).second) return false;
    PortRow r = row(d, n, p);
    r.by_sum = d.node(n).is_switch();
    all.push_back(std::move(r));
    return true;
  };
  std::vector<char> switch_queued;  // by node: a switch's ports are queued at its first port's call
  o.on_port_lid = [&](const Subnet& d, uint32_t n, unsigned port) {
    const Node& x = d.node(n);
    if (x.is_switch()) {
      if (switch_queued.size() <= n) switch_queued.resize(n + 1);
      if (switch_queued[n] && x.smalid) return;
      switch_queued[n] = x.smalid != 0;
    }
    uint16_t lid = port_lid(d, x, port);
    if (d.port(x, port).guid) pm_.set_port_guid(lid, d.port(x, port).guid);
    for (unsigned p = x.is_switch() ? 1 : port; p <= (x.is_switch() ? x.nports : port); ++p)
      if (add(d, n, p)) ahead.push(n, all.size() - 1);
  };
  // Once the walk has every node (its steps done, the reads ahead still
  // going on), the reads take the whole window, and more workers as it
  // opens: 8 reads waiting beyond it are what lets it step (FlowLimits::
  // window_grow); sized once, at a top of 64 when the walk ended, they
  // kept a k=32 scrape at 72 in flight for 70 ms (random-5, 2.6x).
  auto keep_ahead = [&eng] { return eng.in_flight() + eng.queued() < eng.max_outstanding() + 8; };
  auto discovered = o.on_discovered;
  o.on_discovered = [&ahead, &eng, discovered, keep_ahead] {
    if (discovered) discovered();
    ahead.widen(std::max(AHEAD, eng.max_outstanding() + 8));
    ahead.grow(eng.hard_max() + 8, keep_ahead);
  };
  DiscoveryResult dr = discover(s, db, o);
  walking = false;
  pm_.use_subnet(&db);
  // The rest: the ports met before their PortInfo, and every existing
  // port not read ahead (switches' port 0 with enhanced port 0, nodes the
  // walk did not report).
  std::vector<size_t> rest_of;
  for (size_t k = 0; k < all.size(); ++k)
    if (all[k].deferred) rest_of.push_back(k);
  size_t first = all.size();
  for (uint32_t n = 0; n < db.node_count(); ++n) {
    const Node& x = db.node(n);
    for (unsigned p = x.is_switch() && x.enhsp0 ? 0 : 1; p <= x.nports; ++p)
      if (db.port(x, p).exists) add(db, n, p);
  }
  for (size_t k = first; k < all.size(); ++k) rest_of.push_back(k);
  TurnQueue<size_t> rest(s, eng.max_outstanding() + 8, read1);
  rest.grow(eng.hard_max() + 8, keep_ahead);
  for (size_t k : rest_of) rest.push(all[k].node, k);
  s.run();
  return dr;
}

}  // namespace ibcore::health
