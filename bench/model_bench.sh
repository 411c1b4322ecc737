#!/usr/bin/env bash
# The fabric model benchmark (issue 24): the product's library code
# (discovery as ibnetdiscover and iblinkinfo do it, dump_fts' LFT reads,
# ibqueryerrors' PM scan, the exporter's scrape) run on the fabric model
# (test/model/fabric.h) with each profile, on the k=32 and k=48 fat trees
# and the irregular test fabrics.  Virtual time is exact: no repetition, no
# idle machine needed.  One line per run:
#
#   RUN <tool> <fabric> <profile>: time_s=<virtual s> bound_s=<s> phys_s=<s> ref_s=<s> mads=<n> drops=<n> timeouts=<n> retries=<n> peak_sma_queue=<n> Q=<n> lost=<n> peak_pma=<n> PQ=<n> walk_s=<s> [ref_mads=<n> ref_timeouts=<n>]
#
# time_s: the run's virtual time; bound_s: the model's lower bound, which
# does not depend on the run (issue 35): the busiest resource's time for the
# queries the tool must make, each once (the same tool on the fabric with
# no service time and no queue: ibmodel::run_tool), with the SM's
# background SMPs taking their share of each switch, the discovery's
# critical path (the sum of the directed-route round trips to each depth),
# or a node's own time counted from when the walk reached it, whichever is
# longest; phys_s: a bound no route form beats (issue 38:
# the largest of the busiest node's unavoidable work, its SMA's answers
# and 2 SMI visits per probe of its ports, also counted from when the
# cheapest probes reached it, the critical path by the
# cheapest probes, and the MADs over the window times the shortest round
# trip; test/model/fabric.h Fabric::phys_s); ref_s: the same tool in
# the same model with the reference's strategy (directed route only, 2
# MADs in flight, 1000 ms timeout, 3 retries); drops: MADs the model lost
# (full VL15 buffers, mostly); timeouts: sends the kernel handed back timed
# out; retries: the engine's resends; peak_sma_queue: the most SMPs held at
# one node for its management processor; Q: the profile's queue capacity;
# lost: answers the complete run got and this one did not (failed queries,
# and the queries never made because of them: the ports of a node the
# walk never found); peak_pma: the most GMPs at one PMA at once (one it
# turned away counted); PQ: the profile's PMA queue; walk_s: phys_s for a
# walk that reads a port before it probes through it (a LID round trip a
# depth more; Fabric::walk_s, a diagnostic).  With the reference's runs,
# ref_mads and ref_timeouts: its MADs and timed-out sends.
# A run that lost queries for good gets a `# ...` line under its RUN line
# (how many, and the nodes it found).
#
#   bench/model_bench.sh [PROFILE...]        (none: ideal + the shipped sweep)
#   bench/model_bench.sh --random FIRST N    (issue 35: the N profiles drawn from seeds FIRST..FIRST+N-1)
#
# PROFILE: a profile file, "ideal" or "random-SEED" (test/model/fabric.h
# Profile::random; `model_run --print-profile random-SEED` writes it out,
# bench/profiles/random.sh writes several).  The random mode runs every
# tool with ibtool's strategy and the reference's on each profile and ends
# with one SUMMARY line per fabric and tool: the distribution of time over
# bound, timeouts per MAD and drops (median, 95th percentile, worst with
# its profile), the runs that dropped with the SM idle, that held more SMPs
# at a node than its queue plus VL15 depth, that lost answers (and the
# reference's), that lost more than the reference and that were slower
# than it (test/model/model_run.cpp print_summary).  Its default fabrics:
# k8, k16, irregular, irregular-large (testbed::irregular_large(64): 88
# switches in a ring with chords and chains, 250 hosts; irregular-wide,
# the irregular fabric without its 1x link, differs from it only by that
# link's time, Profile::lane_gbps), k32
# (FABRICS overrides; k32 costs about as much as the four others together:
# about 80 s of CPU a profile).
#
# Environment: BUILD=DIR (default build; model_run is built there if
# missing), FABRICS="name=spec;name=spec" (default: k32, k48, irregular,
# irregular-wide and ibsim's example fabrics), TOOLS="t1 t2" (default: all
# five), NOREF=1 skips the reference runs (half the time).  k=48 (30,528
# nodes; dump_fts reads 1.4 million LFT blocks) takes minutes of wall time
# per profile.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build}
runner=$build/test/model_run
if [ ! -x "$runner" ]; then
  cmake --build "$build" --target model_run >&2
fi

random=()
if [ "${1:-}" = --random ]; then
  if [ $# -ne 3 ] || ! [[ $2 =~ ^[0-9]+$ ]] || ! [[ $3 =~ ^[0-9]+$ ]]; then
    echo "usage: model_bench.sh --random FIRST N" >&2
    exit 2
  fi
  random=(--random "$2" "$3")
  shift 3
  : "${FABRICS:=k8=fattree 8;k16=fattree 16;irregular=irregular;irregular-large=irregular-large 64;k32=fattree 32}"
elif [ $# -eq 0 ]; then
  set -- "$here/bench/profiles/ideal.profile" "$here"/bench/profiles/sweep-*.profile
fi
for p in "$@"; do
  [ "$p" = ideal ] || [[ $p =~ ^random-[0-9]+$ ]] || [ -r "$p" ] ||
    { echo "model_bench: cannot read profile $p" >&2; exit 2; }
done

fabrics=${FABRICS:-"k32=fattree 32;k48=fattree 48;irregular=irregular;irregular-wide=irregular-wide"}
if [ -z "${FABRICS:-}" ]; then
  for ex in /usr/share/doc/ibsim-utils/net-examples/net*; do
    [ -e "$ex" ] || continue
    n=$(basename "$ex")
    grep -q '^Hca' "$ex" && fabrics="$fabrics;$n=example $n"
  done
fi
args=()
IFS=';' read -r -a specs <<< "$fabrics"
for s in "${specs[@]}"; do args+=(--fabric "$s"); done
for t in ${TOOLS:-}; do args+=(--tool "$t"); done
[ -n "${NOREF:-}" ] && args+=(--no-ref)

# The library's warnings about failed queries go to stderr; the RUN lines
# carry the counts.
exec "$runner" "${args[@]}" "${random[@]}" "$@" 2>/dev/null
