// smpquery: query one SMP attribute of a node and print it in the
// reference's layout (iba/refprint_smp).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/fabric/nodemap.h"
#include "core/rpc/satransactor.h"
#include "core/out/json.h"
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
  std::string op;  // as given on the command line
  std::string node_name_map;  // --node-name-map

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

void out(const std::string& s) { std::fputs(s.c_str(), stdout); }

// The attribute as text, or with --json as one JSON document.
// (M_Key only with -K, as the text)
template <class T>
void emit(const Ctx& c, const char* attr, int port, const T& v, const std::string& text) {
  static constexpr std::string_view KEYS[] = {"MKey"};
  if (ibcore::json_enabled())
    ibcore::json_attribute(stdout, attr, ibcore::portid_str(c.path), port, T::DESC, v.buf.data(),
                           c.show_keys ? std::span<const std::string_view>() : std::span(KEYS));
  else out(text);
}

// A table op's --json document: {"destination", "portNum" (when port >=
// 0), "<attr>": {...}}, the attribute's object written by body.
template <class F>
void emit_table(const Ctx& c, const char* attr, int port, F body) {
  ibcore::TextOut o(stdout);
  ibcore::JsonOut j(o, ibcore::json_pretty());
  j.obj().ks("destination", ibcore::portid_str(c.path));
  if (port >= 0) j.kv("portNum", unsigned(port));
  j.key(attr).obj();
  body(j);
  j.end().end();
  j.finish();
}

std::string header(const char* what, const IBPath& p) { return std::string("# ") + what + ": " + ibcore::portid_str(p); }

bool is_switch(const iba::SMPNodeInfo& ni) { return ni.nodeType() == 2; }

int op_nodeinfo(Ctx& c) {
  auto ni = get<iba::SMPNodeInfo>(c, 0, "node info query failed");
  emit(c, "NodeInfo", -1, ni, header("Node info", c.path) + "\n" + iba::ref::smp_print(ni));
  return 0;
}

int op_nodedesc(Ctx& c) {
  auto ni = get<iba::SMPNodeInfo>(c, 0, "node info query failed");
  auto nd = get<iba::SMPNodeDescription>(c, 0, "node desc query failed");
  ibcore::NodeNameMap map = ibcore::NodeNameMap::open(c.node_name_map);
  std::string name = map.remap(ni.nodeGUID(), nd.nodeString());
  size_t l = name.size();
  std::string dots = l < 32 ? std::string(32 - l, '.') : std::string(".");
  emit(c, "NodeDescription", -1, nd, "Node Description:" + dots + name + "\n");
  return 0;
}

int op_portinfo(Ctx& c) {
  unsigned port = port_arg(c.params, 0);
  uint32_t amod = port | (c.extended ? 0x80000000u : 0);
  auto pi = get<iba::SMPPortInfo>(c, amod, "port info query failed");
  iba::ref::SmpPrintOptions o;
  o.show_keys = c.show_keys;
  emit(c, "PortInfo", int(port), pi,
       header("Port info", c.path) + " port " + std::to_string(port) + "\n" + iba::ref::smp_print(pi, o));
  return 0;
}

int op_portinfoext(Ctx& c) {
  unsigned port = port_arg(c.params, 0);
  iba::SMPNodeInfo ni;
  iba::SMPPortInfo pi;
  // The reference's support check ends the run with its own messages.
  ni = get_or<iba::SMPNodeInfo>(c, 0, "node info query failed");
  pi = get_or<iba::SMPPortInfo>(c, is_switch(ni) ? 0 : port, "port info query failed");
  constexpr uint64_t CAP2_PORT_INFO_EXT = 0x2;
  if (!(pi.capabilityMask2() & CAP2_PORT_INFO_EXT)) {
    ibcore::log::error("E: CapabilityMask2 0x%llx of %s does not indicate PortInfoExtended support\n",
                 static_cast<unsigned long long>(pi.capabilityMask2()), c.path.describe().c_str());
    c.fail("port info extended not supported");
  }
  auto pie = get<iba::SMPPortInfoExtended>(c, port, "port info extended query failed");
  emit(c, "PortInfoExtended", int(port), pie,
       header("Port info Extended", c.path) + " port " + std::to_string(port) + "\n" + iba::ref::smp_print(pie));
  return 0;
}

int op_switchinfo(Ctx& c) {
  auto si = get<iba::SMPSwitchInfo>(c, 0, "switch info query failed");
  emit(c, "SwitchInfo", -1, si, header("Switch info", c.path) + "\n" + iba::ref::smp_print(si));
  return 0;
}

void check_port(const Ctx& c, unsigned port, const iba::SMPNodeInfo& ni) {
  if (port > ni.numPorts()) {
    ibcore::log::error("E: port %u is beyond the node's %u ports\n", port, unsigned(ni.numPorts()));
    c.fail("invalid port number");
  }
}

