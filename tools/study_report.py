#!/usr/bin/python3
"""Summary table and plots of a chipsim study from its results.csv.

usage: study_report.py --csv DIR/results.csv --out DIR [--chiplets 4[,6...]]

Writes DIR/summary.txt and the plots DIR/perf-<N>chiplets.png (performance of
each scheme normalized to viper, per workload, grouped by reuse class),
DIR/energy.png (memory-subsystem energy split by component) and
DIR/traffic.png (interconnect flits split by link class). Reuse classes come
from the viper runs and the no-sync reference runs (ideal with
coherence.caching=d4, reported as "nosync") on 4 chiplets: the relative L2
miss-rate reduction from viper to nosync, moderate-to-high at 15% or more
(spec cpelide D16), as `chipsim classify` computes it. ideal (the oracle
upper bound) is compared like the schemes: per workload, the faster of its
runs (write-back and write-through L2s). Runs whose status is not ok are
listed and left out.
"""
import argparse
import csv
import math
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("study_report: matplotlib is missing: install Debian's python3-matplotlib "
             "(scripts/install-deps.sh does)")

SCHEMES = ["viper", "cpelide", "hmg"]
COMPARED = ["cpelide", "hmg"]
THRESHOLD = 15.0
ENERGY = [("l1i", "L1I"), ("l1d", "L1D"), ("lds", "LDS"), ("l2", "L2"), ("noc", "NoC"),
          ("dram", "DRAM")]
FLITS = [("flits_l1_l2", "L1-L2"), ("flits_l2_l3", "L2-L3"), ("flits_remote", "remote")]
CLASSES = ["moderate-to-high", "low", "unclassified"]


def load(path):
    runs, failed = {}, []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["status"] != "ok":
                failed.append(row)
                continue
            scheme = row["scheme"]
            if scheme == "ideal" and "coherence.caching=d4" in row.get("overrides", ""):
                scheme = "nosync"
            key = (row["workload"], scheme, int(row["chiplets"]))
            # the oracle: the faster of its write-back and write-through runs
            if scheme == "ideal" and key in runs and num(runs[key], "cycles") <= num(row, "cycles"):
                continue
            runs[key] = row
    return runs, failed


def num(row, key):
    return float(row[key]) if row.get(key) not in (None, "") else 0.0


def miss_rate(row):
    acc = num(row, "l2_accesses")
    return 1.0 - num(row, "l2_hits") / acc if acc else 0.0


def reuse_classes(runs, workloads):
    cls, red = {}, {}
    for w in workloads:
        v, i = runs.get((w, "viper", 4)), runs.get((w, "nosync", 4))
        if not v or not i:
            cls[w] = "unclassified"
            continue
        mv, mi = miss_rate(v), miss_rate(i)
        red[w] = 100.0 * (mv - mi) / mv if mv else 0.0
        cls[w] = "moderate-to-high" if red[w] >= THRESHOLD else "low"
    return cls, red


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def speedup(runs, w, scheme, n):
    base, r = runs.get((w, "viper", n)), runs.get((w, scheme, n))
    if not base or not r or not num(r, "cycles"):
        return None
    return num(base, "cycles") / num(r, "cycles")


def ordered(workloads, cls):
    return [w for c in CLASSES for w in workloads if cls[w] == c]


def perf_table(out, runs, workloads, cls, red, n, schemes):
    out.append(f"== {n} chiplets: performance normalized to viper "
               "(viper cycles / scheme cycles; above 1 is faster) ==")
    head = f"{'workload':16} {'reuse class':>22} " + " ".join(f"{s:>9}" for s in schemes)
    out.append(head)
    per = {s: {c: [] for c in CLASSES} for s in schemes}
    for w in ordered(workloads, cls):
        cells = []
        for s in schemes:
            x = speedup(runs, w, s, n)
            cells.append(f"{x:9.3f}" if x else f"{'-':>9}")
            if x:
                per[s][cls[w]].append(x)
        r = f"{cls[w]} {red[w]:4.0f}%" if w in red else cls[w]
        out.append(f"{w:16} {r:>22} " + " ".join(cells))
    for c in CLASSES[:2] + ["all"]:
        vals = [geomean(per[s][c] if c != "all" else sum(per[s].values(), [])) for s in schemes]
        out.append(f"{'geomean ' + c:39} " + " ".join(f"{v:9.3f}" for v in vals))
    out.append("")
    return per


