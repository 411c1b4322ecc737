#include "iba/refprint_pm.h"

#include <cstdio>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace iba::ref {

namespace {

// Hex padded to whole bytes, as the reference prints sub-byte fields.
std::string hex_bytes_wide(uint64_t v, const FieldRef& r, const uint8_t*) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%0*llx", int((r.width() + 7) / 8 * 2), static_cast<unsigned long long>(v));
  return b;
}

// The error counters, in PortCounters and (64 bits wide) at the end of
// PortCountersExtended, with the same labels.
constexpr Line kErrors[] = {
    {"SymbolErrorCounter", "symbolErrorCounter", dec},
    {"LinkErrorRecoveryCounter", "linkErrorRecoveryCounter", dec},
    {"LinkDownedCounter", "linkDownedCounter", dec},
    {"PortRcvErrors", "portRcvErrors", dec},
    {"PortRcvRemotePhysicalErrors", "portRcvRemotePhysicalErrors", dec},
    {"PortRcvSwitchRelayErrors", "portRcvSwitchRelayErrors", dec},
    {"PortXmitDiscards", "portXmitDiscards", dec},
    {"PortXmitConstraintErrors", "portXmitConstraintErrors", dec},
    {"PortRcvConstraintErrors", "portRcvConstraintErrors", dec},
};

// Each layout is built on first use (a perfquery run prints one or two):
// fixed rows plus rows generated for per-VL/SL/lane arrays
// ("PortVLOpPackets3" -> portVLOpPackets[3]).
struct Layouts {
  std::mutex mu;
  std::deque<std::string> names;  // stable storage for generated labels and fields
  std::map<std::pair<const StructDesc*, bool>, std::vector<Line>> built;

  const char* keep(std::string s) {
    names.push_back(std::move(s));
    return names.back().c_str();
  }
  void array(std::vector<Line>& v, const char* label, const char* field, int n, FormatFn f = dec) {
    for (int i = 0; i < n; ++i)
      v.push_back({keep(label + std::to_string(i)), keep(std::string(field) + "[" + std::to_string(i) + "]"), f});
  }

