#!/usr/bin/env python3
"""The SUMMARY lines of model_run outputs as the rows of docs/real-fabrics.md's
tables of every set ("Every set at ...").

    bench/summary_table.py LABEL=FILE [LABEL=FILE ...]

LABEL names the set in the first column ("k8 1-200"); each FILE's SUMMARY
lines give one row per fabric and tool (ibnetdiscover and iblinkinfo, whose
runs are the same walk, share one).  When FILE holds several fabrics,
LABEL is "fabric:label,fabric:label" (k8:k8 1-200,irr:irregular 1-200).
Runs without the reference's strategy (--no-ref) print their own lost
count where the others print the runs that lost more than it, and "(not
run)" for the runs slower than it.
"""
import re
import sys


def fields(line):
    """SUMMARY line -> (fabric, tool, {key: [values...]})."""
    words = line.split()
    fabric, tool = words[1], words[2]
    out, key = {}, None
    for w in words[3:]:
        if "=" in w:
            key, v = w.split("=", 1)
            out[key] = [v]
        elif key:
            out[key].append(w)
    return fabric, tool, out


def row(label, tool, f, with_ref):
    tb, tp, to = f["time/bound"], f["time/phys"], f["timeouts%"]
    lost = f["lost>ref"][0] if with_ref else "lost " + f["lost"][0]
    slower = f["slower"][0] if with_ref else "(not run)"
    if with_ref and slower != "0":
        slower += " (" + f["worst"][0] + ")"
    return "| %s | %s | %s | %s / %s / %s | %s / %s | %s / %s / %s | %s | %s | %s | %s |" % (
        label, tool, f["runs"][0], tb[0], tb[1], tb[2], tp[0], tp[1], to[0], to[1], to[2],
        f["drops_sm_idle"][0], f["peak>Q+D"][0], lost, slower)


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    print("| set | tool | runs | time/bound median / p95 / worst | time/phys median / p95 | "
          "timeouts % median / p95 / worst | runs dropping with the SM idle | peak > Q+D (runs/most over) | "
          "lost > reference (runs) | slower than the reference (runs) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for arg in argv[1:]:
        labels, path = arg.rsplit("=", 1)
        names = {}
        for part in labels.split(","):
            fab, _, lab = part.partition(":")
            names[fab if lab else ""] = lab or fab
        text = open(path).read()
        with_ref = re.search(r" ref_s=(?!0\.000000 )", text) is not None
        for line in text.splitlines():
            if not line.startswith("SUMMARY "):
                continue
            fabric, tool, f = fields(line)
            if tool == "iblinkinfo":
                continue
            label = names.get(fabric, names.get("", fabric))
            print(row(label, "ibnetdiscover, iblinkinfo" if tool == "ibnetdiscover" else tool, f, with_ref))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
