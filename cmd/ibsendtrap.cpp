// ibsendtrap: send a trap (SubnTrap of a generic Notice) from the local port
// to the SM, as a port reporting an event would.  Used to check that an SM
// receives and handles traps.  The trap names are those of the old
// infiniband-diags tool, plus three ibtool adds (130, 131, 259); the detail
// fields describe the local port (its LID, GID, capability mask, system
// image GUID), with example values where the event names a remote party.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/base/error.h"
#include "core/rpc/rpc.h"
#include "core/transport/open.h"
#include "iba/smp.h"
#include "core/out/log.h"

namespace {

using ibcore::IBPath;

// What the local port is, for the trap's details: its addresses and the
// images it answers for itself (the node's type and system image GUID, the
// port's capability masks).
struct Self {
  uint16_t lid = 0;
  uint8_t port = 0;
  iba::Gid gid;
  uint16_t sm_lid = 0;
  uint64_t mkey = 0;
  iba::SMPNodeInfo ni;
  iba::SMPPortInfo pi;
};

enum : uint8_t { TYPE_URGENT = 1, TYPE_SECURITY = 2, TYPE_INFO = 4 };

struct Trap {
  const char* name;
  uint16_t number;
  uint8_t type;
  const char* what;
  void (*details)(const Self&, uint8_t error_port, std::span<uint8_t> out);
};

template <class T>
void put(const T& t, std::span<uint8_t> out) {
  std::memcpy(out.data(), t.bytes().data(), std::min(out.size(), t.bytes().size()));
}

// 144: the port's capability mask or one of its other properties changed.
void trap144(const Self& s, std::span<uint8_t> out, uint8_t change_flag) {
  iba::NoticeTrap144 d;
  d.set_LIDADDR(s.lid).set_localChanges(1).set_capabilityMask(uint32_t(s.pi.capabilityMask())).set_changeFlags(change_flag);
  d.set_capabilityMask2(uint16_t(s.pi.capabilityMask2()));
  put(d, out);
}

// 129-131: an error on port error_port of this node.
void trap129(const Self& s, uint8_t error_port, std::span<uint8_t> out) {
  iba::NoticeTrap129 d;
  d.set_LIDADDR(s.lid).set_PORTNO(error_port);
  put(d, out);
}

// 256: an SMP to this port had a bad M_Key: a SubnGet(PortInfo) of
// error_port carrying the -y key (or 0).
void trap256(const Self& s, uint8_t error_port, std::span<uint8_t> out, bool dr) {
  iba::NoticeTrap256 d;
  d.set_LIDADDR(s.lid).set_DRSLID(0xffff).set_method(iba::method::GET);
  d.set_attributeID(iba::AttrId<iba::SMPPortInfo>::value).set_attributeModifier(error_port).set_MKey(s.mkey);
  if (dr) {
    // Directed route: the return path to the SM's port, one hop through
    // error_port.
    d.set_DRNotice(1).set_DRHopCount(1).set_DRNoticeReturnPath(0, error_port);
  }
  put(d, out);
}

// 257/258: a packet from the SM's port to this port's QP1 had a bad key.
void trap257(const Self& s, std::span<uint8_t> out, uint32_t key) {
  iba::NoticeTrap257 d;
  d.set_LID1(s.sm_lid).set_LID2(s.lid).set_key(key).set_QP1(1).set_QP2(1);
  d.set_GID1(iba::Gid::from(s.gid.prefix(), 0)).set_GID2(s.gid);
  put(d, out);
}

// 259: a switch port (error_port) dropped a packet with a bad P_Key.
void trap259(const Self& s, uint8_t error_port, std::span<uint8_t> out) {
  iba::NoticeTrap259 d;
  d.set_dataValid(0x0003).set_LID1(s.sm_lid).set_LID2(s.lid).set_PKey(0x7fff).set_QP1(1).set_QP2(1);
  d.set_SWLIDADDR(s.lid).set_PORTNO(error_port);
  put(d, out);
}

const Trap TRAPS[] = {
    {"node_desc_change", 144, TYPE_INFO, "node description changed",
     [](const Self& s, uint8_t, std::span<uint8_t> o) { trap144(s, o, 0x01); }},
    {"link_speed_enabled_change", 144, TYPE_INFO, "link speed enabled changed",
     [](const Self& s, uint8_t, std::span<uint8_t> o) { trap144(s, o, 0x04); }},
    {"local_link_integrity", 129, TYPE_URGENT, "local link integrity threshold reached on <error_port>", trap129},
    {"excessive_buffer_overrun", 130, TYPE_URGENT, "excessive buffer overrun on <error_port>", trap129},
    {"flow_control_update_expired", 131, TYPE_URGENT, "flow control update watchdog expired on <error_port>",
     trap129},
    {"sys_image_guid_change", 145, TYPE_INFO, "system image GUID changed (the current one is sent)",
     [](const Self& s, uint8_t, std::span<uint8_t> o) {
       iba::NoticeTrap145 d;
       d.set_LIDADDR(s.lid).set_systemImageGUID(s.ni.systemImageGUID());
       put(d, o);
     }},
    {"mkey_lid", 256, TYPE_SECURITY, "bad M_Key in a LID routed SMP",
     [](const Self& s, uint8_t p, std::span<uint8_t> o) { trap256(s, p, o, false); }},
    {"mkey_dr", 256, TYPE_SECURITY, "bad M_Key in a directed route SMP",
     [](const Self& s, uint8_t p, std::span<uint8_t> o) { trap256(s, p, o, true); }},
    {"pkey", 257, TYPE_SECURITY, "bad P_Key",
     [](const Self& s, uint8_t, std::span<uint8_t> o) { trap257(s, o, 0x7fff); }},
    {"qkey", 258, TYPE_SECURITY, "bad Q_Key",
     [](const Self& s, uint8_t, std::span<uint8_t> o) { trap257(s, o, 0x80010000); }},
    {"switch_pkey", 259, TYPE_SECURITY, "bad P_Key at switch port <error_port>", trap259},
};

const Trap* find_trap(const std::string& name) {
  for (const auto& t : TRAPS)
    if (name == t.name) return &t;
  return nullptr;
}

std::string trap_list() {
  std::string s;
  for (const auto& t : TRAPS) {
    char b[160];
    std::snprintf(b, sizeof b, "  %-28s trap %u: %s\n", t.name, t.number, t.what);
    s += b;
  }
  return s;
}

class IbSendTrap : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    ibtool::add_common_options(app, config(), ibtool::opt::Mad | ibtool::opt::MKey);
    app.add_option("-s,--sm_port", sm_lid_, "send to this LID instead of the SM the port knows")
        ->option_text("<lid>");
    app.add_option("trap_name", trap_name_, "the trap to send (default node_desc_change)");
    app.add_option("error_port", error_port_str_, "the port number the trap names (default 1)");
    app.callback([this] {
      if (!find_trap(trap_name_))
        throw CLI::ValidationError("trap_name", "unknown trap " + trap_name_ + "; one of:\n" + trap_list());
      uint64_t v = 0;
      if (!error_port_str_.empty() && (!ibtool::parse_int(error_port_str_, v) || v > 254))
        throw CLI::ValidationError("error_port", "bad port number " + error_port_str_ + " (0-254)");
      if (!error_port_str_.empty()) error_port_ = uint8_t(v);
    });
  }

  int run() override {
    const Trap& trap = *find_trap(trap_name_);
    auto& cfg = config();
    try {
      const ibcore::EndPort& ep = ibcore::get_end_port(cfg.ca, cfg.port);
      auto owner = ibcore::open_transport(ep, cfg);
      ibcore::Transport& umad = *owner;
      ibcore::MadTransactor mad(umad);
      Self s;
      s.lid = umad.local_lid();
      s.port = uint8_t(ep.port);
      s.gid = umad.local_gid();
      s.sm_lid = sm_lid_ ? sm_lid_ : umad.sm_lid();
      s.mkey = cfg.mkey.value_or(0);
      if (!s.lid) throw ibcore::Error("The local port " + ep.ca + "/" + std::to_string(s.port) +
                                      " has no LID (is the subnet up?)");
      if (!s.sm_lid) throw ibcore::Error("The local port knows no SM LID (is an SM running?); give one with -s");
      // The node's type, system image GUID and the port's capability
      // masks, read from the port itself.
      IBPath self;
      self.DLID = s.lid;
      s.ni = mad.SubnGet<iba::SMPNodeInfo>(self);
      s.pi = mad.SubnGet<iba::SMPPortInfo>(self, s.port);

      iba::MADNotice n;
      n.set_isGeneric(1).set_type(trap.type).set_producerType(uint8_t(s.ni.nodeType())).set_trapNumber(trap.number);
      n.set_issuerLID(s.lid);
      trap.details(s, error_port_, n.mut_dataDetails());

      ibcore::MadRequest req;
      req.cls = iba::find_class(iba::mgmt::SUBN_LID_ROUTED);
      req.method = iba::method::TRAP;
      req.attr_id = iba::AttrId<iba::MADNotice>::value;
      req.payload = n.bytes().first(64);  // an SMP carries the notice without IssuerGID
      IBPath sm;
      sm.DLID = s.sm_lid;
      sm.SL = umad.sm_sl();
      sm.mkey = cfg.mkey;  // (sent raw, not through the engine that adds the port's keys)
      std::array<uint8_t, iba::MAD_SIZE> m{};
      std::random_device rd;
      uint64_t tid = (uint64_t(rd()) << 32 | rd()) & 0x0000ffffffffffffULL;
      size_t len = ibcore::build_mad(m.data(), req, sm, tid);
      if (cfg.debug) ibcore::log::debug("D: sending %s to LID %u\n", ibcore::describe_mad(m.data(), len).c_str(), s.sm_lid);
      // The SM answers a trap with a TrapRepress (the kernel matches it to
      // the send like a response); wait for it up to the timeout.  Waiting
      // also keeps the port open until the trap is on its way: closing it
      // at once can cancel the send (ibsim then drops the MAD).
      const int wait_ms = cfg.timeout_ms > 0 ? cfg.timeout_ms : 1000;
      umad.send(umad.client_agent(iba::mgmt::SUBN_LID_ROUTED, 1), m.data(), len, sm, wait_ms);
      bool repressed = false;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
      for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        ibcore::RecvMad r;
        if (!umad.recv(r, int(left.count()))) continue;
        // The low half of the TID is ours (kernels rewrite the high half).
        if (r.len < iba::MADHeader::SIZE) continue;
        if (uint32_t(iba::MADHeader::transactionID_at(r.data.data())) != uint32_t(tid)) continue;  // not about our trap
        if (r.status) break;  // the kernel gave up waiting
        if (iba::MADHeader::method_at(r.data.data()) == iba::method::TRAP_REPRESS) {
          repressed = true;
          break;
        }
      }
      std::printf("Sent trap %u (%s) from LID %u to SM LID %u: ", trap.number, trap.name, s.lid, s.sm_lid);
      if (repressed)
        std::printf("repressed by the SM\n");
      else
        std::printf("no TrapRepress within %d ms\n", wait_ms);
      return 0;
    } catch (const std::exception& e) {
      ibcore::report(e);
      ibcore::log::error("E: trap %s not sent\n", trap.name);
      return 1;
    }
  }

