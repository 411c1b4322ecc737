#include "cmd/target.h"

#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/transport/open.h"
#include "core/base/error.h"
#include "core/rpc/gmppath.h"
#include "core/out/print.h"
#include "core/out/log.h"
#include "iba/introspect.h"

#include <cstdio>
#include <utility>
#include <vector>

namespace ibtool {

void TargetFlags::bind(CLI::App& app, unsigned which) {
  bound |= which;
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
  if (n > 1) {
    // Named as the command takes them: "-L and -G", "-D, -L and -G".
    unsigned forms = bound & (tflag::Direct | tflag::Lid | tflag::Guid);
    if (!forms) forms = tflag::Direct | tflag::Lid | tflag::Guid;
    std::vector<const char*> names;
    for (auto [bit, name] : {std::pair{tflag::Direct, "-D"}, {tflag::Lid, "-L"}, {tflag::Guid, "-G"}})
      if (forms & bit) names.push_back(name);
    std::string list;
    for (size_t i = 0; i < names.size(); ++i)
      list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + std::string(names[i]);
    throw ibcore::Error("only one of " + list + " may be given");
  }
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
  s.ep = &ep;
  s.umad = ibcore::open_transport(ep, c);
  s.mad = std::make_unique<ibcore::MadTransactor>(*s.umad);
  s.mad->note_presence(true);  // the M_Key hint only for a target that exists
  return s;
}

int ref_exit(const std::string& tool, const std::string& msg) {
  ibcore::log::flush();
  // With --json stdout carries the document only: the line goes to stderr.
  ibcore::text_or_log(ibcore::log::Level::error, "%s: iberror: failed: %s\n", tool.c_str(), msg.c_str());
  return 255;
}

std::string cant_resolve(const std::string& dest, std::string_view noun) {
  return "can't resolve " + std::string(noun) + " " + dest;
}

namespace {

// Open the end port (the scope's, if it names one) the way the command's
// reference tool fails: its "Failed to open" line, or our E: lines and 255.
std::unique_ptr<Session> open_or_fail(const ibcore::Config& c, const ibcore::IBPath* scope, bool iberror_on_open) {
  try {
    return std::make_unique<Session>(open_session(c, scope));
  } catch (const std::exception& e) {
    if (!iberror_on_open) {
      ibcore::report(e);
      throw ExitFail{255};
    }
    std::string ca = c.ca.empty() ? "(null)" : c.ca;
    ref_fail(e, "Failed to open '" + ca + "' port '" + std::to_string(c.port) + "'");
  }
}

// A GUID target the SA has no port for (-G with a node GUID), or a number
// too big for a LID (a GUID without -G): the error with what the SA says
// that GUID is (core/rpc/target guid_hint), when it says something.
void hint_guid(Session& s, const std::string& arg, const ibcore::IBPath* target, std::exception_ptr& err,
               uint16_t sm_lid) {
  uint64_t guid = 0;
  if (target) {
    if (target->DLID || !target->has_grh) return;
    try {
      std::rethrow_exception(err);
    } catch (const ibcore::MADClassError& c) {
      if (c.class_code() != 3) return;  // ERR_NO_RECORDS: no such port
    } catch (...) {
      return;
    }
    guid = target->DGID.guid();
  } else {
    auto v = iba::parse_uint(arg);
    if (!v || *v <= 0xffff || arg.find(':') != std::string::npos) return;
    guid = *v;
  }
  ibcore::GuidHint h = ibcore::guid_hint(*s.mad, guid, sm_lid);
  if (h.kind == ibcore::GuidHint::None) return;
  try {
    std::rethrow_exception(err);
  } catch (ibcore::MADError& e) {
    e.annotate(h.text);
    err = std::current_exception();
  } catch (...) {
    // A port GUID: the parse error already says to give it with -G (and
    // how to write it as a port GUID without); only a node GUID's hint,
    // which names another GUID, replaces it.
    if (h.kind == ibcore::GuidHint::PortGuid) return;
    err = std::make_exception_ptr(ibcore::Error("Invalid destination " + arg + ": not a LID (" + h.text + ")"));
  }
}

}  // namespace

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
  std::unique_ptr<Session> s = open_or_fail(c, bad ? nullptr : &target, iberror_on_open);
  if (bad) {
    if (!f.combined && !f.guid && !f.lid && !f.direct && args.size() > first)
      hint_guid(*s, args[first], nullptr, bad, f.sm_port);
    try {
      std::rethrow_exception(bad);
    } catch (const std::exception& e) {
      ref_fail(e, cant_resolve(dest, noun));
    }
  }
  return s;
}

