#!/usr/bin/python3
"""Summary table and plots of a chipsim study from its results.csv.

usage: study_report.py --csv DIR/results.csv --out DIR [--chiplets 4[,6...]]

Writes DIR/summary.txt and the plots DIR/perf-<N>chiplets.png (performance of
each scheme normalized to viper, per workload, grouped by reuse class),
DIR/energy.png (memory-subsystem energy split by component) and
DIR/traffic.png (interconnect flits split by link class), each with the same
figure as PDF beside it, drawn in the style of tools/chipsim.mplstyle with one
colour per scheme (tools/plotstyle.py); bars far above the rest are clipped
and carry their value. Reuse classes come from the viper runs and the no-sync
reference runs (ideal with coherence.caching=d4, reported as "nosync") on 4
chiplets: the relative L2 miss-rate reduction from viper to nosync,
moderate-to-high at 15% or more (spec cpelide D16), as `chipsim classify`
computes it. ideal (the oracle upper bound) is compared like the schemes: per
workload, the faster of its runs (write-back and write-through L2s). Runs
whose status is not ok are listed and left out.
"""
import argparse
import csv
import math
import os
import sys

import plotstyle
from studyrows import geomean, num
from matplotlib import ticker, transforms
from plotstyle import plt, scheme_color, scheme_label

SCHEMES = ["viper", "cpelide", "hmg"]
COMPARED = ["cpelide", "hmg"]
THRESHOLD = 15.0
ENERGY = [("l1i", "L1I"), ("l1d", "L1D"), ("lds", "LDS"), ("l2", "L2"), ("noc", "NoC"),
          ("dram", "DRAM")]
FLITS = [("flits_l1_l2", "L1-L2"), ("flits_l2_l3", "L2-L3"), ("flits_remote", "remote")]
CLASSES = ["moderate-to-high", "low", "unclassified"]


def load(path):
    """The successful runs by (workload, scheme, chiplets), the oracle's two
    runs taken as its faster one; the failed rows; and how many rows there were."""
    runs, failed, stored = {}, [], 0
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            stored += 1
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
    return runs, failed, stored


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


GROUP_LABELS = {"moderate-to-high": "moderate-to-high reuse", "low": "low reuse",
                "unclassified": "unclassified"}
GEOMEANS = [("moderate-to-high", "mod.-high"), ("low", "low"), ("all", "all")]
GAP, GM_GAP = 0.6, 1.0      # slots between reuse classes, and before the geometric means
PERF_SIZE = (7.0, 2.8)      # inches: the text width of a two-column paper
PANEL_W, LEGEND_W, STACK_H = 1.45, 0.95, 2.3


def perf_layout(ws, cls):
    """Bar-group positions: the reuse classes one after another with a gap
    between them, the geometric means after a wider one. Returns the
    workloads' positions, the geometric means' (label, class, position) and
    the groups' (label, first, last position)."""
    xs, groups, x = {}, [], 0.0
    for c in CLASSES:
        members = [w for w in ws if cls[w] == c]
        if not members:
            continue
        x += GAP if groups else 0.0
        for i, w in enumerate(members):
            xs[w] = x + i
        groups.append((f"{GROUP_LABELS[c]} ({len(members)})", x, x + len(members) - 1))
        x += len(members)
    present = {cls[w] for w in ws} | {"all"}
    shown = [(label, c) for c, label in GEOMEANS if c in present]
    gms = [(label, c, x + GM_GAP + i) for i, (label, c) in enumerate(shown)]
    groups.append(("geomean", gms[0][2], gms[-1][2]))
    return xs, gms, groups


def y_step(v):
    """The y axis' tick step up to v."""
    return 0.25 if v <= 2.5 else 0.5 if v <= 5 else 1.0


def nice_ceil(v):
    return y_step(v) * math.ceil(v / y_step(v) - 1e-9)


def perf_ylim(values):
    """The y limit: the largest bar's, unless a few bars stand far above the
    rest; those are clipped at 1.25 x the 90th percentile and labelled."""
    vals = sorted(v for v in values if v > 0) or [1.0]
    q = vals[int(0.9 * (len(vals) - 1))]
    return min(nice_ceil(max(1.25 * q, 1.1)), nice_ceil(1.02 * vals[-1]))


