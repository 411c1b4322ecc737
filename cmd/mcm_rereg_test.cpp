// mcm_rereg_test: re-register ports in a multicast group through the SA, the
// way a port does after the SM asks it to (client reregistration): for each
// port GUID, leave the group (SubnAdmDelete of an MCMemberRecord) and join
// it again as a full member (SubnAdmSet), then check with SubnAdmGet that
// the SA holds the membership.  The group defaults to the IPoIB broadcast
// group of the default partition, which an SM creates at start; the port
// GUIDs come from a file (one a line, as the old infiniband-diags test
// read them) or from --port-guid.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/base/error.h"
#include "core/out/print.h"
#include "core/base/textfile.h"
#include "core/rpc/rpc.h"
#include "core/transport/open.h"
#include "iba/introspect.h"
#include "iba/sa.h"
#include "core/out/log.h"

namespace {

constexpr const char* IPOIB_BROADCAST = "ff12:401b:ffff::ffff:ffff";
constexpr uint8_t FULL_MEMBER = 0x1;

// The component mask of the MCMemberRecord fields a join/leave/query sets.
uint64_t mcm_mask() {
  uint64_t m = 0;
  for (const char* f : {"MGID", "portGID", "joinState"})
    m |= iba::component_mask(iba::SAMCMemberRecord::DESC, f);
  return m;
}

// A port GUID as the old test read it (0x hex, decimal) or in the
// 0002:c903:0000:1491 form.
bool parse_guid(std::string s, uint64_t& out) {
  if (s.find(':') != std::string::npos) {
    std::string h;
    for (char c : s)
      if (c != ':') h += c;
    if (h.size() != 16) return false;
    s = "0x" + h;
  }
  return ibtool::parse_int(s, out);
}

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

std::string hex(uint64_t v, int width) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%0*llx", width, (unsigned long long)v);
  return b;
}

std::string why(const std::exception& e) {
  if (auto* c = dynamic_cast<const ibcore::MADClassError*>(&e)) return iba::status_text(c->mgmt_class, c->status);
  if (dynamic_cast<const ibcore::MADTimeoutError*>(&e)) return "timed out";
  return e.what();
}

class McmReregTest : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    ibtool::add_common_options(app, config(), ibtool::opt::Gmp | ibtool::opt::Json);
    app.add_option("--mgid", mgid_str_, "the group (default the IPoIB broadcast group " + std::string(IPOIB_BROADCAST) + ")")
        ->option_text("<gid>");
    app.add_option("-g,--port-guid", guid_args_, "a port GUID to re-register (repeatable; instead of the file)")
        ->option_text("<guid>");
    app.add_flag("--leave", leave_at_end_, "leave the group again at the end and check the membership is gone");
    app.add_option("guid_file", file_, "file of port GUIDs, one a line (default port_guids.list)");
  }

  int run() override {
    std::vector<uint64_t> guids;
    if (!read_guids(guids)) return 2;
    if (!iba::find_field(iba::SAMCMemberRecord::DESC, "MGID")) return 2;
    uint8_t gidbuf[16] = {};
    if (!iba::set_from_text(*iba::find_field(iba::SAMCMemberRecord::DESC, "MGID"), gidbuf, mgid_str_) ||
        gidbuf[0] != 0xff) {
      ibcore::log::error("E: bad multicast GID %s\n", mgid_str_.c_str());
      return 2;
    }
    std::memcpy(mgid_.raw.data(), gidbuf, 16);

    auto& cfg = config();
    std::unique_ptr<ibcore::Transport> umad;
    try {
      umad = ibcore::open_transport(ibcore::get_end_port(cfg.ca, cfg.port), cfg);
    } catch (const std::exception& e) {
      ibcore::report(e);
      return 1;
    }
    ibcore::MadTransactor mad(*umad);
    uint64_t prefix = umad->local_gid().prefix();
    if (!prefix) prefix = 0xfe80000000000000ULL;
    // {"MGID", "ports": [{"portGUID", "ok", "MLID" (when joined),
    // "outcome" (the text line's words)}], "reregistered", "total"}; the
    // text: a line a port as it is done, then the count.
    ibcore::Printer p;
    p_ = &p;
    p.open_object().gid(ibcore::PRINT_JSON, "MGID", nullptr, mgid_).open_array("ports");
    size_t ok = 0;
    for (uint64_t g : guids)
      if (rereg(mad, iba::Gid::from(prefix, g))) ++ok;
    p.close_array().uint(ibcore::PRINT_ANY, "reregistered", "%u of ", ok);
    p.uint(ibcore::PRINT_ANY, "total", "%u ports re-registered in ", guids.size());
    p.gid(ibcore::PRINT_FP, nullptr, "%s\n", mgid_).close_object().finish();
    std::fflush(stdout);
    return ok == guids.size() ? 0 : 1;
  }

