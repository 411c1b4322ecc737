// The OpenFabrics vendor commands' shared options: ibping's and ibsysstat's
// -o OUI and how their clients address the destination.  What the servers
// answer and how a reply is read: core/rpc/ofavendor.h.
#pragma once

#include <cstdint>
#include <string>

#include "cmd/common.h"
#include "cmd/target.h"
#include "core/base/error.h"
#include "core/out/log.h"
#include "core/rpc/ofavendor.h"
#include "core/rpc/rpc.h"
#include "iba/vendor.h"

namespace ibtool::ofa {

// The -o OUI (default the OFA one).  A bad one ends with "E: bad OUI <s>"
// and status 2.
inline uint32_t parse_oui(const std::string& s) {
  uint64_t v = iba::OFA_OUI;
  if (!s.empty() && (!ibtool::parse_int(s, v) || v > 0xffffff)) throw ibtool::ExitFail{2, "bad OUI " + s};
  return uint32_t(v);
}

// How the clients' reference tools fail on their destination: a LID is sent
// to as given even when the SA has no PathRecord for it (ibping counts the
// lost pings, ibsysstat times out, as the reference's do); a GUID needs its
// PathRecord ("can't resolve destination port" with our E: lines first); a
// port that cannot be opened ends with our E: lines and 255.
inline constexpr ibtool::TargetStyle CLIENT_TARGET{.iberror_on_open = false,
                                                    .direct = ibtool::TargetStyle::Direct::Lid};

}  // namespace ibtool::ofa
