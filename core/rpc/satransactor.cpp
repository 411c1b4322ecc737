#include "core/rpc/satransactor.h"

#include <cstring>
#include <stdexcept>

#include "core/base/config.h"
#include "core/base/error.h"
#include "iba/introspect.h"

namespace ibcore {

namespace {

// The SA record that holds an SMP attribute (field `embedded`); both IDs
// are iba/'s.
template <class Smp, class Record>
constexpr SAMapping mapping(const char* embedded) {
  return {iba::attr_id<Smp>, &Record::DESC, iba::attr_id<Record>, embedded};
}

const SAMapping kMappings[] = {
    mapping<iba::SMPNodeInfo, iba::SANodeRecord>("nodeInfo"),
    mapping<iba::SMPNodeDescription, iba::SANodeRecord>("nodeDescription"),
    mapping<iba::SMPPortInfo, iba::SAPortInfoRecord>("portInfo"),
    mapping<iba::SMPSwitchInfo, iba::SASwitchInfoRecord>("switchInfo"),
    mapping<iba::SMPLinearForwardingTable, iba::SALinearForwardingTableRecord>("linearForwardingTable"),
    mapping<iba::SMPRandomForwardingTable, iba::SARandomForwardingTableRecord>("randomForwardingTable"),
    mapping<iba::SMPMulticastForwardingTable, iba::SAMulticastForwardingTableRecord>("multicastForwardingTable"),
    mapping<iba::SMPPKeyTable, iba::SAPKeyTableRecord>("PKeyTable"),
    mapping<iba::SMPSLToVLMappingTable, iba::SASLToVLMappingTableRecord>("SLToVLMappingTable"),
    mapping<iba::SMPVLArbitrationTable, iba::SAVLArbitrationTableRecord>("VLArbitrationTable"),
    mapping<iba::SMPGUIDInfo, iba::SAGUIDInfoRecord>("GUIDInfo"),
    mapping<iba::SMPSMInfo, iba::SASMInfoRecord>("SMInfo"),
};

constexpr uint16_t ATTR_NODE_INFO = iba::attr_id<iba::SMPNodeInfo>, ATTR_PORT_INFO = iba::attr_id<iba::SMPPortInfo>,
                   ATTR_PKEY = iba::attr_id<iba::SMPPKeyTable>, NODE_RECORD = iba::attr_id<iba::SANodeRecord>;


// Set a record field and return its component bit.
uint64_t put(const iba::StructDesc& d, std::vector<uint8_t>& rec, const char* name, uint64_t v) {
  auto f = iba::field_named(d, name);
  iba::set_bits(rec.data(), f.bit_off, f.width(), v);
  return iba::component_mask(f);
}

}  // namespace

const SAMapping* sa_mapping(uint16_t smp_attr) {
  for (const auto& m : kMappings)
    if (m.smp_attr == smp_attr) return &m;
  return nullptr;
}

SATransactor::SATransactor(MadTransactor& parent, std::optional<IBPath> sa_path)
    : mad_(parent), res_(parent, /*use_smp=*/false) {
  // The walk's "is this hop a switch" reads the NodeRecords kept here.
  res_.set_switch_test([this](uint16_t lid) { return is_switch(lid, nullptr); });
  if (sa_path) {
    sa_override_ = *sa_path;
    res_.set_sa_path(*sa_path);
  }
}

const IBPath& SATransactor::sa_path() { return sa_override_ ? *sa_override_ : res_.sa_path(); }

uint64_t SATransactor::make_query(const SAMapping& m, uint16_t lid, uint32_t amod, std::optional<bool> is_switch,
                                  std::vector<uint8_t>& rec) {
  const iba::StructDesc& d = *m.record;
  rec.assign(d.size, 0);
  uint64_t mask = 0;
  const char* lid_field = m.record == &iba::SAPortInfoRecord::DESC ? "endportLID" : "LID";
  mask |= put(d, rec, lid_field, lid);
  switch (m.smp_attr) {
    case ATTR_PORT_INFO:  // PortInfo: amod = port number
      if (amod != 0 || is_switch.value_or(true)) mask |= put(d, rec, "portNum", amod & 0xff);
      break;
    case iba::attr_id<iba::SMPLinearForwardingTable>:  // LFT: amod = block
    case iba::attr_id<iba::SMPRandomForwardingTable>:
      mask |= put(d, rec, "blockNum", amod & 0xffff);
      break;
    case iba::attr_id<iba::SMPMulticastForwardingTable>:  // MFT: position in 31..28, block in 8..0
      mask |= put(d, rec, "blockNum", amod & 0x1ff);
      mask |= put(d, rec, "position", (amod >> 28) & 0xf);
      break;
    case ATTR_PKEY:  // P_Key: port in 31..16 (switches), block in 15..0
      mask |= put(d, rec, "blockNum", amod & 0xffff);
      if ((amod >> 16) != 0 || is_switch.value_or(true)) mask |= put(d, rec, "portNum", (amod >> 16) & 0xff);
      break;
    case iba::attr_id<iba::SMPSLToVLMappingTable>:  // SL2VL: input port 15..8, output port 7..0
      mask |= put(d, rec, "inputPortNum", (amod >> 8) & 0xff);
      mask |= put(d, rec, "outputPortNum", amod & 0xff);
      break;
    case iba::attr_id<iba::SMPVLArbitrationTable>:  // VLArb: block 31..16, output port 15..0
      mask |= put(d, rec, "outputPortNum", amod & 0xff);
      mask |= put(d, rec, "blockNum", (amod >> 16) & 0xff);
      break;
    case iba::attr_id<iba::SMPGUIDInfo>:  // GUIDInfo: block
      mask |= put(d, rec, "blockNum", amod & 0xff);
      break;
    default:
      break;
  }
  return mask;
}

uint16_t SATransactor::get_path_lid(const IBPath& path) {
  if (!path.is_dr()) return path.DLID;
  return res_.dr_to_lid(path);
}

bool SATransactor::is_switch(uint16_t lid, uint8_t* local_port) {
  IBPath p;
  p.DLID = lid;
  iba::SMPNodeInfo ni;
  ni.load(get(ATTR_NODE_INFO, p));
  if (local_port) *local_port = uint8_t(ni.localPortNum());
  return ni.nodeType() == 2;
}

// --- the steps of an SA read, shared by SATransactor and AsyncSmpSource ---------------

const SAMapping& SAReadSteps::mapping(uint16_t smp_attr) {
  const SAMapping* m = sa_mapping(smp_attr);
  if (!m) {
    char b[96];
    std::snprintf(b, sizeof b, "SMP attribute 0x%04x has no SA record: it cannot be read through the SA (--sa)",
                  smp_attr);
    throw MADError(b);
  }
  return *m;
}

bool SAReadSteps::names_port_zero(uint16_t smp_attr, uint32_t amod) {
  return (smp_attr == ATTR_PORT_INFO && (amod & 0xff) == 0) || (smp_attr == ATTR_PKEY && (amod >> 16) == 0);
}

uint32_t SAReadSteps::with_port(uint16_t smp_attr, uint32_t amod, uint8_t port) {
  return smp_attr == ATTR_PORT_INFO ? port : amod | uint32_t(port) << 16;
}

MadRequest SAReadSteps::request(const SAMapping& m, uint16_t lid, uint32_t amod, std::optional<bool> sw,
                                std::vector<uint8_t>& rec) {
  MadRequest req;
  req.cls = iba::find_class(iba::mgmt::SUBN_ADM);
  req.method = iba::method::GET;
  req.attr_id = m.record_attr;
  req.comp_mask = SATransactor::make_query(m, lid, amod, sw, rec);
  req.payload = rec;
  return req;
}

void SAReadSteps::annotate(MADError& e, const SAMapping& m, const IBPath& path) {
  // IBA 15.4.1 (and OpenSM): P_KeyTableRecords go only to trusted
  // requesters, whose SM_Key matches the SA's; anything else is refused
  // with ERR_REQ_INVALID whatever the record asked for.
  auto* ce = dynamic_cast<MADClassError*>(&e);
  // (The request as sent says whether it carried a key.)
  const bool keyless = e.req.size() >= iba::SAFormat::SIZE && !iba::SAFormat::SMKey_at(e.req.data());
  if (m.record_attr == iba::attr_id<iba::SAPKeyTableRecord> && ce && (ce->status >> 8) == 2 && keyless)
    e.annotate("The SA gives P_KeyTableRecords only to trusted requests: give its SM_Key with --smkey "
               "(or sa_key in the ibdiag.conf file).");
  e.annotate("Failed getting the SA record for " + path.describe() + " (--sa).");
}

std::vector<uint8_t> SAReadSteps::unwrap(const SAMapping& m, std::span<const uint8_t> reply, uint8_t entry_port) {
  auto data = MadTransactor::payload_of(reply);
  auto f = iba::field_named(*m.record, m.embedded);
  size_t off = f.bit_off / 8, n = f.width() / 8;
  std::vector<uint8_t> out(n, 0);
  if (off < data.size()) std::memcpy(out.data(), data.data() + off, std::min(n, data.size() - off));
  if (m.smp_attr == ATTR_NODE_INFO && entry_port) {
    // An SMP's NodeInfo says which port the SMP entered by; the NodeRecord's
    // says which port the SM's came in by.  Along a directed route the
    // LinkRecord of the last hop knows the port an SMP would have entered.
    iba::SMPNodeInfo ni;
    ni.load(out);
    ni.set_localPortNum(entry_port);
    std::memcpy(out.data(), ni.raw(), std::min(out.size(), size_t(ni.SIZE)));
  }
  return out;
}

void SAReadSteps::sw_entry_port(std::vector<uint8_t>& port_info, uint8_t entry_port) {
  iba::SMPPortInfo pi;
  pi.load(port_info);
  pi.set_localPortNum(entry_port);
  std::memcpy(port_info.data(), pi.raw(), std::min(port_info.size(), size_t(pi.SIZE)));
}

std::vector<uint8_t> SATransactor::get(uint16_t smp_attr, const IBPath& path, uint32_t amod) {
  const SAMapping& m = SAReadSteps::mapping(smp_attr);
  uint16_t lid = get_path_lid(path);
  if (!lid) lid = mad_.transport().local_lid();
  std::optional<bool> sw;
  // Port 0 means "this port" on a CA: the SA wants the real port number.
  if (SAReadSteps::names_port_zero(smp_attr, amod)) {
    uint8_t local_port = 0;
    sw = is_switch(lid, &local_port);
    if (!*sw) {
      amod = SAReadSteps::with_port(smp_attr, amod, local_port);
      sw = true;  // the port number is now explicit
    }
  }
  // A NodeRecord (NodeInfo and NodeDescription of a LID, and whether it is
  // a switch) is asked once.
  bool node = m.record_attr == NODE_RECORD;
  auto it = node ? node_records_.find(lid) : node_records_.end();
  std::vector<uint8_t> rep;
  if (it == node_records_.end()) {
    try {
      std::vector<uint8_t> rec;
      rep = mad_.call(SAReadSteps::request(m, lid, amod, sw, rec), sa_path());
    } catch (MADError& e) {
      SAReadSteps::annotate(e, m, path);
      throw;
    }
    if (node) it = node_records_.emplace(lid, std::move(rep)).first;
  }
  auto out = SAReadSteps::unwrap(m, it != node_records_.end() ? it->second : rep,
                                 smp_attr == ATTR_NODE_INFO ? res_.dr_entry_port(path) : 0);
  if (SAReadSteps::needs_switch_entry(smp_attr) && is_switch(lid, nullptr))
    SAReadSteps::sw_entry_port(out, path.is_dr() ? res_.dr_entry_port(path) : 0);
  return out;
}

bool is_sa_no_records(const std::exception& e) {
  auto* ce = dynamic_cast<const MADClassError*>(&e);
  return ce && ce->mgmt_class == iba::mgmt::SUBN_ADM && ce->class_code() == 3;
}

// --- the scheduler's source ---------------------------------------------------------

AsyncSmpSource::AsyncSmpSource(Scheduler& s, std::optional<bool> use_sa, std::optional<IBPath> sa_path)
    : s_(s), sa_(use_sa.value_or(s.transport().settings().use_sa)), sa_path_(std::move(sa_path)) {}

const IBPath& AsyncSmpSource::sa_path() {
  if (!sa_path_) {
    if (s_.transport().settings().sa_path.empty()) {
      sa_path_ = s_.sa_path();
    } else {
      MadTransactor mad(s_.transport());  // only reads --sa-path and the port's SM LID / SL
      sa_path_ = sa_path_from_config(mad);
    }
  }
  return *sa_path_;
}

Task<std::pair<uint16_t, uint8_t>> AsyncSmpSource::path_end(IBPath path) {
  if (!path.is_dr()) co_return std::make_pair(path.DLID, uint8_t(0));
  if (path.drDLID != LID_PERMISSIVE && path.hop_count() == 0) co_return std::make_pair(path.drDLID, uint8_t(0));
  // Follow the route through the SA's LinkRecords: from each node's LID out
  // of the hop's port to the LID and port at the other end.
  static const uint64_t mask = iba::component_mask(iba::SALinkRecord::DESC, "fromLID") |
                               iba::component_mask(iba::SALinkRecord::DESC, "fromPort");
  std::pair<uint16_t, uint8_t> at{s_.transport().local_lid(), 0};
  for (size_t i = 1; i < path.drPath.size(); ++i) {
    if (i >= 2 && (co_await node_info(at.first)).nodeType() != 2)
      throw GmpPathResolver::not_forwarded(path, i - 1, at.first);
    auto key = std::make_pair(at.first, path.drPath[i]);
    auto it = links_.find(key);
    if (it == links_.end()) {
      iba::SALinkRecord q;
      q.set_fromLID(key.first).set_fromPort(key.second);
      SATable<iba::SALinkRecord> t;
      std::exception_ptr failed;
      try {
        t = co_await s_.SubnAdmGetTable(q, mask, sa_path());
      } catch (MADError& e) {
        e.annotate("Failed resolving " + path.describe() + " to a LID.");
        failed = std::current_exception();
      }
      if (failed) std::rethrow_exception(failed);
      if (t.records.empty())
        throw MADError("No link leaves lid " + std::to_string(key.first) + " port " + std::to_string(key.second) +
                       " in the SA's LinkRecords: failed resolving " + path.describe() + " to a LID.");
      it = links_.emplace(key, std::make_pair(uint16_t(t.records[0].toLID()), uint8_t(t.records[0].toPort()))).first;
    }
    at = it->second;
  }
  if (!at.first) throw MADError("The port at " + path.describe() + " has no LID");
  co_return at;
}

Task<std::vector<uint8_t>> AsyncSmpSource::record(uint16_t lid, const SAMapping& m, uint32_t amod,
                                                  std::optional<bool> sw, const IBPath& path) {
  bool node = m.record_attr == NODE_RECORD;
  if (node) {
    auto it = node_records_.find(lid);
    if (it != node_records_.end()) co_return it->second;
  }
  std::vector<uint8_t> rec, rep;
  std::exception_ptr failed;
  try {
    rep = co_await s_.call(SAReadSteps::request(m, lid, amod, sw, rec), sa_path());
  } catch (MADError& e) {
    SAReadSteps::annotate(e, m, path);
    failed = std::current_exception();
  }
  if (failed) std::rethrow_exception(failed);
  if (node) node_records_[lid] = rep;
  co_return rep;
}

Task<std::vector<uint8_t>> AsyncSmpSource::sa_get(uint16_t smp_attr, IBPath path, uint32_t amod) {
  const SAMapping& m = SAReadSteps::mapping(smp_attr);
  auto [lid, entry_port] = co_await path_end(path);
  if (!lid) lid = s_.transport().local_lid();
  std::optional<bool> sw;
  // Port 0 means "this port" on a CA: the SA wants the real port number.
  if (SAReadSteps::names_port_zero(smp_attr, amod)) {
    iba::SMPNodeInfo ni = co_await node_info(lid);
    sw = ni.nodeType() == 2;
    if (!*sw) {
      amod = SAReadSteps::with_port(smp_attr, amod, uint8_t(ni.localPortNum()));
      sw = true;  // the port number is now explicit
    }
  }
  auto rep = co_await record(lid, m, amod, sw, path);
  auto out = SAReadSteps::unwrap(m, rep, smp_attr == ATTR_NODE_INFO ? entry_port : 0);
  if (SAReadSteps::needs_switch_entry(smp_attr) && (co_await node_info(lid)).nodeType() == 2)
    SAReadSteps::sw_entry_port(out, entry_port);
  co_return out;
}

Task<iba::SMPNodeInfo> AsyncSmpSource::node_info(uint16_t lid) {
  IBPath at;
  at.DLID = lid;
  iba::SMPNodeInfo ni;
  ni.load(SAReadSteps::unwrap(*sa_mapping(ATTR_NODE_INFO),
                              co_await record(lid, *sa_mapping(ATTR_NODE_INFO), 0, std::nullopt, at), 0));
  co_return ni;
}

SmpSource::SmpSource(MadTransactor& mad, std::optional<bool> use_sa, std::optional<IBPath> sa_path) : mad_(mad) {
  if (use_sa.value_or(mad.transport().settings().use_sa)) sa_.emplace(mad, std::move(sa_path));
}

}  // namespace ibcore
