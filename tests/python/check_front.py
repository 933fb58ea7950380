#!/usr/bin/python3
"""Reads a ShardMeter front with plain h5py + pandas (no ShardMeter code) and compares it with a JSON sidecar: the
values, the provenance, and for every column its dtype and unit in HDF5, in CSV (with its units sidecar) and in JSON.

Usage: check_front.py FRONT.h5 EXPECTED.json   (front.csv, front.units.csv and front.json next to FRONT.h5)
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


# The pandas dtype each result-file type reads as (bool: HDF5 h5py's bool enum, CSV true/false, JSON true/false).
HDF5_DTYPES = {"bool": "bool", "int64": "int64", "uint64": "uint64", "float64": "float64", "str": "object"}
TEXT_DTYPES = {"bool": "bool", "int64": "int64", "uint64": "int64", "float64": "float64", "str": "object"}


def check_dtypes(df, expected, dtypes, where):
    """Every column is present and reads as its type's dtype; strings are str (or bytes in HDF5)."""
    check(set(df.columns) == set(expected["dtypes"]), f"{where}: columns differ from the layout's")
    for column, kind in expected["dtypes"].items():
        if column not in df.columns:
            continue
        got = str(df[column].dtype)
        check(got == dtypes[kind], f"{where}: column {column!r} reads as {got}, expected {dtypes[kind]} ({kind})")


def check_units(units, expected, where):
    for column, unit in expected["units"].items():
        check(unit != "", f"the layout gives {column!r} no unit")
        check(units.get(column) == unit, f"{where}: unit of {column!r} is {units.get(column)!r}, expected {unit!r}")


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
        check_dtypes(pd.DataFrame(f["/front"][:]), expected, HDF5_DTYPES, "HDF5 /front")
        check_units(dict(zip(front.columns, f["/front"].attrs["units"])), expected, "HDF5 /front.attrs['units']")
        check(str(front["feasible"].dtype) == "bool", "feasible is not bool")
        check(f.attrs["uncalibrated_gpus"].tolist() == ["h200-sxm"], "uncalibrated_gpus attribute")
        check(f.attrs["uncalibrated_gpu_stacks"].tolist() == ["h200-sxm:megatron_te"], "uncalibrated_gpu_stacks attribute")
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

    # CSV, as results/README.md says to read it: names and labels ("8" as an axis label) as text, by their unit.
    base = h5_path[: -len(".h5")]
    units = pd.read_csv(base + ".units.csv", keep_default_na=False)
    check(list(units.columns) == ["column", "unit"], "CSV units sidecar header")
    check_units(dict(zip(units["column"], units["unit"])), expected, "CSV units sidecar")
    text = {c: str for c, u in zip(units["column"], units["unit"]) if u in ("name", "label")}
    check_dtypes(pd.read_csv(base + ".csv", dtype=text, keep_default_na=False), expected, TEXT_DTYPES, "CSV")
    with open(base + ".json") as f:
        doc = json.load(f)
    check_dtypes(pd.DataFrame(doc["front"], columns=doc["columns"]), expected, TEXT_DTYPES, "JSON")
    check_units(doc["units"], expected, "JSON units")

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
