// saquery: read records from the SA.  Every query name and option of the
// reference, printed in its layouts, plus selection on any field of the
// record by name ("saquery NR nodeInfo.portGUID=0x0002c90300001491"), whose
// component mask comes from the IBA declarations; the queries themselves
// are core/rpc/saquery's.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/transport/devices.h"
#include "core/base/error.h"
#include "core/rpc/gmppath.h"
#include "core/fabric/nodemap.h"
#include "core/rpc/portcaps.h"
#include "core/rpc/saquery.h"
#include "core/transport/open.h"
#include "iba/introspect.h"
#include "core/out/print.h"
#include "iba/refprint_sa.h"
#include "core/out/log.h"

namespace {

using namespace ibcore::saq;

class SaQuery : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    for (const QueryFlag& f : kQueryFlags) app.add_flag(f.flag, this->*f.given, f.help);
    app.add_option("--src-to-dst", pr_.src_to_dst, "get a PathRecord for <src:dst>")->option_text("<src:dst>");
    app.add_option("--sgid-to-dgid", pr_.sgid_to_dgid, "get a PathRecord for <sgid-dgid>")->option_text("<sgid-dgid>");
    app.add_option("--slid", pr_.slid, "Source LID (PathRecord)")->option_text("<lid>");
    app.add_option("--dlid", pr_.dlid, "Destination LID (PathRecord)")->option_text("<lid>");
    app.add_option("--mlid", pr_.mlid, "Multicast LID (MCMemberRecord)")->option_text("<lid>");
    app.add_option("--sgid", pr_.sgid, "Source GID (IPv6 format) (PathRecord)")->option_text("<gid>");
    app.add_option("--dgid", pr_.dgid, "Destination GID (IPv6 format) (PathRecord)")->option_text("<gid>");
    app.add_option("--gid", pr_.gid, "Port GID (MCMemberRecord)")->option_text("<gid>");
    app.add_option("--mgid", pr_.mgid, "Multicast GID (MCMemberRecord)")->option_text("<gid>");
    app.add_option("-r,--reversible", pr_.reversible, "Reversible path (PathRecord)");
    app.add_option("-n,--numb_path", pr_.numb_path, "Number of paths (PathRecord)");
    app.add_option("--pkey", pr_.pkey, "P_Key (PathRecord, MCMemberRecord)");
    app.add_option("-Q,--qos_class", pr_.qos_class, "QoS Class (PathRecord)");
    app.add_option("--sl", pr_.sl, "Service level (PathRecord, MCMemberRecord)");
    app.add_option("-M,--mtu", pr_.mtu, "MTU and selector (PathRecord, MCMemberRecord)");
    app.add_option("-R,--rate", pr_.rate, "Rate and selector (PathRecord, MCMemberRecord)");
    app.add_option("--pkt_lifetime", pr_.pkt_lifetime, "Packet lifetime and selector (PathRecord, MCMemberRecord)");
    app.add_option("-q,--qkey", pr_.qkey, "Q_Key (MCMemberRecord)");
    app.add_option("-T,--tclass", pr_.tclass, "Traffic Class (PathRecord, MCMemberRecord)");
    app.add_option("-F,--flow_label", pr_.flow_label, "Flow Label (PathRecord, MCMemberRecord)");
    app.add_option("-H,--hop_limit", pr_.hop_limit, "Hop limit (PathRecord, MCMemberRecord)");
    app.add_option("--scope", pr_.scope, "Scope (MCMemberRecord)");
    app.add_option("-J,--join_state", pr_.join_state, "Join state (MCMemberRecord)");
    app.add_option("-X,--proxy_join", pr_.proxy_join, "Proxy join (MCMemberRecord)");
    app.add_option("--service_id", pr_.service_id, "ServiceID (PathRecord)");
    app.add_flag("-K,--show_keys", show_keys_, "display security keys in output");
    ibtool::add_common_options(app, config(), ibtool::opt::Gmp | ibtool::opt::NodeNameMap | ibtool::opt::Json |
                                                  ibtool::opt::Strict);
    app.add_option("args", args_, "[query-name] [<name> | <lid> | <guid>] [field=value ...]");
  }

  // The reference's exit statuses are errno values (ExitFail); any other
  // failure is the library's report.
  bool reports_errors() const override { return true; }

  const char* no_json_form() const override {
    return opt_D_ || opt_L_ || opt_l_ || opt_G_ || opt_O_ || opt_U_ ? "is for record queries (not -D, -L, -l, -G, -O, -U)"
                                                                      : nullptr;
  }

  int run() override {
    // The name and lookup options need their operand, checked before any
    // device is opened (the reference's usage errors, status 2).
    {
      std::vector<std::string> pos;
      for (const auto& a : args_)
        if (a.find('=') == std::string::npos) pos.push_back(a);
      if (!pos.empty() && find_query(pos[0]) && !(opt_L_ || opt_l_ || opt_G_ || opt_O_ || opt_U_ || opt_N_))
        pos.erase(pos.begin());
      const char* missing = nullptr;
      if ((opt_O_ || opt_U_) && pos.empty()) missing = opt_O_ ? "lid not specified" : "guid not specified";
      else if (opt_O_ && !(std::strtoul(pos[0].c_str(), nullptr, 0) & 0xffff)) missing = "lid invalid";
      else if ((opt_L_ || opt_l_ || opt_G_) && pos.empty()) missing = "name not specified";
      if (missing) {
        ibcore::log::error("ERROR: %s\n", missing);
        ibcore::log::text(ibcore::log::Level::info, app().help().c_str());
        return 2;
      }
    }
    try {
      // --json: {"records": [{"attribute", its fields (keys only with -K)}]},
      // written when the query ends well.
      ibcore::Printer p(stdout, ibcore::Printer::Doc::Whole);
      out_ = &p;
      p.open_object().open_array("records");
      int rc = work();
      p.close_array().close_object().finish();
      // --strict: a query the SA answered with no record (or a name, LID
      // or GUID no node has) fails.
      if (!rc && !shown_) return ibtool::strict_exit(config(), 0, "no record");
      return rc;
    } catch (const ibcore::MADError& e) {
      return failure_status(e, config().verbose);  // (the reference's errno)
    }
  }

