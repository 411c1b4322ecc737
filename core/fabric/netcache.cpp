#include "core/fabric/netcache.h"


#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <optional>
#include <cstring>
#include <unistd.h>

#include "core/fabric/reforder.h"
#include "core/base/textfile.h"
#include "iba/smp.h"

namespace ibcore {

namespace {

// An LMC as stored (a byte); the field is 3 bits wide, and a corrupt file
// must not make a LID range of 2^255.
uint8_t lmc_bits(uint8_t v) { return v & 7; }

// --- byte writers/readers -------------------------------------------------------------

struct Writer {
  std::vector<uint8_t> b;
  void u8(uint8_t v) { b.push_back(v); }
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(uint8_t(v >> (8 * i)));
  }
  void raw(const uint8_t* p, size_t n) { b.insert(b.end(), p, p + n); }
  void raw64(const Raw64& r) { raw(r.data(), r.size()); }
};

struct Reader {
  std::span<const uint8_t> b;
  size_t off = 0;
  const std::string& what;
  Reader(std::span<const uint8_t> bytes, const std::string& w) : b(bytes), what(w) {}

  [[noreturn]] void bad(const std::string& why) const {
    throw CacheError("Cache file " + what + " is invalid: " + why + " (at byte " + std::to_string(off) + ")");
  }
  void need(size_t n, const char* item) const {
    if (b.size() - off < n) {
      throw CacheError("Cache file " + what + " is truncated: " + std::to_string(b.size()) +
                       " bytes, ends inside " + item);
    }
  }
  uint64_t le(int n, const char* item) {
    need(size_t(n), item);
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(b[off + i]) << (8 * i);
    off += size_t(n);
    return v;
  }
  uint8_t u8(const char* item) { return uint8_t(le(1, item)); }
  void raw(uint8_t* p, size_t n, const char* item) {
    need(n, item);
    if (n) std::memcpy(p, b.data() + off, n);  // (an empty input has no data pointer)
    off += n;
  }
  void raw64(Raw64& r, const char* item) { raw(r.data(), r.size(), item); }
  size_t left() const { return b.size() - off; }
};

uint64_t fnv1a(std::span<const uint8_t> b) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t c : b) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

constexpr uint32_t REF_MAGIC = 0x8FE7832B;
constexpr uint32_t REF_VERSION = 1;
constexpr char OUR_MAGIC[8] = {'I', 'B', 'T', 'S', 'U', 'B', 'N', 'T'};
// Version 2: images as received, with the reference's view beside them
// (version 1 held the view's images in their place; still read).
constexpr uint32_t OUR_VERSION = 2;
constexpr size_t REF_NODE_LEN = 15 + 64 * 3;
constexpr size_t REF_PORT_LEN = 31 + 64;

std::string hex(uint64_t g) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%016llx", (unsigned long long)g);
  return b;
}

uint32_t hashguid(uint64_t g) { return uint32_t(uint32_t(g) * 101u) ^ uint32_t(uint32_t(g >> 32) * 103u); }

// --- the reference's format -------------------------------------------------------------

