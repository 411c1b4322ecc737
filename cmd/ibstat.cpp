// Local device commands: ibstat (libibumad's view of the devices),
// ibstatus (the sysfs view) and ibv_devices (the verbs view).
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/transport/devices.h"
#include "core/transport/sysfsport.h"
#include "core/out/print.h"
#include "core/base/textfile.h"
#include "core/transport/verbs.h"
#include "iba/enums.h"
#include "iba/refprint_smp.h"
#include "core/out/log.h"

namespace {

using ibcore::Device;
using ibcore::EndPort;

const char* port_state_name(int s) { return s >= 0 ? iba::ref::ibstat_port_state(unsigned(s)) : "???"; }
const char* phys_state_name(int s) { return s >= 0 ? iba::ref::ibstat_phys_state(unsigned(s)) : "???"; }

std::string rate_str(int rate) { return rate == 2 ? "2.5" : std::to_string(rate); }

// A port: the text's lines (each prefixed with pre) or the JSON object's
// members {"portState", "portPhysicalState" (names, with <field>Raw),
// "rate" (Gb/s), "LID", "LMC", "SMLID", "capabilityMask", "portGUID",
// "GIDPrefix", "linkLayer", and "effectiveSpeedMbps" where libibverbs
// reports it}.
void describe_port(ibcore::Printer& pr, const EndPort& p, const char* pre) {
  using ibcore::PRINT_ANY;
  using ibcore::PRINT_JSON;
  // Upstream (rdma-core main, 2026) adds the effective speed where
  // libibverbs has ibv_query_port_speed and the device answers it; 44's
  // libibverbs has no such verb, so its output is unchanged.
  std::optional<uint64_t> speed;
  if (auto ctx = ibcore::verbs::try_open(p.ca)) speed = ctx->query_port_speed(uint8_t(p.port));
  pr.text("%sState: %s\n", pre, port_state_name(p.state));
  pr.enumeration(PRINT_JSON, "portState", nullptr, iba::enums::PORT_STATE, unsigned(p.state));
  pr.text("%sPhysical state: %s\n", pre, phys_state_name(p.phys_state));
  pr.enumeration(PRINT_JSON, "portPhysicalState", nullptr, iba::enums::PHYS_STATE, unsigned(p.phys_state));
  pr.text("%sRate: %s\n", pre, rate_str(p.rate).c_str()).uint(PRINT_JSON, "rate", nullptr, unsigned(p.rate));
  if (speed) pr.text("%sEffective speed: %g\n", pre, double(*speed) / 10.0);
  pr.text("%sBase lid: ", pre).uint(PRINT_ANY, "LID", "%u\n", p.lid);
  pr.text("%sLMC: ", pre).uint(PRINT_ANY, "LMC", "%u\n", p.lmc);
  pr.text("%sSM lid: ", pre).uint(PRINT_ANY, "SMLID", "%u\n", p.sm_lid);
  pr.text("%sCapability mask: ", pre).uint(PRINT_ANY, "capabilityMask", "0x%08x\n", p.capmask);
  pr.text("%sPort GUID: ", pre).guid(PRINT_ANY, "portGUID", "0x%016llx\n", p.port_guid);
  pr.guid(PRINT_JSON, "GIDPrefix", nullptr, p.subnet_prefix);
  pr.text("%sLink layer: ", pre).str(PRINT_ANY, "linkLayer", "%s\n", p.link_layer);
  if (speed) pr.uint(PRINT_JSON, "effectiveSpeedMbps", nullptr, *speed * 100);
}

// A device: {"name", "nodeType", "caType", "numPorts", "firmwareVersion",
// "hardwareVersion", "nodeGUID", "systemImageGUID", "ports": [{"portNum",
// the port's members}]} (with_ports false: the text without its ports, -s);
// port >= 0: only that port, the text "CA: '<name>'" and the port's lines.
void describe_ca(ibcore::Printer& pr, const Device& d, bool with_ports, int port = -1) {
  using ibcore::PRINT_ANY;
  using ibcore::PRINT_JSON;
  const bool one = port >= 0;
  const ibcore::PrintKind k = one ? PRINT_JSON : PRINT_ANY;
  pr.open_object().str(PRINT_ANY, "name", one ? "CA: '%s'\n" : "CA '%s'\n", d.name);
  const char* tn = iba::enums::name_of(iba::enums::node_types(), unsigned(d.node_type));
  pr.enumeration(PRINT_JSON, "nodeType", nullptr, tn ? tn : "Unknown", unsigned(d.node_type));
  pr.str(k, "caType", "\tCA type: %s\n", d.ca_type).uint(k, "numPorts", "\tNumber of ports: %d\n", unsigned(d.numports));
  pr.str(k, "firmwareVersion", "\tFirmware version: %s\n", d.fw_ver);
  pr.str(k, "hardwareVersion", "\tHardware version: %s\n", d.hw_ver);
  pr.guid(k, "nodeGUID", "\tNode GUID: 0x%016llx\n", d.node_guid);
  pr.guid(k, "systemImageGUID", "\tSystem image GUID: 0x%016llx\n", d.system_guid);
  if (with_ports) {
    pr.open_array("ports");
    for (const EndPort& p : d.ports) {
      if (one && p.port != port) continue;
      pr.open_object().uint(PRINT_ANY, "portNum", one ? "Port %d:\n" : "\tPort %d:\n", unsigned(p.port));
      describe_port(pr, p, one ? "" : "\t\t");
      pr.close_object();
    }
    pr.close_array();
  }
  pr.close_object();
}

class IbStat : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    // -h behaves as the reference's (usage on stderr, status 2); --help
    // stays the dispatcher's.
    app.set_help_flag("--help", "help message");
    app.add_flag("-h", short_help_, "help message");
    app.add_flag("-l,--list_of_cas", list_, "list all IB devices");
    app.add_flag("-s,--short", short_, "short output");
    app.add_flag("-p,--port_list", port_list_, "show port list");
    ibtool::add_common_options(app, config(), ibtool::opt::Config | ibtool::opt::Verbose | ibtool::opt::Debug |
                                        ibtool::opt::Json);
    app.add_option("args", args_, "<ca_name> [portnum] (further arguments are ignored)");
  }

  const char* no_json_form() const override {
    return port_list_ || list_ || short_ ? "does not combine with -l, -s or -p" : nullptr;
  }

  int run() override {
    // getopt treats "-1" as an option; core/cli/cli takes it as a number.
    for (const auto& a : args_)
      if (a.size() > 1 && a[0] == '-') {
        ibcore::log::info("%s: invalid option -- '%s'\n\n", app().get_name().c_str(), a.c_str() + 1);
        short_help_ = true;
      }
    if (short_help_) {
      ibcore::log::text(ibcore::log::Level::info, app().help().c_str());
      return 2;
    }
    const std::vector<Device>* devs;
    const ibcore::DeviceList* all;
    try {
      all = &ibcore::get_device_list();
      devs = &all->devices;
    } catch (const std::exception& e) {
      throw ibtool::ExitFail{255, e.what()};
    }
    // A device libibumad cannot read: named, an error (nothing for a
    // non-RDMA device); in the listing, a warning for an RDMA end point and
    // the other devices still shown (upstream since rdma-core v54).
    for (const auto& u : all->unreadable) {
      if (!args_.empty() && u.name == args_[0]) {
        if (!u.rdma_endpoint) return 0;
        ibcore::log::error("E: stat of IB device '%s' failed: %s\n", u.name.c_str(), u.error.c_str());
        return 255;
      }
      if (args_.empty() && u.rdma_endpoint && !list_)
        ibcore::log::warn("W: stat of IB device '%s' failed: %s\n", u.name.c_str(), u.error.c_str());
    }
    const Device* ca = nullptr;
    if (!args_.empty()) {
      for (const auto& d : *devs)
        if (d.name == args_[0]) ca = &d;
      if (!ca) {
        ibcore::log::error("E: '%s' IB device can't be found\n", args_[0].c_str());
        return 255;
      }
    }
    if (port_list_) {
      for (const auto& d : *devs) {
        if (ca && ca != &d) continue;
        for (const auto& p : d.ports)
          std::printf("0x%016llx\n", static_cast<unsigned long long>(p.port_guid));
      }
      return 0;
    }
    if (list_) {
      for (const auto& d : *devs) std::printf("%s\n", d.name.c_str());
      return 0;
    }
    // The reference reads the port number with strtoul(.., 0): leading
    // digits count, anything else is port 0.
    const bool one_port = !short_ && ca && args_.size() > 1;  // (-s shows the device)
    unsigned long n = one_port ? std::strtoul(args_[1].c_str(), nullptr, 0) : 0;
    if (one_port &&
        std::none_of(ca->ports.begin(), ca->ports.end(), [&](const EndPort& p) { return unsigned(p.port) == n && n; })) {
      ibcore::log::error("E: CA '%s' has no port number %lu (it has %d)\n", ca->name.c_str(), n, ca->numports);
      return 255;
    }
    // {"devices": [the devices (the one named), as describe_ca writes them]}.
    ibcore::Printer pr;
    pr.open_object().open_array("devices");
    if (one_port) {
      describe_ca(pr, *ca, true, int(n));
    } else {
      for (const auto& d : *devs)
        if (!ca || ca == &d) describe_ca(pr, d, !short_);
    }
    pr.close_array().close_object().finish();
    return 0;
  }

