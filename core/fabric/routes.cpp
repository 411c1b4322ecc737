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

namespace {

const char* iba_node_type(NodeType t) {
  const char* n = iba::enums::name_of(iba::enums::node_types(), unsigned(t));
  return n ? n : "Unknown";
}

// A table's head: JSON {"nodeGUID", "name", "LID", "route" (the object
// left open); the text's first words, up to the range.
void describe_head(Printer& p, const TableHead& h, const char* what) {
  p.open_object().guid(PRINT_JSON, "nodeGUID", nullptr, h.guid).str(PRINT_JSON, "name", nullptr, h.name);
  if (h.lid) p.uint(PRINT_JSON, "LID", nullptr, h.lid);
  p.json_value("route", [&](JsonOut& j) { h.route.json(j); });
  p.lit(what);
}
// The rest of the head's text line: "] of switch <where> guid 0x<guid> (<name>):\n".
void describe_head_tail(Printer& p, const TableHead& h) {
  p.lit("] of switch ").lit(h.where).lit(" guid 0x").guid(PRINT_FP, nullptr, "%016x", h.guid).lit(" (").lit(h.name).lit("):\n");
}

// A known destination: the text's words (": (Channel Adapter portguid
// 0x...: 'name')\n") and/or the JSON "destination" object.
void describe_dest(Printer& p, const LidDest& d, bool text, bool json) {
  PrintKind k = text && json ? PRINT_ANY : text ? PRINT_FP : PRINT_JSON;
  if (json) p.open_object("destination");
  if (text) p.lit(": (").lit(node_type_long(d.type)).lit(" portguid 0x");
  p.guid(k, "portGUID", "%016x", d.port_guid);
  if (json) p.enumeration(PRINT_JSON, "nodeType", nullptr, iba_node_type(d.type), unsigned(d.type));
  if (text) p.lit(": '");
  p.str(k, "name", "%s", d.name);
  if (text) p.lit("')\n");
  if (json) p.uint(PRINT_JSON, "baseLID", nullptr, d.base_lid).uint(PRINT_JSON, "LMC", nullptr, d.lmc).close_object();
}

}  // namespace

unsigned UnicastDump::table(const TableHead& h, const std::vector<uint8_t>& lft, unsigned start, unsigned end,
                            const LidResolver& resolve) {
  return table_by(h, lft, start, end, resolve);
}

unsigned UnicastDump::table(const TableHead& h, const std::vector<uint8_t>& lft, unsigned start, unsigned end,
                            const std::vector<LidDest>& dests) {
  return table_by(h, lft, start, end, [&](unsigned lid) { return lid < dests.size() ? &dests[lid] : nullptr; });
}