std::vector<uint8_t> encode_reference(const Subnet& db) {
  if (db.from_node == NO_INDEX) throw CacheError("Cannot write a cache: the subnet has no start node");
  Writer w;
  w.le(REF_MAGIC, 4);
  w.le(REF_VERSION, 4);
  size_t counts_at = w.b.size();
  w.le(0, 4);
  w.le(0, 4);
  const RefView& ref = db.reference();
  w.le(db.node(db.from_node).guid, 8);
  w.le(ref.max_hops, 4);
  uint32_t nnodes = 0, nports = 0;
  for (uint32_t i : db.reference_order()) {
    const Node& n = db.node(i);
    w.le(n.smalid, 2);
    w.u8(n.smalmc);
    w.u8(n.enhsp0 ? 1 : 0);
    w.raw64(n.swinfo);
    w.le(n.guid, 8);
    w.u8(uint8_t(n.type));
    w.u8(n.nports);
    w.raw64(db.ref_node_info(n));
    w.raw64(n.desc);
    size_t cnt_at = w.b.size();
    w.u8(0);
    uint8_t cnt = 0;
    for (unsigned p = 0; p <= n.nports; ++p) {
      const Port& x = db.port(n, p);
      if (!x.exists) continue;
      w.le(x.guid, 8);
      w.u8(x.num);
      ++cnt;
    }
    w.b[cnt_at] = cnt;
    ++nnodes;
  }
  // Ports in the order of the reference's port hash table: buckets by
  // GUID hash, newest first within a bucket.
  std::vector<uint32_t> order = ref.port_order;
  {
    // Ports the order does not know (e.g. a database built otherwise) go
    // after, in slot order.
    std::vector<uint8_t> seen(db.port_slots(), 0);
    for (uint32_t p : order) seen[p] = 1;
    for (uint32_t p = 0; p < db.port_slots(); ++p)
      if (db.port(p).exists && !seen[p]) order.push_back(p);
  }
  std::vector<std::vector<uint32_t>> buckets(137);
  const auto& hg = ref.hash_guids;
  for (size_t k = 0; k < order.size(); ++k) {
    uint32_t p = order[k];
    if (!db.port(p).exists) continue;
    uint64_t g = k < hg.size() ? hg[k] : db.port(p).guid;
    buckets[hashguid(g) % 137].push_back(p);
  }
  for (auto& bk : buckets) {
    for (auto it = bk.rbegin(); it != bk.rend(); ++it) {
      const Port& x = db.port(*it);
      const Node& n = db.node_of(x);
      w.le(x.guid, 8);
      w.u8(x.num);
      w.u8(x.ext_num);
      w.le(x.base_lid, 2);
      w.u8(x.lmc);
      w.raw64(db.ref_port_info(x));
      w.le(n.guid, 8);
      if (const Port* r = db.peer(x)) {
        w.u8(1);
        w.le(r->guid, 8);
        w.u8(r->num);
      } else {
        w.u8(0);
        w.le(0, 8);
        w.u8(0);
      }
      ++nports;
    }
  }
  for (int i = 0; i < 4; ++i) w.b[counts_at + i] = uint8_t(nnodes >> (8 * i));
  for (int i = 0; i < 4; ++i) w.b[counts_at + 4 + i] = uint8_t(nports >> (8 * i));
  return std::move(w.b);
}

