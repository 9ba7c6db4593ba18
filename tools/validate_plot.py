#!/usr/bin/env python3
"""Correlation plot of `chipsim validate`: chipsim's kernel cycles against the
reference's (launch latency excluded on both sides), log-log, one point per case,
one colour and marker per reference source, with the y = x line and each
source's mean absolute error and Pearson r in the legend; in chipsim's figure
style (tools/chipsim.mplstyle), with a PDF beside the PNG.

usage: validate_plot.py --csv DIR/validation.csv --out DIR/correlation.png
"""
import argparse
import csv
import math
import sys

import plotstyle
from plotstyle import plt

MARKERS = "os^Dv<>p"


def pearson(xs, ys):
    n = len(xs)
    if n < 2:
        return float("nan")
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    by_src = {}
    with open(a.csv, newline="") as f:
        for row in csv.DictReader(f):
            ref, sim = float(row["reference_kernel_cycles"]), float(row["chipsim_kernel_cycles"])
            if ref > 0 and sim > 0:
                by_src.setdefault(row["source"], []).append((ref, sim, row["case"]))
    if not by_src:
        print("validate_plot: no case to plot", file=sys.stderr)
        return 1
    fig, ax = plt.subplots(figsize=(3.4, 3.3))
    lo, hi = float("inf"), 0.0
    for i, (src, pts) in enumerate(sorted(by_src.items())):
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        mae = sum(abs(y - x) / x for x, y in zip(xs, ys)) / len(xs)
        ax.scatter(xs, ys, label=f"{src}: MAE {100 * mae:.1f}%, r = {pearson(xs, ys):.3f}",
                   s=16, marker=MARKERS[i % len(MARKERS)], linewidths=0.4, edgecolors="black",
                   alpha=0.9, zorder=3)
        lo, hi = min(lo, *xs, *ys), max(hi, *xs, *ys)
    lo, hi = lo / 1.5, hi * 1.5
    ax.plot([lo, hi], [lo, hi], color="0.4", linewidth=0.7, linestyle="--", label="y = x",
            zorder=2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.set_xlabel("Reference kernel cycles")
    ax.set_ylabel("chipsim kernel cycles")
    ax.set_title("chipsim against the references", fontweight="bold")
    ax.legend(loc="upper left", frameon=True, framealpha=0.9, edgecolor="none")
    ax.grid(True, which="major", axis="both")
    ax.grid(True, which="minor", axis="both", linewidth=0.25, color="0.9")
    plotstyle.save(fig, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
