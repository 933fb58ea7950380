#!/usr/bin/env python3
"""Scale benchmark (docs/scale.md): the same exhaustive search of tests/bench/scale_space.yaml (116 M candidates)
on one process and on 2 MPI ranks, one thread each, and optionally with --all. Prints wall time, throughput per
rank and the parallel efficiency T(1) / (N x T(N)). Run on an idle machine: other load skews it.

With --islands4, the space is tests/bench/scale_islands4.yaml (four heterogeneous islands, 95.6 M candidates,
too slow to enumerate in CI) and each run stops at --time-limit seconds: the rate is visited / elapsed over the
first blocks of the index order (the fronts then differ and are not compared).

Usage: bench_scale.py SHARDMETER [--all] [--threads T] [--ranks N] [--islands4 [--time-limit S]]
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import h5py

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, 'scale_space.yaml')
ISLANDS4 = os.path.join(HERE, 'scale_islands4.yaml')


def run(cmd, out):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1',
               OMPI_MCA_rmaps_base_oversubscribe='1')
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime   # every rank and the launcher
    with h5py.File(out, 'r') as f:
        return wall, float(f.attrs['elapsed_s']), int(f.attrs['visited']), f['front'][()].tobytes(), cpu


def main():
    p = argparse.ArgumentParser()
    p.add_argument('shardmeter')
    p.add_argument('--all', action='store_true', help='also write /all (every feasible candidate)')
    p.add_argument('--threads', type=int, default=1, help='threads per rank')
    p.add_argument('--ranks', type=int, default=2)
    p.add_argument('--mpiexec', default='mpiexec')
    p.add_argument('--islands4', action='store_true', help='the four-island space, time-limited')
    p.add_argument('--time-limit', type=float, default=15)
    a = p.parse_args()
    extra = ['--all'] if a.all else []
    if a.islands4:
        extra += ['--time-limit', str(a.time_limit)]
    base = [a.shardmeter, 'search', ISLANDS4 if a.islands4 else SCENARIO, '--quiet', '--method', 'exhaustive',
            '--threads', str(a.threads)]
    print(f'load average before: {os.getloadavg()[0]:.2f}')
    with tempfile.TemporaryDirectory() as tmp:
        one = os.path.join(tmp, 'one.h5')
        w1, e1, visited, front1, c1 = run(base + ['-o', one] + extra, one)
        many = os.path.join(tmp, 'many.h5')
        wn, en, visited_n, front_n, cn = run([a.mpiexec, '-np', str(a.ranks)] + base + ['-o', many] + extra, many)
    if not a.islands4:
        assert visited == visited_n, (visited, visited_n)
        assert front1 == front_n, 'the fronts differ'
    print(f'visited: {visited:,} (1 process), {visited_n:,} ({a.ranks} ranks); --all: {a.all}; '
          f'{a.threads} thread(s) per rank')
    print(f'1 process : search {e1:7.2f} s, wall {w1:7.2f} s, {visited / e1 / 1e6:6.2f} M candidates/s, '
          f'CPU {c1:7.2f} s: {visited / c1 / 1e6:6.2f} M candidates per CPU-second')
    print(f'{a.ranks} ranks   : search {en:7.2f} s, wall {wn:7.2f} s, {visited_n / en / 1e6:6.2f} M candidates/s, '
          f'{visited_n / en / a.ranks / 1e6:6.2f} M/s per rank, CPU {cn:7.2f} s: '
          f'{visited_n / cn / 1e6:6.2f} M candidates per CPU-second')
    r1, rn = visited / e1, visited_n / en
    print(f'speed-up {rn / r1:.2f}x, parallel efficiency {rn / (a.ranks * r1) * 100:.0f} % (rates over search time); '
          f'work efficiency {(visited_n / cn) / (visited / c1) * 100:.0f} % (candidates per CPU-second, which other '
          f'load on the machine does not skew)')
    print(f'load average after: {os.getloadavg()[0]:.2f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
