// exporter: the fabric's port counters and link states as Prometheus
// metrics, over HTTP (/metrics) or once on stdout (node_exporter's textfile
// collector).  A scrape discovers the fabric and reads every port's
// PortCounters (and PortCountersExtended where the PMA has it) on the
// parallel scheduler through the PM access ibqueryerrors uses
// (core/pmaccess: one PathRecord table, a ClassPortInfo per LID).  A scrape
// during trouble returns what it could read plus the error figures
// (timeouts, unreachable nodes, failed queries): it is bounded by the MAD
// timeouts and never fails whole.
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
#include "core/config.h"
#include "core/error.h"
#include "core/health.h"
#include "core/nodemap.h"
#include "core/obtain.h"
#include "core/sched.h"
#include "core/subnet.h"
#include "iba/enums.h"
#include "iba/introspect.h"
#include "iba/pm.h"
#include "core/log.h"

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
  bool pc_ok = false, ext_ok = false, rcv_ok = false, xmit_ok = false;
  iba::PMPortCounters pc;
  iba::PMPortCountersExtended ext;
  iba::PMPortRcvErrorDetails rcv;
  iba::PMPortXmitDiscardDetails xmit;
  unsigned saturated = 0;  // PortCounters counters at their maximum
  bool reset = false;      // --reset-saturated cleared them
};

struct ScrapeStats {
  uint64_t queries_failed = 0, timeouts = 0, unreachable_nodes = 0, resets = 0;
};

