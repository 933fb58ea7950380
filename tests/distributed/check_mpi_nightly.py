#!/usr/bin/env python3
"""`mpirun -np 2 shardmeter nightly` deals the scenarios over the ranks (docs/scale.md): the day's directory must
hold every scenario's front, report and the index, exactly as one process writes them (the /front datasets equal
byte for byte), and the launcher must exit 0.

Usage: check_mpi_nightly.py SHARDMETER MPIEXEC SCENARIO_DIR WORK_DIR
"""
import glob
import os
import shutil
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_mpi_search import mpi_env  # noqa: E402

DATE = '2000-01-01'


def main():
    binary, mpiexec, scenarios, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    stems = sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(scenarios, '*.yaml')))
    failures = []
    for name, launcher in (('one', []), ('mpi2', [mpiexec, '-np', '2'])):
        run = subprocess.run(launcher + [binary, 'nightly', scenarios, '--out', os.path.join(work, name), '--date',
                                         DATE, '--threads', '1'], capture_output=True, text=True, env=mpi_env())
        if run.returncode != 0:
            failures.append(f'{name}: exit {run.returncode}\n{run.stdout[-1000:]}\n{run.stderr[-2000:]}')
    if not failures:
        for stem in stems:
            for ext in ('h5', 'html', 'md'):
                if not os.path.exists(os.path.join(work, 'mpi2', DATE, f'{stem}.{ext}')):
                    failures.append(f'2 ranks: no {stem}.{ext}')
            with h5py.File(os.path.join(work, 'one', DATE, f'{stem}.h5'), 'r') as a, \
                    h5py.File(os.path.join(work, 'mpi2', DATE, f'{stem}.h5'), 'r') as b:
                if a['front'][()].tobytes() != b['front'][()].tobytes():
                    failures.append(f'{stem}: /front differs')
        index = os.path.join(work, 'mpi2', DATE, 'index.html')
        text = open(index, encoding='utf-8').read() if os.path.exists(index) else ''
        for stem in stems:
            if stem not in text:
                failures.append(f'2 ranks: the index does not list {stem}')
    for f in failures:
        print(f)
    if not failures:
        print(f'{len(stems)} scenarios over 2 ranks: the same fronts, reports and index')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