private:
  // SubnAdmGetTable of q's record (field=value selectors applied); the
  // records that arrived whole.
  std::vector<Bytes> table(const Query& q, Rec& r, uint32_t amod = 0) {
    ibcore::saq::select(r, sel_);
    return ibcore::saq::get_table(*mad_, sa_, q, r, amod);
  }

  // --json: {"records": [{"attribute": the record type, its fields as iba/
  // names them (keys only with -K), and what the text adds beside a record
  // (-s: "group" IsSM/IsSMdisabled; -m: "nodeDescription")}]}, written after
  // the query.
  ibcore::Printer* out_ = nullptr;  // run()'s output

  // The keys the text hides without -K.
  std::span<const std::string_view> hidden() const {
    static constexpr std::string_view KEYS[] = {"MKey", "SMKey"};
    return show_keys_ ? std::span<const std::string_view>() : std::span(KEYS);
  }

  // A record: {"attribute", extra keys, its fields (caps: what makes them valid beyond their own bytes)}, or layout().
  template <class F>
  void record(const iba::StructDesc& d, const uint8_t* rec, F layout,
              std::initializer_list<std::pair<const char*, std::string>> extra = {},
              const iba::Capabilities& caps = {}) {
    ++shown_;
    out_->open_object().str(ibcore::PRINT_JSON, "attribute", nullptr, d.name);
    for (const auto& [k, v] : extra) out_->str(ibcore::PRINT_JSON, k, nullptr, v);
    out_->fields(d, rec, layout, hidden(), caps).close_object();
  }

  void print(const iba::StructDesc& d, const Bytes& rec, const iba::Capabilities& caps = {}) {
    record(d, rec.data(), [&] {
      iba::ref::SaPrintOptions o;
      o.show_keys = show_keys_;
      o.compat = config().compat;
      return iba::ref::sa_print(d, rec, o);
    }, {}, caps);
  }

  int print_all(const Query& q, Rec& r, uint32_t amod = 0) {
    const auto recs = table(q, r, amod);
    const auto caps = ibcore::record_capabilities(*q.desc, recs);  // (a switch port's: port 0's)
    for (size_t i = 0; i < recs.size(); ++i) print(*q.desc, recs[i], caps[i]);
    return 0;
  }

  // The NodeRecords, read once when a name is first looked up (no
  // selectors: they are for the query).
  ibcore::saq::Nodes nodes_{[this] {
    Rec r(iba::SANodeRecord::DESC);
    return get_table(*mad_, sa_, *find_query("NR"), r);
  }};

  int work() {
    auto& cfg = config();
    // Positional arguments: [query] [target] and field=value selectors.
    std::vector<std::string> pos;
    for (const auto& a : args_) (a.find('=') != std::string::npos ? sel_ : pos).push_back(a);
    const Query* q = nullptr;
    // (With a name or lookup option the operand is a name, never a query.)
    bool lookup = opt_N_ || opt_L_ || opt_l_ || opt_G_ || opt_O_ || opt_U_;
    if (!pos.empty() && !lookup && (q = find_query(pos[0]))) pos.erase(pos.begin());
    if (!q && !pos.empty() && !sel_.empty() && !opt_any()) {
      ibcore::log::error("E: unknown query name '%s'\n", pos[0].c_str());
      return EINVAL;
    }
    std::string target = pos.empty() ? "" : pos[0];
    std::string target2 = pos.size() > 1 ? pos[1] : "";

    const ibcore::EndPort& ep = ibcore::get_end_port(cfg.ca, cfg.port);
    auto owner = ibcore::open_transport(ep, cfg);
    ibcore::Transport& umad = *owner;
    ibcore::MadTransactor mad(umad);
    mad_ = &mad;
    sa_ = ibcore::sa_path_from_config(mad);

    // --src-to-dst and --sgid-to-dgid ask for PathRecords (-p's query).
    if (!pr_.src_to_dst.empty() || !pr_.sgid_to_dgid.empty()) opt_p_ = true;
    const QueryFlag* run = nullptr;  // the lookup given
    int query_rank = 0;
    for (const QueryFlag& f : kQueryFlags) {
      if (!(this->*f.given)) continue;
      if (f.lookup && (!run || f.rank > run->rank)) run = &f;
      if (f.query && f.rank > query_rank) {
        q = find_query(f.query);
        query_rank = f.rank;
      }
    }
    if (run) return (this->*run->lookup)(target);
    if (!q) q = find_query("NR");
    std::string a = q->alias;
    Rec r(*q->desc);
    if (a == "CPI") {
      iba::MADClassPortInfo cpi = mad.SubnAdmGet(iba::MADClassPortInfo{}, 0, &sa_);
      print(cpi.DESC, Bytes(cpi.bytes().begin(), cpi.bytes().end()));
      return 0;
    }
    if (a == "IIR") {
      if (!target.empty()) {
        auto g = iba::parse_gid(target);
        if (!g) {
          ibcore::log::info("Invalid GID specified: \"%s\"\n", target.c_str());
          return EINVAL;
        }
        r.set_gid("subscriberGID", *g);
      }
    } else if (a == "MCMR") {
      return mcmr(*q, r, target);
    } else {
      select(r, *q, target, target2, nodes_, pr_);
    }
    return print_all(*q, r);
  }

  bool opt_any() const {
    return std::any_of(std::begin(kQueryFlags), std::end(kQueryFlags),
                       [this](const QueryFlag& f) { return this->*f.given; });
  }

  int mcmr(const Query& q, Rec& r, const std::string& target) {
    // -g and -m read every MCMemberRecord (the reference ignores the
    // selection options there); -m <mlid> lists that group's members.
    if (opt_g_ || opt_m_) return mc_groups(q, r, target);
    set_mcmr_fields(r, pr_);
    return print_all(q, r);
  }

  int mc_groups(const Query& q, Rec& r, const std::string& target) {
    const auto& D = iba::SAMCMemberRecord::DESC;
    std::optional<uint64_t> mlid;
    if (opt_m_ && !target.empty()) mlid = std::strtoull(target.c_str(), nullptr, 0);
    for (const auto& x : table(q, r)) {
      iba::SAMCMemberRecord m;
      m.load(x);
      if (mlid && m.MLID() != *mlid) continue;
      std::optional<std::string> name;  // (asked once, when shown)
      auto port = [&]() -> const std::string& {
        if (!name) name = nodes_.port_name(m.portGID());
        return *name;
      };
      auto layout = [&] { return mc_text(x, opt_g_, mlid.has_value(), port); };
      // (the member's node description: a JSON key, a line of the text)
      if (opt_g_) record(D, x.data(), layout);
      else record(D, x.data(), layout, {{"nodeDescription", port()}});
    }
    return 0;
  }

  int list_cas(const std::string& /*target*/) {
    std::printf("   LID \"name\"\n================\n");
    for (const auto& n : nodes_.all())
      if (n.nodeInfo().nodeType() == 1 && ++shown_)
        std::printf("%6u  \"%s\"\n", unsigned(n.LID()), n.nodeDescription().nodeString().c_str());
    return 0;
  }

  // The reference's name match: the node description, or the name the
  // node-name-map gives the node.
  bool named(const iba::SANodeRecord& n, const std::string& name) {
    if (!map_) map_ = ibcore::NodeNameMap::open(config().node_name_map);
    std::string desc = n.nodeDescription().nodeString();
    return desc == name || map_->remap(n.nodeInfo().nodeGUID(), desc) == name;
  }

  // -N [name]: the NodeRecords of the nodes of that name (all without one).
  int node_records_named(const std::string& name) {
    for (const auto& n : nodes_.all())
      if (name.empty() || named(n, name)) print(iba::SANodeRecord::DESC, Bytes(n.bytes().begin(), n.bytes().end()));
    return 0;
  }

  int name_to(const std::string& name) {
    for (const auto& n : nodes_.all()) {
      if (!named(n, name)) continue;
      ++shown_;
      if (opt_G_)
        std::printf("0x%016llx\n", static_cast<unsigned long long>(n.nodeInfo().portGUID()));
      else
        std::printf("%u\n", unsigned(n.LID()));
      if (opt_l_) break;
    }
    return 0;
  }

  int to_name(const std::string& key) {
    uint64_t v = std::strtoull(key.c_str(), nullptr, 0);
    if (opt_O_) v &= 0xffff;  // the reference keeps a LID's 16 bits
    for (const auto& n : nodes_.all()) {
      bool hit = opt_O_ ? n.LID() == v : n.nodeInfo().portGUID() == v;
      if (hit) {
        ++shown_;
        std::printf("%s\n", n.nodeDescription().nodeString().c_str());
        break;
      }
    }
    return 0;
  }

  // -s: PortInfoRecords whose CapabilityMask has IsSM, then IsSMdisabled.
  // Bit 31 of the attribute modifier makes the SA match the CapabilityMask
  // component as a bit mask (any record with those bits set) instead of
  // comparing it whole.
  int sm_ports(const std::string& /*target*/) {
    const Query& q = *find_query("PIR");
    for (int pass = 0; pass < 2; ++pass) {
      out_->text(pass == 0 ? "IsSM ports\n" : "\nIsSMdisabled ports\n");
      Rec r(*q.desc);
      r.set("portInfo.capabilityMask", pass == 0 ? 1u << 1 : 1u << 10);
      for (const auto& x : table(q, r, 1u << 31))
        record(*q.desc, x.data(), [&] { return iba::ref::sa_dump(*q.desc, x.data(), iba::ref::SA_ISSM); },
               {{"group", pass == 0 ? "IsSM" : "IsSMdisabled"}});
    }
    return 0;
  }

  size_t shown_ = 0;  // records (or names, LIDs, GUIDs) written: --strict
  std::optional<ibcore::NodeNameMap> map_;
  // The one-letter query and lookup flags, in the order of --help: each
  // asks for a query (an alias of QUERIES) or runs a lookup of its own
  // (on the target operand).  Where several are given a lookup wins, and of
  // the lookups (or else the queries) the one of highest rank: -D, -N,
  // -L/-l/-G, -O/-U, -s; -g/-m, -I, -S, -x, -p, -c.
  struct QueryFlag {
    const char* flag;
    bool SaQuery::*given;
    const char* help;
    const char* query;
    int (SaQuery::*lookup)(const std::string& target);
    int rank;
  };
  static const QueryFlag kQueryFlags[15];
  bool opt_p_ = false, opt_N_ = false, opt_L_ = false, opt_l_ = false, opt_G_ = false, opt_O_ = false, opt_U_ = false,
       opt_s_ = false, opt_g_ = false, opt_m_ = false, opt_x_ = false, opt_c_ = false, opt_S_ = false, opt_I_ = false,
       opt_D_ = false, show_keys_ = false;
  PrOpts pr_;
  std::vector<std::string> args_, sel_;
  ibcore::MadTransactor* mad_ = nullptr;
  ibcore::IBPath sa_;
};