Subnet decode_reference(std::span<const uint8_t> bytes, const std::string& what) {
  Reader r(bytes, what);
  r.le(4, "the header");
  uint32_t version = uint32_t(r.le(4, "the header"));
  if (version != REF_VERSION)
    r.bad("infiniband-diags cache version " + std::to_string(version) + " is not supported (only 1)");
  uint32_t nnodes = uint32_t(r.le(4, "the header"));
  uint32_t nports = uint32_t(r.le(4, "the header"));
  uint64_t from_guid = r.le(8, "the header");
  uint32_t maxhops = uint32_t(r.le(4, "the header"));
  // Sanity before allocating: each node/port needs its fixed size.
  if (uint64_t(nnodes) * REF_NODE_LEN + uint64_t(nports) * REF_PORT_LEN > r.left())
    throw CacheError("Cache file " + what + " is truncated: it announces " + std::to_string(nnodes) + " nodes and " +
                     std::to_string(nports) + " ports but holds only " + std::to_string(bytes.size()) + " bytes");

  struct NodeRec {
    uint16_t smalid;
    uint8_t smalmc, enh;
    Raw64 swinfo, info, desc;
    uint64_t guid;
    uint8_t type, nports;
    std::vector<std::pair<uint64_t, uint8_t>> keys;
  };
  std::vector<NodeRec> nodes(nnodes);
  for (auto& n : nodes) {
    n.smalid = uint16_t(r.le(2, "a node"));
    n.smalmc = lmc_bits(r.u8("a node"));
    n.enh = r.u8("a node");
    r.raw64(n.swinfo, "a node");
    n.guid = r.le(8, "a node");
    n.type = r.u8("a node");
    n.nports = r.u8("a node");
    r.raw64(n.info, "a node");
    r.raw64(n.desc, "a node");
    uint8_t cnt = r.u8("a node");
    if (n.type < 1 || n.type > 3) r.bad("node " + hex(n.guid) + " has unknown type " + std::to_string(n.type));
    for (unsigned i = 0; i < cnt; ++i) {
      uint64_t g = r.le(8, "a node's port list");
      uint8_t num = r.u8("a node's port list");
      // A port beyond the node's count: an incomplete or damaged record,
      // left out (upstream since rdma-core v63 loads such caches too).
      if (num <= n.nports) n.keys.emplace_back(g, num);
    }
  }
  struct PortRec {
    uint64_t guid, node_guid, rguid;
    uint8_t num, ext, lmc, rflag, rnum;
    uint16_t lid;
    Raw64 info;
  };
  std::vector<PortRec> ports(nports);
  for (auto& p : ports) {
    p.guid = r.le(8, "a port");
    p.num = r.u8("a port");
    p.ext = r.u8("a port");
    p.lid = uint16_t(r.le(2, "a port"));
    p.lmc = lmc_bits(r.u8("a port"));
    r.raw64(p.info, "a port");
    p.node_guid = r.le(8, "a port");
    p.rflag = r.u8("a port");
    p.rguid = r.le(8, "a port");
    p.rnum = r.u8("a port");
  }
  if (r.left()) r.bad(std::to_string(r.left()) + " bytes follow the last port");

  Subnet db;
  db.reserve(nnodes, nports + nnodes);
  // Creation order: the file lists the newest node first.
  for (size_t k = nodes.size(); k-- > 0;) {
    NodeRec& n = nodes[k];
    // The NodeInfo image carries GUID/type/ports; the node header is authoritative.
    Raw64 info = n.info;
    iba::SMPNodeInfo::set_nodeType_at(info.data(), n.type);
    iba::SMPNodeInfo::set_numPorts_at(info.data(), n.nports);
    iba::SMPNodeInfo::set_nodeGUID_at(info.data(), n.guid);
    auto [idx, created] = db.add_node(info);
    if (!created) r.bad("node " + hex(n.guid) + " is listed twice");
    Node& x = db.node(idx);
    x.info = n.info;
    x.smalid = n.smalid;
    x.smalmc = n.smalmc;
    x.enhsp0 = n.enh != 0;
    x.swinfo = n.swinfo;
    x.has_swinfo = x.is_switch();
    x.desc = n.desc;
    x.has_desc = true;
  }
  // Ports: by (guid, port number).
  std::unordered_map<uint64_t, std::vector<uint32_t>> by_key;  // guid -> port records
  for (uint32_t i = 0; i < ports.size(); ++i) by_key[ports[i].guid].push_back(i);
  auto find_rec = [&](uint64_t g, uint8_t num) -> int64_t {
    auto it = by_key.find(g);
    if (it == by_key.end()) return -1;
    for (uint32_t i : it->second)
      if (ports[i].num == num) return i;
    return -1;
  };
  std::vector<uint32_t> slot_of(ports.size(), NO_INDEX);
  std::vector<uint32_t> port_order;
  for (size_t k = nodes.size(); k-- > 0;) {
    const NodeRec& n = nodes[k];
    uint32_t idx = db.node_by_guid(n.guid);
    for (auto [g, num] : n.keys) {
      int64_t ri = find_rec(g, num);
      // A listed port without a record: the reference's writer leaves them
      // after PortInfo timeouts (fixed in rdma-core v63); the cache loads
      // without that port.
      if (ri < 0) continue;
      if (slot_of[ri] != NO_INDEX) r.bad("a port is claimed by two nodes");
      const PortRec& p = ports[ri];
      if (p.node_guid != n.guid) r.bad("a port record names another owner node");
      uint32_t slot = db.port_index(idx, num);
      slot_of[ri] = slot;
      Port& x = db.port(slot);
      x.exists = true;
      x.has_info = true;
      x.guid = p.guid;
      x.info = p.info;
      x.base_lid = p.lid;
      x.lmc = p.lmc;
      x.ext_num = p.ext;
      port_order.push_back(slot);
    }
  }
  // Register port GUIDs (through touch semantics) and links.
  for (uint32_t i = 0; i < ports.size(); ++i) {
    const PortRec& p = ports[i];
    if (slot_of[i] == NO_INDEX) {
      if (db.node_by_guid(p.node_guid) == NO_INDEX) r.bad("a port names an owner node that is not in the file");
      continue;  // a port no node lists: the reference ignores it too
    }
    if (p.rflag) {
      // A remote port the file does not hold: no link (as above).
      int64_t ri = find_rec(p.rguid, p.rnum);
      if (ri >= 0 && slot_of[ri] != NO_INDEX) db.link(slot_of[i], slot_of[ri]);
    }
  }
  uint32_t from = db.node_by_guid(from_guid);
  if (from == NO_INDEX) r.bad("the start node is not in the file");
  db.from_node = from;
  db.from_port = db.node(from).local_port_num();
  // The file's images are the reference's first replies: its view.
  RefView ref = recorded_view(db);
  ref.rank.resize(db.node_count());
  for (uint32_t i = 0; i < db.node_count(); ++i) ref.rank[i] = i;  // created in index order
  ref.port_order = std::move(port_order);
  ref.max_hops = maxhops;
  db.set_reference(std::move(ref));
  db.finish_load();
  return db;
}

