// The class registry: which attributes each management class carries.
#include <cctype>
#include <cstdio>

#include "iba/mad.h"
#include "iba/smp.h"

namespace iba {

namespace {

constexpr AttrDesc SMP_ATTRS[] = {
    IBA_ATTR(SMPNodeDescription, M_GET),
    IBA_ATTR(SMPNodeInfo, M_GET),
};

constexpr ClassDesc SMP_LID{"SMPFormat", mgmt::SUBN_LID_ROUTED, 1, &SMPFormat::DESC, 64, 64, SMP_ATTRS};
constexpr ClassDesc SMP_DR{"SMPFormatDirected", mgmt::SUBN_DIRECTED_ROUTE, 1, &SMPFormatDirected::DESC, 64, 64,
                           SMP_ATTRS};

constexpr const ClassDesc* CLASSES[] = {&SMP_LID, &SMP_DR};

bool ieq(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

}  // namespace

std::span<const ClassDesc* const> all_classes() { return CLASSES; }

const ClassDesc* find_class(uint8_t mgmt_class, uint8_t class_version) {
  for (const ClassDesc* c : CLASSES)
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
  return nullptr;
}

std::string method_name(uint8_t mgmt_class, uint8_t m) {
  (void)mgmt_class;
  char b[48];
  std::snprintf(b, sizeof b, "Method(%u)", m);
  return b;
}

std::string status_text(uint8_t mgmt_class, uint16_t status) {
  (void)mgmt_class;
  char b[48];
  std::snprintf(b, sizeof b, "status 0x%04x", status);
  return b;
}

}  // namespace iba
