// perfquery's layouts: PM attributes printed "Label:....value" exactly as
// the reference perfquery prints them (labels, order, number formats).
// The "# ... counters: Lid N port M" header lines belong to the command.
#pragma once

#include <span>
#include <string>

#include "iba/pm.h"
#include "iba/refprint.h"

namespace iba::ref {

// The layout of a PM attribute (empty if desc is not one perfquery prints).
// For PortCountersExtended, `all` selects the layout with CounterSelect2 and
// the 64-bit error counters (printed when ClassPortInfo.CapabilityMask2
// announces them); otherwise `all` is ignored.
std::span<const Line> pm_lines(const StructDesc& desc, bool all = false);

// Every line of the layout for the attribute in buf; throws
// std::invalid_argument if desc has no layout.
std::string pm_print(const StructDesc& desc, const uint8_t* buf, bool all = false);

template <class T>
std::string pm_print(const T& attr, bool all = false) {
  return pm_print(T::DESC, attr.raw(), all);
}

}  // namespace iba::ref