def kernel_table(out, runs, workloads, cls, n):
    """Kernel durations under viper (launch latency excluded): what the CP's
    per-kernel decision time (spec cpelide 4.8) has to hide behind."""
    out.append(f"== {n} chiplets: kernel durations under viper, us (launch latency excluded) ==")
    out.append(f"{'workload':16} {'kernels':>8} {'min':>9} {'median':>9} {'max':>9}")
    for w in ordered(workloads, cls):
        r = runs.get((w, "viper", n))
        if not r or "kernel_us_median" not in r:
            continue
        out.append(f"{w:16} {num(r, 'kernels'):8.0f} {num(r, 'kernel_us_min'):9.2f} "
                   f"{num(r, 'kernel_us_median'):9.2f} {num(r, 'kernel_us_max'):9.2f}")
    out.append("")


def coherence_table(out, runs, workloads, cls, n, schemes):
    """What each speedup rests on: per kernel, the L2 operations issued (and
    the baseline's one flush and one invalidate per chiplet that were elided),
    the L2 hit rate, and the time in kernel-boundary coherence."""
    out.append(f"== {n} chiplets: per kernel, L2 flushes and invalidates issued (elided of the "
               f"baseline's {n} each), L2 hit rate, coherence time in us ==")
    out.append(f"{'workload':16} {'scheme':8} {'flushes':>8} {'elided':>7} {'invals':>8} "
               f"{'elided':>7} {'L2 hits':>8} {'coh us':>8}")
    for w in ordered(workloads, cls):
        for s in schemes:
            r = runs.get((w, s, n))
            k = num(r, "kernels") if r else 0
            if not k:
                continue
            hits = 100.0 * (1.0 - miss_rate(r))
            out.append(f"{w:16} {s:8} {num(r, 'l2_flushes') / k:8.2f} "
                       f"{num(r, 'l2_flushes_elided') / k:7.2f} "
                       f"{num(r, 'l2_invalidates') / k:8.2f} "
                       f"{num(r, 'l2_invalidates_elided') / k:7.2f} {hits:7.1f}% "
                       f"{num(r, 'coherence_us') / k:8.3f}")
    out.append("")


def split_table(out, runs, workloads, n, parts, prefix, title):
    """Per scheme: the mean over workloads of each part normalized to the
    workload's viper total (so the parts add up to the scheme's mean)."""
    out.append(f"== {n} chiplets: {title} (mean over workloads, normalized to viper's total) ==")
    out.append(f"{'scheme':10} " + " ".join(f"{label:>8}" for _, label in parts) + f" {'total':>8}")
    means = {}
    for s in SCHEMES:
        acc, count = [0.0] * len(parts), 0
        for w in workloads:
            base, r = runs.get((w, "viper", n)), runs.get((w, s, n))
            if not base or not r:
                continue
            tot = sum(num(base, prefix + k) for k, _ in parts)
            if not tot:
                continue
            count += 1
            for i, (k, _) in enumerate(parts):
                acc[i] += num(r, prefix + k) / tot
        if count:
            means[s] = [a / count for a in acc]
            out.append(f"{s:10} " + " ".join(f"{v:8.3f}" for v in means[s]) +
                       f" {sum(means[s]):8.3f}")
    out.append("")
    return means


