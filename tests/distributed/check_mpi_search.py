#!/usr/bin/env python3
"""`mpirun -np 2 shardmeter search` against the single-process, one-thread run on every shipped search
(docs/scale.md): the /front datasets must be equal byte for byte, the counts equal, the root attribute `ranks` 2.
With --all (on the first search only, to keep CI short), /all must hold the same candidates as one process writes,
each row the same bytes (their order may differ: ranks stream their rows as they find them). Annealing on 2 ranks (every rank runs its
own chains, seeded from --seed and the rank) must be deterministic: two runs give the same front, and together
the ranks visit more than one process does with the same budget.

Usage: check_mpi_search.py SHARDMETER MPIEXEC SOURCE_DIR WORK_DIR
"""
import os
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'golden'))
from check_golden import has_search, scenarios  # noqa: E402

COUNTS = ('space_size', 'visited', 'estimated', 'feasible')


def mpi_env():
    env = dict(os.environ)
    # CI runs as root in a container; OpenMPI refuses that unless told.
    env.update(OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1', OMPI_MCA_rmaps_base_oversubscribe='1')
    return env


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True, env=mpi_env())
    if done.returncode != 0:
        print(f'{" ".join(cmd)}: exit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}')
        sys.exit(1)


def main():
    binary, mpiexec, source, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    failures = 0
    searches = [p for p in scenarios(source) if has_search(p)]
    for n, path in enumerate(searches):
        name = os.path.splitext(os.path.basename(path))[0]
        one, two = os.path.join(work, f'{name}-1.h5'), os.path.join(work, f'{name}-mpi2.h5')
        extra = ['--all'] if n == 0 else []
        run([binary, 'search', path, '--quiet', '--threads', '1', '-o', one] + extra)
        run([mpiexec, '-np', '2', binary, 'search', path, '--quiet', '--threads', '1', '-o', two] + extra)
        with h5py.File(one, 'r') as a, h5py.File(two, 'r') as b:
            fa, fb = a['front'][()], b['front'][()]
            if fa.dtype != fb.dtype or fa.tobytes() != fb.tobytes():
                print(f'{name}: /front differs between 1 process and 2 ranks')
                failures += 1
            for key in COUNTS:
                if a.attrs[key] != b.attrs[key]:
                    print(f'{name}: {key} {a.attrs[key]} (1 process) != {b.attrs[key]} (2 ranks)')
                    failures += 1
            if int(b.attrs['ranks']) != 2 or int(a.attrs['ranks']) != 1 or not bool(b.attrs['complete']):
                print(f'{name}: ranks {a.attrs["ranks"]} / {b.attrs["ranks"]}, complete {b.attrs["complete"]}')
                failures += 1
            if extra:
                ia, ib = np.sort(a['all']['index']), np.sort(b['all']['index'])
                if not np.array_equal(ia, ib) or len(ia) != int(a.attrs['feasible']):
                    print(f'{name}: /all holds {len(ib)} candidates on 2 ranks, {len(ia)} on 1 process')
                    failures += 1
                else:
                    # Rank 0 packs its own rows on its workers, the other rank's come as records: every row, in
                    # index order, must be the single process's bytes.
                    ra, rb = a['all'][()], b['all'][()]
                    ra, rb = ra[np.argsort(ra['index'], kind='stable')], rb[np.argsort(rb['index'], kind='stable')]
                    if ra.dtype != rb.dtype or ra.tobytes() != rb.tobytes():
                        print(f'{name}: /all rows differ between 1 process and 2 ranks')
                        failures += 1
        print(f'{name}: {len(fa)} front rows, equal' if not failures else f'{name}: checked')

    path = searches[0]
    anneal = ['--quiet', '--threads', '1', '--method', 'anneal', '--evaluations', '20000', '--seed', '7']
    outs = [os.path.join(work, f'anneal-{k}.h5') for k in ('1', 'mpi2-a', 'mpi2-b')]
    run([binary, 'search', path, '-o', outs[0]] + anneal)
    for out in outs[1:]:
        run([mpiexec, '-np', '2', binary, 'search', path, '-o', out] + anneal)
    with h5py.File(outs[0], 'r') as one, h5py.File(outs[1], 'r') as a, h5py.File(outs[2], 'r') as b:
        if a['front'][()].tobytes() != b['front'][()].tobytes():
            print('anneal on 2 ranks: two runs with the same seed give different fronts')
            failures += 1
        if int(a.attrs['seed']) != 7 or int(a.attrs['ranks']) != 2 or a.attrs['method'] != 'anneal':
            print(f'anneal on 2 ranks: seed {a.attrs["seed"]}, ranks {a.attrs["ranks"]}, method {a.attrs["method"]}')
            failures += 1
        if int(a.attrs['visited']) <= int(one.attrs['visited']):
            print(f'anneal on 2 ranks visited {a.attrs["visited"]}, one process {one.attrs["visited"]}')
            failures += 1
    print('anneal on 2 ranks: deterministic' if not failures else 'anneal: checked')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
