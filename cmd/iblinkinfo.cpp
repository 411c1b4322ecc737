// iblinkinfo: every port of every node with its link state and the port at
// the other end, in infiniband-diags' layout (and node order).
#include <cinttypes>
#include <cstdio>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/fabric/json_net.h"
#include "core/fabric/netcache.h"
#include "core/fabric/netprint.h"
#include "core/fabric/nodemap.h"
#include "core/fabric/obtain.h"
#include "core/fabric/partialscan.h"
#include "core/transport/path.h"
#include "core/out/print.h"
#include "iba/introspect.h"
#include "iba/refprint_smp.h"
#include "core/out/log.h"

namespace {

using namespace ibcore;

enum : unsigned { D_PORT = 0x01, D_STATE = 0x02, D_LID = 0x04, D_NODEDESC = 0x08, D_DEFAULT = D_PORT | D_STATE };

constexpr ibtool::FlagName DIFF_KEYS[] = {{"port", D_PORT}, {"state", D_STATE}, {"lid", D_LID}, {"nodedesc", D_NODEDESC}};

class LinkPrinter {
public:
  // Each node and port described once through p (core/out/print's row
  // path: no printf, no allocation per line): the reference's lines, or
  // --json's node objects (core/fabric/json_net) with the ports the text
  // lists.
  LinkPrinter(const Subnet& db, const NodeNameMap& map, Printer& p, bool line, bool additional, bool down_only,
              const Subnet* filter)
      : db_(db), map_(map), p_(p), line_(line), add_(additional), down_only_(down_only), filter_(filter) {}

  std::string remap(const Node& n) const { return map_.remap(n.guid, n.description()); }

  bool filtered(const Node& n, const Port& p) const {
    if (!filter_) return false;
    uint32_t fi = filter_->node_by_guid(n.guid);
    if (fi == NO_INDEX) return false;
    const Node& fn = filter_->node(fi);
    if (p.num > fn.nports) return false;
    const Port& fp = filter_->port(fn, p.num);
    return fp.exists && fp.state() == 1;
  }

  // "[%2s]" of a port's external number (blank when it has none).
  void ext(const Port& p) const {
    p_.lit('[');
    if (p.ext_num) p_.uint(PRINT_FP, nullptr, "%2u", p.ext_num);
    else p_.lit("  ");
    p_.lit(']');
  }

