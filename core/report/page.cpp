#include "core/report/page.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/health/json_health.h"
#include "iba/enums.h"
#include "iba/smp.h"

namespace ibcore::reporting {

namespace {

namespace H = ibcore::health;

// A coordinate to a tenth, halves away from zero as std::round does, but
// without libm: a call into it makes the linker keep libm in DT_NEEDED, and
// ld.so loads it at every start of every command (docs/performance.md,
// 39k instructions of smpquery nodeinfo).  Exact for |v| < 2^52: the
// truncation is an integer and the fraction's subtraction is exact
// (checked against std::round on 10M values, halves and signs included).
double coord(double v) {
  const double x = v * 10;
  if (!(x > -0x1p52 && x < 0x1p52)) return x / 10;  // x an integer already (or NaN)
  double t = double(int64_t(x));
  if (x - t >= 0.5) t += 1;
  else if (t - x >= 0.5) t -= 1;
  return std::copysign(t, x) / 10;  // (-0.03 is -0 as std::round has it; copysign is inline)
}

const char* kind_name(Item::Kind k) {
  switch (k) {
    case Item::Kind::Switch: return "switch";
    case Item::Kind::Hosts: return "hosts";
    case Item::Kind::Node: return "node";
  }
  return "node";
}

void port_ref(JsonOut& j, const Data& d, uint32_t slot) {
  const Port& p = d.db.port(slot);
  j.obj().kv("node", d.id[p.node]).kv("portNum", p.num).end();
}

void summary(JsonOut& j, const Data& d, const Layout& l) {
  Summary s = summarize(d, l.depth);
  j.key("summary").obj();
  j.key("nodes").obj().kv("switches", s.switches).kv("CAs", s.cas).kv("routers", s.routers)
      .kv("total", d.db.node_count()).end();
  j.key("links").obj().kv("total", s.links);
  j.key("byWidth").obj();
  for (auto& [k, v] : s.by_width) j.kv(k, v);
  j.end().key("bySpeed").obj();
  for (auto& [k, v] : s.by_speed) j.kv(k, v);
  j.end().end();
  j.kv("degradedLinks", s.degraded_links).kv("widthDegraded", s.width_degraded)
      .kv("speedDegraded", s.speed_degraded).kv("portsDown", s.ports_down).kv("errorPorts", s.error_ports)
      .kv("depth", s.depth);
  j.key("errors").obj().kv("nodesChecked", d.scan.nodes_checked).kv("badNodes", d.scan.bad_nodes)
      .kv("portsChecked", d.scan.ports_checked).kv("badPorts", d.scan.bad_ports)
      .kv("pmaFailures", d.scan.pma_failures).end();
  j.key("sm").obj().kv("LID", d.sm.lid);
  if (d.sm.ok) {
    iba::SMPSMInfo info;
    info.set_GUID(d.sm.guid).set_priority(d.sm.priority).set_SMState(d.sm.state);
    // (actCount changes every sweep: left out, as the date is the only
    // thing two reports of one fabric differ in.)
    static constexpr std::string_view HIDE[] = {"SMKey", "actCount"};
    j.fields(iba::SMPSMInfo::DESC, info.buf.data(), HIDE);
  } else {
    j.ks("error", d.sm.error);
  }
  j.end();
  j.key("scrape").obj().kv("MADs", d.mads).kv("timeouts", d.timeouts).kv("resent", d.resent)
      .kv("discoveryErrors", d.discovery_errors).kv("unanswered", d.unanswered.size()).end();
  j.end();
}

void nodes(JsonOut& j, const Data& d, const Layout& l) {
  const Subnet& db = d.db;
  j.key("nodes").arr();
  for (uint32_t i : d.order) {
    const Node& n = db.node(i);
    const std::string desc = n.description();
    const char* tn = iba::enums::name_of(iba::enums::node_types(), unsigned(n.type));
    j.obj().kguid("nodeGUID", n.guid).kenum("nodeType", tn ? tn : "Unknown", unsigned(n.type));
    j.ks("name", d.map.remap(n.guid, desc)).ks("nodeDescription", desc);
    // (the page shows the map's name, else the description as it is:
    // "name" is the description made printable, as the other commands'.)
    if (d.map.find(n.guid)) j.kb("nameFromMap", true);
    if (n.is_switch()) j.kv("LID", H::port_lid(db, n, 0));
    j.kv("tier", l.tier[i]).key("x").real(coord(l.x[i])).key("y").real(coord(l.y[i])).kv("item", l.item_of[i]);
    j.key("ports").arr();
    for (unsigned p = n.is_switch() ? 0 : 1; p <= n.nports; ++p) {
      const Port& x = db.port(n, p);
      if (!x.exists) continue;
      uint32_t slot = db.port_index(i, p);
      j.obj().kv("portNum", p);
      if (!n.is_switch()) {
        j.kguid("portGUID", x.guid);
        if (x.base_lid) j.kv("LID", x.base_lid);
      }
      if (x.has_info && p)
        json_port_info_fields(j, x, {"portState", "portPhysicalState", "linkWidthActive", "linkSpeedActive"});
      if (x.peer != NO_INDEX) {
        j.key("remote");
        port_ref(j, d, x.peer);
      }
      const PortCounters& c = d.counters[slot];
      j.kb("countersKnown", c.known);
      if (c.failed) j.kb("countersFailed", true);
      if (c.known) {
        j.key("errors").obj();
        for (int k = 0; k < H::N_ERR; ++k)
          if (c.err[k]) j.kv(H::ERROR_COUNTERS.field(k), c.err[k]);
        j.end();
        if (c.over) {
          j.key("overThreshold").arr();
          for (int k = 0; k < H::N_ERR; ++k)
            if (c.over & (1u << k)) j.str(H::ERROR_COUNTERS.field(k));
          j.end();
        }
      }
      j.end();
    }
    j.end().end();
  }
  j.end();
}

void links(JsonOut& j, const Data& d) {
  const Subnet& db = d.db;
  j.key("links").arr();
  for (size_t k = 0; k < d.links.size(); ++k) {
    const Link& lk = d.links[k];
    const Port& a = db.port(lk.a);
    j.obj().key("from");
    port_ref(j, d, lk.a);
    j.key("to");
    port_ref(j, d, lk.b);
    auto pi = a.port_info();
    j.kenum("linkWidthActive", iba::enums::LINK_WIDTH, pi.linkWidthActive());
    unsigned es = ext_speed_active(db, a);
    if (es) j.kenum("linkSpeedActive", iba::enums::LINK_SPEED_EXT, es);
    else j.kenum("linkSpeedActive", iba::enums::LINK_SPEED, pi.linkSpeedActive());
    j.ks("status", status_name(d.link_status[k]));
    if (!d.link_why[k].empty()) j.ks("why", d.link_why[k]);
    j.end();
  }
  j.end();
}

void findings(JsonOut& j, const Data& d) {
  j.key("findings").arr();
  for (const H::Finding& f : d.findings) {
    j.obj().kv("node", d.id[f.node]).kv("portNum", unsigned(f.port));
    if (f.lid) j.kv("LID", f.lid);
    if (f.check) j.ks("check", f.check);
    if (f.field) j.ks("field", f.field);
    if (f.numeric) j.kv("value", f.value);
    else if (!f.value_name.empty()) j.ks("value", f.value_name);
    if (!f.expected.empty()) j.ks("expected", f.expected);
    j.ks("finding", f.what).end();
  }
  j.end();
  j.key("unanswered").arr();
  for (const Unanswered& u : d.unanswered) {
    j.obj().key("node");
    if (u.node == NO_INDEX) j.null();
    else j.num(d.id[u.node]);
    j.ks("what", u.what).end();
  }
  j.end();
}

void layout(JsonOut& j, const Data& d, const Layout& l) {
  j.key("layout").obj().key("width").real(coord(l.width)).key("height").real(coord(l.height)).kv("depth", l.depth);
  j.key("items").arr();
  for (const Item& it : l.items) {
    j.obj().ks("kind", kind_name(it.kind)).kv("node", d.id[it.node]);
    if (it.kind == Item::Kind::Hosts) {
      j.key("hosts").arr();
      for (uint32_t h : it.hosts) j.num(d.id[h]);
      j.end();
    }
    j.kv("tier", it.tier).key("x").real(coord(it.x)).key("y").real(coord(it.y)).end();
  }
  j.end().key("edges").arr();
  for (const Edge& e : l.edges) {
    LinkStatus worst = LinkStatus::Ok;
    j.obj().kv("a", e.a).kv("b", e.b).key("links").arr();
    for (uint32_t k : e.links) {
      j.num(k);
      worst = std::max(worst, d.link_status[k]);
    }
    j.end().ks("status", status_name(worst)).end();
  }
  j.end().end();
}

void baseline(JsonOut& j, const Data& d, const Comparison& c) {
  const Subnet& db = d.db;
  j.key("baseline").obj().ks("file", c.file).ks("generated", c.generated);
  j.key("linksGone").arr();
  for (const OldLink& o : c.gone) {
    j.obj();
    for (int e = 0; e < 2; ++e)
      j.key(e ? "to" : "from").obj().kguid("nodeGUID", o.guid[e]).kv("portNum", o.port[e]).ks("name", o.name[e]).end();
    j.end();
  }
  j.end().key("linksNew").arr();
  for (uint32_t k : c.added) j.num(k);
  j.end().key("countersRose").arr();
  std::vector<Comparison::Rise> rose = c.rose;
  std::sort(rose.begin(), rose.end(), [&](const Comparison::Rise& a, const Comparison::Rise& b) {
    auto k = [&](const Comparison::Rise& r) {
      return std::tuple(d.id[db.port(r.slot).node], db.port(r.slot).num, r.counter);
    };
    return k(a) < k(b);
  });
  for (const Comparison::Rise& r : rose)
    j.obj().kv("node", d.id[db.port(r.slot).node]).kv("portNum", db.port(r.slot).num)
        .ks("counter", H::ERROR_COUNTERS.field(r.counter)).kv("was", r.was).kv("now", r.now).end();
  j.end().end();
}

}  // namespace

void write_json(JsonOut& j, const Data& d, const Layout& l, const Comparison* cmp, const std::string& generated) {
  j.obj().ks("generated", generated).ks("ibtoolVersion", IBTOOL_VERSION);
  summary(j, d, l);
  json_thresholds(j, d.thr);
  nodes(j, d, l);
  links(j, d);
  findings(j, d);
  layout(j, d, l);
  if (cmp) baseline(j, d, *cmp);
  j.end();
}

std::string page(const std::string& json, const std::string& title) {
  // The document inside a <script> element: no '<' may appear in it (a
  // node description holding "</script>" would end the element); JSON
  // lets a string say it as \u003c.
  std::string data;
  data.reserve(json.size() + 64);
  for (char c : json) {
    if (c == '<') data += "\\u003c";
    else data += c;
  }
  std::string t;
  for (char c : title) {
    if (c == '<') t += "&lt;";
    else if (c == '>') t += "&gt;";
    else if (c == '&') t += "&amp;";
    else t += c;
  }
  std::string out;
  out.reserve(PAGE_HTML.size() + PAGE_CSS.size() + PAGE_JS.size() + data.size() + 256);
  std::string_view h = PAGE_HTML;
  auto put = [&](std::string_view mark, std::string_view with) {
    size_t at = h.find(mark);
    if (at == std::string_view::npos) return;
    out.append(h.substr(0, at)).append(with);
    h.remove_prefix(at + mark.size());
  };
  // (in the template's order)
  put("@TITLE@", t);
  put("/*@CSS@*/", PAGE_CSS);
  put("@DATA@", data);
  put("/*@JS@*/", PAGE_JS);
  out.append(h);
  return out;
}

}  // namespace ibcore::reporting