// A dump_fts of a k=32 fat tree is 12M rows: they go through the Printer's
// row path, and the words that name a destination are made once per LID
// (LidDest::row, Printer::cached).
template <class Resolve>
unsigned UnicastDump::table_by(const TableHead& h, const std::vector<uint8_t>& lft, unsigned start, unsigned end,
                               const Resolve& resolve) {
  Printer& p = p_;
  auto rows = p.rows();
  // The reference reads the table in 64-LID blocks up to end/64 rounded up:
  // an end LID that starts a block is left out (of the JSON's range too).
  unsigned last = end && end % 64 == 0 ? end - 1 : end;
  describe_head(p, h, "Unicast lids [0x");
  p.uint(PRINT_ANY, "startLID", "%x", start).lit("-0x").uint(PRINT_FP, nullptr, "%x", end).uint(PRINT_JSON, "endLID", nullptr, last);
  describe_head_tail(p, h);
  p.lit("  Lid  Out   Destination\n       Port     Info \n");
  p.open_array("lft");
  const std::string unknown = ": (" + unknown_ + ")\n";
  unsigned n = 0;
  for (unsigned lid = start; lid <= last; ++lid) {
    uint8_t port = lid < lft.size() ? lft[lid] : LFT_NO_ROUTE;
    bool valid = port != LFT_NO_ROUTE;
    if (!valid && !all_) continue;
    ++n;
    p.open_object().lit("0x").uint(PRINT_ANY, "LID", "%04x", lid).lit(' ');
    if (valid) p.uint(PRINT_ANY, "port", "%03u", port);
    else p.uint(PRINT_FP, nullptr, "%03u", port).null("port");
    p.lit(' ');
    if (no_dests_) {
      p.lit('\n').close_object();
      continue;
    }
    // The text's words: a LID of the last port named in full by its path
    // number (without asking the resolver), else the destination's.
    p.text_part([&] {
      bool in_last = lid >= last_base_ && lid < last_base_ + last_count_;
      bool by_path = have_last_ && in_last;
      const LidDest* d = valid && !by_path ? resolve(lid) : nullptr;
      if (!valid) {
        if (in_last) p.lit(": (path #").uint(PRINT_FP, nullptr, "%u", lid - last_base_).lit(" - illegal port)\n");
        else p.lit(": (illegal port)\n");
      } else if (by_path) {
        p.lit(": (path #").uint(PRINT_FP, nullptr, "%u", lid - last_base_ + 1).lit(" out of ");
        p.uint(PRINT_FP, nullptr, "%u", last_count_).lit(": portguid 0x").guid(PRINT_FP, nullptr, "%016x", last_guid_).lit(")\n");
      } else if (d && d->known) {
        have_last_ = true;
        last_base_ = d->base_lid;
        last_count_ = 1u << d->lmc;
        last_guid_ = d->port_guid;
        p.cached(d->row, false, [&] { describe_dest(p, *d, true, false); });
      } else {
        p.lit(unknown);
      }
    });
    // The document's: the destination object (or null) with inline_dests.
    if (inline_dests_)
      p.json_part([&] {
        const LidDest* d = valid ? resolve(lid) : nullptr;
        if (d && d->known) describe_dest(p, *d, false, true);
        else p.null("destination");
      });
    p.close_object();
  }
  p.close_array().close_object();
  p.uint(PRINT_FP, nullptr, "%u", n).lit(all_ ? " lids dumped \n" : " valid lids dumped \n");
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

void mft_table(Printer& p, const TableHead& h, const MftRead& m, unsigned start, unsigned end, unsigned nports,
               bool all, bool brief) {
  auto rows = p.rows();
  describe_head(p, h, "Multicast mlids [0x");
  p.uint(PRINT_ANY, "startMLID", "%x", start).lit("-0x").uint(PRINT_ANY, "endMLID", "%x", end);
  describe_head_tail(p, h);
  unsigned words = mft_words(nports);
  if (brief) {
    p.lit(" MLid       Port Mask\n");
  } else {
    if (nports > 9) {
      p.lit("            ");
      for (unsigned i = 0; i <= nports; ++i) {
        if (i % 10 == 0) p.uint(PRINT_FP, nullptr, "%u", i / 10).lit(' ');
        else p.lit("  ");
      }
      p.lit('\n');
    }
    p.lit("     Ports: ");
    for (unsigned i = 0; i <= nports; ++i) p.uint(PRINT_FP, nullptr, "%u", i % 10).lit(' ');
    p.lit("\n MLid\n");
  }
  p.open_array("mft");
  unsigned n = 0;
  for (unsigned mlid = start; mlid <= end; ++mlid) {
    const std::array<uint16_t, 16>& mask = mft_mask(m, mlid);
    if (!all && !mask_any(mask, words)) continue;
    ++n;
    p.open_object().lit("0x").uint(PRINT_ANY, "MLID", "%04x", mlid).lit("      ");
    if (brief)
      for (unsigned w = 0; w < words; ++w) p.uint(PRINT_FP, nullptr, "%04x", mask[w]);
    p.open_array("ports");
    for (unsigned i = 0; i <= nports; ++i) {
      bool in = (mask[i / 16] >> (i % 16)) & 1;
      if (in) p.uint(PRINT_JSON, nullptr, nullptr, i);
      if (!brief) p.lit(in ? "x " : "  ");
    }
    p.close_array().lit('\n').close_object();
  }
  p.close_array().close_object();
  p.uint(PRINT_FP, nullptr, "%u", n).lit(all ? " mlids dumped \n" : " valid mlids dumped \n");
}

void json_dests(Printer& p, const std::vector<LidDest>& dests) {
  p.open_array("destinations");
  for (unsigned lid = 0; lid < dests.size(); ++lid)
    if (dests[lid].known) {
      p.open_object().uint(PRINT_JSON, "LID", nullptr, lid);
      describe_dest(p, dests[lid], false, true);
      p.close_object();
    }
  p.close_array();
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
