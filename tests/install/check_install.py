#!/usr/bin/python3
"""An installed copy runs without --data-dir (issue 13 point 5).

Usage: check_install.py BUILD_DIR WORK_DIR SCENARIO SEARCH_SCENARIO [--python]
Installs BUILD_DIR with `cmake --install` into WORK_DIR/prefix (emptied first), moves the prefix elsewhere (so the
binary cannot lean on the path it was installed to), then, with $SHARDMETER_DATA_DIR unset and WORK_DIR as the
working directory, checks that
  - the prefix holds bin/shardmeter, share/shardmeter/{gpus,links}.yaml and models/, README.md and docs/;
  - `shardmeter --help` names <moved prefix>/share/shardmeter as the data directory;
  - `estimate <moved prefix>/share/shardmeter/SCENARIO --json` prints what the build tree's binary prints;
  - `search <moved prefix>/share/shardmeter/SEARCH_SCENARIO -o front.h5` succeeds and writes the file;
  - with --python: the installed module imports from <moved prefix>/lib/python3/dist-packages, names the same data
    directory and returns the CLI's estimate.
Exit status 0 when all hold, 1 with one line per failure otherwise.
"""
import json
import os
import shutil
import subprocess
import sys


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def main(build, work, scenario, search_scenario, python):
    failures = []
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    installed, moved = os.path.join(work, "prefix"), os.path.join(work, "moved")
    r = run(["cmake", "--install", build, "--prefix", installed])
    if r.returncode != 0:
        return [f"cmake --install failed ({r.returncode}): {r.stderr.strip()}"]
    os.rename(installed, moved)
    env = {k: v for k, v in os.environ.items() if k != "SHARDMETER_DATA_DIR"}
    data = os.path.join(moved, "share", "shardmeter")
    binary = os.path.join(moved, "bin", "shardmeter")

    for path in ("bin/shardmeter", "share/shardmeter/gpus.yaml", "share/shardmeter/links.yaml",
                 "share/shardmeter/models/llama3-70b.yaml", "share/shardmeter/validation/published_runs.csv",
                 "share/doc/shardmeter/README.md", "share/doc/shardmeter/docs/model.md"):
        if not os.path.exists(os.path.join(moved, path)):
            failures.append(f"the prefix has no {path}")

    r = run([binary, "--help"], env=env, cwd=work)
    if f"Catalogs and presets are read from {data} " not in r.stdout:
        failures.append(f"`shardmeter --help` does not name {data} as its data directory: {r.stdout[-300:]!r}")

    r = run([binary, "estimate", os.path.join(data, scenario), "--json"], env=env, cwd=work)
    built = run([os.path.join(build, "shardmeter"), "estimate", os.path.join(data, scenario), "--json"], env=env,
                cwd=work)
    if r.returncode != 0:
        failures.append(f"installed estimate failed ({r.returncode}): {r.stderr.strip()}")
    elif r.stdout != built.stdout:
        failures.append("installed estimate --json differs from the build tree's")

    front = os.path.join(work, "front.h5")
    r = run([binary, "search", os.path.join(data, search_scenario), "--quiet", "-o", front], env=env, cwd=work)
    if r.returncode != 0:
        failures.append(f"installed search failed ({r.returncode}): {r.stderr.strip()}")
    elif not os.path.isfile(front):
        failures.append("installed search wrote no front.h5")

    if python:
        site = os.path.join(moved, "lib", "python3", "dist-packages")
        code = ("import json, sys, shardmeter; print(json.dumps([shardmeter.data_dir(), "
                f"shardmeter.estimate({os.path.join(data, scenario)!r})]))")
        r = run([sys.executable, "-c", code], env=dict(env, PYTHONPATH=site), cwd=work)
        if r.returncode != 0:
            failures.append(f"the installed Python module failed ({r.returncode}): {r.stderr.strip()[-500:]}")
        else:
            module_data, estimate = json.loads(r.stdout)
            if module_data != data:
                failures.append(f"the installed Python module reads its data from {module_data}, not {data}")
            if built.returncode == 0 and estimate != json.loads(built.stdout):
                failures.append("the installed Python module's estimate differs from the CLI's")
    return failures


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--python"]
    if len(args) != 4:
        print(__doc__)
        sys.exit(2)
    problems = main(*args, python="--python" in sys.argv[1:])
    for p in problems:
        print("failed:", p)
    print("installed copy ok" if not problems else f"{len(problems)} failure(s)")
    sys.exit(1 if problems else 0)
