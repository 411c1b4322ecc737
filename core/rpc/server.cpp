#include "core/rpc/server.h"

#include <array>
#include <cstring>

#include "core/rpc/rpc.h"
#include "core/mad/trace.h"
#include "iba/introspect.h"
#include "iba/vendor.h"

namespace ibcore {

namespace {
// A vendor MAD long enough to carry its OUI (the byte after the field).
constexpr size_t kOuiEnd = (iba::field_bits<iba::VendOUIFormat>("OUI").off + iba::field_bits<iba::VendOUIFormat>("OUI").width) / 8;
}  // namespace

MadServer::MadServer(Transport& t, uint8_t mgmt_class, uint8_t class_version, uint32_t method_mask, uint32_t oui)
    : t_(t), class_(mgmt_class), version_(class_version), oui_(oui) {
  agent_ = t_.server_agent(mgmt_class, class_version, method_mask, oui);
}

bool MadServer::recv(IncomingMad& out, int timeout_ms) {
  auto t0 = Clock::now();
  for (;;) {
    int left = timeout_ms;
    if (timeout_ms > 0) {
      auto el = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
      if (el >= timeout_ms) return false;
      left = int(timeout_ms - el);
    }
    if (!t_.recv(out.raw, left)) {
      if (timeout_ms >= 0) return false;
      continue;
    }
    const auto& r = out.raw;
    if (r.status != 0 || r.len < iba::MADHeader::SIZE) continue;
    if (r.data[3] & iba::method::RESPONSE) continue;  // not a request
    if (trace_) {
      IBPath from = r.addr.to_path();
      from.reverse(true);
      trace_server(trace_, false, {r.data.data(), r.len}, from.describe(), r.addr.pkey_index);
    }
    return true;
  }
}

ParsedRequest MadServer::parse_request(const IncomingMad& in) const {
  ParsedRequest p;
  p.in = &in;
  const uint8_t* m = in.raw.data.data();
  p.method = uint8_t(iba::MADHeader::method_at(m));
  p.attr_id = uint16_t(iba::MADHeader::attributeID_at(m));
  p.amod = uint32_t(iba::MADHeader::attributeModifier_at(m));
  p.reply_path = in.raw.addr.to_path();
  p.reply_path.reverse(true);
  if (!p.reply_path.qkey) p.reply_path.qkey = GSI_QKEY;
  auto fail = [&](uint16_t st, const std::string& why) {
    MADError e(why + " in request " + describe_mad(m, in.raw.len));
    e.req.assign(m, m + in.raw.len);
    e.reply_status = st;
    e.path = p.reply_path.repr();
    throw e;
  };
  // Not ours: another class, or another vendor's OUI on a vendor class
  // (when the port is the node's SM client, the simulator hands it every
  // MAD nobody else takes, SMPs included).  Dropped, never answered: an
  // answer in our class's format would be garbage to its sender.
  const unsigned cls = unsigned(iba::MADHeader::mgmtClass_at(m)), ver = unsigned(iba::MADHeader::classVersion_at(m));
  const unsigned base = unsigned(iba::MADHeader::baseVersion_at(m));
  if (cls != class_) fail(0, "Not a request of class " + std::to_string(class_));
  if (iba::mgmt::vendor_oui(class_) && in.raw.len >= kOuiEnd) {
    uint32_t oui = uint32_t(iba::VendOUIFormat::OUI_at(m));
    if (oui != oui_) fail(0, "Request for OUI " + std::to_string(oui));
  }
  if (base != 1) fail(mad_status::BAD_VERSION, "Unsupported base version " + std::to_string(base));
  if (ver != version_) fail(mad_status::BAD_VERSION, "Unsupported class version " + std::to_string(ver));
  p.cls = iba::find_class(uint8_t(cls), uint8_t(ver));
  if (!p.cls) fail(mad_status::BAD_VERSION, "Unsupported class version");
  p.attr = iba::find_attr(*p.cls, p.attr_id);
  if (!p.attr) fail(mad_status::UNSUP_METHOD_ATTR, "Unsupported attribute ID " + std::to_string(p.attr_id));
  if (!(p.attr->methods & iba::mbit(p.method)))
    fail(mad_status::UNSUP_METHOD_ATTR, "Unsupported method " + std::to_string(p.method));
  if (p.cls->data_off < in.raw.len) p.payload = std::span<const uint8_t>(m + p.cls->data_off, in.raw.len - p.cls->data_off);
  return p;
}

void MadServer::send_response(const uint8_t* req, std::span<const uint8_t> payload, size_t data_off,
                              uint16_t status, const IBPath& path) {
  std::array<uint8_t, iba::MAD_SIZE> m;
  std::memcpy(m.data(), req, iba::MAD_SIZE);
  auto meth = uint8_t(iba::MADHeader::method_at(m.data()));
  iba::MADHeader::set_method_at(m.data(),
                                meth == iba::method::SET ? uint8_t(iba::method::GET_RESP) : uint8_t(meth | iba::method::RESPONSE));
  iba::MADHeader::set_status_at(m.data(), status);
  if (!payload.empty() && data_off < iba::MAD_SIZE) {
    std::memset(m.data() + data_off, 0, iba::MAD_SIZE - data_off);
    std::memcpy(m.data() + data_off, payload.data(), std::min(payload.size(), iba::MAD_SIZE - data_off));
  }
  if (trace_) {
    auto cls = uint8_t(iba::MADHeader::mgmtClass_at(m.data()));
    trace_server(trace_, true, m, path.describe(), pkey_index_of(path, cls, t_.settings().pkey_index));
  }
  t_.send(agent_, m.data(), m.size(), path, 0);
}

void MadServer::send_reply(const ParsedRequest& req, std::span<const uint8_t> payload, uint16_t status) {
  send_response(req.in->raw.data.data(), payload, req.cls ? req.cls->data_off : iba::MADHeader::SIZE, status,
                req.reply_path);
}

void MadServer::send_error_reply(const IncomingMad& in, uint16_t status) {
  IBPath p = in.raw.addr.to_path();
  p.reverse(true);
  if (!p.qkey) p.qkey = GSI_QKEY;
  send_response(in.raw.data.data(), {}, iba::MAD_SIZE, status ? status : mad_status::INVALID_FIELD, p);
}

}  // namespace ibcore
