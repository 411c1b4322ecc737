#include "core/rpc/portcaps.h"

#include <algorithm>
#include <map>

#include "core/base/error.h"
#include "iba/sa.h"

namespace ibcore {

iba::Capabilities capabilities_of(const iba::SMPPortInfo& pi) {
  iba::Capabilities caps;
  if (pi.capabilityMask()) {
    caps.port_cap = uint32_t(pi.capabilityMask());
    caps.port_cap2 = uint32_t(pi.capabilityMask2());
  }
  return caps;
}

std::optional<iba::SMPPortInfo> port0_of(SmpSource& src, const IBPath& path, bool extended) {
  try {
    return src.SubnGet<iba::SMPPortInfo>(path, extended ? 0x80000000u : 0);
  } catch (const MADError&) {
    return std::nullopt;
  }
}

std::optional<iba::SMPPortInfo> switch_port0(SmpSource& src, const IBPath& path, bool extended) {
  try {
    if (src.SubnGet<iba::SMPNodeInfo>(path, 0).nodeType() != 2) return std::nullopt;
  } catch (const MADError&) {
    return std::nullopt;
  }
  return port0_of(src, path, extended);
}

iba::Capabilities port_capabilities(SmpSource& src, const IBPath& path, unsigned port, const iba::SMPPortInfo& pi,
                                    bool extended) {
  if (port == 0 || pi.capabilityMask() != 0) return capabilities_of(pi);
  auto p0 = switch_port0(src, path, extended);
  return p0 ? capabilities_of(*p0) : iba::Capabilities{};
}

std::vector<iba::Capabilities> record_capabilities(const iba::StructDesc& desc,
                                                   const std::vector<std::vector<uint8_t>>& records) {
  std::vector<iba::Capabilities> caps(records.size());
  if (&desc != &iba::SAPortInfoRecord::DESC) return caps;
  auto pir = [](const std::vector<uint8_t>& x) {
    iba::SAPortInfoRecord pr;
    pr.load({x.data(), std::min(x.size(), size_t(pr.SIZE))});
    return pr;
  };
  std::map<uint64_t, iba::Capabilities> port0;  // by LID
  for (const auto& x : records)
    if (auto pr = pir(x); pr.portNum() == 0) port0[pr.endportLID()] = capabilities_of(pr.portInfo());
  for (size_t i = 0; i < records.size(); ++i) {
    auto pr = pir(records[i]);
    auto it = port0.find(pr.endportLID());
    if (pr.portNum() != 0 && it != port0.end()) caps[i] = it->second;
  }
  return caps;
}

}  // namespace ibcore
