#include "core/base/error.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "core/out/log.h"
#include "iba/decode.h"
#include "iba/introspect.h"
#include "iba/mad.h"

namespace ibcore {

std::string Error::dump_str(int) const { return std::string("E: ") + what() + "\n"; }

SysError::SysError(int err, std::string func, std::string msg)
    : Error(msg.empty() ? func + " failed: " + std::strerror(err)
                        : msg + ": " + func + " failed: " + std::strerror(err)),
      err_(err),
      func_(std::move(func)) {}

MADError& MADError::annotate(std::string msg) {
  layers_.insert(layers_.begin(), std::move(msg));
  msg_ = layers_.front();
  return *this;
}

namespace {

std::string summary(const std::vector<uint8_t>& mad) {
  if (mad.size() < iba::MADHeader::SIZE) return "(short MAD)";
  iba::MADHeader h;
  h.load(mad);
  char b[160];
  std::snprintf(b, sizeof b, "%s class 0x%02x.%u attr 0x%04x amod 0x%x TID 0x%016llx status 0x%04x",
                iba::method_name(uint8_t(h.mgmtClass()), uint8_t(h.method())).c_str(), unsigned(h.mgmtClass()),
                unsigned(h.classVersion()), unsigned(h.attributeID()), unsigned(h.attributeModifier()),
                (unsigned long long)h.transactionID(), unsigned(h.status()));
  return b;
}

void indent_lines(std::string& out, const std::string& text, const char* prefix) {
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find('\n', i);
    if (j == std::string::npos) j = text.size();
    out += prefix;
    out.append(text, i, j - i);
    out += '\n';
    i = j + 1;
  }
}

}  // namespace

std::string MADError::dump_str(int level) const {
  std::string out;
  for (size_t i = 0; i < layers_.size(); ++i) {
    out += i ? "E: +" : "E: ";
    out += layers_[i];
    out += '\n';
  }
  if (level >= 1) {
    if (!path.empty()) out += "E:   path " + path + "\n";
    if (!req.empty()) out += "E:   request " + summary(req) + "\n";
    if (!rep.empty()) out += "E:   reply " + summary(rep) + "\n";
    if (reply_status) {
      char b[48];
      std::snprintf(b, sizeof b, "E:   reply status to send 0x%04x\n", reply_status);
      out += b;
    }
  }
  if (level >= 2) {
    if (!req.empty()) {
      out += "E:   request MAD:\n";
      indent_lines(out, iba::dump_mad(req), "E:     ");
    }
    if (!rep.empty()) {
      out += "E:   reply MAD:\n";
      indent_lines(out, iba::dump_mad(rep), "E:     ");
    }
  }
  return out;
}

int exit_status(const std::exception&) {
  // The reference tools leave through IBEXIT/exit(-1) for every runtime
  // failure (timeouts, error replies, bad destinations).
  return 255;
}

namespace {

// One line for an SMP or SA MAD that got no reply, when a key may be why.
std::string no_reply_hint(const MADError& e) {
  if (!dynamic_cast<const MADTimeoutError*>(&e) || e.req.size() < iba::MADHeader::SIZE) return {};
  const auto cls = iba::MADHeader::mgmtClass_at(e.req.data());
  if (cls == iba::mgmt::SUBN_ADM) {
    // OpenSM drops (no reply) an SA request whose SM_Key is neither 0 nor
    // its own; without a key it answers, or refuses what needs trust.
    if (e.req.size() < iba::SAFormat::SIZE || !iba::SAFormat::SMKey_at(e.req.data())) return {};
    return "no reply from the SA may also be a wrong SM_Key: the SA ignores requests carrying another key than "
           "its own; check the key given with --smkey (or sa_key in ibdiag.conf)";
  }
  if (cls != iba::mgmt::SUBN_LID_ROUTED && cls != iba::mgmt::SUBN_DIRECTED_ROUTE) return {};
  // A port that drops SMPs for their M_Key must be there: no hint for a
  // destination nobody has (LID 99 of a 6-node subnet) or one not known.
  if (e.target == MADError::Target::Absent)
    return cls == iba::mgmt::SUBN_DIRECTED_ROUTE
               ? "nothing is at the end of that directed route: the port before it is not LinkUp, or the route "
                 "goes on through a node that is not a switch"
               : "no port of the subnet has that LID (the SA knows no path to it)";
  if (e.target != MADError::Target::Exists) return {};
  // IBA 14.2.4: an SMA drops, without a reply, a Set whose M_Key does not
  // match its port's (any protection level) and at levels 2 and 3 a Get too.
  if (e.req.size() < iba::SMPFormat::SIZE) return {};
  const bool set = iba::MADHeader::method_at(e.req.data()) == iba::method::SET;
  const uint64_t mkey = iba::SMPFormat::MKey_at(e.req.data());
  std::string what = set ? "an SMP Set" : "an SMP Get (protection level 2 or 3)";
  std::string with = mkey ? "a wrong M_Key" : "no M_Key";
  std::string fix = mkey ? "check the key given with -y KEY (or m_key in ibdiag.conf)"
                         : "give the key with -y KEY (or m_key in ibdiag.conf)";
  return "no reply may also be an M_Key violation: a protected port drops " + what + " carrying " + with + "; " +
         fix;
}

}  // namespace

std::string report_text(const std::exception& e) {
  std::string out;
  if (auto* me = dynamic_cast<const Error*>(&e))
    out = me->dump_str(log::verbosity());
  else
    out = std::string("E: ") + e.what() + "\n";
  if (auto* me = dynamic_cast<const MADError*>(&e)) {
    std::string hint = no_reply_hint(*me);
    if (!hint.empty()) out += "E: " + hint + "\n";
  }
  return out;
}

int report(const std::exception& e) {
  log::text(log::Level::error, report_text(e));
  return exit_status(e);
}

void ref_fail(const std::exception& e, std::string msg) {
  std::fflush(stdout);
  report(e);
  throw RefFail{std::move(msg)};
}

}  // namespace ibcore