  void port(const Subnet& s, const Node& n, const Port& p, const char* prefix) const {
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

  void header(const Subnet& s, const Node& n, int* flag, const char* prefix) const {
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

  void node(const Subnet& s, const Node& n, const char* prefix) const {
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

  struct Side {
    const Subnet* a;
    const Subnet* b;
    const char* pa;
    const char* pb;
  };

  void diff_node(const Side& d, const Node& n1, unsigned flags) const {
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

private:
  const Subnet& db_;
  const NodeNameMap& map_;
  Printer& p_;
  bool line_, add_, down_only_;
  const Subnet* filter_;
};

class IbLinkInfo : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    auto& c = config();
    app.add_option("--node-name-map", c.node_name_map, "node name map file")->option_text("<file>");
    app.add_option("-S,--switch,-G,--port-guid", guid_str_,
                   "print only the node of the port with this GUID (hex format)")
        ->option_text("<port_guid>");
    app.add_option("-D,--Direct", dr_str_, "print only the node at this directed route")->option_text("<dr_path>");
    app.add_flag("-a,--all", all_, "with -S/-G/-D: print every node found");
    app.add_option("-n,--hops", hops_, "number of hops to include away from the specified node")
        ->option_text("<hops>");
    app.add_flag("-d,--down", down_, "print only down links");
    app.add_flag("-l,--line", line_, "(line mode) print all information for each link on a single line");
    app.add_flag("-p,--additional", additional_, "print additional port settings (HoqLife, VLStallCount)");
    app.add_option("--load-cache", load_cache_, "filename of ibnetdiscover cache to load")->option_text("<file>");
    app.add_option("--diff", diff_, "filename of ibnetdiscover cache to diff")->option_text("<file>");
    app.add_option("--diffcheck", diffcheck_, "checks to execute for --diff (port, state, lid, nodedesc)")
        ->option_text("<key(s)>")
        ->check(ibtool::diffcheck_check(DIFF_KEYS));
    app.add_option("--filterdownports", filterdown_, "filename of ibnetdiscover cache to filter downports")
        ->option_text("<file>");
    app.add_option("-o,--outstanding_smps,--outstanding", c.outstanding,
                   "specify the number of outstanding SMP's which should be issued during the scan")
        ->option_text("<val>");
    app.add_flag_callback("--switches-only", [this] { only_ = NodeType::Switch; }, "Output only switches");
    app.add_flag_callback("--cas-only", [this] { only_ = NodeType::CA; }, "Output only CAs");
    app.add_option("-s,--sm_port", sm_port_, "SM port lid (accepted, not needed)")->option_text("<lid>");
    ibtool::add_common_options(app, config(), ibtool::opt::Ca | ibtool::opt::Port | ibtool::opt::Timeout |
                                        ibtool::opt::Retries | ibtool::opt::MKey | ibtool::opt::Verbose |
                                        ibtool::opt::Config | ibtool::opt::Errors | ibtool::opt::Discovery |
                                        ibtool::opt::Cache | ibtool::opt::Sa | ibtool::opt::SaPath |
                                        ibtool::opt::Json | ibtool::opt::Strict);
  }

  const char* no_json_form() const override { return diff_.empty() ? nullptr : "does not apply to --diff"; }

  int run() override {
    try {
      if (!dr_str_.empty() && !load_cache_.empty()) {
        ibcore::log::info("Cannot specify cache and direct route path\n");
        return 1;
      }
      NodeNameMap map = NodeNameMap::open(config().node_name_map);
      unsigned flags = D_DEFAULT;
      if (!diffcheck_.empty()) ibtool::parse_flag_list(diffcheck_, DIFF_KEYS, flags);
      Subnet diff_db, filter_db;
      bool have_diff = false, have_filter = false;
      if (!diff_.empty()) {
        try {
          diff_db = load_cache(diff_);
          have_diff = true;
        } catch (const std::exception& e) {
          ibcore::report(e);
          std::printf("iblinkinfo: iberror: failed: loading cached fabric for diff failed\n\n");
          return 255;
        }
      }
      if (!filterdown_.empty()) {
        try {
          filter_db = load_cache(filterdown_);
          have_filter = true;
        } catch (const std::exception& e) {
          ibcore::report(e);
          std::printf("iblinkinfo: iberror: failed: loading cached fabric for filterdownports failed\n\n");
          return 255;
        }
      }
      Subnet db;
      if (!load_cache_.empty()) {
        try {
          db = load_cache(load_cache_);
        } catch (const std::exception& e) {
          ibcore::report(e);
          ibcore::log::info("loading cached fabric failed\n");
          return 1;
        }
      } else {
        // A --cache gives the topology; the link states are read live.
        ObtainOptions o;
        o.discovery.mlx_epi = config().mlx_epi;
        o.live_links = true;
        db = obtain_subnet(config(), o);
      }
      // A partial scan (-S/-G/-D, -n): what the reference's scan from that
      // start finds, replayed on the full fabric.  A start that was found
      // limits the scan to 1 hop unless -n says more; a GUID nobody has
      // means a scan from the local port.
      const Node* one = nullptr;
      bool start_given = !guid_str_.empty() || !dr_str_.empty();
      if (start_given || (hops_ > 0 && load_cache_.empty())) {
        PartialScan ps;
        ps.max_hops = unsigned(hops_);
        bool resolved = false;
        uint64_t guid = std::strtoull(guid_str_.c_str(), nullptr, 0);
        if (!guid_str_.empty()) {
          ps.start_port = db.port_by_guid(guid);
          resolved = ps.start_port != NO_INDEX;
        } else if (!dr_str_.empty()) {
          auto hops = parse_dr_path(dr_str_);
          uint32_t pi = NO_INDEX;
          if (hops) {
            ps.start_hops.assign(hops->begin() + 1, hops->end());
            pi = ps.start_hops.empty() ? db.port_index(db.from_node, db.from_port) : db.port_by_dr(ps.start_hops);
            // A directed route does not go on through a CA.
            for (size_t i = 1; pi != NO_INDEX && i < ps.start_hops.size(); ++i) {
              std::vector<uint8_t> head(ps.start_hops.begin(), ps.start_hops.begin() + long(i));
              uint32_t at = db.port_by_dr(head);
              if (at == NO_INDEX || !db.node_of(db.port(at)).is_switch()) pi = NO_INDEX;
            }
          }
          if (pi == NO_INDEX) {
            // Without -a the reference reads the start's NodeInfo first;
            // with -a its scan from there finds nothing.
            if (all_) return ibtool::strict_exit(config(), 0, "no port at DR path " + dr_str_);
            ibcore::log::info("Failed to get local Node Info\n");
            return 1;
          }
          resolved = true;
        }
        if (resolved && !ps.max_hops) ps.max_hops = 1;
        if (load_cache_.empty()) db = replay_partial_scan(db, ps);
        if (start_given && !all_) {
          uint32_t pi = !guid_str_.empty() ? db.port_by_guid(guid) : db.port_index(db.from_node, db.from_port);
          if (pi == NO_INDEX || (only_ != NodeType::Unknown && db.node_of(db.port(pi)).type != only_)) {
            ibcore::log::info("Failed to find port: %s\n", (guid_str_.empty() ? dr_str_ : guid_str_).c_str());
            return ibtool::strict_exit(config(), 0, "no port matched " + (guid_str_.empty() ? dr_str_ : guid_str_));
          }
          one = &db.node_of(db.port(pi));
        }
      }
      auto nodes = db.reference_order(only_);
      // --json: {"nodes": [node, ...]} in the text's order, each with the
      // ports the text lists (core/fabric/json_net.h; -p adds each port's
      // whole PortInfo); the text: the reference's lines; both from
      // LinkPrinter's one description.
      ibcore::Printer p;
      auto rows = p.rows();  // (its text written at the end, as one buffer)
      p.open_object().open_array("nodes");
      LinkPrinter pr(db, map, p, line_, additional_, down_, have_filter ? &filter_db : nullptr);
      if (have_diff) {
        LinkPrinter::Side fwd{&diff_db, &db, "< ", "> "};
        LinkPrinter::Side back{&db, &diff_db, "> ", "< "};
        unsigned f2 = flags & ~(D_PORT | D_STATE | D_LID | D_NODEDESC);
        if (one) {
          pr.diff_node(fwd, *one, flags);
          pr.diff_node(back, *one, f2);
        } else {
          for (uint32_t i : diff_db.reference_order(only_)) pr.diff_node(fwd, diff_db.node(i), flags);
          for (uint32_t i : nodes) pr.diff_node(back, db.node(i), f2);
        }
      } else if (one) {
        pr.node(db, *one, nullptr);
      } else {
        for (uint32_t i : nodes) pr.node(db, db.node(i), nullptr);
      }
      p.close_array();
      // The nodes of a --cache that have left the fabric (warned about on
      // stderr): {"goneNodes": [{"nodeGUID", "nodeDescription", "name", "LID"}]}.
      if (db.links_live) {
        p.open_array("goneNodes");
        for (uint32_t i : nodes)
          if (db.node(i).gone) {
            const Node& n = db.node(i);
            p.open_object().guid(PRINT_JSON, "nodeGUID", nullptr, n.guid);
            p.str(PRINT_JSON, "nodeDescription", nullptr, n.description());
            p.str(PRINT_JSON, "name", nullptr, map.remap(n.guid, n.description()));
            p.uint(PRINT_JSON, "LID", nullptr, node_lid(db, i)).close_object();
          }
        p.close_array();
      }
      p.close_object().finish();
      std::fflush(stdout);
      return !one && nodes.empty() ? ibtool::strict_exit(config(), 0, "no node listed") : 0;
    } catch (const std::exception& e) {
      ibcore::report(e);
      ibcore::log::info("discover failed\n");
      return 1;
    }
  }

private:
  std::string guid_str_, dr_str_, load_cache_, diff_, diffcheck_, filterdown_, sm_port_;
  bool all_ = false, down_ = false, line_ = false, additional_ = false;
  int hops_ = 0;
  NodeType only_ = NodeType::Unknown;
};

}  // namespace

IBTOOL_COMMAND({.name = "iblinkinfo",
                .aliases = {"iblinkinfo.pl"},
                .summary = "report the link of every port in the fabric",
                .description =
                    "Discovers the fabric (or loads a cache) and prints every port of every node: width, "
                    "speed, state and physical state, the port at the other end, and what the link could "
                    "run at when both ends support more.  -l prints one line per link, -d only down "
                    "links, --diff compares with a cache file.  -S/-G/-D start a partial scan at a "
                    "port (only that node is printed unless -a), -n limits it to that many hops: "
                    "the nodes and links are those the reference's scan from there finds, in its "
                    "order.  --json (-j; --pretty indents): {\"nodes\": [{\"nodeGUID\", \"nodeType\", "
                    "\"nodeDescription\", \"name\", \"nodeInfo\", \"ports\": [...]}]}, each port as "
                    "ibnetdiscover --json writes it (-p: with its whole \"portInfo\"); not with --diff.  "
                    "With --cache the file gives the nodes and links and every port's state is read "
                    "from the fabric (docs/caches.md): a link down since is shown down, and a node "
                    "gone is left out, warned about and listed as \"goneNodes\": [{\"nodeGUID\", "
                    "\"nodeDescription\", \"name\", \"LID\"}].",
                .usage = "[options]",
                .examples = "  iblinkinfo\n  iblinkinfo -l --switches-only\n  iblinkinfo -G 0x0002c90300001491",
                .make = [] { return std::make_unique<IbLinkInfo>(); }});
