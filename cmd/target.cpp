#include "cmd/target.h"

#include "core/config.h"
#include "core/devices.h"
#include "core/error.h"
#include "core/json.h"
#include "core/log.h"

#include <cstdio>

namespace ibtool {

void TargetFlags::bind(CLI::App& app, unsigned which) {
  if (which & tflag::Combined) app.add_flag("-c,--combined", combined, "use Combined route address argument");
  if (which & tflag::Direct) app.add_flag("-D,--Direct", direct, "use Direct address argument");
  if (which & tflag::Lid) app.add_flag("-L,--Lid", lid, "use LID address argument");
  if (which & tflag::Guid) app.add_flag("-G,--Guid", guid, "use GUID address argument");
  if (which & tflag::SmPort)
    app.add_option("-s,--sm_port", sm_port, "SM port lid")->option_text("<lid>");
}

ibcore::TargetForm TargetFlags::form() const {
  ibcore::TargetForm f;
  int n = int(direct) + int(lid) + int(guid);
  if (n > 1) throw ibcore::Error("only one of -D, -L and -G may be given");
  if (combined && n) throw ibcore::Error("-c cannot be combined with -D, -L or -G");
  f.combined = combined;
  if (direct) f.form = ibcore::IBPath::Form::DR;
  else if (lid) f.form = ibcore::IBPath::Form::LID;
  else if (guid) f.form = ibcore::IBPath::Form::GUID;
  return f;
}

void bind_ref_help(CLI::App& app, bool& flag) {
  // --help stays the dispatcher's (status 0: `ibtool help CMD` relies on it).
  app.set_help_flag("--help", "help message");
  app.add_flag("-h", flag, "help message (usage on stderr, status 2, as the reference)");
}

int ref_help_exit(CLI::App& app) {
  ibcore::log::text(ibcore::log::Level::info, app.help().c_str());
  return 2;
}

Session open_session(const ibcore::Config& c, const ibcore::IBPath* scope) {
  std::string ca = c.ca;
  int port = c.port;
  if (scope && !scope->ca.empty()) {
    ca = scope->ca;
    port = scope->port;
  }
  Session s;
  const ibcore::EndPort& ep = ibcore::get_end_port(ca, port);
  s.umad = ibcore::open_transport(ep, c);
  s.mad = std::make_unique<ibcore::MadTransactor>(*s.umad);
  return s;
}

int ref_exit(const std::string& tool, const std::string& msg) {
  ibcore::log::flush();
  // With --json stdout carries the document only: the line goes to stderr.
  ibcore::log::stdout_or_log(ibcore::json_enabled(), ibcore::log::Level::error, "%s: iberror: failed: %s\n",
                             tool.c_str(), msg.c_str());
  return 255;
}

void ref_fail(const std::exception& e, std::string msg) {
  std::fflush(stdout);
  ibcore::report(e);
  throw RefFail{std::move(msg)};
}

std::string cant_resolve(const std::string& dest, std::string_view noun) {
  return "can't resolve " + std::string(noun) + " " + dest;
}

std::unique_ptr<Session> open_for_target(const ibcore::Config& c, const std::string&, const TargetFlags& f,
                                         const std::vector<std::string>& args, size_t first,
                                         ibcore::IBPath& target, const std::string& dest,
                                         bool iberror_on_open, std::string_view noun) {
  std::exception_ptr bad;
  try {
    target = parse_target_args(f, args, first);
  } catch (const std::exception&) {
    bad = std::current_exception();
  }
  std::unique_ptr<Session> s;
  try {
    s = std::make_unique<Session>(open_session(c, bad ? nullptr : &target));
  } catch (const std::exception& e) {
    if (!iberror_on_open) {
      ibcore::report(e);
      throw ExitFail{255};
    }
    std::string ca = c.ca.empty() ? "(null)" : c.ca;
    ref_fail(e, "Failed to open '" + ca + "' port '" + std::to_string(c.port) + "'");
  }
  if (bad) {
    try {
      std::rethrow_exception(bad);
    } catch (const std::exception& e) {
      ref_fail(e, cant_resolve(dest, noun));
    }
  }
  return s;
}

ibcore::IBPath resolve_or_fail(Session& s, const ibcore::IBPath& target, const std::string& dest,
                               uint16_t sm_lid) {
  try {
    return ibcore::resolve_for_smp(*s.mad, target, sm_lid);
  } catch (const std::exception& e) {
    ref_fail(e, cant_resolve(dest));
  }
}

ibcore::IBPath parse_target_args(const TargetFlags& f, const std::vector<std::string>& args, size_t first) {
  ibcore::TargetForm form = f.form();
  if (args.size() < first + f.nargs()) throw ibcore::Error("missing destination");
  return ibcore::parse_target(args[first], form, form.combined ? std::string_view(args[first + 1]) : std::string_view());
}

ibcore::IBPath resolve_target(Session& s, const TargetFlags& f, const std::vector<std::string>& args,
                              size_t first) {
  return ibcore::resolve_for_smp(*s.mad, parse_target_args(f, args, first), f.sm_port);
}

}  // namespace ibtool
