// Replies as the RPC layer receives them: status checks and attribute
// decoding of SMP/SA/PM/CC/vendor replies, SA GetTable replies with any
// record count and attribute offset (decoded as records), and RMPP
// segments reassembled (the first byte says how many segments the rest is
// cut into).
#include <cstring>
#include <vector>

#include "core/rpc/rpc.h"
#include "iba/cc.h"
#include "iba/pm.h"
#include "iba/sa.h"
#include "iba/smp.h"
#include "iba/vendor.h"
#include "test/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* d, size_t n) {
  auto msg = fuzz::bytes(d, n);
  fuzz::guarded([&] {
    ibcore::PendingMad p;
    p.req_len = std::min<size_t>(n, p.req.size());
    std::memcpy(p.req.data(), d, p.req_len);
    if (n <= p.rep.size()) {
      std::memcpy(p.rep.data(), d, n);
      p.rep_len = n;
    } else {
      p.rep_big.assign(d, d + n);
    }
    auto rep = ibcore::check_reply(p);
    (void)ibcore::decode_reply<iba::SMPNodeInfo>(rep);
    (void)ibcore::decode_reply<iba::SMPPortInfo>(rep);
    (void)ibcore::decode_reply<iba::PMPortCounters>(rep);
    (void)ibcore::decode_reply<iba::SAPathRecord>(rep);
  });
  fuzz::guarded([&] {
    auto t = ibcore::decode_table<iba::SANodeRecord>(msg);
    auto u = ibcore::decode_table<iba::SAPathRecord>(msg);
    (void)t;
    (void)u;
  });
  fuzz::guarded([&] {
    if (n < 1) return;
    size_t nseg = d[0] % 8 + 1, rest = n - 1, each = rest / nseg;
    std::vector<std::span<const uint8_t>> segs;
    for (size_t i = 0; i < nseg; ++i) segs.push_back(msg.subspan(1 + i * each, i + 1 == nseg ? rest - i * each : each));
    auto r = ibcore::rmpp_reassemble(segs);
    (void)ibcore::sa_split_records(r.mad);
  });
  return 0;
}
