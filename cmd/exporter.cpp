// exporter: the fabric's port counters and link states as Prometheus
// metrics, over HTTP (/metrics) or once on stdout (node_exporter's textfile
// collector).  A scrape discovers the fabric and reads every port's
// counters on the parallel scheduler through the PM access ibqueryerrors
// uses (core/health/pmaccess: one PathRecord table), with as few MADs as each PMA
// allows (core/health/pmscrape: a ClassPortInfo per LID, PortCountersExtended for
// the data counters, a switch's AllPortSelect sum proving its ports' error
// counters zero).  A scrape during trouble returns what it could read plus
// the error figures (timeouts, unreachable nodes, failed queries): it is
// bounded by the MAD timeouts and never fails whole.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <cstdio>
#include <mutex>
#include <unordered_set>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/http/http_server.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/health/health.h"
#include "core/health/pmscrape.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/obtain.h"
#include "core/rpc/sched.h"
#include "core/fabric/subnet.h"
#include "iba/enums.h"
#include "iba/introspect.h"
#include "iba/pm.h"
#include "core/out/log.h"

namespace {

using namespace ibcore;
namespace H = ibcore::health;

// A metric name from an IBA field name: "portXmitData" -> "port_xmit_data",
// "VL15Dropped" -> "vl15_dropped", "QP1Dropped" -> "qp1_dropped".
std::string snake(std::string_view f) {
  std::string s;
  for (size_t i = 0; i < f.size(); ++i) {
    char c = f[i];
    bool up = c >= 'A' && c <= 'Z';
    bool prev_lower = i && ((f[i - 1] >= 'a' && f[i - 1] <= 'z') || (f[i - 1] >= '0' && f[i - 1] <= '9'));
    bool next_lower = i + 1 < f.size() && f[i + 1] >= 'a' && f[i + 1] <= 'z';
    bool prev_up = i && f[i - 1] >= 'A' && f[i - 1] <= 'Z';
    if (up && i && (prev_lower || (prev_up && next_lower))) s += '_';
    s += up ? char(c - 'A' + 'a') : c;
  }
  return s;
}

// A Prometheus label value: backslash, double quote and newline escaped.
void label_value(std::string& out, std::string_view v) {
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
}

// What one port's scrape read.
struct PortRead {
  uint32_t slot = NO_INDEX;  // port slot in the subnet
  uint32_t node = NO_INDEX;
  uint8_t num = 0;           // port number
  uint16_t lid = 0;          // the LID its PM was asked at
  bool sw = false;           // a switch's port (its PMA's AllPortSelect sum covers it)
  bool rcv_ok = false, xmit_ok = false;
  H::PortCountersRead c;     // PortCounters / PortCountersExtended
  iba::PMPortRcvErrorDetails rcv;
  iba::PMPortXmitDiscardDetails xmit;
  unsigned saturated = 0;  // exported counters at their maximum
  bool reset = false;      // --reset-saturated cleared them
};

struct ScrapeStats {
  uint64_t queries_failed = 0, timeouts = 0, unreachable_nodes = 0, resets = 0;
  // PM MADs by kind (PortCountersReader)
  uint64_t cpi = 0, sums = 0, clean_sums = 0, pc_reads = 0, ext_reads = 0;
};

// The counters the saturation figure and --reset-saturated judge: the
// PortCounters counters the port's metrics take from it, as CounterSelect
// bits: the error counters in IBA order (bit i = health's counter i;
// PortXmitWait is CounterSelect2 bit 0), then the four data counters (bits
// 12-15, 32 bits wide) where PortCountersExtended does not replace them.
// A port whose counters all come from PortCountersExtended (64 bits):
// those at their maximum, counted, not reset.
struct Saturation {
  uint16_t select = 0;
  bool xmit_wait = false;
  unsigned count = 0;
};
Saturation saturation(const H::PortCountersRead& c) {
  Saturation s;
  if (c.source == H::CounterSource::Extended) {
    if (c.ext_ok)
      for (const iba::FieldDesc& f : iba::PMPortCountersExtended::DESC.field_list())
        if (H::ext_field_valid(c.caps, f.name) && iba::get_bits(c.ext.buf.data(), f.bit_off, f.width) == ~0ull)
          ++s.count;
    return s;
  }
  if (!c.pc_ok) return s;
  for (int i = 0; i < H::N_ERR; ++i) {
    if (H::err_value(c.pc, i) != H::err_max(i)) continue;
    ++s.count;
    if (i == H::PortXmitWait) s.xmit_wait = true;
    else s.select |= uint16_t(1u << i);
  }
  if (c.source == H::CounterSource::PortCounters)
    for (int i = 0; i < 4; ++i)
      if (H::data_value(c.pc, i) == 0xffffffffu) {
        ++s.count;
        s.select |= uint16_t(1u << (12 + i));
      }
  return s;
}

// Where the exposition text goes, 64 kB at a time: a k=32 fat tree's
// scrape is ~700 MB of text (2.5 million series), never held whole.
struct Sink {
  std::string buf;
  std::function<void(const char*, size_t)> write;
  void maybe_flush() {
    if (buf.size() >= (size_t(1) << 16)) flush();
  }
  void flush() {
    if (!buf.empty()) write(buf.data(), buf.size());
    buf.clear();
  }
};

// The read-ahead workers (the scheduler runs them to the end inside the
// walk's run()): kAheadWorkers while the walk keeps the MAD window busy;
// a worker taking an item while the window is less than half full and
// more items wait starts another, up to the window (+8, as parallel_for's
// users size it), so the reads left when the walk ends fill the window.
class ReadPool {
public:
  ReadPool(Scheduler& s, unsigned base, std::function<Task<>(size_t)> fn)
      : s_(s), base_(std::max(1u, base)), max_(std::max(base_, s.engine().max_outstanding() + 8)),
        fn_(std::move(fn)) {}
  ReadPool(const ReadPool&) = delete;
  ReadPool& operator=(const ReadPool&) = delete;
  void push(size_t k) {
    q_.push_back(k);
    if (running_ < base_) start();
  }

private:
  void start() {
    ++running_;
    s_.spawn(worker());
  }
  Task<> worker() {
    while (!q_.empty()) {
      size_t k = q_.front();
      q_.pop_front();
      const MadEngine& e = s_.engine();
      if (!q_.empty() && running_ < max_ && e.in_flight() + e.queued() < e.max_outstanding() / 2) start();
      co_await fn_(k);
    }
    --running_;
  }