private:
  bool short_help_ = false, list_ = false, short_ = false, port_list_ = false;
  std::vector<std::string> args_;
};

// ibstatus reports what sysfs says, file by file, the way the classic script
// does: a missing file reads as "unknown" (link_layer as "IB"), values are
// shown with their whitespace runs collapsed to single spaces.
class IbStatus : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.set_help_flag("--help", "help message");
    app.add_flag("-h", short_help_, "print the usage on stdout and exit with status 255");
    app.add_option("devices", args_, "devname[:portnum] ... (default: every port of every device)");
    ibtool::add_common_options(app, config(), ibtool::opt::Json);
  }

  int run() override {
    if (short_help_) return usage();
    // {"ports": [the ports port_status describes]}, written when every
    // device was found (a failure leaves stdout to its message, as the
    // script's text does).
    ibcore::Printer p(stdout, ibcore::Printer::Doc::Whole);
    out_ = &p;
    p.open_object().open_array("ports");
    int rc = status();
    if (rc == 0) p.close_array().close_object().finish();
    return rc;
  }

private:
  int status() {
    if (args_.empty()) {
      struct stat st;
      if (::stat(ibcore::SYSFS_IB, &st) != 0 || !S_ISDIR(st.st_mode)) return fatal("No devices");
      std::vector<std::string> devs = ibcore::list_dir(ibcore::SYSFS_IB);
      if (devs.empty()) devs.push_back("*");  // an unmatched glob stays literal
      for (const auto& d : devs)
        if (int rc = device_status(d, "+")) return rc;
      return 0;
    }
    for (const auto& a : args_) {
      // device = up to the first ':', port = after the last one.
      std::string dev = a.substr(0, a.find(':'));
      std::string port = a.find(':') == std::string::npos ? "+" : a.substr(a.rfind(':') + 1);
      if (int rc = device_status(dev, port)) return rc;
    }
    return 0;
  }

  int usage() {
    std::string p = app().get_name();
    std::printf("Usage:  %s  [-h] [devname[:portnum]]\n", p.c_str());
    std::printf("\t-h:\tthis help screen\n");
    std::printf("\tExamples:\n");
    std::printf("\t\t%s mthca1\t\t# shows status of all ports of 'mthca1'\n", p.c_str());
    std::printf("\t\t%s mthca0:2\t# shows status port number 2 of 'mthca0'\n", p.c_str());
    std::printf("\t\t%s\t\t# default: shows status of all 'mthca0' ports\n", p.c_str());
    return 255;
  }

  int fatal(const std::string& msg) const {
    // The script says it on stdout; with --json stdout is the document's.
    ibcore::text_or_log(ibcore::log::Level::error, "Fatal error:  %s\n", msg.c_str());
    std::fflush(stdout);
    return 255;
  }

  enum class As { Text, Number, State };
  // One file's line ("<label> <value>", fallback when not readable), and
  // its JSON member: the text (as), its number, or a state ("4: ACTIVE":
  // the name, the number beside as <key>Raw); null when not readable.
  static void field(ibcore::Printer& p, const char* label, const char* key, const std::optional<std::string>& v,
                    const char* fallback, As as) {
    std::string s = v ? *v : fallback;
    p.text("%s%s", label, s.empty() ? "" : " ");
    uint64_t n = 0;
    size_t colon = v ? v->find(':') : std::string::npos;
    if (!v) {
      p.text("%s\n", s.c_str()).null(key);
    } else if (as == As::Number) {
      p.text("%s\n", v->c_str());
      if (ibtool::parse_int(*v, n)) p.uint(ibcore::PRINT_JSON, key, nullptr, n);
      else p.null(key);
    } else if (as == As::State && colon != std::string::npos && ibtool::parse_int(v->substr(0, colon), n)) {
      p.text("%s\n", v->c_str());
      std::string name = v->substr(colon + 1);
      while (!name.empty() && name.front() == ' ') name.erase(0, 1);
      p.enumeration(ibcore::PRINT_JSON, key, nullptr, name, n);
    } else {
      p.str(ibcore::PRINT_ANY, key, "%s\n", *v);  // the file's text, on both sides
    }
  }

  // A port: the script's lines; {"device", "port", "defaultGID", "LID",
  // "SMLID", "portState" and "portStateRaw" ("4: ACTIVE" -> ACTIVE, 4),
  // "portPhysicalState"/"portPhysicalStateRaw", "rate" (sysfs' text),
  // "linkLayer"}, a file that cannot be read null.
  void port_status(const std::string& dev, const std::string& port) {
    ibcore::SysfsPort f = ibcore::read_sysfs_port(dev, port);
    ibcore::Printer& p = *out_;
    p.open_object().str(ibcore::PRINT_JSON, "device", nullptr, f.dev);
    uint64_t pn = 0;
    if (ibtool::parse_int(f.port, pn)) p.uint(ibcore::PRINT_JSON, "port", nullptr, pn);
    else p.str(ibcore::PRINT_JSON, "port", nullptr, f.port);
    p.text("Infiniband device '%s' port %s status:\n", dev.c_str(), port.c_str());
    field(p, "\tdefault gid:\t", "defaultGID", f.gid, "unknown", As::Text);
    field(p, "\tbase lid:\t", "LID", f.lid, "unknown", As::Number);
    field(p, "\tsm lid:\t\t", "SMLID", f.sm_lid, "unknown", As::Number);
    field(p, "\tstate:\t\t", "portState", f.state, "unknown", As::State);
    field(p, "\tphys state:\t", "portPhysicalState", f.phys_state, "unknown", As::State);
    field(p, "\trate:\t\t", "rate", f.rate, "unknown", As::Text);
    field(p, "\tlink_layer:\t", "linkLayer", f.link_layer ? f.link_layer : std::optional<std::string>("IB"), "IB",
          As::Text);
    p.text("\n").close_object();
  }

  int device_status(const std::string& dev, const std::string& port) {
    std::string ports_dir = std::string(ibcore::SYSFS_IB) + "/" + dev + "/ports";
    struct stat st;
    if (::stat(ports_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return fatal("device '" + dev + "': sys files not found (" + ports_dir + ")");
    std::vector<std::string> ports;
    if (port == "+") {
      ports = ibcore::list_dir(ports_dir);
      if (ports.empty()) ports.push_back("*");
    } else {
      // An unquoted expansion in the script: split into words.
      ports = ibcore::split_words(port);
    }
    for (const auto& p : ports) port_status(dev, p);
    return 0;
  }

  bool short_help_ = false;
  ibcore::Printer* out_ = nullptr;  // run()'s
  std::vector<std::string> args_;
};

class IbvDevices : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    // The reference takes no options and ignores every argument; ibtool
    // ignores arguments too but, as everywhere, rejects unknown options
    // with the usage (SPEC.md, Errors).
    app.add_option("ignored", ignored_, "arguments are ignored");
    ibtool::add_common_options(app, config(), ibtool::opt::Json);
  }

  int run() override {
    std::vector<ibcore::VerbsDevice> list;
    try {
      list = ibcore::verbs_devices();  // loads libibverbs on demand
    } catch (const ibcore::SysError& e) {
      ibcore::log::info("Failed to get IB devices list: %s\n", std::strerror(e.err()));
      return 1;
    }  // (anything else: the dispatcher's "E: <what>", status 1)
    // {"devices": [{"name", "nodeGUID"}]}; the text the reference's table.
    ibcore::Printer p;
    p.open_object().text("    %-16s\t   node GUID\n", "device").text("    %-16s\t----------------\n", "------");
    p.open_array("devices");
    for (const auto& d : list) {
      p.open_object().text("    ").str(ibcore::PRINT_ANY, "name", "%-16s\t", d.name);
      p.guid(ibcore::PRINT_ANY, "nodeGUID", "%016llx\n", d.node_guid).close_object();
    }
    p.close_array().close_object().finish();
    return 0;
  }

