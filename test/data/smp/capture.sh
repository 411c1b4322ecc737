#!/bin/sh
# Captures the golden files of test/unit/iba_refprint_smp_test.cpp from a
# running simulated fabric (see test/data/README): run it with the
# environment of a client of that fabric (IBSIM_SOCKNAME, LD_PRELOAD of
# umad2sim) from a scratch directory; it writes into the directory of this
# script.  Topology: topo.net next to this script.
set -e
out=$(cd "$(dirname "$0")" && pwd)
q() { smpquery "$@" 2>/dev/null; }
d() { smpdump "$@" 2>/dev/null; }
cap() {  # name lid attr mod
  d "$2" "$3" "$4" > "$out/$1.$3.$4.hex"
}
for lid in 1 2 4 5 6; do
  q nodeinfo $lid > "$out/lid$lid.nodeinfo.out"; cap lid$lid $lid 0x11 0
  q nodedesc $lid > "$out/lid$lid.nodedesc.out"; cap lid$lid $lid 0x10 0
done
# CA ports (H1 has two), switch port 0 and an external switch port.
for lp in "1 1" "4 2" "5 1" "6 1" "2 0" "2 1" "2 3" "3 2"; do
  set -- $lp
  q portinfo $1 $2 > "$out/lid$1.portinfo.$2.out"; cap lid$1 $1 0x15 $2
  q -K portinfo $1 $2 > "$out/lid$1.portinfo_k.$2.out"
  q mlnxextportinfo $1 $2 > "$out/lid$1.mlnxextportinfo.$2.out"; cap lid$1 $1 0xff90 $2
  q vlarb $1 $2 > "$out/lid$1.vlarb.$2.out"
  cap lid$1 $1 0x18 $(( (1 << 16) | $2 )); cap lid$1 $1 0x18 $(( (3 << 16) | $2 ))
done
q switchinfo 2 > "$out/lid2.switchinfo.out"; cap lid2 2 0x12 0
q switchinfo 3 > "$out/lid3.switchinfo.out"; cap lid3 3 0x12 0
# P_Key tables: a CA (64 P_Keys: two blocks) and switch port 0.
q pkeys 1 1 > "$out/lid1.pkeys.1.out"; cap lid1 1 0x16 0; cap lid1 1 0x16 1
q pkeys 2 0 > "$out/lid2.pkeys.0.out"; cap lid2 2 0x16 0
# SL2VL: a CA, and a switch's table for output port 1 from every input port.
q sl2vl 1 1 > "$out/lid1.sl2vl.1.out"; cap lid1 1 0x17 0
q sl2vl 2 1 > "$out/lid2.sl2vl.1.out"
for in in 0 1 2 3 4 5 6 7 8; do cap lid2 2 0x17 $(( (in << 8) | 1 )); done
# GUIDInfo: a CA port (32 GUIDs: four blocks) and a switch.
q GI 1 > "$out/lid1.guids.out"; for b in 0 1 2 3; do cap lid1 1 0x14 $b; done
q GI 2 > "$out/lid2.guids.out"; cap lid2 2 0x14 0
# SMInfo of the master SM.  OpenSM counts every SMInfo query in its
# activity count, so sminfo's count is never smpdump's: the test takes the
# count from sminfo's line and checks the rest.
d 1 0x20 0 > "$out/lid1.0x20.0.hex"
sminfo 2>/dev/null > "$out/lid1.sminfo.out"
