#include "core/mad/trace.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <vector>

#include "core/base/config.h"
#include "core/rpc/rpc.h"
#include "iba/introspect.h"
#include "iba/mad.h"
#include "core/out/log.h"

namespace ibcore {

std::string dump_mad(const uint8_t* mad, size_t len) {
  if (len < iba::MADHeader::SIZE) return "(short MAD of " + std::to_string(len) + " bytes)\n";
  const iba::ClassDesc* c = iba::find_class(uint8_t(iba::MADHeader::mgmtClass_at(mad)), uint8_t(iba::MADHeader::classVersion_at(mad)));
  std::vector<uint8_t> buf(mad, mad + len);
  if (!c) {
    buf.resize(iba::MADHeader::SIZE);
    return iba::dump_detailed(iba::MADHeader::DESC, buf.data()) + "payload " +
           iba::hex_bytes(std::span<const uint8_t>(mad + iba::MADHeader::SIZE, len - iba::MADHeader::SIZE)) + "\n";
  }
  buf.resize(std::max<size_t>(buf.size(), c->format->size));
  std::string s = iba::dump_detailed(*c->format, buf.data());
  if (const iba::AttrDesc* a = iba::find_attr(*c, uint16_t(iba::MADHeader::attributeID_at(buf.data())))) {
    s += "+ " + std::string(a->desc->name) + "\n";
    if (c->data_off + a->desc->size <= buf.size())
      s += iba::dump_detailed(*a->desc, buf.data() + c->data_off, c->data_off, 1);
  }
  return s;
}

void trace_send(const PendingMad& p, const Config& s) {
  if (s.debug < 2) return;
  uint8_t cls = p.req_len >= iba::MADHeader::SIZE ? uint8_t(iba::MADHeader::mgmtClass_at(p.req.data())) : 0;
  ibcore::log::debug("D: send %s to %s pkey_index %u\n%s", describe_mad(p.req.data(), p.req_len).c_str(),
               p.path->describe().c_str(), unsigned(pkey_index_of(*p.path, cls, s.pkey_index)),
               dump_mad(p.req.data(), p.req_len).c_str());
}

void trace_server(int level, bool sent, const uint8_t* mad, size_t len, const IBPath& path, uint16_t pkey_index) {
  if (level < 1) return;
  ibcore::log::debug("D: %s %s %s %s pkey_index %u\n%s", sent ? "send" : "recv", describe_mad(mad, len).c_str(),
                     sent ? "to" : "from", path.describe().c_str(), unsigned(pkey_index),
                     level >= 2 ? dump_mad(mad, len).c_str() : "");
}

void trace_done(const PendingMad& p, const Config& s) {
  if (s.debug < 1) return;
  std::string result;
  if (p.error) {
    try {
      std::rethrow_exception(p.error);
    } catch (const MADTimeoutError&) {
      result = "timed out";
    } catch (const std::exception& e) {
      result = std::string("failed: ") + e.what();
    }
  } else {
    auto rep = p.reply();
    char b[48];
    uint16_t st = 0;  // a directed route SMP's without the D bit
    if (rep.size() >= iba::MADHeader::SIZE)
      st = uint16_t(iba::MADHeader::mgmtClass_at(rep.data()) == iba::mgmt::SUBN_DIRECTED_ROUTE
                        ? iba::SMPFormatDirected::status_at(rep.data())
                        : iba::MADHeader::status_at(rep.data()));
    std::snprintf(b, sizeof b, "status 0x%04x", st);
    result = b;
  }
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - p.sent_at).count();
  ibcore::log::debug("D: RPC %s to %s len %zu -> %s (%.3f ms)\n", describe_mad(p.req.data(), p.req_len).c_str(),
               p.path->describe().c_str(), p.rep_len, result.c_str(), ms);
  if (s.debug >= 2 && !p.error) {
    auto rep = p.reply();
    ibcore::log::info("%s", dump_mad(rep.data(), rep.size()).c_str());
  }
}

}  // namespace ibcore