  Scheduler& s_;
  unsigned base_, max_;
  unsigned running_ = 0;
  std::function<Task<>(size_t)> fn_;
  std::deque<size_t> q_;
};

class Exporter : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_option("--listen", listen_, "serve /metrics over HTTP on ADDR:PORT (default 127.0.0.1:9315)")
        ->option_text("<addr:port>");
    app.add_flag("--once", once_, "scrape once and write the metrics to stdout (textfile collector)");
    app.add_flag("--details", details_, "also read PortRcvErrorDetails and PortXmitDiscardDetails");
    app.add_flag("--reset-saturated", reset_, "reset the PortCounters counters found at their maximum");
    ibtool::add_common_options(app, config(), ibtool::opt::Mad | ibtool::opt::MKey | ibtool::opt::NodeNameMap |
                                        ibtool::opt::Outstanding | ibtool::opt::SaPath | ibtool::opt::SMKey);
  }

  int run() override {
    if (once_) {
      Sink out{{}, [](const char* d, size_t n) { std::fwrite(d, 1, n, stdout); }};
      scrape(out);
      return 0;
    }
    std::string host = "127.0.0.1";
    int port = 9315;
    if (!listen_.empty()) {
      size_t c = listen_.rfind(':');
      uint64_t p = 0;
      if (c == std::string::npos || !ibtool::parse_int(listen_.substr(c + 1), p) || p == 0 || p > 65535) {
        ibcore::log::info("exporter: --listen wants ADDR:PORT, not '%s'\n", listen_.c_str());
        return 2;
      }
      host = listen_.substr(0, c);
      if (host.size() > 1 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
      port = int(p);
    }
    ibtool_http_serve_fn serve = load_http();
    if (!serve) return 1;
    char err[256] = "";
    serving_ = "http://" + host + ":" + std::to_string(port) + "/metrics";
    int rc = serve(host.c_str(), port, &Exporter::handle, this, err, sizeof err);
    if (rc) ibcore::log::info("exporter: %s\n", err);
    return rc ? 1 : 0;
  }

private:
  // The HTTP module (cmd/http/http_server.cpp): next to the binary (the
  // build tree), else where it is installed.
  static ibtool_http_serve_fn load_http() {
    std::string here;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
      here.assign(exe, size_t(n));
      here = here.substr(0, here.rfind('/') + 1);
    }
    std::string tried;
    for (std::string dir : {here, std::string(IBTOOL_PLUGIN_DIR) + "/"}) {
      std::string lib = dir + "libibtool_http.so";
      if (void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL))
        if (void* f = dlsym(h, "ibtool_http_serve")) return reinterpret_cast<ibtool_http_serve_fn>(f);
      const char* e = dlerror();
      tried += std::string("\n  ") + (e ? e : lib.c_str());
    }
    ibcore::log::info("exporter: --listen needs the HTTP module libibtool_http.so (--once does not):%s\n",
                 tried.c_str());
    return nullptr;
  }

  // A GET from the HTTP module (one of its threads): /metrics scrapes,
  // written out as it is formatted, one scrape at a time (they share the
  // port's MAD window).
  std::string serving_;  // the URL, for the line once the server listens
  static int handle(void* ctx, const char* path, ibtool_http_write write, void* w) {
    auto* self = static_cast<Exporter*>(ctx);
    if (!path) {  // listening
      ibcore::log::info("exporter: serving %s\n", self->serving_.c_str());
      return 0;
    }
    if (std::strcmp(path, "/metrics") != 0) {
      static const char text[] = "ibtool exporter: metrics at /metrics\n";
      write(w, text, sizeof text - 1);
      return std::strcmp(path, "/") == 0 ? 200 : 404;
    }
    std::lock_guard<std::mutex> l(self->one_at_a_time_);
    Sink out{{}, [&](const char* d, size_t n) { write(w, d, n); }};
    self->scrape(out);
    return 200;
  }

  // One scrape, its exposition text into sink.  Never throws.
  void scrape(Sink& sink) {
    auto t0 = std::chrono::steady_clock::now();
    Subnet db;
    std::deque<PortRead> all;  // (stable while it grows)
    ScrapeStats st;
    DiscoveryResult dr;
    uint64_t mads = 0, resent = 0;
    bool up = true;
    try {
      H::PmSession ses(config());
      ses.pm().read_path_table();
      H::PortCountersReader reader(ses.pm());
      auto read = [&](size_t k) -> Task<> { co_await read_port(reader, all[k], st); };
      // Read ahead while discovery walks, as ibqueryerrors does: a node's
      // ports as soon as its LID is known (a switch's all at its port 0
      // LID, a CA's port at its own), by a few workers so that the walk
      // keeps most of the MAD window, more once it leaves room.
      ReadPool ahead(ses.sched(), kAheadWorkers, read);
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
      db = discover_live(config(), o, &dr, &ses.sched());
      ses.pm().use_subnet(&db);
      // The rest: every existing port not read ahead (switches' port 0
      // with enhanced port 0, nodes the walk did not report).
      size_t first = all.size();
      for (uint32_t n = 0; n < db.node_count(); ++n) {
        const Node& x = db.node(n);
        for (unsigned p = x.is_switch() && x.enhsp0 ? 0 : 1; p <= x.nports; ++p)
          if (db.port(x, p).exists) add(db, n, p, x.is_switch() ? x.smalid : db.port(x, p).base_lid);
      }
      // (a node whose PMA does not answer ClassPortInfo costs one timeout:
      // PmAccess keeps the failure for its LID)
      auto rest = [&](size_t k) -> Task<> { co_await read(first + k); };
      parallel_for(ses.sched(), all.size() - first, ses.sched().engine().max_outstanding() + 8, rest);
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
    } catch (const std::exception& e) {
      ibcore::report(e);
      up = false;
    }
    // The ports of the final database, in its order.
    // (by pointer: a PortRead is ~300 bytes, and 49k of them moved
    // through a sort cost more than the sort)
    std::vector<const PortRead*> reads;
    for (const PortRead& r : all)
      if (r.slot < db.port_slots() && db.port(r.slot).exists) reads.push_back(&r);
    std::sort(reads.begin(), reads.end(), [](const PortRead* a, const PortRead* b) { return a->slot < b->slot; });
    st.unreachable_nodes = dead_nodes_.size();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    format(sink, db, reads, st, dr, up, secs, mads, resent);
    sink.flush();
    if (config().verbose)
      ibcore::log::info("I: exporter: %zu ports, %llu MADs, discovery and reads %.3f s, then the text %.3f s\n",
                        reads.size(), (unsigned long long)mads, secs,
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - secs);
    dead_nodes_.clear();
  }

  Task<> read_port(H::PortCountersReader& reader, PortRead& r, ScrapeStats& st) {
    H::PmAccess& pm = reader.pm();
    uint8_t sel = r.num;
    co_await reader.read(r.lid, sel, r.sw, r.c);
    if (r.c.caps.failed) {
      dead_nodes_.insert(r.node);
      co_return;
    }
    st.queries_failed += r.c.failed;
    st.timeouts += r.c.timeouts;
    auto failed = [&](const MADError& e) {
      ++st.queries_failed;
      if (dynamic_cast<const MADTimeoutError*>(&e)) ++st.timeouts;
    };
    if (details_) {
      try {
        IBPath p = co_await pm.path(r.lid);
        iba::PMPortRcvErrorDetails q;
        q.set_portSelect(sel);
        r.rcv = co_await pm.sched().PerformanceGet(q, p);
        r.rcv_ok = true;
        iba::PMPortXmitDiscardDetails x;
        x.set_portSelect(sel);
        r.xmit = co_await pm.sched().PerformanceGet(x, p);
        r.xmit_ok = true;
      } catch (const MADError& e) {
        failed(e);
      }
    }
    Saturation s = saturation(r.c);
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
        failed(e);
      }
    }
  }

  // The exposition text (Prometheus text format 0.0.4).
  void format(Sink& sink, const Subnet& db, const std::vector<const PortRead*>& reads, const ScrapeStats& st,
                     const DiscoveryResult& dr, bool up, double secs, uint64_t mads, uint64_t resent) const {
    NodeNameMap map = NodeNameMap::open(config().node_name_map);
    std::string& o = sink.buf;
    // Labels of each port, built once.
    std::vector<std::string> labels(reads.size());
    for (size_t i = 0; i < reads.size(); ++i) {
      const Port& p = db.port(reads[i]->slot);
      const Node& n = db.node_of(p);
      std::string& l = labels[i];
      char g[24];
      std::snprintf(g, sizeof g, "0x%016llx", (unsigned long long)n.guid);
      l = "node_guid=\"";
      l += g;
      l += "\",node_desc=\"";
      label_value(l, map.remap(n.guid, n.description()));
      const char* tn = iba::enums::name_of(iba::enums::node_types(), unsigned(n.type));
      l += "\",node_type=\"";
      l += tn ? tn : "Unknown";
      l += "\",lid=\"" + std::to_string(reads[i]->lid) + "\",port=\"" + std::to_string(p.num) + "\"";
      if (const Port* r = db.peer(p)) {
        const Node& rn = db.node_of(*r);
        std::snprintf(g, sizeof g, "0x%016llx", (unsigned long long)rn.guid);
        l += ",remote_guid=\"";
        l += g;
        l += "\",remote_port=\"" + std::to_string(r->num) + "\",remote_desc=\"";
        label_value(l, map.remap(rn.guid, rn.description()));
        l += "\"";
      }
    }
    auto family = [&](const std::string& name, const char* type, const std::string& help) {
      o += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
    };
    auto sample = [&](const std::string& name, size_t i, uint64_t v) {
      o += name;
      o += '{';
      o += labels[i];
      o += "} ";
      o += std::to_string(v);
      o += '\n';
      sink.maybe_flush();
    };
    // Every counter field of an attribute, named after its IBA field, for
    // the ports where ok(read, field) (a family no port has is left out).
    auto counters = [&](const iba::StructDesc& desc, const char* prefix, const char* attr, auto ok, auto buf) {
      for (const iba::FieldDesc& f : desc.field_list()) {
        std::string_view fn = f.name;
        if (f.kind == iba::Kind::Rsv || fn == "portSelect" || fn.starts_with("counterSelect")) continue;
        std::string name = std::string(prefix) + snake(fn) + "_total";
        bool head = false;
        for (size_t i = 0; i < reads.size(); ++i) {
          if (!ok(*reads[i], fn)) continue;
          if (!head) family(name, "counter", std::string(attr) + "." + f.name);
          head = true;
          sample(name, i, iba::get_bits(buf(*reads[i]), f.bit_off, f.width));
        }
      }
    };
    // PortCounters: all of it without PortCountersExtended; its counters
    // other than the data counters where the extended data counters stand
    // for those; nothing where PortCountersExtended has every counter.
    counters(
        iba::PMPortCounters::DESC, "ib_port_counters_", "PortCounters",
        [](const PortRead& r, std::string_view fn) {
          return r.c.pc_ok && (r.c.source == H::CounterSource::PortCounters || !H::is_pc_data_field(fn));
        },
        [](const PortRead& r) { return r.c.pc.buf.data(); });
    counters(
        iba::PMPortCountersExtended::DESC, "ib_port_counters_ext_", "PortCountersExtended",
        [](const PortRead& r, std::string_view fn) { return r.c.ext_ok && H::ext_field_valid(r.c.caps, fn); },
        [](const PortRead& r) { return r.c.ext.buf.data(); });
    if (details_) {
      counters(
          iba::PMPortRcvErrorDetails::DESC, "ib_port_rcv_error_details_", "PortRcvErrorDetails",
          [](const PortRead& r, std::string_view) { return r.rcv_ok; },
          [](const PortRead& r) { return r.rcv.buf.data(); });
      counters(
          iba::PMPortXmitDiscardDetails::DESC, "ib_port_xmit_discard_details_", "PortXmitDiscardDetails",
          [](const PortRead& r, std::string_view) { return r.xmit_ok; },
          [](const PortRead& r) { return r.xmit.buf.data(); });
    }
    family("ib_port_counters_saturated", "gauge",
           "counters at their maximum, where they stop counting: the PortCounters counters this port's "
           "metrics take (where PortCountersExtended has every counter: its 64-bit counters)");
    for (size_t i = 0; i < reads.size(); ++i)
      if (reads[i]->c.pc_ok || (reads[i]->c.source == H::CounterSource::Extended && reads[i]->c.ext_ok))
        sample("ib_port_counters_saturated", i, reads[i]->saturated);
    if (reset_) {
      family("ib_port_counters_saturated_reset", "gauge", "1 when this scrape reset the saturated counters");
      for (size_t i = 0; i < reads.size(); ++i)
        if (reads[i]->saturated) sample("ib_port_counters_saturated_reset", i, reads[i]->reset);
    }
    // Link state from PortInfo (raw IBA values; the HELP gives the codes).
    struct LinkField {
      const char* field;
      const char* help;
    };
    static const LinkField LINK[] = {
        {"portState", "PortInfo.PortState: 1 Down, 2 Init, 3 Armed, 4 Active"},
        {"portPhysicalState", "PortInfo.PortPhysicalState: 2 Polling, 3 Disabled, 5 LinkUp, ..."},
        {"linkWidthActive", "PortInfo.LinkWidthActive: 1 1x, 2 4x, 4 8x, 8 12x, 16 2x"},
        {"linkWidthEnabled", "PortInfo.LinkWidthEnabled (bit mask of the widths above)"},
        {"linkSpeedActive", "PortInfo.LinkSpeedActive: 1 SDR, 2 DDR, 4 QDR"},
        {"linkSpeedEnabled", "PortInfo.LinkSpeedEnabled (bit mask of the speeds above)"},
        {"linkSpeedExtActive", "PortInfo.LinkSpeedExtActive: 1 FDR, 2 EDR, 4 HDR, 8 NDR (0: none)"},
        {"linkSpeedExtEnabled", "PortInfo.LinkSpeedExtEnabled (bit mask of the speeds above)"},
        {"linkSpeedExtActive2", "PortInfo.LinkSpeedExtActive2: 1 XDR (0: none; valid where CapabilityMask2 has "
                                "IsExtSpeeds2Supported)"},
        {"linkSpeedExtEnabled2", "PortInfo.LinkSpeedExtEnabled2 (bit mask: 1 XDR)"},
    };
    for (const LinkField& lf : LINK) {
      iba::FieldRef f = iba::field_named(iba::SMPPortInfo::DESC, lf.field);
      std::string name = "ib_port_" + snake(lf.field);
      family(name, "gauge", lf.help);
      for (size_t i = 0; i < reads.size(); ++i) {
        const Port& p = db.port(reads[i]->slot);
        // (a switch's ports: PortInfo of each port; port 0 has no link)
        if (p.has_info) sample(name, i, iba::get_bits(p.info.data(), f.bit_off, f.field->width));
      }
    }
    // The scrape itself.
    auto scalar = [&](const char* name, const char* type, const char* help, double v) {
      family(name, type, help);
      char b[64];
      std::snprintf(b, sizeof b, "%.17g", v);
      o += name;
      o += ' ';
      o += b;
      o += '\n';
    };
    scalar("ib_scrape_success", "gauge", "1 when the fabric could be discovered from the local port", up);
    scalar("ib_scrape_duration_seconds", "gauge", "time this scrape took", secs);
    scalar("ib_scrape_nodes", "gauge", "nodes discovered", double(db.node_count()));
    scalar("ib_scrape_ports", "gauge", "ports whose PM was asked", double(reads.size()));
    scalar("ib_scrape_mads", "gauge", "MADs sent by this scrape (resends included)", double(mads));
    scalar("ib_scrape_mads_resent", "gauge", "MADs sent again after a timeout or BUSY", double(resent));
    scalar("ib_scrape_timeouts", "gauge", "PM queries that timed out (after their retries)", double(st.timeouts));
    scalar("ib_scrape_failed_queries", "gauge", "PM queries that failed (timeouts included)",
           double(st.queries_failed));
    scalar("ib_scrape_discovery_errors", "gauge", "discovery queries that failed (partial topology)",
           double(dr.errors.size()));
    scalar("ib_scrape_unreachable_nodes", "gauge", "nodes whose PMA did not answer ClassPortInfo",
           double(st.unreachable_nodes));
    scalar("ib_scrape_pm_class_port_infos", "gauge", "PerfMgt ClassPortInfo queries (one per LID)",
           double(st.cpi));
    scalar("ib_scrape_pm_all_port_sums", "gauge",
           "switch AllPortSelect PortCounters sums read (PMAs with PortCountersExtended)", double(st.sums));
    scalar("ib_scrape_pm_clean_sums", "gauge",
           "sums without any error: their ports' PortCounters error counters are 0, not read one by one",
           double(st.clean_sums));
    scalar("ib_scrape_pm_port_counters_reads", "gauge", "PortCounters queries of single ports",
           double(st.pc_reads));
    scalar("ib_scrape_pm_port_counters_ext_reads", "gauge", "PortCountersExtended queries", double(st.ext_reads));
    if (reset_) scalar("ib_scrape_saturated_resets", "gauge", "ports whose saturated counters were reset",
                       double(st.resets));
  }

  std::string listen_;
  bool once_ = false, details_ = false, reset_ = false;
  std::unordered_set<uint32_t> dead_nodes_;
  std::mutex one_at_a_time_;
  static constexpr unsigned kAheadWorkers = 24;
};

}  // namespace

