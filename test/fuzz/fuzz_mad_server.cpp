// The ibping/ibsysstat server loop on any received MAD (any class, length,
// GRH or not): parse the request and answer it or its error, as
// cmd/ibping.cpp's server does.  (Moved here from a unit test that fed
// random bytes and could fail only by crashing.)
#include "core/rpc/server.h"
#include "iba/vendor.h"
#include "test/fuzz/fuzz_common.h"
#include "test/unit/core_fake_transport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* d, size_t n) {
  if (n < 1) return 0;
  coretest::FakeTransport t;
  ibcore::MadServer srv(t, iba::OFA_PING_CLASS, 1, iba::M_GET, iba::OFA_OUI);
  ibcore::RecvMad r;
  r.data.fill(0);
  size_t len = std::min<size_t>(n - 1, r.data.size());
  std::memcpy(r.data.data(), d + 1, len);
  r.len = len;
  r.addr.lid = 5;
  r.addr.qpn = 1;
  r.addr.grh_present = d[0] & 1;
  t.inbox.push_back(r);
  ibcore::IncomingMad in;
  if (!srv.recv(in, 0)) return 0;
  std::vector<uint8_t> payload(216, 'x');
  try {
    srv.send_reply(srv.parse_request(in), payload);
  } catch (const ibcore::MADError& e) {
    if (e.reply_status) srv.send_error_reply(in, e.reply_status);
  } catch (const ibcore::Error&) {
  }
  return 0;
}