const SaQuery::QueryFlag SaQuery::kQueryFlags[15] = {
    {"-p", &SaQuery::opt_p_, "get PathRecord info", "PR", nullptr, 2},
    {"-N", &SaQuery::opt_N_, "get NodeRecord info", nullptr, &SaQuery::node_records_named, 4},
    {"-L", &SaQuery::opt_L_, "return the Lids of the name specified", nullptr, &SaQuery::name_to, 3},
    {"-l", &SaQuery::opt_l_, "return the unique Lid of the name specified", nullptr, &SaQuery::name_to, 3},
    {"-G", &SaQuery::opt_G_, "return the Guids of the name specified", nullptr, &SaQuery::name_to, 3},
    {"-O", &SaQuery::opt_O_, "return name for the Lid specified", nullptr, &SaQuery::to_name, 2},
    {"-U", &SaQuery::opt_U_, "return name for the Guid specified", nullptr, &SaQuery::to_name, 2},
    {"-s", &SaQuery::opt_s_, "return the PortInfoRecords with isSM or isSMdisabled capability mask bit on", nullptr,
     &SaQuery::sm_ports, 1},
    {"-g", &SaQuery::opt_g_, "get multicast group info", "MCMR", nullptr, 6},
    {"-m", &SaQuery::opt_m_, "get multicast member info", "MCMR", nullptr, 6},
    {"-x", &SaQuery::opt_x_, "get LinkRecord info", "LR", nullptr, 3},
    {"-c", &SaQuery::opt_c_, "get the SA's class port info", "CPI", nullptr, 1},
    {"-S", &SaQuery::opt_S_, "get ServiceRecord info", "SR", nullptr, 4},
    {"-I", &SaQuery::opt_I_, "get InformInfoRecord (subscription) info", "IIR", nullptr, 5},
    {"-D,--list", &SaQuery::opt_D_, "the node desc of the CA's", nullptr, &SaQuery::list_cas, 5},
};

}  // namespace

