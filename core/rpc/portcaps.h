// The capability masks that make a port's optional fields valid (iba/enums.h
// Validity): a port's own PortInfo masks, except on a switch's external
// ports, where the IBA reserves them (CapabilityMask 0) and the switch's
// port 0 speaks for them.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/rpc/satransactor.h"
#include "iba/introspect.h"
#include "iba/smp.h"

namespace ibcore {

// pi's masks as capabilities; nothing known when its CapabilityMask is 0.
iba::Capabilities capabilities_of(const iba::SMPPortInfo& pi);

// The PortInfo of port 0 of the node at path (amod's high bit for the
// extended form); nullopt when the read fails.  One SMP: for a node known
// to be a switch, whose port 0's masks apply to all its ports.
std::optional<iba::SMPPortInfo> port0_of(SmpSource& src, const IBPath& path, bool extended);
// The same after asking whether the node is a switch at all (nullopt when
// not).  Two SMPs (NodeInfo, PortInfo).
std::optional<iba::SMPPortInfo> switch_port0(SmpSource& src, const IBPath& path, bool extended);

// The capabilities for port `port`'s PortInfo pi: its own masks, or, on a
// switch's external port (pi's mask 0), port 0's (switch_port0; read only
// in that case).
iba::Capabilities port_capabilities(SmpSource& src, const IBPath& path, unsigned port, const iba::SMPPortInfo& pi,
                                    bool extended);

// For a table of SA records of type desc (their wire images), what each
// one's optional fields are valid by beyond its own bytes: in a table of
// PortInfoRecords a switch's external port takes its port 0's record's
// masks, when the table holds it; nothing known otherwise.
std::vector<iba::Capabilities> record_capabilities(const iba::StructDesc& desc,
                                                   const std::vector<std::vector<uint8_t>>& records);

}  // namespace ibcore
