"""What the study reports share in reading a study's results.csv: a run's
overrides and the value each key ends with, a summary figure as a number
(0 when empty), and the geometric mean of the positive values."""
import json
import math


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
