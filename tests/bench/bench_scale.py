#!/usr/bin/env python3
"""Scale benchmark (docs/scale.md): the same exhaustive search of tests/bench/scale_space.yaml (116 M candidates)
on one process and on 2 MPI ranks, one thread each, and optionally with --all. Prints wall time, throughput per
rank and the parallel efficiency T(1) / (N x T(N)). Run on an idle machine: other load skews it.

Usage: bench_scale.py SHARDMETER [--all] [--threads T] [--ranks N]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import h5py

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, 'scale_space.yaml')


def run(cmd, out):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1',
               OMPI_MCA_rmaps_base_oversubscribe='1')
    start = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    wall = time.monotonic() - start
    with h5py.File(out, 'r') as f:
        return wall, float(f.attrs['elapsed_s']), int(f.attrs['visited']), f['front'][()].tobytes()


def main():
    p = argparse.ArgumentParser()
    p.add_argument('shardmeter')
    p.add_argument('--all', action='store_true', help='also write /all (every feasible candidate)')
    p.add_argument('--threads', type=int, default=1, help='threads per rank')
    p.add_argument('--ranks', type=int, default=2)
    p.add_argument('--mpiexec', default='mpiexec')
    a = p.parse_args()
    extra = ['--all'] if a.all else []
    base = [a.shardmeter, 'search', SCENARIO, '--quiet', '--method', 'exhaustive', '--threads', str(a.threads)]
    print(f'load average before: {os.getloadavg()[0]:.2f}')
    with tempfile.TemporaryDirectory() as tmp:
        one = os.path.join(tmp, 'one.h5')
        w1, e1, visited, front1 = run(base + ['-o', one] + extra, one)
        many = os.path.join(tmp, 'many.h5')
        wn, en, visited_n, front_n = run([a.mpiexec, '-np', str(a.ranks)] + base + ['-o', many] + extra, many)
    assert visited == visited_n, (visited, visited_n)
    assert front1 == front_n, 'the fronts differ'
    print(f'space: {visited:,} candidates; --all: {a.all}; {a.threads} thread(s) per rank')
    print(f'1 process : search {e1:7.2f} s, wall {w1:7.2f} s, {visited / e1 / 1e6:6.2f} M candidates/s')
    print(f'{a.ranks} ranks   : search {en:7.2f} s, wall {wn:7.2f} s, {visited / en / 1e6:6.2f} M candidates/s, '
          f'{visited / en / a.ranks / 1e6:6.2f} M/s per rank')
    print(f'speed-up {e1 / en:.2f}x, parallel efficiency {e1 / (a.ranks * en) * 100:.0f} % (search time); '
          f'{w1 / (a.ranks * wn) * 100:.0f} % (wall, launcher included)')
    print(f'load average after: {os.getloadavg()[0]:.2f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
