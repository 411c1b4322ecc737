// perfquery layouts: our pm_print() against libibmad's dump functions (the
// ones perfquery prints with) on random counters, and against a perfquery
// run recorded on a simulated fabric (test/data/gmp).
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "iba/refprint_pm.h"

#include <infiniband/mad.h>

using namespace iba;

namespace {

std::string read_data(const std::string& name) {
  std::ifstream in(std::string(IBTOOL_TEST_DATA) + "/gmp/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(GmpRefprintPm, EveryLayoutNamesRealFields) {
  const StructDesc* all[] = {&PMPortCounters::DESC,
                             &PMPortCountersExtended::DESC,
                             &PMPortRcvErrorDetails::DESC,
                             &PMPortXmitDiscardDetails::DESC,
                             &PMPortOpRcvCounters::DESC,
                             &PMPortFlowCtlCounters::DESC,
                             &PMPortVLOpPackets::DESC,
                             &PMPortVLOpData::DESC,
                             &PMPortVLXmitFlowCtlUpdateErrors::DESC,
                             &PMPortVLXmitWaitCounters::DESC,
                             &PMSwPortVLCongestion::DESC,
                             &PMPortRcvConCtrl::DESC,
                             &PMPortSLRcvFECN::DESC,
                             &PMPortSLRcvBECN::DESC,
                             &PMPortXmitConCtrl::DESC,
                             &PMPortVLXmitTimeCong::DESC,
                             &PMPortXmitDataSL::DESC,
                             &PMPortRcvDataSL::DESC,
                             &PMPortExtendedSpeedsCounters::DESC,
                             &PMPortExtendedSpeedsCountersRSFEC::DESC,
                             &PMPortSamplesControl::DESC,
                             &PMPortSamplesResult::DESC};
  std::vector<uint8_t> zero(256);
  for (const StructDesc* d : all) {
    EXPECT_FALSE(ref::pm_lines(*d).empty()) << d->name;
    EXPECT_NO_THROW(ref::pm_print(*d, zero.data())) << d->name;
  }
  EXPECT_THROW(ref::pm_print(SANodeRecord::DESC, zero.data()), std::invalid_argument);
}

TEST(GmpRefprintPm, PortCountersAsPerfqueryPrintedThem) {
  // perfquery on a 2-HCA ibsim fabric (test/data/gmp/perfquery_pc.txt).
  PMPortCounters pc;
  pc.set_portSelect(1).set_portXmitData(3816).set_portRcvData(3816).set_portXmitPkts(53).set_portRcvPkts(53);
  std::string want = read_data("perfquery_pc.txt");
  ASSERT_FALSE(want.empty());
  want = want.substr(want.find('\n') + 1);  // the "# Port counters: ..." header is the command's
  EXPECT_EQ(ref::pm_print(pc), want);
}

namespace {

struct DumpRow {
  const StructDesc* desc;
  bool all;
  ib_mad_dump_fn* fn;
  int valsz;
};

std::string ibmad_dump(ib_mad_dump_fn* fn, std::vector<uint8_t>& buf, int valsz) {
  std::vector<char> out(8192, 0);
  fn(out.data(), int(out.size()), buf.data(), valsz);
  std::string s(out.data());
  // libibmad ends the last line with a newline too.
  return s;
}

}  // namespace

TEST(GmpRefprintPm, SameAsLibibmadDumps) {
  const DumpRow rows[] = {
      {&PMPortCounters::DESC, false, mad_dump_perfcounters, 192},
      {&PMPortCountersExtended::DESC, true, mad_dump_perfcounters_ext, 192},
      {&PMPortRcvErrorDetails::DESC, false, mad_dump_perfcounters_rcv_err, 192},
      {&PMPortXmitDiscardDetails::DESC, false, mad_dump_perfcounters_xmt_disc, 192},
      {&PMPortOpRcvCounters::DESC, false, mad_dump_perfcounters_port_op_rcv_counters, 192},
      {&PMPortFlowCtlCounters::DESC, false, mad_dump_perfcounters_port_flow_ctl_counters, 192},
      {&PMPortVLOpPackets::DESC, false, mad_dump_perfcounters_port_vl_op_packet, 192},
      {&PMPortVLOpData::DESC, false, mad_dump_perfcounters_port_vl_op_data, 192},
      {&PMPortVLXmitFlowCtlUpdateErrors::DESC, false, mad_dump_perfcounters_port_vl_xmit_flow_ctl_update_errors, 192},
      {&PMPortVLXmitWaitCounters::DESC, false, mad_dump_perfcounters_port_vl_xmit_wait_counters, 192},
      {&PMSwPortVLCongestion::DESC, false, mad_dump_perfcounters_sw_port_vl_congestion, 192},
      {&PMPortRcvConCtrl::DESC, false, mad_dump_perfcounters_rcv_con_ctrl, 192},
      {&PMPortSLRcvFECN::DESC, false, mad_dump_perfcounters_sl_rcv_fecn, 192},
      {&PMPortSLRcvBECN::DESC, false, mad_dump_perfcounters_sl_rcv_becn, 192},
      {&PMPortXmitConCtrl::DESC, false, mad_dump_perfcounters_xmit_con_ctrl, 192},
      {&PMPortVLXmitTimeCong::DESC, false, mad_dump_perfcounters_vl_xmit_time_cong, 192},
      {&PMPortXmitDataSL::DESC, false, mad_dump_perfcounters_xmt_sl, 192},
      {&PMPortRcvDataSL::DESC, false, mad_dump_perfcounters_rcv_sl, 192},
      {&PMPortExtendedSpeedsCounters::DESC, false, mad_dump_port_ext_speeds_counters, 192},
      {&PMPortExtendedSpeedsCountersRSFEC::DESC, false, mad_dump_port_ext_speeds_counters_rsfec_active, 192},
      {&PMPortSamplesResult::DESC, false, mad_dump_portsamples_result, 192},
      {&PMPortSamplesControl::DESC, false, mad_dump_portsamples_control, 192},
  };
  std::mt19937_64 rng(7);
  for (const auto& r : rows) {
    for (int round = 0; round < 3; ++round) {
      std::vector<uint8_t> buf(256);
      for (auto& b : buf) b = uint8_t(rng());
      if (round == 0) std::fill(buf.begin(), buf.end(), 0);
      std::string ours = ref::pm_print(*r.desc, buf.data(), r.all);
      EXPECT_EQ(ours, ibmad_dump(r.fn, buf, r.valsz)) << r.desc->name;
    }
  }
}
