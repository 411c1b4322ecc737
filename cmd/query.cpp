// query: issue any RPC of any class with any attribute the registry knows,
// request fields set by name (SA component mask computed from them), and
// pretty-print the reply (python-rdma's `ibtool query`).
#include <strings.h>

#include <cstdio>
#include <cstring>
#include <string_view>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/rpc/gmppath.h"
#include "core/out/print.h"
#include "iba/attr_names.h"
#include "iba/introspect.h"
#include "iba/mad.h"
#include "core/out/log.h"

namespace {

using ibcore::IBPath;

struct Rpc {
  const char* name;
  uint8_t lo, hi, method;
};
constexpr Rpc RPCS[] = {
    {"SubnGet", iba::mgmt::SUBN_LID_ROUTED, iba::mgmt::SUBN_LID_ROUTED, iba::method::GET},
    {"SubnSet", iba::mgmt::SUBN_LID_ROUTED, iba::mgmt::SUBN_LID_ROUTED, iba::method::SET},
    {"SubnAdmGet", iba::mgmt::SUBN_ADM, iba::mgmt::SUBN_ADM, iba::method::GET},
    {"SubnAdmGetTable", iba::mgmt::SUBN_ADM, iba::mgmt::SUBN_ADM, iba::method::GET_TABLE},
    {"SubnAdmSet", iba::mgmt::SUBN_ADM, iba::mgmt::SUBN_ADM, iba::method::SET},
    {"SubnAdmDelete", iba::mgmt::SUBN_ADM, iba::mgmt::SUBN_ADM, iba::method::DELETE},
    {"PerformanceGet", iba::mgmt::PERF, iba::mgmt::PERF, iba::method::GET},
    {"PerformanceSet", iba::mgmt::PERF, iba::mgmt::PERF, iba::method::SET},
    {"BMGet", iba::mgmt::BM, iba::mgmt::BM, iba::method::GET},
    {"BMSet", iba::mgmt::BM, iba::mgmt::BM, iba::method::SET},
    {"DevMgtGet", iba::mgmt::DEV_MGT, iba::mgmt::DEV_MGT, iba::method::GET},
    {"DevMgtSet", iba::mgmt::DEV_MGT, iba::mgmt::DEV_MGT, iba::method::SET},
    {"SNMPGet", iba::mgmt::SNMP, iba::mgmt::SNMP, iba::method::GET},
    {"CCGet", iba::mgmt::CC, iba::mgmt::CC, iba::method::GET},
    {"CCSet", iba::mgmt::CC, iba::mgmt::CC, iba::method::SET},
    {"VendGet", iba::mgmt::VENDOR_MIN, iba::mgmt::VENDOR_OUI_MAX, iba::method::GET},
    {"VendSet", iba::mgmt::VENDOR_MIN, iba::mgmt::VENDOR_OUI_MAX, iba::method::SET},
};

const Rpc* find_rpc(const std::string& s) {
  for (const Rpc& r : RPCS)
    if (!strcasecmp(r.name, s.c_str())) return &r;
  return nullptr;
}

// The class and attribute for an RPC and an attribute name (iba::find_attr_named:
// "SMPPortInfo", "PortInfo", or an attribute ID).
std::pair<const iba::ClassDesc*, const iba::AttrDesc*> find_attr(const Rpc& rpc, const std::string& name) {
  return iba::find_attr_named(name, rpc.lo, rpc.hi);
}

class Query : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_option("-a,--amod", amod_str_, "attribute modifier")->option_text("<amod>");
    app.add_option("--oui", oui_str_, "OUI for vendor classes with one (0x30-0x4f)")->option_text("<oui>");
    flags_.bind(app, ibtool::tflag::Direct | ibtool::tflag::Lid | ibtool::tflag::Guid);
    ibtool::add_common_options(app, config(), ibtool::opt::Gmp | ibtool::opt::MKey | ibtool::opt::Json);
    app.add_option("args", args_, "RPC ATTRIBUTE [target] [field=value ...]");
  }

  int run() override {
    if (args_.size() < 2) {
      ibcore::log::error("E: usage: query RPC ATTRIBUTE [target] [-a amod] [field=value ...]\n");
      return 2;
    }
    const Rpc* rpc = find_rpc(args_[0]);
    if (!rpc) return bad("unknown RPC '" + args_[0] + "' (" + rpc_list() + ")");
    auto [cls, attr] = find_attr(*rpc, args_[1]);
    if (!attr) return bad("no class of " + std::string(rpc->name) + " has an attribute '" + args_[1] + "'");
    if (!(attr->methods & iba::mbit(rpc->method)))
      return bad(std::string(rpc->name) + " is not allowed for " + attr->desc->name);
    std::vector<std::string> assigns;
    std::string target;
    for (size_t i = 2; i < args_.size(); ++i) {
      if (args_[i].find('=') != std::string::npos && args_[i].rfind("IBPath", 0) != 0 &&
          args_[i].rfind("IBDRPath", 0) != 0)
        assigns.push_back(args_[i]);
      else if (target.empty())
        target = args_[i];
      else
        return bad("more than one target: '" + target + "' and '" + args_[i] + "'");
    }
    uint64_t amod = 0, oui = 0;
    if (!amod_str_.empty() && (!ibtool::parse_int(amod_str_, amod) || amod > 0xffffffffull))
      return bad("invalid attribute modifier '" + amod_str_ + "'");
    if (!oui_str_.empty() && (!ibtool::parse_int(oui_str_, oui) || oui > 0xffffff))
      return bad("invalid OUI '" + oui_str_ + "'");

    std::vector<uint8_t> payload(attr->desc->size, 0);
    uint64_t comp_mask = 0;
    try {
      comp_mask = iba::apply_assignments(*attr->desc, payload.data(), assigns);
    } catch (const std::exception& e) {
      return bad(e.what());
    }
    bool is_smp = cls->mgmt_class == iba::mgmt::SUBN_LID_ROUTED;
    bool is_sa = cls->mgmt_class == iba::mgmt::SUBN_ADM;
    if (target.empty() && !is_sa) return bad(std::string(rpc->name) + " needs a target");
    try {
      IBPath parsed;
      if (!target.empty()) parsed = ibtool::parse_target_args(flags_, {target}, 0);
      ibtool::Session s = ibtool::open_session(config(), target.empty() ? nullptr : &parsed);
      IBPath path;
      if (is_smp) {
        path = ibcore::resolve_for_smp(*s.mad, parsed);
      } else if (is_sa) {
        path = target.empty() ? ibcore::sa_path_from_config(*s.mad) : parsed;
        if (!target.empty() && !path.dqpn) path.dqpn = 1, path.qkey = ibcore::GSI_QKEY;
      } else {
        ibcore::GmpPathResolver res(*s.mad);
        path = res.resolve(parsed);
      }
      ibcore::MadRequest req;
      req.cls = cls;
      req.method = rpc->method;
      req.attr_id = attr->id;
      req.amod = uint32_t(amod);
      req.payload = payload;
      req.comp_mask = comp_mask;
      req.oui = uint32_t(oui);
      std::vector<uint8_t> rep = s.mad->call(req, path);
      print_reply(*attr->desc, rep, rpc->method == iba::method::GET_TABLE);
      return 0;
    } catch (const std::exception& e) {
      return ibcore::report(e);
    }
  }

