// Cache files: both formats round-trip; corrupt, truncated and foreign
// files give a CacheError (never a crash or an out of bounds read).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <unistd.h>

#include "core/fabric/reforder.h"
#include "core/fabric/netcache.h"
#include "core/fabric/netprint.h"
#include "test/unit/subnet_test_fabric.h"

using namespace ibcore;

namespace {

std::string topo(const Subnet& db) {
  NodeNameMap m;
  std::string t = topology_text(db, m);
  return t.substr(t.find("# Initiated"));
}

Subnet sample() {
  TestFabric f = TestFabric::two_switches();
  f.db.set_reference(replay_reference(f.db));
  return std::move(f.db);
}

}  // namespace

TEST(NetCache, OursRoundTrips) {
  Subnet db = sample();
  auto bytes = encode_cache(db, CacheFormat::Ibtool);
  EXPECT_EQ(detect_cache_format(bytes, "x"), CacheFormat::Ibtool);
  Subnet back = decode_cache(bytes, "x");
  EXPECT_EQ(topo(back), topo(db));
  EXPECT_EQ(back.node(back.node_by_guid(0x100003)).dr, (std::vector<uint8_t>{3, 1}));
  EXPECT_EQ(back.port_by_lid(7), back.port_index(back.node_by_guid(0x100003), 2));
  // Stable: encoding the decoded database gives the same bytes.
  EXPECT_EQ(encode_cache(back, CacheFormat::Ibtool), bytes);
}

TEST(NetCache, ReferenceRoundTrips) {
  Subnet db = sample();
  auto bytes = encode_cache(db, CacheFormat::Reference);
  EXPECT_EQ(detect_cache_format(bytes, "x"), CacheFormat::Reference);
  // Header: magic, version 1, 4 nodes, 20 ports (18 switch ports + 4 CA ports - ...).
  ASSERT_GE(bytes.size(), 28u);
  EXPECT_EQ(bytes[0], 0x2b);
  EXPECT_EQ(bytes[3], 0x8f);
  EXPECT_EQ(bytes[4], 1);
  EXPECT_EQ(bytes[8], 4);
  EXPECT_EQ(bytes[12], 22);  // 2 x 9 switch ports + 4 CA ports
  Subnet back = decode_cache(bytes, "x");
  EXPECT_EQ(topo(back), topo(db));
  // Ours from a loaded reference cache, and back.
  Subnet again = decode_cache(encode_cache(back, CacheFormat::Ibtool), "y");
  EXPECT_EQ(topo(again), topo(db));
}

// The database keeps its images as received; what the reference recorded
// is its view, which each format carries: ours beside the images, the
// reference's in place of them (its file is its first replies).
TEST(NetCache, ImagesStayAsReceivedAndTheViewTravels) {
  Subnet db = sample();
  uint32_t s2 = db.node_by_guid(0x200001);
  // Switch2's NodeInfo was built with LocalPortNum 0; the reference enters
  // it by port 3.
  ASSERT_EQ(db.node(s2).local_port_num(), 0u);
  ASSERT_EQ(iba::SMPNodeInfo::localPortNum_at(db.ref_node_info(db.node(s2)).data()), 3u);
  ASSERT_EQ(iba::SMPPortInfo::localPortNum_at(db.ref_port_info(db.port(db.node(s2), 5)).data()), 3u);
  Subnet ours = decode_cache(encode_cache(db, CacheFormat::Ibtool), "ours");
  Subnet ref = decode_cache(encode_cache(db, CacheFormat::Reference), "ref");
  for (uint32_t i = 0; i < db.node_count(); ++i) {
    const Node& n = db.node(i);
    uint32_t a = ours.node_by_guid(n.guid), b = ref.node_by_guid(n.guid);
    EXPECT_EQ(ours.node(a).info, n.info) << "ours keeps the image received";
    EXPECT_EQ(ours.ref_node_info(ours.node(a)), db.ref_node_info(n));
    EXPECT_EQ(ref.node(b).info, db.ref_node_info(n)) << "the reference's file holds its first reply";
    EXPECT_EQ(ref.ref_node_info(ref.node(b)), db.ref_node_info(n));
    for (unsigned k = 0; k <= n.nports; ++k) {
      const Port& p = db.port(n, k);
      if (!p.has_info) continue;
      EXPECT_EQ(ours.port(ours.node(a), k).info, p.info);
      EXPECT_EQ(ours.ref_port_info(ours.port(ours.node(a), k)), db.ref_port_info(p));
      EXPECT_EQ(ref.port(ref.node(b), k).info, db.ref_port_info(p));
    }
  }
}

