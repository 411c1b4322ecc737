// ibroute: dump the unicast (LFT) or multicast (MFT) forwarding table of one
// switch in infiniband-diags' layout.  Table blocks are read in parallel;
// destinations are resolved with one NodeInfo per routed LID (in parallel),
// then one PortInfo and NodeDescription per distinct port and node.  Every
// read goes through one AsyncSmpSource: SMPs, or with --sa the SA's records.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/fabric/nodemap.h"
#include "core/out/json.h"
#include "core/out/print.h"
#include "core/fabric/routes.h"
#include "core/out/textout.h"
#include "core/rpc/satransactor.h"
#include "core/rpc/sched.h"
#include "core/out/log.h"

namespace {

using namespace ibcore;

// strtoul(s, 0, 0) as the reference reads its LID range arguments (junk = 0).
unsigned loose_uint(const std::string& s) { return unsigned(std::strtoul(s.c_str(), nullptr, 0)); }

struct Resolved {
  bool ok = false;
  iba::SMPNodeInfo ni;
};

class IbRoute : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_flag("-a,--all", all_, "show all lids, even invalid entries");
    app.add_flag("-n,--no_dests", no_dests_, "do not try to resolve destinations");
    app.add_flag("-M,--Multicast", multicast_, "show multicast forwarding tables");
    flags_.bind(app, ibtool::tflag::Direct | ibtool::tflag::Lid | ibtool::tflag::Guid | ibtool::tflag::SmPort);
    ibtool::add_common_options(app, config(), ibtool::opt::Mad | ibtool::opt::MKey | ibtool::opt::NodeNameMap |
                                        ibtool::opt::Outstanding | ibtool::opt::Sa | ibtool::opt::Json);
    app.add_option("args", args_, "<dest dr_path|lid|guid> [<startlid> [<endlid>]]");
  }

  bool reports_errors() const override { return true; }

  int run() override {
    // getopt takes "-1" for an option the tool does not have: usage.
    bool dash = std::any_of(args_.begin(), args_.end(), [](const std::string& a) { return a.size() > 1 && a[0] == '-'; });
    if (args_.empty() || dash) {
      throw ibtool::UsageFail{};
    }
    auto t = ibtool::open_smp_target(config(), flags_, args_, 0);
    unsigned start = args_.size() > 1 ? loose_uint(args_[1]) : 0;
    unsigned end = args_.size() > 2 ? loose_uint(args_[2]) : 0;
    return dump(*t.session, t.path, start, end);
  }

