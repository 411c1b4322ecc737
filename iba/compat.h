// The output level of the reference layouts (SPEC.md "Today's fabrics"):
// infiniband-diags 44's, the default, or upstream rdma-core's current
// release wherever it prints something else (docs/compatibility.md).
// Chosen by `compat` in ibdiag.conf, IBTOOL_COMPAT and --compat.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace iba::ref {

enum class Compat : uint8_t {
  Diags44,  // infiniband-diags 44, byte for byte on every fabric 44 can describe
  Current,  // upstream's current release (COMPAT_CURRENT_VERSION) where it differs
};

// The upstream release `Current` stands for (the goldens of
// test/conformance/rows/compat_current name it too).
constexpr std::string_view COMPAT_CURRENT_VERSION = "rdma-core 65.0";

// The words of the setting: "44" and "current".
constexpr std::string_view COMPAT_WORDS = "44, current";
inline std::optional<Compat> parse_compat(std::string_view s) {
  if (s == "44") return Compat::Diags44;
  if (s == "current") return Compat::Current;
  return std::nullopt;
}

}  // namespace iba::ref