TEST(NetCache, AReferenceCacheWritesBackByteIdentical) {
  auto bytes = encode_cache(sample(), CacheFormat::Reference);
  Subnet back = decode_cache(bytes, "x");
  EXPECT_EQ(encode_cache(back, CacheFormat::Reference), bytes);
  // Through our format too.
  Subnet again = decode_cache(encode_cache(back, CacheFormat::Ibtool), "y");
  EXPECT_EQ(encode_cache(again, CacheFormat::Reference), bytes);
}

TEST(NetCache, OurVersionOneFilesStillLoad) {
  // Version 1 stored the reference's first replies in place of the images
  // (a k=4 fat tree; the reference's cache of the same discovery beside it).
  std::string dir = IBTOOL_TEST_DATA "/../fuzz/corpus/fuzz_cache/";
  Subnet v1 = load_cache(dir + "fattree4.ibtool-cache");
  Subnet ref = load_cache(dir + "fattree4.ibnetdiscover-cache");
  EXPECT_EQ(topo(v1), topo(ref));
  EXPECT_EQ(encode_cache(v1, CacheFormat::Reference), encode_cache(ref, CacheFormat::Reference));
  Subnet v2 = decode_cache(encode_cache(v1, CacheFormat::Ibtool), "v2");
  EXPECT_EQ(topo(v2), topo(v1));
  for (uint32_t i = 0; i < v1.node_count(); ++i) EXPECT_EQ(v2.ref_node_info(v2.node(i)), v1.node(i).info);
}

TEST(NetCache, EveryTruncationIsAClearError) {
  Subnet db = sample();
  for (CacheFormat fmt : {CacheFormat::Ibtool, CacheFormat::Reference}) {
    auto bytes = encode_cache(db, fmt);
    for (size_t n = 0; n < bytes.size(); ++n) {
      std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + long(n));
      EXPECT_THROW(decode_cache(cut, "cut"), CacheError) << "format " << int(fmt) << " length " << n;
    }
  }
}

TEST(NetCache, CorruptionIsDetected) {
  Subnet db = sample();
  auto bytes = encode_cache(db, CacheFormat::Ibtool);
  // Any single flipped byte after the magic breaks the checksum (or the header).
  for (size_t i = 8; i < bytes.size(); i += 7) {
    auto bad = bytes;
    bad[i] ^= 0x5a;
    EXPECT_THROW(decode_cache(bad, "bad"), CacheError) << "byte " << i;
  }
  // Reference format has no checksum: structural damage must still be caught
  // or load into something consistent, never crash.
  auto ref = encode_cache(db, CacheFormat::Reference);
  for (size_t i = 4; i < ref.size(); ++i) {
    auto bad = ref;
    bad[i] ^= 0xff;
    try {
      Subnet s = decode_cache(bad, "bad");
      (void)topo(s);
    } catch (const CacheError&) {
    }
  }
}

TEST(NetCache, ForeignAndVersionErrors) {
  std::vector<uint8_t> empty;
  EXPECT_THROW(decode_cache(empty, "e"), CacheError);
  std::string text = "#\n# Topology file: generated on ...\n";
  std::vector<uint8_t> foreign(text.begin(), text.end());
  try {
    decode_cache(foreign, "topo.txt");
    FAIL() << "foreign file accepted";
  } catch (const CacheError& e) {
    EXPECT_NE(std::string(e.what()).find("not a subnet cache"), std::string::npos);
  }
  Subnet db = sample();
  auto ref = encode_cache(db, CacheFormat::Reference);
  ref[4] = 2;  // version 2
  try {
    decode_cache(ref, "v2");
    FAIL() << "unknown version accepted";
  } catch (const CacheError& e) {
    EXPECT_NE(std::string(e.what()).find("version 2"), std::string::npos);
  }
  // Absurd counts do not allocate: truncated error.
  auto huge = encode_cache(db, CacheFormat::Reference);
  huge[11] = 0x7f;
  EXPECT_THROW(decode_cache(huge, "huge"), CacheError);
}

TEST(NetCache, FilesAndMissingFiles) {
  Subnet db = sample();
  char tmpl[] = "/tmp/netcache_test_XXXXXX";
  int fd = mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  close(fd);
  save_cache(db, tmpl, CacheFormat::Reference);
  Subnet back = load_cache(tmpl);
  EXPECT_EQ(topo(back), topo(db));
  std::remove(tmpl);
  EXPECT_THROW(load_cache("/nonexistent/dir/cache"), CacheError);
  EXPECT_THROW(save_cache(db, "/nonexistent/dir/cache", CacheFormat::Ibtool), CacheError);
}

