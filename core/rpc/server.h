// The server side of MAD RPC (ibping and ibsysstat servers): register for a
// class, receive requests, answer them.
//
//   ibcore::Umad umad(ep.ca, ep.port);
//   ibcore::MadServer srv(umad, iba::mgmt::OFA_VENDOR, 1, iba::M_GET, 0x001405);
//   for (;;) {
//     ibcore::IncomingMad in;
//     if (!srv.recv(in, -1)) continue;
//     try {
//       auto req = srv.parse_request(in);           // checks class/method/attr
//       srv.send_reply(req, my_payload_bytes);
//     } catch (const ibcore::MADError& e) {
//       ibcore::log::text(ibcore::log::Level::error, e.dump_str(1));
//       srv.send_error_reply(in, e.reply_status);   // generic status code
//     }
//   }
#pragma once

#include <cstdint>
#include <span>

#include "core/base/error.h"
#include "core/transport/path.h"
#include "core/transport/transport.h"
#include "iba/mad.h"

namespace ibcore {

// MAD status values for error replies (IBA 13.4.7, bits 2..4).
namespace mad_status {
constexpr uint16_t BAD_VERSION = 1 << 2;
constexpr uint16_t UNSUP_METHOD = 2 << 2;
constexpr uint16_t UNSUP_METHOD_ATTR = 3 << 2;
constexpr uint16_t INVALID_FIELD = 7 << 2;
}  // namespace mad_status

struct IncomingMad {
  RecvMad raw;
};

// A parsed request: where it came from (reply path ready to use), its class
// and attribute descriptions and the payload.
struct ParsedRequest {
  const IncomingMad* in = nullptr;
  IBPath reply_path;                       // the received path reversed for the reply
  const iba::ClassDesc* cls = nullptr;
  const iba::AttrDesc* attr = nullptr;     // null when the class has no such attribute
  uint8_t method = 0;
  uint16_t attr_id = 0;
  uint32_t amod = 0;
  std::span<const uint8_t> payload;
};

class MadServer {
public:
  // Register for requests of (mgmt_class, class_version) whose method bit is
  // in method_mask (iba::M_GET | ...); oui for vendor classes 0x30-0x4f.
  MadServer(Transport& t, uint8_t mgmt_class, uint8_t class_version, uint32_t method_mask, uint32_t oui = 0);

  // Wait up to timeout_ms (-1 forever) for the next request.  Replies and
  // send completions that are not requests are skipped.
  bool recv(IncomingMad& out, int timeout_ms);

  // Decode a request.  Throws MADError with reply_status set (and the
  // request attached) when the version, method or attribute is not
  // supported, so the caller can answer with send_error_reply().  A MAD of
  // another class (or another OUI) throws with reply_status 0: drop it.
  ParsedRequest parse_request(const IncomingMad& in) const;

  // Answer req: the request MAD turned into its response method with the
  // payload placed at the class's data offset and the given status.
  void send_reply(const ParsedRequest& req, std::span<const uint8_t> payload, uint16_t status = 0);
  // Answer with the whole request echoed back and an error status.
  void send_error_reply(const IncomingMad& in, uint16_t status);

  int agent() const { return agent_; }
  // -d level for tracing what the server receives and sends (core/mad/trace.h).
  void set_trace(int level) { trace_ = level; }

private:
  void send_response(const uint8_t* req, std::span<const uint8_t> payload, size_t data_off, uint16_t status,
                     const IBPath& path);
  Transport& t_;
  int agent_;
  uint8_t class_, version_;
  uint32_t oui_;
  int trace_ = 0;
};

}  // namespace ibcore
