#!/usr/bin/env python3
"""Compare two model_run outputs (RUN lines) run for run.

usage: bench/model_compare.py BEFORE AFTER

For each tool and fabric, over the runs both files hold (iblinkinfo left
out: its runs are ibnetdiscover's): the geometric mean of AFTER's time over
BEFORE's, how many runs are more than 5 % faster or slower, the worst and
best ratio with their profile, the drops, timeouts and lost queries summed
(before -> after), the median time over phys_s and over bound_s (before ->
after), and how many of AFTER's runs were slower than the reference's
strategy (where AFTER was run with it).
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
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    a, b = load(sys.argv[1]), load(sys.argv[2])
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
        slower_ref = sum(1 for k in keys if b[k].get("ref_s", 0) > 0 and b[k]["time_s"] > b[k]["ref_s"])
        print(f"{tool:13s} {fabric:5s} runs={len(r)} gmean={gmean:.3f} faster={sum(x < 0.95 for x in r)} "
              f"slower={sum(x > 1.05 for x in r)} worst={r[worst]:.2f}@{keys[worst][2]} best={r[best]:.2f}@{keys[best][2]} "
              f"drops={total(a, 'drops'):.0f}->{total(b, 'drops'):.0f} timeouts={total(a, 'timeouts'):.0f}->{total(b, 'timeouts'):.0f} "
              f"lost={total(a, 'lost'):.0f}->{total(b, 'lost'):.0f} time/phys={over(a, 'phys_s'):.2f}->{over(b, 'phys_s'):.2f} "
              f"time/bound={over(a, 'bound_s'):.2f}->{over(b, 'bound_s'):.2f} slower_than_ref={slower_ref}")


if __name__ == "__main__":
    main()
