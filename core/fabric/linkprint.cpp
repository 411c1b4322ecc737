#include "core/fabric/linkprint.h"

#include "core/fabric/json_net.h"
#include "core/fabric/netprint.h"
#include "iba/introspect.h"
#include "iba/refprint_smp.h"

namespace ibcore {

bool LinkPrinter::filtered(const Node& n, const Port& p) const {
  if (!filter_) return false;
  uint32_t fi = filter_->node_by_guid(n.guid);
  if (fi == NO_INDEX) return false;
  const Node& fn = filter_->node(fi);
  if (p.num > fn.nports) return false;
  const Port& fp = filter_->port(fn, p.num);
  return fp.exists && fp.state() == 1;
}

void LinkPrinter::ext(const Port& p) const {
  p_.lit('[');
  if (p.ext_num) p_.uint(PRINT_FP, nullptr, "%2u", p.ext_num);
  else p_.lit("  ");
  p_.lit(']');
}

void LinkPrinter::port(const Subnet& s, const Node& n, const Port& p, const char* prefix) const {
  // A switch whose port 0 did not answer: its widths and speeds are not known.
  bool known = !n.is_switch() || s.port(n, 0).has_info;
  unsigned w = known ? p.width_active() : 0;
  unsigned st = p.state(), ph = p.phys_state();
  if (st == 1 && filtered(n, p)) return;
  p_.open_object();
  port_members(p_, s, p, map_, add_);
  if (prefix) p_.lit(prefix);
  if (line_) {
    p_.lit("0x").uint(PRINT_FP, nullptr, "%016x", p.guid).lit(" \"").str(PRINT_FP, nullptr, "%30s", remap(n)).lit("\" ");
  } else {
    p_.lit("      ");
  }
  if (!n.is_switch()) {
    if (!line_) p_.lit("0x").uint(PRINT_FP, nullptr, "%016x", p.guid).lit(' ');
    p_.uint(PRINT_FP, nullptr, "%6u", p.base_lid);
  } else {
    p_.uint(PRINT_FP, nullptr, "%6u", n.smalid);
  }
  p_.lit(' ').uint(PRINT_FP, nullptr, "%4u", p.num);
  ext(p);
  p_.lit(" ==(");
  if (st != 1) {
    std::string speed = active_speed_text(s, p, known);
    p_.str(PRINT_FP, nullptr, "%3s", iba::ref::fmt_link_width(w)).lit(' ').str(PRINT_FP, nullptr, "%18s", speed).lit(' ');
  } else {
    p_.lit("              ");
  }
  p_.str(PRINT_FP, nullptr, "%6s", iba::ref::fmt_port_state(st)).lit('/').str(PRINT_FP, nullptr, "%8s", iba::ref::fmt_phys_state(ph)).lit(')');
  if (add_ && st != 1) {
    auto pi = p.port_info();
    p_.lit(" (HOQ:").uint(PRINT_FP, nullptr, "%u", unsigned(pi.HOQLife())).lit(" VL_Stall:").uint(PRINT_FP, nullptr, "%u", unsigned(pi.VLStallCount())).lit(')');
  }
  p_.lit("==>  ");
  // (a cache's link whose port is down now: down, as the fabric has it)
  const Port* r = s.links_live && ph != PHYS_LINKUP ? nullptr : s.peer(p);
  if (r) {
    const Node& rn = s.node_of(*r);
    std::string wmsg, smsg;
    could_be(db_, p, *r, wmsg, smsg);
    if (line_) p_.lit("0x").uint(PRINT_FP, nullptr, "%016x", r->guid).lit(' ');
    p_.uint(PRINT_FP, nullptr, "%6u", r->base_lid ? r->base_lid : rn.smalid).lit(' ').uint(PRINT_FP, nullptr, "%4u", r->num);
    ext(*r);
    p_.lit(" \"").lit(remap(rn)).lit("\" (").lit(wmsg).lit(' ').lit(smsg).lit(")\n");
  } else {
    p_.lit(st == 1 ? "           [  ] \"\" ( )\n" : "    \"Port not available\"\n");
  }
  p_.close_object();
}

void LinkPrinter::header(const Subnet& s, const Node& n, int* flag, const char* prefix) const {
  if ((flag && *flag) || line_) return;
  if (prefix) p_.lit(prefix);
  if (n.is_switch()) {
    uint64_t g = s.port(n, 0).exists ? s.port(n, 0).guid : s.ref_port_guid(n);
    p_.lit("Switch: 0x").uint(PRINT_FP, nullptr, "%016x", g).lit(' ').lit(remap(n)).lit(":\n");
  } else {
    p_.lit(n.type == NodeType::CA ? "CA" : n.type == NodeType::Router ? "Router" : "??").lit(": ").lit(remap(n)).lit(":\n");
  }
  if (flag) ++*flag;
}

void LinkPrinter::node(const Subnet& s, const Node& n, const char* prefix) const {
  if (n.gone) return;  // (a node of the cache that left: not in the fabric)
  p_.open_object();
  node_members(p_, s, n, map_);
  p_.open_array("ports");
  int head = 0;
  for (unsigned i = 1; i <= n.nports; ++i) {
    const Port& p = s.port(n, i);
    if (!p.exists) continue;
    if (!down_only_ || p.state() == 1) {
      header(s, n, &head, prefix);
      port(s, n, p, prefix);
    }
  }
  p_.close_array().close_object();
}

void LinkPrinter::diff_node(const Side& d, const Node& n1, unsigned flags) const {
  uint32_t j = d.b->node_by_guid(n1.guid);
  if (j == NO_INDEX) {
    node(*d.a, n1, d.pa);
    return;
  }
  if (!(flags & (D_PORT | D_STATE | D_LID | D_NODEDESC))) return;
  const Node& n2 = d.b->node(j);
  int head = 0;
  if ((n1.is_switch() && (flags & D_LID) && n1.smalid != n2.smalid) || ((flags & D_NODEDESC) && n1.desc != n2.desc)) {
    header(*d.a, n1, nullptr, d.pa);
    header(*d.b, n2, nullptr, d.pb);
    ++head;
  }
  if (n1.nports != n2.nports) {
    header(*d.a, n1, &head, nullptr);
    p_.lit(d.pa).lit("numports = ").uint(PRINT_FP, nullptr, "%u", n1.nports).lit('\n').lit(d.pb).lit("numports = ").uint(PRINT_FP, nullptr, "%u", n2.nports).lit('\n');
    return;
  }
  for (unsigned i = 1; i <= n1.nports; ++i) {
    const Port* p1 = d.a->port(n1, i).exists ? &d.a->port(n1, i) : nullptr;
    const Port* p2 = d.b->port(n2, i).exists ? &d.b->port(n2, i) : nullptr;
    if (!p1 && !p2) continue;
    const Port* r1 = p1 ? d.a->peer(*p1) : nullptr;
    const Port* r2 = p2 ? d.b->peer(*p2) : nullptr;
    int out = 0;
    if ((flags & D_PORT) && (!p1 || !p2 || (r1 && !r2) || (!r1 && r2) || (r1 && r2 && r1->guid != r2->guid))) ++out;
    if ((flags & D_STATE) && p1 && p2 && p1->state() != p2->state()) ++out;
    if ((flags & D_PORT) && (flags & D_LID) && r1 && r2 && r1->base_lid != r2->base_lid) ++out;
    if ((flags & D_PORT) && (flags & D_NODEDESC) && r1 && r2 && d.a->node_of(*r1).desc != d.b->node_of(*r2).desc)
      ++out;
    if (out && p1) {
      header(*d.a, n1, &head, nullptr);
      port(*d.a, n1, *p1, d.pa);
    }
    if (out && p2) {
      header(*d.a, n1, &head, nullptr);
      port(*d.b, n2, *p2, d.pb);
    }
  }
}

}  // namespace ibcore
