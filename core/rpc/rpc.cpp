#include "core/rpc/rpc.h"

#include "core/rpc/target.h"
#include "iba/enums.h"
#include "iba/introspect.h"
#include "iba/sa.h"
#include "iba/smp.h"
#include "iba/vendor.h"

// The typed RPC layer (core/rpc/rpc.h).
namespace ibcore {

namespace {
using madhdr::format_of;
}  // namespace

const iba::ClassDesc* class_for(const iba::StructDesc& d, uint8_t lo, uint8_t hi) {
  for (const iba::ClassDesc* c : iba::all_classes()) {
    if (c->mgmt_class < lo || c->mgmt_class > hi) continue;
    for (const auto& a : c->attrs)
      if (a.desc == &d) return c;
    // A variant layout (CongestionLog of a CA, ...) belongs to the same class.
    for (const auto& a : c->variants)
      if (a.desc == &d) return c;
  }
  return nullptr;
}

std::vector<uint8_t> MadTransactor::call(const MadRequest& req, const IBPath& path) {
  PendingMad p;
  p.req_len = build_mad(p.req.data(), req, path, 0);
  p.path = &path;
  eng_.submit(p);
  eng_.wait(p);
  try {
    auto rep = check_reply(p);
    return std::vector<uint8_t>(rep.begin(), rep.end());
  } catch (MADTimeoutError& e) {
    // An SMP that got no reply: whether its destination exists (a LID:
    // the SA's word; a directed route: the hop before) decides report()'s
    // M_Key hint.
    const auto cls = iba::MADHeader::mgmtClass_at(p.req.data());
    if (note_presence_ && (cls == iba::mgmt::SUBN_LID_ROUTED || cls == iba::mgmt::SUBN_DIRECTED_ROUTE)) {
      note_presence_ = false;  // the question's own SMPs do not ask again
      note_target_presence(*this, path, e);
      note_presence_ = true;
    }
    throw;
  }
}

IBPath MadTransactor::sa_path() const { return default_sa_path(const_cast<MadEngine&>(eng_).transport()); }

std::span<const uint8_t> payload_of(std::span<const uint8_t> mad) {
  if (mad.size() < iba::MADHeader::SIZE) return {};
  const iba::ClassDesc* c = format_of(mad.data());
  size_t off = c ? c->data_off : iba::MADHeader::SIZE;
  if (off >= mad.size()) return {};
  return mad.subspan(off);
}

}  // namespace ibcore