TEST(NetCache, EditedGuidsKeepTheirLoadedHashBuckets) {
  // ibcacheedit semantics: renaming a switch renames its ports, indexes
  // follow, and a re-written reference cache keeps the port order.
  Subnet db = decode_cache(encode_cache(sample(), CacheFormat::Reference), "x");
  RefView& ref = db.reference();
  for (uint32_t p : ref.port_order) ref.hash_guids.push_back(db.port(p).guid);
  auto before = encode_cache(db, CacheFormat::Reference);
  uint32_t s = db.node_by_guid(0x200001);
  db.rename_node(s, 0x300001);
  for (unsigned k = 0; k <= db.node(s).nports; ++k)
    if (db.port(db.node(s), k).exists) db.set_port_guid(db.port_index(s, k), 0x300001);
  EXPECT_EQ(db.node_by_guid(0x200001), NO_INDEX);
  EXPECT_EQ(db.node_by_guid(0x300001), s);
  EXPECT_EQ(db.port_by_guid(0x300001), db.port_index(s, 0));
  auto after = encode_cache(db, CacheFormat::Reference);
  ASSERT_EQ(before.size(), after.size());
  Subnet back = decode_cache(after, "after");
  EXPECT_NE(topo(back).find("switchguid=0x300001(200001)"), std::string::npos);
}

// --- Caches after PortInfo timeouts (issue 13; upstream rdma-core v63,
// "libibnetdisc: keep cache loadable after port timeouts") ------------------

namespace {

// The reference format's records (ibnetdisc_cache.c's layout): a node is
// 15 bytes + three 64-byte images + its (GUID, port) keys; a port 95 bytes.
struct RefCache {
  struct Key {
    uint64_t guid;
    uint8_t num;
    bool operator<(const Key& o) const { return guid != o.guid ? guid < o.guid : num < o.num; }
  };
  std::vector<Key> listed, records, remotes;
  static uint64_t le(const std::vector<uint8_t>& b, size_t at, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(b.at(at + i)) << (8 * i);
    return v;
  }
  explicit RefCache(const std::vector<uint8_t>& b) {
    uint32_t nn = uint32_t(le(b, 8, 4)), np = uint32_t(le(b, 12, 4));
    size_t at = 28;
    for (uint32_t i = 0; i < nn; ++i) {
      at += 2 + 1 + 1 + 64 + 8 + 1 + 1 + 64 + 64;
      uint8_t cnt = b.at(at++);
      for (unsigned k = 0; k < cnt; ++k, at += 9) listed.push_back({le(b, at, 8), b.at(at + 8)});
    }
    for (uint32_t i = 0; i < np; ++i, at += 95) {
      records.push_back({le(b, at, 8), b.at(at + 8)});
      if (b.at(at + 85)) remotes.push_back({le(b, at + 86, 8), b.at(at + 94)});
    }
    EXPECT_EQ(at, b.size());
  }
};

}  // namespace

TEST(NetCache, AfterPortInfoTimeoutsEveryReferenceHasItsRecord) {
  TestFabric f = TestFabric::two_switches();
  // Hca2's port 2: NodeInfo answered through it, its PortInfo never did.
  Subnet& db = f.db;
  uint32_t h2 = 3;
  db.port(db.port_index(h2, 2)).has_info = false;
  db.set_reference(replay_reference(db));
  RefCache c(encode_cache(db, CacheFormat::Reference));
  std::set<RefCache::Key> have(c.records.begin(), c.records.end());
  for (auto& k : c.listed) EXPECT_TRUE(have.count(k)) << std::hex << k.guid << ":" << int(k.num);
  for (auto& k : c.remotes) EXPECT_TRUE(have.count(k)) << std::hex << k.guid << ":" << int(k.num);
  EXPECT_EQ(c.listed.size(), c.records.size());
}

TEST(NetCache, AnIncompleteReferenceCacheLoads) {
  Subnet db = sample();
  auto bytes = encode_cache(db, CacheFormat::Reference);
  RefCache c(bytes);
  // Drop the last port record (as the reference's writer did for a port
  // whose PortInfo timed out): its node still lists it, its peer still
  // names it as the remote port.
  auto gone = c.records.back();
  bytes.resize(bytes.size() - 95);
  uint32_t np = uint32_t(RefCache::le(bytes, 12, 4)) - 1;
  for (int i = 0; i < 4; ++i) bytes[12 + i] = uint8_t(np >> (8 * i));
  Subnet back = decode_cache(bytes, "incomplete");
  EXPECT_EQ(back.node_count(), db.node_count());
  for (uint32_t i = 0; i < back.node_count(); ++i)
    for (unsigned p = 0; p <= back.node(i).nports; ++p) {
      const Port& x = back.port(back.node(i), p);
      if (x.exists) {
        EXPECT_FALSE(x.guid == gone.guid && x.num == gone.num);
      }
      if (const Port* r = back.peer(x)) {
        EXPECT_FALSE(r->guid == gone.guid && r->num == gone.num);
      }
    }
  // The rest prints.
  EXPECT_NE(topo(back).find("Switch"), std::string::npos);
}