private:
  // The switch's NodeInfo, NodeDescription and SwitchInfo, read in turn;
  // failed: which one failed (0, 1, 2), -1 when none did.
  struct Head {
    iba::SMPNodeInfo ni;
    iba::SMPNodeDescription nd;
    iba::SMPSwitchInfo si;
    int failed = -1;
    std::exception_ptr error;
  };
  static Task<> read_head(AsyncSmpSource& src, IBPath path, Head& h) {
    try {
      h.failed = 0;
      h.ni = co_await src.SubnGet<iba::SMPNodeInfo>(path);
      if (NodeType(h.ni.nodeType()) != NodeType::Switch) {
        h.failed = -1;
        co_return;
      }
      h.failed = 1;
      h.nd = co_await src.SubnGet<iba::SMPNodeDescription>(path);
      h.failed = 2;
      h.si = co_await src.SubnGet<iba::SMPSwitchInfo>(path);
      h.failed = -1;
    } catch (...) {
      h.error = std::current_exception();
    }
  }

  static void fail_with(const std::exception_ptr& e, const std::string& msg) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      ibtool::ref_fail(x, msg);
    }
  }

  int dump(ibtool::Session& s, const IBPath& path, unsigned start, unsigned end) {
    // Every read goes through src: SMPs, or with --sa the SA's records.
    Scheduler sched(*s.umad, unsigned(std::max(0, config().outstanding)));
    // -s names the SM, whose SA answers.
    AsyncSmpSource src(sched, std::nullopt,
                       flags_.sm_port ? std::optional(sa_path_for(*s.mad, flags_.sm_port)) : std::nullopt);
    Head h;
    sched.spawn(read_head(src, path, h));
    sched.run();
    static const char* const what[] = {"node info", "node desc", "switch info"};
    if (h.failed >= 0) fail_with(h.error, std::string("dump tables: ") + what[h.failed] + " failed: valid addr?");
    const iba::SMPNodeInfo& ni = h.ni;
    if (NodeType(ni.nodeType()) != NodeType::Switch) throw ibtool::RefFail{"dump tables: not a switch"};
    NodeNameMap map = NodeNameMap::open(config().node_name_map);
    std::string desc(reinterpret_cast<const char*>(h.nd.bytes().data()), 64);
    desc = desc.substr(0, desc.find('\0'));
    std::string name = map.remap(ni.nodeGUID(), desc);
    std::string where = portid_str(path);

    if (multicast_) {
      iba::LidRange lr = iba::mft_range(h.si, start, end);
      start = lr.first;
      end = lr.last;
      MftRead m;
      TableReads reads;
      reads.add_mft(path, start, end, unsigned(ni.numPorts()), m);
      reads.spawn(src);
      sched.run();
      if (m.error) fail_with(m.error, "dump tables: multicast forwarding table get failed");
      // --json: the switch's table object (core/fabric/routes.h mft_table)
      // as the document; the text the reference's table.
      Printer p;
      mft_table(p, {ni.nodeGUID(), name, 0, path, where}, m, start, end, unsigned(ni.numPorts()), all_, no_dests_);
      p.finish();
      return 0;
    }

    end = iba::lft_range(h.si, start, end).last;
    LftRead l;
    TableReads reads;
    reads.add_lft(path, start, end, l);
    reads.spawn(src);
    sched.run();
    if (l.error) fail_with(l.error, "dump tables: linear forwarding table get failed");
    std::map<unsigned, LidDest> dests;
    if (!no_dests_) resolve(src, s.umad->local_lid(), l.lft, start, end, map, dests);
    LidResolver resolve = [&](unsigned lid) -> const LidDest* {
      auto it = dests.find(lid);
      return it == dests.end() ? nullptr : &it->second;
    };
    // --json: the switch's table object (UnicastDump, destinations inline)
    // as the document; the text the reference's table.
    Printer p;
    UnicastDump d(p, all_, no_dests_);
    d.table({ni.nodeGUID(), name, 0, path, where}, l.lft, start, end, resolve);
    p.finish();
    return 0;
  }

  static IBPath lid_path(uint16_t slid, unsigned lid) {
    IBPath p;
    p.SLID = slid;
    p.DLID = uint16_t(lid);
    return p;
  }

  // Resolve every routed LID of [start, end]: NodeInfo by LID, then PortInfo
  // (base LID, LMC) and NodeDescription once per distinct port and node,
  // all in parallel on src's scheduler.
  void resolve(AsyncSmpSource& src, uint16_t slid, const std::vector<uint8_t>& lft, unsigned start, unsigned end,
               const NodeNameMap& map, std::map<unsigned, LidDest>& out) {
    Scheduler& sched = src.sched();
    std::map<unsigned, Resolved> ni;
    for (unsigned lid = start; lid <= end && lid < lft.size(); ++lid)
      if (lft[lid] != LFT_NO_ROUTE) ni[lid];
    auto get_ni = [&src, slid](unsigned lid, Resolved& r) -> Task<> {
      try {
        r.ni = co_await src.SubnGet<iba::SMPNodeInfo>(lid_path(slid, lid));
        r.ok = true;
      } catch (const MADError&) {
      }
    };
    for (auto& [lid, r] : ni) sched.spawn(get_ni(lid, r));
    sched.run();

    struct PortKey {
      bool ok = false;
      uint16_t base = 0;
      uint8_t lmc = 0;
    };
    struct NodeKey {
      bool ok = false;
      std::string desc;
    };
    std::map<std::pair<uint64_t, unsigned>, PortKey> ports;
    std::map<uint64_t, NodeKey> nodes;
    std::map<std::pair<uint64_t, unsigned>, unsigned> port_lid;
    std::map<uint64_t, unsigned> node_lid;
    for (auto& [lid, r] : ni) {
      if (!r.ok) continue;
      bool sw = NodeType(r.ni.nodeType()) == NodeType::Switch;
      unsigned pn = sw ? 0 : unsigned(r.ni.localPortNum());
      auto k = std::make_pair(uint64_t(r.ni.portGUID()), pn);
      if (!port_lid.count(k)) port_lid[k] = lid;
      if (!node_lid.count(r.ni.nodeGUID())) node_lid[r.ni.nodeGUID()] = lid;
    }
    auto get_pi = [&src, slid](unsigned lid, unsigned pn, PortKey& k) -> Task<> {
      try {
        auto pi = co_await src.SubnGet<iba::SMPPortInfo>(lid_path(slid, lid), pn);
        k.base = uint16_t(pi.LID());
        k.lmc = uint8_t(pi.LMC());
        k.ok = true;
      } catch (const MADError&) {
      }
    };
    auto get_nd = [&src, slid](unsigned lid, NodeKey& k) -> Task<> {
      try {
        auto nd = co_await src.SubnGet<iba::SMPNodeDescription>(lid_path(slid, lid));
        std::string d(reinterpret_cast<const char*>(nd.bytes().data()), 64);
        k.desc = d.substr(0, d.find('\0'));
        k.ok = true;
      } catch (const MADError&) {
      }
    };
    for (auto& [k, lid] : port_lid) sched.spawn(get_pi(lid, k.second, ports[k]));
    for (auto& [g, lid] : node_lid) sched.spawn(get_nd(lid, nodes[g]));
    sched.run();

    for (auto& [lid, r] : ni) {
      LidDest d;
      if (r.ok) {
        bool sw = NodeType(r.ni.nodeType()) == NodeType::Switch;
        const PortKey& pk = ports[{uint64_t(r.ni.portGUID()), sw ? 0u : unsigned(r.ni.localPortNum())}];
        if (pk.ok) {
          d.known = true;
          d.type = NodeType(r.ni.nodeType());
          d.port_guid = r.ni.portGUID();
          d.base_lid = pk.base;
          d.lmc = pk.lmc;
          d.name = map.remap(r.ni.nodeGUID(), nodes[r.ni.nodeGUID()].desc);
        }
      }
      out[lid] = d;
    }
  }

  ibtool::TargetFlags flags_;
  bool all_ = false, no_dests_ = false, multicast_ = false;
  std::vector<std::string> args_;
};

}  // namespace

IBTOOL_COMMAND({.name = "ibroute",
                .aliases = {},
                .summary = "dump the unicast or multicast forwarding table of a switch",
                .description =
                    "Reads the linear forwarding table (or with -M the multicast forwarding table) of the "
                    "switch at the destination and prints it in the reference's layout, each routed LID "
                    "named by the port it reaches (-n: no names).  A LID range limits the dump; -a also "
                    "lists LIDs without a route.  Blocks of the table are read in parallel.  --json (-j; "
                    "--pretty indents): one document (its members and types: --json-schema), the switch as dump_fts --json writes it.",
                .usage = "[options] [<dest dr_path|lid|guid> [<startlid> [<endlid>]]]",
                .examples = "  ibroute 4\n"
                            "  ibroute -a 4\n"
                            "  ibroute 4 0x10 0x20\n"
                            "  ibroute -G 0x08f1040023\n"
                            "  ibroute -D 0,1\n"
                            "  ibroute -M 4 0xc010 0xc020",
                .make = [] { return std::make_unique<IbRoute>(); }});