int op_pkeys(Ctx& c) {
  unsigned port = port_arg(c.params, 0);
  auto ni = get<iba::SMPNodeInfo>(c, 0, "node info query failed");
  check_port(c, port, ni);
  size_t cap = ni.partitionCap();
  if (is_switch(ni) && port) cap = get<iba::SMPSwitchInfo>(c, 0, "switch info failed").partitionEnforcementCap();
  std::vector<uint16_t> keys;
  for (size_t block = 0; block * 32 < cap; ++block) {
    auto t = get<iba::SMPPKeyTable>(c, uint32_t(port) << 16 | uint32_t(block), "pkey table query failed");
    for (size_t i = 0; i < 32; ++i) keys.push_back(uint16_t(t.PKeyBlock(i)));
  }
  if (ibcore::json_enabled()) {
    emit_table(c, "PKeyTable", int(port), [&](ibcore::JsonOut& j) {
      j.kv("capacity", cap).key("PKeyBlock").arr();
      for (size_t i = 0; i < cap && i < keys.size(); ++i) j.num(keys[i]);
      j.end();
    });
    return 0;
  }
  out(iba::ref::pkeys_print(keys, cap));
  return 0;
}

int op_sl2vl(Ctx& c) {
  unsigned outp = port_arg(c.params, 0);
  auto ni = get<iba::SMPNodeInfo>(c, 0, "node info query failed");
  check_port(c, outp, ni);
  // --json: {"destination", "SLtoVLMappingTable": {"tables": [{"inPort",
  // "outPort", "SLtoVL": [VL of SL 0..15]}]}}, written once every row is
  // read (a failed read leaves stdout empty).
  const bool json = ibcore::json_enabled();
  struct Row {
    unsigned in, out;
    iba::SMPSLToVLMappingTable t;
  };
  std::vector<Row> rows;
  if (!json) out(header("SL2VL table", c.path) + "\n" + iba::ref::sl2vl_header());
  auto row = [&](unsigned in, unsigned o) {
    auto t = get<iba::SMPSLToVLMappingTable>(c, (in << 8) | o, "slvl query failed");
    if (json) {
      rows.push_back({in, o, t});
      return;
    }
    char b[64];
    std::snprintf(b, sizeof b, "ports: in %2u, out %2u: ", in, o);
    out(b + iba::ref::sl2vl_row(t));
  };
  if (!is_switch(ni)) {
    row(0, 0);
  } else {
    for (unsigned in = 0; in <= ni.numPorts(); ++in) row(in, outp);
  }
  if (json)
    emit_table(c, "SLtoVLMappingTable", -1, [&](ibcore::JsonOut& j) {
      j.key("tables").arr();
      for (const Row& r : rows) {
        j.obj().kv("inPort", r.in).kv("outPort", r.out).key("SLtoVL").arr();
        for (size_t i = 0; i < 16; ++i) j.num(r.t.SLtoVL(i));
        j.end().end();
      }
      j.end();
    });
  return 0;
}

int op_vlarb(Ctx& c) {
  unsigned port = port_arg(c.params, 0);
  if (port == 0) {
    auto ni = get<iba::SMPNodeInfo>(c, 0, "node info query failed");
    if (is_switch(ni) && !get<iba::SMPSwitchInfo>(c, 0, "switch info query failed").enhancedPort0()) {
      if (ibcore::json_enabled()) {
        // A base switch port 0 has no tables: both null.
        emit_table(c, "VLArbitrationTable", 0, [](ibcore::JsonOut& j) { j.key("low").null().key("high").null(); });
        return 0;
      }
      out("# No VLArbitration tables (BSP0): " + ibcore::portid_str(c.path) + " port 0\n");
      return 0;
    }
  }
  auto pi = get<iba::SMPPortInfo>(c, port, "port info query failed");
  unsigned low = unsigned(pi.VLArbitrationLowCap()), high = unsigned(pi.VLArbitrationHighCap());
  if (ibcore::json_enabled()) {
    // {"VLArbitrationLowCap", "VLArbitrationHighCap", "low": [{"VL",
    // "weight"}], "high": [...]}: the entries the caps say are in use.
    std::vector<iba::SMPVLArbitrationTable> blocks;
    for (uint32_t blk = 1; blk <= 4; ++blk) {
      unsigned cap = blk <= 2 ? low : high, first = (blk - 1) % 2 * 32;
      if (first < cap) blocks.push_back(get<iba::SMPVLArbitrationTable>(c, blk << 16 | port, "vl arb query failed"));
      else blocks.emplace_back();
    }
    emit_table(c, "VLArbitrationTable", int(port), [&](ibcore::JsonOut& j) {
      j.kv("VLArbitrationLowCap", low).kv("VLArbitrationHighCap", high);
      auto list = [&](const char* k, unsigned cap, size_t b0) {
        j.key(k).arr();
        for (unsigned i = 0; i < cap && i < 64; ++i) {
          auto e = blocks[b0 + i / 32].VLWeightBlock(i % 32);
          j.obj().kv("VL", e.VL()).kv("weight", e.weight()).end();
        }
        j.end();
      };
      list("low", low, 0);
      list("high", high, 2);
    });
    return 0;
  }
  char b[160];
  std::snprintf(b, sizeof b, "# VLArbitration tables: %s port %u LowCap %u HighCap %u\n",
                ibcore::portid_str(c.path).c_str(), port, low, high);
  out(b);
  // Blocks 1, 2: low priority entries 0-31, 32-63; 3, 4: high priority.
  auto table = [&](const char* title, unsigned cap, uint32_t first_block) {
    out(title);
    for (unsigned done = 0, blk = first_block; done < cap && blk < first_block + 2; done += 32, ++blk) {
      auto t = get<iba::SMPVLArbitrationTable>(c, blk << 16 | port, "vl arb query failed");
      out(iba::ref::vlarb_print(t, cap - done));
    }
  };
  if (low) table("# Low priority VL Arbitration Table:\n", low, 1);
  if (high) table("# High priority VL Arbitration Table:\n", high, 3);
  return 0;
}

