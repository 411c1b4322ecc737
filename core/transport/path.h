// Paths (python-rdma's model, seeds/001): an IBPath is the full description
// of the packet headers between two end ports; a DR path additionally holds
// the directed route of an SMP.  One type holds both: a path is directed
// route when drPath is not empty (IBDRPath is a convenience constructor).
//
//   ibcore::IBPath p = ibcore::IBPath::from_string("0,1,4");   // DR
//   ibcore::IBPath q = ibcore::IBPath::from_string("12");      // LID 12
//   q.repr() == "IBPath(DLID=12)";  from_string(q.repr()) == q
//
// Convention (seeds/001): a path describes the headers on the wire as sent
// (or as received): SLID/SGID are the sender's.  reverse() swaps ends.
#pragma once

#include <algorithm>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iba/struct.h"

namespace ibcore {
class JsonOut;
}

namespace ibcore {

constexpr uint16_t LID_PERMISSIVE = 0xffff;
constexpr uint64_t DEFAULT_SUBNET_PREFIX = 0xfe80000000000000ull;
constexpr uint32_t GSI_QKEY = 0x80010000;  // QP1's well-known Q_Key

struct IBPath {
  // The local end port to use: device name and port number (empty/0 = the
  // default end port, see core/transport/devices.h get_end_port).
  std::string ca;
  int port = 0;

  // LRH
  uint16_t SLID = 0;
  uint16_t DLID = 0;
  uint8_t SL = 0;
  // BTH / DETH
  uint16_t pkey = 0xffff;
  // P_Key table index the MAD is sent with.  GMPs without one use the end
  // port's (-Y: PortSettings::pkey_index); SMPs always go with index 0.  A received MAD's
  // path has the request's, so a reply goes back with it.
  std::optional<uint16_t> pkey_index;
  uint32_t qkey = 0;         // 0 = the class default (QP0: 0, QP1: GSI_QKEY)
  uint32_t dqpn = 0;         // 0 for SMPs; GMPs go to 1 unless redirected
  uint32_t sqpn = 0;
  // GRH
  bool has_grh = false;
  iba::Gid SGID;
  iba::Gid DGID;
  uint8_t traffic_class = 0;
  uint32_t flow_label = 0;
  uint8_t hop_limit = 0;
  // Path properties (IBA encodings; 0 = unknown)
  uint8_t MTU = 0;
  uint8_t rate = 0;
  std::optional<uint8_t> packet_life_time;  // IBA exponent: 4.096us * 2^v
  std::optional<uint8_t> resp_time;         // RespTimeValue of the target
  std::optional<int> retries;               // MAD resends; unset = the port's (--retries)
  std::optional<uint64_t> mkey;             // SMP M_Key
  std::optional<uint64_t> smkey;            // SA SM_Key
  // Connected QPs (core/transport/verbs qp_transition): the first packet sequence
  // numbers each way (24 bits; sqpsn is what this end sends first), the
  // RNR NAK timer this end asks for (IBA 5-bit encoding), and the RDMA
  // READ / atomic limits: srdatomic this end may have outstanding,
  // drdatomic it accepts from the other end.  0 = unset (verbs picks).
  uint32_t sqpsn = 0;
  uint32_t dqpsn = 0;
  uint8_t min_rnr_timer = 0;
  uint8_t srdatomic = 0;
  uint8_t drdatomic = 0;
  // Directed route (SMPFormatDirected).  drPath[0] is always 0 (the local
  // port); hopCount = drPath.size() - 1.  Empty = not directed route.
  std::vector<uint8_t> drPath;
  uint16_t drSLID = LID_PERMISSIVE;
  uint16_t drDLID = LID_PERMISSIVE;
  // A try of a route form that may not work here (issue 38: the first
  // hybrid probes of a walk; simulators drop them): its loss says nothing
  // of a full queue, so the MAD engine's flow control does not count it as
  // a loss (it still counts against the caps while in flight: where the
  // route form works, the queues it reaches are real).
  bool route_trial = false;
  // A MAD whose answer helps only while its sender still runs (the walk's
  // read of the SA's LIDs, Walk::sa_lids): MadEngine::abandon_trials
  // fails it with the trials, so the run does not wait for it.
  bool until_done = false;
  // A MAD whose answer starts more work (the discovery walk's probes, a
  // switch's PortInfo 0, a route form's trial): with
  // FlowLimits::urgent_first the MAD engine puts it ahead of the MADs
  // waiting for the same cap or for the window (MadLine::push_urgent),
  // behind earlier urgent ones, and no MAD that would count where it
  // waits goes before it (FlowControl::blocker).
  bool urgent = false;
  // A discovery probe (NodeInfo through a port) the walk sends in its
  // turn, not first (DiscoveryOptions::leads_first): still, while it is
  // out, nodes keep room for a probe as they do for urgent MADs
  // (FlowLimits::probe_room).
  bool probe = false;

