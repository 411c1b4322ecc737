#include "core/rpc/portcaps.h"

#include "core/base/error.h"

namespace ibcore {

iba::Capabilities capabilities_of(const iba::SMPPortInfo& pi) {
  iba::Capabilities caps;
  if (pi.capabilityMask()) {
    caps.port_cap = uint32_t(pi.capabilityMask());
    caps.port_cap2 = uint32_t(pi.capabilityMask2());
  }
  return caps;
}

std::optional<iba::SMPPortInfo> switch_port0(SmpSource& src, const IBPath& path, bool extended) {
  try {
    if (src.SubnGet<iba::SMPNodeInfo>(path, 0).nodeType() != 2) return std::nullopt;
    return src.SubnGet<iba::SMPPortInfo>(path, extended ? 0x80000000u : 0);
  } catch (const MADError&) {
    return std::nullopt;
  }
}

iba::Capabilities port_capabilities(SmpSource& src, const IBPath& path, unsigned port, const iba::SMPPortInfo& pi,
                                    bool extended) {
  if (port == 0 || pi.capabilityMask() != 0) return capabilities_of(pi);
  auto p0 = switch_port0(src, path, extended);
  return p0 ? capabilities_of(*p0) : iba::Capabilities{};
}

}  // namespace ibcore
