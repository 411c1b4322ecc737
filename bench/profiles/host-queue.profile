# A fabric model profile with its queue on the host's side, not in the
# switches: the test bed's shape.  ibsim answers every MAD in turn in one
# process (umad2sim hands it each send and each reply), so more MADs in
# flight lengthen every round trip, the local port's included, and drop
# nothing.  The engine's round-trip pacing (FlowLimits::delay_rise) must
# not read that as a switch's queue: ibnetdiscover should lift its caps
# here (`-v`-like flow figures in model_run's output) as on the test bed.
# Not part of the shipped sweep; run it by name:
#   bench/model_bench.sh bench/profiles/host-queue.profile
name = host-queue

# Link hop latency (us): as the sweep's. Assumed.
hop_latency_us = 0.3
# The local port's own path, one way (us): as the sweep's. Assumed.
host_latency_us = 5
# The host's side as one FIFO server, per MAD sent and per reply received
# (us): ibsim's CPU time per MAD on the k=32 walk, halved (measured here
# with bench/discovery_bench.sh: ibsim_cpu_s 0.40-0.48 s for 85,761 MADs,
# about 5 us a MAD).
host_service_us = 2.5

# The switches and HCAs as the test bed has them: unbounded buffers and
# queues, no service time.
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
sa_rmpp = 0
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
# No background SMPs from the SM (the test bed's OpenSM is idle once the
# subnet is up).
sm_smps_per_s = 0
