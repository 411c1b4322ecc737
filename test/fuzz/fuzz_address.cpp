// Every addressing form of SPEC.md §Addressing (LIDs, GUIDs, GIDs with
// scope, DR paths, path specs), parsed with each forced form, as a target
// argument and as a combined route (the input split at its first newline).
#include "core/transport/path.h"
#include "core/rpc/target.h"
#include "test/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* d, size_t n) {
  std::string_view s = fuzz::text(d, n);
  using F = ibcore::IBPath::Form;
  for (F f : {F::Auto, F::LID, F::GUID, F::DR}) {
    fuzz::guarded([&] {
      ibcore::IBPath p = ibcore::IBPath::from_string(s, f);
      (void)p.describe();
      (void)p.repr();
    });
    fuzz::guarded([&] {
      ibcore::TargetForm tf;
      tf.form = f;
      (void)ibcore::parse_target(s, tf);
    });
  }
  fuzz::guarded([&] { (void)ibcore::parse_dr_path(s); });
  fuzz::guarded([&] {
    size_t nl = s.find('\n');
    if (nl == std::string_view::npos) return;
    ibcore::TargetForm tf;
    tf.combined = true;
    (void)ibcore::parse_target(s.substr(0, nl), tf, s.substr(nl + 1));
  });
  return 0;
}
