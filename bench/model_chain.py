#!/usr/bin/env python3
"""The chain of round trips behind a model run's last answer (issue 35).

Reads a MODEL_TRACE=1 trace of one run (model_run's stderr) and follows
the last answer back: each MAD was sent at the instant some answer came
in (the walk asks its next question when an answer arrives), so the
answer delivered at a send's instant is taken as its cause, and so on back
to the first MAD.  Prints the chain, one round trip a line: send time,
answer time, round trip, attribute, route.

Read it for the walk's serial part: which questions wait on which, and
how many round trips the last node is behind.  Where the window is full
(a send waits for a slot, not an answer) or a cap holds MADs, the answer
at the send's instant freed a slot and did not cause the question; the
chain then jumps between unrelated nodes (short round trips of other
nodes' reads), and a send with no answer at its instant shows as a gap.
Most exact on the free strategy (model_run --free's settings: no caps,
queues that never drop) of a walk that never fills the window.

    MODEL_TRACE=1 build/test/model_run --no-ref --tool ibnetdiscover \\
        --fabric k8="fattree 8" PROFILE 2> trace.txt
    bench/model_chain.py trace.txt
"""
import collections
import sys


def main(path):
    sends, delivers, what = {}, {}, {}
    at = collections.defaultdict(list)
    for line in open(path):
        p = line.split()
        if len(p) < 3 or not p[0].isdigit():
            continue
        t, ev = int(p[0]), p[1]
        kv = dict(x.split('=', 1) for x in p[2:] if '=' in x)
        tid = kv.get('tid')
        if not tid or tid == '00000000':  # (the SM's own SMPs)
            continue
        if ev == 'send':
            sends.setdefault(tid, t)
            what[tid] = (kv.get('attr', '?'), kv.get('route', '?'), kv.get('dlid', ''))
        elif ev == 'deliver':
            delivers[tid] = t
            at[t].append(tid)
    if not delivers:
        sys.exit('no answer in ' + path)
    chain = []
    cur = max(delivers, key=lambda k: delivers[k])
    while True:
        s = sends[cur]
        chain.append((cur, s, delivers[cur]))
        causes = [x for x in at.get(s, []) if x != cur]
        if causes:
            cur = causes[0]
            continue
        before = [x for x in delivers if delivers[x] <= s and x != cur]
        if not before:
            break
        prev = max(before, key=lambda k: delivers[k])
        chain.append(('gap', delivers[prev], s))
        cur = prev
    links = 0
    for c in reversed(chain):
        if c[0] == 'gap':
            print(f"   gap {(c[2] - c[1]) / 1000:10.1f} us")
            continue
        tid, s, d = c
        a, r, lid = what[tid]
        links += 1
        print(f"{s / 1000:11.1f} -> {d / 1000:11.1f} us  rtt {(d - s) / 1000:9.1f}  attr {a}  {r} {lid}")
    print(f"# {links} round trips in the chain, the last answer at {max(delivers.values()) / 1000:.1f} us")


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
