#!/usr/bin/python3
"""The Python module returns what the CLI prints (issue 13 point 4).

Usage: check_python_module.py SHARDMETER_BINARY SOURCE_DIR WORK_DIR, with the module importable (PYTHONPATH=<build>/python).
Checks, each against the CLI run on the same input:
  - estimate(path) == `estimate path --json` for every shipped scenario (scenarios/*.yaml, scenarios/nightly/*.yaml);
  - estimate(path, set={...}) == `estimate path --set ... --json`; the same scenario as YAML text and as a dict;
  - a bad scenario, a bad `set` value and a bad row raise ScenarioError carrying the CLI's one-line message;
  - evaluate_many: one row per override dict (or DataFrame row), each row's metrics equal to estimate() with the
    same overrides, the same frame on 1 and 2 threads;
  - search(threads=1): the front equals `search --threads 1 --json FILE`'s front, its attrs the file's `run`.
Exit status 0 when all hold, 1 with one line per failure otherwise.
"""
import glob
import json
import math
import os
import subprocess
import sys

import pandas as pd

import shardmeter

CATALOGS = ("gpus.yaml", "links.yaml")


def cli(binary, *args):
    r = subprocess.run([binary, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def raises(call, expected_message, what, failures):
    try:
        call()
    except shardmeter.ScenarioError as e:
        if str(e) != expected_message:
            failures.append(f"{what}: message {str(e)!r}, the CLI says {expected_message!r}")
        return
    except Exception as e:  # noqa: BLE001 - any other type is the failure
        failures.append(f"{what}: raised {type(e).__name__}, not ScenarioError: {e}")
        return
    failures.append(f"{what}: raised nothing")


def check_estimates(binary, source, failures):
    shipped = [p for p in sorted(glob.glob(os.path.join(source, "scenarios", "*.yaml")))
               if os.path.basename(p) not in CATALOGS]
    shipped += sorted(glob.glob(os.path.join(source, "scenarios", "nightly", "*.yaml")))
    if len(shipped) < 10:
        failures.append(f"only {len(shipped)} shipped scenarios found under {source}/scenarios")
    for path in shipped:
        status, out, err = cli(binary, "estimate", path, "--json")
        if status != 0:
            failures.append(f"CLI estimate {path} failed: {err.strip()}")
        elif shardmeter.estimate(path) != json.loads(out):
            failures.append(f"estimate({path}) differs from `estimate --json`")

    small = os.path.join(source, "tests", "data", "small.yaml")
    status, out, err = cli(binary, "estimate", small, "--set", "plan.tp=2", "--set", "plan.pp=4", "--json")
    with_set = shardmeter.estimate(small, set={"plan.tp": 2, "plan.pp": 4})
    if status != 0 or with_set != json.loads(out):
        failures.append(f"estimate(small, set=...) differs from `--set` ({err.strip()})")
    plain = shardmeter.estimate(small)
    with open(small) as f:
        if shardmeter.estimate(f.read()) != plain:
            failures.append("estimate(YAML text) differs from estimate(path)")
    # tests/data/small.yaml as a dict.
    as_dict = {"name": "small", "model": {"preset": "llama3-8b", "seq_len": 4096},
               "training": {"global_batch": 64, "micro_batch": 1, "tokens": 1e9},
               "cluster": {"islands": [{"name": "lab", "gpu": "h100-sxm", "gpus": 16}]}, "plan": {"tp": 4, "pp": 2}}
    if shardmeter.estimate(as_dict) != plain:
        failures.append("estimate(dict) differs from estimate(path)")
    if "tokens_per_s" not in plain or plain.keys() != json.loads(cli(binary, "estimate", small, "--json")[1]).keys():
        failures.append("estimate() keys are not the CLI's")

    bad = os.path.join(source, "tests", "data", "bad_tp_gpus.yaml")
    status, _, err = cli(binary, "estimate", bad)
    raises(lambda: shardmeter.estimate(bad), err.strip(), "estimate(bad_tp_gpus.yaml)", failures)
    status, _, err = cli(binary, "estimate", small, "--set", "plan.tp=3")
    raises(lambda: shardmeter.estimate(small, set={"plan.tp": 3}), err.strip(), "estimate(set plan.tp=3)", failures)
    try:
        shardmeter.estimate(dict(as_dict, model={"preset": "no-such-model"}))
        failures.append("estimate(dict with an unknown preset) raised nothing")
    except shardmeter.ScenarioError as e:
        if not str(e).startswith("<dict>:") or "no-such-model" not in str(e):
            failures.append(f"a dict's error is not located in <dict>: {e}")


def check_non_finite_overrides(source, failures):
    """Issue 33: a NaN or infinite override raises instead of being dropped (evaluate_many keeps NaN = unset)."""
    small = os.path.join(source, "tests", "data", "small.yaml")
    for value in (float("nan"), float("inf"), float("-inf")):
        for what, call in (("estimate", lambda: shardmeter.estimate(small, set={"goodput.restart_s": value})),
                           ("search", lambda: shardmeter.search(small, set={"goodput.restart_s": value})),
                           ("evaluate_many", lambda: shardmeter.evaluate_many(small, [{"plan.tp": value}]))):
            if what == "evaluate_many" and math.isnan(value):
                continue
            try:
                call()
                failures.append(f"{what} with an override of {value} raised nothing")
            except shardmeter.ScenarioError as e:
                if "goodput.restart_s" not in str(e) and "plan.tp" not in str(e):
                    failures.append(f"{what}: the error for {value} does not name the key: {e}")


def check_evaluate_many(source, failures):
    small = os.path.join(source, "tests", "data", "small.yaml")
    rows = [{"plan.tp": 1}, {"plan.tp": 2, "plan.pp": 4}, {}]
    frame = shardmeter.evaluate_many(small, rows, threads=2)
    if len(frame) != 3 or list(frame["index"]) != [0, 1, 2]:
        failures.append(f"evaluate_many: {len(frame)} rows, index {list(frame.get('index', []))}")
        return
    if list(frame["axis:plan.tp"]) != ["1", "2", ""] or list(frame["axis:plan.pp"]) != ["", "4", ""]:
        failures.append(f"evaluate_many axis columns: {list(frame['axis:plan.tp'])}, {list(frame['axis:plan.pp'])}")
    for i, row in enumerate(rows):
        one = shardmeter.estimate(small, set=row)
        for metric in ("tokens_per_s", "step_time_s", "mfu", "total_cost_usd", "memory_per_gpu_gb"):
            if metric in one and not math.isclose(frame[metric][i], one[metric], rel_tol=0, abs_tol=0):
                failures.append(f"evaluate_many row {i}: {metric} {frame[metric][i]} != estimate() {one[metric]}")
    serial = shardmeter.evaluate_many(small, rows, threads=1)
    if not frame.equals(serial):
        failures.append("evaluate_many differs between 1 and 2 threads")
    as_frame = shardmeter.evaluate_many(small, pd.DataFrame(rows))   # NaN cells: key not set in that row
    if not as_frame.drop(columns=["axis:plan.tp", "axis:plan.pp"]).equals(
            frame.drop(columns=["axis:plan.tp", "axis:plan.pp"])):
        failures.append("evaluate_many(DataFrame) differs from evaluate_many(list of dicts)")
    status_err = "row 1: --set plan.tp=3: "
    try:
        shardmeter.evaluate_many(small, [{"plan.tp": 1}, {"plan.tp": 3}])
        failures.append("evaluate_many with a bad row raised nothing")
    except shardmeter.ScenarioError as e:
        if not str(e).startswith(status_err):
            failures.append(f"evaluate_many's error does not name the row: {e}")


def check_search(binary, source, work, failures):
    scenario = os.path.join(source, "tests", "data", "search_small.yaml")
    path = os.path.join(work, "front.json")
    status, _, err = cli(binary, "search", scenario, "--quiet", "--threads", "1", "--json", path)
    if status != 0:
        failures.append(f"CLI search failed: {err.strip()}")
        return
    with open(path) as f:
        expected = json.load(f)
    front = shardmeter.search(scenario, threads=1)
    if list(front.columns) != expected["columns"]:
        failures.append(f"search() columns differ from the JSON file's: {list(front.columns)[:5]}...")
    reference = pd.DataFrame(expected["front"], columns=expected["columns"])
    if len(front) == 0 or not front.equals(reference):
        failures.append(f"search() front ({len(front)} rows) differs from the CLI's ({len(reference)} rows)")
    run = expected["run"]
    if set(front.attrs) != set(run):
        failures.append(f"search() attrs {sorted(front.attrs)} are not the file's run keys {sorted(run)}")
    for key in set(run) - {"elapsed_s", "created"}:
        if front.attrs.get(key) != run[key]:
            failures.append(f"search() attrs[{key!r}] = {front.attrs.get(key)!r}, the file has {run[key]!r}")


def main(binary, source, work):
    os.makedirs(work, exist_ok=True)
    failures = []
    check_estimates(binary, source, failures)
    check_evaluate_many(source, failures)
    check_non_finite_overrides(source, failures)
    check_search(binary, source, work, failures)
    return failures


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__)
        sys.exit(2)
    problems = main(*sys.argv[1:])
    for p in problems:
        print("failed:", p)
    print("python module ok" if not problems else f"{len(problems)} failure(s)")
    sys.exit(1 if problems else 0)
