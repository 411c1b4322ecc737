#include "core/fabric/portstate.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "core/fabric/discovery.h"
#include "core/out/json.h"
#include "core/out/log.h"
#include "core/rpc/portcaps.h"
#include "core/rpc/target.h"
#include "iba/introspect.h"
#include "iba/refprint_smp.h"
#include "iba/sa.h"

namespace ibcore::portstate {

// Parse the op words after the port number the reference's way (values by
// strtoull with any base, range checked).  Throws RefFail.
Request parse_ops(const std::vector<std::string>& a, size_t first) {
  Request r;
  auto fail = [](std::string m) { throw RefFail{std::move(m)}; };
  for (size_t i = first; i < a.size(); ++i) {
    int j = 0;
    while (j < NOPS && a[i] != OPS[j].name) ++j;
    if (j == NOPS) fail("invalid operation: " + a[i]);
    r.set[j] = true;
    if (!OPS[j].takes_value) {
      if (r.op >= 0)
        fail(std::string(OPS[j].name) + " only one of: query, enable, disable, reset, down, arm, active, can be specified");
      r.op = j;
      continue;
    }
    if (++i >= a.size()) fail(std::string(OPS[j].name) + " requires an additional parameter");
    uint64_t v = std::strtoull(a[i].c_str(), nullptr, 0);
    auto bad = [&](const char* what, bool hex = false) {
      char b[96];
      std::snprintf(b, sizeof b, hex ? "invalid %s 0x%llx" : "invalid %s %llu", what, static_cast<unsigned long long>(v));
      fail(b);
    };
    switch (j) {
      case SPEED: if (v > 15) bad("speed value"); break;
      case ESPEED: if (v > 31) bad("extended speed value"); break;
      case FDR10: if (v > 1) bad("fdr10 speed value"); break;
      case WIDTH: if (v > 31 && v != 255) bad("width value"); break;
      case VLS: if (v == 0 || v > 5) bad("vls value"); break;
      case MTU: if (v == 0 || v > 5) bad("mtu value"); break;
      case LID: if (v == 0 || v >= iba::MLID_BASE) bad("lid value", true); break;
      case SMLID: if (v == 0 || v >= iba::MLID_BASE) bad("smlid value", true); break;
      case LMC: if (v > 7) bad("lmc value"); break;
      case MKEYLEASE: if (v > 0xffff) bad("mkey lease time"); break;
      case MKEYPROT: if (v > 3) bad("mkey protection bit setting"); break;
      case MKEY: {
        // Every 64-bit value is a key; anything else is asked for on the
        // terminal (without echo), as with -y.  As the reference does, an
        // error while prompting (no terminal: errno set by getpass) makes
        // the answer bad too.
        char* end = nullptr;
        errno = 0;
        v = std::strtoull(a[i].c_str(), &end, 0);
        if (errno || *end != '\0') {
          errno = 0;
          const char* typed = getpass("New M_Key: ");
          if (!typed) fail("Bad new M_Key\n");
          v = std::strtoull(typed, &end, 0);
          if (errno || *end != '\0') fail("Bad new M_Key\n");
        }
        break;
      }
    }
    r.val[j] = v;
    r.changed = true;
  }
  return r;
}

namespace {

// IBA PortInfo values written by the state ops.
constexpr unsigned PHYS_POLLING = 2, PHYS_DISABLED = 3;
constexpr unsigned STATE_DOWN = 1, STATE_ARMED = 3, STATE_ACTIVE = 4;
constexpr uint8_t MLNX_FDR10 = 0x01;              // MlnxExtPortInfo speed / state change bit
constexpr uint16_t NONSENSE_LID = 0x1234;         // a valid LID for ports that have none yet
constexpr size_t MAX_HOPS = 64;


// One port's PortInfo as the reference's ibportstate shows it: the states,
// LIDs, widths and speeds (the extended speeds when the port has them) and,
// on CA/router ports and switch port 0, the M_Key fields.  The lines are
// smpquery's (iba/refprint_smp's PortInfo layout).
// espeed: which extended speed fields the port has (ESPEED_EXT, and
// ESPEED_EXT2 for XDR's, shown as upstream's ibportstate does since
// rdma-core v50).
constexpr unsigned ESPEED_EXT = 1, ESPEED_EXT2 = 2;
std::string show_port(const IBPath& path, const iba::SMPPortInfo& pi, int port, unsigned espeed, bool is_switch,
                      bool show_keys) {
  static const char* const base[] = {"LinkState", "PhysLinkState", "Lid", "SMLid", "LMC",
                                     "LinkWidthSupported", "LinkWidthEnabled", "LinkWidthActive",
                                     "LinkSpeedSupported", "LinkSpeedEnabled", "LinkSpeedActive"};
  static const char* const ext[] = {"LinkSpeedExtSupported", "LinkSpeedExtEnabled", "LinkSpeedExtActive"};
  static const char* const ext2[] = {"LinkSpeedExtSupported2", "LinkSpeedExtEnabled2", "LinkSpeedExtActive2"};
  auto layout = iba::ref::smp_layout(iba::SMPPortInfo::DESC);
  std::vector<iba::ref::Line> lines;
  auto pick = [&](const char* label) {
    for (const auto& l : layout)
      if (!std::strcmp(l.label, label)) return lines.push_back(l);
    throw std::logic_error(std::string("PortInfo layout has no line ") + label);
  };
  for (const char* l : base) pick(l);
  if (espeed & ESPEED_EXT)
    for (const char* l : ext) pick(l);
  if (espeed & ESPEED_EXT2)
    for (const char* l : ext2) pick(l);
  std::string s = iba::ref::dump(iba::SMPPortInfo::DESC, pi.raw(), lines);
  if (!is_switch || port == 0) {
    lines.clear();
    if (show_keys) pick("Mkey");
    else s += iba::ref::dotted("Mkey", "<not displayed>");
    pick("MkeyLeasePeriod");
    pick("ProtectBits");
    s += iba::ref::dump(iba::SMPPortInfo::DESC, pi.raw(), lines);
  }
  return "# Port info: " + portid_str(path) + " port " + std::to_string(port) + "\n" + s;
}

std::string show_mepi(const IBPath& path, const iba::SMPMlnxExtPortInfo& m, int port) {
  return "# MLNX ext Port info: " + portid_str(path) + " port " + std::to_string(port) + "\n" +
         iba::ref::smp_print(m);
}

// A port read: the members {"destination", "nodeType", "portNum"} of the
// object open now (JSON only), then its "PortInfo" (the M_Key only with -K,
// as the text shows it) or the reference's block of it (show_port).  cap:
// the PortInfo whose masks make its optional fields valid (a switch's port
// 0; its other ports leave theirs reserved).
void print_port(Printer& p, const IBPath& dest, bool is_switch, int portnum, const iba::SMPPortInfo& pi,
                const iba::SMPPortInfo& cap, unsigned espeed, bool show_keys) {
  const iba::Capabilities caps = capabilities_of(cap);
  static constexpr std::string_view HIDE[] = {"MKey"};
  p.json_value("destination", [&](JsonOut& j) { dest.json(j); });
  p.str(PRINT_JSON, "nodeType", nullptr, is_switch ? "Switch" : "CA/RT");
  p.uint(PRINT_JSON, "portNum", nullptr, unsigned(portnum));
  p.attribute("PortInfo", iba::SMPPortInfo::DESC, pi.buf.data(),
              [&] { return show_port(dest, pi, portnum, espeed, is_switch, show_keys); },
              show_keys ? std::span<const std::string_view>() : HIDE, caps);
}

// Its MlnxExtPortInfo: "MlnxExtPortInfo", or the reference's block (show_mepi).
void print_mepi(Printer& p, const IBPath& dest, int portnum, const iba::SMPMlnxExtPortInfo& mx) {
  p.attribute("MlnxExtPortInfo", iba::SMPMlnxExtPortInfo::DESC, mx.buf.data(),
              [&] { return show_mepi(dest, mx, portnum); });
}

class PortState {
public:
  PortState(MadTransactor& mad, bool show_keys, Printer& p)
      : mad_(mad), src_(mad), show_keys_(show_keys), p_(p) {}