// --- our format --------------------------------------------------------------------------

std::vector<uint8_t> encode_ours(const Subnet& db) {
  const RefView& ref = db.reference();
  // Without a view (a database nobody replayed): the images' own facts, in
  // the order reference_order() gives.
  std::vector<uint32_t> rank(db.node_count());
  {
    std::vector<uint32_t> newest_first = db.reference_order();
    for (uint32_t k = 0; k < newest_first.size(); ++k) rank[newest_first[k]] = uint32_t(newest_first.size() - 1 - k);
  }
  Writer w;
  w.raw(reinterpret_cast<const uint8_t*>(OUR_MAGIC), 8);
  w.le(OUR_VERSION, 4);
  w.le(db.node_count(), 4);
  w.le(db.from_node, 4);
  w.u8(db.from_port);
  w.le(ref.max_hops, 4);
  w.le(db.mads_used, 8);
  for (uint32_t i = 0; i < db.node_count(); ++i) {
    const Node& n = db.node(i);
    w.le(n.guid, 8);
    w.u8(uint8_t(n.type));
    w.u8(n.nports);
    w.le(ref.rank.size() == db.node_count() ? ref.rank[i] : rank[i], 4);
    w.u8(iba::SMPNodeInfo::localPortNum_at(db.ref_node_info(n).data()));
    w.le(db.ref_port_guid(n), 8);
    w.le(n.smalid, 2);
    w.u8(n.smalmc);
    w.u8(uint8_t((n.enhsp0 ? 1 : 0) | (n.has_desc ? 2 : 0) | (n.has_swinfo ? 4 : 0)));
    w.raw64(n.info);
    w.raw64(n.desc);
    if (n.has_swinfo) w.raw64(n.swinfo);
    w.u8(uint8_t(n.dr.size()));
    w.raw(n.dr.data(), n.dr.size());
    for (unsigned p = 0; p <= n.nports; ++p) {
      const Port& x = db.port(n, p);
      w.u8(uint8_t((x.exists ? 1 : 0) | (x.has_info ? 2 : 0)));
      if (!x.exists) continue;
      w.le(x.guid, 8);
      w.le(x.base_lid, 2);
      w.u8(x.lmc);
      w.u8(x.ext_num);
      w.u8(x.mlnx_speed);
      if (x.has_info) {
        w.raw64(x.info);
        w.u8(uint8_t(iba::SMPPortInfo::localPortNum_at(db.ref_port_info(x).data())));
      }
      if (const Port* r = db.peer(x)) {
        w.le(r->node, 4);
        w.u8(r->num);
      } else {
        w.le(NO_INDEX, 4);
        w.u8(0);
      }
    }
  }
  // Switch tables.
  std::vector<uint32_t> sw;
  for (uint32_t i = 0; i < db.node_count(); ++i)
    if (auto* t = db.find_tables(i); t && (t->lft_valid || t->mft_valid)) sw.push_back(i);
  w.le(sw.size(), 4);
  for (uint32_t i : sw) {
    const SwitchTables& t = *db.find_tables(i);
    w.le(i, 4);
    w.le(t.lft_valid ? t.lft.size() : 0, 4);
    if (t.lft_valid) w.raw(t.lft.data(), t.lft.size());
    w.le(t.mft_valid ? t.mft.size() : 0, 4);
    if (t.mft_valid)
      for (auto& e : t.mft)
        for (uint16_t m : e) w.le(m, 2);
    w.u8(uint8_t((t.lft_valid ? 1 : 0) | (t.mft_valid ? 2 : 0)));
  }
  // The reference's port order (so a reference cache written later matches).
  w.le(ref.port_order.size(), 4);
  for (uint32_t p : ref.port_order) w.le(p, 4);
  uint64_t sum = fnv1a(w.b);
  w.le(sum, 8);
  return std::move(w.b);
}

