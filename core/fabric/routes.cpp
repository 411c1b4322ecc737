#include "core/fabric/routes.h"

#include "core/out/json.h"
#include "iba/enums.h"

#include <algorithm>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/fabric/nodemap.h"
#include "core/rpc/rpc.h"
#include "core/out/textout.h"

namespace ibcore {

size_t TableReads::add_lft(const IBPath& path, unsigned first, unsigned last, LftRead& out) {
  out.lft.assign(size_t(last) + 1, LFT_NO_ROUTE);
  paths_.push_back(path);
  left_.push_back(0);
  if (last < first) return paths_.size() - 1;
  for (unsigned b = first / 64; b <= last / 64; ++b) jobs_.push_back({uint32_t(paths_.size() - 1), b, &out, nullptr});
  left_.back() = last / 64 - first / 64 + 1;
  return paths_.size() - 1;
}

size_t TableReads::add_mft(const IBPath& path, unsigned first, unsigned last, unsigned nports, MftRead& out) {
  out.first = first;
  out.masks.clear();
  paths_.push_back(path);
  left_.push_back(0);
  if (last < first || first < MLID_BASE) return paths_.size() - 1;
  out.masks.assign(size_t(last - first) + 1, {});
  for (unsigned blk = (first - MLID_BASE) / 32; blk <= (last - MLID_BASE) / 32; ++blk)
    for (unsigned pos = 0; pos <= nports / 16 && pos < 16; ++pos) {
      jobs_.push_back({uint32_t(paths_.size() - 1), (pos << 28) | blk, nullptr, &out});
      ++left_.back();
    }
  return paths_.size() - 1;
}

void TableReads::spawn(Scheduler& s) {
  smp_.emplace(s, false);
  spawn(*smp_);
}

void TableReads::spawn(AsyncSmpSource& src) {
  read_ = [this, &src](size_t i) { return read_block(src, i); };
  parallel_for(src.sched(), jobs_.size(), src.sched().engine().max_outstanding() * 2, read_);
}

Task<> TableReads::read_block(AsyncSmpSource& s, size_t job) {
  const Job j = jobs_[job];
  const IBPath& path = paths_[j.path];
  if (j.lft) {
    LftRead& out = *j.lft;
    try {
      auto l = co_await s.SubnGet<iba::SMPLinearForwardingTable>(path, j.amod);
      for (unsigned i = 0; i < 64 && j.amod * 64 + i < out.lft.size(); ++i)
        out.lft[j.amod * 64 + i] = uint8_t(l.portBlock(i));
    } catch (...) {
      if (!out.error) {
        out.error = std::current_exception();
        out.failed_block = j.amod;
      }
    }
  } else {
    MftRead& out = *j.mft;
    unsigned blk = j.amod & 0x1ff, pos = j.amod >> 28;
    try {
      auto m = co_await s.SubnGet<iba::SMPMulticastForwardingTable>(path, j.amod);
      for (unsigned i = 0; i < 32; ++i) {
        unsigned mlid = MLID_BASE + blk * 32 + i;
        if (mlid < out.first || mlid - out.first >= out.masks.size()) continue;
        out.masks[mlid - out.first][pos] = uint16_t(m.portMaskBlock(i));
      }
    } catch (const std::exception& e) {
      if (!is_sa_no_records(e) && !out.error) out.error = std::current_exception();
    }
  }
  if (--left_[j.path] == 0 && on_done) on_done(j.path);
}

const char* node_type_long(NodeType t) {
  switch (t) {
    case NodeType::CA: return "Channel Adapter";
    case NodeType::Switch: return "Switch";
    case NodeType::Router: return "Router";
    default: return "???";
  }
}

void UnicastDump::header(unsigned start, unsigned end, const std::string& where, uint64_t guid,
                         const std::string& name) {
  std::fprintf(f_, "Unicast lids [0x%x-0x%x] of switch %s guid 0x%016" PRIx64 " (%s):\n", start, end, where.c_str(),
               guid, name.c_str());
  std::fprintf(f_, "  Lid  Out   Destination\n       Port     Info \n");
}

namespace {
// Line building without printf: a dump_fts of a k=32 fat tree is 12M lines.
// Rows go into a TextOut (one flat buffer written out in 64 kB pieces); the
// text that names a destination is built once per LID (LidDest::row) and
// each row is a copy of it with its LID and port written in.

// Writes "0xLLLL PPP " (a row's start: LID in 4 hex digits, port in 3
// decimal; 11 characters) at w.
void write_lid_port(char* w, unsigned lid, uint8_t port) {
  struct Tables {
    char hex2[256][2];
    char dec3[256][3];
    Tables() {
      static const char x[] = "0123456789abcdef";
      for (unsigned i = 0; i < 256; ++i) {
        hex2[i][0] = x[i >> 4];
        hex2[i][1] = x[i & 15];
        dec3[i][0] = char('0' + i / 100);
        dec3[i][1] = char('0' + i / 10 % 10);
        dec3[i][2] = char('0' + i % 10);
      }
    }
  };
  static const Tables t;
  w[0] = '0';
  w[1] = 'x';
  std::memcpy(w + 2, t.hex2[(lid >> 8) & 0xff], 2);
  std::memcpy(w + 4, t.hex2[lid & 0xff], 2);
  w[6] = ' ';
  std::memcpy(w + 7, t.dec3[port], 3);
  w[10] = ' ';
}
constexpr size_t LID_PORT_LEN = 11;

// A whole row from a destination's cached line (dest_row): copied, then its
// LID and port filled in.
void put_row(TextOut& o, const std::string& line, unsigned lid, uint8_t port) {
  char* w = o.reserve(line.size());
  std::memcpy(w, line.data(), line.size());
  write_lid_port(w, lid, port);
  o.advance(line.size());
}

void put_hex(std::string& o, uint64_t v, int digits) {
  static const char x[] = "0123456789abcdef";
  char b[16];
  for (int i = digits - 1; i >= 0; --i, v >>= 4) b[i] = x[v & 15];
  o.append(b, size_t(digits));
}

// A destination's row with a placeholder LID and port (put_row fills
// them in).
const std::string& dest_row(const LidDest& d) {
  if (d.row.empty()) {
    std::string& o = d.row;
    o = "0x0000 000 : (";
    o += node_type_long(d.type);
    o += " portguid 0x";
    put_hex(o, d.port_guid, 16);
    o += ": '";
    o += d.name;
    o += "')\n";
  }
  return d.row;
}
}  // namespace

unsigned UnicastDump::rows(const std::vector<uint8_t>& lft, unsigned start, unsigned end, const LidResolver& resolve) {
  return rows_by(lft, start, end, resolve);
}

unsigned UnicastDump::rows(const std::vector<uint8_t>& lft, unsigned start, unsigned end,
                           const std::vector<LidDest>& dests) {
  return rows_by(lft, start, end, [&](unsigned lid) { return lid < dests.size() ? &dests[lid] : nullptr; });
}

template <class Resolve>
unsigned UnicastDump::rows_by(const std::vector<uint8_t>& lft, unsigned start, unsigned end, const Resolve& resolve) {
  unsigned n = 0;
  TextOut o(f_);
  const std::string unknown = ": (" + unknown_ + ")\n";
  // The reference reads the table in 64-LID blocks up to end/64 rounded up:
  // an end LID that starts a block is left out.
  unsigned last = end && end % 64 == 0 ? end - 1 : end;
  for (unsigned lid = start; lid <= last; ++lid) {
    uint8_t port = lid < lft.size() ? lft[lid] : LFT_NO_ROUTE;
    bool valid = port != LFT_NO_ROUTE;
    if (!valid && !all_) continue;
    ++n;
    bool in_last = lid >= last_base_ && lid < last_base_ + last_count_;
    const LidDest* dp = nullptr;
    if (valid && !no_dests_ && !(have_last_ && in_last)) {
      dp = resolve(lid);
      if (dp && dp->known) {
        // The common row: the destination's cached line (most of a dump).
        const LidDest& d = *dp;
        have_last_ = true;
        last_base_ = d.base_lid;
        last_count_ = 1u << d.lmc;
        last_guid_ = d.port_guid;
        put_row(o, dest_row(d), lid, port);
        continue;
      }
    }
    write_lid_port(o.reserve(LID_PORT_LEN), lid, port);
    o.advance(LID_PORT_LEN);
    if (no_dests_) {
      o.put('\n');
      continue;
    }
    if (!valid) {
      if (in_last) {
        o.put(": (path #");
        o.dec(lid - last_base_);
        o.put(" - illegal port)\n");
      } else {
        o.put(": (illegal port)\n");
      }
      continue;
    }
    if (have_last_ && in_last) {
      o.put(": (path #");
      o.dec(lid - last_base_ + 1);
      o.put(" out of ");
      o.dec(last_count_);
      o.put(": portguid 0x");
      o.hex0(last_guid_, 16);
      o.put(")\n");
      continue;
    }
    o.put(unknown);
  }
  o.dec(n);
  if (all_)
    o.put(" lids dumped \n");
  else
    o.put(" valid lids dumped \n");
  return n;
}

namespace {

// The port mask words an MFT entry of a switch with nports uses.
unsigned mft_words(unsigned nports) { return nports / 16 + 1 > 16 ? 16 : nports / 16 + 1; }
// The port mask of mlid in m (zero where nothing was read).
const std::array<uint16_t, 16>& mft_mask(const MftRead& m, unsigned mlid) {
  static const std::array<uint16_t, 16> zero{};
  return mlid >= m.first && mlid - m.first < m.masks.size() ? m.masks[mlid - m.first] : zero;
}
bool mask_any(const std::array<uint16_t, 16>& mask, unsigned words) {
  for (unsigned w = 0; w < words; ++w)
    if (mask[w]) return true;
  return false;
}

}  // namespace

void print_mft(FILE* f, const MftRead& m, unsigned start, unsigned end, unsigned nports, bool all, bool brief,
               const std::string& where, uint64_t guid, const std::string& name) {
  std::fprintf(f, "Multicast mlids [0x%x-0x%x] of switch %s guid 0x%016" PRIx64 " (%s):\n", start, end, where.c_str(),
               guid, name.c_str());
  unsigned words = mft_words(nports);
  if (brief) {
    std::fprintf(f, " MLid       Port Mask\n");
  } else {
    if (nports > 9) {
      std::fprintf(f, "            ");
      for (unsigned i = 0; i <= nports; ++i) {
        if (i % 10 == 0) std::fprintf(f, "%u ", i / 10);
        else std::fprintf(f, "  ");
      }
      std::fprintf(f, "\n");
    }
    std::fprintf(f, "     Ports: ");
    for (unsigned i = 0; i <= nports; ++i) std::fprintf(f, "%u ", i % 10);
    std::fprintf(f, "\n MLid\n");
  }
  unsigned n = 0;
  for (unsigned mlid = start; mlid <= end; ++mlid) {
    const std::array<uint16_t, 16>& mask = mft_mask(m, mlid);
    if (!all && !mask_any(mask, words)) continue;
    ++n;
    std::fprintf(f, "0x%04x      ", mlid);
    if (brief) {
      for (unsigned w = 0; w < words; ++w) std::fprintf(f, "%04x", unsigned(mask[w]));
    } else {
      for (unsigned i = 0; i <= nports; ++i) std::fprintf(f, "%s", (mask[i / 16] >> (i % 16)) & 1 ? "x " : "  ");
    }
    std::fprintf(f, "\n");
  }
  std::fprintf(f, "%u %smlids dumped \n", n, all ? "" : "valid ");
}

namespace {

const char* iba_node_type(NodeType t) {
  const char* n = iba::enums::name_of(iba::enums::node_types(), unsigned(t));
  return n ? n : "Unknown";
}

void json_head(JsonOut& j, const TableHead& h) {
  j.obj().kguid("nodeGUID", h.guid).ks("name", h.name);
  if (h.lid) j.kv("LID", h.lid);
  j.key("route");
  h.route.json(j);
}

// The object of a destination (known ones only).
void json_dest(JsonOut& j, const LidDest& d) {
  j.obj()
      .kguid("portGUID", d.port_guid)
      .kenum("nodeType", iba_node_type(d.type), unsigned(d.type))
      .ks("name", d.name)
      .kv("baseLID", d.base_lid)
      .kv("LMC", d.lmc)
      .end();
}

// resolve null: no "destination" in the entries (dump_fts lists the
// destinations once, json_dests).
template <class Resolve>
void json_lft_by(JsonOut& j, const TableHead& h, const std::vector<uint8_t>& lft, unsigned start, unsigned end,
                 bool all, bool no_dests, const Resolve* resolve) {
  json_head(j, h);
  // (the same LIDs as the text: a block-starting end LID is left out)
  unsigned last = end && end % 64 == 0 ? end - 1 : end;
  j.kv("startLID", start).kv("endLID", last).key("lft").arr();
  for (unsigned lid = start; lid <= last; ++lid) {
    uint8_t port = lid < lft.size() ? lft[lid] : LFT_NO_ROUTE;
    bool valid = port != LFT_NO_ROUTE;
    if (!valid && !all) continue;
    j.obj().kv("LID", lid).key("port");
    if (valid) j.num(port);
    else j.null();
    if (!no_dests && resolve) {
      j.key("destination");
      const LidDest* d = valid ? (*resolve)(lid) : nullptr;
      if (d && d->known) json_dest(j, *d);
      else j.null();
    }
    j.end();
  }
  j.end().end();
}

}  // namespace

void json_lft(JsonOut& j, const TableHead& h, const std::vector<uint8_t>& lft, unsigned start, unsigned end, bool all,
              bool no_dests, const LidResolver& resolve) {
  json_lft_by(j, h, lft, start, end, all, no_dests, &resolve);
}

void json_lft(JsonOut& j, const TableHead& h, const std::vector<uint8_t>& lft, unsigned start, unsigned end, bool all) {
  json_lft_by<LidResolver>(j, h, lft, start, end, all, true, nullptr);
}

void json_dests(JsonOut& j, const std::vector<LidDest>& dests) {
  j.key("destinations").arr();
  for (unsigned lid = 0; lid < dests.size(); ++lid)
    if (dests[lid].known) {
      j.obj().kv("LID", lid).key("destination");
      json_dest(j, dests[lid]);
      j.end();
    }
  j.end();
}

void json_mft(JsonOut& j, const TableHead& h, const MftRead& m, unsigned start, unsigned end, unsigned nports,
              bool all) {
  json_head(j, h);
  j.kv("startMLID", start).kv("endMLID", end).key("mft").arr();
  unsigned words = mft_words(nports);
  for (unsigned mlid = start; mlid <= end; ++mlid) {
    const std::array<uint16_t, 16>& mask = mft_mask(m, mlid);
    if (!all && !mask_any(mask, words)) continue;
    j.obj().kv("MLID", mlid).key("ports").arr();
    for (unsigned i = 0; i <= nports; ++i)
      if ((mask[i / 16] >> (i % 16)) & 1) j.num(i);
    j.end().end();
  }
  j.end().end();
}

std::vector<LidDest> lid_dests_from_db(const Subnet& db, const NodeNameMap& map) {
  std::vector<LidDest> out(MLID_BASE);
  size_t used = 0;
  uint32_t prev = NO_INDEX;
  for (unsigned lid = 1; lid < MLID_BASE; ++lid) {
    uint32_t pi = db.port_by_lid(uint16_t(lid));
    if (pi == NO_INDEX) continue;
    used = lid + 1;
    if (pi == prev) {
      out[lid] = out[lid - 1];
      continue;
    }
    prev = pi;
    const Port& p = db.port(pi);
    const Node& n = db.node_of(p);
    LidDest& d = out[lid];
    d.known = true;
    d.type = n.type;
    d.port_guid = p.guid;
    d.base_lid = n.is_switch() ? n.smalid : p.base_lid;
    d.lmc = n.is_switch() ? n.smalmc : p.lmc;
    d.name = map.remap(n.guid, n.description());
  }
  out.resize(used);
  return out;
}

}  // namespace ibcore

