#!/usr/bin/python3
"""Summary table and plots of `chipsim study hmg` from its results.csv.

usage: hmg_report.py --csv DIR/results.csv --out DIR

Reads DIR/results.csv and DIR/matrices.csv (which matrices of the study file
gave each run) and writes DIR/summary.txt and the plots DIR/perf-4x4.png and
DIR/perf-1x4.png (each configuration's speedup over no remote caching, per
benchmark, with the geometric mean; spec hmg.md 6 and 10) and one plot per
sensitivity sweep, DIR/sens-NAME.png, each with a PDF beside it. The main
comparison is the runs of the matrices named main...: speedups, the L2 hit
rate by the data's home, and spec hmg.md 10's invalidation metrics. Every
other matrix belongs to a sensitivity sweep (spec hmg.md 9; its variants'
matrices together), reported as the geometric-mean speedup over no caching at
each of its points, Table 5.2's being the main comparison. The ideal bound is
the fastest of its runs (l2_write back and through; on 4 x 4 also flat and
hierarchical routes) per benchmark and point. A benchmark is a
workload and the layer or pass it runs (dl-conv, dl-lstm, dl-rnn). Runs
whose status is not ok are listed and left out.
"""
import argparse
import csv
import os

import plotstyle
from studyrows import final, geomean, num, overrides, write_summary
from plotstyle import plt

# spec hmg.md 6, in the paper's order; (scheme, mode)
CONFIGS = [("nocache", None, "No caching"), ("swcoh", "flat", "NH-SW"),
           ("hmg", "flat", "NHCC"), ("swcoh", "hier", "H-SW"), ("hmg", "hier", "HMG"),
           ("ideal", None, "Ideal")]
MODES = {"swcoh": "hier", "hmg": "hier"}  # the schemes' default modes
DIRECTORY = ("NHCC", "HMG")  # the configurations that keep a directory
VARIANT_KEYS = ("workload.layer=", "workload.pass=")
POINT_SKIP = ("coherence.",)  # a configuration's own keys (scheme, mode, directory)
# the variants of one sensitivity sweep: its workload variants, NHCC's matrices, ideal's -wt
CONFIG_KEYS = ("coherence.scheme", "coherence.mode", "coherence.l2_write")  # not sweep axes
SWEEP_SUFFIXES = ("-rnn", "-alexnet", "-googlenet", "-overfeat", "-resnet", "-flat", "-wt")


def config_of(row):
    scheme = row["scheme"]
    if scheme == "ideal":  # every variant of the oracle is the one bound (faster_ideal)
        return "Ideal"
    mode = final(row).get("coherence.mode", MODES.get(scheme))
    for s, m, label in CONFIGS:
        if s == scheme and m == mode:
            return label
    return f"{scheme}/{mode}"


def bench_of(row):
    ov = overrides(row)
    var = [o.split("=", 1)[1] for o in ov if o.startswith(VARIANT_KEYS)]
    return row["workload"] + (f" {var[0]}" if var else "")


def machine_of(row):
    return "1x4" if final(row).get("gpu.gpus") == "1" else "4x4"


def point_of(row):
    """The run's overrides but its configuration's (the coherence section's),
    as a key: a no-caching run at the same point is its baseline."""
    return tuple(sorted((k, v) for k, v in final(row).items() if not k.startswith(POINT_SKIP)))


def load(out):
    mats = {}
    path = os.path.join(out, "matrices.csv")
    if os.path.exists(path):
        with open(path, newline="") as f:
            mats = {r["key"]: r["matrices"].split() for r in csv.DictReader(f)}
    rows, failed = [], []
    with open(os.path.join(out, "results.csv"), newline="") as f:
        for row in csv.DictReader(f):
            (rows if row["status"] == "ok" else failed).append(row)
    return rows, failed, mats


def faster_ideal(rows):
    """The oracle bound is the fastest of its runs at each benchmark and point:
    l2_write back and through (docs/coherence.md), and on 4 x 4 on HMG's routes
    and on the flat ones, since no scheme may beat it: keep that one."""
    best = {}
    for r in rows:
        if r["scheme"] != "ideal":
            continue
        k = (bench_of(r), point_of(r))
        if k not in best or num(r, "cycles") < num(best[k], "cycles"):
            best[k] = r
    keep = {id(r) for r in best.values()}
    return [r for r in rows if r["scheme"] != "ideal" or id(r) in keep]


