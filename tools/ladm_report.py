#!/usr/bin/python3
"""Summary table and plots of `chipsim study ladm` from its results.csv.

usage: ladm_report.py --csv DIR/results.csv --out DIR

Reads DIR/results.csv and writes DIR/summary.txt and the plots
DIR/perf-hcoda.png (each configuration's performance normalized to H-CODA,
the paper's reference, per workload, with the geometric mean), DIR/perf-mono.png
(normalized to the monolithic GPU), DIR/perf-class.png (geometric means per
Table 3.4 locality class), DIR/traffic.png (inter-GPU and off-chiplet traffic
normalized to H-CODA) and DIR/crb.png (RTWICE against RONCE per class), each
with a PDF beside it (spec ladm.md 13). A run's configuration is read from its
overrides (placement, scheduling, CRB, the monolithic preset); a workload is
the model and, for dl-fc and dl-lstm, its layer, named as Table 3.4 names it.
Runs whose status is not ok are listed and left out.
"""
import argparse
import csv
import os

import plotstyle
from studyrows import final, geomean, num, write_summary
from plotstyle import plt

# spec ladm.md 2 and 9, the reference first
CONFIGS = [("hcoda", "H-CODA"), ("coda", "CODA"), ("rr", "Round-robin"),
           ("batchft", "Batch+FT"), ("batchft-opt", "Batch+FT-opt"), ("kwide", "Kernel-wide"),
           ("rtwice", "LASP+RTWICE"), ("ronce", "LASP+RONCE"), ("ladm", "LADM"),
           ("mono", "Monolithic")]
LABEL = dict(CONFIGS)

# Table 3.4's names and "Locality Type" column (spec ladm.md 10), by model and layer: the
# paper's grouping of its workloads, used only to group the results
TABLE_3_4 = {
    "vecadd": ("VecAdd", "NL"), "srad-v2": ("SRAD", "NL"), "hotspot": ("HS", "NL"),
    "scalarprod": ("ScalarProd", "NL"), "blackscholes": ("BLK", "NL"),
    "reduction": ("Reduction-k6", "NL"), "hotspot3d": ("Hotspot3D", "NL"),
    "histogram": ("Histo (main, final)", "RCL"), "convolution": ("CONV", "RCL"),
    "fwt": ("FWT-k2", "RCL"), "gemm": ("SQ-GEMM", "RCL"), "transpose": ("TRA", "RCL"),
    "dl-fc alexnet-fc2": ("Alexnet-FC-2", "RCL"), "dl-fc vggnet-fc2": ("VGGnet-FC-2", "RCL"),
    "dl-fc resnet50-fc": ("Resnet-50-FC", "RCL"), "dl-lstm lstm-1": ("LSTM-1", "RCL"),
    "dl-lstm lstm-2": ("LSTM-2", "RCL"), "pagerank": ("PageRank", "ITL"),
    "bfs-relax": ("BFS-relax", "ITL"), "sssp": ("SSSP", "ITL"), "random-loc": ("Random-loc", "ITL"),
    "kmeans": ("Kmeans-noTex", "ITL"), "spmv-jds": ("SpMV-jds", "ITL"),
    "btree": ("B+tree", "unclassified"), "lbm": ("LBM", "unclassified"),
    "streamcluster": ("StreamCluster", "unclassified"),
}
CLASSES = ("NL", "RCL", "ITL", "unclassified")


def config_of(row):
    f = final(row)
    if "ladm-monolithic" in row.get("config_file", ""):
        return "mono"
    sched = f.get("sched.policy", "static")
    if sched == "ladm":
        if f.get("coherence.crb") == "true":
            return "ladm"
        return "ronce" if f.get("coherence.home_alloc") == "false" else "rtwice"
    if sched == "batched":
        return "batchft" if float(f.get("place.fault_us", "0")) > 0 else "batchft-opt"
    return {"hcoda": "hcoda", "coda": "coda", "round_robin": "rr", "static": "kwide"}.get(
        sched, sched)


def bench_of(row):
    layer = final(row).get("workload.layer")
    key = row["workload"] + (f" {layer}" if layer else "")
    return TABLE_3_4.get(key, (key, "?"))


def load(csv_path):
    rows, failed = [], []
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            (rows if row["status"] == "ok" else failed).append(row)
    return rows, failed


def by_bench(rows):
    """{benchmark name: {config: row}} and {benchmark name: class}."""
    runs, cls = {}, {}
    for r in rows:
        name, c = bench_of(r)
        runs.setdefault(name, {})[config_of(r)] = r
        cls[name] = c
    return runs, cls