private:
  bool read_guids(std::vector<uint64_t>& out) {
    if (!guid_args_.empty() && !file_.empty()) {
      ibcore::log::error("E: give port GUIDs either with --port-guid or in a file, not both\n");
      return false;
    }
    if (!guid_args_.empty()) {
      for (const auto& s : guid_args_) {
        uint64_t g;
        if (!parse_guid(trim(s), g)) {
          ibcore::log::error("E: bad port GUID %s\n", s.c_str());
          return false;
        }
        out.push_back(g);
      }
      return true;
    }
    std::string name = file_.empty() ? "port_guids.list" : file_;
    std::string text;
    if (!ibcore::read_text(name, text)) {
      ibcore::log::error("E: cannot read port GUID file %s\n", name.c_str());
      return false;
    }
    int n = 0;
    bool ok = true;
    ibcore::for_each_line(text, [&](std::string_view l) {
      ++n;
      if (!ok) return;
      std::string line(l);
      std::string t = trim(line.substr(0, line.find('#')));
      if (t.empty()) return;
      uint64_t g;
      if (!parse_guid(t, g)) {
        ibcore::log::error("E: %s:%d: bad port GUID %s\n", name.c_str(), n, t.c_str());
        ok = false;
        return;
      }
      out.push_back(g);
    });
    if (!ok) return false;
    if (out.empty()) {
      ibcore::log::error("E: no port GUIDs in %s\n", name.c_str());
      return false;
    }
    return true;
  }

  iba::SAMCMemberRecord record(const iba::Gid& port_gid) const {
    iba::SAMCMemberRecord r;
    r.set_MGID(mgid_).set_portGID(port_gid).set_joinState(FULL_MEMBER);
    return r;
  }

  void leave(ibcore::MadTransactor& mad, const iba::Gid& port_gid) {
    auto rec = record(port_gid);
    auto req = ibcore::make_request<iba::SAMCMemberRecord>(iba::mgmt::SUBN_ADM, iba::mgmt::SUBN_ADM,
                                                           iba::method::DELETE, &rec, 0, mcm_mask());
    mad.call(req, mad.sa_path());
  }

  // One port: leave, join, query (and leave again with --leave).  Prints
  // one line; true when the port ended as the run wanted it.
  bool rereg(ibcore::MadTransactor& mad, const iba::Gid& port_gid) {
    std::string line = "Port " + hex(port_gid.guid(), 16) + ":";
    const size_t head = line.size() + 1;
    bool good = false;
    uint16_t mlid = 0;
    // The port's line: "Port <GUID>: <outcome>".
    auto out = [&] {
      p_->open_object().guid(ibcore::PRINT_ANY, "portGUID", "Port 0x%016x:", port_gid.guid());
      p_->boolean(ibcore::PRINT_JSON, "ok", nullptr, good);
      if (mlid) p_->uint(ibcore::PRINT_JSON, "MLID", nullptr, mlid);
      p_->str(ibcore::PRINT_ANY, "outcome", " %s\n", line.substr(std::min(head, line.size()))).close_object();
      std::fflush(stdout);
    };
    try {
      leave(mad, port_gid);
      line += " left,";
    } catch (const ibcore::MADClassError& e) {
      // Not a member yet (the SA refuses to delete what it does not hold).
      if (config().verbose) ibcore::report(e);
      line += " was not a member,";
    } catch (const std::exception& e) {
      ibcore::report(e);
      line += " leave failed (" + why(e) + ")";
      out();
      return false;
    }
    try {
      auto j = mad.SubnAdmSet(record(port_gid), mcm_mask());
      line += " joined (MLID " + hex(j.MLID(), 4) + ")";
      mlid = uint16_t(j.MLID());
      try {
        auto q = mad.SubnAdmGet(record(port_gid), mcm_mask());
        if (q.portGID() == iba::Gid{} && q.MLID() == j.MLID()) {
          // The SA found the membership but hides the member's details
          // from a requester without the SM_Key (OpenSM does).
          line += ", registered (JoinState hidden without the SM_Key)";
          good = true;
        } else if ((q.joinState() & FULL_MEMBER) && q.MLID() == j.MLID() && q.portGID() == port_gid) {
          line += ", registered (JoinState " + hex(q.joinState(), 1) + ")";
          good = true;
        } else {
          line += ", but the SA holds JoinState " + hex(q.joinState(), 1) + " MLID " + hex(q.MLID(), 4);
        }
      } catch (const std::exception& e) {
        ibcore::report(e);
        line += ", query failed (" + why(e) + ")";
      }
    } catch (const std::exception& e) {
      ibcore::report(e);
      line += " join failed (" + why(e) + ")";
    }
    if (good && leave_at_end_) {
      good = false;
      try {
        leave(mad, port_gid);
        try {
          mad.SubnAdmGet(record(port_gid), mcm_mask());
          line += ", left but still registered";
        } catch (const ibcore::MADClassError& e) {
          if (e.class_code() == 3 /* ERR_NO_RECORDS */) {
            line += ", left";
            good = true;
          } else {
            ibcore::report(e);
            line += ", left but the query failed (" + why(e) + ")";
          }
        }
      } catch (const std::exception& e) {
        ibcore::report(e);
        line += ", leave failed (" + why(e) + ")";
      }
    }
    out();
    return good;
  }

  ibcore::Printer* p_ = nullptr;  // run()'s output

  std::string mgid_str_ = IPOIB_BROADCAST;
  iba::Gid mgid_;
  std::vector<std::string> guid_args_;
  std::string file_;
  bool leave_at_end_ = false;
};

}  // namespace