  // SubnGet/SubnSet whose failure ends the run with the reference's message.
  template <class T>
  T get(const IBPath& p, uint32_t amod, const char* msg) {
    try {
      return src_.SubnGet<T>(p, amod);
    } catch (const MADError& e) {
      ref_fail(e, msg);
    }
  }
  template <class T>
  T set(const T& v, const IBPath& p, uint32_t amod, const char* msg) {
    try {
      return mad_.SubnSet(v, p, amod);
    } catch (const MADError& e) {
      ref_fail(e, msg);
    }
  }

  struct Node {
    iba::SMPNodeInfo ni;
    bool is_switch = false;
    bool mlnx = false;  // answers MlnxExtPortInfo
  };
  Node node(const IBPath& p) {
    Node n;
    n.ni = get<iba::SMPNodeInfo>(p, 0, "smp query nodeinfo failed");
    n.is_switch = n.ni.nodeType() == 2;
    n.mlnx = mlnx_ext_supported(uint16_t(n.ni.deviceID()), uint32_t(n.ni.vendorID()));
    if (n.mlnx && src_.uses_sa()) {
      // The SA keeps no MlnxExtPortInfo: its lines are left out.
      log::warn("W: %s: MlnxExtPortInfo (FDR10) cannot be read through the SA (--sa): not shown\n",
                   p.describe().c_str());
      n.mlnx = false;
    }
    return n;
  }