def plot_perf(path, runs, workloads, cls, n, schemes, per):
    ws = ordered(workloads, cls)
    labels = ws + [f"geomean\n{c}" for c in ("mod-high", "low", "all")]
    fig, ax = plt.subplots(figsize=(max(8, 0.5 * len(labels)), 5))
    width = 0.8 / len(schemes)
    for j, s in enumerate(schemes):
        ys = [speedup(runs, w, s, n) or 0 for w in ws]
        ys += [geomean(per[s]["moderate-to-high"]), geomean(per[s]["low"]),
               geomean(sum(per[s].values(), []))]
        ys = [0 if y != y else y for y in ys]
        xs = [i + (j - (len(schemes) - 1) / 2) * width for i in range(len(labels))]
        ax.bar(xs, ys, width, label=s)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("performance normalized to viper\n(viper cycles / scheme cycles)")
    nmh = sum(1 for w in ws if cls[w] == "moderate-to-high")
    ax.axvline(nmh - 0.5, color="grey", linestyle=":", linewidth=0.8)
    ax.set_title(f"{n} chiplets: left of the dotted line moderate-to-high inter-kernel reuse, "
                 "right low reuse")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_stacked(path, tables, parts, ylabel, title):
    counts = sorted(tables)
    fig, axes = plt.subplots(1, len(counts), figsize=(3.2 * len(counts) + 1.5, 4.2),
                             sharey=True, squeeze=False)
    colors = plt.cm.tab10.colors
    for ax, n in zip(axes[0], counts):
        schemes = [s for s in SCHEMES if s in tables[n]]
        bottom = [0.0] * len(schemes)
        for i, (_, label) in enumerate(parts):
            ys = [tables[n][s][i] for s in schemes]
            ax.bar(schemes, ys, 0.6, bottom=bottom, label=label, color=colors[i % 10])
            bottom = [b + y for b, y in zip(bottom, ys)]
        ax.set_title(f"{n} chiplets")
        ax.axhline(1.0, color="black", linewidth=0.6, linestyle=":")
    axes[0][0].set_ylabel(ylabel)
    axes[0][-1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--chiplets", help="comma-separated chiplet counts to report (default all)")
    a = ap.parse_args()
    runs, failed = load(a.csv)
    counts = sorted({k[2] for k in runs if k[1] in SCHEMES})
    if a.chiplets:
        want = {int(x) for x in a.chiplets.split(",")}
        counts = [n for n in counts if n in want]
    workloads = sorted({k[0] for k in runs})
    if not counts or not workloads:
        sys.exit(f"study_report: no successful runs in {a.csv}")
    cls, red = reuse_classes(runs, workloads)
    out = [f"chipsim study: {len(runs)} runs stored, {len(failed)} failed; "
           f"{len(workloads)} workloads; chiplet counts {', '.join(map(str, counts))}", ""]
    for row in failed:
        out.append(f"failed: {row['key']}: {row['error']}")
    if failed:
        out.append("")
    out.append(f"Reuse classes (4 chiplets; L2 miss-rate reduction from viper to the no-sync "
               f"reference, ideal with caching = d4; threshold {THRESHOLD:.0f}%):")
    for c in CLASSES:
        ws = [w for w in workloads if cls[w] == c]
        if ws:
            out.append(f"  {c}: {', '.join(ws)}")
    out.append("")
    energy, traffic = {}, {}
    for n in counts:
        schemes = COMPARED + (["ideal"] if any(k[1] == "ideal" and k[2] == n for k in runs)
                              else [])
        per = perf_table(out, runs, workloads, cls, red, n, schemes)
        kernel_table(out, runs, workloads, cls, n)
        coherence_table(out, runs, workloads, cls, n, ["viper"] + schemes)
        plot_perf(os.path.join(a.out, f"perf-{n}chiplets.png"), runs, workloads, cls, n,
                  schemes, per)
        energy[n] = split_table(out, runs, workloads, n, ENERGY, "energy_pj_",
                                "memory-subsystem energy")
        traffic[n] = split_table(out, runs, workloads, n, FLITS, "", "interconnect flits")
    plot_stacked(os.path.join(a.out, "energy.png"), energy, ENERGY,
                 "energy / viper's total\n(mean over workloads)", "Memory-subsystem energy by component")
    plot_stacked(os.path.join(a.out, "traffic.png"), traffic, FLITS,
                 "flits / viper's total\n(mean over workloads)", "Interconnect traffic by link class")
    with open(os.path.join(a.out, "summary.txt"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
