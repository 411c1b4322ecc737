// Following the SM: where the SA is (default_sa_path) and the master SM a
// local port followed after the one it knew stopped answering
// (MadEngine::follow_sm, defined in smfollow.cpp; HACKING: "A new master
// SM, and keys").
#pragma once

#include <cstdint>
#include <optional>

#include "core/transport/path.h"
#include "core/transport/transport.h"

namespace ibcore {

// The SM LID and SL the library learned for a local port after the SM the
// port knew stopped answering (MadEngine::follow_sm): default_sa_path()
// uses them for as long as the port itself still names the old SM (a
// long-lived process whose view of the port is not refreshed, e.g.
// umad2sim's sysfs).  Process-wide, keyed by the port (local GID, else
// LID).  forget_followed_sm() drops everything (tests).
struct FollowedSm {
  uint16_t stale_lid = 0;  // what the port said when the SM was followed
  uint16_t lid = 0;
  uint8_t sl = 0;
};
std::optional<FollowedSm> followed_sm(const Transport& t);
void forget_followed_sm();

// The path to the SA: --sa-path (t.settings().sa_path: a LID, GID or path
// spec; not a DR path) when given, else the SM LID and SL the end port
// knows.  Always QP1 with the GSI Q_Key unless the path spec says
// otherwise.  Throws ibcore::Error for a bad --sa-path, MADError when the
// port knows no SM.
IBPath default_sa_path(const Transport& t);

}  // namespace ibcore