  // The port's PortInfo; capability: the PortInfo whose capability masks
  // apply (a switch's port 0); espeed: which extended speed fields the port
  // has (ESPEED_EXT, ESPEED_EXT2).
  iba::SMPPortInfo port(const IBPath& p, int port, bool is_switch, unsigned& espeed,
                        iba::SMPPortInfo& capability) {
    iba::SMPPortInfo pi;
    if (is_switch) {
      capability = get<iba::SMPPortInfo>(p, 0, "smp query port 0 portinfo failed");
      pi = get<iba::SMPPortInfo>(p, uint32_t(port), "smp query portinfo failed");
    } else {
      pi = get<iba::SMPPortInfo>(p, uint32_t(port), "smp query portinfo failed");
      capability = pi;
    }
    uint32_t cap = uint32_t(capability.capabilityMask());
    espeed = 0;
    if (cap & iba::enums::CAP_IS_EXTENDED_SPEEDS) espeed |= ESPEED_EXT;
    if (iba::announces_ext_speeds2(capability)) espeed |= ESPEED_EXT2;
    return pi;
  }

  iba::SMPMlnxExtPortInfo mepi(const IBPath& p, int port) {
    return get<iba::SMPMlnxExtPortInfo>(p, uint32_t(port), "smp query ext portinfo failed");
  }

  int run(const IBPath& path, int portnum, const Request& r) {
    Node n = node(path);
    if ((r.set[MKEY] || r.set[MKEYLEASE] || r.set[MKEYPROT]) && n.is_switch && portnum != 0)
      throw RefFail{"Can't set M_Key fields on switch port != 0"};
    bool setting = (r.op >= 0 && r.op != QUERY) || r.changed;  // (no JSON form: no_json_form())
    p_.open_object();
    p_.text("%s%s PortInfo:\n", setting ? "Initial " : "", n.is_switch ? "Switch" : "CA/RT");
    std::fflush(stdout);
    unsigned espeed = 0;
    iba::SMPPortInfo cap;
    iba::SMPPortInfo pi = port(path, portnum, n.is_switch, espeed, cap);
    print_port(p_, path, n.is_switch, portnum, pi, cap, espeed, show_keys_);
    iba::SMPMlnxExtPortInfo mx;
    if (n.mlnx) {
      mx = mepi(path, portnum);
      print_mepi(p_, path, portnum, mx);
    }
    std::fflush(stdout);
    if (setting) return change(path, portnum, r, pi, mx, espeed, n.is_switch);
    if (n.is_switch && portnum && pi.portState() == STATE_ACTIVE) check_peer(path, portnum, pi, cap, mx, espeed);
    p_.close_object();
    return 0;
  }

private:
  int change(const IBPath& path, int portnum, const Request& r, iba::SMPPortInfo pi, iba::SMPMlnxExtPortInfo mx,
             unsigned espeed, bool is_switch) {
    unsigned phys = unsigned(pi.portPhysicalState());
    // A port without a LID would refuse the set: give it an unlikely but
    // valid one unless the user sets it.
    if (!r.set[LID] && (pi.LID() == 0 || pi.LID() == 0xffff)) pi.set_LID(NONSENSE_LID);
    if (!r.set[SMLID] && (pi.masterSMLID() == 0 || pi.masterSMLID() == 0xffff)) pi.set_masterSMLID(NONSENSE_LID);
    pi.set_portState(0);          // no state change
    pi.set_portPhysicalState(0);  // no physical state change
    switch (r.op) {
      case ON:
        if (phys != PHYS_DISABLED) {
          p_.lit("Port is already in enable state\n");
          return 0;
        }
        [[fallthrough]];
      case ENABLE:
      case RESET:
        pi.set_portPhysicalState(PHYS_POLLING);
        break;
      case OFF:
      case DISABLE:
        p_.lit("Disable may be irreversible\n");
        pi.set_portPhysicalState(PHYS_DISABLED);
        break;
      case DOWN: pi.set_portState(STATE_DOWN); break;
      case ARM: pi.set_portState(STATE_ARMED); break;
      case ACTIVE: pi.set_portState(STATE_ACTIVE); break;
      default: break;
    }
    // Enabled speeds and widths are always written: 0 means no change.
    pi.set_linkSpeedEnabled(r.val[SPEED]);
    // espeed N: bits 0-4 to LinkSpeedExtEnabled, the XDR bit (32) up to
    // LinkSpeedExtEnabled2 (iba::ext_speeds' set, as upstream's ibportstate).
    pi.set_linkSpeedExtEnabled(r.val[ESPEED] & 0x1f);
    pi.set_linkSpeedExtEnabled2(r.val[ESPEED] >> iba::EXT_SPEED2_SHIFT);
    pi.set_linkWidthEnabled(r.val[WIDTH]);
    if (r.set[VLS]) pi.set_operationalVLs(r.val[VLS]);
    if (r.set[MTU]) pi.set_neighborMTU(r.val[MTU]);
    if (r.set[LID]) pi.set_LID(r.val[LID]);
    if (r.set[SMLID]) pi.set_masterSMLID(r.val[SMLID]);
    if (r.set[LMC]) pi.set_LMC(r.val[LMC]);
    if (r.set[FDR10]) {
      mx.set_stateChangeEnable(MLNX_FDR10);
      mx.set_linkSpeedEnabled(r.val[FDR10]);
      mx = set(mx, path, uint32_t(portnum), "smp set MLNX ext portinfo failed");
      p_.lit("\nAfter MLNXExtendedPortInfo set:\n" + show_mepi(path, mx, portnum));
    }
    if (r.set[MKEY]) pi.set_MKey(r.val[MKEY]);
    if (r.set[MKEYLEASE]) pi.set_MKeyLeasePeriod(r.val[MKEYLEASE]);
    if (r.set[MKEYPROT]) pi.set_MKeyProtectBits(r.val[MKEYPROT]);
    std::fflush(stdout);
    // Modifier bit 31: the sender knows LinkSpeedExtEnabled.
    uint32_t amod = uint32_t(portnum) | ((espeed & ESPEED_EXT) ? 0x80000000u : 0);
    iba::SMPPortInfo after = set(pi, path, amod, "smp set portinfo failed");
    p_.lit("\nAfter PortInfo set:\n" + show_port(path, after, portnum, espeed, is_switch, show_keys_));
    return 0;
  }

