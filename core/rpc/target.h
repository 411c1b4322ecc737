// Targets of single-destination commands (smpquery, smpdump, sminfo,
// ibaddr, ibportstate, query): the argument forms of SPEC.md §Addressing
// and the legacy -L/-G/-D/-c flags, turned into a path SMPs can be sent on.
//
//   ibcore::TargetForm f{.form = ibcore::IBPath::Form::Auto};
//   ibcore::IBPath p = ibcore::parse_target("0002:c903:0000:1491", f);
//   p = ibcore::resolve_for_smp(mad, p);        // GUID/GID -> LID via the SA
//   std::printf("# Node info: %s\n", ibcore::portid_str(p).c_str());
//
// GUIDs and GIDs are resolved to a LID with a PathRecord query to the SA
// (as the reference tools do); LIDs, DR paths and combined routes are used
// as given.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/transport/path.h"
#include "core/rpc/rpc.h"

namespace ibcore {

struct TargetForm {
  IBPath::Form form = IBPath::Form::Auto;  // -L / -G / -D force a form
  // -c: a combined route, the LID of the node to start from followed by a
  // DR path from it (two arguments).
  bool combined = false;
};

// Parse a target argument.  For a combined route dr is the second argument.
// Throws ibcore::Error naming the argument when it is malformed or does not
// match the forced form.
IBPath parse_target(std::string_view arg, const TargetForm& f, std::string_view dr = {});

// The path to the SA: sm_lid when not 0 (the reference's -s), else
// mad.sa_path() (--sa-path when set, else the SM LID the port knows).
IBPath sa_path_for(MadTransactor& mad, uint16_t sm_lid = 0);

// Resolve a GUID/GID target to LID-routed form (PathRecord from the SA).
// Other paths come back unchanged.  MADError (annotated "Failed getting
// path record for end port <gid>.") when the SA does not know the port.
IBPath resolve_for_smp(MadTransactor& mad, const IBPath& p, uint16_t sm_lid = 0);

// The full path record the SA gives for a GID (DLID, SL, MTU, ...).
IBPath path_from_sa(MadTransactor& mad, const iba::Gid& dgid, uint16_t sm_lid = 0);

// After an SMP to target timed out (e; MadTransactor::call asks for every
// one when note_presence is on): whether the destination exists, recorded
// in e.target for report()'s M_Key hint.  A LID: as the SA knows it (a
// PathRecord to it, asked through the SA at sm_lid or the port's).  A
// directed route: as the node one hop before the end says (a switch
// whose port on the route is LinkUp has something there; a port not
// LinkUp, or a route through a CA, has nothing).
// Any other error, or nobody answering the question, leaves it Unknown.
void note_target_presence(MadTransactor& mad, const IBPath& target, MADError& e, uint16_t sm_lid = 0);

// What the SA says a GUID given as a destination is, for the line that tells
// how to address it: a port GUID ("for the port GUID give -G 0x..."), or a
// node GUID (its port GUIDs: -G takes port GUIDs, as the reference's
// does).  None (text empty) when the SA knows neither, or does not answer
// (asked with the short bound, and not of an SA known not to answer).
struct GuidHint {
  enum Kind { None, PortGuid, NodeGuid } kind = None;
  std::string text;
};
GuidHint guid_hint(MadTransactor& mad, uint64_t guid, uint16_t sm_lid = 0);

// The destination as libibmad's portid2str prints it in smpquery's header
// lines: "Lid 12", "DR path slid 65535; dlid 65535; 0,1,3",
// "Lid 2 DR path slid 1; dlid 65535; 0,3" (combined).
std::string portid_str(const IBPath& p);

// Our LID (for the drSLID of combined routes).
uint16_t local_lid(MadTransactor& mad);

// A directed route from the local port to the port that owns lid, found by
// walking the fabric with directed-route SMPs: each switch's
// LinearForwardingTable entry for lid gives the next hop (upstream's
// build_dr_path_to_lid, rdma-core v61).  For fabrics where LID-routed SMPs
// are not valid (a planarized HCA's: Transport::lid_routed_smps).  Throws
// Error naming the hop where the walk ends (no route, a CA in the way,
// more than 63 hops) and MADError when a node does not answer.
IBPath dr_path_to_lid(MadTransactor& mad, uint16_t lid);

}  // namespace ibcore
