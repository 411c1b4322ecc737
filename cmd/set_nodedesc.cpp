// set_nodedesc (legacy set_nodedesc.sh): set or show the node description
// of the local RDMA devices through sysfs (core/transport/devices.h does the file work).
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/transport/devices.h"
#include "core/base/error.h"
#include "core/out/print.h"
#include "core/out/log.h"

namespace {

class SetNodeDesc : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    name_ = app.get_name();
    app.add_flag("-v,--view", view_, "show the node description of every device instead of setting it");
    app.add_option("-C,--Ca", ca_, "only this device (default: every device)")->option_text("<ca>");
    app.add_option("name", desc_, "the node description (default: the host name)");
    ibtool::add_common_options(app, config(), ibtool::opt::Json);
  }

  int run() override {
    // The classic script announces on stdout that it is deprecated; its
    // legacy name keeps that output, byte for byte.
    // (--json: stdout is for the document; the notice goes to stderr.)
    if (name_ == "set_nodedesc.sh")
      ibcore::text_or_log(ibcore::log::Level::warn, "\n*** WARNING ***: this command is deprecated.\n\n");
    std::vector<std::string> devs = ibcore::sysfs_device_names();
    if (devs.empty()) {
      std::fflush(stdout);
      ibcore::log::error("E: no RDMA devices found in %s/class/infiniband\n", ibcore::sysfs_root().c_str());
      return 1;
    }
    if (!ca_.empty()) {
      bool found = false;
      for (const auto& d : devs) found = found || d == ca_;
      if (!found) {
        std::string all;
        for (const auto& d : devs) all += " " + d;
        std::fflush(stdout);
        ibcore::log::error("E: no RDMA device named '%s'; devices:%s\n", ca_.c_str(), all.c_str());
        return 1;
      }
      devs = {ca_};
    }
    return view_ ? view(devs) : set(devs);
  }

private:
  // --json: {"devices": [{"device", "nodeDescription" (-v; null when it
  // cannot be read) or "set" (whether it was written)}], "nodeDescription"
  // (what was written)}; the failures on stderr as in the text.
  // The text: "<device>: <description>" a device (-v); nothing for a set.
  static int view(const std::vector<std::string>& devs) {
    int rc = 0;
    ibcore::Printer p;
    p.open_object().open_array("devices");
    for (const auto& d : devs) {
      std::optional<std::string> s;
      try {
        s = ibcore::read_node_desc(d);
        if (!s->empty() && s->back() == '\n') s->pop_back();
      } catch (const std::exception& e) {
        std::fflush(stdout);
        ibcore::report(e);
        rc = 1;
      }
      p.open_object().str(s ? ibcore::PRINT_ANY : ibcore::PRINT_JSON, "device", "%s: ", d);
      if (s) p.str(ibcore::PRINT_ANY, "nodeDescription", "%s\n", *s);
      else p.null("nodeDescription");
      p.close_object();
    }
    p.close_array().close_object().finish();
    return rc;
  }

  int set(const std::vector<std::string>& devs) const {
    std::string desc = desc_;
    if (desc.empty()) {
      char host[HOST_NAME_MAX + 1] = {};
      if (::gethostname(host, sizeof host - 1) != 0) {
        ibcore::report(ibcore::SysError(errno, "gethostname", "Cannot find the host name for the default description"));
        return 1;
      }
      desc = host;
    }
    try {
      ibcore::check_node_desc(desc);  // one message, not one per device
    } catch (const std::exception& e) {
      ibcore::report(e);
      return 1;
    }
    int rc = 0;
    ibcore::Printer p;
    p.open_object().str(ibcore::PRINT_JSON, "nodeDescription", nullptr, desc).open_array("devices");
    for (const auto& d : devs) {
      bool ok = true;
      try {
        ibcore::write_node_desc(d, desc);
      } catch (const std::exception& e) {
        ibcore::report(e);
        rc = 1;
        ok = false;
      }
      p.open_object().str(ibcore::PRINT_JSON, "device", nullptr, d).boolean(ibcore::PRINT_JSON, "set", nullptr, ok);
      p.close_object();
    }
    p.close_array().close_object().finish();
    return rc;
  }

  std::string name_;
  bool view_ = false;
  std::string ca_;
  std::string desc_;
};

}  // namespace

IBTOOL_COMMAND({.name = "set_nodedesc",
                .aliases = {"set_nodedesc.sh"},
                .summary = "set or show the node description of the local RDMA devices",
                .description =
                    "Writes the node description (the string a SubnGet of NodeDescription returns) "
                    "of every local RDMA device, or of the one -C names, to "
                    "/sys/class/infiniband/<device>/node_desc: the given name, else the host name.  "
                    "-v shows each device's description as 'device: description' instead.  Setting "
                    "needs write access to sysfs (root); a device that cannot be set is named on "
                    "stderr with the file and the reason, and the exit status is 1.  At most 64 "
                    "bytes fit.  NodeDescription is get-only in the IBA, so this local file is the "
                    "only way to change it: on a simulated fabric (umad2sim has no node_desc "
                    "files, and ibsim's descriptions come from its topology file) nothing can be "
                    "set.  Invoked as set_nodedesc.sh it first prints the classic script's "
                    "deprecation notice.  IBTOOL_SYSFS_ROOT replaces /sys (for tests).  --json (-j; --pretty "
                    "indents): one document (its members and types: --json-schema); failures on stderr as without --json (a device -C does not "
                    "name and a description that does not fit leave stdout empty).",
                .usage = "[-v] [-C <ca>] [<name>]",
                .examples = "  set_nodedesc              # every device: the host name\n"
                            "  set_nodedesc \"node01 HCA-1\"\n"
                            "  set_nodedesc -C mlx5_0 \"node01 HCA-2\"\n"
                            "  set_nodedesc -v           # show them",
                .make = [] { return std::make_unique<SetNodeDesc>(); }});