  // An active switch port: read the port at the other end of its link (DR
  // one hop further; from a LID, a combined route) and warn on stderr when
  // the link runs slower or narrower than both ends allow.
  void check_peer(const IBPath& path, int portnum, const iba::SMPPortInfo& pi, const iba::SMPPortInfo& cap,
                  const iba::SMPMlnxExtPortInfo& mx, unsigned espeed) {
    IBPath peer = path;
    if (path.is_dr()) {
      peer.drPath.push_back(uint8_t(portnum));
      if (peer.hop_count() >= MAX_HOPS) throw RefFail{"Too many hops"};
    } else {
      try {
        peer.drSLID = local_lid(mad_);
      } catch (const std::exception& e) {
        ref_fail(e, "could not resolve self");
      }
      peer.drDLID = LID_PERMISSIVE;
      peer.drPath = {0, uint8_t(portnum)};
    }
    // Through the SA a combined route is read at the LID and port its
    // switch port's LinkRecord leads to (the header still names the route).
    IBPath at = peer;
    int peer_port = -1;
    if (src_.uses_sa() && !path.is_dr()) std::tie(at, peer_port) = sa_link_end(path, portnum);
    Node pn = node(at);
    if (peer_port < 0) peer_port = int(pn.ni.localPortNum());
    p_.text("Peer PortInfo:\n");
    std::fflush(stdout);
    unsigned peer_espeed = 0;
    iba::SMPPortInfo pcap;
    iba::SMPPortInfo ppi = port(at, peer_port, pn.is_switch, peer_espeed, pcap);
    iba::SMPMlnxExtPortInfo pmx;
    if (pn.mlnx) pmx = mepi(at, peer_port);
    p_.open_object("peer");
    print_port(p_, peer, pn.is_switch, peer_port, ppi, pcap, peer_espeed, show_keys_);
    if (pn.mlnx) print_mepi(p_, peer, peer_port, pmx);
    p_.close_object();
    std::fflush(stdout);

    // What each end allows: the enabled set, or the supported one when the
    // enabled value means "all supported".
    auto allowed = [](uint64_t en, uint64_t sup, uint64_t all) { return en == all ? sup : en; };
    // (Extended: iba::ext_speeds' sets, XDR at 32; upstream's rule.)
    auto allowed_ext = [](uint64_t en, uint64_t sup) { return (en & 32) || en != 31 ? en : sup; };
    auto warn = [&](const char* what, unsigned active, unsigned want, const std::string& name) {
      log::warn("W: %s: %s of port %d runs at %u, both ends allow %u (%s)\n",
                   portid_str(path).c_str(), what, portnum, active, want, name.c_str());
    };
    // The fastest/widest value both allow, tried in the reference's order;
    // named as iba/ names the value.
    auto check = [&](const char* what, uint64_t both, unsigned active, std::initializer_list<unsigned> order,
                     std::string (*name)(uint64_t)) {
      for (unsigned bit : order) {
        if (!(both & bit)) continue;
        if (active != bit) warn(what, active, bit, name(bit));
        return;
      }
    };
    uint64_t width = allowed(pi.linkWidthEnabled(), pi.linkWidthSupported(), 255) &
                     allowed(ppi.linkWidthEnabled(), ppi.linkWidthSupported(), 255);
    check("active link width", width, unsigned(pi.linkWidthActive()), {8, 4, 2, 16, 1}, iba::ref::fmt_link_width);
    uint64_t speed = allowed(pi.linkSpeedEnabled(), pi.linkSpeedSupported(), 15) &
                     allowed(ppi.linkSpeedEnabled(), ppi.linkSpeedSupported(), 15);
    check("active link speed", speed, unsigned(pi.linkSpeedActive()), {4, 2, 1}, iba::ref::fmt_link_speed);
    if (espeed && peer_espeed) {
      using iba::SpeedOf;
      uint64_t es = allowed_ext(iba::ext_speeds(pi, cap, SpeedOf::Enabled), iba::ext_speeds(pi, cap, SpeedOf::Supported)) &
                    allowed_ext(iba::ext_speeds(ppi, pcap, SpeedOf::Enabled), iba::ext_speeds(ppi, pcap, SpeedOf::Supported));
      // The fastest both allow: the named speeds, fastest first.
      unsigned active = iba::ext_speeds(pi, cap, SpeedOf::Active);
      auto speeds = iba::enums::link_speeds_ext();
      for (auto it = speeds.rbegin(); it != speeds.rend(); ++it) {
        if (!(es & it->value)) continue;
        if (active != it->value)
          warn("active extended link speed", active, it->value, iba::ref::fmt_link_speed_ext(it->value));
        break;
      }
    } else if ((mx.linkSpeedEnabled() & MLNX_FDR10) && (pmx.linkSpeedEnabled() & MLNX_FDR10) &&
               !(mx.linkSpeedActive() & MLNX_FDR10)) {
      log::warn("W: %s: port %d runs at speed %u, not FDR10 that both ends allow\n",
                   portid_str(path).c_str(), portnum, unsigned(pi.linkSpeedActive()));
    }
  }