IBTOOL_COMMAND({.name = "exporter",
                .aliases = {},
                .summary = "serve the fabric's port counters and link states as Prometheus metrics",
                .description =
                    "Each scrape discovers the fabric and reads every port's counters in parallel, through "
                    "the same PM access as ibqueryerrors, with as few MADs as each PMA allows (see WHERE THE "
                    "COUNTERS COME FROM): the data counters from PortCountersExtended where the PMA has it, "
                    "else from PortCounters; the other counters from PortCounters, known to be 0 without a "
                    "query per port where a switch's AllPortSelect sum shows no error, or from "
                    "PortCountersExtended where it has the additional counters; --details adds "
                    "PortRcvErrorDetails and PortXmitDiscardDetails.  "
                    "Metrics: ib_port_counters_<field>_total and ib_port_counters_ext_<field>_total for "
                    "every counter (named after its IBA field), ib_port_counters_saturated, the link's "
                    "ib_port_port_state, ib_port_port_physical_state, ib_port_link_width_active/enabled, "
                    "ib_port_link_speed_active/enabled and ib_port_link_speed_ext_active/enabled, labelled "
                    "node_guid, node_desc (node-name-map applied), node_type, lid, port, remote_guid, "
                    "remote_port, remote_desc; and the scrape's own ib_scrape_success, "
                    "ib_scrape_duration_seconds, ib_scrape_mads, ib_scrape_mads_resent, ib_scrape_timeouts, "
                    "ib_scrape_failed_queries, ib_scrape_discovery_errors, ib_scrape_unreachable_nodes and "
                    "the PM queries by kind (ib_scrape_pm_*): "
                    "a scrape during trouble returns what it could read and these figures.  --listen "
                    "ADDR:PORT serves GET /metrics (default 127.0.0.1:9315), one scrape at a time; --once "
                    "writes one scrape to stdout (node_exporter's textfile collector).  "
                    "--reset-saturated resets only the PortCounters counters found at their maximum.",
                .usage = "[options] [--once | --listen ADDR:PORT]",
                .examples = "  exporter --listen 127.0.0.1:9315\n"
                            "  exporter --once > /var/lib/node_exporter/textfile/ib.prom.$$ && "
                            "mv /var/lib/node_exporter/textfile/ib.prom.$$ /var/lib/node_exporter/textfile/ib.prom",
                .make = [] { return std::make_unique<Exporter>(); },
                .own = true});
