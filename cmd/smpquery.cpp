// smpquery: query one SMP attribute of a node and print it in the
// reference's layout (iba/refprint_smp).
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>
#include <strings.h>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/fabric/nodemap.h"
#include "core/rpc/portcaps.h"
#include "core/rpc/satransactor.h"
#include "core/out/print.h"
#include "iba/refprint_smp.h"
#include "iba/smp.h"
#include "core/out/log.h"

namespace {

using ibcore::IBPath;
using ibcore::MadTransactor;

// The port number argument the reference reads with strtoul(.., 0).
unsigned port_arg(const std::vector<std::string>& a, size_t i) {
  return i < a.size() ? unsigned(std::strtoul(a[i].c_str(), nullptr, 0)) : 0u;
}

struct Ctx {
  ibcore::SmpSource& src;  // SMPs, or SA records with --sa
  IBPath path;
  std::vector<std::string> params;  // op parameters after the target
  bool extended = false;
  bool show_keys = false;
  ibcore::Printer& p;  // the op's output
  std::string op;  // as given on the command line
  std::string node_name_map;  // --node-name-map
  iba::ref::Compat compat = iba::ref::Compat::Diags44;  // the output level (XDR's PortInfo lines)

  // An op's failure ends the run with the reference's message for it,
  // after "operation <op>: ".
  std::string failed(const std::string& msg) const { return "operation " + op + ": " + msg; }
  [[noreturn]] void fail(const std::string& msg) const { throw ibtool::RefFail{failed(msg)}; }
};

// One SubnGet; a failure prints our E: lines and ends the run with msg.
template <class T>
T get_or(Ctx& c, uint32_t amod, const std::string& msg) {
  try {
    return c.src.SubnGet<T>(c.path, amod);
  } catch (ibcore::MADError& e) {
    std::fflush(stdout);
    ibcore::report(e);
    throw ibtool::RefFail{msg};
  }
}
// ... with the reference's message for that query as the op's failure.
template <class T>
T get(Ctx& c, uint32_t amod, const char* fail_msg) {
  return get_or<T>(c, amod, c.failed(fail_msg));
}

// The document: {"destination", "portNum" (when port >= 0), then the op's
// attribute}, held until the op ends well (Printer::Doc::Whole: a failed
// read leaves stdout empty); the text shows neither key.
void head(const Ctx& c, int port) {
  c.p.open_object().json_value("destination", [&](ibcore::JsonOut& j) { c.path.json(j); });
  if (port >= 0) c.p.uint(ibcore::PRINT_JSON, "portNum", nullptr, unsigned(port));
}

// An attribute through its declaration: its fields, or the reference's
// layout text() makes.  (M_Key only with -K, as the text)
// caps: the capabilities its optional fields need beyond its own bytes
// (called only for the JSON).
template <class T, class F, class C = iba::Capabilities (*)()>
void emit(const Ctx& c, const char* attr, int port, const T& v, F text,
          C caps = [] { return iba::Capabilities{}; }) {
  static constexpr std::string_view KEYS[] = {"MKey"};
  head(c, port);
  c.p.attribute(attr, T::DESC, v.buf.data(), text, c.show_keys ? std::span<const std::string_view>() : std::span(KEYS),
                caps);
}

bool is_switch(const iba::SMPNodeInfo& ni) { return ni.nodeType() == 2; }

std::string header(const char* what, const IBPath& p) { return std::string("# ") + what + ": " + ibcore::portid_str(p); }

int op_nodeinfo(Ctx& c) {
  auto ni = get<iba::SMPNodeInfo>(c, 0, "node info query failed");
  emit(c, "NodeInfo", -1, ni, [&] { return header("Node info", c.path) + "\n" + iba::ref::smp_print(ni); });
  return 0;
}

int op_nodedesc(Ctx& c) {
  auto ni = get<iba::SMPNodeInfo>(c, 0, "node info query failed");
  auto nd = get<iba::SMPNodeDescription>(c, 0, "node desc query failed");
  ibcore::NodeNameMap map = ibcore::NodeNameMap::open(c.node_name_map);
  std::string name = map.remap(ni.nodeGUID(), nd.nodeString());
  emit(c, "NodeDescription", -1, nd, [&] {
    size_t l = name.size();
    std::string dots = l < 32 ? std::string(32 - l, '.') : std::string(".");
    return "Node Description:" + dots + name + "\n";
  });
  return 0;
}

int op_portinfo(Ctx& c) {
  unsigned port = port_arg(c.params, 0);
  uint32_t amod = port | (c.extended ? 0x80000000u : 0);
  auto pi = get<iba::SMPPortInfo>(c, amod, "port info query failed");
  emit(c, "PortInfo", int(port), pi, [&] {
    iba::ref::SmpPrintOptions o;
    o.show_keys = c.show_keys;
    o.compat = c.compat;
    // XDR's lines show where the capability masks announce extended
    // speeds 2; a switch's external port reports none (IBA reserves them):
    // its port 0 says, as upstream's ibportstate reads it.  Two more SMPs,
    // only for such a port (a failure leaves the lines out, as before).
    std::optional<iba::SMPPortInfo> port0;
    if (c.compat == iba::ref::Compat::Diags44 && port != 0 && pi.capabilityMask() == 0)
      if ((port0 = ibcore::switch_port0(c.src, c.path, c.extended))) o.capability = &*port0;
    return header("Port info", c.path) + " port " + std::to_string(port) + "\n" + iba::ref::smp_print(pi, o);
  }, [&] { return ibcore::port_capabilities(c.src, c.path, port, pi, c.extended); });
  return 0;
}

int op_portinfoext(Ctx& c) {
  unsigned port = port_arg(c.params, 0);
  iba::SMPNodeInfo ni;
  iba::SMPPortInfo pi;
  // The reference's support check ends the run with its own messages.
  ni = get_or<iba::SMPNodeInfo>(c, 0, "node info query failed");
  pi = get_or<iba::SMPPortInfo>(c, is_switch(ni) ? 0 : port, "port info query failed");
  if (!(pi.capabilityMask2() & iba::enums::CAP2_IS_PORT_INFO_EXTENDED)) {
    ibcore::log::error("E: CapabilityMask2 0x%llx of %s does not indicate PortInfoExtended support\n",
                 static_cast<unsigned long long>(pi.capabilityMask2()), c.path.describe().c_str());
    c.fail("port info extended not supported");
  }
  auto pie = get<iba::SMPPortInfoExtended>(c, port, "port info extended query failed");
  emit(c, "PortInfoExtended", int(port), pie, [&] {
    return header("Port info Extended", c.path) + " port " + std::to_string(port) + "\n" + iba::ref::smp_print(pie);
  });
  return 0;
}

int op_switchinfo(Ctx& c) {
  auto si = get<iba::SMPSwitchInfo>(c, 0, "switch info query failed");
  emit(c, "SwitchInfo", -1, si, [&] { return header("Switch info", c.path) + "\n" + iba::ref::smp_print(si); },
       [&] {  // (it answered SwitchInfo: a switch, no NodeInfo needed)
         auto p0 = ibcore::port0_of(c.src, c.path, c.extended);
         return p0 ? ibcore::capabilities_of(*p0) : iba::Capabilities{};
       });
  return 0;
}

void check_port(const Ctx& c, unsigned port, const iba::SMPNodeInfo& ni) {
  if (port > ni.numPorts()) {
    ibcore::log::error("E: port %u is beyond the node's %u ports\n", port, unsigned(ni.numPorts()));
    c.fail("invalid port number");
  }
}

// A table of cap entries the node keeps in blocks (T: one block, entry(t, i)
// its i-th entry), each block read with attribute modifier amod | block;
// printed as {key: {"capacity", array: [the entries in use]}}, and the
// text: the reference's table of them (text(entries, cap)).
template <class T, class Entry, class At>
int blocked_table(Ctx& c, int port, size_t cap, uint32_t amod, const char* fail_msg, At entry, const char* key,
                  const char* array, std::string (*text)(std::span<const Entry>, size_t)) {
  constexpr size_t per_block = T::SIZE / sizeof(Entry);
  std::vector<Entry> v;
  for (size_t block = 0; block * per_block < cap; ++block) {
    auto t = get<T>(c, amod | uint32_t(block), fail_msg);
    for (size_t i = 0; i < per_block; ++i) v.push_back(entry(t, i));
  }
  head(c, port);
  c.p.open_object(key).uint(ibcore::PRINT_JSON, "capacity", nullptr, cap).open_array(array);
  for (size_t i = 0; i < cap && i < v.size(); ++i) {
    if constexpr (std::is_same_v<Entry, uint64_t>) c.p.guid(ibcore::PRINT_JSON, nullptr, nullptr, v[i]);  // GUIDs
    else c.p.uint(ibcore::PRINT_JSON, nullptr, nullptr, v[i]);
  }
  c.p.close_array().close_object().lit(text(v, cap));
  return 0;
}

int op_pkeys(Ctx& c) {
  unsigned port = port_arg(c.params, 0);
  auto ni = get<iba::SMPNodeInfo>(c, 0, "node info query failed");
  check_port(c, port, ni);
  size_t cap = ni.partitionCap();
  if (is_switch(ni) && port) cap = get<iba::SMPSwitchInfo>(c, 0, "switch info failed").partitionEnforcementCap();
  // {"PKeyTable": {"capacity", "PKeyBlock": [the keys in use]}}.
  return blocked_table<iba::SMPPKeyTable, uint16_t>(
      c, int(port), cap, uint32_t(port) << 16, "pkey table query failed",
      [](const iba::SMPPKeyTable& t, size_t i) { return uint16_t(t.PKeyBlock(i)); }, "PKeyTable", "PKeyBlock",
      iba::ref::pkeys_print);
}

int op_sl2vl(Ctx& c) {
  unsigned outp = port_arg(c.params, 0);
  auto ni = get<iba::SMPNodeInfo>(c, 0, "node info query failed");
  check_port(c, outp, ni);
  // {"SLToVLMappingTable": {"tables": [{"inPort", "outPort", "SLtoVL": [VL
  // of SL 0..15]}]}}; the text: a header, then a row a table as it is read.
  head(c, -1);
  c.p.open_object("SLToVLMappingTable").open_array("tables");
  c.p.lit(header("SL2VL table", c.path) + "\n" + iba::ref::sl2vl_header());
  auto row = [&](unsigned in, unsigned o) {
    auto t = get<iba::SMPSLToVLMappingTable>(c, (in << 8) | o, "slvl query failed");
    c.p.open_object().uint(ibcore::PRINT_ANY, "inPort", "ports: in %2u", in);
    c.p.uint(ibcore::PRINT_ANY, "outPort", ", out %2u: ", o).open_array("SLtoVL");
    for (size_t i = 0; i < 16; ++i) c.p.uint(ibcore::PRINT_JSON, nullptr, nullptr, t.SLtoVL(i));
    c.p.close_array().lit(iba::ref::sl2vl_row(t)).close_object();
  };
  if (!is_switch(ni)) {
    row(0, 0);
  } else {
    for (unsigned in = 0; in <= ni.numPorts(); ++in) row(in, outp);
  }
  c.p.close_array().close_object();
  return 0;
}

int op_vlarb(Ctx& c) {
  unsigned port = port_arg(c.params, 0);
  if (port == 0) {
    auto ni = get<iba::SMPNodeInfo>(c, 0, "node info query failed");
    if (is_switch(ni) && !get<iba::SMPSwitchInfo>(c, 0, "switch info query failed").enhancedPort0()) {
      // A base switch port 0 has no tables: both null.
      head(c, 0);
      c.p.open_object("VLArbitrationTable").null("low").null("high").close_object();
      c.p.text("# No VLArbitration tables (BSP0): %s port 0\n", ibcore::portid_str(c.path).c_str());
      return 0;
    }
  }
  auto pi = get<iba::SMPPortInfo>(c, port, "port info query failed");
  unsigned low = unsigned(pi.VLArbitrationLowCap()), high = unsigned(pi.VLArbitrationHighCap());
  // {"VLArbitrationTable": {"VLArbitrationLowCap", "VLArbitrationHighCap",
  // "low": [{"VL", "weight"}], "high": [...]}}: the entries the caps say
  // are in use; the text: the reference's tables of them.
  head(c, int(port));
  c.p.open_object("VLArbitrationTable");
  c.p.text("# VLArbitration tables: %s port %u", ibcore::portid_str(c.path).c_str(), port);
  c.p.uint(ibcore::PRINT_ANY, "VLArbitrationLowCap", " LowCap %u", low);
  c.p.uint(ibcore::PRINT_ANY, "VLArbitrationHighCap", " HighCap %u\n", high);
  // Blocks 1, 2: low priority entries 0-31, 32-63; 3, 4: high priority.
  auto table = [&](const char* key, const char* title, unsigned cap, uint32_t first_block) {
    c.p.open_array(key);
    if (cap) c.p.text("%s", title);
    for (unsigned done = 0, blk = first_block; done < cap && blk < first_block + 2; done += 32, ++blk) {
      auto t = get<iba::SMPVLArbitrationTable>(c, blk << 16 | port, "vl arb query failed");
      for (unsigned i = 0; i < 32 && done + i < cap; ++i) {
        auto e = t.VLWeightBlock(i);
        c.p.open_object().uint(ibcore::PRINT_JSON, "VL", nullptr, e.VL());
        c.p.uint(ibcore::PRINT_JSON, "weight", nullptr, e.weight()).close_object();
      }
      c.p.lit(iba::ref::vlarb_print(t, cap - done));
    }
    c.p.close_array();
  };
  table("low", "# Low priority VL Arbitration Table:\n", low, 1);
  table("high", "# High priority VL Arbitration Table:\n", high, 3);
  c.p.close_object();
  return 0;
}

int op_guids(Ctx& c) {
  auto pi = get<iba::SMPPortInfo>(c, 0, "port info failed");
  size_t cap = pi.GUIDCap();
  // {"GUIDInfo": {"capacity", "GUIDs": [the GUIDs in use]}}.
  return blocked_table<iba::SMPGUIDInfo, uint64_t>(
      c, -1, cap, 0, "guid info query failed", [](const iba::SMPGUIDInfo& t, size_t i) { return iba::guid_at(t, i); },
      "GUIDInfo", "GUIDs", iba::ref::guids_print);
}

int op_mepi(Ctx& c) {
  unsigned port = port_arg(c.params, 0);
  auto m = get<iba::SMPMlnxExtPortInfo>(c, port, "Mellanox ext port info query failed");
  emit(c, "MlnxExtPortInfo", int(port), m, [&] {
    return header("MLNX ext Port info", c.path) + " port " + std::to_string(port) + "\n" + iba::ref::smp_print(m);
  });
  return 0;
}

struct Op {
  const char* name;
  const char* alias;
  int (*fn)(Ctx&);
  const char* params;
};
constexpr Op OPS[] = {
    {"NodeInfo", "NI", op_nodeinfo, "<addr>"},
    {"NodeDesc", "ND", op_nodedesc, "<addr>"},
    {"PortInfo", "PI", op_portinfo, "<addr> [<portnum>]"},
    {"PortInfoExtended", "PIE", op_portinfoext, "<addr> [<portnum>]"},
    {"SwitchInfo", "SI", op_switchinfo, "<addr>"},
    {"PKeyTable", "PKeys", op_pkeys, "<addr> [<portnum>]"},
    {"SL2VLTable", "SL2VL", op_sl2vl, "<addr> [<portnum>]"},
    {"VLArbitration", "VLArb", op_vlarb, "<addr> [<portnum>]"},
    {"GUIDInfo", "GI", op_guids, "<addr>"},
    {"MlnxExtPortInfo", "MEPI", op_mepi, "<addr> [<portnum>]"},
};

const Op* find_op(const std::string& s) {
  for (const Op& o : OPS)
    if (!strcasecmp(s.c_str(), o.name) || !strcasecmp(s.c_str(), o.alias)) return &o;
  return nullptr;
}

class SmpQuery : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    ibtool::bind_ref_help(app, help_);
    flags_.bind(app, ibtool::tflag::Combined | ibtool::tflag::Direct | ibtool::tflag::Lid | ibtool::tflag::Guid |
                         ibtool::tflag::SmPort);
    app.add_flag("-x,--extended", extended_, "use extended speeds");
    app.add_flag("-K,--show_keys", show_keys_, "display security keys in output");
    ibtool::add_common_options(app, config(), ibtool::opt::Smp | ibtool::opt::NodeNameMap | ibtool::opt::Json);
    app.add_option("args", args_, "<op> <dest dr_path|lid|guid> [op params]")->completes(op_words());
  }
  // The operations as completion offers them (lower case, as the
  // reference's man page writes them; any case is taken).
  // (Made at every start, so without a libc call a character.)
  static std::vector<std::string> op_words() {
    std::vector<std::string> w(std::size(OPS));
    for (size_t i = 0; i < std::size(OPS); ++i) {
      w[i] = OPS[i].name;
      for (char& ch : w[i]) ch = ch >= 'A' && ch <= 'Z' ? char(ch - 'A' + 'a') : ch;
    }
    return w;
  }

  bool reports_errors() const override { return true; }

  int run() override {
    if (help_ || args_.size() < 2) return ibtool::ref_help_exit(app());
    const Op* op = find_op(args_[0]);
    if (!op) {
      ibcore::log::error("E: unknown operation '%s' (see --help for the list)\n", args_[0].c_str());
      throw ibtool::RefFail{"operation '" + args_[0] + "' not supported"};
    }
    auto t = ibtool::open_smp_target(config(), flags_, args_, 1);
    ibcore::SmpSource src(t.mad());
    ibcore::Printer p(stdout, ibcore::Printer::Doc::Whole);
    Ctx c{src, {}, {}, extended_, show_keys_, p, args_[0], config().node_name_map, config().compat};
    c.path = t.path;
    if (args_.size() > 1 + flags_.nargs()) c.params.assign(args_.begin() + 1 + flags_.nargs(), args_.end());
    int rc = op->fn(c);
    p.close_object().finish();
    return rc;
  }

