#include "core/rpc/madbuild.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/base/error.h"
#include "iba/enums.h"
#include "iba/introspect.h"
#include "iba/sa.h"
#include "iba/smp.h"
#include "iba/vendor.h"

namespace ibcore {

size_t build_mad(uint8_t* mad, const MadRequest& req, const IBPath& path, uint64_t tid) {
  const iba::ClassDesc* cls = req.cls;
  if (!cls) throw MADError("No management class given for the request");
  if (cls->mgmt_class == iba::mgmt::SUBN_LID_ROUTED && path.is_dr()) {
    cls = iba::find_class(iba::mgmt::SUBN_DIRECTED_ROUTE, cls->class_version);
    if (!cls) throw MADError("The directed route SMP format is not defined");
  } else if (cls->mgmt_class == iba::mgmt::SUBN_DIRECTED_ROUTE && !path.is_dr()) {
    cls = iba::find_class(iba::mgmt::SUBN_LID_ROUTED, cls->class_version);
    if (!cls) throw MADError("The LID routed SMP format is not defined");
  } else if (path.is_dr() && cls->mgmt_class != iba::mgmt::SUBN_LID_ROUTED &&
             cls->mgmt_class != iba::mgmt::SUBN_DIRECTED_ROUTE) {
    throw MADError(std::string("A directed route path (") + path.dr_string() + ") can only carry SMPs, not " +
                   cls->name);
  }
  // An attribute the registry defines is checked against the methods it
  // allows; any other ID goes out as given with the payload as raw bytes
  // (smpdump and vendstat send IDs ibtool does not decode).
  const iba::AttrDesc* a = iba::find_attr(*cls, req.attr_id);
  char b[160];
  if (a && !(a->methods & iba::mbit(req.method))) {
    std::snprintf(b, sizeof b, "RPC %s is not allowed for %s(%u) in %s(%u.%u)",
                  iba::method_name(cls->mgmt_class, req.method).c_str(), a->desc->name, req.attr_id, cls->name,
                  cls->mgmt_class, cls->class_version);
    throw MADError(b);
  }
  std::memset(mad, 0, iba::MAD_SIZE);
  using H = iba::MADHeader;
  H::set_baseVersion_at(mad, 1);
  H::set_mgmtClass_at(mad, cls->mgmt_class);
  H::set_classVersion_at(mad, cls->class_version);
  H::set_method_at(mad, req.method);
  H::set_transactionID_at(mad, tid);
  H::set_attributeID_at(mad, req.attr_id);
  H::set_attributeModifier_at(mad, req.amod);
  if (cls->mgmt_class == iba::mgmt::SUBN_LID_ROUTED || cls->mgmt_class == iba::mgmt::SUBN_DIRECTED_ROUTE)
    iba::SMPFormat::set_MKey_at(mad, path.mkey.value_or(0));
  if (cls->mgmt_class == iba::mgmt::SUBN_DIRECTED_ROUTE) {
    using D = iba::SMPFormatDirected;
    D::set_hopPointer_at(mad, 0);
    D::set_hopCount_at(mad, path.hop_count());
    D::set_drSLID_at(mad, path.drSLID);
    D::set_drDLID_at(mad, path.drDLID);
    for (size_t i = 0; i < path.drPath.size() && i < 64; ++i) D::set_initialPath_at(mad, i, path.drPath[i]);
  }
  if (cls->mgmt_class == iba::mgmt::SUBN_ADM) {
    iba::SAFormat::set_SMKey_at(mad, path.smkey.value_or(0));
    iba::SAFormat::set_componentMask_at(mad, req.comp_mask);
  }
  if (cls->mgmt_class >= iba::mgmt::VENDOR_OUI_MIN && cls->mgmt_class <= iba::mgmt::VENDOR_OUI_MAX)
    iba::VendOUIFormat::set_OUI_at(mad, req.oui);
  size_t room = iba::MAD_SIZE - cls->data_off;
  size_t n = std::min(req.payload.size(), room);
  if (n) std::memcpy(mad + cls->data_off, req.payload.data(), n);
  return iba::MAD_SIZE;
}

}  // namespace ibcore