IBTOOL_COMMAND({.name = "saquery",
                .aliases = {},
                .summary = "query records from the subnet administrator (SA)",
                .description =
                    "Reads SA records: ClassPortInfo (CPI), NodeRecord (NR, the default), "
                    "PortInfoRecord (PIR), SL2VLTableRecord (SL2VL), PKeyTableRecord (PKTR), "
                    "VLArbitrationTableRecord (VLAR), InformInfoRecord (IIR), LinkRecord (LR), "
                    "ServiceRecord (SR), PathRecord (PR), MCMemberRecord (MCMR), LFTRecord (LFTR), "
                    "MFTRecord (MFTR), GUIDInfoRecord (GIR), SwitchInfoRecord (SWIR), SMInfoRecord "
                    "(SMIR).  Any field of the record can select: name=value arguments set the field "
                    "and its SA component mask (e.g. `saquery NR nodeInfo.portGUID=0x0002c90300001491`).  "
                    "A reply that arrives truncated (no RMPP) prints the records that arrived whole "
                    "and says so on stderr.  --json (-j; --pretty indents): one document (its members and types: --json-schema); not with -D, -L, -l, -G, -O, -U.",
                .usage = "[options] [query-name] [<name> | <lid> | <guid>] [field=value ...]",
                .examples = "  saquery                 # every NodeRecord\n"
                            "  saquery PIR 12/1        # PortInfoRecord of lid 12 port 1\n"
                            "  saquery -x              # LinkRecords\n"
                            "  saquery --src-to-dst 1:4\n"
                            "  saquery NR nodeInfo.nodeType=2",
                .make = [] { return std::make_unique<SaQuery>(); }});
