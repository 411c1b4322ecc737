// perfquery: read (and reset) the performance counters of a port through
// its PMA.  The target is any addressing form; its path comes from the SA
// (core/rpc/gmppath.h).  Several ports (-l, or -a without AllPortSelect) are
// read concurrently on the MAD scheduler.
#include <cstdio>
#include <memory>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/base/error.h"
#include "core/rpc/gmppath.h"
#include "core/rpc/pmport.h"
#include "core/rpc/rpc.h"
#include "core/rpc/sched.h"
#include "core/transport/transport.h"
#include "iba/introspect.h"
#include "iba/pm.h"
#include "core/out/print.h"
#include "core/out/textout.h"
#include "iba/refprint_pm.h"
#include "core/out/log.h"

namespace {

using ibcore::IBPath;
using Attr = ibcore::PmAttr;
using ibcore::pm_attr;

class PerfQuery : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_flag("-x,--extended", extended_, "show extended port counters");
    app.add_flag("-X,--xmtsl", xmtsl_, "show Xmt SL port counters");
    app.add_flag("-S,--rcvsl", rcvsl_, "show Rcv SL port counters");
    app.add_flag("-D,--xmtdisc", xmtdisc_, "show Xmt Discard Details");
    app.add_flag("-E,--rcverr", rcverr_, "show Rcv Error Details");
    app.add_flag("-T,--extended_speeds", extspeeds_, "show port extended speeds counters");
    app.add_flag("--oprcvcounters", oprcv_, "show Rcv Counters per Op code");
    app.add_flag("--flowctlcounters", flowctl_, "show flow control counters");
    app.add_flag("--vloppackets", vloppkts_, "show packets received per Op code per VL");
    app.add_flag("--vlopdata", vlopdata_, "show data received per Op code per VL");
    app.add_flag("--vlxmitflowctlerrors", vlfcerr_, "show flow control update errors per VL");
    app.add_flag("--vlxmitcounters", vlxmit_, "show ticks waiting to transmit counters per VL");
    app.add_flag("--swportvlcong", swvlcong_, "show sw port VL congestion");
    app.add_flag("--rcvcc", rcvcc_, "show Rcv congestion control counters");
    app.add_flag("--slrcvfecn", slfecn_, "show SL Rcv FECN counters");
    app.add_flag("--slrcvbecn", slbecn_, "show SL Rcv BECN counters");
    app.add_flag("--xmitcc", xmitcc_, "show Xmit congestion control counters");
    app.add_flag("--vlxmittimecc", vlxmittime_, "show VL Xmit Time congestion control counters");
    app.add_flag("-c,--smplctl", smplctl_, "show samples control");
    app.add_flag("-a,--all_ports", all_ports_, "show aggregated counters");
    app.add_flag("-l,--loop_ports", loop_ports_, "iterate through each port");
    app.add_flag("-r,--reset_after_read", reset_after_, "reset counters after read");
    app.add_flag("-R,--Reset_only", reset_only_, "only reset counters");
    flags_.bind(app, ibtool::tflag::Lid | ibtool::tflag::Guid | ibtool::tflag::SmPort);
    ibtool::add_common_options(app, config(), ibtool::opt::Gmp | ibtool::opt::MKey | ibtool::opt::Sa | ibtool::opt::Json);
    app.add_option("args", args_, "<lid|guid> [[port(s)] [reset_mask]]");
  }

  bool reports_errors() const override { return true; }

