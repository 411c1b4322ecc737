#include "core/health/pmscrape.h"

#include "core/base/error.h"
#include "core/health/counters.h"
#include "iba/introspect.h"
#include "iba/mad.h"

namespace ibcore::health {

CounterSource counter_source(const PmaCaps& c) {
  if (!c.ext()) return CounterSource::PortCounters;
  return c.ext_errors() ? CounterSource::Extended : CounterSource::Split;
}

bool is_pc_data_field(std::string_view n) {
  return n == "portXmitData" || n == "portRcvData" || n == "portXmitPkts" || n == "portRcvPkts";
}

bool ext_field_valid(const PmaCaps& c, std::string_view n) {
  if (!c.ext() || n == "portSelect" || n.starts_with("counterSelect")) return false;
  if (n == "portXmitData" || n == "portRcvData" || n == "portXmitPkts" || n == "portRcvPkts") return true;
  if (n.starts_with("portUnicast") || n.starts_with("portMulticast")) return c.ext_ietf();
  return c.ext_errors();
}

CounterGroup counter_group(std::string_view n) {
  if (n == "portSelect" || n.starts_with("counterSelect") || n.starts_with("reserved")) return CounterGroup::None;
  if (is_pc_data_field(n) || n.starts_with("portUnicast") || n.starts_with("portMulticast")) return CounterGroup::Data;
  if (n == "portXmitWait") return CounterGroup::Congestion;
  return CounterGroup::Errors;
}

bool pc_zero(const iba::PMPortCounters& pc, const CounterGroups& want) {
  for (const iba::FieldDesc& f : iba::PMPortCounters::DESC.field_list()) {
    CounterGroup g = counter_group(f.name);
    if (f.kind == iba::Kind::Rsv || g == CounterGroup::None || g == CounterGroup::Data || !want.has(g)) continue;
    if (iba::get_bits(pc.buf.data(), f.bit_off, f.width)) return false;
  }
  return true;
}

bool pc_errors_zero(const iba::PMPortCounters& pc) { return pc_zero(pc, CounterGroups{}); }

Saturation saturation(const PortCountersRead& c, const CounterGroups& want) {
  Saturation s;
  if (c.source == CounterSource::Extended) {
    if (c.ext_ok)
      for (const iba::FieldDesc& f : iba::PMPortCountersExtended::DESC.field_list())
        if (ext_field_valid(c.caps, f.name) && want.has(counter_group(f.name)) &&
            iba::get_bits(c.ext.buf.data(), f.bit_off, f.width) == ~0ull)
          ++s.count;
    return s;
  }
  if (!c.pc_ok) return s;
  for (int i = 0; i < N_ERR; ++i) {
    if (!want.has(i == PortXmitWait ? CounterGroup::Congestion : CounterGroup::Errors)) continue;
    if (ERROR_COUNTERS.value(c.pc, i) != ERROR_COUNTERS.max(i)) continue;
    ++s.count;
    if (i == PortXmitWait) s.xmit_wait = true;
    else s.select |= uint16_t(1u << i);
  }
  if (c.source == CounterSource::PortCounters && want.data)
    for (int i = 0; i < 4; ++i)
      if (DATA_COUNTERS.value(c.pc, i) == 0xffffffffu) {
        ++s.count;
        s.select |= uint16_t(1u << (12 + i));
      }
  return s;
}

std::vector<std::string> error_layers(const std::exception_ptr& e) {
  if (!e) return {};
  try {
    std::rethrow_exception(e);
  } catch (const MADError& m) {
    return m.layers();
  } catch (...) {
  }
  return {};
}

namespace {
bool is_timeout(const MADError& e) { return dynamic_cast<const MADTimeoutError*>(&e) != nullptr; }
}  // namespace

bool RetryBudget::again(const std::exception& e, unsigned retried) {
  if (!dynamic_cast<const MADTimeoutError*>(&e)) return false;
  if (expired() || retried >= MAX_RETRIES) {
    ++given_up_;
    return false;
  }
  ++retries_;
  return true;
}

template <class T, class Ask>
Task<T> PortCountersReader::retrying(Ask ask) {
  // (a PathRecord that failed is asked again too: the scrape has PmAccess
  // forget failed paths)
  for (unsigned retried = 0;; ++retried) {
    try {
      co_return co_await ask();
    } catch (const MADError& e) {
      if (!retry_ || !retry_->again(e, retried)) throw;
    }
  }
}

Task<> PortCountersReader::ask_caps(uint16_t lid, CapsEntry& e) {
  try {
    auto cpi = co_await retrying<iba::MADClassPortInfo>([&]() -> Task<iba::MADClassPortInfo> {
      IBPath p = co_await pm_.path(lid);
      ++cpi_;
      co_return co_await pm_.sched().PerformanceGet<iba::MADClassPortInfo>(p);
    });
    e.caps.mask = uint16_t(cpi.capabilityMask());
    e.caps.mask2 = uint32_t(cpi.capabilityMask2());
  } catch (const MADError& err) {
    e.caps.failed = true;
    e.caps.timed_out = is_timeout(err);
    e.caps.error = std::current_exception();
    ++shared_failed_;
    if (e.caps.timed_out) ++shared_timeouts_;
  }
  e.ready.set(pm_.sched());
}

template <class Entry>
Task<const Entry*> PortCountersReader::once(std::unordered_map<uint16_t, Entry>& m, uint16_t lid,
                                            Task<> (PortCountersReader::*ask)(uint16_t, Entry&)) {
  auto [it, fresh] = m.try_emplace(lid);
  Entry& e = it->second;  // (stays put while the map grows)
  if (fresh) co_await (this->*ask)(lid, e);
  co_await e.ready.wait();
  co_return &e;
}

template <class Entry>
const Entry* PortCountersReader::known(const std::unordered_map<uint16_t, Entry>& m, uint16_t lid) {
  auto it = m.find(lid);
  return it != m.end() && it->second.ready.is_set() ? &it->second : nullptr;
}

Task<PmaCaps> PortCountersReader::caps(uint16_t lid) {
  co_return (co_await once(caps_, lid, &PortCountersReader::ask_caps))->caps;
}

const PmaCaps* PortCountersReader::known_caps(uint16_t lid) const {
  const CapsEntry* e = known(caps_, lid);
  return e ? &e->caps : nullptr;
}

Task<> PortCountersReader::ask_sum(uint16_t lid, SumEntry& e) {
  try {
    ++sums_;
    e.sum.pc = co_await pm_.counters(lid, 0xff);
    e.sum.ok = true;
    if (pc_zero(e.sum.pc, want_)) ++clean_sums_;
  } catch (const MADError& err) {
    // No sum: the ports are read one by one.
    e.sum.error = std::current_exception();
    ++shared_failed_;
    if (is_timeout(err)) ++shared_timeouts_;
  }
  e.ready.set(pm_.sched());
}

Task<PortSum> PortCountersReader::sum(uint16_t lid) {
  PmaCaps c = co_await caps(lid);
  if (c.failed || !c.all_port_select()) co_return PortSum{};
  co_return (co_await once(sums_by_lid_, lid, &PortCountersReader::ask_sum))->sum;
}

const PortSum* PortCountersReader::known_sum(uint16_t lid) const {
  const SumEntry* e = known(sums_by_lid_, lid);
  return e ? &e->sum : nullptr;
}

Task<> PortCountersReader::read(uint16_t lid, uint8_t port, bool switch_port, PortCountersRead& out,
                                CounterGroups want, const PmaCaps* known) {
  // Nothing wanted: no MAD (not even the PMA's ClassPortInfo).
  if (!want.any()) co_return;
  if (known) out.caps = *known;
  else out.caps = co_await caps(lid);
  if (out.caps.failed) co_return;
  out.source = counter_source(out.caps);
  if (pc_errors_ && out.source == CounterSource::Extended) out.source = CounterSource::Split;
  // The plan: PortCountersExtended for the data counters where the PMA
  // has it, and for everything where it holds every counter; PortCounters
  // for what the extended attribute does not give.
  const bool pc_groups = want.errors || want.congestion;
  switch (out.source) {
  case CounterSource::PortCounters: out.pc_wanted = true; break;
  case CounterSource::Split:
    out.ext_wanted = want.data;
    out.pc_wanted = pc_groups;
    break;
  case CounterSource::Extended: out.ext_wanted = true; break;
  }
  auto failed = [&](const MADError& e, const char* attr) {
    ++out.failed;
    if (is_timeout(e)) ++out.timeouts;
    out.error = std::string(attr) + ": " + e.what();
    out.failure = std::current_exception();
  };
  // A switch's sum (for the wanted error and congestion counters; not
  // where the data counters must come from PortCounters one by one): the
  // first of its ports to get here asks it (before its own
  // PortCountersExtended, so that the others' extended reads overlap
  // it); the others wait for it after theirs.
  SumEntry* sum = nullptr;
  if (out.pc_wanted && switch_port && out.caps.all_port_select() &&
      !(out.source == CounterSource::PortCounters && want.data)) {
    auto [it, fresh] = sums_by_lid_.try_emplace(lid);
    sum = &it->second;
    if (fresh) co_await ask_sum(lid, *sum);
  }
  if (out.ext_wanted) {
    try {
      out.ext = co_await retrying<iba::PMPortCountersExtended>([&]() -> Task<iba::PMPortCountersExtended> {
        ++ext_reads_;
        co_return co_await pm_.counters_ext(lid, port);
      });
      out.ext_ok = true;
    } catch (const MADError& e) {
      failed(e, "PortCountersExtended");
    }
  }
  if (!out.pc_wanted) co_return;
  if (sum) {
    co_await sum->ready.wait();
    if (sum->sum.ok && pc_zero(sum->sum.pc, want)) {
      // Every wanted counter of every port of the switch is 0 (the data
      // counters, not taken from PortCounters here, stay 0 in pc).
      out.pc = iba::PMPortCounters{};
      out.pc.set_portSelect(port);
      out.pc_ok = out.pc_from_sum = true;
      co_return;
    }
  }
  try {
    out.pc = co_await retrying<iba::PMPortCounters>([&]() -> Task<iba::PMPortCounters> {
      ++pc_reads_;
      co_return co_await pm_.counters(lid, port);
    });
    out.pc_ok = true;
  } catch (const MADError& e) {
    failed(e, "PortCounters");
  }
}

unsigned operational_data_vls(unsigned code) {
  switch (code) {
  case 1: return 1;
  case 2: return 2;
  case 3: return 4;
  case 4: return 8;
  case 5: return 15;
  default: return 0;
  }
}

Task<> PortCountersReader::read_vl(uint16_t lid, uint8_t port, unsigned vls, VlCountersRead& out) {
  out.vls = vls;
  if (!vls) co_return;
  auto [it, first] = vl_by_lid_.try_emplace(lid);
  VlEntry& e = it->second;  // (stays put while the map grows)
  if (!first) {
    co_await e.ready.wait();
    if (e.unsupported) {
      out.unsupported = true;
      co_return;
    }
  }
  out.wanted = true;
  try {
    out.xmit_wait = co_await retrying<iba::PMPortVLXmitWaitCounters>([&]() -> Task<iba::PMPortVLXmitWaitCounters> {
      IBPath p = co_await pm_.path(lid);
      iba::PMPortVLXmitWaitCounters q;
      q.set_portSelect(port);
      ++vl_reads_;
      co_return co_await pm_.sched().PerformanceGet(q, p);
    });
    out.ok = true;
  } catch (const MADError& err) {
    // The PMA's status (not the SA's for the path): it has not got the
    // attribute (the first port's answer judges the PMA; a later port's
    // refusal is that port's failure).
    auto* st = dynamic_cast<const MADClassError*>(&err);
    if (first && st && st->mgmt_class == uint8_t(iba::mgmt::PERF)) {
      e.unsupported = true;
      ++vl_unsupported_;
      out.wanted = false;
      out.unsupported = true;
    } else {
      ++out.failed;
      if (is_timeout(err)) ++out.timeouts;
      out.error = std::string("PortVLXmitWaitCounters: ") + err.what();
    }
  }
  if (first) e.ready.set(pm_.sched());
}

}  // namespace ibcore::health