def sweep_of(matrix):
    """The sensitivity sweep a matrix belongs to: its name without the suffixes
    of its variants and a last -N (sens-bw-flat-rnn-wt: sens-bw; sens-lines-1:
    sens-lines)."""
    changed = True
    while changed:
        changed = False
        for suf in SWEEP_SUFFIXES:
            if matrix.endswith(suf):
                matrix, changed = matrix[: -len(suf)], True
    head, _, tail = matrix.rpartition("-")
    return head if head and tail.isdigit() else matrix


def speedups(rows):
    """Speedup over no caching of every run whose no-caching run at the same
    point (the same overrides but the configuration's) was stored."""
    base = {(r["workload"], point_of(r)): num(r, "cycles") for r in rows
            if config_of(r) == "No caching"}
    out = {}
    for r in rows:
        b = base.get((r["workload"], point_of(r)))
        if b and num(r, "cycles"):
            out[r["key"]] = b / num(r, "cycles")
    return out


def main_table(lines, rows, sp, machine):
    labels = [c[2] for c in CONFIGS]
    table = {}
    for r in rows:
        if machine_of(r) == machine and r["key"] in sp:
            table.setdefault(bench_of(r), {})[config_of(r)] = sp[r["key"]]
    if not table:
        return {}
    present = [l for l in labels if any(l in v for v in table.values())]
    lines.append(f"== {machine}: speedup over no remote caching "
                 "(no-caching cycles / cycles; above 1 is faster) ==")
    lines.append(f"{'benchmark':28s}" + "".join(f"{l:>12s}" for l in present))
    for b in sorted(table):
        lines.append(f"{b:28s}" + "".join(
            f"{table[b][l]:12.3f}" if l in table[b] else f"{'-':>12s}" for l in present))
    gm = {l: geomean([v.get(l) for v in table.values()]) for l in present}
    lines.append(f"{'geometric mean':28s}" + "".join(f"{gm[l]:12.3f}" for l in present))
    lines.append("")
    return table


def ideal_variants(lines, stored, sp, machine):
    """The geometric-mean speedup of each of the oracle's runs apart: H12's
    ideal is the one on HMG's routes with write-through L2s."""
    vals = {}
    for r in stored:
        if r["scheme"] == "ideal" and machine_of(r) == machine and r["key"] in sp:
            f = final(r)
            mode = f.get("coherence.mode", "hier" if machine == "4x4" else "flat")
            vals.setdefault((mode, f.get("coherence.l2_write", "back")), []).append(sp[r["key"]])
    if not vals:
        return
    lines.append(f"== {machine}: the ideal bound's runs (geometric-mean speedup over no caching; "
                 "H12's: hier, through) ==")
    for (mode, wp), v in sorted(vals.items()):
        lines.append(f"  routes {mode:5s} L2s write-{wp:8s} {geomean(v):8.3f}  ({len(v)} runs)")
    lines.append("")


def sums(rows, machine, keys):
    """{configuration: {key: sum over its runs on machine}}, keys in order."""
    acc = {}
    for r in rows:
        if machine_of(r) == machine:
            a = acc.setdefault(config_of(r), dict.fromkeys(keys, 0.0))
            for k in keys:
                a[k] += num(r, k)
    return acc


def split_table(lines, rows, machine):
    """L2 hits by where the data's home is, and inter-GPM/GPU traffic, summed
    over the benchmarks (spec hmg.md 10)."""
    acc = sums(rows, machine, ("l2_local_accesses", "l2_local_hits",
                               "l2_remote_chiplet_accesses", "l2_remote_chiplet_hits",
                               "l2_remote_gpu_accesses", "l2_remote_gpu_hits", "flits_remote"))
    if not acc:
        return
    lines.append(f"== {machine}: L2 hit rate by the data's home, remote flits (all benchmarks) ==")
    lines.append(f"{'configuration':14s}{'local':>10s}{'remote GPM':>12s}{'remote GPU':>12s}"
                 f"{'remote flits':>16s}")
    rate = lambda h, a: f"{100 * h / a:9.1f}%" if a else f"{'-':>10s}"
    for label in [c[2] for c in CONFIGS]:
        if label in acc:
            a = list(acc[label].values())
            lines.append(f"{label:14s}{rate(a[1], a[0])}{rate(a[3], a[2]):>12s}"
                         f"{rate(a[5], a[4]):>12s}{a[6]:16.0f}")
    lines.append("")