private:
  ibtool::TargetFlags flags_;
  bool extended_ = false, show_keys_ = false, help_ = false;
  std::vector<std::string> args_;
};

std::string op_list() {
  std::string s = "Supported ops (and aliases, case insensitive):\n";
  for (const Op& o : OPS) s += "  " + std::string(o.name) + " (" + o.alias + ") " + o.params + "\n";
  return s;
}

}  // namespace

IBTOOL_COMMAND({.name = "smpquery",
                .aliases = {},
                .summary = "query one SMP attribute of a node (node, port, switch info, tables)",
                .description = [] { return "Sends SubnGet SMPs to the destination and prints the attribute in the "
                               "reference's layout.  The destination is a LID, a DR path (0,1,4), a "
                               "port GUID or GID, or a path spec; -D/-L/-G force a form, -c takes a "
                               "LID and a DR path from it (combined route).  --json (-j; --pretty indents): "
                               "one document (its members and types: --json-schema); the tables as PKeyTable {capacity, PKeyBlock: [P_Keys]}, "
                               "GUIDInfo {capacity, GUIDs}, SLToVLMappingTable {tables: [{inPort, outPort, "
                               "SLtoVL: [VL of each SL]}]}, VLArbitrationTable {VLArbitrationLowCap, "
                               "VLArbitrationHighCap, low, high: [{VL, weight}], null for a base port 0}.\n\n" +
                               op_list(); },
                .usage = "[options] <op> <dest dr_path|lid|guid> [op params]",
                .examples = "  smpquery portinfo 3 1\n"
                            "  smpquery -G switchinfo 0x2C9000100D051 1\n"
                            "  smpquery nodeinfo 0,1\n"
                            "  smpquery -c nodeinfo 6 0,12",
                .make = [] { return std::make_unique<SmpQuery>(); }});