Subnet decode_ours(std::span<const uint8_t> bytes, const std::string& what) {
  if (bytes.size() < 8 + 4 + 8) throw CacheError("Cache file " + what + " is truncated: " + std::to_string(bytes.size()) + " bytes");
  Reader r(bytes.first(bytes.size() - 8), what);
  r.off = 8;
  uint32_t version = uint32_t(r.le(4, "the header"));
  if (version != OUR_VERSION && version != 1)
    throw CacheError("Cache file " + what + " has ibtool cache version " + std::to_string(version) +
                     ", this ibtool reads version " + std::to_string(OUR_VERSION));
  uint64_t stored = 0;
  for (int i = 0; i < 8; ++i) stored |= uint64_t(bytes[bytes.size() - 8 + i]) << (8 * i);
  if (stored != fnv1a(bytes.first(bytes.size() - 8)))
    throw CacheError("Cache file " + what + " is damaged or truncated (checksum mismatch)");
  uint32_t nnodes = uint32_t(r.le(4, "the header"));
  uint32_t from = uint32_t(r.le(4, "the header"));
  uint8_t from_port = r.u8("the header");
  uint32_t maxhops = uint32_t(r.le(4, "the header"));
  uint64_t mads = r.le(8, "the header");
  if (uint64_t(nnodes) * 150 > r.left() + 150) r.bad("node count " + std::to_string(nnodes) + " does not fit the file");
  Subnet db;
  struct Link {
    uint32_t slot, node;
    uint8_t num;
  };
  std::vector<Link> links;
  RefView ref;
  std::vector<uint8_t> local_port;  // per port slot (version 2)
  for (uint32_t i = 0; i < nnodes; ++i) {
    uint64_t guid = r.le(8, "a node");
    uint8_t type = r.u8("a node");
    uint8_t np = r.u8("a node");
    ref.rank.push_back(uint32_t(r.le(4, "a node")));
    if (version >= 2) {
      ref.entry.push_back(r.u8("a node"));
      ref.port_guid.push_back(r.le(8, "a node"));
    }
    uint16_t smalid = uint16_t(r.le(2, "a node"));
    uint8_t smalmc = lmc_bits(r.u8("a node"));
    uint8_t flags = r.u8("a node");
    Raw64 info, desc, swinfo{};
    r.raw64(info, "a node");
    r.raw64(desc, "a node");
    if (flags & 4) r.raw64(swinfo, "a node");
    if (type < 1 || type > 3) r.bad("a node has unknown type " + std::to_string(type));
    Raw64 hdr = info;
    hdr[2] = type;
    hdr[3] = np;
    for (int k = 0; k < 8; ++k) hdr[12 + k] = uint8_t(guid >> (56 - 8 * k));
    auto [idx, created] = db.add_node(hdr);
    if (!created || idx != i) r.bad("a node GUID is listed twice");
    Node& x = db.node(idx);
    x.info = info;
    x.smalid = smalid;
    x.smalmc = smalmc;
    x.enhsp0 = flags & 1;
    x.has_desc = flags & 2;
    x.has_swinfo = flags & 4;
    x.desc = desc;
    x.swinfo = swinfo;
    uint8_t drn = r.u8("a node's path");
    x.dr.resize(drn);
    r.raw(x.dr.data(), drn, "a node's path");
    local_port.resize(db.port_slots());
    for (unsigned p = 0; p <= np; ++p) {
      uint8_t pf = r.u8("a port");
      if (!(pf & 1)) continue;
      Port& y = db.port(db.port_index(idx, p));
      y.exists = true;
      y.has_info = pf & 2;
      y.guid = r.le(8, "a port");
      y.base_lid = uint16_t(r.le(2, "a port"));
      y.lmc = lmc_bits(r.u8("a port"));
      y.ext_num = r.u8("a port");
      y.mlnx_speed = r.u8("a port");
      if (y.has_info) {
        r.raw64(y.info, "a port");
        local_port[x.port0 + p] = version >= 2 ? r.u8("a port") : uint8_t(y.local_port_num());
      }
      uint32_t pn = uint32_t(r.le(4, "a port"));
      uint8_t pp = r.u8("a port");
      if (pn != NO_INDEX) links.push_back({db.port_index(idx, p), pn, pp});
    }
  }
  for (const Link& l : links) {
    if (l.node >= db.node_count() || l.num > db.node(l.node).nports) r.bad("a link names a port that does not exist");
    db.link(l.slot, db.port_index(l.node, l.num));
  }
  uint32_t nsw = uint32_t(r.le(4, "the switch tables"));
  for (uint32_t k = 0; k < nsw; ++k) {
    uint32_t n = uint32_t(r.le(4, "a switch table"));
    if (n >= db.node_count() || !db.node(n).is_switch()) r.bad("forwarding tables for a node that is not a switch");
    SwitchTables& t = db.tables(n);
    uint32_t nl = uint32_t(r.le(4, "a switch table"));
    if (nl > iba::UNICAST_LID_LAST + 1) r.bad("LFT too long");
    t.lft.resize(nl);
    r.raw(t.lft.data(), nl, "a switch table");
    uint32_t nm = uint32_t(r.le(4, "a switch table"));
    if (nm > 0x4000) r.bad("MFT too long");
    t.mft.resize(nm);
    for (auto& e : t.mft)
      for (uint16_t& m : e) m = uint16_t(r.le(2, "a switch table"));
    uint8_t f = r.u8("a switch table");
    t.lft_valid = f & 1;
    t.mft_valid = f & 2;
  }
  uint32_t npo = uint32_t(r.le(4, "the port order"));
  std::vector<uint32_t> po;
  if (uint64_t(npo) * 4 > r.left()) r.bad("port order longer than the file");
  po.reserve(npo);
  for (uint32_t k = 0; k < npo; ++k) {
    uint32_t p = uint32_t(r.le(4, "the port order"));
    if (p >= db.port_slots()) r.bad("port order names a port that does not exist");
    po.push_back(p);
  }
  if (r.left()) r.bad("unexpected data after the end");
  if (from != NO_INDEX && from >= db.node_count()) r.bad("the start node does not exist");
  db.from_node = from;
  db.from_port = from_port;
  db.mads_used = mads;
  if (version == 1) {
    // Version 1 held the reference's first replies in place of the images.
    RefView v = recorded_view(db);
    ref.entry = std::move(v.entry);
    ref.port_guid = std::move(v.port_guid);
  }
  ref.local_port = std::move(local_port);
  ref.port_order = std::move(po);
  ref.max_hops = maxhops;
  db.set_reference(std::move(ref));
  db.finish_load();
  return db;
}