def label_clipped(ax, clipped, top):
    """Each clipped bar's value, written on the bar below the axis' top; two
    clipped bars of one workload are staggered so that their labels do not
    overlap."""
    for x, bars in clipped.items():
        for k, (dx, y) in enumerate(bars):
            ax.annotate(f"{y:.2f}", (x + dx, top), xytext=(0, -1.5 - 19 * k),
                        textcoords="offset points", rotation=90, ha="center", va="top",
                        fontsize=6, annotation_clip=False,
                        bbox=dict(boxstyle="square,pad=0.15", fc="white", ec="none",
                                  alpha=0.9))


def group_axis(ax, fig, groups, separators):
    """Under the rotated tick labels: one bracket per group with its label,
    dotted lines between the reuse classes and a solid one before the
    geometric means. Depths are in points below the axis, measured from the
    tick labels, which the layout does not resize."""
    r = fig.canvas.get_renderer()
    depth = max(t.get_window_extent(r).height for t in ax.get_xticklabels()) * 72 / fig.dpi + 5
    blend = transforms.blended_transform_factory(ax.transData, ax.transAxes)
    at = blend + transforms.ScaledTranslation(0, -depth / 72, fig.dpi_scale_trans)
    for label, a, b in groups:
        ax.annotate("", (a - 0.45, 0), xycoords=at, xytext=(b + 0.45, 0), textcoords=at,
                    arrowprops=dict(arrowstyle="-", lw=0.6, shrinkA=0, shrinkB=0))
        ax.annotate(label, ((a + b) / 2, 0), xycoords=at, xytext=(0, -2),
                    textcoords="offset points", ha="center", va="top")
    for x, style in separators:
        ax.axvline(x, color="0.35", lw=0.7, ls=style, zorder=1)
    ax.xaxis.labelpad = 16  # below the group labels


def perf_bars(ax, pos, ys, schemes, top):
    """One bar per scheme at each position; returns the bars above top, by
    position: (offset from the position, value)."""
    width, clipped = 0.84 / len(schemes), {}
    for j, s in enumerate(schemes):
        dx = (j - (len(schemes) - 1) / 2) * width
        ax.bar([x + dx for x in pos], ys[s], width, color=scheme_color(s), label=scheme_label(s))
        for x, y in zip(pos, ys[s]):
            if y > top:
                clipped.setdefault(x, []).append((dx, y))
    return clipped


def plot_perf(path, runs, workloads, cls, n, schemes, per):
    ws = ordered(workloads, cls)
    xs, gms, groups = perf_layout(ws, cls)
    fig, ax = plt.subplots(figsize=PERF_SIZE)
    ys = {s: [speedup(runs, w, s, n) or 0.0 for w in ws] +
          [geomean(per[s][c] if c != "all" else sum(per[s].values(), [])) for _, c, _ in gms]
          for s in schemes}
    ys = {s: [0.0 if y != y else y for y in v] for s, v in ys.items()}
    top = perf_ylim(sum(ys.values(), []))
    pos = [xs[w] for w in ws] + [x for _, _, x in gms]
    label_clipped(ax, perf_bars(ax, pos, ys, schemes, top), top)
    ax.axhline(1.0, color=scheme_color("viper"), lw=0.9, ls="--", zorder=3,
               label=f"{scheme_label('viper')} (= 1)")
    ax.set_ylim(0, top)
    ax.yaxis.set_major_locator(ticker.MultipleLocator(y_step(top)))
    ax.set_xlim(pos[0] - 0.6, pos[-1] + 0.6)
    ax.set_xticks(pos)
    ax.set_xticklabels(ws + [label for label, _, _ in gms], rotation=45, ha="right",
                       rotation_mode="anchor")
    ax.tick_params(axis="x", length=0, pad=3)
    ax.set_ylabel(f"Performance normalized\nto {scheme_label('viper')} (higher is better)")
    ax.set_xlabel("Workload, grouped by inter-kernel reuse class")
    ax.set_title(f"Performance on {n} chiplets, normalized to {scheme_label('viper')}",
                 fontweight="bold")
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=len(schemes) + 1,
              borderaxespad=0.2)
    seps = [((groups[i][2] + groups[i + 1][1]) / 2, ":") for i in range(len(groups) - 2)]
    seps.append(((groups[-2][2] + groups[-1][1]) / 2, "-"))
    group_axis(ax, fig, groups, seps)
    plotstyle.save(fig, path)


