// The fabric health commands (the ibcheck* family, ibdatacount*, ibclear*):
// their options and what they share, declared once.
#pragma once

#include <string>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/transport/path.h"

namespace ibtool {

// The node or port a single-target health command looks at:
// [-G] [-D] <lid|guid|dr_path> [<port>].
struct HealthTarget {
  enum class Port { None, Optional, Required };
  bool guid_form = false, dr_form = false;
  std::string target;
  int port = -1;  // -1: not given

  // -D only where `dr_flag` (a DR path is told apart without it too).
  void add(CLI::App& app, bool dr_flag, Port p) {
    app.add_flag("-G", guid_form, "the target is a port GUID");
    if (dr_flag) app.add_flag("-D", dr_form, "the target is a DR path");
    app.add_option("target", target, "<lid|guid|dr_path>")->required();
    if (p == Port::Required)
      app.add_option("port", port, "<port>")->required();
    else if (p == Port::Optional)
      app.add_option("port", port, "[<port>]");
  }
  ibcore::IBPath::Form form() const {
    return guid_form ? ibcore::IBPath::Form::GUID : dr_form ? ibcore::IBPath::Form::DR : ibcore::IBPath::Form::Auto;
  }
};

// A fabric health command: -b (where it has a summary to leave out) and
// -N (accepted for compatibility: the output is never colored) first, its
// own options, then the common ones of a fabric scan (discovery or
// --cache, SM_Key, --json, --strict; `common` where it takes fewer).  Its
// work may fail anywhere (discovery, a MAD, a file): the library's report.
class HealthCommand : public Command {
public:
  void options(CLI::App& app) final {
    if (brief_help_) app.add_flag("-b,--brief", brief_, brief_help_);
    app.add_flag("-N,--nocolor", nocolor_, nocolor_help_);
    own_options(app);
    add_common_options(app, config(), common_);
  }
  bool reports_errors() const override { return true; }

protected:
  // `brief_help` null: no -b.
  static constexpr uint32_t SCAN = opt::Disc | opt::SMKey | opt::Json | opt::Strict;
  explicit HealthCommand(const char* brief_help, const char* nocolor_help = "accepted for compatibility",
                         uint32_t common = SCAN)
      : brief_help_(brief_help), nocolor_help_(nocolor_help), common_(common) {}
  virtual void own_options(CLI::App&) {}

  bool brief_ = false, nocolor_ = false;

private:
  const char* brief_help_;
  const char* nocolor_help_;
  uint32_t common_;
};

}  // namespace ibtool