std::vector<uint8_t> read_file(const std::string& file) {
  std::string s;
  if (!ibcore::read_file(file, s)) throw CacheError("Cannot read cache file " + file + ": " + std::strerror(errno));
  return std::vector<uint8_t>(s.begin(), s.end());
}

}  // namespace

CacheFormat detect_cache_format(std::span<const uint8_t> bytes, const std::string& what) {
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), OUR_MAGIC, 8) == 0) return CacheFormat::Ibtool;
  if (bytes.size() >= 4) {
    uint32_t m = uint32_t(bytes[0]) | (uint32_t(bytes[1]) << 8) | (uint32_t(bytes[2]) << 16) | (uint32_t(bytes[3]) << 24);
    if (m == REF_MAGIC) return CacheFormat::Reference;
  }
  if (bytes.empty()) throw CacheError("Cache file " + what + " is empty");
  throw CacheError("File " + what + " is not a subnet cache (neither ibtool's nor ibnetdiscover's format)");
}

std::vector<uint8_t> encode_cache(const Subnet& db, CacheFormat fmt) {
  return fmt == CacheFormat::Reference ? encode_reference(db) : encode_ours(db);
}

Subnet decode_cache(std::span<const uint8_t> bytes, const std::string& what) {
  return detect_cache_format(bytes, what) == CacheFormat::Reference ? decode_reference(bytes, what)
                                                                     : decode_ours(bytes, what);
}

void save_cache(const Subnet& db, const std::string& file, CacheFormat fmt) {
  std::vector<uint8_t> b = encode_cache(db, fmt);
  std::string tmp = file + ".tmp" + std::to_string(::getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw CacheError("Cannot write cache file " + file + ": " + std::strerror(errno));
  bool ok = std::fwrite(b.data(), 1, b.size(), f) == b.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), file.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    throw CacheError("Cannot write cache file " + file + ": " + std::strerror(err));
  }
}

Subnet load_cache(const std::string& file) {
  auto b = read_file(file);
  return decode_cache(b, file);
}

}  // namespace ibcore
