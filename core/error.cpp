#include "core/error.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "core/config.h"
#include "core/log.h"
#include "core/trace.h"
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
      indent_lines(out, dump_mad(req.data(), req.size()), "E:     ");
    }
    if (!rep.empty()) {
      out += "E:   reply MAD:\n";
      indent_lines(out, dump_mad(rep.data(), rep.size()), "E:     ");
    }
  }
  return out;
}

int exit_status(const std::exception&) {
  // The reference tools leave through IBEXIT/exit(-1) for every runtime
  // failure (timeouts, error replies, bad destinations).
  return 255;
}

int report(const std::exception& e) {
  if (auto* me = dynamic_cast<const Error*>(&e))
    log::text(log::Level::error, me->dump_str(config().verbose));
  else
    log::error("E: %s\n", e.what());
  return exit_status(e);
}

}  // namespace ibcore