IBTOOL_COMMAND({.name = "mcm_rereg_test",
                .aliases = {},
                .summary = "re-register ports in a multicast group through the SA (leave, join, check)",
                .description =
                    "For each port GUID, does what a port does when the SM asks it to re-register: leaves "
                    "the multicast group (SubnAdmDelete of an MCMemberRecord), joins it again as a full "
                    "member (SubnAdmSet: MGID, PortGID, JoinState), then checks with SubnAdmGet that the "
                    "SA holds the membership with the MLID the join returned.  --leave leaves again at "
                    "the end and checks the membership is gone.  Joining for another port's GID is a "
                    "proxy join, which the SM may refuse.  An SA may hide the members' details from a "
                    "requester without the SM_Key (--smkey): the check then relies on the SA finding "
                    "the membership.\n\n"
                    "The port GUIDs come from --port-guid or a file (default port_guids.list, '-' for "
                    "stdin): one GUID a line (0x hex, decimal or 0002:c903:0000:1491), '#' comments.  "
                    "The port GID is the local port's subnet prefix and the GUID.\n\n"
                    "Output, one line a port, then a summary:\n"
                    "  Port 0x0002c90300001491: left, joined (MLID 0xc000), registered (JoinState 0x1)[, left]\n"
                    "  1 of 1 ports re-registered in ff12:401b:ffff::ffff:ffff\n"
                    "(\"was not a member\" instead of \"left\" when the port was not in the group; "
                    "\"(JoinState hidden without the SM_Key)\" when the SA hides it; a failed "
                    "step is named with the SA's status, details on stderr).  Exit status: 0 every port "
                    "re-registered; 1 some did not, or the port could not be opened; 2 bad arguments or "
                    "GUID file.  --json (-j; --pretty indents): one document (its members and types: --json-schema).",
                .usage = "[options] [<guid_file>]",
                .examples = "  mcm_rereg_test                          # GUIDs from port_guids.list\n"
                            "  mcm_rereg_test -g 0x0002c90300001491 --leave\n"
                            "  mcm_rereg_test --smkey 1 guids.txt",
                .make = [] { return std::make_unique<McmReregTest>(); }});
