// decode_mad's input: a MAD as raw bytes (identify, summarize, decode in
// full) and as the text forms decode_mad reads (hex, dumps).
#include "iba/decode.h"
#include "test/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* d, size_t n) {
  auto mad = fuzz::bytes(d, n);
  fuzz::guarded([&] {
    (void)iba::identify_mad(mad);
    (void)iba::mad_summary(mad);
    (void)iba::decode_mad(mad);
  });
  fuzz::guarded([&] {
    std::string err;
    if (auto parsed = iba::parse_mad_text(fuzz::text(d, n), &err)) (void)iba::decode_mad(*parsed);
  });
  return 0;
}