def stacked_panel(ax, table, parts, colors):
    schemes = [s for s in SCHEMES if s in table]
    x = range(len(schemes))
    bottom = [0.0] * len(schemes)
    for i, (_, label) in enumerate(parts):
        ys = [table[s][i] for s in schemes]
        ax.bar(x, ys, 0.62, bottom=bottom, label=label, color=colors[i])
        bottom = [b + y for b, y in zip(bottom, ys)]
    for xi, total in zip(x, bottom):
        ax.annotate(f"{total:.2f}", (xi, total), xytext=(0, 1.5), textcoords="offset points",
                    ha="center", va="bottom", fontsize=6.5,
                    bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none"))
    ax.axhline(1.0, color=scheme_color("viper"), lw=0.7, ls="--", zorder=0.5)
    ax.set_xticks(list(x))
    ax.set_xticklabels([scheme_label(s) for s in schemes])
    for t, s in zip(ax.get_xticklabels(), schemes):
        t.set_color(scheme_color(s))
        t.set_fontweight("bold")
    ax.tick_params(axis="x", length=0)
    ax.set_xlim(-0.55, len(schemes) - 0.45)
    return max(bottom)


def plot_stacked(path, tables, parts, ylabel, title, legend_title):
    """One panel per chiplet count; the legend lists the parts top of the
    stack first, as they are stacked."""
    counts = sorted(tables)
    fig, axes = plt.subplots(1, len(counts), sharey=True, squeeze=False,
                             figsize=(PANEL_W * len(counts) + LEGEND_W + 0.55, STACK_H))
    colors = plotstyle.part_colors(len(parts))
    high = max(stacked_panel(ax, tables[n], parts, colors) for ax, n in zip(axes[0], counts))
    axes[0][0].set_ylim(0, nice_ceil(1.12 * high))
    for ax, n in zip(axes[0], counts):
        ax.set_xlabel(f"{n} chiplets")
    axes[0][0].set_ylabel(ylabel)
    handles, labels = axes[0][-1].get_legend_handles_labels()
    axes[0][-1].legend(handles[::-1], labels[::-1], title=legend_title, loc="center left",
                       bbox_to_anchor=(1.02, 0.5), alignment="left")
    fig.suptitle(title, x=0.01, ha="left", fontweight="bold")
    plotstyle.save(fig, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--chiplets", help="comma-separated chiplet counts to report (default all)")
    a = ap.parse_args()
    runs, failed, stored = load(a.csv)
    counts = sorted({k[2] for k in runs if k[1] in SCHEMES})
    if a.chiplets:
        want = {int(x) for x in a.chiplets.split(",")}
        counts = [n for n in counts if n in want]
    workloads = sorted({k[0] for k in runs})
    if not counts or not workloads:
        sys.exit(f"study_report: no successful runs in {a.csv}")
    cls, red = reuse_classes(runs, workloads)
    out = [f"chipsim study: {stored} runs stored, {len(failed)} failed; "
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
    ylabel = (f"{{}} / {scheme_label('viper')}'s total\n"
              f"(mean over {len(workloads)} workloads)")
    plot_stacked(os.path.join(a.out, "energy.png"), energy, ENERGY, ylabel.format("Energy"),
                 "Memory-subsystem energy by component", "component")
    plot_stacked(os.path.join(a.out, "traffic.png"), traffic, FLITS, ylabel.format("Flits"),
                 "Interconnect traffic by link class", "link class")
    with open(os.path.join(a.out, "summary.txt"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
