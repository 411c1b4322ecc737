// The capability masks that make a port's optional fields valid (iba/enums.h
// Validity): a port's own PortInfo masks, except on a switch's external
// ports, where the IBA reserves them (CapabilityMask 0) and the switch's
// port 0 speaks for them.
#pragma once

#include <optional>

#include "core/rpc/satransactor.h"
#include "iba/introspect.h"
#include "iba/smp.h"

namespace ibcore {

// pi's masks as capabilities; nothing known when its CapabilityMask is 0.
iba::Capabilities capabilities_of(const iba::SMPPortInfo& pi);

// The PortInfo of port 0 of the switch at path (amod's high bit for the
// extended form), whose masks apply to all its ports; nullopt when the
// node is not a switch or a read fails.  Two SMPs (NodeInfo, PortInfo).
std::optional<iba::SMPPortInfo> switch_port0(SmpSource& src, const IBPath& path, bool extended);

// The capabilities for port `port`'s PortInfo pi: its own masks, or, on a
// switch's external port (pi's mask 0), port 0's (switch_port0; read only
// in that case).
iba::Capabilities port_capabilities(SmpSource& src, const IBPath& path, unsigned port, const iba::SMPPortInfo& pi,
                                    bool extended);

}  // namespace ibcore
