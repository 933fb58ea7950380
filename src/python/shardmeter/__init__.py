"""ShardMeter from Python: one plan's estimate, many plans at once, a search's Pareto front (docs/python.md).

    import shardmeter
    e = shardmeter.estimate("scenarios/default.yaml", set={"plan.tp": 8})      # dict: `estimate --json`
    df = shardmeter.evaluate_many("scenarios/default.yaml", [{"plan.tp": 4}, {"plan.tp": 8}])   # DataFrame
    front = shardmeter.search("scenarios/default.yaml", threads=2)             # DataFrame; front.attrs: the run

A scenario is a path, YAML text or a dict. Bad input raises ScenarioError (a ValueError) whose message is the
CLI's: "file:line:column: key = value problem".
"""
import json as _json
import math as _math
import numbers as _numbers
import os as _os

import pandas as _pd

from ._shardmeter import InputError, OutputError, ResultsError, ScenarioError, __version__, data_dir
from . import _shardmeter

__all__ = ["estimate", "evaluate_many", "search", "data_dir", "ScenarioError", "InputError", "ResultsError",
           "OutputError", "__version__"]


def _source(scenario):
    """(label, text): text is None for a file."""
    if isinstance(scenario, dict):
        # JSON is YAML: the dict's errors are located in this text, labelled <dict>.
        return "<dict>", _json.dumps(scenario, indent=2)
    if isinstance(scenario, _os.PathLike):
        return _os.fspath(scenario), None
    if isinstance(scenario, str):
        if "\n" not in scenario and (scenario.endswith((".yaml", ".yml")) or _os.path.isfile(scenario)):
            return scenario, None
        return "<text>", scenario
    raise TypeError(f"scenario must be a path, YAML text or a dict, not {type(scenario).__name__}")


def _value_text(value):
    """A Python value as the YAML text of a --set VALUE."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return repr(value)
    return _json.dumps(value)  # lists and dicts: JSON is YAML flow text


def _not_finite(value):
    """A float (NumPy's too) that is NaN or infinite."""
    return isinstance(value, _numbers.Real) and not isinstance(value, int) and not _math.isfinite(float(value))


def _set_texts(overrides, nan_is_missing=False):
    """{"plan.tp": 4} -> ["plan.tp=4"], the CLI's --set texts. None is skipped; NaN too when `nan_is_missing` (a
    DataFrame's empty cell in evaluate_many); any other NaN or infinity raises ScenarioError (issue 33)."""
    if overrides is None:
        return []
    texts = []
    for key, value in dict(overrides).items():
        if value is None or (nan_is_missing and _not_finite(value) and _math.isnan(float(value))):
            continue
        if _not_finite(value):
            raise ScenarioError(f"--set {key}={value!r}: is not a finite number (NaN and infinity are refused)")
        texts.append(f"{key}={_value_text(value)}")
    return texts


def estimate(scenario, set=None, *, data_dir=None):
    """`shardmeter estimate SCENARIO --set K=V ... --json` as a dict: exactly the CLI's keys and values."""
    label, text = _source(scenario)
    return _json.loads(_shardmeter.estimate_json(label, text, _set_texts(set), data_dir))


def evaluate_many(scenario, overrides, *, threads=0, data_dir=None):
    """One row per entry of `overrides` (a list of {key: value} dicts, or a DataFrame whose columns are dotted keys;
    NaN or None leaves a key unset in that row; an infinity raises ScenarioError), evaluated on `threads` workers (0: all). The columns are those of
    the result files (results/README.md) plus `axis:<key>` per overridden key; `index` is the row's position."""
    if isinstance(overrides, _pd.DataFrame):
        rows = overrides.to_dict(orient="records")
    else:
        rows = list(overrides)
    label, text = _source(scenario)
    columns, cells = _shardmeter.evaluate_many(label, text, [_set_texts(r, nan_is_missing=True) for r in rows],
                                               threads, data_dir)
    return _pd.DataFrame(cells, columns=columns)


def search(scenario, set=None, *, method=None, threads=None, seed=None, evaluations=None, time_limit=None,
           output=None, csv=None, json=None, all=False, data_dir=None):
    """`shardmeter search SCENARIO ...`: the Pareto front as a DataFrame (the columns of `--json FILE`'s front,
    cheapest first) whose `attrs` hold the run's attributes (the HDF5 root attributes: method, space_size, visited,
    estimated, complete, ...). Options left at None take the CLI's defaults; output/csv/json also write the files."""
    given = {"method": method, "threads": threads, "seed": seed, "evaluations": evaluations,
             "time_limit": time_limit, "output": output, "csv": csv, "json": json, "all": all or None}
    options = {key: value for key, value in given.items() if value is not None}
    label, text = _source(scenario)
    result = _json.loads(_shardmeter.search_json(label, text, _set_texts(set), options, data_dir))
    front = _pd.DataFrame(result["front"], columns=result["columns"])
    front.attrs.update(result["run"])
    return front
