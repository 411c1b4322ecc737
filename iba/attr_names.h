// Attributes as a user names them: the one name table of query,
// decode_mad --attr and whatever else takes attribute names (over the
// class registry, iba/mad.h).
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "iba/mad.h"

namespace iba {

// An attribute among the classes whose management class is in [lo, hi], in
// all_classes() order: its structure name ("SMPPortInfo", case-insensitive;
// another layout's too), the name without its class prefix ("PortInfo",
// "NodeRecord": the first class that has one), or a number (the attribute
// ID).  {nullptr, nullptr}: none.
std::pair<const ClassDesc*, const AttrDesc*> find_attr_named(std::string_view name, uint8_t lo = 0,
                                                             uint8_t hi = 0xff);

}  // namespace iba
