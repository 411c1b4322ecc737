// vendstat: Mellanox vendor class 0x0a (range 1 vendor format): general
// information (-N), IS3 port xmit wait counters (-w), IS4 counter groups
// (-i, -c) and configuration space records (-R, -W, each repeatable).  The
// path to the target comes from an SA PathRecord (core/rpc/gmppath.h); without
// a destination the local port is the target.
//
// The order of the work, the layouts and the messages follow the reference
// (its source's formats; ibsim has no agent for this class: the success
// layouts are checked against a fake agent on a fabric,
// test/integration/json_vendstat_test.cpp).  The attribute layouts are
// iba/vendor.h's MLX* structures:
// -i, -c, -R/-W report a failure on stderr and end with status 0; -N and -w
// read ClassPortInfo and GeneralInfo first, whose failure ends the command
// (status 255, the "iberror" line on stdout).
#include <cstdio>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/base/error.h"
#include "core/rpc/gmppath.h"
#include "core/out/print.h"
#include "core/rpc/rpc.h"
#include "core/transport/transport.h"
#include "iba/introspect.h"
#include "iba/vendor.h"
#include "core/out/log.h"

namespace {

constexpr uint16_t IS3_DEVICE_ID = 0xb924;
// Config space address of port 1's PortXmitWait on IS3; port n is
// n << 12 further.
constexpr uint32_t IS3_PORT_XMIT_WAIT = 0x10013c;

// sscanf-like "%x,%x[,%x]": how many hex numbers lead the text.
size_t scan_hex(const std::string& s, size_t max, uint32_t* out) {
  size_t n = 0;
  const char* p = s.c_str();
  while (n < max) {
    char* end = nullptr;
    while (*p == ' ' || *p == '\t') ++p;
    if (!isxdigit(static_cast<unsigned char>(*p)) && !(*p == '-' || *p == '+')) break;
    unsigned long v = std::strtoul(p, &end, 16);
    if (end == p) break;
    out[n++] = uint32_t(v);
    p = end;
    if (*p != ',') break;
    ++p;
  }
  return n;
}
// sscanf "%d,%d": both numbers present.
bool scan_two_ints(const std::string& s, int& a, int& b) {
  char* end = nullptr;
  const char* p = s.c_str();
  long x = std::strtol(p, &end, 10);
  if (end == p || *end != ',') return false;
  p = end + 1;
  long y = std::strtol(p, &end, 10);
  if (end == p) return false;
  a = int(x);
  b = int(y);
  return true;
}

class VendStat : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_flag("-N,--N", general_, "show IS3 or IS4 general information");
    app.add_flag("-w,--w", xmit_wait_, "show IS3 port xmit wait counters");
    app.add_flag("-i,--i", cg_info_, "show IS4 counter group info");
    app.add_option("-c,--c", cg_config_, "configure IS4 counter groups")->option_text("<num,num>");
    app.add_option("-R,--Read", read_, "Read configuration space record at addr")->option_text("<addr,mask>");
    app.add_option("-W,--Write", write_, "Write configuration space record at addr")
        ->option_text("<addr,val,mask>");
    flags_.bind(app, ibtool::tflag::Lid | ibtool::tflag::Guid | ibtool::tflag::SmPort);
    ibtool::add_common_options(app, config(), ibtool::opt::Gmp | ibtool::opt::Json);
    app.add_option("args", args_, "<lid|guid> [port]");
    app.callback([this] {
      if (!cg_config_.empty() && !scan_two_ints(cg_config_, cg0_, cg1_))
        throw CLI::ValidationError("-c", "two numbers: <num,num>");
      uint32_t v[3];
      for (const auto& r : read_) {
        size_t n = scan_hex(r, 2, v);
        if (n < 1) throw CLI::ValidationError("-R", "<addr,mask> in hex");
        if (rd_.size() < 18) rd_.push_back({v[0], 0, n == 1 ? 0xffffffffu : v[1]});
      }
      for (const auto& w : write_) {
        size_t n = scan_hex(w, 3, v);
        if (n < 2) throw CLI::ValidationError("-W", "<addr,val,mask> in hex");
        if (wr_.size() < 18) wr_.push_back({v[0], v[1], n == 2 ? 0xffffffffu : v[2]});
      }
    });
  }

  bool reports_errors() const override { return true; }

  // The run: text, or with --json one document written when the run ends
  // well (a failure leaves only its message on stderr).
  int run() override {
    ibcore::Printer p(stdout, ibcore::Printer::Doc::Whole);
    p_ = &p;
    int rc = work();  // (opens the document's object, or throws)
    p.close_object().finish();
    return rc;
  }

