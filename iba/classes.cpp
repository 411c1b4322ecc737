// The class registry: which attributes each management class carries, and
// with which request methods (IBA 14.2.5 Table 145 for the SMPs).
#include <cctype>
#include <cstdio>
#include <vector>

#include "iba/attr_names.h"
#include "iba/introspect.h"
#include "iba/mad.h"
#include "iba/smp.h"

namespace iba {

namespace {

constexpr uint32_t M_GS = M_GET | M_SET;

constexpr AttrDesc SMP_ATTRS[] = {
    IBA_ATTR(MADNotice, M_GET | M_SET | M_TRAP | M_TRAP_REPRESS),
    IBA_ATTR(SMPNodeDescription, M_GET),
    IBA_ATTR(SMPNodeInfo, M_GET),
    IBA_ATTR(SMPSwitchInfo, M_GS),
    IBA_ATTR(SMPGUIDInfo, M_GS),
    IBA_ATTR(SMPPortInfo, M_GS),
    IBA_ATTR(SMPPKeyTable, M_GS),
    IBA_ATTR(SMPSLToVLMappingTable, M_GS),
    IBA_ATTR(SMPVLArbitrationTable, M_GS),
    IBA_ATTR(SMPLinearForwardingTable, M_GS),
    IBA_ATTR(SMPRandomForwardingTable, M_GS),
    IBA_ATTR(SMPMulticastForwardingTable, M_GS),
    IBA_ATTR(SMPLinkSpeedWidthPairsTable, M_GS),
    IBA_ATTR(SMPVendorSpecificMadsTable, M_GET),
    IBA_ATTR(SMPHierarchyInfo, M_GS),
    IBA_ATTR(SMPSMInfo, M_GS),
    IBA_ATTR(SMPVendorDiag, M_GET),
    IBA_ATTR(SMPLedInfo, M_GS),
    IBA_ATTR(SMPCableInfo, M_GET),
    IBA_ATTR(SMPPortInfoExtended, M_GS),
    IBA_ATTR(SMPMlnxExtPortInfo, M_GS),
};

constexpr ClassDesc SMP_LID{"SMPFormat", mgmt::SUBN_LID_ROUTED, 1, &SMPFormat::DESC, 64, 64, SMP_ATTRS};
constexpr ClassDesc SMP_DR{"SMPFormatDirected", mgmt::SUBN_DIRECTED_ROUTE, 1, &SMPFormatDirected::DESC, 64, 64,
                           SMP_ATTRS};

constexpr const ClassDesc* SMP_CLASSES[] = {&SMP_LID, &SMP_DR};

const std::vector<const ClassDesc*>& class_list() {
  static const std::vector<const ClassDesc*> all = [] {
    std::vector<const ClassDesc*> v(std::begin(SMP_CLASSES), std::end(SMP_CLASSES));
    for (const ClassDesc* c : gmp_classes()) v.push_back(c);
    return v;
  }();
  return all;
}

bool ieq(std::string_view a, std::string_view b) { return iequals(a, b); }

}  // namespace

std::span<const ClassDesc* const> all_classes() { return class_list(); }

const ClassDesc* find_class(uint8_t mgmt_class, uint8_t class_version) {
  for (const ClassDesc* c : class_list())
    if (c->mgmt_class == mgmt_class && (class_version == 0 || c->class_version == class_version)) return c;
  return nullptr;
}

const AttrDesc* find_attr(const ClassDesc& c, uint16_t attr_id) {
  for (const auto& a : c.attrs)
    if (a.id == attr_id) return &a;
  return nullptr;
}

const AttrDesc* find_attr(const ClassDesc& c, std::string_view name) {
  for (const auto& a : c.attrs)
    if (ieq(a.desc->name, name)) return &a;
  for (const auto& a : c.variants)
    if (ieq(a.desc->name, name)) return &a;
  return nullptr;
}

std::pair<const ClassDesc*, const AttrDesc*> find_attr_named(std::string_view name, uint8_t lo, uint8_t hi) {
  const auto id = parse_uint(name);
  auto ends_with = [](std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && ieq(s.substr(s.size() - suffix.size()), suffix);
  };
  std::pair<const ClassDesc*, const AttrDesc*> by_suffix{nullptr, nullptr};
  for (const ClassDesc* c : class_list()) {
    if (c->mgmt_class < lo || c->mgmt_class > hi) continue;
    for (const AttrDesc& a : c->attrs) {
      if (id ? a.id == *id : ieq(a.desc->name, name)) return {c, &a};
      if (!id && !by_suffix.first && ends_with(a.desc->name, name)) by_suffix = {c, &a};
    }
    // Another layout of an attribute (PMPortExtendedSpeedsCountersRSFEC, ...): by its full name only.
    for (const AttrDesc& a : c->variants)
      if (!id && ieq(a.desc->name, name)) return {c, &a};
  }
  return by_suffix;
}

const AttrDesc& payload_attr(const ClassDesc& c, const AttrDesc& a, std::span<const uint8_t> payload) {
  for (const auto& v : c.variants)
    if (v.id == a.id && v.applies && v.applies(payload)) return v;
  return a;
}

const StructDesc* notice_details_desc(uint16_t trap) {
  switch (trap) {
    case 64: case 65: case 66: case 67:
      return &NoticeTrap64::DESC;
    case 128:
      return &NoticeTrap128::DESC;
    case 129: case 130: case 131:
      return &NoticeTrap129::DESC;
    case 144:
      return &NoticeTrap144::DESC;
    case 145:
      return &NoticeTrap145::DESC;
    case 256:
      return &NoticeTrap256::DESC;
    case 257: case 258:
      return &NoticeTrap257::DESC;
    case 259:
      return &NoticeTrap259::DESC;
    default:
      return nullptr;
  }
}

}  // namespace iba
