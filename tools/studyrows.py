"""What the study reports share in reading a study's results.csv: a run's
overrides and the value each key ends with, a summary figure as a number
(0 when empty), the geometric mean of the positive values, and the summary
file's closing count of runs and stale reads."""
import json
import math
import os


def overrides(row):
    return json.loads(row.get("overrides") or "[]")


def final(row):
    """Each overridden key's value, the last one winning (as in the run)."""
    return dict(o.split("=", 1) for o in overrides(row))


def num(row, key):
    v = row.get(key)
    return float(v) if v not in (None, "") else 0.0


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def write_summary(out, lines, ok, failed):
    """DIR/summary.txt: the report's lines, then the count of runs and of stale
    reads (must be 0) and each run that was not ok, with its error."""
    stale = sum(num(r, "stale_reads") for r in ok)
    lines = lines + [f"runs: {len(ok)} ok, {len(failed)} not ok; stale reads {stale:.0f}"]
    lines += [f"  not ok: {r['key']}: {r.get('error', '')}" for r in failed]
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