private:
  // --json: {"attribute": its structure's name, "records": [{fields}]} for a
  // table, else {"attribute", "data": {fields}} (every field as iba/
  // declares it: what was asked for is shown, keys included).
  // The text: the reply's fields as "name: value" lines (a table: each
  // record after a "Reply structure #n" line).
  static void print_reply(const iba::StructDesc& d, const std::vector<uint8_t>& rep, bool table) {
    ibcore::Printer p;
    p.open_object().str(ibcore::PRINT_JSON, "attribute", nullptr, d.name);
    std::vector<uint8_t> buf(d.size, 0);
    if (table) {
      ibcore::SARecords recs = ibcore::sa_split_records(rep);
      p.open_array("records");
      size_t n = 0;
      for (auto r : recs.records) {
        std::fill(buf.begin(), buf.end(), 0);
        std::memcpy(buf.data(), r.data(), std::min(r.size(), buf.size()));
        p.text("Reply structure #%zu\n", n++);
        p.attribute(nullptr, d, buf.data(), [&] { return iba::print_fields(d, buf.data(), "  "); });
      }
      p.close_array();
      if (recs.truncated)
        ibcore::log::warn("W: the reply was truncated (segments lost): only %zu records shown\n", n);
    } else {
      auto data = ibcore::MadTransactor::payload_of(rep);
      std::memcpy(buf.data(), data.data(), std::min(data.size(), buf.size()));
      p.attribute("data", d, buf.data(), [&] { return iba::print_fields(d, buf.data()); });
    }
    p.close_object().finish();
  }

  static std::string rpc_list() {
    std::string s;
    for (const Rpc& r : RPCS) s += (s.empty() ? "" : ", ") + std::string(r.name);
    return s;
  }

  int bad(const std::string& m) {
    ibcore::log::error("E: %s\n", m.c_str());
    return 2;
  }

  ibtool::TargetFlags flags_;
  std::string amod_str_, oui_str_;
  std::vector<std::string> args_;
};

}  // namespace

IBTOOL_COMMAND({.name = "query",
                .aliases = {},
                .summary = "issue any MAD RPC with any attribute, fields set by name",
                .description = "Sends one RPC (SubnGet, SubnSet, SubnAdmGet, SubnAdmGetTable, SubnAdmSet, "
                               "PerformanceGet/Set, BMGet/Set, DevMgtGet/Set, SNMPGet, CCGet/Set, "
                               "VendGet/Set) of any attribute of the class registry to the target and "
                               "prints the reply field by field; a GetTable prints every record as "
                               "\"Reply structure #N\".  ATTRIBUTE is a structure name (SMPPortInfo, "
                               "SANodeRecord), the name without its class prefix (PortInfo, NodeRecord) "
                               "or an attribute ID.  field=value arguments set request fields by dotted "
                               "name; for the SA they also make the component mask.  SA RPCs go to the "
                               "SA when no target is given; other GMPs resolve their path through the SA.  "
                               "--json (-j; --pretty indents): one document (its members and types: --json-schema).",
                .usage = "[options] RPC ATTRIBUTE [target] [-a amod] [field=value ...]",
                .examples = "  ibtool query SubnGet PortInfo 0,1 -a 1\n"
                            "  ibtool query SubnAdmGetTable NodeRecord nodeInfo.nodeGUID=0x0002c90300001491\n"
                            "  ibtool query PerformanceGet PortCounters 4 -a 0 portSelect=1",
                .make = [] { return std::make_unique<Query>(); },
                .own = true});