// The PortCounters counters the reset and saturation figures judge, as
// CounterSelect bits: the error counters in IBA order (bit i = health's
// counter i; PortXmitWait is CounterSelect2 bit 0), then the four data
// counters (bits 12-15, 32 bits wide).
struct Saturation {
  uint16_t select = 0;
  bool xmit_wait = false;
  unsigned count = 0;
};
Saturation saturation(const iba::PMPortCounters& pc) {
  Saturation s;
  for (int i = 0; i < H::N_ERR; ++i) {
    if (H::err_value(pc, i) != H::err_max(i)) continue;
    ++s.count;
    if (i == H::PortXmitWait) s.xmit_wait = true;
    else s.select |= uint16_t(1u << i);
  }
  for (int i = 0; i < 4; ++i)
    if (H::data_value(pc, i) == 0xffffffffu) {
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
      auto read = [&](size_t k) -> Task<> { co_await read_port(ses.pm(), all[k], st); };
      // Read ahead while discovery walks, as ibqueryerrors does: a node's
      // ports as soon as its LID is known (a switch's all at its port 0
      // LID, a CA's port at its own), by a few workers so that the walk
      // keeps most of the MAD window.
      WorkQueue<size_t> ahead(ses.sched(), kAheadWorkers, read);
      std::unordered_set<uint32_t> queued;  // port slots
      auto add = [&](const Subnet& d, uint32_t n, unsigned p, uint16_t lid) {
        uint32_t slot = d.port_index(n, p);
        if (slot == NO_INDEX || !lid || !queued.insert(slot).second) return false;
        PortRead r;
        r.slot = slot;
        r.node = n;
        r.num = uint8_t(p);
        r.lid = lid;
        all.push_back(r);
        return true;
      };
      DiscoveryOptions o;
      o.on_port_lid = [&](const Subnet& d, uint32_t n, unsigned port) {
        const Node& x = d.node(n);
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
    } catch (const std::exception& e) {
      ibcore::report(e);
      up = false;
    }
    // The ports of the final database, in its order.
    std::vector<PortRead> reads;
    for (PortRead& r : all)
      if (r.slot < db.port_slots() && db.port(r.slot).exists) reads.push_back(std::move(r));
    std::sort(reads.begin(), reads.end(), [](const PortRead& a, const PortRead& b) { return a.slot < b.slot; });
    st.unreachable_nodes = dead_nodes_.size();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    format(sink, db, reads, st, dr, up, secs, mads, resent);
    sink.flush();
    dead_nodes_.clear();
  }

  Task<> read_port(H::PmAccess& pm, PortRead& r, ScrapeStats& st) {
    uint8_t sel = r.num;
    bool cap_failed = false;
    uint16_t cap = co_await pm.cap_mask(r.lid, &cap_failed);
    if (cap_failed) {
      dead_nodes_.insert(r.node);
      co_return;
    }
    auto failed = [&](const MADError& e) {
      ++st.queries_failed;
      if (dynamic_cast<const MADTimeoutError*>(&e)) ++st.timeouts;
    };
    try {
      r.pc = co_await pm.counters(r.lid, sel);
      r.pc_ok = true;
    } catch (const MADError& e) {
      failed(e);
      co_return;
    }
    if (cap & (H::PM_CAP_EXT_WIDTH | H::PM_CAP_EXT_WIDTH_NOIETF)) {
      try {
        r.ext = co_await pm.counters_ext(r.lid, sel);
        r.ext_ok = true;
      } catch (const MADError& e) {
        failed(e);
      }
    }
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
    Saturation s = saturation(r.pc);
    r.saturated = s.count;
    if (reset_ && s.count) {
      // Only the saturated counters: CounterSelect (and CounterSelect2 for
      // PortXmitWait) name exactly those.
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
  void format(Sink& sink, const Subnet& db, const std::vector<PortRead>& reads, const ScrapeStats& st,
                     const DiscoveryResult& dr, bool up, double secs, uint64_t mads, uint64_t resent) const {
    NodeNameMap map = NodeNameMap::open(config().node_name_map);
    std::string& o = sink.buf;
    // Labels of each port, built once.
    std::vector<std::string> labels(reads.size());
    for (size_t i = 0; i < reads.size(); ++i) {
      const Port& p = db.port(reads[i].slot);
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
      l += "\",lid=\"" + std::to_string(reads[i].lid) + "\",port=\"" + std::to_string(p.num) + "\"";
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
    // Every counter field of an attribute, named after its IBA field.
    auto counters = [&](const iba::StructDesc& desc, const char* prefix, const char* attr, auto ok, auto buf) {
      for (const iba::FieldDesc& f : desc.field_list()) {
        std::string_view fn = f.name;
        if (f.kind == iba::Kind::Rsv || fn == "portSelect" || fn.starts_with("counterSelect")) continue;
        std::string name = std::string(prefix) + snake(fn) + "_total";
        family(name, "counter", std::string(attr) + "." + f.name);
        for (size_t i = 0; i < reads.size(); ++i)
          if (ok(reads[i])) sample(name, i, iba::get_bits(buf(reads[i]), f.bit_off, f.width));
      }
    };
    counters(
        iba::PMPortCounters::DESC, "ib_port_counters_", "PortCounters", [](const PortRead& r) { return r.pc_ok; },
        [](const PortRead& r) { return r.pc.buf.data(); });
    counters(
        iba::PMPortCountersExtended::DESC, "ib_port_counters_ext_", "PortCountersExtended",
        [](const PortRead& r) { return r.ext_ok; }, [](const PortRead& r) { return r.ext.buf.data(); });
    if (details_) {
      counters(
          iba::PMPortRcvErrorDetails::DESC, "ib_port_rcv_error_details_", "PortRcvErrorDetails",
          [](const PortRead& r) { return r.rcv_ok; }, [](const PortRead& r) { return r.rcv.buf.data(); });
      counters(
          iba::PMPortXmitDiscardDetails::DESC, "ib_port_xmit_discard_details_", "PortXmitDiscardDetails",
          [](const PortRead& r) { return r.xmit_ok; }, [](const PortRead& r) { return r.xmit.buf.data(); });
    }
    family("ib_port_counters_saturated", "gauge",
           "PortCounters counters at their maximum (they stop counting there)");
    for (size_t i = 0; i < reads.size(); ++i)
      if (reads[i].pc_ok) sample("ib_port_counters_saturated", i, reads[i].saturated);
    if (reset_) {
      family("ib_port_counters_saturated_reset", "gauge", "1 when this scrape reset the saturated counters");
      for (size_t i = 0; i < reads.size(); ++i)
        if (reads[i].saturated) sample("ib_port_counters_saturated_reset", i, reads[i].reset);
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
        const Port& p = db.port(reads[i].slot);
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
                    "Each scrape discovers the fabric and reads every port's PortCounters (and "
                    "PortCountersExtended where the PMA has it; --details adds PortRcvErrorDetails and "
                    "PortXmitDiscardDetails) in parallel, through the same PM access as ibqueryerrors. "
                    "Metrics: ib_port_counters_<field>_total and ib_port_counters_ext_<field>_total for "
                    "every counter (named after its IBA field), ib_port_counters_saturated, the link's "
                    "ib_port_port_state, ib_port_port_physical_state, ib_port_link_width_active/enabled, "
                    "ib_port_link_speed_active/enabled and ib_port_link_speed_ext_active/enabled, labelled "
                    "node_guid, node_desc (node-name-map applied), node_type, lid, port, remote_guid, "
                    "remote_port, remote_desc; and the scrape's own ib_scrape_success, "
                    "ib_scrape_duration_seconds, ib_scrape_mads, ib_scrape_mads_resent, ib_scrape_timeouts, "
                    "ib_scrape_failed_queries, ib_scrape_discovery_errors and ib_scrape_unreachable_nodes: "
                    "a scrape during trouble returns what it could read and these figures.  --listen "
                    "ADDR:PORT serves GET /metrics (default 127.0.0.1:9315), one scrape at a time; --once "
                    "writes one scrape to stdout (node_exporter's textfile collector).  "
                    "--reset-saturated resets only the PortCounters counters found at their maximum.",
                .usage = "[options] [--once | --listen ADDR:PORT]",
                .examples = "  exporter --listen 127.0.0.1:9315\n"
                            "  exporter --once > /var/lib/node_exporter/textfile/ib.prom.$$ && "
                            "mv /var/lib/node_exporter/textfile/ib.prom.$$ /var/lib/node_exporter/textfile/ib.prom",
                .make = [] { return std::make_unique<Exporter>(); }});
