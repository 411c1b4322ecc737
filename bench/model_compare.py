#!/usr/bin/env python3
"""Compare two model_run outputs (RUN lines) run for run.

usage: bench/model_compare.py [--runs] BEFORE AFTER

For each tool and fabric, over the runs both files hold (iblinkinfo left
out: its runs are ibnetdiscover's): the geometric mean of AFTER's time over
BEFORE's, how many runs are more than 5 % faster or slower, the worst and
best ratio with their profile, the drops, timeouts and lost queries summed
(before -> after), the median time over phys_s and over bound_s (before ->
after), and how many of AFTER's runs were slower than the reference's
strategy: by AFTER's own ref_s where it was run with it, else by
BEFORE's (marked "(BEFORE's ref_s)"; an AFTER run with --no-ref is then
still held against the reference's strategy on the same profile).

--runs also lists, one line each, the runs whose drops changed and those
slower than the reference's strategy: what to trace next (MODEL_TRACE=1).
"""
import collections
import math
import re
import sys


def load(path):
    runs = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"RUN (\S+) (\S+) (\S+): (.*)", line)
            if not m:
                continue
            fields = dict(x.split("=", 1) for x in m.group(4).split())
            runs[(m.group(1), m.group(2), m.group(3))] = {k: float(v) for k, v in fields.items()}
    return runs


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if v else 0.0


def main():
    args = sys.argv[1:]
    runs = "--runs" in args
    args = [x for x in args if x != "--runs"]
    if len(args) != 2:
        sys.exit(__doc__.strip().splitlines()[2])
    a, b = load(args[0]), load(args[1])
    # The reference's time on each run's profile: AFTER's, else BEFORE's.
    ref_of = lambda k: b[k].get("ref_s", 0) or a[k].get("ref_s", 0)
    ref_from_before = any(b[k].get("ref_s", 0) <= 0 < a[k].get("ref_s", 0) for k in a if k in b)
    groups = collections.defaultdict(list)
    for k in a:
        if k in b and k[0] != "iblinkinfo" and a[k]["time_s"] > 0 and b[k]["time_s"] > 0:
            groups[(k[0], k[1])].append(k)
    for (tool, fabric), keys in sorted(groups.items()):
        r = [b[k]["time_s"] / a[k]["time_s"] for k in keys]
        gmean = math.exp(sum(map(math.log, r)) / len(r))
        worst = max(range(len(r)), key=lambda i: r[i])
        best = min(range(len(r)), key=lambda i: r[i])
        total = lambda d, f: sum(d[k].get(f, 0) for k in keys)
        over = lambda d, f: median([d[k]["time_s"] / d[k][f] for k in keys if d[k].get(f, 0) > 0])
        slower_ref = sum(1 for k in keys if ref_of(k) > 0 and b[k]["time_s"] > ref_of(k))
        print(f"{tool:13s} {fabric:5s} runs={len(r)} gmean={gmean:.3f} faster={sum(x < 0.95 for x in r)} "
              f"slower={sum(x > 1.05 for x in r)} worst={r[worst]:.2f}@{keys[worst][2]} best={r[best]:.2f}@{keys[best][2]} "
              f"drops={total(a, 'drops'):.0f}->{total(b, 'drops'):.0f} timeouts={total(a, 'timeouts'):.0f}->{total(b, 'timeouts'):.0f} "
              f"lost={total(a, 'lost'):.0f}->{total(b, 'lost'):.0f} time/phys={over(a, 'phys_s'):.2f}->{over(b, 'phys_s'):.2f} "
              f"time/bound={over(a, 'bound_s'):.2f}->{over(b, 'bound_s'):.2f} slower_than_ref={slower_ref}"
              + (" (BEFORE's ref_s)" if ref_from_before else ""))
    if runs:
        for k in sorted(k for k in a if k in b and k[0] != "iblinkinfo"):
            what = []
            if a[k].get("drops", 0) != b[k].get("drops", 0):
                what.append(f"drops {a[k].get('drops', 0):.0f}->{b[k].get('drops', 0):.0f}")
            if ref_of(k) > 0 and b[k]["time_s"] > ref_of(k):
                what.append(f"slower than the reference's strategy: {b[k]['time_s']:.6f} s against {ref_of(k):.6f} s")
            if what:
                print(f"run {k[0]} {k[1]} {k[2]}: time {a[k]['time_s']:.6f} -> {b[k]['time_s']:.6f} s; " + "; ".join(what))


if __name__ == "__main__":
    main()
