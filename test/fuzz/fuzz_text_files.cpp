// The text files the commands read: node-name-map, error thresholds,
// ibnetdiscover topology files (ibhosts and friends, baselines), ibdiag.conf.  The first
// byte picks the reader, the rest is the file.
#include "core/health/baseline.h"
#include "core/base/config.h"
#include "core/health/counters.h"
#include "core/fabric/nodemap.h"
#include "test/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* d, size_t n) {
  if (n < 1) return 0;
  std::string_view t = fuzz::text(d + 1, n - 1);
  fuzz::guarded([&] {
    switch (d[0] % 4) {
      case 0: {
        ibcore::NodeNameMap m;
        std::string bad;
        m.parse(t, &bad);
        (void)m.remap(0x1234, t.substr(0, 64));
        break;
      }
      case 1: {
        ibcore::health::Thresholds th;
        th.parse(t);
        break;
      }
      case 2:
        (void)ibcore::health::parse_topology(t);
        break;
      case 3: {
        ibcore::Config c;
        ibcore::parse_ibdiag_conf(t, c);
        break;
      }
    }
  });
  return 0;
}
