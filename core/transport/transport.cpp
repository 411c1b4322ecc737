#include "core/transport/transport.h"


namespace ibcore {

uint16_t pkey_index_of(const IBPath& path, uint8_t mgmt_class, uint16_t port_pkey_index) {
  if (mgmt_class == iba::mgmt::SUBN_LID_ROUTED || mgmt_class == iba::mgmt::SUBN_DIRECTED_ROUTE) return 0;
  return path.pkey_index.value_or(port_pkey_index);
}

IBPath MadAddr::to_path() const {
  IBPath p;
  p.SLID = lid;
  p.SL = sl;
  p.sqpn = qpn;
  p.qkey = qkey;
  p.pkey_index = pkey_index;
  p.has_grh = grh_present;
  if (grh_present) {
    p.SGID = gid;
    p.traffic_class = traffic_class;
    p.flow_label = flow_label;
    p.hop_limit = hop_limit;
  }
  return p;
}

}  // namespace ibcore