private:
  std::string trap_name_ = "node_desc_change";
  std::string error_port_str_;
  uint8_t error_port_ = 1;
  uint16_t sm_lid_ = 0;
};

}  // namespace

IBTOOL_COMMAND({.name = "ibsendtrap",
                .aliases = {},
                .summary = "send a trap (SubnTrap of a Notice) from the local port to the SM",
                .description = [] {
                  return "Sends one generic trap to the SM as if the local port had seen the event (to check "
                    "an SM's trap handling).  The trap's issuer and details are the local port: its LID, "
                    "GID, node type, capability masks and system image GUID, read from the port first; "
                    "<error_port> (default 1) is the port number the port error traps name.  The security "
                    "traps name the SM's port as the offending source (LID1, QP1) and carry the -y "
                    "M_Key (256, of a SubnGet(PortInfo)), P_Key 0x7fff (257, 259) or Q_Key 0x80010000 "
                    "(258).  The SM "
                    "acknowledges a trap with a TrapRepress, which is awaited up to the timeout (-t, "
                    "default 1000 ms); not every SM or simulator sends one (ibsim drops them), so its "
                    "absence is reported, not an error.\n\n"
                    "Traps:\n" + trap_list() +
                    "\nOutput: one line, \"Sent trap <number> (<name>) from LID <lid> to SM LID <lid>: \" and "
                    "\"repressed by the SM\" or \"no TrapRepress within <ms> ms\".  "
                    "Exit status: 0 sent; 1 not sent (no LID, no SM, a failed read or send: the reason "
                    "on stderr); 2 bad arguments (an unknown trap name lists the names).";
                },
                .usage = "[options] [<trap_name>] [<error_port>]",
                .examples = "  ibsendtrap                       # node_desc_change\n"
                            "  ibsendtrap local_link_integrity 2\n"
                            "  ibsendtrap -s 1 pkey",
                .make = [] { return std::make_unique<IbSendTrap>(); }});