  std::vector<Line> build(const StructDesc& d, bool all) {
    std::vector<Line> v = {{"PortSelect", "portSelect", dec}, {"CounterSelect", "counterSelect", hex}};
    auto add = [&v](std::initializer_list<Line> rows) { v.insert(v.end(), rows); };
    auto is = [&d](const StructDesc& x) { return &d == &x; };
    if (is(PMPortCounters::DESC)) {
      v.insert(v.end(), std::begin(kErrors), std::end(kErrors));
      add({
          {"CounterSelect2", "counterSelect2", hex},
          {"LocalLinkIntegrityErrors", "localLinkIntegrityErrors", dec},
          {"ExcessiveBufferOverrunErrors", "excessiveBufferOverrunErrors", dec},
          // The reference reads QP1Dropped from VL15Dropped's bits (its field
          // table places both at bit 176); printed the same way here.
          {"QP1Dropped", "VL15Dropped", dec},
          {"VL15Dropped", "VL15Dropped", dec},
          {"PortXmitData", "portXmitData", dec},
          {"PortRcvData", "portRcvData", dec},
          {"PortXmitPkts", "portXmitPkts", dec},
          {"PortRcvPkts", "portRcvPkts", dec},
          {"PortXmitWait", "portXmitWait", dec},
      });
    } else if (is(PMPortCountersExtended::DESC)) {
      add({
          {"PortXmitData", "portXmitData", dec},
          {"PortRcvData", "portRcvData", dec},
          {"PortXmitPkts", "portXmitPkts", dec},
          {"PortRcvPkts", "portRcvPkts", dec},
          {"PortUnicastXmitPkts", "portUnicastXmitPkts", dec},
          {"PortUnicastRcvPkts", "portUnicastRcvPkts", dec},
          {"PortMulticastXmitPkts", "portMulticastXmitPkts", dec},
          {"PortMulticastRcvPkts", "portMulticastRcvPkts", dec},
      });
      if (all) {
        add({{"CounterSelect2", "counterSelect2", hex}});
        v.insert(v.end(), std::begin(kErrors), std::end(kErrors));
        add({
            {"LocalLinkIntegrityErrors", "localLinkIntegrityErrors", dec},
            {"ExcessiveBufferOverrunErrors", "excessiveBufferOverrunErrors", dec},
            {"VL15Dropped", "VL15Dropped", dec},
            {"PortXmitWait", "portXmitWait", dec},
            {"QP1Dropped", "QP1Dropped", dec},
        });
      }
    } else if (is(PMPortRcvErrorDetails::DESC)) {
      add({{"PortLocalPhysicalErrors", "portLocalPhysicalErrors", dec},
           {"PortMalformedPktErrors", "portMalformedPacketErrors", dec},
           {"PortBufferOverrunErrors", "portBufferOverrunErrors", dec},
           {"PortDLIDMappingErrors", "portDLIDMappingErrors", dec},
           {"PortVLMappingErrors", "portVLMappingErrors", dec},
           {"PortLoopingErrors", "portLoopingErrors", dec}});
    } else if (is(PMPortXmitDiscardDetails::DESC)) {
      add({{"PortInactiveDiscards", "portInactiveDiscards", dec},
           {"PortNeighborMTUDiscards", "portNeighborMTUDiscards", dec},
           {"PortSwLifetimeLimitDiscards", "portSwLifetimeLimitDiscards", dec},
           {"PortSwHOQLifetimeLimitDiscards", "portSwHOQLifetimeLimitDiscards", dec}});
    } else if (is(PMPortOpRcvCounters::DESC)) {
      add({{"PortOpRcvPkts", "portOpRcvPkts", dec}, {"PortOpRcvData", "portOpRcvData", dec}});
    } else if (is(PMPortFlowCtlCounters::DESC)) {
      add({{"PortXmitFlowPkts", "portXmitFlowPkts", dec}, {"PortRcvFlowPkts", "portRcvFlowPkts", dec}});
    } else if (is(PMPortVLOpPackets::DESC)) {
      array(v, "PortVLOpPackets", "portVLOpPackets", 16);
    } else if (is(PMPortVLOpData::DESC)) {
      array(v, "PortVLOpData", "portVLOpData", 16);
    } else if (is(PMPortVLXmitFlowCtlUpdateErrors::DESC)) {
      array(v, "PortVLXmitFlowCtlUpdateErrors", "portVLXmitFlowCtlUpdateErrors", 16);
    } else if (is(PMPortVLXmitWaitCounters::DESC)) {
      array(v, "PortVLXmitWait", "portVLXmitWait", 16);
    } else if (is(PMSwPortVLCongestion::DESC)) {
      array(v, "SWPortVLCongestion", "swPortVLCongestion", 16);
    } else if (is(PMPortRcvConCtrl::DESC)) {
      add({{"PortPktRcvFECN", "portPktRcvFECN", dec}, {"PortPktRcvBECN", "portPktRcvBECN", dec}});
    } else if (is(PMPortSLRcvFECN::DESC)) {
      array(v, "PortSLRcvFECN", "portSLRcvFECN", 16);
    } else if (is(PMPortSLRcvBECN::DESC)) {
      array(v, "PortSLRcvBECN", "portSLRcvBECN", 16);
    } else if (is(PMPortXmitConCtrl::DESC)) {
      add({{"PortXmitTimeCong", "portXmitTimeCong", dec}});
    } else if (is(PMPortVLXmitTimeCong::DESC)) {
      array(v, "PortVLXmitTimeCong", "portVLXmitTimeCong", 15);
    } else if (is(PMPortXmitDataSL::DESC)) {
      array(v, "XmtDataSL", "portXmitDataSL", 16);
    } else if (is(PMPortRcvDataSL::DESC)) {
      array(v, "RcvDataSL", "portRcvDataSL", 16);
    } else if (is(PMPortExtendedSpeedsCounters::DESC)) {
      add({{"SyncHeaderErrorCounter", "syncHeaderErrorCounter", dec},
           {"UnknownBlockCounter", "unknownBlockCounter", dec}});
      array(v, "ErrorDetectionCounterLane", "errorDetectionCounterLane", 12);
      array(v, "FECCorrectableBlockCtrLane", "FECCorrectableBlockCounterLane", 12);
      array(v, "FECUncorrectableBlockCtrLane", "FECUncorrectableBlockCounterLane", 12);
    } else if (is(PMPortExtendedSpeedsCountersRSFEC::DESC)) {
      add({{"SyncHeaderErrorCounter", "syncHeaderErrorCounter", dec},
           {"UnknownBlockCounter", "unknownBlockCounter", dec}});
      array(v, "FECCorrectableSymbolCtrLane", "FECCorrectableSymbolCounterLane", 12);
      add({{"PortFECCorrectableBlockCtr", "portFECCorrectableBlockCounter", dec},
           {"PortFECUncorrectableBlockCtr", "portFECUncorrectableBlockCounter", dec},
           {"PortFECCorrectedSymbolCtr", "portFECCorrectedSymbolCounter", dec}});
    } else if (is(PMPortSamplesControl::DESC)) {
      v = {{"OpCode", "opCode", hex},
           {"PortSelect", "portSelect", dec},
           {"Tick", "tick", hex},
           {"CounterWidth", "counterWidth", dec},
           {"CounterMask0", "counterMask0", hex_bytes_wide},
           {"CounterMasks1to9", "counterMasks1to9", hex_bytes_wide},
           {"CounterMasks10to14", "counterMasks10to14", hex},
           {"SampleMechanisms", "sampleMechanisms", dec},
           {"SampleStatus", "sampleStatus", dec},
           {"OptionMask", "optionMask", hex},
           {"VendorMask", "vendorMask", hex},
           {"SampleStart", "sampleStart", dec},
           {"SampleInterval", "sampleInterval", dec},
           {"Tag", "tag", hex}};
      array(v, "CounterSelect", "counterSelect", 15, hex);
      v.push_back({"SamplesOnlyOptionMask", "samplesOnlyOptionMask", hex});
    } else if (is(PMPortSamplesResult::DESC)) {
      v = {{"Tag", "tag", hex}, {"SampleStatus", "sampleStatus", hex_bytes_wide}};
      array(v, "Counter", "counter", 15);
    } else {
      v.clear();
    }
    return v;
  }
};

}  // namespace

std::span<const Line> pm_lines(const StructDesc& desc, bool all) {
  static Layouts l;
  std::pair key(&desc, all && &desc == &PMPortCountersExtended::DESC);
  std::lock_guard lock(l.mu);
  auto it = l.built.find(key);
  if (it == l.built.end()) it = l.built.emplace(key, l.build(desc, key.second)).first;
  return it->second;
}

std::string pm_print(const StructDesc& desc, const uint8_t* buf, bool all) {
  auto lines = pm_lines(desc, all);
  if (lines.empty()) throw std::invalid_argument(std::string("no perfquery layout for ") + desc.name);
  return dump(desc, buf, lines);
}

}  // namespace iba::ref
