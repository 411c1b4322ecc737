// ibqueryerrors' report of the fabric counter scan (errorreport.h).
#include "core/health/errorreport.h"

#include <unistd.h>

#include <array>
#include <cinttypes>
#include <stdexcept>

#include "core/base/error.h"
#include "core/fabric/netprint.h"
#include "core/health/checks.h"
#include "core/out/log.h"
#include "core/out/print.h"
#include "iba/introspect.h"
#include "iba/refprint_smp.h"

namespace ibcore::health {

namespace {

// The name of the field desc declares at bit_off (--json's key for it).
const char* declared_at(const iba::StructDesc& desc, uint32_t bit_off) {
  for (const iba::FieldDesc& f : desc.field_list())
    if (f.bit_off == bit_off && f.kind != iba::Kind::Rsv) return f.name;
  throw std::logic_error(std::string("no field at bit ") + std::to_string(bit_off) + " of " + desc.name);
}

// A failed PMA query: a warning on stderr, counted in the summary.  The
// lines are the reference's (scripts count them): libibmad's for a
// timeout, then ibqueryerrors' own, each "ibwarn: [pid] function: ",
// fn being the reference function that reads that attribute.
void warn_timeout(uint16_t lid) {
  log::warn("ibwarn: [%d] mad_rpc: _do_madrpc failed; dport (Lid %u)\n", int(::getpid()), unsigned(lid));
}
void warn(const MADError& e, const char* attr, const std::string& name, uint16_t lid, unsigned port,
          const char* fn) {
  if (dynamic_cast<const MADTimeoutError*>(&e)) warn_timeout(lid);
  log::warn("ibwarn: [%d] %s: %s query failed on %s, Lid %u port %u\n", int(::getpid()), fn, attr, name.c_str(),
            unsigned(lid), port);
  if (log::verbosity()) log::text(log::Level::error, e.dump_str(log::verbosity() - 1));
}

// A failed read's MADError to warn(), from its exception.
void warn(const std::exception_ptr& e, const char* attr, const std::string& name, uint16_t lid, unsigned port,
          const char* fn) {
  try {
    std::rethrow_exception(e);
  } catch (const MADError& m) {
    warn(m, attr, name, lid, port, fn);
  }
}

// The non-zero fields of a counter's details attribute into e.  The
// reference labels them crosswise: PortXmitDiscardDetails' fields under
// the PortRcvErrorDetails names and PortRcvErrorDetails' under the
// PortXmitDiscardDetails names (both read from offset 32 on); the labels
// are kept for scripts that parse its output.
void details(ReportedError& e, const ErrorRow& r) {
  std::array<uint64_t, 4> f{};
  if (e.counter == PortXmitDiscards && r.xmit) {
    const auto& x = *r.xmit;
    f = {x.portInactiveDiscards(), x.portNeighborMTUDiscards(), x.portSwLifetimeLimitDiscards(),
         x.portSwHOQLifetimeLimitDiscards()};
  } else if (e.counter == PortRcvErrors && r.rcv) {
    const auto& x = *r.rcv;
    f = {x.portLocalPhysicalErrors(), x.portMalformedPacketErrors(), x.portBufferOverrunErrors(),
         x.portDLIDMappingErrors()};
  } else {
    return;
  }
  static const char* const rcv_names[] = {"PortLocalPhysicalErrors", "PortMalformedPktErrors",
                                          "PortBufferOverrunErrors", "PortDLIDMappingErrors"};
  static const char* const xmit_names[] = {"PortInactiveDiscards", "PortNeighborMTUDiscards",
                                           "PortSwLifetimeLimitDiscards", "PortSwHOQLifetimeLimitDiscards"};
  const bool xmit = e.counter == PortXmitDiscards;
  const char* const* names = xmit ? rcv_names : xmit_names;
  // (--json names each field as iba/pm.h declares it in the attribute
  // it is in: the four 16-bit counters from bit 32 on)
  const iba::StructDesc& dd = xmit ? iba::PMPortXmitDiscardDetails::DESC : iba::PMPortRcvErrorDetails::DESC;
  for (size_t k = 0; k < f.size(); ++k)
    if (f[k]) e.details.push_back({names[k], declared_at(dd, uint32_t(32 + 16 * k)), f[k]});
}
}  // namespace

ErrorReport::ErrorReport(const Subnet& db, const NodeNameMap& map, const std::vector<uint32_t>& nodes,
                         std::vector<ReportedNode>& out, bool counters_only, int verbose)
    : db_(db), map_(map), out_(out), counters_only_(counters_only), verbose_(verbose) {
  for (size_t i = 0; i < nodes.size(); ++i) at_[nodes[i]] = i;
}

std::string ErrorReport::name(uint32_t node) const {
  return map_.remap(db_.node(node).guid, db_.node(node).description());
}

void ErrorReport::pma_failed(uint32_t node, uint16_t lid, const PmaCaps& got) {
  if (got.timed_out) warn_timeout(lid);
  log::warn("ibwarn: [%d] query_cap_mask: classportinfo query failed on %s, Lid %u port %u\n", int(::getpid()),
            name(node).c_str(), unsigned(lid), db_.node(node).is_switch() ? 0u : 1u);
}

void ErrorReport::row(const ErrorRow& r) {
  const Node& n = db_.node(r.node);
  const std::string nm = name(r.node);
  const PmaCaps& caps = *r.caps;
  if (r.failed == ErrorRow::Failed::Counters) {
    warn(r.error, "IB_GSI_PORT_COUNTERS", nm, r.lid, r.port, "print_errors");
    return;
  }
  if (counters_only_ && r.failed == ErrorRow::Failed::Data) {
    warn(r.error, caps.ext() ? "IB_GSI_PORT_COUNTERS_EXT" : "IB_GSI_PORT_COUNTERS", nm, r.lid, r.port,
         "print_data_cnts");
    return;
  }
  ReportedPort po{r.port, n.guid, {}, {}};
  if (!counters_only_) {
    po.guid = r.port == 0xff ? db_.port(n, 0).guid : db_.port(n, r.port).guid;
    if (r.port == 0xff && !po.guid) po.guid = n.guid;
  }
  for (int i = 0; i < N_ERR; ++i) {
    if (!(r.over & (1u << i))) continue;
    ReportedError& e = po.errors.emplace_back(ReportedError{i, error_value(r.pc, caps, i), {}});
    if (i == PortXmitDiscards && r.xmit_error)
      warn(r.xmit_error, "PortXmitDiscardDetails", nm, r.lid, r.port, "query_and_dump");
    if (i == PortRcvErrors && r.rcv_error)
      warn(r.rcv_error, "PortRcvErrorDetails", nm, r.lid, r.port, "query_and_dump");
    details(e, r);
  }
  if (r.failed == ErrorRow::Failed::Data) {
    warn(r.error, "IB_GSI_PORT_COUNTERS_EXT", nm, r.lid, r.port, "print_errors");
    return;
  }
  if (!r.reported()) return;
  for (int i = 0; i < r.data_count; ++i)
    if (r.data[i] || counters_only_) po.data.emplace_back(i, r.data[i]);
  out_[at_.at(r.node)].ports.push_back(std::move(po));
}
void ErrorReport::clear_failed(uint32_t node, unsigned port, const MADError& e, bool details) {
  if (!details) log::info("Failed to reset errors %s port %u\n", name(node).c_str(), port);
  if (verbose_) log::text(log::Level::error, e.dump_str(verbose_ - 1));
}

// The -r line: this port's link as the reference shows it.
std::string link_line(const Subnet& db, const NodeNameMap& map, const Node& n, unsigned port, bool peer_known) {
  const Port& p = db.port(n, port);
  if (!p.has_info) return {};
  auto pi = p.port_info();
  uint16_t lid = port_lid(db, n, port);
  // A node selected with -G/-S/-D is all the reference discovers (no
  // hops beyond it), so it does not know the peer: the peer is blank.
  const Port* q = peer_known ? db.peer(p) : nullptr;
  std::string s = strfmt("       Link info: %6u %3u[%2s] ==(", unsigned(lid), port, "");
  // (C14-24.2.1: a Down port's other PortInfo components may be invalid.)
  if (p.state() != 1) {
    s += strfmt("%3s %18s %6s/%8s)==>", iba::ref::fmt_link_width(pi.linkWidthActive()).c_str(),
             active_speed_text(db, p).c_str(), iba::ref::port_state_word(pi.portState()),
             iba::ref::phys_state_word(pi.portPhysicalState()));
  } else {
    s += strfmt("%3s %18s %6s/%8s)==>", "", "", iba::ref::port_state_word(pi.portState()),
             iba::ref::phys_state_word(pi.portPhysicalState()));
  }
  if (q) {
    const Node& qn = db.node_of(*q);
    std::string cw, cs;
    if (q->has_info) could_be(db, p, *q, cw, cs);
    // The peer is named by its port GUID (switch ports: the switch's).
    s += strfmt("  0x%016" PRIx64 " %6u %4u[%2s] \"%s\" (%s %s)", q->guid, unsigned(port_lid(db, qn, q->num)),
             unsigned(q->num), "", map.remap(qn.guid, qn.description()).c_str(), cw.c_str(), cs.c_str());
  } else {
    // No peer known: the reference's empty GUID and LID columns.
    s += strfmt("%13s[%2s] \"%s\" (%s %s)", "", "", "", "", "");
  }
  return s + "\n";
}


}  // namespace ibcore::health
