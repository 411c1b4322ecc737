# The "ideal" fabric model profile: the test bed (ibsim + OpenSM under
# umad2sim) as the model sees it: no drops, no queues, no service time,
# only link and host latency.  Its MAD counts equal the test bed's
# (ibnetdiscover on the k=32 fat tree: 85,761).  Profile::ideal() in
# test/model/fabric.h holds the same values.
name = ideal

# Link hop latency (us): as the sweep's (assumed: switch port-to-port
# 90-130 ns by public vendor figures, cable, serialization).
hop_latency_us = 0.3
# The local port's own path, one way (us). Assumed, as the sweep's.
host_latency_us = 5
# VL15 buffers, management processor FIFOs, PMA and SA queues: unbounded
# (0); no service time anywhere (the test bed has neither).
vl15_depth = 0
sma_queue = 0
smi_forward_us = 0
sma_service_us = 0
hca_queue = 0
hca_service_us = 0
pma_queue = 0
pma_service_us = 0
sa_queue = 0
sa_service_us = 0
sa_record_us = 0
# SA tables: only the first MAD's records, as umad2sim delivers them (0).
sa_rmpp = 0
# The kernel times out a send it holds: 1.
kernel_timeouts = 1
# What ibsim's ports report (smpquery portinfo on the test bed): switch port
# 0 RespTimeValue 8, CA ports 0, SubnetTimeOut 31 (set by OpenSM there); the
# PMA's ClassPortInfo RespTimeValue: assumed 18.
switch_resp_time = 8
ca_resp_time = 0
subnet_timeout = 31
pma_resp_time = 18
# The SM runs on the tool's node (the first Hca), as on the test bed.
sm_node = ""
