// The exporter's port series and the exposition's order
// (export_collectors.h ExportPorts).
#include <cstdio>

#include "core/health/export_collectors.h"
#include "iba/enums.h"

namespace ibcore::health {

namespace {
std::string hex_guid(uint64_t g) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%016llx", (unsigned long long)g);
  return std::string(b);
}
}  // namespace

void ExportPorts::write(prom::Writer& w, const ExportSettings& s, const NodeNameMap& map, ScrapeView& v) {
  const Subnet& db = *v.db;
  const auto& reads = v.reads;
  // Each port's identity (the labels of every series of it: node GUID and
  // port number, which do not change while the port exists) and its
  // description (ib_port_info's further labels: LID, names, the remote
  // end, which do).
  v.id.assign(reads.size(), {});
  v.counters_of.assign(reads.size(), false);
  const Clock::time_point now = Clock::now();
  for (size_t i = 0; i < reads.size(); ++i) {
    const Port& p = db.port(reads[i]->slot);
    prom::label(v.id[i], "node_guid", hex_guid(db.node_of(p).guid));
    prom::label(v.id[i], "port", std::to_string(p.num));
    v.counters_of[i] = reads[i]->read && !s.select.state_only(db, reads[i]->slot);
  }
  w.family("ib_port_info", "gauge",
           "A port's description, always 1: node description (node-name-map applied) and type, LID, and the "
           "node GUID, port and description of the port at the other end of its link");
  for (size_t i = 0; i < reads.size(); ++i) {
    const Port& p = db.port(reads[i]->slot);
    const Node& n = db.node_of(p);
    std::string l = v.id[i];
    prom::label(l, "node_desc", map.remap(n.guid, n.description()));
    const char* tn = iba::enums::name_of(iba::enums::node_types(), unsigned(n.type));
    prom::label(l, "node_type", tn ? tn : "Unknown");
    prom::label(l, "lid", std::to_string(reads[i]->lid));
    if (const Port* r = db.peer(p)) {
      const Node& rn = db.node_of(*r);
      prom::label(l, "remote_guid", hex_guid(rn.guid));
      prom::label(l, "remote_port", std::to_string(r->num));
      prom::label(l, "remote_desc", map.remap(rn.guid, rn.description()));
    }
    w.sample("ib_port_info", l, uint64_t(1));
    if (v.up) {
      KnownPort& k = known_[{n.guid, p.num}];
      k.id = v.id[i];
      k.info = std::move(l);
      k.seen = now;
    }
  }
  // The ports earlier scrapes found and this one did not: as last seen,
  // until forget_after_ (a scrape that found nothing, ib_scrape_success 0,
  // says so itself: it neither shows nor ages them).
  std::vector<const KnownPort*> missing;
  if (v.up)
    for (auto it = known_.begin(); it != known_.end();) {
      uint32_t n = it->second.seen == now ? NO_INDEX : db.node_by_guid(it->first.first);
      if (it->second.seen == now) {
        ++it;
      } else if (now - it->second.seen > forget_after_ || (n != NO_INDEX && !s.select.node(db, n).value_or(true))) {
        // (forgotten; or its node is found and no longer selected)
        it = known_.erase(it);
      } else {
        missing.push_back(&it->second);
        w.sample("ib_port_info", it->second.info, uint64_t(1));
        ++it;
      }
    }
  v.missing = missing.size();
  if (s.pm_wanted()) {
    w.family("ib_port_scrape_ok", "gauge",
             "1 when every query of this port's counters was answered in this scrape, 0 when some of its "
             "counter series are missing from it (or the port itself: see ib_port_missing_seconds)");
    for (size_t i = 0; i < reads.size(); ++i) w.sample("ib_port_scrape_ok", v.id[i], uint64_t(reads[i]->ok(s.details)));
    for (const KnownPort* k : missing) w.sample("ib_port_scrape_ok", k->id, uint64_t(0));
  }
  if (!missing.empty()) {
    w.family("ib_port_missing_seconds", "gauge",
             "Seconds since a port an earlier scrape found was last found: this scrape did not reach it (its "
             "node did not answer the discovery, or its link is gone); exported for --forget-after seconds");
    for (const KnownPort* k : missing)
      w.sample("ib_port_missing_seconds", k->id, std::chrono::duration<double>(now - k->seen).count());
  }
  collect_counters(w, s, v);
  if (s.details) collect_details(w, s, v);
  if (s.on[C_VL]) collect_vl(w, s, v);
  collect_saturation(w, s, v);
  if (s.on[C_STATE] || s.on[C_LINK]) collect_link(w, s, v);
  if (s.on[C_SCRAPE]) collect_scrape(w, s, v);
}

}  // namespace ibcore::health
