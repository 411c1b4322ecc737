#include "iba/refprint_pm.h"

#include <cstdio>
#include <deque>
#include <map>
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

// Layouts are built once: fixed rows plus rows generated for per-VL/SL/lane
// arrays ("PortVLOpPackets3" -> portVLOpPackets[3]).
struct Layouts {
  std::deque<std::string> names;  // stable storage for generated labels and fields
  std::map<const StructDesc*, std::vector<Line>> by_desc;
  std::vector<Line> ext_all;

  const char* keep(std::string s) {
    names.push_back(std::move(s));
    return names.back().c_str();
  }
  void array(std::vector<Line>& v, const char* label, const char* field, int n, FormatFn f = dec) {
    for (int i = 0; i < n; ++i)
      v.push_back({keep(label + std::to_string(i)), keep(std::string(field) + "[" + std::to_string(i) + "]"), f});
  }
  std::vector<Line> head() { return {{"PortSelect", "portSelect", dec}, {"CounterSelect", "counterSelect", hex}}; }

  Layouts() {
    // The error counters, in PortCounters and (64 bits wide) at the end of
    // PortCountersExtended, with the same labels.
    const std::vector<Line> errors = {
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
    auto& pc = by_desc[&PMPortCounters::DESC] = head();
    pc.insert(pc.end(), errors.begin(), errors.end());
    pc.insert(pc.end(), {
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
    std::vector<Line> ext = {
        {"PortSelect", "portSelect", dec},
        {"CounterSelect", "counterSelect", hex},
        {"PortXmitData", "portXmitData", dec},
        {"PortRcvData", "portRcvData", dec},
        {"PortXmitPkts", "portXmitPkts", dec},
        {"PortRcvPkts", "portRcvPkts", dec},
        {"PortUnicastXmitPkts", "portUnicastXmitPkts", dec},
        {"PortUnicastRcvPkts", "portUnicastRcvPkts", dec},
        {"PortMulticastXmitPkts", "portMulticastXmitPkts", dec},
        {"PortMulticastRcvPkts", "portMulticastRcvPkts", dec},
    };
    by_desc[&PMPortCountersExtended::DESC] = ext;
    ext_all = ext;
    ext_all.push_back({"CounterSelect2", "counterSelect2", hex});
    ext_all.insert(ext_all.end(), errors.begin(), errors.end());
    ext_all.insert(ext_all.end(), {
                                      {"LocalLinkIntegrityErrors", "localLinkIntegrityErrors", dec},
                                      {"ExcessiveBufferOverrunErrors", "excessiveBufferOverrunErrors", dec},
                                      {"VL15Dropped", "VL15Dropped", dec},
                                      {"PortXmitWait", "portXmitWait", dec},
                                      {"QP1Dropped", "QP1Dropped", dec},
                                  });

    auto& rcverr = by_desc[&PMPortRcvErrorDetails::DESC] = head();
    rcverr.insert(rcverr.end(), {{"PortLocalPhysicalErrors", "portLocalPhysicalErrors", dec},
                                 {"PortMalformedPktErrors", "portMalformedPacketErrors", dec},
                                 {"PortBufferOverrunErrors", "portBufferOverrunErrors", dec},
                                 {"PortDLIDMappingErrors", "portDLIDMappingErrors", dec},
                                 {"PortVLMappingErrors", "portVLMappingErrors", dec},
                                 {"PortLoopingErrors", "portLoopingErrors", dec}});
    auto& xmtdisc = by_desc[&PMPortXmitDiscardDetails::DESC] = head();
    xmtdisc.insert(xmtdisc.end(), {{"PortInactiveDiscards", "portInactiveDiscards", dec},
                                   {"PortNeighborMTUDiscards", "portNeighborMTUDiscards", dec},
                                   {"PortSwLifetimeLimitDiscards", "portSwLifetimeLimitDiscards", dec},
                                   {"PortSwHOQLifetimeLimitDiscards", "portSwHOQLifetimeLimitDiscards", dec}});
    auto& oprcv = by_desc[&PMPortOpRcvCounters::DESC] = head();
    oprcv.insert(oprcv.end(), {{"PortOpRcvPkts", "portOpRcvPkts", dec}, {"PortOpRcvData", "portOpRcvData", dec}});
    auto& flow = by_desc[&PMPortFlowCtlCounters::DESC] = head();
    flow.insert(flow.end(), {{"PortXmitFlowPkts", "portXmitFlowPkts", dec}, {"PortRcvFlowPkts", "portRcvFlowPkts", dec}});
    array(by_desc[&PMPortVLOpPackets::DESC] = head(), "PortVLOpPackets", "portVLOpPackets", 16);
    array(by_desc[&PMPortVLOpData::DESC] = head(), "PortVLOpData", "portVLOpData", 16);
    array(by_desc[&PMPortVLXmitFlowCtlUpdateErrors::DESC] = head(), "PortVLXmitFlowCtlUpdateErrors",
          "portVLXmitFlowCtlUpdateErrors", 16);
    array(by_desc[&PMPortVLXmitWaitCounters::DESC] = head(), "PortVLXmitWait", "portVLXmitWait", 16);
    array(by_desc[&PMSwPortVLCongestion::DESC] = head(), "SWPortVLCongestion", "swPortVLCongestion", 16);
    auto& rcvcc = by_desc[&PMPortRcvConCtrl::DESC] = head();
    rcvcc.insert(rcvcc.end(), {{"PortPktRcvFECN", "portPktRcvFECN", dec}, {"PortPktRcvBECN", "portPktRcvBECN", dec}});
    array(by_desc[&PMPortSLRcvFECN::DESC] = head(), "PortSLRcvFECN", "portSLRcvFECN", 16);
    array(by_desc[&PMPortSLRcvBECN::DESC] = head(), "PortSLRcvBECN", "portSLRcvBECN", 16);
    auto& xmitcc = by_desc[&PMPortXmitConCtrl::DESC] = head();
    xmitcc.push_back({"PortXmitTimeCong", "portXmitTimeCong", dec});
    array(by_desc[&PMPortVLXmitTimeCong::DESC] = head(), "PortVLXmitTimeCong", "portVLXmitTimeCong", 15);
    array(by_desc[&PMPortXmitDataSL::DESC] = head(), "XmtDataSL", "portXmitDataSL", 16);
    array(by_desc[&PMPortRcvDataSL::DESC] = head(), "RcvDataSL", "portRcvDataSL", 16);

    auto& esc = by_desc[&PMPortExtendedSpeedsCounters::DESC] = head();
    esc.insert(esc.end(), {{"SyncHeaderErrorCounter", "syncHeaderErrorCounter", dec},
                           {"UnknownBlockCounter", "unknownBlockCounter", dec}});
    array(esc, "ErrorDetectionCounterLane", "errorDetectionCounterLane", 12);
    array(esc, "FECCorrectableBlockCtrLane", "FECCorrectableBlockCounterLane", 12);
    array(esc, "FECUncorrectableBlockCtrLane", "FECUncorrectableBlockCounterLane", 12);
    auto& rs = by_desc[&PMPortExtendedSpeedsCountersRSFEC::DESC] = head();
    rs.insert(rs.end(), {{"SyncHeaderErrorCounter", "syncHeaderErrorCounter", dec},
                         {"UnknownBlockCounter", "unknownBlockCounter", dec}});
    array(rs, "FECCorrectableSymbolCtrLane", "FECCorrectableSymbolCounterLane", 12);
    rs.insert(rs.end(), {{"PortFECCorrectableBlockCtr", "portFECCorrectableBlockCounter", dec},
                         {"PortFECUncorrectableBlockCtr", "portFECUncorrectableBlockCounter", dec},
                         {"PortFECCorrectedSymbolCtr", "portFECCorrectedSymbolCounter", dec}});

    auto& psc = by_desc[&PMPortSamplesControl::DESC];
    psc = {{"OpCode", "opCode", hex},
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
    array(psc, "CounterSelect", "counterSelect", 15, hex);
    psc.push_back({"SamplesOnlyOptionMask", "samplesOnlyOptionMask", hex});
    auto& psr = by_desc[&PMPortSamplesResult::DESC];
    psr = {{"Tag", "tag", hex}, {"SampleStatus", "sampleStatus", hex_bytes_wide}};
    array(psr, "Counter", "counter", 15);
  }
};

const Layouts& layouts() {
  static const Layouts l;
  return l;
}

}  // namespace

std::span<const Line> pm_lines(const StructDesc& desc, bool all) {
  const Layouts& l = layouts();
  if (all && &desc == &PMPortCountersExtended::DESC) return l.ext_all;
  auto it = l.by_desc.find(&desc);
  if (it == l.by_desc.end()) return {};
  return it->second;
}

std::string pm_print(const StructDesc& desc, const uint8_t* buf, bool all) {
  auto lines = pm_lines(desc, all);
  if (lines.empty()) throw std::invalid_argument(std::string("no perfquery layout for ") + desc.name);
  return dump(desc, buf, lines);
}

}  // namespace iba::ref