int op_guids(Ctx& c) {
  auto pi = get<iba::SMPPortInfo>(c, 0, "port info failed");
  size_t cap = pi.GUIDCap();
  std::vector<uint64_t> guids;
  for (size_t block = 0; block * 8 < cap; ++block) {
    auto t = get<iba::SMPGUIDInfo>(c, uint32_t(block), "guid info query failed");
    for (size_t i = 0; i < 8; ++i) guids.push_back(iba::guid_at(t, i));
  }
  if (ibcore::json_enabled()) {
    emit_table(c, "GUIDInfo", -1, [&](ibcore::JsonOut& j) {
      j.kv("capacity", cap).key("GUIDs").arr();
      for (size_t i = 0; i < cap && i < guids.size(); ++i) j.guid(guids[i]);
      j.end();
    });
    return 0;
  }
  out(iba::ref::guids_print(guids, cap));
  return 0;
}

int op_mepi(Ctx& c) {
  unsigned port = port_arg(c.params, 0);
  auto m = get<iba::SMPMlnxExtPortInfo>(c, port, "Mellanox ext port info query failed");
  emit(c, "MlnxExtPortInfo", int(port), m,
       header("MLNX ext Port info", c.path) + " port " + std::to_string(port) + "\n" + iba::ref::smp_print(m));
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
    app_ = &app;
    ibtool::bind_ref_help(app, help_);
    flags_.bind(app, ibtool::tflag::Combined | ibtool::tflag::Direct | ibtool::tflag::Lid | ibtool::tflag::Guid |
                         ibtool::tflag::SmPort);
    app.add_flag("-x,--extended", extended_, "use extended speeds");
    app.add_flag("-K,--show_keys", show_keys_, "display security keys in output");
    ibtool::add_common_options(app, config(), ibtool::opt::Smp | ibtool::opt::NodeNameMap | ibtool::opt::Json);
    app.add_option("args", args_, "<op> <dest dr_path|lid|guid> [op params]");
  }

  bool reports_errors() const override { return true; }

  int run() override {
    if (help_ || args_.size() < 2) return ibtool::ref_help_exit(*app_);
    const Op* op = find_op(args_[0]);
    if (!op) {
      ibcore::log::error("E: unknown operation '%s' (see --help for the list)\n", args_[0].c_str());
      throw ibtool::RefFail{"operation '" + args_[0] + "' not supported"};
    }
    auto t = ibtool::open_smp_target(config(), flags_, args_, 1);
    ibcore::SmpSource src(t.mad());
    Ctx c{src, {}, {}, extended_, show_keys_, args_[0], config().node_name_map};
    c.path = t.path;
    if (args_.size() > 1 + flags_.nargs()) c.params.assign(args_.begin() + 1 + flags_.nargs(), args_.end());
    return op->fn(c);
  }

private:
  CLI::App* app_ = nullptr;
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
                               "{\"destination\", \"portNum\" (port ops), \"<Attribute>\": {its fields as "
                               "iba/ names them}}; the tables as PKeyTable {capacity, PKeyBlock: [P_Keys]}, "
                               "GUIDInfo {capacity, GUIDs}, SLtoVLMappingTable {tables: [{inPort, outPort, "
                               "SLtoVL: [VL of each SL]}]}, VLArbitrationTable {VLArbitrationLowCap, "
                               "VLArbitrationHighCap, low, high: [{VL, weight}], null for a base port 0}.\n\n" +
                               op_list(); },
                .usage = "[options] <op> <dest dr_path|lid|guid> [op params]",
                .examples = "  smpquery portinfo 3 1\n"
                            "  smpquery -G switchinfo 0x2C9000100D051 1\n"
                            "  smpquery nodeinfo 0,1\n"
                            "  smpquery -c nodeinfo 6 0,12",
                .make = [] { return std::make_unique<SmpQuery>(); }});
