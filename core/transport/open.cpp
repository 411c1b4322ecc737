#include "core/transport/open.h"

#include "core/base/error.h"
#include "core/out/log.h"
#include "core/transport/umad.h"
#include "core/transport/vmad.h"

namespace ibcore {

std::unique_ptr<Transport> choose_transport(
    TransportKind kind, const std::function<std::unique_ptr<Transport>()>& umad,
    const std::function<std::unique_ptr<Transport>(const std::string& umad_error)>& verbs) {
  switch (kind) {
    case TransportKind::Umad:
      return umad();
    case TransportKind::Verbs:
      return verbs({});
    case TransportKind::Auto:
      break;
  }
  // umad when it can be opened; an ordinary user on a real cluster cannot
  // (the umad devices are root's), but can open uverbs: GMPs go there.
  try {
    return umad();
  } catch (const SysError& umad_err) {
    try {
      auto v = verbs(umad_err.what());
      if (log::verbosity()) ibcore::log::warn("W: %s; sending GMPs over verbs instead\n", umad_err.what());
      return v;
    } catch (const Error& verbs_err) {
      throw Error(std::string(umad_err.what()) + "; nor over verbs: " + verbs_err.what());
    }
  }
}

std::unique_ptr<Transport> open_transport(const EndPort& ep, const PortSettings& settings) {
  TransportKind kind = settings.transport;
  auto umad = [](const EndPort& e) { return [e]() -> std::unique_ptr<Transport> { return std::make_unique<Umad>(e); }; };
  // (The verbs QP's P_Key index is fixed when it is made.)
  uint16_t pkey_index = settings.pkey_index;
  auto verbs = [pkey_index](const EndPort& e) {
    return [e, pkey_index](const std::string& why) -> std::unique_ptr<Transport> {
      return std::make_unique<VerbsMad>(e, 64, why, pkey_index);
    };
  };
  PortPair pair = smi_gsi_pair(get_devices(), ep);
  std::unique_ptr<Transport> t;
  if (!pair.split() || kind == TransportKind::Verbs) {
    // One device; or over verbs, where only GMPs go (through the GSI device).
    const EndPort& e = pair.split() ? *pair.gsi : ep;
    t = choose_transport(kind, umad(e), verbs(e));
  } else {
    // A planarized HCA: SMPs through the SMI device (umad only), GMPs
    // through the GSI device (umad, or verbs as --transport says), each
    // opened when first needed (and given these settings then).
    EndPort gsi = *pair.gsi;
    t = std::make_unique<SplitTransport>(
        umad(*pair.smi), [kind, gsi, umad, verbs] { return choose_transport(kind, umad(gsi), verbs(gsi)); }, gsi);
  }
  t->settings() = settings;
  return t;
}

}  // namespace ibcore