// --- route tracing -----------------------------------------------------------------------


namespace ibcore {

namespace {
std::string dr_str(const std::vector<uint8_t>& dr) {
  std::string s;
  for (size_t i = 0; i < dr.size(); ++i) s += (i ? "," : "") + std::to_string(dr[i]);
  return s;
}
IBPath dr_path(const std::vector<uint8_t>& dr) {
  IBPath p;
  p.drPath = dr;
  return p;
}
}  // namespace

// The directed route to the node behind port out of n.  A CA or router does
// not forward directed route SMPs: leaving one by the port the route entered
// by leads back to the node before it.
std::vector<uint8_t> peer_route(const TraceNode& n, unsigned out) {
  std::vector<uint8_t> r = n.dr;
  if (!n.is_switch() && r.size() > 1 && out == n.inport) {
    r.pop_back();
    return r;
  }
  r.push_back(uint8_t(out));
  return r;
}

TraceNode Tracer::node_at(const std::vector<uint8_t>& dr) {
  TraceNode n;
  n.dr = dr;
  IBPath p = dr_path(dr);
  n.ni = src_.SubnGet<iba::SMPNodeInfo>(p);
  n.inport = unsigned(n.ni.localPortNum());
  auto nd = src_.SubnGet<iba::SMPNodeDescription>(p);
  std::string d(reinterpret_cast<const char*>(nd.bytes().data()), 64);
  n.desc = d.substr(0, d.find('\0'));
  auto pi = src_.SubnGet<iba::SMPPortInfo>(p, n.is_switch() ? 0 : n.inport);
  n.lid = uint16_t(pi.LID());
  n.lmc = uint8_t(pi.LMC());
  return n;
}

TraceResult Tracer::unicast(const TraceNode& start, unsigned lid) {
  TraceResult r;
  r.nodes.push_back(start);
  for (unsigned hops = 0;; ++hops) {
    TraceNode& cur = r.nodes.back();
    if (cur.has_lid(lid)) {
      r.status = TraceStatus::Found;
      return r;
    }
    if (hops >= 63) {
      r.status = TraceStatus::TooLong;
      r.detail = "the route to lid " + std::to_string(lid) + " has more than 63 hops";
      return r;
    }
    unsigned out;
    if (cur.is_switch()) {
      iba::SMPLinearForwardingTable t;
      try {
        t = src_.SubnGet<iba::SMPLinearForwardingTable>(dr_path(cur.dr), lid / 64);
        out = unsigned(t.portBlock(lid % 64));
      } catch (const MADError& e) {
        if (!is_sa_no_records(e)) {
          r.status = TraceStatus::Unreachable;
          r.detail = "can't read the forwarding table at DR path " + dr_str(cur.dr) + ": " + e.what();
          return r;
        }
        out = LFT_NO_ROUTE;  // a block past LinearFDBTop: the SA has no record of it
      }
      if (out == 0 || out == LFT_NO_ROUTE || out > unsigned(cur.ni.numPorts())) {
        r.status = out == 0 ? TraceStatus::OwnEntry : TraceStatus::BadEntry;
        r.detail = "Bad forwarding table entry found at: node \"" + cur.desc + "\" lid entry " + std::to_string(lid) +
                   " is " + std::to_string(out);
        return r;
      }
    } else {
      if (r.nodes.size() > 1) {
        r.status = TraceStatus::Dead;
        r.detail = "the route to lid " + std::to_string(lid) + " ends at \"" + cur.desc + "\"";
        return r;
      }
      out = cur.inport;
    }
    cur.outport = out;
    std::vector<uint8_t> next = peer_route(cur, out);
    // Stepping back out of a CA: the switch is entered by the port the route
    // left it by.
    bool back = next.size() < cur.dr.size();
    unsigned via = cur.dr.back();
    try {
      TraceNode n = node_at(next);  // (cur may move when nodes grows)
      if (back) n.inport = via;
      r.nodes.push_back(std::move(n));
    } catch (const MADError& e) {
      r.status = TraceStatus::Unreachable;
      r.detail = "can't reach port at DR path " + dr_str(next) + ": " + e.what();
      return r;
    }
  }
}

TraceResult Tracer::multicast(const TraceNode& src, uint64_t dst_guid, unsigned mlid) {
  TraceResult r;
  struct Visit {
    TraceNode node;
    size_t parent;
    unsigned via;  // the port of the parent it was reached by
  };
  std::vector<Visit> seen{{src, size_t(-1), 0}};
  std::vector<uint64_t> guids{src.ni.nodeGUID()};
  auto known = [&](uint64_t g) { return std::find(guids.begin(), guids.end(), g) != guids.end(); };
  size_t found = size_t(-1);
  for (size_t q = 0; q < seen.size() && found == size_t(-1); ++q) {
    const TraceNode cur = seen[q].node;
    std::vector<unsigned> outs;
    if (!cur.is_switch()) {
      if (q != 0) continue;
      outs.push_back(cur.inport);
    } else {
      if (mlid < MLID_BASE) break;
      unsigned nports = unsigned(cur.ni.numPorts());
      for (unsigned pos = 0; pos <= nports / 16; ++pos) {
        iba::SMPMulticastForwardingTable t;
        try {
          t = src_.SubnGet<iba::SMPMulticastForwardingTable>(dr_path(cur.dr), (pos << 28) | ((mlid - MLID_BASE) / 32));
        } catch (const MADError&) {
          continue;
        }
        unsigned mask = unsigned(t.portMaskBlock((mlid - MLID_BASE) % 32));
        for (unsigned b = 0; b < 16; ++b) {
          unsigned port = pos * 16 + b;
          if ((mask >> b) & 1 && port >= 1 && port <= nports) outs.push_back(port);
        }
      }
    }
    for (unsigned out : outs) {
      std::vector<uint8_t> next = peer_route(cur, out);
      TraceNode n;
      try {
        n = node_at(next);
      } catch (const MADError&) {
        continue;
      }
      if (next.size() < cur.dr.size()) n.inport = cur.dr.back();
      uint64_t g = n.ni.nodeGUID();
      if (known(g)) continue;
      guids.push_back(g);
      n.outport = 0;
      seen.push_back({n, q, out});
      if (g == dst_guid) {
        found = seen.size() - 1;
        break;
      }
    }
  }
  if (found == size_t(-1)) {
    r.status = TraceStatus::Unreachable;
    r.detail = "can't find a multicast route from src to dest";
    return r;
  }
  // Each node's outport is the port towards its child on this path (a CA
  // source leaves by its own port, whatever DR path reached the child).
  std::vector<TraceNode> rev;
  unsigned towards = 0;
  for (size_t i = found; i != size_t(-1); i = seen[i].parent) {
    rev.push_back(seen[i].node);
    rev.back().outport = towards;
    towards = seen[i].via;
  }
  r.nodes.assign(rev.rbegin(), rev.rend());
  r.status = TraceStatus::Found;
  return r;
}

}  // namespace ibcore
