// The options the fabric health commands (the ibcheck* family,
// ibdatacount*, ibclear*) share, declared once.
#pragma once

#include "cmd/common.h"

namespace ibtool {

// -b (leave out the summary; `brief` null: none) and -N (accepted for
// compatibility: the output is never colored), first on the line.
inline void add_health_flags(CLI::App& app, bool* brief, const char* brief_help, bool& nocolor,
                             const char* nocolor_help = "accepted for compatibility") {
  if (brief) app.add_flag("-b,--brief", *brief, brief_help);
  app.add_flag("-N,--nocolor", nocolor, nocolor_help);
}

// The common options of a fabric scan (discovery or --cache, SM_Key,
// --json, --strict), last.
inline void add_health_common(CLI::App& app, ibcore::Config& cfg) {
  add_common_options(app, cfg, opt::Disc | opt::SMKey | opt::Json | opt::Strict);
}

}  // namespace ibtool