def metrics_table(lines, rows, machine):
    """Spec hmg.md 10, summed over the benchmarks per configuration: invalidation
    messages per store (line requests of stores and atomics), per directory
    eviction, invalidation bandwidth (flits of coherence messages, 16 B each,
    over the run's time), inter-GPU flits and directory evictions."""
    acc = sums(rows, machine, ("store_lines", "invals_store", "invals_evict", "invals_fwd",
                               "dir_evictions", "flits_coh", "flits_inter_gpu", "time_us"))
    if not acc:
        return
    lines.append(f"== {machine}: invalidations and traffic (spec hmg.md 10; all benchmarks) ==")
    lines.append(f"{'configuration':14s}{'inv/store':>11s}{'inv/evict':>11s}{'forwarded':>11s}"
                 f"{'dir evicts':>12s}{'inv GB/s':>10s}{'inter-GPU flits':>17s}")
    ratio = lambda n, d: f"{n / d:11.3f}" if d else f"{'-':>11s}"
    for label in [c[2] for c in CONFIGS]:
        if label not in acc:
            continue
        a = acc[label]
        gbps = a["flits_coh"] * 16 / (a["time_us"] * 1e3) if a["time_us"] else 0.0
        if label not in DIRECTORY:  # no directory, no invalidation messages
            a["store_lines"] = a["dir_evictions"] = 0
        lines.append(f"{label:14s}{ratio(a['invals_store'], a['store_lines'])}"
                     f"{ratio(a['invals_evict'], a['dir_evictions'])}"
                     f"{a['invals_fwd']:11.0f}{a['dir_evictions']:12.0f}{gbps:10.3f}"
                     f"{a['flits_inter_gpu']:17.0f}")
    lines.append("")


# The Table 5.2 values of the swept keys (configs/hmg-4x4.ini): the main
# comparison is each sweep's point there.
TABLE_5_2 = {"gpu_link.port_gbps": "100", "l2.size_kib": "3072",
             "coherence.dir_entries": "12288", "coherence.dir_lines": "4"}
# How the paper states each swept key (spec hmg.md 9): per link both ways, per GPU
LABELS = {"gpu_link.port_gbps": lambda v: f"{2 * float(v):g} GB/s per link",
          "l2.size_kib": lambda v: f"{4 * float(v) / 1024:g} MB L2 per GPU",
          "coherence.dir_entries": lambda v: f"{float(v) / 1024:g}K entries",
          "coherence.dir_lines": lambda v: f"{v} lines per entry"}


def sensitivity(lines, rows, sp, mats):
    """Each sensitivity sweep (its matrices and their variants together): the
    geometric-mean speedup over no caching of each configuration at each of
    its points, Table 5.2's being the main comparison on 4 x 4; returns
    {sweep: {point: {configuration: geomean}}}, a point a tuple of (key, value)."""
    groups = {}
    for r in rows:
        for m in {sweep_of(m) for m in mats.get(r["key"], []) if not m.startswith("main")}:
            groups.setdefault(m, []).append(r)
    main = [r for r in rows if machine_of(r) == "4x4" and
            any(m.startswith("main") for m in mats.get(r["key"], []))]
    out = {}
    for m in sorted(groups):
        axes = sorted({k for r in groups[m] for k in final(r)
                       if k not in CONFIG_KEYS and not k.startswith("workload.")})
        configs = {config_of(r) for r in groups[m]}
        table = {}
        for r in groups[m] + [r for r in main if config_of(r) in configs]:
            pt = tuple((k, final(r).get(k, TABLE_5_2.get(k, "?"))) for k in axes)
            if r["key"] in sp:
                table.setdefault(pt, {}).setdefault(config_of(r), []).append(sp[r["key"]])
        lines.append(f"== sensitivity: {m} ({', '.join(axes) or 'one point'}): "
                     "geometric-mean speedup over no caching ==")
        present = [c[2] for c in CONFIGS if any(c[2] in v for v in table.values())]
        lines.append(f"  {'point':40s}" + "".join(f"{l:>12s}" for l in present))
        out[m] = {}
        for pt in sorted(table, key=point_order):
            gm = {l: geomean(v) for l, v in table[pt].items()}
            out[m][pt] = gm
            lines.append(f"  {point_label(pt):40s}" + "".join(
                f"{gm[l]:12.3f}" if l in gm else f"{'-':>12s}" for l in present))
        lines.append("")
    return out


