// One port's PM attribute read or reset through its PMA (perfquery): the
// MADs built from the attribute's declaration (PortSelect, CounterSelect),
// several ports read concurrently on the scheduler, and the counters of
// several ports summed as an AllPortSelect read gives them.
#pragma once

#include <cstdint>
#include <exception>
#include <vector>

#include "core/rpc/rpc.h"
#include "core/transport/path.h"
#include "core/transport/transport.h"
#include "iba/struct.h"

namespace ibcore {

// One PM attribute: its declaration, ID and name ("PortXmitDiscardDetails").
struct PmAttr {
  const iba::StructDesc* desc;
  uint16_t id;
  const char* name;
};
template <class T>
PmAttr pm_attr(const char* name) {
  return {&T::DESC, iba::AttrId<T>::value, name};
}

// A field of buf by its declared name (nothing when the attribute has none).
void pm_set_field(const iba::StructDesc& d, std::vector<uint8_t>& buf, const char* name, uint64_t v);

// The attribute of port (255: AllPortSelect), its bytes (desc->size).
std::vector<uint8_t> pm_get(MadTransactor& mad, const PmAttr& a, const IBPath& p, int port);
// Clear the counters mask selects of port (CounterSelect2 too: all of
// PortCounters', and of PortCountersExtended's with all_layout, the PMA's
// additional counters).
void pm_reset(MadTransactor& mad, const PmAttr& a, const IBPath& p, int port, uint64_t mask, bool all_layout);
// The attribute of each of ports, read concurrently; results (or each
// port's failure, errs) in port order.
std::vector<std::vector<uint8_t>> pm_get_ports(Transport& t, const PmAttr& a, const IBPath& p,
                                               const std::vector<int>& ports, std::vector<std::exception_ptr>& errs);
// Every counter of bufs summed (PortSelect/CounterSelect excluded), wrapping
// nothing: counters saturate at their width as the PMA's do.
std::vector<uint8_t> pm_sum(const iba::StructDesc& d, const std::vector<std::vector<uint8_t>>& bufs);

}  // namespace ibcore
