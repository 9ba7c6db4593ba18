#!/usr/bin/env python3
"""Group a run's kernels by signature and show how well a few stand for many.

    bin/chipsim run ... -p sim.per_kernel_stats=true --json RUN.json
    tools/kernel_groups.py RUN.json [--first K]

A kernel's signature is its name and its number of work-groups. For each group
the table gives the number of kernels, the group's share of the run's kernel
time (`cp.run_ps` of each per-kernel section), the mean time of one kernel and
the coefficient of variation between them. The last lines say how far the run's
kernel time would be if each group were taken as its first K kernels (default
3) times its size, and as its second to (K+1)th kernels (the first one of a
group often runs on colder caches): the error of extrapolating from detailed
representatives alone, with every kernel's caches as the full run left them.
"""
import argparse
import collections
import json
import statistics
import sys


def groups(path):
    with open(path) as f:
        j = json.load(f)
    secs = j.get("stats", {}).get("sections")
    if not secs:
        sys.exit(f"{path}: no per-kernel sections (run with -p sim.per_kernel_stats=true)")
    g = collections.OrderedDict()
    for s in secs:
        name = s["name"].split(".", 1)[1] if "." in s["name"] else s["name"]
        st = s["stats"]
        g.setdefault((name, st.get("cp.wgs", 0)), []).append(st.get("cp.run_ps", 0))
    return g


def estimate(g, skip, k):
    """The run's kernel time from kernels skip .. skip + k - 1 of each group."""
    total = 0.0
    for times in g.values():
        pick = times[skip:skip + k] or times[:k]
        total += statistics.mean(pick) * len(times)
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json")
    ap.add_argument("--first", type=int, default=3, metavar="K")
    a = ap.parse_args()
    if a.first < 1:
        sys.exit("--first must be at least 1")
    g = groups(a.json)
    total = sum(sum(t) for t in g.values())
    n = sum(len(t) for t in g.values())
    print(f"{n} kernels in {len(g)} groups (name, work-groups)")
    print(f"{'kernel':32s} {'wgs':>6s} {'n':>6s} {'share':>7s} {'mean ns':>10s} {'cv':>7s}")
    for (name, wgs), t in sorted(g.items(), key=lambda x: -sum(x[1])):
        mean = statistics.mean(t)
        cv = statistics.pstdev(t) / mean if mean else 0.0
        share = sum(t) / total if total else 0.0
        print(f"{name[:32]:32s} {wgs:6d} {len(t):6d} {share:7.3f} {mean / 1e3:10.1f} {cv:7.3f}")
    if total:
        for skip, label in ((0, f"first {a.first}"), (1, f"2nd to {a.first + 1}th")):
            e = estimate(g, skip, a.first) / total - 1
            e = 0.0 if abs(e) < 5e-5 else e  # no "-0.00%" from rounding
            print(f"the {label} of each group: kernel time {100 * e:+.2f}% off")
    return 0


if __name__ == "__main__":
    sys.exit(main())
