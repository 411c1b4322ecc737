// late_reply (under umad2sim): a reply that arrives after its port was
// given up must not take the process down.  It sends one NodeInfo to the
// local node, destroys the Umad without reading the answer (~Umad reads
// it, due within the send's timeout; a port whose answers are past their
// timeout is kept open instead), waits for the answer to have arrived,
// then opens the port again and reads NodeInfo through the new one.
// Prints "ok" and exits 0; a crash (umad2sim's receiver finding no agent
// for the reply's class) fails the test
// testbed_tests Fabric.ALateReplyAfterThePortIsGivenUp.
#include <chrono>
#include <cstdio>
#include <thread>

#include "core/base/error.h"
#include "core/rpc/madbuild.h"
#include "core/rpc/rpc.h"
#include "core/transport/umad.h"
#include "iba/mad.h"
#include "iba/smp.h"

using namespace ibcore;

namespace {

void send_nodeinfo(Umad& u, uint64_t tid) {
  MadRequest r = make_request<iba::SMPNodeInfo>(iba::mgmt::SUBN_LID_ROUTED, iba::mgmt::SUBN_LID_ROUTED,
                                                iba::method::GET, nullptr, 0);
  IBDRPath p;  // the local node
  std::array<uint8_t, 256> m{};
  size_t n = build_mad(m.data(), r, p, tid);
  u.send(u.client_agent(iba::mgmt::SUBN_DIRECTED_ROUTE, 1), m.data(), n, p, 0);
}

}  // namespace

int main() {
  try {
    {
      Umad first;
      send_nodeinfo(first, 0x1001);
    }  // given up with its answer still to come
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    Umad second;
    send_nodeinfo(second, 0x2002);
    RecvMad got;
    for (int i = 0; i < 50; ++i) {
      if (!second.recv(got, 100)) continue;
      // (the first port's answer may come here too: only ours counts)
      if (got.len >= iba::MADHeader::SIZE && uint32_t(iba::MADHeader::transactionID_at(got.data.data())) == 0x2002) {
        std::printf("ok\n");
        return 0;
      }
    }
    std::fprintf(stderr, "late_reply: no answer to the second NodeInfo\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "late_reply: %s\n", e.what());
    return 1;
  }
}
