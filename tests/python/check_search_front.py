#!/usr/bin/python3
"""Reads the front `shardmeter search` wrote with plain h5py + pandas and compares it with the JSON the same run wrote.

Usage: check_search_front.py FRONT.h5 FRONT.json
Exit status: 0 ok, 1 mismatch, 1 also when h5py or pandas is missing (`make deps` installs python3-h5py and python3-pandas).
"""
import json
import sys

try:
    import h5py
    import pandas as pd
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"failed: {sys.executable} cannot import h5py and pandas ({e}); run `make deps`")
    sys.exit(1)

CONTRACT = ("scenario", "version", "method", "seed", "threads", "space_size", "visited", "estimated", "feasible",
            "elapsed_s", "complete")


def main(h5_path, json_path):
    failures = []
    with open(json_path) as f:
        expected = json.load(f)
    with h5py.File(h5_path, "r") as f:
        run = dict(f.attrs)
        front = pd.DataFrame(f["/front"][:])
    for column in front.columns:
        if front[column].dtype == object:
            front[column] = front[column].str.decode("utf-8")
    for name in CONTRACT:
        if name not in run:
            failures.append(f"root attribute {name!r} is missing")
    if not bool(run.get("complete")):
        failures.append("complete is not true")
    if int(run.get("space_size", 0)) != expected["run"]["space_size"]:
        failures.append(f"space_size {run.get('space_size')} != {expected['run']['space_size']}")
    rows = expected["front"]
    if len(front) != len(rows) or len(rows) == 0:
        failures.append(f"/front has {len(front)} rows, the JSON {len(rows)}")
    else:
        for column in ("total_cost_usd", "tokens_per_s", "index", "island0_gpu", "axis:plan.tp"):
            got = front[column].tolist()
            want = [row[column] for row in rows]
            if got != want:
                failures.append(f"/front[{column!r}] = {got}, JSON {want}")
        if front["total_cost_usd"].tolist() != sorted(front["total_cost_usd"].tolist()):
            failures.append("/front is not sorted by total_cost_usd")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
