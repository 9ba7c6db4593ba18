#!/usr/bin/env python3
"""Kernel sampling against the whole run: every workload run with and without
sampling, and the error of the sampled cycles per workload (docs/sampling.md).

Each workload runs twice on the same configuration, once with every kernel in
detail and once with `-p sample.enable=true` (plus any --set given), and the
table gives the kernels skipped, the cycles of both runs, the sampled run's
error against the detailed one, the error the sampled run estimated for
itself (sample.error_ps over its simulated time), both runs' L2 hits, and both
runs' wall times.
Runs go through `chipsim run`, --jobs workloads at a time (each its two runs in
turn); results are kept as JSON in --dir, named by their arguments, so a second
call reuses them.
"""
import argparse
import concurrent.futures
import configparser
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def workloads(binary):
    out = subprocess.run([binary, "list", "workloads"], capture_output=True, text=True,
                         check=True).stdout
    return [line.split()[0] for line in out.splitlines()
            if line.strip() and not line.startswith((" ", "#")) and ":" not in line.split()[0]]


def study_workloads(path):
    cp = configparser.ConfigParser(inline_comment_prefixes=(";",), strict=False)
    cp.read(path)
    return [w.strip() for w in cp["sweep"]["workloads"].replace("\n", " ").split(",")
            if w.strip()]


def run(binary, args, path):
    """The run's JSON (made once)."""
    if not os.path.exists(path):
        tmp = path + ".part"
        p = subprocess.run([binary, "run", "-q", *args, "--json", tmp], capture_output=True,
                           text=True)
        if p.returncode:
            sys.exit(f"sampling_error: chipsim run {' '.join(args)}: exit {p.returncode}\n"
                     f"{p.stderr}")
        os.replace(tmp, path)
    with open(path) as f:
        return json.load(f)


def row(name, full, smp):
    c0, c1 = full["summary"]["cycles"], smp["summary"]["cycles"]
    st = smp["stats"]
    t = smp["sim"]["sim_time_ps"]
    return {"workload": name, "kernels": full["summary"]["kernels"],
            "skipped": st.get("sample.skipped", 0), "cycles": c0, "sampled_cycles": c1,
            "error_pct": 100.0 * (c1 - c0) / c0 if c0 else 0.0,
            "estimated_pct": 100.0 * st.get("sample.error_ps", 0) / t if t else 0.0,
            "l2_hits": full["summary"]["l2_hits"], "sampled_l2_hits": smp["summary"]["l2_hits"],
            "wall_s": full["sim"]["wall_s"], "sampled_wall_s": smp["sim"]["wall_s"]}


def table(rows, wall=True):
    cols = ["workload", "kernels", "skipped", "cycles", "sampled", "error", "estimated error",
            "L2 hits", "sampled"]
    if wall:
        cols += ["wall (s)", "sampled (s)", "speed-up"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        cells = [r["workload"], f"{r['kernels']:,}", f"{r['skipped']:,}", f"{r['cycles']:,}",
                 f"{r['sampled_cycles']:,}", f"{r['error_pct']:+.2f}%",
                 f"{r['estimated_pct']:.2f}%", f"{r['l2_hits']:,}", f"{r['sampled_l2_hits']:,}"]
        if wall:
            sp = r["wall_s"] / r["sampled_wall_s"] if r["sampled_wall_s"] else 0.0
            cells += [f"{r['wall_s']:.1f}", f"{r['sampled_wall_s']:.1f}", f"{sp:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "bin", "chipsim"))
    ap.add_argument("-c", "--config", action="append", default=[],
                    help="configuration file(s) (default configs/mcm-4chiplet.ini)")
    ap.add_argument("-p", "--param", action="append", default=[],
                    help="SECTION.KEY=VALUE for both runs")
    ap.add_argument("--set", action="append", default=[],
                    help="SECTION.KEY=VALUE for the sampled run only (e.g. sample.every=20)")
    ap.add_argument("-w", "--workload", action="append", default=[],
                    help="these workloads (default: --study's, else every one)")
    ap.add_argument("--study", help="the workloads of this study file's [sweep] "
                    "(e.g. studies/cpelide.ini)")
    ap.add_argument("--small", action="store_true", help="each workload at its small size")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--dir", default="results/sampling", help="where the runs' JSON goes")
    ap.add_argument("--json", help="write the rows here too")
    ap.add_argument("--no-wall", action="store_true",
                    help="leave the wall times out (when other work shared the machine)")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    base = []
    for c in a.config or [os.path.join(ROOT, "configs", "mcm-4chiplet.ini")]:
        base += ["-c", c]
    if a.small:
        base.append("--small")
    for p in a.param:
        base += ["-p", p]
    smp = base + ["-p", "sample.enable=true"] + [x for s in a.set for x in ("-p", s)]
    names = a.workload or (study_workloads(a.study) if a.study else workloads(a.binary))
    key = hashlib.sha1(" ".join(base).encode()).hexdigest()[:8]
    tag = key + "-" + hashlib.sha1(" ".join(smp).encode()).hexdigest()[:8]

    def both(name):
        full = run(a.binary, base + ["-w", name], os.path.join(a.dir, f"{name}-{key}.json"))
        s = run(a.binary, smp + ["-w", name], os.path.join(a.dir, f"{name}-{tag}.json"))
        return row(name, full, s)

    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        rows = list(ex.map(both, names))
    print(table(rows, not a.no_wall))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
