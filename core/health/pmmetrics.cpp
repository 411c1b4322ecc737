#include "core/health/pmmetrics.h"

#include <algorithm>

#include "iba/enums.h"
#include "iba/smp.h"

namespace ibcore::health {

namespace {

// What the declarations do not say: the metric's stem (after "ib_port_",
// before "_total"), what the counter counts, and the unit's scale.
struct Meaning {
  const char* field;
  const char* stem;
  const char* counts;
  uint64_t scale;
};
constexpr Meaning MEANINGS[] = {
    // PortCounters / PortCountersExtended (IBA 16.1.3.5, 16.1.4.11)
    {"portXmitData", "data_transmitted_bytes", "Data octets transmitted on all VLs, headers included (the PMA counts 4-octet words: exported multiplied by 4)", 4},
    {"portRcvData", "data_received_bytes", "Data octets received on all VLs, headers included (the PMA counts 4-octet words: exported multiplied by 4)", 4},
    {"portXmitPkts", "packets_transmitted", "Packets transmitted on all VLs, those with errors included", 1},
    {"portRcvPkts", "packets_received", "Packets received on all VLs, those with errors included", 1},
    {"portUnicastXmitPkts", "unicast_packets_transmitted", "Unicast packets transmitted", 1},
    {"portUnicastRcvPkts", "unicast_packets_received", "Unicast packets received", 1},
    {"portMulticastXmitPkts", "multicast_packets_transmitted", "Multicast packets transmitted", 1},
    {"portMulticastRcvPkts", "multicast_packets_received", "Multicast packets received", 1},
    {"symbolErrorCounter", "symbol_error", "Minor link errors detected on one or more physical lanes", 1},
    {"linkErrorRecoveryCounter", "link_error_recovery", "Times the port training state machine completed a link error recovery", 1},
    {"linkDownedCounter", "link_downed", "Times the link error recovery failed and the link went down", 1},
    {"portRcvErrors", "errors_received", "Received packets that had an error (malformed, bad CRC, buffer overrun, ...)", 1},
    {"portRcvRemotePhysicalErrors", "receive_remote_physical_errors", "Received packets marked bad (EBP delimiter) by an earlier hop", 1},
    {"portRcvSwitchRelayErrors", "receive_switch_relay_errors", "Received packets the switch could not forward", 1},
    {"portXmitDiscards", "discards_transmitted", "Outbound packets discarded because the port was down or congested", 1},
    {"portXmitConstraintErrors", "constraint_errors_transmitted", "Outbound packets not sent because of partition or raw packet enforcement", 1},
    {"portRcvConstraintErrors", "constraint_errors_received", "Inbound packets discarded by partition or raw packet enforcement", 1},
    {"localLinkIntegrityErrors", "local_link_integrity_errors", "Times the local physical errors exceeded the LocalPhyErrors threshold", 1},
    {"excessiveBufferOverrunErrors", "excessive_buffer_overrun_errors", "Times OverrunErrors consecutive flow control update periods each had a buffer overrun", 1},
    {"QP1Dropped", "qp1_dropped", "QP1 (general services) MADs dropped for lack of resources", 1},
    {"VL15Dropped", "vl15_dropped", "VL15 (subnet management) packets dropped for lack of resources", 1},
    {"portXmitWait", "transmit_wait", "Ticks in which the port had data to send but sent none (congestion)", 1},
    // PortRcvErrorDetails (IBA 16.1.4.1)
    {"portLocalPhysicalErrors", "local_physical_errors", "Received packets with a local physical error (ICRC, VCRC, FCCRC, ...)", 1},
    {"portMalformedPacketErrors", "malformed_packet_errors", "Received packets that were malformed", 1},
    {"portBufferOverrunErrors", "buffer_overrun_errors", "Received packets lost to a receive buffer overrun", 1},
    {"portDLIDMappingErrors", "dlid_mapping_errors", "Received packets whose DLID maps to no output port", 1},
    {"portVLMappingErrors", "vl_mapping_errors", "Received packets that could not be mapped to a VL", 1},
    {"portLoopingErrors", "looping_errors", "Received packets discarded because they would loop", 1},
    // PortXmitDiscardDetails (IBA 16.1.4.2)
    {"portInactiveDiscards", "inactive_discards", "Outbound packets discarded because the port was not Active", 1},
    {"portNeighborMTUDiscards", "neighbor_mtu_discards", "Outbound packets discarded as longer than the neighbour's MTU", 1},
    {"portSwLifetimeLimitDiscards", "sw_lifetime_limit_discards", "Outbound packets discarded by the switch lifetime limit", 1},
    {"portSwHOQLifetimeLimitDiscards", "sw_hoq_lifetime_limit_discards", "Outbound packets discarded by the head-of-queue lifetime limit", 1},
    // PortVLXmitWaitCounters (IBA 16.1.4.8): one series per data VL the port runs
    {"portVLXmitWait", "vl_transmit_wait", "Ticks in which the port had data to send on this VL but sent none (congestion per VL; label vl: the port's operational data VLs)", 1},
};

const Meaning* meaning_of(std::string_view f) {
  for (const Meaning& m : MEANINGS)
    if (f == m.field) return &m;
  return nullptr;
}

bool is_counter_field(const iba::FieldDesc& f) {
  std::string_view n = f.name;
  return f.kind != iba::Kind::Rsv && f.kind != iba::Kind::Struct && n != "portSelect" &&
         !n.starts_with("counterSelect") && n != "opCode";
}

// The IBA's own spelling of a field: "portXmitData" -> "PortXmitData".
std::string iba_spelling(std::string_view f) {
  std::string s(f);
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = char(s[0] - 'a' + 'A');
  return s;
}

// A structure's name as the IBA writes it (iba/ prefixes the class: PM...).
std::string_view attr_spelling(const iba::StructDesc& d) {
  std::string_view n = d.name;
  if (n.starts_with("PM") || n.starts_with("SMP")) n.remove_prefix(n.starts_with("PM") ? 2 : 3);
  return n;
}

// "1 Down, 2 Init, ..." from an enumeration table (values below `below`).
std::string codes(std::span<const iba::enums::Named> t, uint32_t below = ~0u) {
  std::string s;
  for (const auto& n : t) {
    if (n.value >= below) continue;
    if (!s.empty()) s += ", ";
    s += std::to_string(n.value) + " " + n.name;
  }
  return s;
}

}  // namespace

std::string snake_case(std::string_view f) {
  std::string s;
  auto lower = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  for (size_t i = 0; i < f.size(); ++i) {
    char c = f[i];
    bool up = c >= 'A' && c <= 'Z';
    bool prev_lower = i && lower(f[i - 1]);
    bool next_lower = i + 1 < f.size() && f[i + 1] >= 'a' && f[i + 1] <= 'z';
    bool prev_up = i && f[i - 1] >= 'A' && f[i - 1] <= 'Z';
    if (up && i && (prev_lower || (prev_up && next_lower))) s += '_';
    s += up ? char(c - 'A' + 'a') : c;
  }
  return s;
}

std::string counter_metric_name(std::string_view field) {
  if (const Meaning* m = meaning_of(field)) return std::string("ib_port_") + m->stem + "_total";
  std::string_view f = field;
  if (f.starts_with("port") && f.size() > 4 && f[4] >= 'A' && f[4] <= 'Z') f.remove_prefix(4);
  if (f.ends_with("Counter")) f.remove_suffix(7);
  return "ib_port_" + snake_case(f) + "_total";
}

std::vector<CounterMetric> counter_metrics(std::initializer_list<const iba::StructDesc*> sources) {
  std::vector<CounterMetric> out;
  for (const iba::StructDesc* d : sources)
    for (const iba::FieldDesc& f : d->field_list()) {
      if (!is_counter_field(f)) continue;
      if (std::any_of(out.begin(), out.end(), [&](const CounterMetric& m) { return m.field == f.name; })) continue;
      CounterMetric m;
      m.field = f.name;
      m.name = counter_metric_name(f.name);
      const Meaning* mn = meaning_of(f.name);
      m.scale = mn ? mn->scale : 1;
      m.help = mn ? mn->counts : iba_spelling(f.name);
      // Where it comes from, from the declarations: each attribute that
      // has the field, and its width there (where it stops counting).
      std::string from;
      for (const iba::StructDesc* s : sources) {
        for (const iba::FieldDesc& g : s->field_list()) {
          if (std::string_view(g.name) != f.name) continue;
          from += from.empty() ? "" : ", or ";
          from += std::string(attr_spelling(*s)) + "." + iba_spelling(f.name) + " (" + std::to_string(g.width) +
                  " bits)";
        }
      }
      m.help += ". From " + from + ".";
      out.push_back(std::move(m));
    }
  return out;
}

const std::vector<GaugeMetric>& link_metrics() {
  static const std::vector<GaugeMetric> all = [] {
    namespace E = iba::enums;
    std::string speeds_ext = codes(E::link_speeds_ext(), 1u << iba::EXT_SPEED2_SHIFT);
    struct L {
      const char* field;
      const char* name;
      std::string codes;
    };
    const L list[] = {
        {"portState", "ib_port_state_id", codes(E::port_states())},
        {"portPhysicalState", "ib_port_physical_state_id", codes(E::phys_states())},
        {"linkWidthActive", "ib_port_link_width_active", codes(E::link_widths())},
        {"linkWidthEnabled", "ib_port_link_width_enabled", "a bit mask of " + codes(E::link_widths())},
        {"linkSpeedActive", "ib_port_link_speed_active", codes(E::link_speeds())},
        {"linkSpeedEnabled", "ib_port_link_speed_enabled", "a bit mask of " + codes(E::link_speeds())},
        {"linkSpeedExtActive", "ib_port_link_speed_ext_active", "0 none, " + speeds_ext},
        {"linkSpeedExtEnabled", "ib_port_link_speed_ext_enabled", "a bit mask of " + speeds_ext},
        {"linkSpeedExtActive2", "ib_port_link_speed_ext_active2",
         "0 none, " + codes(E::link_speeds_ext2()) + "; valid where CapabilityMask2 has IsExtSpeeds2Supported"},
        {"linkSpeedExtEnabled2", "ib_port_link_speed_ext_enabled2", "a bit mask of " + codes(E::link_speeds_ext2())},
    };
    std::vector<GaugeMetric> v;
    for (const L& l : list)
      v.push_back({l.field, l.name, "PortInfo." + iba_spelling(l.field) + ": " + l.codes});
    return v;
  }();
  return all;
}

}  // namespace ibcore::health
