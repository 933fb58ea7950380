#!/usr/bin/env python3
"""Outputs that must not change unless a change means to: `estimate --json` of every shipped scenario and the
`/front` dataset of every shipped search, compared with the files in tests/golden/expected/.

Usage: check_golden.py SHARDMETER SOURCE_DIR WORK_DIR [--update]
  compares (exit 1 and a diff on the first difference per file), or with --update rewrites expected/ (for a
  commit whose message says why the numbers moved).
"""
import difflib
import os
import subprocess
import sys

import h5py
import numpy as np


def scenarios(source):
    top = os.path.join(source, 'scenarios')
    paths = [os.path.join(top, n) for n in sorted(os.listdir(top)) if n.endswith('.yaml')]
    paths += [os.path.join(top, 'nightly', n) for n in sorted(os.listdir(os.path.join(top, 'nightly')))
              if n.endswith('.yaml')]
    # Catalogs are not scenarios.
    return [p for p in paths if os.path.basename(p) not in ('gpus.yaml', 'links.yaml')]


def has_search(path):
    with open(path, encoding='utf-8') as f:
        return any(line.startswith('search:') for line in f)


def front_text(h5_path):
    """Every column of /front with its HDF5 type, then every row; floats as repr (exact round trip)."""
    lines = []
    with h5py.File(h5_path, 'r') as f:
        front = f['front'][()]
        for name in front.dtype.names:
            lines.append(f'column {name} {front.dtype[name].str}')
        for row in front:
            cells = []
            for v in row:
                if isinstance(v, bytes):
                    cells.append(v.decode('utf-8'))
                elif isinstance(v, (float, np.floating)):
                    cells.append(repr(float(v)))
                else:
                    cells.append(str(v))
            lines.append('\t'.join(cells))
    return '\n'.join(lines) + '\n'


def main():
    binary, source, work = sys.argv[1:4]
    update = '--update' in sys.argv[4:]
    expected_dir = os.path.join(source, 'tests', 'golden', 'expected')
    os.makedirs(work, exist_ok=True)
    outputs = {}
    for path in scenarios(source):
        name = os.path.splitext(os.path.basename(path))[0]
        run = subprocess.run([binary, 'estimate', path, '--json'], capture_output=True, text=True)
        if run.returncode != 0:
            print(f'{path}: estimate exited {run.returncode}: {run.stderr.strip()}')
            return 1
        outputs[f'estimate-{name}.json'] = run.stdout
        if has_search(path):
            h5 = os.path.join(work, f'{name}.h5')
            run = subprocess.run([binary, 'search', path, '--quiet', '-o', h5], capture_output=True, text=True)
            if run.returncode != 0:
                print(f'{path}: search exited {run.returncode}: {run.stderr.strip()}')
                return 1
            outputs[f'front-{name}.txt'] = front_text(h5)
    if update:
        os.makedirs(expected_dir, exist_ok=True)
        for old in os.listdir(expected_dir):
            os.remove(os.path.join(expected_dir, old))
        for name, text in outputs.items():
            with open(os.path.join(expected_dir, name), 'w', encoding='utf-8') as f:
                f.write(text)
        print(f'wrote {len(outputs)} files to {expected_dir}')
        return 0
    failed = 0
    expected_names = set(os.listdir(expected_dir)) if os.path.isdir(expected_dir) else set()
    for name in sorted(expected_names - outputs.keys()):
        print(f'{name}: expected, but no shipped scenario produced it')
        failed += 1
    for name, text in outputs.items():
        path = os.path.join(expected_dir, name)
        if name not in expected_names:
            print(f'{name}: new output without an expected file (run with --update)')
            failed += 1
            continue
        with open(path, encoding='utf-8') as f:
            want = f.read()
        if want != text:
            failed += 1
            diff = list(difflib.unified_diff(want.splitlines(), text.splitlines(), 'expected/' + name, 'now', n=1,
                                             lineterm=''))
            print('\n'.join(diff[:40]))
    print(f'{len(outputs)} outputs compared, {failed} differ')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
