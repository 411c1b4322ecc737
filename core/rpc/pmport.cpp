#include "core/rpc/pmport.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "core/rpc/sched.h"
#include "iba/introspect.h"
#include "iba/mad.h"
#include "iba/pm.h"

namespace ibcore {

void pm_set_field(const iba::StructDesc& d, std::vector<uint8_t>& buf, const char* name, uint64_t v) {
  auto f = iba::find_field(d, name);
  if (f) iba::set_bits(buf.data(), f->bit_off, f->width(), v);
}

namespace {

MadRequest request(const PmAttr& a, uint8_t method, std::vector<uint8_t>& payload) {
  MadRequest r;
  r.cls = iba::find_class(iba::mgmt::PERF);
  r.method = method;
  r.attr_id = a.id;
  r.payload = payload;
  return r;
}

}  // namespace

std::vector<uint8_t> pm_get(MadTransactor& mad, const PmAttr& a, const IBPath& p, int port) {
  std::vector<uint8_t> pl(a.desc->size, 0);
  pm_set_field(*a.desc, pl, "portSelect", uint64_t(port));
  auto rep = mad.call(request(a, iba::method::GET, pl), p);
  auto data = MadTransactor::payload_of(rep);
  std::vector<uint8_t> out(a.desc->size, 0);
  std::memcpy(out.data(), data.data(), std::min(out.size(), data.size()));
  return out;
}

void pm_reset(MadTransactor& mad, const PmAttr& a, const IBPath& p, int port, uint64_t mask, bool all_layout) {
  std::vector<uint8_t> pl(a.desc->size, 0);
  pm_set_field(*a.desc, pl, "portSelect", uint64_t(port));
  pm_set_field(*a.desc, pl, "counterSelect", mask);
  if (a.desc == &iba::PMPortCounters::DESC) pm_set_field(*a.desc, pl, "counterSelect2", 0xff);
  if (a.desc == &iba::PMPortCountersExtended::DESC && all_layout)
    pm_set_field(*a.desc, pl, "counterSelect2", 0xffffffffull);
  mad.call(request(a, iba::method::SET, pl), p);
}

std::vector<std::vector<uint8_t>> pm_get_ports(Transport& t, const PmAttr& a, const IBPath& p,
                                               const std::vector<int>& ports, std::vector<std::exception_ptr>& errs) {
  std::vector<std::vector<uint8_t>> res(ports.size());
  errs.assign(ports.size(), nullptr);
  std::vector<std::vector<uint8_t>> payloads(ports.size(), std::vector<uint8_t>(a.desc->size, 0));
  Scheduler sched(t);
  auto one = [&](size_t i) -> Task<> {
    pm_set_field(*a.desc, payloads[i], "portSelect", uint64_t(ports[i]));
    std::vector<uint8_t> rep;
    try {
      rep = co_await sched.call(request(a, iba::method::GET, payloads[i]), p);
    } catch (...) {
      errs[i] = std::current_exception();
      co_return;
    }
    auto data = MadTransactor::payload_of(rep);
    res[i].assign(a.desc->size, 0);
    std::memcpy(res[i].data(), data.data(), std::min(res[i].size(), data.size()));
  };
  for (size_t i = 0; i < ports.size(); ++i) sched.spawn(one(i));
  sched.run();
  return res;
}

std::vector<uint8_t> pm_sum(const iba::StructDesc& d, const std::vector<std::vector<uint8_t>>& bufs) {
  std::vector<uint8_t> out(d.size, 0);
  for (const auto& leaf : iba::leaves(d)) {
    std::string n = leaf.path;
    if (n == "portSelect" || n.rfind("counterSelect", 0) == 0 || n == "opCode") continue;
    uint32_t w = leaf.field->width;
    for (uint16_t i = 0; i < leaf.field->count; ++i) {
      uint32_t off = leaf.bit_off + i * w;
      unsigned __int128 sum = 0;
      for (const auto& b : bufs) sum += iba::get_bits(b.data(), off, w);
      unsigned __int128 max = w >= 64 ? ~uint64_t(0) : ((uint64_t(1) << w) - 1);
      iba::set_bits(out.data(), off, w, uint64_t(sum > max ? max : sum));
    }
  }
  return out;
}

}  // namespace ibcore