private:
  std::vector<std::string> ignored_;
};

}  // namespace

IBTOOL_COMMAND({.name = "ibstat",
                .aliases = {},
                .summary = "show the state of the local RDMA devices and their ports",
                .description =
                    "Shows each local device (CA type, firmware and hardware versions, GUIDs) "
                    "and each of its ports (state, physical state, rate, LIDs, capability mask, "
                    "port GUID, link layer), as libibumad reports them.  With a device name only "
                    "that device; with a port number too only that port.  --json (-j; --pretty indents): "
                    "one document (its members and types: --json-schema).",
                .usage = "[options] <ca_name> [portnum]",
                .examples = "  ibstat -l       # list all IB devices\n"
                            "  ibstat mthca0 2 # stat port 2 of 'mthca0'",
                .make = [] { return std::make_unique<IbStat>(); }});

IBTOOL_COMMAND({.name = "ibstatus",
                .aliases = {},
                .summary = "show the sysfs status of local InfiniBand ports",
                .description =
                    "Shows the default GID, LIDs, state, physical state, rate and link layer of "
                    "ports as sysfs (/sys/class/infiniband) reports them: every port of every "
                    "device, every port of a device (devname), or one port (devname:portnum).  "
                    "--json (-j; --pretty indents): one document (its members and types: --json-schema), null where sysfs has no value.",
                .usage = "[-h] [devname[:portnum]] ...",
                .examples = "  ibstatus mthca1     # every port of mthca1\n"
                            "  ibstatus mthca0:2   # port 2 of mthca0",
                .make = [] { return std::make_unique<IbStatus>(); }});

IBTOOL_COMMAND({.name = "ibv_devices",
                .aliases = {},
                .summary = "list the RDMA devices libibverbs sees, with their node GUIDs",
                .description = "Lists the verbs devices and their node GUIDs.  Arguments are ignored.  --json (-j; "
                               "--pretty indents): one document (its members and types: --json-schema).",
                .usage = "",
                .examples = "",
                .make = [] { return std::make_unique<IbvDevices>(); }});
