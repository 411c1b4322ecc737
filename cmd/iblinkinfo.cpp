// iblinkinfo: every port of every node with its link state and the port at
// the other end, in infiniband-diags' layout (and node order).
#include <cinttypes>
#include <cstdio>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/fabric/json_net.h"
#include "core/fabric/linkprint.h"
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

constexpr ibtool::FlagName DIFF_KEYS[] = {{"port", D_PORT}, {"state", D_STATE}, {"lid", D_LID}, {"nodedesc", D_NODEDESC}};

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
                    "order.  --json (-j; --pretty indents): one document (its members and types: --json-schema), each port as "
                    "ibnetdiscover --json writes it (-p: with its whole \"portInfo\"); not with --diff.  "
                    "With --cache the file gives the nodes and links and every port's state is read "
                    "from the fabric (docs/caches.md): a link down since is shown down, and a node "
                    "gone is left out, warned about and listed in \"goneNodes\".",
                .usage = "[options]",
                .examples = "  iblinkinfo\n  iblinkinfo -l --switches-only\n  iblinkinfo -G 0x0002c90300001491",
                .make = [] { return std::make_unique<IbLinkInfo>(); }});
