#include "core/health/fabricexport.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/base/error.h"
#include "core/base/regex.h"
#include "core/fabric/discovery.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/subnet.h"
#include "core/health/checks.h"
#include "core/health/pmaccess.h"
#include "core/health/pmmetrics.h"
#include "core/health/pmscrape.h"
#include "core/out/log.h"
#include "core/rpc/sched.h"
#include "iba/enums.h"
#include "iba/introspect.h"
#include "iba/mad.h"
#include "iba/pm.h"
#include "iba/smp.h"

namespace ibcore::health {

namespace {

namespace H = ibcore::health;

// What one port's scrape read.
struct PortRead {
  uint32_t slot = NO_INDEX;  // port slot in the subnet
  uint32_t node = NO_INDEX;
  uint8_t num = 0;           // port number
  uint16_t lid = 0;          // the LID its PM was asked at
  bool sw = false;           // a switch's port (its PMA's AllPortSelect sum covers it)
  bool read = false;         // its counters were asked (not a Down port left out)
  bool deferred = false;     // met before its PortInfo: read after the walk
  bool rcv_ok = false, xmit_ok = false;
  H::PortCountersRead c;     // PortCounters / PortCountersExtended
  iba::PMPortRcvErrorDetails rcv;
  iba::PMPortXmitDiscardDetails xmit;
  H::VlCountersRead vl;      // PortVLXmitWaitCounters (vl collector)
  bool vl_news = false;      // its PMA was found without them in this scrape
  unsigned saturated = 0;  // exported counters at their maximum
  bool reset = false;      // --reset-saturated cleared them
  std::string error;       // the details' or the reset's failure
};

struct ScrapeStats {
  uint64_t queries_failed = 0, timeouts = 0, unreachable_nodes = 0, resets = 0;
  // PM MADs by kind (PortCountersReader; the details reads), and the SA's
  // PathRecord queries the PM reads needed
  uint64_t cpi = 0, sums = 0, clean_sums = 0, pc_reads = 0, ext_reads = 0, details_reads = 0, path_queries = 0;
  uint64_t vl_reads = 0;
  // LIDs the walk reached whose PathRecord the SA refused (no record)
  uint64_t no_path_lids = 0;
  std::unordered_set<uint16_t> no_path;
};

// Where a port's value of a PortCounters/PortCountersExtended field comes
// from (nullptr: not read, or not a field this port's PMA fills).
const uint8_t* counter_buf(const PortRead& r, std::string_view field, bool in_pc, bool in_ext) {
  const H::PortCountersRead& c = r.c;
  bool from_ext = c.source == H::CounterSource::Extended ||
                  (c.source == H::CounterSource::Split && (!in_pc || H::is_pc_data_field(field)));
  if (from_ext) return in_ext && c.ext_ok && H::ext_field_valid(c.caps, field) ? c.ext.buf.data() : nullptr;
  return in_pc && c.pc_ok ? c.pc.buf.data() : nullptr;
}

// Every query this port's metrics need was answered (a PMA without the
// per-VL counters is not a failure).
bool port_ok(const PortRead& r, bool details) {
  if (!r.read) return true;
  return r.c.ok() && (!details || (r.rcv_ok && r.xmit_ok)) && (!r.vl.wanted || r.vl.ok);
}

constexpr unsigned PORT_STATE_DOWN = 1;

}  // namespace

struct FabricExport::Impl {
  Impl(const Config& cfg, const ExportOptions& o) : cfg_(cfg) {
    for (unsigned i = 0; i < N_COLLECTORS; ++i) on_[i] = o.on[i];
    details_ = on_[C_DETAILS];
    want_.errors = on_[C_ERRORS];
    want_.data = on_[C_DATA];
    want_.congestion = on_[C_CONGESTION];
    reset_ = o.reset_saturated;
    forget_after_ = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.forget_after_s));
    down_ports_ = o.down_ports_all ? "all" : "state";
    port_type_ = o.port_type;
    if (!o.node_regex.empty()) regex_ = std::make_unique<Regex>(o.node_regex);
  }
  const Config& config() const { return cfg_; }

  // A node as the daemon's log lines name it.
  static std::string who(const Subnet& db, uint32_t n) {
    const Node& x = db.node(n);
    char g[24];
    std::snprintf(g, sizeof g, "0x%016llx", (unsigned long long)x.guid);
    return std::string("node ") + g + " \"" + x.description() + "\"";
  }

  using Clock = std::chrono::steady_clock;

  // One scrape within budget_s seconds, its exposition text into out.
  // Never throws.
  void scrape(prom::Writer& out, double budget_s) {
    auto t0 = Clock::now();
    NodeNameMap map = NodeNameMap::open(config().node_name_map);
    map_ = &map;
    // The retries' deadline: one attempt (the MAD timeout times its tries)
    // before the budget ends, so that the last attempts end within it.
    auto budget = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(budget_s));
    auto attempt = std::chrono::milliseconds(int64_t(config().timeout_ms > 0 ? config().timeout_ms : 1000) *
                                             (std::max(config().retries, 0) + 1));
    H::RetryBudget retry(t0 + (attempt < budget / 2 ? budget - attempt : budget / 2));
    Subnet db;
    std::deque<PortRead> all;  // (stable while it grows)
    ScrapeStats st;
    DiscoveryResult dr;
    uint64_t mads = 0, resent = 0;
    bool up = false;
    for (unsigned retried = 0;; ++retried) {
      db = Subnet{};
      all.clear();
      st = ScrapeStats{};
      dr = DiscoveryResult{};
      dead_nodes_.clear();
      try {
        run_scrape(db, all, st, dr, retry, mads, resent);
        up = true;
        break;
      } catch (const MADError& e) {
        // The start node did not answer: the whole scrape is asked again.
        if (retry.again(e, retried)) continue;
        ibcore::log::error("exporter: %s\n", e.what());
      } catch (const std::exception& e) {
        ibcore::log::error("exporter: %s\n", e.what());
      }
      break;
    }
    // The ports of the final database, in its order.
    // (by pointer: a PortRead is ~300 bytes, and 49k of them moved
    // through a sort cost more than the sort)
    std::vector<const PortRead*> reads;
    for (const PortRead& r : all)
      if (r.slot < db.port_slots() && db.port(r.slot).exists && selected(db, r.node).value_or(false))
        reads.push_back(&r);
    std::sort(reads.begin(), reads.end(), [](const PortRead* a, const PortRead* b) { return a->slot < b->slot; });
    st.unreachable_nodes = dead_nodes_.size();
    log_problems(db, reads, dr);
    double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    format(out, db, reads, st, dr, retry, up, secs, mads, resent, budget_s);
    out.flush();
    map_ = nullptr;
    retry_ = nullptr;
    if (config().verbose)
      ibcore::log::info("exporter: %zu ports, %llu MADs (%llu retried), discovery and reads %.3f s, then the text "
                        "%.3f s\n",
                        reads.size(), (unsigned long long)mads, (unsigned long long)retry.retries(), secs,
                        std::chrono::duration<double>(Clock::now() - t0).count() - secs);
  }

  void run_scrape(Subnet& db, std::deque<PortRead>& all, ScrapeStats& st, DiscoveryResult& dr,
                  H::RetryBudget& retry, uint64_t& mads, uint64_t& resent) {
    retry_ = &retry;
    H::PmSession ses(config());
    ses.pm().forget_failed_paths(true);
    // (no PM collector: no PM MAD, nor the SA's paths for them)
    if (pm_wanted()) ses.pm().read_path_table();
    H::PortCountersReader reader(ses.pm(), &retry, want_);
    bool walking = true;
    auto read = [&](size_t k) -> Task<> { co_await read_port(reader, all[k], st, db, walking); };
    // Read ahead while discovery walks, as ibqueryerrors does: a node's
    // ports as soon as its LID is known (a switch's all at its port 0
    // LID, a CA's port at its own), by a few workers so that the walk
    // keeps most of the MAD window, more once it leaves room.
    // (the reads left when the walk ends then fill the window: up to its
    // size + 8, as parallel_for's users size it)
    WorkQueue<size_t> ahead(ses.sched(), kAheadWorkers, read);
    const MadEngine& eng = ses.sched().engine();
    ahead.grow(std::max(kAheadWorkers, eng.max_outstanding() + 8),
               [&eng] { return eng.in_flight() + eng.queued() < eng.max_outstanding() / 2; });
    std::unordered_set<uint32_t> queued;  // port slots
    auto add = [&](const Subnet& d, uint32_t n, unsigned p, uint16_t lid) {
      uint32_t slot = d.port_index(n, p);
      if (slot == NO_INDEX || !lid || !queued.insert(slot).second) return false;
      PortRead r;
      r.slot = slot;
      r.node = n;
      r.num = uint8_t(p);
      r.lid = lid;
      r.sw = d.node(n).is_switch();
      all.push_back(r);
      return true;
    };
    DiscoveryOptions o;
    o.mode = discovery_mode(config());
    o.retry = [&](const std::exception& e, unsigned retried) { return retry.again(e, retried); };
    std::vector<char> switch_queued;  // by node: a switch's ports are queued at its first port's call
    o.on_port_lid = [&](const Subnet& d, uint32_t n, unsigned port) {
      const Node& x = d.node(n);
      if (x.is_switch()) {
        if (switch_queued.size() <= n) switch_queued.resize(n + 1);
        if (switch_queued[n] && x.smalid) return;
        switch_queued[n] = x.smalid != 0;
      }
      uint16_t lid = x.is_switch() ? x.smalid : d.port(x, port).base_lid;
      if (d.port(x, port).guid) ses.pm().set_port_guid(lid, d.port(x, port).guid);
      for (unsigned p = x.is_switch() ? 1 : port; p <= (x.is_switch() ? x.nports : port); ++p)
        if (add(d, n, p, lid)) ahead.push(all.size() - 1);
    };
    dr = discover(ses.sched(), db, o);
    walking = false;
    ses.pm().use_subnet(&db);
    // The rest: the ports met before their PortInfo, and every existing
    // port not read ahead (switches' port 0 with enhanced port 0, nodes
    // the walk did not report).
    std::vector<size_t> rest_of;
    for (size_t k = 0; k < all.size(); ++k)
      if (all[k].deferred) rest_of.push_back(k);
    size_t first = all.size();
    for (uint32_t n = 0; n < db.node_count(); ++n) {
      const Node& x = db.node(n);
      for (unsigned p = x.is_switch() && x.enhsp0 ? 0 : 1; p <= x.nports; ++p)
        if (db.port(x, p).exists) add(db, n, p, x.is_switch() ? x.smalid : db.port(x, p).base_lid);
    }
    for (size_t k = first; k < all.size(); ++k) rest_of.push_back(k);
    auto rest = [&](size_t k) -> Task<> { co_await read(rest_of[k]); };
    parallel_for(ses.sched(), rest_of.size(), ses.sched().engine().max_outstanding() + 8, rest);
    ses.sched().run();
    mads = ses.sched().engine().sent();
    resent = ses.sched().engine().resent();
    st.queries_failed += reader.shared_failures();
    st.timeouts += reader.shared_timeouts();
    st.cpi = reader.class_port_infos();
    st.sums = reader.all_port_sums();
    st.clean_sums = reader.clean_sums();
    st.pc_reads = reader.port_counters_reads();
    st.ext_reads = reader.ext_reads();
    st.vl_reads = reader.vl_reads();
    st.path_queries = ses.pm().path_queries();
    st.no_path_lids = st.no_path.size();
  }

  // Some collector reads the PM (the state collector reads nothing: its
  // PortInfo is the discovery's).
  bool pm_wanted() const { return want_.any() || details_ || on_[C_VL]; }

  // The node's name as ib_port_info shows it (node-name-map applied).
  std::string node_name(const Node& n) const {
    return map_ ? map_->remap(n.guid, n.description()) : n.description();
  }
  // Whether a port is exported (--port-type, --node-regex); nullopt while
  // its node's description is not known yet (the walk has not read it).
  std::optional<bool> selected(const Subnet& db, uint32_t node) const {
    const Node& n = db.node(node);
    if (port_type_ == "switch" && !n.is_switch()) return false;
    if (port_type_ == "ca" && n.type != NodeType::CA) return false;
    if (!regex_) return true;
    if (!n.has_desc) return std::nullopt;
    return regex_->search(node_name(n));
  }

  // A Down port whose counters are not exported (--down-ports state).
  bool state_only(const Subnet& db, uint32_t slot) const {
    const Port& p = db.port(slot);
    return down_ports_ == "state" && p.num != 0 && p.has_info &&
           iba::get_bits(p.info.data(), port_state_.bit_off, port_state_.width()) == PORT_STATE_DOWN;
  }

  // Whether a PM query failed because the SA answered its PathRecord with
  // a status (no record for the LID): not a loss, not asked again.
  static bool sa_refused_path(const std::exception_ptr& e) {
    if (!e) return false;
    try {
      std::rethrow_exception(e);
    } catch (const MADClassError& m) {
      return m.mgmt_class == uint8_t(iba::mgmt::SUBN_ADM);
    } catch (...) {
    }
    return false;
  }

  Task<> read_port(H::PortCountersReader& reader, PortRead& r, ScrapeStats& st, const Subnet& db, bool walking) {
    if (!pm_wanted()) co_return;
    // (db is the database the walk fills: a switch port met before its
    // PortInfo is read after the walk, when its state is known, so that
    // a Down port costs no PM query unless --down-ports all; a node whose
    // description is not known yet, when --node-regex selects by it)
    std::optional<bool> sel_port = selected(db, r.node);
    // (the vl collector reads a port's OperationalVLs from its PortInfo)
    if (walking && (((down_ports_ == "state" || on_[C_VL]) && r.num != 0 &&
                     (r.slot >= db.port_slots() || !db.port(r.slot).has_info)) ||
                    !sel_port)) {
      r.deferred = true;
      co_return;
    }
    r.deferred = false;
    if (!sel_port.value_or(true)) co_return;
    if (r.slot < db.port_slots() && state_only(db, r.slot)) co_return;
    r.read = true;
    uint8_t sel = r.num;
    H::PmAccess& pm = reader.pm();
    co_await reader.read(r.lid, sel, r.sw, r.c);
    if (r.c.caps.failed) {
      dead_nodes_.insert(r.node);
      if (sa_refused_path(r.c.caps.error)) st.no_path.insert(r.lid);
      co_return;
    }
    st.queries_failed += r.c.failed;
    st.timeouts += r.c.timeouts;
    auto failed = [&](const MADError& e, const char* attr) {
      ++st.queries_failed;
      if (dynamic_cast<const MADTimeoutError*>(&e)) ++st.timeouts;
      r.error = std::string(attr) + ": " + e.what();
    };
    if (details_) {
      // (each asked again while the scrape's budget allows, as the
      // reader's queries are)
      for (unsigned retried = 0;; ++retried) {
        try {
          IBPath p = co_await pm.path(r.lid);
          if (!r.rcv_ok) {
            iba::PMPortRcvErrorDetails q;
            q.set_portSelect(sel);
            ++st.details_reads;
            r.rcv = co_await pm.sched().PerformanceGet(q, p);
            r.rcv_ok = true;
          }
          iba::PMPortXmitDiscardDetails x;
          x.set_portSelect(sel);
          ++st.details_reads;
          r.xmit = co_await pm.sched().PerformanceGet(x, p);
          r.xmit_ok = true;
          break;
        } catch (const MADError& e) {
          if (retry_ && retry_->again(e, retried)) continue;
          failed(e, "details");
          break;
        }
      }
    }
    if (on_[C_VL] && r.num != 0 && r.slot < db.port_slots() && db.port(r.slot).has_info) {
      // (a PMA known from an earlier scrape to lack them: no MAD)
      if (vl_unsupported_.count(db.node(r.node).guid)) {
        r.vl.unsupported = true;
      } else {
        const Port& p = db.port(r.slot);
        co_await reader.read_vl(r.lid, sel, H::operational_data_vls(unsigned(iba::get_bits(
                                                p.info.data(), op_vls_.bit_off, op_vls_.width()))),
                                r.vl);
        st.queries_failed += r.vl.failed;
        st.timeouts += r.vl.timeouts;
        if (r.vl.unsupported && vl_unsupported_.insert(db.node(r.node).guid).second) r.vl_news = true;
      }
    }
    H::Saturation s = H::saturation(r.c, want_);
    r.saturated = s.count;
    if (reset_ && (s.select || s.xmit_wait)) {
      // Only the saturated PortCounters counters: CounterSelect (and
      // CounterSelect2 for PortXmitWait) name exactly those.
      try {
        IBPath p = co_await pm.path(r.lid);
        iba::PMPortCounters q;
        q.set_portSelect(sel);
        q.set_counterSelect(s.select);
        q.set_counterSelect2(s.xmit_wait ? 1 : 0);
        (void)co_await pm.sched().PerformanceSet(q, p);
        r.reset = true;
        ++st.resets;
      } catch (const MADError& e) {
        failed(e, "reset of PortCounters");
      }
    }
  }

  // stderr as a daemon's log: one line per problem of this scrape, naming
  // the node (GUID and description) and the port; a PMA that did not
  // answer at all is one line for its node.
  void log_problems(const Subnet& db, const std::vector<const PortRead*>& reads, const DiscoveryResult& dr) const {
    for (const std::string& e : dr.errors) ibcore::log::warn("exporter: discovery: %s\n", e.c_str());
    std::unordered_set<uint32_t> told;
    for (const PortRead* r : reads) {
      if (!r->read) continue;
      if (r->c.caps.failed) {
        if (told.insert(r->node).second) {
          std::string why = H::last_layer(r->c.caps.error);
          ibcore::log::warn("exporter: %s lid %u: PerfMgt ClassPortInfo %s%s%s: its ports' counters not read\n",
                            who(db, r->node).c_str(), unsigned(r->lid),
                            sa_refused_path(r->c.caps.error) ? "not asked: the SA has no path to the LID (the SM "
                                                               "dropped it from its view and routes)"
                            : r->c.caps.timed_out            ? "timed out"
                                                             : "failed",
                            why.empty() ? "" : ", ", why.c_str());
        }
        continue;
      }
      if (!r->c.error.empty())
        ibcore::log::warn("exporter: %s port %u: %s\n", who(db, r->node).c_str(), unsigned(r->num),
                          r->c.error.c_str());
      if (!r->vl.error.empty())
        ibcore::log::warn("exporter: %s port %u: %s\n", who(db, r->node).c_str(), unsigned(r->num),
                          r->vl.error.c_str());
      if (r->vl_news)
        ibcore::log::info("exporter: %s lid %u: its PMA has not got PortVLXmitWaitCounters (a MAD status): no "
                          "per-VL counters from it, not asked again while the exporter runs\n",
                          who(db, r->node).c_str(), unsigned(r->lid));
      if (!r->error.empty())
        ibcore::log::warn("exporter: %s port %u: %s\n", who(db, r->node).c_str(), unsigned(r->num),
                          r->error.c_str());
    }
  }

  // The exposition text (Prometheus text format 0.0.4).
  void format(prom::Writer& w, const Subnet& db, const std::vector<const PortRead*>& reads, const ScrapeStats& st,
              const DiscoveryResult& dr, const H::RetryBudget& retry, bool up, double secs, uint64_t mads,
              uint64_t resent, double budget_s) {
    const NodeNameMap& map = *map_;
    // Each port's identity (the labels of every series of it: node GUID
    // and port number, which do not change while the port exists) and its
    // description (ib_port_info's further labels: LID, names, the remote
    // end, which do).
    std::vector<std::string> id(reads.size());
    std::vector<bool> counters_of(reads.size());
    const Clock::time_point now = Clock::now();
    auto guid = [](uint64_t g) {
      char b[24];
      std::snprintf(b, sizeof b, "0x%016llx", (unsigned long long)g);
      return std::string(b);
    };
    for (size_t i = 0; i < reads.size(); ++i) {
      const Port& p = db.port(reads[i]->slot);
      prom::label(id[i], "node_guid", guid(db.node_of(p).guid));
      prom::label(id[i], "port", std::to_string(p.num));
      counters_of[i] = reads[i]->read && (down_ports_ == "all" || !state_only(db, reads[i]->slot));
    }
    w.family("ib_port_info", "gauge",
             "A port's description, always 1: node description (node-name-map applied) and type, LID, and the "
             "node GUID, port and description of the port at the other end of its link");
    for (size_t i = 0; i < reads.size(); ++i) {
      const Port& p = db.port(reads[i]->slot);
      const Node& n = db.node_of(p);
      std::string l = id[i];
      prom::label(l, "node_desc", map.remap(n.guid, n.description()));
      const char* tn = iba::enums::name_of(iba::enums::node_types(), unsigned(n.type));
      prom::label(l, "node_type", tn ? tn : "Unknown");
      prom::label(l, "lid", std::to_string(reads[i]->lid));
      if (const Port* r = db.peer(p)) {
        const Node& rn = db.node_of(*r);
        prom::label(l, "remote_guid", guid(rn.guid));
        prom::label(l, "remote_port", std::to_string(r->num));
        prom::label(l, "remote_desc", map.remap(rn.guid, rn.description()));
      }
      w.sample("ib_port_info", l, uint64_t(1));
      if (up) {
        KnownPort& k = known_[{n.guid, p.num}];
        k.id = id[i];
        k.info = std::move(l);
        k.seen = now;
      }
    }
    // The ports earlier scrapes found and this one did not: as last seen,
    // until forget_after_ (a scrape that found nothing, ib_scrape_success
    // 0, says so itself: it neither shows nor ages them).
    std::vector<const KnownPort*> missing;
    if (up)
      for (auto it = known_.begin(); it != known_.end();) {
        uint32_t n = it->second.seen == now ? NO_INDEX : db.node_by_guid(it->first.first);
        if (it->second.seen == now) {
          ++it;
        } else if (now - it->second.seen > forget_after_ ||
                   (n != NO_INDEX && !selected(db, n).value_or(true))) {
          // (forgotten; or its node is found and no longer selected)
          it = known_.erase(it);
        } else {
          missing.push_back(&it->second);
          w.sample("ib_port_info", it->second.info, uint64_t(1));
          ++it;
        }
      }
    missing_ = missing.size();
    if (pm_wanted()) {
      w.family("ib_port_scrape_ok", "gauge",
               "1 when every query of this port's counters was answered in this scrape, 0 when some of its "
               "counter series are missing from it (or the port itself: see ib_port_missing_seconds)");
      for (size_t i = 0; i < reads.size(); ++i)
        w.sample("ib_port_scrape_ok", id[i], uint64_t(port_ok(*reads[i], details_)));
      for (const KnownPort* k : missing) w.sample("ib_port_scrape_ok", k->id, uint64_t(0));
    }
    if (!missing.empty()) {
      w.family("ib_port_missing_seconds", "gauge",
               "Seconds since a port an earlier scrape found was last found: this scrape did not reach it (its "
               "node did not answer the discovery, or its link is gone); exported for --forget-after seconds");
      for (const KnownPort* k : missing)
        w.sample("ib_port_missing_seconds", k->id, std::chrono::duration<double>(now - k->seen).count());
    }

    // The counters of every attribute read, one metric per counter field
    // (PortCounters and PortCountersExtended: whichever the port's PMA
    // gives; a family no port has is left out).
    auto counters = [&](const std::vector<H::CounterMetric>& metrics, const iba::StructDesc* a,
                        const iba::StructDesc* b, auto buf_of) {
      for (const H::CounterMetric& m : metrics) {
        if (a != &iba::PMPortRcvErrorDetails::DESC && a != &iba::PMPortXmitDiscardDetails::DESC &&
            !want_.has(H::counter_group(m.field)))
          continue;
        auto has = [&](const iba::StructDesc* d) {
          if (!d) return (const iba::FieldDesc*)nullptr;
          for (const iba::FieldDesc& f : d->field_list())
            if (m.field == f.name) return &f;
          return (const iba::FieldDesc*)nullptr;
        };
        const iba::FieldDesc* fa = has(a);
        const iba::FieldDesc* fb = has(b);
        bool head = false;
        for (size_t i = 0; i < reads.size(); ++i) {
          if (!counters_of[i]) continue;
          auto [buf, f] = buf_of(*reads[i], m.field, fa, fb);
          if (!buf) continue;
          if (!head) w.family(m.name, "counter", m.help);
          head = true;
          w.sample(m.name, id[i], iba::get_bits(buf, f->bit_off, f->width) * m.scale);
        }
      }
    };
    using BufField = std::pair<const uint8_t*, const iba::FieldDesc*>;
    static const std::vector<H::CounterMetric> pc_metrics =
        H::counter_metrics({&iba::PMPortCounters::DESC, &iba::PMPortCountersExtended::DESC});
    counters(pc_metrics, &iba::PMPortCounters::DESC, &iba::PMPortCountersExtended::DESC,
             [](const PortRead& r, const std::string& field, const iba::FieldDesc* fpc,
                const iba::FieldDesc* fext) -> BufField {
               const uint8_t* b = counter_buf(r, field, fpc != nullptr, fext != nullptr);
               if (!b) return {nullptr, nullptr};
               return {b, b == r.c.ext.buf.data() ? fext : fpc};
             });
    if (details_) {
      static const std::vector<H::CounterMetric> rcv = H::counter_metrics({&iba::PMPortRcvErrorDetails::DESC});
      static const std::vector<H::CounterMetric> xmit = H::counter_metrics({&iba::PMPortXmitDiscardDetails::DESC});
      counters(rcv, &iba::PMPortRcvErrorDetails::DESC, nullptr,
               [](const PortRead& r, const std::string&, const iba::FieldDesc* f, const iba::FieldDesc*) -> BufField {
                 return {r.rcv_ok ? r.rcv.buf.data() : nullptr, f};
               });
      counters(xmit, &iba::PMPortXmitDiscardDetails::DESC, nullptr,
               [](const PortRead& r, const std::string&, const iba::FieldDesc* f, const iba::FieldDesc*) -> BufField {
                 return {r.xmit_ok ? r.xmit.buf.data() : nullptr, f};
               });
    }
    if (on_[C_VL]) vl_counters(w, reads, id, counters_of);
    if (want_.any()) {
      w.family("ib_port_counters_saturated", "gauge",
               "Counters at their maximum, where they stop counting: of the counters exported (the errors, data "
               "and congestion collectors'), the PortCounters ones this port's metrics take (where "
               "PortCountersExtended has every counter: its 64-bit counters)");
      for (size_t i = 0; i < reads.size(); ++i)
        if (counters_of[i] && reads[i]->c.ok()) w.sample("ib_port_counters_saturated", id[i], uint64_t(reads[i]->saturated));
    }
    if (reset_ && want_.any()) {
      w.family("ib_port_counters_saturated_reset", "gauge", "1 when this scrape reset the saturated counters");
      for (size_t i = 0; i < reads.size(); ++i)
        if (reads[i]->saturated) w.sample("ib_port_counters_saturated_reset", id[i], uint64_t(reads[i]->reset));
    }
    if (on_[C_STATE] || on_[C_LINK]) link_state(w, db, reads, id);
    if (on_[C_SCRAPE]) scrape_metrics(w, db, reads, st, dr, retry, up, secs, mads, resent, budget_s);
  }

  // The per-VL counters: one series per data VL the port runs, labelled
  // by vl (a family no port has is left out).
  void vl_counters(prom::Writer& w, const std::vector<const PortRead*>& reads, const std::vector<std::string>& id,
                   const std::vector<bool>& counters_of) const {
    static const std::vector<H::CounterMetric> metrics = H::counter_metrics({&iba::PMPortVLXmitWaitCounters::DESC});
    for (const H::CounterMetric& m : metrics) {
      iba::FieldRef f = iba::field_named(iba::PMPortVLXmitWaitCounters::DESC, m.field);
      bool head = false;
      for (size_t i = 0; i < reads.size(); ++i) {
        const H::VlCountersRead& v = reads[i]->vl;
        if (!counters_of[i] || !v.ok) continue;
        if (!head) w.family(m.name, "counter", m.help);
        head = true;
        for (unsigned vl = 0; vl < v.vls && vl < f.field->count; ++vl) {
          std::string l = id[i];
          prom::label(l, "vl", std::to_string(vl));
          w.sample(m.name, l,
                   iba::get_bits(v.xmit_wait.buf.data(), f.bit_off + vl * f.field->width, f.field->width) * m.scale);
        }
      }
    }
  }

  // Link state from PortInfo (raw IBA values; the HELP gives the codes).
  // A Down port (--down-ports state) has its state fields only.
  void link_state(prom::Writer& w, const Subnet& db, const std::vector<const PortRead*>& reads,
                  const std::vector<std::string>& id) const {
    for (const H::GaugeMetric& g : H::link_metrics()) {
      iba::FieldRef f = iba::field_named(iba::SMPPortInfo::DESC, g.field);
      bool state = g.field == "portState" || g.field == "portPhysicalState";
      if (!on_[state ? C_STATE : C_LINK]) continue;
      w.family(g.name, "gauge", g.help);
      for (size_t i = 0; i < reads.size(); ++i) {
        const Port& p = db.port(reads[i]->slot);
        // (a switch's ports: PortInfo of each port; port 0 has no link)
        if (p.has_info && (state || !state_only(db, reads[i]->slot)))
          w.sample(g.name, id[i], iba::get_bits(p.info.data(), f.bit_off, f.field->width));
      }
    }
    if (!on_[C_STATE]) return;
    w.family("ib_port_link_degraded", "gauge",
             "1 when the link runs narrower or slower than both of its ends have enabled and support "
             "(the width and speed checks of ibcheckwidth/ibcheckspeed), else 0; for LinkUp ports with a "
             "known peer");
    for (size_t i = 0; i < reads.size(); ++i) {
      const Port& p = db.port(reads[i]->slot);
      if (!p.has_info || !db.peer(p) || p.num == 0) continue;
      bool bad = !H::check_port_width(db, p.node, p.num).empty() || !H::check_port_speed(db, p.node, p.num).empty();
      w.sample("ib_port_link_degraded", id[i], uint64_t(bad));
    }
  }

  // The scrape itself.
  void scrape_metrics(prom::Writer& w, const Subnet& db, const std::vector<const PortRead*>& reads,
                      const ScrapeStats& st, const DiscoveryResult& dr, const H::RetryBudget& retry, bool up,
                      double secs, uint64_t mads, uint64_t resent, double budget_s) const {
    size_t unread = 0;
    for (const PortRead* r : reads) unread += !port_ok(*r, details_);
    auto scalar = [&](const char* name, const char* help, double v) {
      w.family(name, "gauge", help);
      w.sample(name, "", v);
    };
    scalar("ib_scrape_success",
           "1 when the discovery could start from the local port (the scrape ran; a part of the fabric it "
           "could not reach is in ib_scrape_discovery_errors and ib_port_missing_seconds), 0 when it could not "
           "(no port series then)",
           up);
    scalar("ib_scrape_duration_seconds", "Time this scrape took", secs);
    scalar("ib_scrape_timeout_seconds",
           "The scrape's time budget: --scrape-timeout, or less when the Prometheus server waits less "
           "(its X-Prometheus-Scrape-Timeout-Seconds, less 0.5 s)",
           budget_s);
    scalar("ib_scrape_nodes", "Nodes discovered", double(db.node_count()));
    scalar("ib_scrape_ports", "Ports in this scrape", double(reads.size()));
    scalar("ib_scrape_ports_missing",
           "Ports an earlier scrape found that this one did not (ib_port_missing_seconds; not in ib_scrape_ports)",
           double(missing_));
    scalar("ib_scrape_ports_unread", "Ports some of whose counters could not be read within the budget "
                                     "(ib_port_scrape_ok 0)", double(unread));
    scalar("ib_scrape_retries", "Queries asked again after they went unanswered (discovery and PM reads)",
           double(retry.retries()));
    scalar("ib_scrape_retries_given_up", "Unanswered queries not asked again because the budget was spent",
           double(retry.given_up()));
    scalar("ib_scrape_mads", "MADs sent by this scrape (resends included)", double(mads));
    scalar("ib_scrape_mads_resent", "MADs sent again by the MAD engine after a timeout or BUSY", double(resent));
    scalar("ib_scrape_timeouts", "PM queries that went unanswered for good", double(st.timeouts));
    scalar("ib_scrape_failed_queries", "PM queries that failed for good (timeouts included)",
           double(st.queries_failed));
    scalar("ib_scrape_discovery_errors", "Discovery queries that failed for good (partial topology)",
           double(dr.errors.size()));
    scalar("ib_scrape_unreachable_nodes", "Nodes whose PMA did not answer ClassPortInfo", double(st.unreachable_nodes));
    scalar("ib_scrape_pm_class_port_infos", "PerfMgt ClassPortInfo queries (one per LID)", double(st.cpi));
    scalar("ib_scrape_pm_all_port_sums",
           "Switch AllPortSelect PortCounters sums read (PMAs with PortCountersExtended)", double(st.sums));
    scalar("ib_scrape_pm_clean_sums",
           "Sums without any error: their ports' PortCounters error counters are 0, not read one by one",
           double(st.clean_sums));
    scalar("ib_scrape_pm_port_counters_reads", "PortCounters queries of single ports", double(st.pc_reads));
    scalar("ib_scrape_pm_port_counters_ext_reads", "PortCountersExtended queries", double(st.ext_reads));
    scalar("ib_scrape_pm_details_reads", "PortRcvErrorDetails and PortXmitDiscardDetails queries (details collector)",
           double(st.details_reads));
    scalar("ib_scrape_pm_vl_reads", "PortVLXmitWaitCounters queries (vl collector)", double(st.vl_reads));
    scalar("ib_scrape_pm_vl_unsupported_nodes",
           "Nodes whose PMA has not got PortVLXmitWaitCounters (answered it with a MAD status; asked once while the "
           "exporter runs; vl collector)",
           double(vl_unsupported_.size()));
    scalar("ib_scrape_sa_no_path_lids",
           "LIDs the discovery reached whose PathRecord the SA answered with a status (no record): the SM has "
           "dropped them from its view, and its routes (OpenSM does so with nodes it lost SMPs to, until a later "
           "sweep finds them), so no PM query reaches them; their ports have ib_port_scrape_ok 0",
           double(st.no_path_lids));
    scalar("ib_scrape_sa_path_queries",
           "SA PathRecord queries for the PM reads (the table counts one; none when no collector reads the PM)",
           double(st.path_queries));
    w.family("ib_scrape_collector_enabled", "gauge", "1 for each collector that is on in this exporter, 0 if off");
    for (unsigned i = 0; i < N_COLLECTORS; ++i) {
      std::string l;
      prom::label(l, "collector", kCollectors[i].name);
      w.sample("ib_scrape_collector_enabled", l, uint64_t(on_[i]));
    }
    if (reset_ && want_.any())
      scalar("ib_scrape_saturated_resets", "Ports whose saturated counters were reset", double(st.resets));
  }
  const Config& cfg_;
  bool details_ = false, reset_ = false;
  bool on_[N_COLLECTORS] = {};
  H::CounterGroups want_;
  std::string port_type_ = "all";
  std::unique_ptr<Regex> regex_;
  const NodeNameMap* map_ = nullptr;  // the scrape's (set while it runs)
  std::string down_ports_ = "state";
  iba::FieldRef port_state_ = iba::field_named(iba::SMPPortInfo::DESC, "portState");
  iba::FieldRef op_vls_ = iba::field_named(iba::SMPPortInfo::DESC, "operationalVLs");
  // Node GUIDs whose PMA has not got the per-VL counters (kept from scrape
  // to scrape: asked once).
  std::unordered_set<uint64_t> vl_unsupported_;
  std::unordered_set<uint32_t> dead_nodes_;
  H::RetryBudget* retry_ = nullptr;  // the scrape's (set while it runs)
  static constexpr unsigned kAheadWorkers = 24;
  // Every port a scrape found (by node GUID and port number), until
  // forget_after_ after it was last found.
  struct KnownPort {
    std::string id, info;  // its series' labels, ib_port_info's
    Clock::time_point seen;
  };
  std::map<std::pair<uint64_t, unsigned>, KnownPort> known_;
  Clock::duration forget_after_{};
  size_t missing_ = 0;  // of them, not found by this scrape
};

FabricExport::FabricExport(const Config& cfg, const ExportOptions& opt) : impl_(std::make_unique<Impl>(cfg, opt)) {}
FabricExport::~FabricExport() = default;
void FabricExport::scrape(prom::Writer& out, double budget_s) { impl_->scrape(out, budget_s); }

}  // namespace ibcore::health