def point_order(pt):
    """Points in the numeric order of their values."""
    out = []
    for _, v in pt:
        try:
            out.append(float(v))
        except ValueError:
            out.append(float("inf"))
    return out


def point_label(pt, sep=", "):
    """A point as the paper states it, Table 5.2's marked."""
    text = sep.join(LABELS[k](v) if k in LABELS else f"{k}={v}" for k, v in pt)
    if all(TABLE_5_2.get(k) == v for k, v in pt):
        text += " (Table 5.2)"
    return text


def plot_sensitivity(path, name, points):
    """One sweep: each configuration's geometric-mean speedup at each point."""
    labels = [c[2] for c in CONFIGS if c[2] != "No caching"]
    present = [l for l in labels if any(l in v for v in points.values())]
    pts = sorted(points, key=point_order)
    fig, ax = plt.subplots(figsize=(max(4.5, 1.2 * len(pts) + 2), 3.0))
    width = 0.8 / max(1, len(present))
    for i, l in enumerate(present):
        xs = [j + (i - (len(present) - 1) / 2) * width for j in range(len(pts))]
        ax.bar(xs, [points[p].get(l, 0.0) for p in pts], width, label=l,
               color=plotstyle.CYCLE[(i + 1) % len(plotstyle.CYCLE)])
    ax.axhline(1.0, color="black", linewidth=0.6)
    ax.set_xticks(range(len(pts)))
    ax.set_xticklabels([point_label(p, "\n") for p in pts], fontsize="small")
    ax.set_ylabel("speedup over no caching\n(geometric mean)")
    ax.set_title(f"sensitivity: {name} (spec hmg.md 9)")
    ax.legend(ncol=len(present), fontsize="small")
    fig.tight_layout()
    plotstyle.save(fig, path)


def plot(path, table, machine):
    labels = [c[2] for c in CONFIGS if c[2] != "No caching"]
    present = [l for l in labels if any(l in v for v in table.values())]
    benches = sorted(table) + ["geomean"]
    gm = {l: geomean([v.get(l) for v in table.values()]) for l in present}
    fig, ax = plt.subplots(figsize=(max(6.0, 0.55 * len(benches) + 1.5), 3.2))
    width = 0.8 / max(1, len(present))
    for i, l in enumerate(present):
        ys = [table[b].get(l, 0.0) for b in benches[:-1]] + [gm[l]]
        xs = [j + (i - (len(present) - 1) / 2) * width for j in range(len(benches))]
        ax.bar(xs, ys, width, label=l, color=plotstyle.CYCLE[i % len(plotstyle.CYCLE)])
    ax.axhline(1.0, color="black", linewidth=0.6)
    ax.set_xticks(range(len(benches)))
    ax.set_xticklabels(benches, rotation=60, ha="right")
    ax.set_ylabel("speedup over no caching")
    ax.set_title(f"{machine}: speedup over no remote caching")
    ax.legend(ncol=len(present), fontsize="small")
    fig.tight_layout()
    plotstyle.save(fig, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    stored, failed, mats = load(os.path.dirname(os.path.abspath(a.csv)))
    rows = faster_ideal(stored)
    main_rows = [r for r in rows if not mats or any(m.startswith("main")
                                                     for m in mats.get(r["key"], []))]
    sp = speedups(stored)  # every run's, the oracle's discarded ones too
    lines = []
    for machine in ("4x4", "1x4"):
        table = main_table(lines, main_rows, sp, machine)
        ideal_variants(lines, [r for r in stored if not mats or any(
            m.startswith("main") for m in mats.get(r["key"], []))], sp, machine)
        split_table(lines, main_rows, machine)
        metrics_table(lines, main_rows, machine)
        if table:
            plot(os.path.join(a.out, f"perf-{machine}.png"), table, machine)
    for name, points in sensitivity(lines, rows, sp, mats).items():
        if len(points) > 1:
            plot_sensitivity(os.path.join(a.out, f"{name}.png"), name, points)
    write_summary(a.out, lines, stored, failed)


if __name__ == "__main__":
    main()
