#include "core/mad/trace.h"

#include <cstdio>

#include "core/base/error.h"
#include "core/out/log.h"
#include "iba/decode.h"
#include "iba/mad.h"

namespace ibcore {

std::string describe_mad(const uint8_t* mad, size_t len) {
  if (len < iba::MADHeader::SIZE) return "(short MAD)";
  using H = iba::MADHeader;
  uint8_t cls = uint8_t(H::mgmtClass_at(mad)), ver = uint8_t(H::classVersion_at(mad)), meth = uint8_t(H::method_at(mad));
  if (meth & iba::method::RESPONSE) meth &= uint8_t(~iba::method::RESPONSE);
  uint16_t attr = uint16_t(H::attributeID_at(mad));
  std::string s = iba::method_name(cls, meth);
  char b[64];
  const iba::ClassDesc* c = iba::find_class(cls, ver);
  if (c)
    std::snprintf(b, sizeof b, " %s(%u.%u)", c->name, cls, ver);
  else
    std::snprintf(b, sizeof b, " MADClass(%u.%u)", cls, ver);
  s += b;
  const iba::AttrDesc* a = c ? iba::find_attr(*c, attr) : nullptr;
  if (a)
    std::snprintf(b, sizeof b, " %s(%u)", a->desc->name, attr);
  else
    std::snprintf(b, sizeof b, " Attribute(%u)", attr);
  s += b;
  return s;
}

void trace_send(int level, std::span<const uint8_t> req, std::string_view path, uint16_t pkey_index) {
  if (level < 2) return;
  log::debug("D: send %s to %.*s pkey_index %u\n%s", describe_mad(req.data(), req.size()).c_str(), int(path.size()),
             path.data(), unsigned(pkey_index), iba::dump_mad(req).c_str());
}

void trace_server(int level, bool sent, std::span<const uint8_t> mad, std::string_view path, uint16_t pkey_index) {
  if (level < 1) return;
  log::debug("D: %s %s %s %.*s pkey_index %u\n%s", sent ? "send" : "recv", describe_mad(mad.data(), mad.size()).c_str(),
             sent ? "to" : "from", int(path.size()), path.data(), unsigned(pkey_index),
             level >= 2 ? iba::dump_mad(mad).c_str() : "");
}

void trace_done(int level, std::span<const uint8_t> req, std::string_view path, std::span<const uint8_t> reply,
                const std::exception_ptr& error, std::chrono::duration<double> elapsed) {
  if (level < 1) return;
  std::string result;
  if (error) {
    try {
      std::rethrow_exception(error);
    } catch (const MADTimeoutError&) {
      result = "timed out";
    } catch (const std::exception& e) {
      result = std::string("failed: ") + e.what();
    }
  } else {
    char b[48];
    uint16_t st = 0;  // a directed route SMP's without the D bit
    if (reply.size() >= iba::MADHeader::SIZE)
      st = uint16_t(iba::MADHeader::mgmtClass_at(reply.data()) == iba::mgmt::SUBN_DIRECTED_ROUTE
                        ? iba::SMPFormatDirected::status_at(reply.data())
                        : iba::MADHeader::status_at(reply.data()));
    std::snprintf(b, sizeof b, "status 0x%04x", st);
    result = b;
  }
  log::debug("D: RPC %s to %.*s len %zu -> %s (%.3f ms)\n", describe_mad(req.data(), req.size()).c_str(),
             int(path.size()), path.data(), reply.size(), result.c_str(),
             std::chrono::duration<double, std::milli>(elapsed).count());
  if (level >= 2 && !error) log::info("%s", iba::dump_mad(reply).c_str());
}

}  // namespace ibcore
