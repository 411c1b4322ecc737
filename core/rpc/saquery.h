// SA record queries as saquery makes them (cmd/saquery): the reference's
// query names and aliases, a query record built field by field with its
// component mask, the PathRecord/MCMemberRecord selection options, and the
// GetTable that returns the records that arrived whole (the test bed's
// umad2sim has no RMPP: a longer reply is cut, and stderr says so).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/rpc/rpc.h"
#include "core/transport/path.h"
#include "iba/introspect.h"
#include "iba/sa.h"
#include "iba/struct.h"

namespace ibcore::saq {

using Bytes = std::vector<uint8_t>;

// A field of d by name (a logic_error when it has none: a writer's bug).
iba::FieldRef fref(const iba::StructDesc& d, const char* name);

// --- the query table ------------------------------------------------------------------

struct Query {
  const char* name;
  const char* alias;
  const char* args;
  const iba::StructDesc* desc;
  uint16_t attr;
  std::array<const char*, 3> keys;  // fields the "a/b/c" target sets, in order
};

// A query of record R: its field table and attribute ID are R's (iba/sa.h).
template <class R>
constexpr Query query(const char* name, const char* alias, const char* args, std::array<const char*, 3> keys = {}) {
  return {name, alias, args, &R::DESC, iba::attr_id<R>, keys};
}

// The reference's queries, in its order.
extern const Query QUERIES[16];


// A query by its name or alias (any case); nullptr when none is.
const Query* find_query(const std::string& s);


// "a/b/c": the numbers given (nullopt for empty parts).
std::vector<std::optional<uint64_t>> split_slash(const std::string& s);


// A query record being built: the fields set and their component mask.
struct Rec {
  const iba::StructDesc& d;
  Bytes b;
  uint64_t mask = 0;
  explicit Rec(const iba::StructDesc& desc) : d(desc), b(desc.size, 0) {}
  void set(const char* name, std::optional<uint64_t> v) {
    if (!v) return;
    auto f = fref(d, name);
    iba::set_bits(b.data(), f.bit_off, f.width(), *v);
    mask |= iba::component_mask(f);
  }
  // -M/-R/--pkt_lifetime: one byte, the selector in its top two bits
  // and the value below (as the reference takes them); sets both
  // components.
  void set_selected(const char* selector, const char* value, std::optional<uint64_t> byte) {
    if (!byte) return;
    set(selector, (*byte >> 6) & 0x3);
    set(value, *byte & 0x3f);
  }
  void set_gid(const char* name, const iba::Gid& g) {
    auto f = fref(d, name);
    iba::set_gid(b.data(), f.bit_off, g);
    mask |= iba::component_mask(f);
  }
};

// The selection options of PathRecord and MCMemberRecord queries.
struct PrOpts {
  std::optional<uint64_t> slid, dlid, mlid, reversible, numb_path, pkey, qos_class, sl, mtu, rate, pkt_lifetime,
      qkey, tclass, flow_label, hop_limit, scope, join_state, proxy_join, service_id;
  std::string sgid, dgid, gid, mgid;
  std::string src_to_dst, sgid_to_dgid;  // "<src:dst>", "<sgid-dgid>"
};

// The options PathRecord and MCMemberRecord queries share, into r.
void set_common_path_fields(Rec& r, const PrOpts& o);

// The fabric's NodeRecords, read when first needed (read: every
// NodeRecord), and the lookups by them.  Failures are the reference's
// (ExitFail with its errno, after its line on stderr).
class Nodes {
public:
  explicit Nodes(std::function<std::vector<Bytes>()> read) : read_(std::move(read)) {}
  const std::vector<iba::SANodeRecord>& all();
  // A LID from a name (node description), a LID or a GUID, as the
  // reference (0 for an empty one).
  uint16_t lid(const std::string& s);
  // The node description of the node whose port GID is g ("<unknown>").
  std::string port_name(const iba::Gid& g);

private:
  std::function<std::vector<Bytes>()> read_;
  std::optional<std::vector<iba::SANodeRecord>> all_;
};

// A GID operand (ExitFail EINVAL when it is not one).
iba::Gid gid_arg(const std::string& s);
// LinkRecord selection: the ends "[lid|name]/[port]" (empty: any).
void set_link_ends(Rec& r, Nodes& nodes, const std::string& from, const std::string& to);
// PathRecord selection: --src-to-dst, --sgid-to-dgid and the options
// (positional arguments do not select paths, as in the reference).
void set_path_fields(Rec& r, Nodes& nodes, const PrOpts& o);
// MCMemberRecord selection.
void set_mcmr_fields(Rec& r, const PrOpts& o);
// The selection of q's other queries by the operands: NodeRecord a LID (or
// name, GUID), LinkRecord its ends, PathRecord the options, the rest
// "a/b/c" numbers for the query's key fields in order.
void select(Rec& r, const Query& q, const std::string& target, const std::string& target2, Nodes& nodes,
            const PrOpts& o);
// An MCMemberRecord's text: -g the group's lines, -m the member's (with its
// node's description, port()), with a MLID only its port GID and name.
std::string mc_text(const Bytes& rec, bool group, bool one_mlid, const std::function<const std::string&()>& port);

// A query's failure as the reference ends it: an SA status ("ERROR: Query
// result returned 0x..., <text>", e's lines with verbose) is EIO, a timeout
// (e's lines, "Query SA failed: ...") ETIMEDOUT; any other error is thrown
// again (call it inside the handler).
int failure_status(const MADError& e, bool verbose);

// The field=value selectors sel set in r and its mask (a bad one: the
// error on stderr, and ExitFail EINVAL).
void select(Rec& r, const std::vector<std::string>& sel);

// SubnAdmGetTable of q's record r (its mask) at sa: the records that arrived
// whole (a warning on stderr when the reply was cut).
std::vector<Bytes> get_table(MadTransactor& mad, const IBPath& sa, const Query& q, Rec& r, uint32_t amod = 0);

}  // namespace ibcore::saq