Target open_smp_target(const ibcore::Config& c, const TargetFlags& f, const std::vector<std::string>& args, size_t first,
                       const TargetStyle& style) {
  std::string dest = args.size() > first ? args[first] : std::string();
  if (f.combined) dest += " " + (args.size() > first + 1 ? args[first + 1] : std::string("(null)"));
  Target t;
  t.session = open_for_target(c, {}, f, args, first, t.target, dest, style.iberror_on_open, style.noun);
  std::exception_ptr err;
  try {
    t.path = ibcore::resolve_for_smp(*t.session->mad, t.target, f.sm_port);
    return t;
  } catch (const std::exception&) {
    err = std::current_exception();
  }
  hint_guid(*t.session, dest, &t.target, err, f.sm_port);
  try {
    std::rethrow_exception(err);
  } catch (const std::exception& e) {
    ref_fail(e, cant_resolve(dest, style.noun));
  }
}

Target open_gmp_target(const ibcore::Config& c, const TargetFlags& f, const std::vector<std::string>& args, size_t first,
                       const TargetStyle& style) {
  const bool self = args.size() <= first;
  const std::string dest = self ? std::string() : args[first];
  Target t;
  std::exception_ptr conflict, bad;
  try {
    f.form();
  } catch (const std::exception&) {
    conflict = std::current_exception();
  }
  if (!conflict && !self) {
    try {
      t.target = parse_target_args(f, args, first);
    } catch (const std::exception&) {
      bad = std::current_exception();
    }
  }
  t.session = open_or_fail(c, conflict || bad || self ? nullptr : &t.target, style.iberror_on_open);
  // -s: the SA is asked at that LID (this run's end port only).
  if (f.sm_port) t.session->umad->settings().sa_path = std::to_string(f.sm_port);
  if (conflict || bad) {
    try {
      std::rethrow_exception(conflict ? conflict : bad);
    } catch (const std::exception& e) {
      if (style.explain_bad_target) ref_fail(e, cant_resolve(dest, style.noun));
      throw RefFail{conflict ? std::string(e.what()) : cant_resolve(dest, style.noun)};
    }
  }
  if (self) {
    t.target.DLID = t.session->umad->local_lid();
    if (!t.target.DLID) throw RefFail{"can't resolve self port (null)"};
  }
  try {
    ibcore::GmpPathResolver res(*t.session->mad);
    t.path = res.resolve(t.target);
  } catch (const ibcore::MADError& e) {
    const ibcore::IBPath& p = t.target;
    bool direct = style.direct == TargetStyle::Direct::Lid      ? p.DLID && !p.is_dr()
                  : style.direct == TargetStyle::Direct::NotGid ? !(p.has_grh && !p.DLID)
                                                                : false;
    if (!direct) ref_fail(e, cant_resolve(dest, style.noun));
    t.path_error = std::current_exception();
    // As the reference sends it: a LID on its plain path, anything else as given.
    t.path = p.DLID && !p.is_dr() ? ibcore::plain_lid_path(*t.session->umad, p.DLID) : p;
    if (ibcore::log::verbosity())
      ibcore::log::info("I: no PathRecord for %s (%s): sending to it as given\n", dest.c_str(),
                        e.layers().back().c_str());
  } catch (const std::exception& e) {
    ref_fail(e, cant_resolve(dest, style.noun));
  }
  return t;
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

}  // namespace ibtool