private:
  // Which attribute the options select (the reference checks them in this order).
  Attr selected() const {
    using namespace iba;
    if (xmtsl_) return pm_attr<PMPortXmitDataSL>("PortXmitDataSL");
    if (rcvsl_) return pm_attr<PMPortRcvDataSL>("PortRcvDataSL");
    if (xmtdisc_) return pm_attr<PMPortXmitDiscardDetails>("PortXmitDiscardDetails");
    if (rcverr_) return pm_attr<PMPortRcvErrorDetails>("PortRcvErrorDetails");
    if (extspeeds_) return pm_attr<PMPortExtendedSpeedsCounters>("PortExtendedSpeedsCounters");
    if (oprcv_) return pm_attr<PMPortOpRcvCounters>("PortOpRcvCounters");
    if (flowctl_) return pm_attr<PMPortFlowCtlCounters>("PortFlowCtlCounters");
    if (vloppkts_) return pm_attr<PMPortVLOpPackets>("PortVLOpPackets");
    if (vlopdata_) return pm_attr<PMPortVLOpData>("PortVLOpData");
    if (vlfcerr_) return pm_attr<PMPortVLXmitFlowCtlUpdateErrors>("PortVLXmitFlowCtlUpdateErrors");
    if (vlxmit_) return pm_attr<PMPortVLXmitWaitCounters>("PortVLXmitWaitCounters");
    if (swvlcong_) return pm_attr<PMSwPortVLCongestion>("SwPortVLCongestion");
    if (rcvcc_) return pm_attr<PMPortRcvConCtrl>("PortRcvConCtrl");
    if (slfecn_) return pm_attr<PMPortSLRcvFECN>("PortSLRcvFECN");
    if (slbecn_) return pm_attr<PMPortSLRcvBECN>("PortSLRcvBECN");
    if (xmitcc_) return pm_attr<PMPortXmitConCtrl>("PortXmitConCtrl");
    if (vlxmittime_) return pm_attr<PMPortVLXmitTimeCong>("PortVLXmitTimeCong");
    if (extended_) return pm_attr<PMPortCountersExtended>("PortCountersExtended");
    return pm_attr<PMPortCounters>("PortCounters");
  }

  std::string header(const Attr& a, int port) const {
    char b[160];
    if (a.desc == &iba::PMPortCounters::DESC)
      std::snprintf(b, sizeof b, "# Port counters: Lid %u port %d (CapMask: 0x%02X)\n", lid_, port, capmask_);
    else if (a.desc == &iba::PMPortCountersExtended::DESC)
      std::snprintf(b, sizeof b, "# Port extended counters: Lid %u port %d (CapMask: 0x%02X CapMask2: 0x%07X)\n",
                    lid_, port, capmask_, capmask2_);
    else
      std::snprintf(b, sizeof b, "# %s counters: Lid %u port %d\n", a.name, lid_, port);
    return b;
  }

  void print(const Attr& a, int port, const std::vector<uint8_t>& buf) {
    entry(a, port, buf, [&] { return header(a, port) + iba::ref::pm_print(*a.desc, buf.data(), all_layout_); });
  }

  // Parse "1-10", "1,4,8" or "3".
  static bool parse_ports(const std::string& s, std::vector<int>& out) {
    size_t pos = 0;
    while (pos <= s.size()) {
      size_t comma = s.find(',', pos);
      std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      size_t dash = item.find('-');
      uint64_t lo, hi;
      if (dash != std::string::npos) {
        if (!ibtool::parse_int(item.substr(0, dash), lo) || !ibtool::parse_int(item.substr(dash + 1), hi) || hi < lo ||
            hi > 255)
          return false;
      } else {
        if (!ibtool::parse_int(item, lo) || lo > 255) return false;
        hi = lo;
      }
      for (uint64_t p = lo; p <= hi; ++p) out.push_back(int(p));
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    return !out.empty();
  }

  int run() override {
    // The reference addresses every target but a GUID directly: without
    // a PathRecord its ClassPortInfo query is what fails.
    auto t = ibtool::open_gmp_target(config(), flags_, args_, 0,
                                     {.explain_bad_target = false,
                                      .iberror_on_open = false,
                                      .direct = ibtool::TargetStyle::Direct::NotGid});
    ibcore::MadTransactor& mad = t.mad();
    ibcore::Transport& umad = *t.session->umad;
    const ibcore::EndPort& ep = *t.session->ep;
    int port = ep.port;  // default: the local port number
    // A target without a port: its port 0 (the reference's default); the
    // local port: its own number (0 on a switch).
    if (!args_.empty()) port = 0;
    for (const auto& d : ibcore::get_devices())
      if (d.name == ep.ca && d.node_type == 2) port = 0;
    std::vector<int> ports;
    bool port_list = false;
    if (args_.size() > 1) {
      if (!parse_ports(args_[1], ports)) {
        // The reference reads a plain number with strtoul.
        ports = {int(std::strtoul(args_[1].c_str(), nullptr, 0) & 0xff)};
      }
      port_list = ports.size() > 1 || args_[1].find_first_of(",-") != std::string::npos;
      port = ports[0];
    }
    uint64_t mask = 0;
    bool mask_given = false;
    if (args_.size() > 2) {
      mask = std::strtoull(args_[2].c_str(), nullptr, 0);
      mask_given = true;
    }

    const IBPath& path = t.path;
    lid_ = path.DLID;

    // ClassPortInfo: what the PMA supports.
    try {
      t.check();
      auto cpi = mad.PerformanceGet<iba::MADClassPortInfo>(path);
      capmask_ = uint16_t(cpi.capabilityMask());
      capmask2_ = uint32_t(cpi.capabilityMask2());
    } catch (const ibcore::MADError& e) {
      ibcore::report(e);
      throw ibtool::RefFail{"classportinfo query"};
    }
    Attr a = selected();
    bool is_counters = a.desc == &iba::PMPortCounters::DESC;
    bool is_ext = a.desc == &iba::PMPortCountersExtended::DESC;
    if (is_ext) {
      if (!(capmask_ & (iba::pm_cap::EXT_WIDTH | iba::pm_cap::EXT_WIDTH_NOIETF))) {
        char b[96];
        std::snprintf(b, sizeof b, "PerfMgt ClassPortInfo 0x%x; No extended counter support indicated", capmask_);
        throw ibtool::RefFail{b};
      }
      all_layout_ = (capmask2_ & iba::pm_cap2::ADDL_PORT_COUNTERS_EXT) != 0;
    }
    if (!mask_given) mask = is_ext ? 0xff : 0xffff;
    if (smplctl_) return samples_control(mad, path, port);

    std::string what = is_counters ? "perfquery" : is_ext ? "perfextquery" : "cannot query " + std::string(a.name);
    if (!all_ports_ && !loop_ports_ && port == 255 && !(capmask_ & iba::pm_cap::ALL_PORT_SELECT))
      throw ibtool::RefFail{"AllPortSelect not supported"};

    std::vector<int> query_ports;
    bool aggregate_out = false;
    bool single_port_arg = args_.size() > 1 && !port_list;
    if (all_ports_ && !single_port_arg) {
      if (capmask_ & iba::pm_cap::ALL_PORT_SELECT) {
        query_ports = {255};
      } else {
        ibcore::log::warn("W: Emulating AllPortSelect by iterating through all ports\n");
        if (is_counters || is_ext) {
          query_ports = port_list ? ports : all_port_numbers(mad, path);
          aggregate_out = true;
        } else {
          // The other attributes are read once, for the first port named.
          query_ports = {port};
        }
      }
    } else if (port_list && (is_counters || is_ext)) {
      query_ports = ports;
    } else {
      query_ports = {port};
    }

    if (!reset_only_) {
      std::vector<std::vector<uint8_t>> bufs;
      std::vector<std::exception_ptr> errs;
      try {
        if (query_ports.size() == 1)
          bufs.push_back(ibcore::pm_get(mad, a, path, query_ports[0]));
        else
          bufs = ibcore::pm_get_ports(umad, a, path, query_ports, errs);
      } catch (const ibcore::MADError& e) {
        ibcore::report(e);
        throw ibtool::RefFail{what};
      }
      // Ports in order, as if read one after the other: the output stops
      // at the first port that failed (aggregates need every port).
      size_t ok = bufs.size();
      for (size_t i = 0; i < errs.size(); ++i)
        if (errs[i]) {
          ok = i;
          break;
        }
      if (aggregate_out) {
        if (ok == bufs.size()) {
          auto sum = ibcore::pm_sum(*a.desc, bufs);
          ibcore::pm_set_field(*a.desc, sum, "portSelect", 255);
          print(a, 255, sum);
        }
      } else {
        for (size_t i = 0; i < ok; ++i) print(a, query_ports[i], bufs[i]);
      }
      if (ok != bufs.size()) {
        try {
          std::rethrow_exception(errs[ok]);
        } catch (const std::exception& e) {
          ibcore::report(e);
        }
        throw ibtool::RefFail{what};
      }
    }
    if (reset_after_ || reset_only_) {
      try {
        for (int p : query_ports) ibcore::pm_reset(mad, a, path, p, mask, all_layout_);
      } catch (const ibcore::MADError& e) {
        ibcore::report(e);
        throw ibtool::RefFail{is_ext ? "perf reset" : "perf reset"};
      }
    }
    end_output();
    std::fflush(stdout);
    return 0;
  }

  // --json: {"LID", "capabilityMask", "capabilityMask2" (ClassPortInfo's), "ports": [{"portNum"
  // (255: all ports, summed with -a), "<Attribute>": {its fields}}]},
  // written when the run ends well; the text: a header and the reference's
  // layout a port, as each is read.
  std::unique_ptr<ibcore::Printer> out_;
  ibcore::Printer& out() {
    if (!out_) {
      out_ = std::make_unique<ibcore::Printer>(stdout, ibcore::Printer::Doc::Whole);
      out_->open_object().uint(ibcore::PRINT_JSON, "LID", nullptr, lid_);
      out_->uint(ibcore::PRINT_JSON, "capabilityMask", nullptr, capmask_);
      out_->uint(ibcore::PRINT_JSON, "capabilityMask2", nullptr, capmask2_).open_array("ports");
    }
    return *out_;
  }
  template <class F>
  void entry(const Attr& a, int port, const std::vector<uint8_t>& buf, F text) {
    out().open_object().uint(ibcore::PRINT_JSON, "portNum", nullptr, unsigned(port));
    // (a counter the PMA does not announce is null: its bytes were not filled)
    iba::Capabilities caps;
    caps.pm_cap = capmask_;
    caps.pm_cap2 = capmask2_;
    out().attribute(a.name, *a.desc, buf.data(), text, {}, caps).close_object();
  }
  void end_output() { out().close_array().close_object().finish(); }

  // Every port of the target node (NodeInfo.NumPorts; switches from 1).
  std::vector<int> all_port_numbers(ibcore::MadTransactor& mad, const IBPath& path) {
    IBPath smp;
    smp.DLID = path.DLID;
    iba::SMPNodeInfo ni;
    try {
      ni = mad.SubnGet<iba::SMPNodeInfo>(smp);
    } catch (const ibcore::MADError& e) {
      ibcore::report(e);
      throw ibtool::RefFail{"smp query nodeinfo failed"};
    }
    std::vector<int> out;
    for (int p = 1; p <= int(ni.numPorts()); ++p) out.push_back(p);
    return out;
  }

  int samples_control(ibcore::MadTransactor& mad, const IBPath& path, int port) {
    Attr a = pm_attr<iba::PMPortSamplesControl>("PortSamplesControl");
    std::vector<uint8_t> buf;
    try {
      buf = ibcore::pm_get(mad, a, path, port);
    } catch (const ibcore::MADError& e) {
      ibcore::report(e);
      throw ibtool::RefFail{"sampctlquery"};
    }
    entry(a, port, buf, [&] {
      char b[64];
      std::snprintf(b, sizeof b, "# PortSamplesControl: Lid %u port %d\n", lid_, port);
      return b + iba::ref::pm_print(*a.desc, buf.data());
    });
    end_output();
    return 0;
  }

  bool extended_ = false, xmtsl_ = false, rcvsl_ = false, xmtdisc_ = false, rcverr_ = false, extspeeds_ = false,
       oprcv_ = false, flowctl_ = false, vloppkts_ = false, vlopdata_ = false, vlfcerr_ = false, vlxmit_ = false,
       swvlcong_ = false, rcvcc_ = false, slfecn_ = false, slbecn_ = false, xmitcc_ = false, vlxmittime_ = false,
       smplctl_ = false, all_ports_ = false, loop_ports_ = false, reset_after_ = false, reset_only_ = false;
  ibtool::TargetFlags flags_;
  std::vector<std::string> args_;
  unsigned lid_ = 0;
  uint16_t capmask_ = 0;
  uint32_t capmask2_ = 0;
  bool all_layout_ = false;
};

}  // namespace