def normalized(runs, ref):
    """{bench: {config: ref cycles / cycles}} for the benchmarks whose ref run is stored."""
    out = {}
    for b, per in runs.items():
        base = num(per.get(ref, {}), "cycles")
        if base:
            out[b] = {c: base / num(r, "cycles") for c, r in per.items() if num(r, "cycles")}
    return out


def order(benches, cls):
    """Benchmarks by Table 3.4's class, then name."""
    return sorted(benches, key=lambda b: (CLASSES.index(cls[b]) if cls[b] in CLASSES else 9, b))


def present(table):
    return [c for c, _ in CONFIGS if any(c in v for v in table.values())]


def perf_table(lines, table, cls, title):
    cfgs = present(table)
    lines.append(f"== {title} (above 1 is faster) ==")
    lines.append(f"{'workload':22s}{'class':>13s}" + "".join(f"{LABEL[c]:>13s}" for c in cfgs))
    for b in order(table, cls):
        lines.append(f"{b:22s}{cls[b]:>13s}" + "".join(
            f"{table[b][c]:13.3f}" if c in table[b] else f"{'-':>13s}" for c in cfgs))
    for k in CLASSES:
        sub = [v for b, v in table.items() if cls[b] == k]
        if sub:
            lines.append(f"{'geomean ' + k:35s}" + "".join(
                f"{geomean([v.get(c) for v in sub]):13.3f}" for c in cfgs))
    lines.append(f"{'geometric mean':35s}" + "".join(
        f"{geomean([v.get(c) for v in table.values()]):13.3f}" for c in cfgs))
    lines.append("")


def sums(rows, keys):
    acc = {}
    for r in rows:
        a = acc.setdefault(config_of(r), dict.fromkeys(keys, 0.0))
        for k in keys:
            a[k] += num(r, k)
    return acc


def traffic_table(lines, rows, runs):
    """Spec ladm.md 13 items 2 to 4, summed over the workloads per configuration:
    inter-GPU and off-chiplet flits (also relative to H-CODA's), the L2's traffic
    classes with their hit rates, and the share of local cores' L2 accesses that
    left for another node."""
    keys = ("flits_inter_gpu", "flits_remote", "l2_accesses", "l2_hits",
            "l2_local_local_accesses", "l2_local_local_hits", "l2_local_remote_accesses",
            "l2_local_remote_hits", "l2_remote_local_accesses", "l2_remote_local_hits",
            "l2_sent_remote")
    acc = sums(rows, keys)
    ref = acc.get("hcoda")
    rate = lambda h, a: f"{100 * h / a:9.1f}%" if a else f"{'-':>10s}"
    lines.append("== traffic (all workloads; flits relative to H-CODA's in brackets) ==")
    lines.append(f"{'configuration':14s}{'inter-GPU flits':>24s}{'off-chiplet flits':>24s}"
                 f"{'L2 hits':>10s}{'LL hits':>10s}{'LR hits':>10s}{'RL hits':>10s}"
                 f"{'off-node':>10s}")
    for c, label in CONFIGS:
        if c not in acc:
            continue
        a = acc[c]
        rel = lambda k: f" ({a[k] / ref[k]:5.2f})" if ref and ref[k] else " (  -  )"
        local = a["l2_local_local_accesses"] + a["l2_local_remote_accesses"]
        lines.append(f"{label:14s}{a['flits_inter_gpu']:16.0f}{rel('flits_inter_gpu')}"
                     f"{a['flits_remote']:16.0f}{rel('flits_remote')}"
                     f"{rate(a['l2_hits'], a['l2_accesses'])}"
                     f"{rate(a['l2_local_local_hits'], a['l2_local_local_accesses'])}"
                     f"{rate(a['l2_local_remote_hits'], a['l2_local_remote_accesses'])}"
                     f"{rate(a['l2_remote_local_hits'], a['l2_remote_local_accesses'])}"
                     f"{rate(a['l2_sent_remote'], local)}")
    lines.append("  LL, LR, RL: LOCAL-LOCAL, LOCAL-REMOTE, REMOTE-LOCAL L2 accesses (spec 8); "
                 "off-node: the local cores' L2 accesses sent to another chiplet's L2")
    bad = [b for b, per in runs.items() for r in per.values()
           if num(r, "l2_sent_remote") != num(r, "l2_remote_local_accesses")]
    lines.append(f"  consistency (LOCAL-REMOTE misses = REMOTE-LOCAL accesses): "
                 f"{'holds in every run' if not bad else 'FAILS for ' + ', '.join(sorted(set(bad)))}")
    lines.append("")
    return acc


def traffic_by_bench(runs, key):
    out = {}
    for b, per in runs.items():
        base = num(per.get("hcoda", {}), key)
        if base:
            out[b] = {c: num(r, key) / base for c, r in per.items() if c != "mono"}
    return out