  // The LID and port at the other end of a switch port's link: its SA
  // LinkRecord.
  std::pair<IBPath, int> sa_link_end(const IBPath& sw, int portnum) {
    auto comp = [](const char* f) { return iba::component_mask(iba::SALinkRecord::DESC, f); };
    iba::SALinkRecord q;
    q.set_fromLID(sw.DLID).set_fromPort(uint8_t(portnum));
    iba::SALinkRecord r;
    try {
      r = mad_.SubnAdmGet(q, comp("fromLID") | comp("fromPort"), &src_.sa()->sa_path());
    } catch (MADError& e) {
      e.annotate("Failed getting the LinkRecord of " + sw.describe() + " port " + std::to_string(portnum) + " (--sa).");
      ref_fail(e, "smp query nodeinfo failed");
    }
    IBPath at;
    at.ca = sw.ca;
    at.port = sw.port;
    at.DLID = uint16_t(r.toLID());
    return {at, int(r.toPort())};
  }

  MadTransactor& mad_;
  SmpSource src_;  // SMPs, or SA records with --sa
  bool show_keys_;
  Printer& p_;
};


}  // namespace

int port_state(MadTransactor& mad, bool show_keys, Printer& p, const IBPath& path, int portnum, const Request& r) {
  PortState ps(mad, show_keys, p);
  return ps.run(path, portnum, r);
}

}  // namespace ibcore::portstate