IBTOOL_COMMAND({.name = "perfquery",
                .aliases = {},
                .summary = "query (and reset) the performance counters of a port",
                .description =
                    "Reads the PortCounters of a port through its performance management agent, "
                    "or with options the extended counters, the SL, discard, error detail, flow "
                    "control, per-VL and congestion counters.  -a aggregates all ports (the PMA's "
                    "AllPortSelect, or every port read concurrently), -l shows each port of a list "
                    "(1-10, 1,4,8), -r resets after reading and -R only resets (reset_mask selects "
                    "the counters).  The path to the target comes from an SA PathRecord.  --json (-j; "
                    "--pretty indents): one document (its members and types: --json-schema): each port (255: all ports) "
                    "with its attributes' fields as iba/ names them, null for a counter the PMA's "
                    "ClassPortInfo does not announce.",
                .usage = "[options] [<lid|guid> [[port(s)] [reset_mask]]]",
                .examples = "  perfquery 32 1      # counters of lid 32 port 1\n"
                            "  perfquery -x 32 1   # extended counters\n"
                            "  perfquery -a 32     # all ports aggregated\n"
                            "  perfquery -l 32 1-10\n"
                            "  perfquery -R 32 2 0x0fff   # reset only error counters of port 2",
                .make = [] { return std::make_unique<PerfQuery>(); }});
