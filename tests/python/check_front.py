#!/usr/bin/python3
"""Reads a ShardMeter front with plain h5py + pandas (no ShardMeter code) and compares it with a JSON sidecar.

Usage: check_front.py FRONT.h5 EXPECTED.json
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

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def frame(dataset):
    """The documented recipe: a compound dataset into a DataFrame, fixed-length strings decoded."""
    df = pd.DataFrame(dataset[:])
    for column in df.columns:
        if df[column].dtype == object:
            df[column] = df[column].str.decode("utf-8")
    return df


def same(a, b):
    """Exact: the writer stores doubles bit for bit and the sidecar JSON holds their shortest round-trip text."""
    return float(a) == b if isinstance(b, float) else a == b


def main(h5_path, expected_path):
    with open(expected_path) as f:
        expected = json.load(f)
    with h5py.File(h5_path, "r") as f:
        front = frame(f["/front"])
        for column in ("total_cost_usd", "tokens_per_s", "index", "island0_gpu", "axis:plan.tp"):
            check(column in front.columns, f"/front has no column {column!r}")
            if column in front.columns:
                got = front[column].tolist()
                want = expected[column]
                check(len(got) == len(want) and all(same(g, w) for g, w in zip(got, want)),
                      f"/front[{column!r}] = {got}, expected {want}")
        check(str(front["total_cost_usd"].dtype) == "float64", "total_cost_usd is not float64")
        check(front["total_cost_usd"].is_monotonic_increasing, "/front is not sorted by cost")

        for name, want in expected["attrs"].items():
            check(name in f.attrs, f"root attribute {name!r} is missing")
            if name in f.attrs:
                got = f.attrs[name]
                got = got.item() if hasattr(got, "item") else got
                check(got == want, f"attribute {name!r} = {got!r}, expected {want!r}")
        check(isinstance(f.attrs["scenario"], str), "scenario attribute is not read as str")
        check(list(f.attrs["objectives"]) == expected["objectives"], "objectives differ")
        check(list(f.attrs["axes"]) == expected["axes"], "axes differ")

        if "all_rows" in expected:
            check("all" in f, "/all is missing")
            if "all" in f:
                everything = frame(f["/all"])
                check(len(everything) == expected["all_rows"], f"/all has {len(everything)} rows")
                check(f["/all"].chunks is not None, "/all is not chunked")
                check(f["/all"].compression == "gzip", "/all is not deflate-compressed")
                check(list(everything.columns) == list(front.columns), "/all and /front columns differ")

    for message in failures:
        print("FAIL:", message)
    if not failures:
        print(f"ok: {h5_path} read with h5py {h5py.__version__} and pandas {pd.__version__}")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
