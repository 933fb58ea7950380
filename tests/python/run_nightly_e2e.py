#!/usr/bin/python3
"""End to end: `shardmeter nightly` on the shipped scenarios/nightly twice (the second run re-priced, so it has a
baseline), then checks the layout, the exit status and that every page parses as XML.

Usage: run_nightly_e2e.py SHARDMETER SCENARIO_DIR PRICES OUT_DIR
Exit status: 0 ok, 1 failed.
"""
import glob
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

shardmeter, scenarios, prices, out = sys.argv[1:5]
shutil.rmtree(out, ignore_errors=True)
failures = []
stems = sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(scenarios, "*.yaml")))
for date, extra in (("2000-01-01", []), ("2000-01-02", ["--prices", prices])):
    run = subprocess.run([shardmeter, "nightly", scenarios, "--out", out, "--date", date, "--threads", "2"] + extra,
                         capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        failures.append(f"{date}: exit {run.returncode}\n{run.stderr}")
        continue
    day = os.path.join(out, date)
    ET.parse(os.path.join(day, "index.html"))
    for stem in stems:
        for ext in ("h5", "html", "md"):
            if not os.path.exists(os.path.join(day, f"{stem}.{ext}")):
                failures.append(f"{date}: no {stem}.{ext}")
        ET.parse(os.path.join(day, f"{stem}.html"))
    if date == "2000-01-02":
        for stem in stems:
            if "2000-01-01/" + stem + ".h5" not in open(os.path.join(day, f"{stem}.html")).read():
                failures.append(f"{stem}: the second run does not compare with the first")
if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"ok: {len(stems)} scenarios, two nightly runs in {out}")
