#!/usr/bin/python3
"""`search --method auto` on a 10^8+ space decides in under a second and says so in its summary (issue 13):
tests/bench/scale_space.yaml (116,121,600 candidates), stopped by --time-limit once it has decided (the limit also
becomes auto's budget, so it anneals; the decision is what is checked).

Usage: check_auto_decision.py SHARDMETER SCENARIO
"""
import re
import subprocess
import sys

shardmeter, scenario = sys.argv[1:3]
run = subprocess.run([shardmeter, 'search', scenario, '--quiet', '--time-limit', '2'], capture_output=True, text=True,
                     timeout=300)
if run.returncode != 0:
    print(f'exit {run.returncode}: {run.stderr}')
    sys.exit(1)
match = re.search(r'a sample of (\d+) of (\d+) candidates.*\(decided in ([0-9.]+) (ms|s)\)', run.stdout)
if not match:
    print('the summary does not say auto decided from a sample, and how long it took:\n' + run.stdout)
    sys.exit(1)
size = int(match.group(2))
seconds = float(match.group(3)) / (1000 if match.group(4) == 'ms' else 1)
if size < 10**8 or seconds >= 1:
    print(f'space {size:,} candidates, decided in {seconds:.3f} s (wanted a 10^8+ space decided in < 1 s)')
    sys.exit(1)
print(f'auto decided on {size:,} candidates in {seconds * 1000:.0f} ms')
