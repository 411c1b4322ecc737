// Opening a local end port: the factory that picks the Transport for it
// (Umad, SplitTransport or VerbsMad), above the implementations it chooses
// among (core/transport/transport.h is the interface they implement).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/transport/transport.h"

namespace ibcore {

// The transport for a local end port, as --transport says (settings.transport),
// carrying a copy of settings as its settings():
// libibumad on it (on a planarized HCA the SMI/GSI pair it belongs to:
// SMPs through one device, GMPs through the other), or GMPs over a verbs
// UD QP (core/transport/vmad.h), or (auto, the default) umad when it opens and verbs
// otherwise.  Throws SysError/Error when it cannot be opened.
std::unique_ptr<Transport> open_transport(const EndPort& ep, const PortSettings& settings);

// The decision of open_transport over two openers: umad() throws SysError
// when the umad device cannot be opened; verbs(why) gets umad's error (or
// nothing when verbs is forced) for the message an SMP agent request gets.
std::unique_ptr<Transport> choose_transport(
    TransportKind kind, const std::function<std::unique_ptr<Transport>()>& umad,
    const std::function<std::unique_ptr<Transport>(const std::string& umad_error)>& verbs);

}  // namespace ibcore
