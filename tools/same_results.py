#!/usr/bin/env python3
"""Check that two chipsim binaries give the same results.

    tools/same_results.py OLD NEW [--jobs N] [--only SUBSTRING]

Runs the reference set with both binaries and compares each run's whole JSON
result (configuration, summary, every counter) except the wall-clock figures
of its `sim` object. The set: every workload at its small size on the tiny
machine under every scheme (annotation checks on), under the artifact's
reading of D4 (cpelide) and with write-through L2s (ideal); on mcm-4chiplet
(viper); on the 4 x 4 multi-GPU machine (hmg, swcoh, viper, and hmg's flat
NHCC); on ladm-4x4 with LADM's placement and scheduling; on the 4-GPU DUALOPT
machine; the shared traces and, when `make bench` has written them, the
validation references' synthetic traces; and a few larger runs (square with
FIFO and random replacement, with the checker off, sssp, hotspot3d). A
performance change must leave every one of them unchanged. Prints the runs
that differ; exit status 1 if any does.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

SPEED = ("wall_s", "events_per_s", "warp_insts_per_s", "mem_reqs_per_s", "peak_rss_kib")
SCHEMES = ("viper", "cpelide", "hmg", "ideal", "swcoh", "nocache")


def workloads(binary):
    out = subprocess.run([binary, "list", "workloads"], capture_output=True, text=True,
                         check=True).stdout
    return [l.split()[0] for l in out.splitlines() if l.strip() and l.split()[0] != "trace"]


def runs(binary):
    """(name, arguments) of every run of the set."""
    r = []
    for w in workloads(binary):
        s = ["-w", w, "--small"]
        if w == "stream":  # whole pages per work-group on the 2 MB-page machines
            s += ["-p", "workload.cus=16", "-p", "workload.footprint_kib=32768"]
        for sc in SCHEMES:
            r.append((f"tiny-{w}-{sc}", ["-c", "configs/tiny.ini", *s, "-p",
                                         f"coherence.scheme={sc}", "-p",
                                         "check.annotations=true"]))
        r.append((f"tiny-d4-{w}", ["-c", "configs/tiny.ini", "-c", "configs/d4-artifact.ini",
                                   *s, "-p", "coherence.scheme=cpelide"]))
        r.append((f"tiny-wt-{w}", ["-c", "configs/tiny.ini", *s, "-p",
                                   "coherence.l2_write=through", "-p", "coherence.scheme=ideal"]))
        r.append((f"mcm-{w}", ["-c", "configs/mcm-4chiplet.ini", *s]))
        for sc in ("hmg", "swcoh", "viper"):
            r.append((f"hmg-{w}-{sc}", ["-c", "configs/hmg-4x4.ini", *s, "-p",
                                        f"coherence.scheme={sc}"]))
        r.append((f"hmg-flat-{w}", ["-c", "configs/hmg-4x4.ini", *s, "-p",
                                    "coherence.scheme=hmg", "-p", "coherence.mode=flat"]))
        r.append((f"ladm-{w}", ["-c", "configs/ladm-4x4.ini", *s, "-p", "sched.policy=ladm",
                                "-p", "place.policy=ladm"]))
        r.append((f"dualopt-{w}", ["-c", "configs/dualopt-4gpu.ini", *s]))
    shared = os.environ.get("CHIPSIM_SHARED", "../shared")
    traces = [("vectoradd", "accelsim-vectoradd", ("qv100", "mcm-4chiplet")),
              ("backprop", "accelsim-rodinia-backprop-h100", ("h100",)),
              ("btree", "accelsim-rodinia-btree-h100", ("h100", "mcm-4chiplet"))]
    for name, d, configs in traces:
        lst = os.path.join(shared, "data", d, "kernelslist.g")
        if os.path.exists(lst):
            for c in configs:
                r.append((f"trace-{name}-{c}", ["-c", f"configs/{c}.ini", "--trace", lst]))
    for name in ("scale-1m", "stencil-1k"):
        lst = os.path.join("build", "bench", name, "kernelslist.g")
        if os.path.exists(lst):
            r.append((f"trace-{name}-qv100", ["-c", "configs/qv100.ini", "--trace", lst]))
    mcm = ["-c", "configs/mcm-4chiplet.ini"]
    sq = ["-w", "square", "-p", "workload.n=1048576"]
    r += [("square-1m", mcm + sq + ["-p", "workload.iterations=2"]),
          ("square-1m-fifo-random", mcm + sq + ["-p", "l2.replacement=fifo", "-p",
                                                "l1d.replacement=random"]),
          ("square-1m-nocheck", mcm + sq + ["-p", "check.enable=false"]),
          ("sssp-4096", mcm + ["-w", "sssp", "-p", "workload.nodes=4096"]),
          ("hotspot3d-2", mcm + ["-w", "hotspot3d", "-p", "workload.iterations=2"])]
    return r


def result(binary, args, tmp):
    """The run's JSON without its wall-clock figures (or its failure)."""
    fd, path = tempfile.mkstemp(dir=tmp, suffix=".json")
    os.close(fd)
    p = subprocess.run([binary, "run", "-q", *args, "--json", path], capture_output=True,
                       text=True)
    if p.returncode:
        return {"exit": p.returncode, "stderr": p.stderr}
    with open(path) as f:
        j = json.load(f)
    os.unlink(path)
    for k in SPEED:
        j["sim"].pop(k, None)
    return j


def without_new_keys(old, new):
    """new's result without the configuration keys old does not have (keys added since,
    at their defaults, are not a difference in results)."""
    if not ("config" in old and "config" in new):
        return new
    cfg = {}
    for sec, keys in new["config"].items():
        if sec in old["config"]:
            cfg[sec] = ({k: v for k, v in keys.items() if k in old["config"][sec]}
                        if isinstance(keys, dict) else keys)
    return {**new, "config": cfg}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--only", default="", help="only the runs whose name contains this")
    a = ap.parse_args()
    todo = [r for r in runs(a.new) if a.only in r[0]]
    differ = []
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        def both(run):
            name, args = run
            old = result(a.old, args, tmp)
            return name, old == without_new_keys(old, result(a.new, args, tmp))
        for name, same in ex.map(both, todo):
            if not same:
                differ.append(name)
                print(f"differs: {name}", flush=True)
    print(f"{len(todo)} runs, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
