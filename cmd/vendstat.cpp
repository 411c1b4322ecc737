// vendstat: Mellanox vendor class 0x0a (range 1 vendor format): general
// information (-N), IS3 port xmit wait counters (-w), IS4 counter groups
// (-i, -c) and configuration space records (-R, -W).  The path to the
// target comes from an SA PathRecord (core/gmppath.h).
//
// The order of the work and the messages follow the reference: -i, -c, -R
// and -W each report a failure on stderr and go on (status 0); -N and -w
// first read the class's ClassPortInfo, whose failure ends the command
// (status 255, the "iberror" line on stdout as the reference writes it).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/config.h"
#include "core/devices.h"
#include "core/error.h"
#include "core/gmppath.h"
#include "core/rpc.h"
#include "core/umad.h"
#include "iba/introspect.h"
#include "iba/vendor.h"

namespace {

constexpr uint16_t ATTR_CLASS_PORT_INFO = 0x0001;
constexpr uint16_t ATTR_IS3_PORT_XMIT_WAIT = 0x0013;
constexpr uint16_t ATTR_IS4_COUNTER_GROUP_INFO = 0x0090;
constexpr uint16_t ATTR_IS4_CONFIG_COUNTER_GROUP = 0x0091;

struct Fail {
  std::string msg;
};

// Split "a,b,c" into numbers (the reference's strtoul: base 0).
bool split_nums(const std::string& s, size_t n, std::vector<uint64_t>& out) {
  out.clear();
  size_t pos = 0;
  while (out.size() < n) {
    size_t comma = s.find(',', pos);
    std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    out.push_back(std::strtoull(item.c_str(), nullptr, 0));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out.size() == n;
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
    app.add_flag("-L,--Lid", lid_form_, "use LID address argument");
    app.add_flag("-G,--Guid", guid_form_, "use GUID address argument");
    app.add_option("-s,--sm_port", sm_port_, "SM port lid")->option_text("<lid>");
    ibtool::add_common_options(app, ibtool::opt::Gmp);
    app.add_option("args", args_, "<lid|guid> [port]");
    app.callback([this] {
      std::vector<uint64_t> v;
      if (!cg_config_.empty() && !split_nums(cg_config_, 2, v)) throw CLI::ValidationError("-c", "two numbers");
      if (!read_.empty() && !split_nums(read_, 2, v)) throw CLI::ValidationError("-R", "addr,mask");
      if (!write_.empty() && !split_nums(write_, 3, v)) throw CLI::ValidationError("-W", "addr,val,mask");
      if (args_.empty() || args_.size() > 2) throw CLI::ValidationError("args", "<lid|guid> [port]");
    });
  }

  int run() override {
    try {
      return work();
    } catch (const Fail& f) {
      std::fflush(stdout);
      std::printf("vendstat: iberror: failed: %s\n", f.msg.c_str());
      return 255;
    } catch (const std::exception& e) {
      return ibcore::report(e);
    }
  }

private:
  // One Get/Set of a class 0x0a attribute; a failure is reported the
  // reference's way ("method M, attribute A failure") and returns false.
  bool vend(ibcore::MadTransactor& mad, uint8_t method, uint16_t attr, uint32_t amod, std::vector<uint8_t>& data) {
    ibcore::MadRequest r;
    r.cls = iba::find_class(iba::MLX_VENDOR_CLASS);
    r.method = method;
    r.attr_id = attr;
    r.amod = amod;
    r.payload = data;
    try {
      auto rep = mad.call(r, path_);
      auto pl = ibcore::MadTransactor::payload_of(rep);
      data.assign(pl.begin(), pl.end());
      data.resize(232, 0);
      return true;
    } catch (const ibcore::MADError& e) {
      ibcore::report(e);
      std::fprintf(stderr, "vendstat: method %u, attribute %u failure\n", method, attr);
      return false;
    }
  }

  int work() {
    auto& cfg = ibcore::config();
    if (lid_form_ && guid_form_) throw Fail{"only one of -L and -G may be given"};
    const ibcore::EndPort& ep = ibcore::get_end_port(cfg.ca, cfg.port);
    ibcore::Umad umad(ep);
    ibcore::MadTransactor mad(umad);
    if (sm_port_) cfg.sa_path = std::to_string(sm_port_);
    ibcore::IBPath target;
    try {
      target = ibcore::IBPath::from_string(args_[0], guid_form_ ? ibcore::IBPath::Form::GUID
                                                     : lid_form_ ? ibcore::IBPath::Form::LID
                                                                 : ibcore::IBPath::Form::Auto);
    } catch (const ibcore::Error&) {
      throw Fail{"can't resolve destination port " + args_[0]};
    }
    int port = args_.size() > 1 ? int(std::strtoul(args_[1].c_str(), nullptr, 0)) : 0;
    bool path_ok = true;
    try {
      ibcore::GmpPathResolver res(mad);
      path_ = res.resolve(target);
    } catch (const ibcore::MADError& e) {
      ibcore::report(e);
      // A GID/GUID target needs the SA; a LID one fails at its first MAD.
      if (target.has_grh && !target.DLID) throw Fail{"can't resolve destination port " + args_[0]};
      path_ok = false;
    }
    auto unreachable = [&](unsigned method, unsigned attr) {
      std::fprintf(stderr, "vendstat: method %u, attribute %u failure\n", method, attr);
    };

    if (cg_info_) {
      std::vector<uint8_t> d(232, 0);
      if (!path_ok) {
        unreachable(1, ATTR_IS4_COUNTER_GROUP_INFO);
        std::fprintf(stderr, "counter group info query failure\n");
      } else if (!vend(mad, iba::method::GET, ATTR_IS4_COUNTER_GROUP_INFO, uint32_t(port), d)) {
        std::fprintf(stderr, "counter group info query failure\n");
      } else {
        // num_of_counter_groups, then per group: group_status, group_select.
        unsigned n = d[0];
        std::printf("counter_group_info:\n");
        std::printf("%d counter groups\n", int(n));
        for (unsigned i = 0; i < n && 4 + 4 * i + 3 < d.size(); ++i)
          std::printf("group%u status %u select %u\n", i, d[4 + 4 * i], d[4 + 4 * i + 3]);
      }
    }
    if (!cg_config_.empty()) {
      std::vector<uint64_t> g;
      split_nums(cg_config_, 2, g);
      std::printf("counter_groups_config: configuring group0 %llu group1 %llu\n", (unsigned long long)g[0],
                  (unsigned long long)g[1]);
      std::fflush(stdout);
      std::vector<uint8_t> d(232, 0);
      d[0] = 2;  // two groups
      d[4 + 3] = uint8_t(g[0]);
      d[8 + 3] = uint8_t(g[1]);
      if (!path_ok) {
        unreachable(2, ATTR_IS4_CONFIG_COUNTER_GROUP);
        std::fprintf(stderr, "config counter group set failure\n");
      } else if (!vend(mad, iba::method::SET, ATTR_IS4_CONFIG_COUNTER_GROUP, uint32_t(port), d)) {
        std::fprintf(stderr, "config counter group set failure\n");
      }
    }
    if (!read_.empty() || !write_.empty()) {
      bool wr = read_.empty();
      std::vector<uint64_t> v;
      split_nums(wr ? write_ : read_, wr ? 3 : 2, v);
      iba::MLXConfigSpaceRecord rec;
      rec.set_address(uint32_t(v[0]));
      if (wr) {
        rec.set_data(uint32_t(v[1]));
        rec.set_mask(uint32_t(v[2]));
      } else {
        rec.set_mask(uint32_t(v[1]));
      }
      iba::MLXConfigSpaceAccess csa;
      csa.set_record(0, rec);
      std::vector<uint8_t> d(csa.bytes().begin(), csa.bytes().end());
      uint8_t method = wr ? iba::method::SET : iba::method::GET;
      bool ok = path_ok && vend(mad, method, iba::AttrId<iba::MLXConfigSpaceAccess>::value, 1, d);
      if (!path_ok) unreachable(method, iba::AttrId<iba::MLXConfigSpaceAccess>::value);
      if (!ok) {
        std::fprintf(stderr, wr ? "cannot set config space records\n" : "cannot get config space records\n");
      } else {
        csa.load(d);
        auto r = csa.record(0);
        std::printf("Config space record at 0x%x: 0x%x\n", unsigned(r.address()), unsigned(r.data() & r.mask()));
      }
    }
    if (cg_info_ || !cg_config_.empty() || !read_.empty() || !write_.empty()) return 0;
    if (!general_ && !xmit_wait_) throw Fail{"at least one of -N and -w must be specified"};

    // The class must answer its ClassPortInfo first.
    std::vector<uint8_t> cpi(232, 0);
    if (!path_ok) {
      unreachable(1, ATTR_CLASS_PORT_INFO);
      throw Fail{"classportinfo query"};
    }
    if (!vend(mad, iba::method::GET, ATTR_CLASS_PORT_INFO, 0, cpi)) throw Fail{"classportinfo query"};

    if (general_) {
      std::vector<uint8_t> d(232, 0);
      if (!vend(mad, iba::method::GET, iba::AttrId<iba::MLXGeneralInfo>::value, 0, d))
        throw Fail{"generalinfo query"};
      iba::MLXGeneralInfo gi;
      gi.load(d);
      std::printf("hw_dev_rev:  0x%04x\n", unsigned(gi.hwRevision()));
      std::printf("hw_dev_id:   0x%04x\n", unsigned(gi.hwDeviceID()));
      std::printf("hw_uptime:   0x%08x\n", unsigned(gi.hwUptime()));
      if (gi.fwExtMajor() || gi.fwExtMinor() || gi.fwExtSubMinor())
        std::printf("fw_version:  %02u.%02u.%04u\n", unsigned(gi.fwExtMajor()), unsigned(gi.fwExtMinor()),
                    unsigned(gi.fwExtSubMinor()));
      else
        std::printf("fw_version:  %02u.%02u.%02u\n", unsigned(gi.fwMajor()), unsigned(gi.fwMinor()),
                    unsigned(gi.fwSubMinor()));
      std::printf("fw_build_id: 0x%04x\n", unsigned(gi.fwBuildID()));
      std::printf("fw_date:     %02x/%02x/%04x\n", unsigned(gi.fwMonth()), unsigned(gi.fwDay()),
                  unsigned(gi.fwYear()));
      char psid[17] = {};
      std::memcpy(psid, d.data() + 48, 16);
      std::printf("fw_psid:     '%s'\n", psid);
      std::printf("fw_ini_ver:  %u\n", unsigned(gi.fwIniFileVersion()));
      std::printf("sw_version:  %02u.%02u.%02u\n", unsigned(gi.swMajor()), unsigned(gi.swMinor()),
                  unsigned(gi.swSubMinor()));
    }
    if (xmit_wait_) {
      std::vector<uint8_t> d(232, 0);
      if (!vend(mad, iba::method::GET, ATTR_IS3_PORT_XMIT_WAIT, uint32_t(port), d))
        throw Fail{"xmitwait query"};
      std::printf("port_xmit_wait:\n");
      for (unsigned i = 0; i < 4; ++i) {
        unsigned v = unsigned(d[4 + 4 * i]) << 24 | unsigned(d[5 + 4 * i]) << 16 | unsigned(d[6 + 4 * i]) << 8 |
                     d[7 + 4 * i];
        std::printf("port %u: %u\n", i, v);
      }
    }
    std::fflush(stdout);
    return 0;
  }

  bool general_ = false, xmit_wait_ = false, cg_info_ = false, lid_form_ = false, guid_form_ = false;
  std::string cg_config_, read_, write_;
  int sm_port_ = 0;
  std::vector<std::string> args_;
  ibcore::IBPath path_;
};

}  // namespace

IBTOOL_COMMAND({.name = "vendstat",
                .aliases = {},
                .summary = "Mellanox vendor specific information and counters of a device",
                .description =
                    "Reads Mellanox vendor class (0x0a) attributes of a device: general hardware and "
                    "firmware information (-N), IS3 port xmit wait counters (-w), IS4 counter group "
                    "information (-i) and configuration (-c), configuration space records (-R, -W).",
                .usage = "[options] <lid|guid> [port]",
                .examples = "  vendstat -N 6          # read IS3 or IS4 general information\n"
                            "  vendstat -w 6          # read IS3 port xmit wait counters\n"
                            "  vendstat -i 6 12       # read IS4 port 12 counter group info\n"
                            "  vendstat -c 0,1 6 12   # configure IS4 port 12 counter groups",
                .make = [] { return std::make_unique<VendStat>(); }});
