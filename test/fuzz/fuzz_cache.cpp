// Both subnet cache formats (ibtool's and infiniband-diags'), as loaded by
// --load-cache / --cache: whatever decodes must also re-encode and print.
#include "core/fabric/netcache.h"
#include "test/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* d, size_t n) {
  fuzz::guarded([&] {
    ibcore::Subnet db = ibcore::decode_cache(fuzz::bytes(d, n), "fuzz");
    (void)ibcore::encode_cache(db, ibcore::CacheFormat::Ibtool);
    (void)ibcore::encode_cache(db, ibcore::CacheFormat::Reference);
    for (uint32_t i = 0; i < db.node_count(); ++i) {
      (void)db.ref_dr_string(i);
      (void)db.ref_node_info(db.node(i));  // the view the file brought
    }
    for (uint32_t p = 0; p < db.port_slots(); ++p) (void)db.ref_port_info(db.port(p));
  });
  return 0;
}
