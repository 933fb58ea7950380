#!/usr/bin/env python3
"""How a 2-rank `mpirun ... shardmeter search` ends when it is told to stop or a rank dies (docs/scale.md):
 - SIGTERM to the launcher (what Slurm's scancel or a time limit sends): the front found so far is written with
   complete = false, and the launcher exits non-zero;
 - rank 1 killed (SIGKILL, as by the OOM killer): the launcher exits non-zero naming rank 1, and no file is left
   under the output name (rank 0 was writing /all into a temporary file);
 - bad input (every rank sees it): status 2, the located message once, no file.

Usage: check_mpi_failures.py SHARDMETER MPIEXEC SCENARIO WORK_DIR
SCENARIO must be large enough that a search runs for many seconds (tests/bench/scale_islands4.yaml: ~35 s on
2 ranks); each run is ended after a few.
"""
import os
import signal
import subprocess
import sys
import time

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_mpi_search import mpi_env  # noqa: E402

STARTUP_S = 3   # ranks loaded the scenario and are searching


def children(pid):
    """PIDs whose parent is `pid` (mpirun starts the ranks of a single-node run itself)."""
    out = []
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                with open(f'/proc/{entry}/stat') as f:
                    fields = f.read().rsplit(')', 1)[1].split()
                if int(fields[1]) == pid:
                    out.append(int(entry))
            except OSError:
                pass
    return sorted(out)


def rank_pid(launcher_pid, rank):
    for pid in children(launcher_pid):
        try:
            with open(f'/proc/{pid}/environ', 'rb') as f:
                env = dict(kv.split(b'=', 1) for kv in f.read().split(b'\0') if b'=' in kv)
        except OSError:
            continue
        if env.get(b'OMPI_COMM_WORLD_RANK') == str(rank).encode():
            return pid
    return None


def start(binary, mpiexec, scenario, out, extra):
    cmd = [mpiexec, '-np', '2', binary, 'search', scenario, '--quiet', '--threads', '1', '--method', 'exhaustive',
           '-o', out] + extra
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=mpi_env())


def main():
    binary, mpiexec, scenario, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    failures = []

    out = os.path.join(work, 'terminated.h5')
    if os.path.exists(out):
        os.remove(out)
    p = start(binary, mpiexec, scenario, out, [])
    time.sleep(STARTUP_S)
    p.send_signal(signal.SIGTERM)
    stdout, stderr = p.communicate(timeout=120)
    if p.returncode == 0:
        failures.append('SIGTERM: the launcher exited 0')
    if not os.path.exists(out):
        failures.append(f'SIGTERM: no {out}; stderr: {stderr[-1000:]}')
    else:
        with h5py.File(out, 'r') as f:
            if bool(f.attrs['complete']) or int(f.attrs['ranks']) != 2:
                failures.append(f'SIGTERM: complete = {f.attrs["complete"]}, ranks = {f.attrs["ranks"]}')
            if int(f.attrs['visited']) >= int(f.attrs['space_size']):
                failures.append('SIGTERM: the search finished before the signal (use a larger space)')

    out = os.path.join(work, 'rank_died.h5')
    for name in os.listdir(work):
        if name.startswith('rank_died.h5'):
            os.remove(os.path.join(work, name))
    p = start(binary, mpiexec, scenario, out, ['--all'])
    time.sleep(STARTUP_S)
    victim = rank_pid(p.pid, 1)
    if victim is None:
        p.kill()
        failures.append('could not find rank 1')
    else:
        os.kill(victim, signal.SIGKILL)
    stdout, stderr = p.communicate(timeout=120)
    if p.returncode == 0:
        failures.append('rank died: the launcher exited 0')
    if 'rank 1' not in stderr:
        failures.append(f'rank died: stderr does not name rank 1: {stderr[-1000:]}')
    if os.path.exists(out):
        failures.append(f'rank died: {out} exists')

    out = os.path.join(work, 'bad_input.h5')
    run = subprocess.run([mpiexec, '-np', '2', binary, 'search', scenario, '--quiet', '--set', 'plan.tp=3x', '-o', out],
                         capture_output=True, text=True, env=mpi_env(), timeout=120)
    message = 'plan.tp = 3x is not an integer'
    if run.returncode != 2 or run.stderr.count(message) != 1 or os.path.exists(out):
        failures.append(f'bad input: exit {run.returncode}, message {run.stderr.count(message)} times, '
                        f'file {os.path.exists(out)}: {run.stderr[-1000:]}')

    for f in failures:
        print(f)
    if not failures:
        print('SIGTERM: partial front, complete = false; a dead rank: the job failed, no file; bad input: status 2')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