  bool is_dr() const { return !drPath.empty(); }
  unsigned hop_count() const { return drPath.empty() ? 0 : unsigned(drPath.size() - 1); }
  // A directed route whose first part is LID-routed (IBA 14.2.2): DrSLID
  // set, the LRH's DLID the node where the directed part begins.
  bool lid_head() const { return is_dr() && drSLID != LID_PERMISSIVE && DLID && DLID != LID_PERMISSIVE; }
  // The SMI forwarding visits a directed-route SMP makes: 2 at each switch
  // its directed part passes (out and back), 2 more at the node where a
  // LID-routed first part hands it to the directed part; 0 for a LID route.
  unsigned smi_forwards() const {
    const unsigned h = hop_count();
    return !is_dr() ? 0 : lid_head() ? 2 * h : h ? 2 * (h - 1) : 0;
  }

  // The MAD timeout (one try) in milliseconds: given_ms when > 0 (-t),
  // else 2 * packet lifetime + the response time when known, else 1000 ms.
  int mad_timeout_ms(int given_ms = 0) const;
  // How many times a MAD is resent after a timeout: the path's own count,
  // else port_retries (--retries).
  int mad_retries(int port_retries) const;

  // Reverse in place (IBA 13.5.4): swap SLID/DLID, SGID/DGID, QPNs; DR paths
  // reverse the hop list.  for_reply: hop_limit 255 (a reply MAD's path).
  IBPath& reverse(bool for_reply = false);

  // A string from_string() turns back into an equal path:
  // "IBPath(DLID=12,SL=2,pkey=0x7fff)" or "IBDRPath(drPath=0:1:4)".
  std::string repr() const;
  // What a user reads in messages: "lid 12", "DR path 0,1,4", "GID fe80::1",
  // "DR path 0,1,4 (slid 1 dlid 3)" for a combined route.
  std::string describe() const;
  // The DR route as the user writes it: "0,1,4" ("0," for the local port
  // is shown as "0").
  std::string dr_string() const;
  // The path as the "destination" object of a --json document, its keys
  // the IBA's: {"LID": 12}, {"DRPath": [0,1,4]} (with "drSLID"/"drDLID"
  // for a combined route, "LID" when the LRH has one), {"GID": "fe80::1"};
  // {} for the local port.  A LID is a number, a route an array.
  void json(ibcore::JsonOut& j) const;
  // The directed route alone as a JSON array value ([0,1,4]: "DRPath").
  void json_dr(ibcore::JsonOut& j) const;

  bool operator==(const IBPath&) const = default;

  // How to read an ambiguous argument (the legacy -L/-G/-D flags).
  enum class Form { Auto, LID, GUID, DR };
  // Parse any SPEC.md addressing form (see the table there).  With a forced
  // form a mismatching argument is an error.  Throws ibcore::Error with a
  // message naming the string on malformed input.
  static IBPath from_string(std::string_view s, Form form = Form::Auto);
};

// A directed route path to the given hops (drPath = 0 followed by hops).
struct IBDRPath : IBPath {
  IBDRPath() { drPath = {0}; }
  explicit IBDRPath(const std::vector<uint8_t>& hops) {
    // Sized once, then filled: avoids a growing insert (and GCC 12's false
    // -Warray-bounds on it).
    drPath.assign(hops.size() + 1, 0);
    std::copy(hops.begin(), hops.end(), drPath.begin() + 1);
  }
};

// Parse "0,1,4" / "0," / "0" (the leading 0 is the local port) into drPath
// form {0,1,4}.  nullopt when malformed.
std::optional<std::vector<uint8_t>> parse_dr_path(std::string_view s);

// Timeout in milliseconds for an IBA time exponent (4.096 us * 2^v).
double iba_time_ms(unsigned exponent);
// How long a reply may take (IBA 13.4.6.2): the responder's time
// (RespTimeValue) plus the packet's lifetime each way (PacketLifeTime,
// SubnetTimeOut), all IBA time exponents; in milliseconds, unclamped.
double iba_reply_bound_ms(unsigned resp_time, unsigned packet_life);

}  // namespace ibcore