def crb_table(lines, speed, cls):
    """RTWICE against RONCE (spec 13 item 3): LASP with each insertion everywhere and
    with CRB's choice, geometric means per class, normalized to H-CODA."""
    cfgs = [c for c in ("rtwice", "ronce", "ladm") if any(c in v for v in speed.values())]
    if len(cfgs) < 2:
        return {}
    lines.append("== RTWICE against RONCE: geometric-mean performance over H-CODA per class ==")
    lines.append(f"{'class':16s}" + "".join(f"{LABEL[c]:>13s}" for c in cfgs))
    out = {}
    for k in CLASSES:
        sub = [v for b, v in speed.items() if cls[b] == k]
        if sub:
            out[k] = {c: geomean([v.get(c) for v in sub]) for c in cfgs}
            lines.append(f"{k:16s}" + "".join(f"{out[k][c]:13.3f}" for c in cfgs))
    lines.append("")
    return out


def bars(path, groups, series, values, ylabel, title, ref=1.0):
    """Grouped bars: for each group (x), one bar per series."""
    fig, ax = plt.subplots(figsize=(min(16.0, max(6.0, 0.09 * len(groups) * len(series) + 2)),
                                    3.6))
    width = 0.8 / max(1, len(series))
    # one colour per configuration, the same in every figure
    colors = plt.get_cmap("tab10").colors
    for i, s in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(groups))]
        ys = [values(g, s) for g in groups]
        ax.bar(xs, [y if y == y else 0.0 for y in ys], width, label=LABEL.get(s, s),
               color=colors[[c for c, _ in CONFIGS].index(s) % len(colors)])
    if ref is not None:
        ax.axhline(ref, color="black", linewidth=0.6)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=60 if len(groups) > 6 else 0,
                       ha="right" if len(groups) > 6 else "center")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.set_ylim(top=ax.get_ylim()[1] * 1.18)  # room for the legend above the bars
    ax.legend(ncol=min(5, len(series)), fontsize="small", loc="upper center")
    fig.tight_layout()
    plotstyle.save(fig, path)


def perf_plot(path, table, cls, title, ylabel, skip):
    cfgs = [c for c in present(table) if c not in skip]
    benches = order(table, cls) + ["geomean"]
    gm = {c: geomean([v.get(c) for v in table.values()]) for c in cfgs}
    val = lambda b, c: gm[c] if b == "geomean" else table[b].get(c, float("nan"))
    bars(path, benches, cfgs, val, ylabel, title)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rows, failed = load(a.csv)
    runs, cls = by_bench(rows)
    lines = []
    speed = normalized(runs, "hcoda")
    if speed:
        perf_table(lines, speed, cls, "performance normalized to H-CODA (H-CODA cycles / cycles)")
        perf_plot(os.path.join(a.out, "perf-hcoda.png"), speed, cls,
                  "performance normalized to H-CODA", "H-CODA cycles / cycles", ("hcoda",))
        per_class = {k: {c: geomean([v.get(c) for b, v in speed.items() if cls[b] == k])
                         for c in present(speed)} for k in CLASSES
                     if any(cls[b] == k for b in speed)}
        bars(os.path.join(a.out, "perf-class.png"), list(per_class),
             [c for c in present(speed) if c != "hcoda"],
             lambda k, c: per_class[k].get(c, float("nan")),
             "H-CODA cycles / cycles\n(geometric mean)", "per Table 3.4 locality class")
    mono = normalized(runs, "mono")
    if mono:
        perf_table(lines, mono, cls, "performance normalized to the monolithic GPU "
                   "(monolithic cycles / cycles)")
        perf_plot(os.path.join(a.out, "perf-mono.png"), mono, cls,
                  "performance normalized to the monolithic GPU", "monolithic cycles / cycles",
                  ("mono",))
    traffic_table(lines, rows, runs)
    if speed:
        inter = traffic_by_bench(runs, "flits_inter_gpu")
        chip = traffic_by_bench(runs, "flits_remote")
        cfgs = [c for c in present(inter) if c != "hcoda"]
        gm = lambda t, c: geomean([v.get(c) for v in t.values()])
        bars(os.path.join(a.out, "traffic.png"), ["inter-GPU", "off-chiplet"], cfgs,
             lambda g, c: gm(inter if g == "inter-GPU" else chip, c),
             "flits / H-CODA's\n(geometric mean)", "traffic normalized to H-CODA")
        crb = crb_table(lines, speed, cls)
        if crb:
            bars(os.path.join(a.out, "crb.png"), list(crb), list(next(iter(crb.values()))),
                 lambda k, c: crb[k][c], "H-CODA cycles / cycles\n(geometric mean)",
                 "RTWICE against RONCE")
    write_summary(a.out, lines, rows, failed)


if __name__ == "__main__":
    main()