private:
  struct Rec {
    uint32_t addr, data, mask;
  };

  // One Get/Set of a class 0x0a attribute; data is the whole range 1 data
  // area (232 bytes, vendor key first), replaced by the reply's.  A failure
  // is reported the reference's way ("method M, attribute A failure").
  bool vend(uint8_t method, uint16_t attr, uint32_t amod, std::vector<uint8_t>& data) {
    data.resize(232, 0);
    try {
      if (path_error_) std::rethrow_exception(path_error_);
      ibcore::MadRequest r;
      r.cls = iba::find_class(iba::MLX_VENDOR_CLASS);
      r.method = method;
      r.attr_id = attr;
      r.amod = amod;
      r.payload = data;
      std::vector<uint8_t> rep = mad_->call(r, path_);
      size_t off = r.cls->data_off;
      std::fill(data.begin(), data.end(), 0);
      if (rep.size() > off) std::memcpy(data.data(), rep.data() + off, std::min(data.size(), rep.size() - off));
      return true;
    } catch (const ibcore::MADError& e) {
      ibcore::report(e);
      std::fflush(stdout);
      ibcore::log::info("vendstat: method %u, attribute %u failure\n", method, attr);
      return false;
    }
  }

  // Counter group i's mask in a CounterGroupInfo reply: the masks follow
  // each other from the group count on (two fit the structure; more are
  // read from the rest of the data area, zero past it).
  static unsigned group_mask(const std::vector<uint8_t>& d, int i) {
    uint32_t off = uint32_t(96 + 32 * i);
    return off + 32 <= d.size() * 8 ? unsigned(iba::get_bits(d.data(), off, 32)) : 0;
  }

  template <class T>
  static T as(const std::vector<uint8_t>& d) {
    T t;
    t.load(std::span<const uint8_t>(d.data(), std::min<size_t>(d.size(), T::DESC.size)));
    return t;
  }

  void config_space(bool set, const std::vector<Rec>& recs) {
    iba::MLXConfigSpaceAccess cs;
    for (size_t i = 0; i < recs.size(); ++i) {
      iba::MLXConfigSpaceRecord r;
      r.set_address(recs[i].addr);
      r.set_data(recs[i].data);
      r.set_mask(recs[i].mask);
      cs.set_record(i, r);
    }
    std::vector<uint8_t> d(cs.bytes().begin(), cs.bytes().end());
    uint32_t amod = 2u << 22 | uint32_t(recs.size()) << 16;
    const char* key = set ? "configSpaceWritten" : "configSpaceRead";
    if (!vend(set ? iba::method::SET : iba::method::GET, iba::AttrId<iba::MLXConfigSpaceAccess>::value, amod, d)) {
      ibcore::log::info("cannot %s config space records\n", set ? "set" : "get");
      p_->null(key);
      return;
    }
    cs = as<iba::MLXConfigSpaceAccess>(d);
    p_->open_array(key);
    for (size_t i = 0; i < recs.size(); ++i) {
      auto r = cs.record(i);
      p_->open_object().uint(ibcore::PRINT_ANY, "address", "Config space record at 0x%x: ", uint32_t(r.address()));
      p_->uint(ibcore::PRINT_ANY, "data", "0x%x\n", uint32_t(r.data() & r.mask())).close_object();
    }
    p_->close_array();
  }

  // {"destination", "portNum", then what the options asked: "counterGroupInfo",
  // "configCounterGroups", "configSpaceRead"/"configSpaceWritten",
  // "generalInfo", "portXmitWait"}; the text: the reference's lines.
  int work() {
    // A LID is addressed directly by the reference: without a PathRecord
    // its first MAD fails instead.
    target_ = ibtool::open_gmp_target(config(), flags_, args_, 0, {.explain_bad_target = false, .iberror_on_open = false});
    mad_ = &target_.mad();
    path_ = target_.path;
    path_error_ = target_.path_error;
    // Without a destination: the local port's own number.
    int port = args_.size() > 1   ? int(std::strtoul(args_[1].c_str(), nullptr, 0))
               : args_.empty() ? target_.session->ep->port
                               : 0;
    ibcore::Printer& p = *p_;
    p.open_object().json_value("destination", [&](ibcore::JsonOut& j) { path_.json(j); });
    p.uint(ibcore::PRINT_JSON, "portNum", nullptr, unsigned(port));

    if (cg_info_) {
      std::vector<uint8_t> d;
      if (!vend(iba::method::GET, iba::AttrId<iba::MLXCounterGroupInfo>::value, uint32_t(port), d)) {
        ibcore::log::info("counter group info query failure\n");
        p.null("counterGroupInfo");
        return 0;
      }
      auto ci = as<iba::MLXCounterGroupInfo>(d);
      unsigned n = unsigned(ci.numOfCounterGroups());
      p.open_object("counterGroupInfo").text("counter_group_info:\n");
      p.uint(ibcore::PRINT_ANY, "numOfCounterGroups", "%d counter groups\n", n).open_array("groupMask");
      for (unsigned i = 0; i < n; ++i)
        p.uint(ibcore::PRINT_ANY, nullptr, ("group" + std::to_string(i) + " mask %#x\n").c_str(), group_mask(d, int(i)));
      p.close_array().close_object();
      return 0;
    }
    if (!cg_config_.empty()) {
      p.open_object("configCounterGroups").uint(ibcore::PRINT_JSON, "groupSelect0", nullptr, unsigned(cg0_));
      p.uint(ibcore::PRINT_JSON, "groupSelect1", nullptr, unsigned(cg1_));
      p.text("counter_groups_config: configuring group0 %d group1 %d\n", cg0_, cg1_);
      std::fflush(stdout);
      iba::MLXConfigCounterGroups g;
      g.set_groupSelect0(uint8_t(cg0_));
      g.set_groupSelect1(uint8_t(cg1_));
      std::vector<uint8_t> d(g.bytes().begin(), g.bytes().end());
      if (!vend(iba::method::SET, iba::AttrId<iba::MLXConfigCounterGroups>::value, uint32_t(port), d)) {
        ibcore::log::info("config counter group set failure\n");
        p.boolean(ibcore::PRINT_JSON, "set", nullptr, false).close_object();
        return 0;
      }
      d.assign(232, 0);
      bool read = vend(iba::method::GET, iba::AttrId<iba::MLXConfigCounterGroups>::value, uint32_t(port), d);
      if (!read) ibcore::log::info("config counter group query failure\n");
      // What the device says it selects now (the text does not show it).
      p.boolean(ibcore::PRINT_JSON, "set", nullptr, true);
      if (read) p.open_object("read").fields(iba::MLXConfigCounterGroups::DESC, as<iba::MLXConfigCounterGroups>(d).buf.data()).close_object();
      else p.null("read");
      p.close_object();
      return 0;
    }
    if (!rd_.empty() || !wr_.empty()) {
      if (!rd_.empty()) config_space(false, rd_);
      if (!wr_.empty()) config_space(true, wr_);
      std::fflush(stdout);
      return 0;
    }
    if (!general_ && !xmit_wait_) throw ibtool::RefFail{"at least one of -N and -w must be specified"};

    // The class must answer its ClassPortInfo first.
    std::vector<uint8_t> cpi;
    if (!vend(iba::method::GET, iba::AttrId<iba::MADClassPortInfo>::value, 0, cpi)) throw ibtool::RefFail{"classportinfo query"};
    std::vector<uint8_t> d;
    if (!vend(iba::method::GET, iba::AttrId<iba::MLXGeneralInfo>::value, 0, d)) throw ibtool::RefFail{"generalinfo query"};
    auto gi = as<iba::MLXGeneralInfoIS3>(d);
    uint16_t dev = uint16_t(gi.hwDeviceID());
    uint32_t fw[3];
    unsigned sw[3];
    if (iba::mlx_ext_fw_info(dev)) {
      auto ge = as<iba::MLXGeneralInfo>(d);
      fw[0] = uint32_t(ge.fwExtMajor()), fw[1] = uint32_t(ge.fwExtMinor()), fw[2] = uint32_t(ge.fwExtSubMinor());
      sw[0] = unsigned(ge.swMajor()), sw[1] = unsigned(ge.swMinor()), sw[2] = unsigned(ge.swSubMinor());
    } else {
      fw[0] = uint32_t(gi.fwMajor()), fw[1] = uint32_t(gi.fwMinor()), fw[2] = uint32_t(gi.fwSubMinor());
      sw[0] = unsigned(gi.swMajor()), sw[1] = unsigned(gi.swMinor()), sw[2] = unsigned(gi.swSubMinor());
    }
    if (general_) {
      // Its fields as iba/ names them, in the device's form, with the
      // versions as the text writes them.
      p.open_object("generalInfo");
      if (iba::mlx_ext_fw_info(dev)) p.fields(iba::MLXGeneralInfo::DESC, as<iba::MLXGeneralInfo>(d).buf.data());
      else p.fields(iba::MLXGeneralInfoIS3::DESC, gi.buf.data());
      char b[64];
      p.text("hw_dev_rev:  0x%04x\n", unsigned(gi.hwRevision()));
      p.text("hw_dev_id:   0x%04x\n", unsigned(dev));
      p.text("hw_uptime:   0x%08x\n", unsigned(gi.hwUptime()));
      std::snprintf(b, sizeof b, "%02d.%02d.%02d", int(fw[0]), int(fw[1]), int(fw[2]));
      p.str(ibcore::PRINT_ANY, "fwVersion", "fw_version:  %s\n", b);
      p.text("fw_build_id: 0x%04x\n", unsigned(gi.fwBuildID()));
      p.text("fw_date:     %02x/%02x/%04x\n", unsigned(gi.fwMonth()), unsigned(gi.fwDay()), unsigned(gi.fwYear()));
      // The PSID is printed up to its first NUL, at most its 16 bytes.
      p.text("fw_psid:     '%s'\n", gi.fwPSID().c_str());
      p.text("fw_ini_ver:  %d\n", int(uint32_t(gi.fwIniFileVersion())));
      std::snprintf(b, sizeof b, "%02d.%02d.%02d", int(sw[0]), int(sw[1]), int(sw[2]));
      p.str(ibcore::PRINT_ANY, "swVersion", "sw_version:  %s\n", b).close_object();
    }
    if (xmit_wait_) {
      if (dev != IS3_DEVICE_ID) {
        char b[64];
        std::snprintf(b, sizeof b, "Unsupported device ID 0x%x", unsigned(dev));
        throw ibtool::RefFail{b};
      }
      // Ports 1..16 then 17..24 (IS3 numbers its ports from 4 in this table).
      p.open_array("portXmitWait");
      for (int pass = 0; pass < 2; ++pass) {
        unsigned n = pass == 0 ? 16 : 8;
        iba::MLXConfigSpaceAccess cs;
        for (unsigned i = 0; i < n; ++i) {
          iba::MLXConfigSpaceRecord r;
          r.set_address(IS3_PORT_XMIT_WAIT + ((i + 1 + 16 * pass) << 12));
          cs.set_record(i, r);
        }
        std::vector<uint8_t> x(cs.bytes().begin(), cs.bytes().end());
        if (!vend(iba::method::GET, iba::AttrId<iba::MLXConfigSpaceAccess>::value, 2u << 22 | n << 16, x)) throw ibtool::RefFail{"vendstat"};
        cs = as<iba::MLXConfigSpaceAccess>(x);
        for (unsigned i = 0; i < n; ++i) {
          uint32_t v = uint32_t(cs.record(i).data());
          if (!v) continue;
          int pn = pass == 0 ? int(i) + 4 : (i < 4 ? int(i) + 21 : int(i) - 3);
          p.open_object().uint(ibcore::PRINT_ANY, "portNum", "Port %d: ", unsigned(pn));
          p.uint(ibcore::PRINT_ANY, "portXmitWait", "PortXmitWait 0x%x\n", v).close_object();
        }
      }
      p.close_array();
    }
    std::fflush(stdout);
    return 0;
  }

  bool general_ = false, xmit_wait_ = false, cg_info_ = false;
  ibtool::TargetFlags flags_;
  ibtool::Target target_;
  std::string cg_config_;
  std::vector<std::string> read_, write_;
  std::vector<Rec> rd_, wr_;
  int cg0_ = 0, cg1_ = 0;
  std::vector<std::string> args_;
  ibcore::MadTransactor* mad_ = nullptr;
  ibcore::Printer* p_ = nullptr;  // run()'s output
  ibcore::IBPath path_;
  std::exception_ptr path_error_;
};

}  // namespace

IBTOOL_COMMAND({.name = "vendstat",
                .aliases = {},
                .summary = "Mellanox vendor specific information and counters of a device",
                .description =
                    "Reads Mellanox vendor class (0x0a) attributes of a device: general hardware and "
                    "firmware information (-N), IS3 port xmit wait counters (-w), IS4 counter group "
                    "information (-i) and configuration (-c), configuration space records (-R, -W).  --json (-j; "
                    "--pretty indents): one document (its members and types: --json-schema); a query that failed is null (its message on stderr), "
                    "a failure that ends the command leaves stdout empty.",
                .usage = "[options] <lid|guid> [port]",
                .examples = "  vendstat -N 6          # read IS3 or IS4 general information\n"
                            "  vendstat -w 6          # read IS3 port xmit wait counters\n"
                            "  vendstat -i 6 12       # read IS4 port 12 counter group info\n"
                            "  vendstat -c 0,1 6 12   # configure IS4 port 12 counter groups",
                .make = [] { return std::make_unique<VendStat>(); }});
