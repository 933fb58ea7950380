#!/usr/bin/env python3
"""Outputs that must not change unless a change means to: `estimate --json` of every shipped scenario, the
`/front` dataset of every shipped search and `export --pick knee` of that front in every format (the artefact, or
the refusal, and the notes), compared with the files in tests/golden/expected/.

Usage: check_golden.py SHARDMETER SOURCE_DIR WORK_DIR [--update] [--tolerance REL]
       check_golden.py --self-test
  compares, or with --update rewrites expected/ (for a commit whose message says why the numbers moved).

Tolerance: byte for byte by default (REL = 0). With --tolerance REL a number whose relative move |new-old|/|old| is
at most REL passes; text, rows joining or leaving a front, and columns or fields appearing or vanishing never do.
The tolerance in force is printed on every run.

When an output differs, a per-field summary says what moved and by how much: for `estimate --json`, each field's
old and new value and relative move; for a front, rows that joined or left it (matched by its `index` column) and,
per column, how many of the common rows changed and the largest absolute and relative move. The first lines of a
plain diff follow.
"""
import difflib
import json
import math
import os
import subprocess
import sys

import re

import h5py
import numpy as np

EXPORT_FORMATS = ['plan-json', 'torchtitan', 'torchtitan-py', 'megatron', 'deepspeed', 'torchrun']


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


def export_text(binary, h5_path):
    """`export --pick knee` in every format: each section the status, stdout and stderr, with the front's path and
    the file's creation time (which differ run to run) replaced by placeholders."""
    sections = []
    for fmt in EXPORT_FORMATS:
        run = subprocess.run([binary, 'export', h5_path, '--format', fmt, '--pick', 'knee'], capture_output=True,
                             text=True)
        text = f'== {fmt} (exit {run.returncode})\n{run.stdout}-- stderr\n{run.stderr}'
        text = text.replace(h5_path, 'FRONT.h5')
        text = re.sub(r'"created": "[^"]*"', '"created": "CREATED"', text)
        sections.append(text)
    return ''.join(sections)


def summarise_export(want, got):
    """(lines, True): the formats whose section differs and by how many lines; text never moves within a tolerance."""
    def sections(text):
        out, name = {}, None
        for line in text.splitlines():
            if line.startswith('== '):
                name = line.split(' ')[1]
                out[name] = []
            elif name is not None:
                out[name].append(line)
        return out
    a, b = sections(want), sections(got)
    lines = []
    for name in sorted(a.keys() | b.keys()):
        x, y = a.get(name, []), b.get(name, [])
        if x != y:
            diff = list(difflib.unified_diff(x, y, n=0, lineterm=''))[2:]   # without the two header lines
            changed = sum(1 for d in diff if d[:1] in '+-')
            lines.append(f'  {name}: {changed} lines differ')
    return lines, True


def relative_move(old, new):
    if old == new:
        return 0.0
    if isinstance(old, float) and isinstance(new, float) and math.isnan(old) and math.isnan(new):
        return 0.0
    scale = abs(old)
    return math.inf if scale == 0 else abs(new - old) / scale


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def flatten(value, prefix=''):
    """JSON value -> {dotted path: leaf}."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            out.update(flatten(v, f'{prefix}.{k}' if prefix else k))
        return out
    if isinstance(value, list):
        out = {}
        for i, v in enumerate(value):
            out.update(flatten(v, f'{prefix}[{i}]'))
        return out
    return {prefix: value}


def summarise_estimate(want, got, tolerance):
    """(summary lines, whether a difference exceeds the tolerance) for two `estimate --json` texts."""
    try:
        old, new = flatten(json.loads(want)), flatten(json.loads(got))
    except ValueError as e:
        return [f'  not JSON: {e}'], True
    lines, failing = [], False
    for key in sorted(old.keys() - new.keys()):
        lines.append(f'  {key}: vanished (was {old[key]!r})')
        failing = True
    for key in sorted(new.keys() - old.keys()):
        lines.append(f'  {key}: new field ({new[key]!r})')
        failing = True
    for key in sorted(old.keys() & new.keys()):
        a, b = old[key], new[key]
        if a == b and type(a) == type(b):
            continue
        if is_number(a) and is_number(b):
            move = relative_move(float(a), float(b))
            within = move <= tolerance
            failing |= not within
            lines.append(f'  {key}: {a!r} -> {b!r} ({move:+.3g} relative{", within tolerance" if within else ""})'
                         if math.isfinite(move) else f'  {key}: {a!r} -> {b!r}')
        else:
            lines.append(f'  {key}: {a!r} -> {b!r}')
            failing = True
    return lines, failing


def parse_front(text):
    """front_text() output -> (column names, {index: row cells as strings})."""
    columns, rows = [], {}
    for line in text.splitlines():
        if line.startswith('column '):
            columns.append(' '.join(line.split(' ')[1:]))
        elif line:
            cells = line.split('\t')
            rows[cells[0]] = cells
    return columns, rows


def as_number(cell):
    try:
        return float(cell)
    except ValueError:
        return None


def summarise_front(want, got, tolerance):
    """(summary lines, whether a difference exceeds the tolerance) for two front_text() texts."""
    old_columns, old_rows = parse_front(want)
    new_columns, new_rows = parse_front(got)
    lines, failing = [], False
    if old_columns != new_columns:
        gone = [c for c in old_columns if c not in new_columns]
        added = [c for c in new_columns if c not in old_columns]
        lines.append(f'  columns changed: {len(gone)} gone {gone[:6]}, {len(added)} new {added[:6]}'
                     + ('' if gone or added else ' (order or type)'))
        return lines, True
    left = sorted(old_rows.keys() - new_rows.keys(), key=int)
    joined = sorted(new_rows.keys() - old_rows.keys(), key=int)
    if left:
        lines.append(f'  {len(left)} rows left the front (index {", ".join(left[:8])}{" ..." if len(left) > 8 else ""})')
    if joined:
        lines.append(f'  {len(joined)} rows joined the front (index {", ".join(joined[:8])}'
                     f'{" ..." if len(joined) > 8 else ""})')
    failing = bool(left or joined)
    common = sorted(old_rows.keys() & new_rows.keys(), key=int)
    for c, column in enumerate(old_columns):
        name = column.split(' ')[0]
        changed, max_abs, max_rel, example = 0, 0.0, 0.0, None
        for index in common:
            a, b = old_rows[index][c], new_rows[index][c]
            if a == b:
                continue
            changed += 1
            x, y = as_number(a), as_number(b)
            if x is None or y is None:
                failing = True
                example = example or f'{a} -> {b}'
                continue
            move = relative_move(x, y)
            max_abs, max_rel = max(max_abs, abs(y - x)), max(max_rel, move)
            failing |= move > tolerance
        if changed:
            detail = (f'e.g. {example}' if example else
                      f'largest move {max_abs:.6g} absolute, {max_rel:.3g} relative'
                      + (', within tolerance' if max_rel <= tolerance else ''))
            lines.append(f'  {name}: {changed} of {len(common)} rows changed, {detail}')
    return lines, failing


def compare(name, want, got, tolerance):
    """(summary lines, fails) for one output; the summary is empty when the texts are byte-identical."""
    if want == got:
        return [], False
    if name.startswith('export-'):
        summary, failing = summarise_export(want, got)
    else:
        summary, failing = (summarise_front if name.startswith('front-') else summarise_estimate)(want, got,
                                                                                                  tolerance)
    if not summary:
        summary = ['  the text differs, no field does (formatting)']
        failing = True
    return [f'{name}: {"differs" if failing else "moved within tolerance"}'] + summary, failing


def self_test():
    """Planted moves in an estimate and a front must be summarised field by field, and judged by the tolerance."""
    want = json.dumps({'step_time_s': 2.0, 'feasible': True, 'memory': {'peak_bytes': 100}, 'bottleneck': 'compute'})
    got = json.dumps({'step_time_s': 2.2, 'feasible': True, 'memory': {'peak_bytes': 100}, 'bottleneck': 'memory'})
    lines, failing = compare('estimate-x.json', want, got, 0.0)
    expected = ['estimate-x.json: differs', "  bottleneck: 'compute' -> 'memory'",
                '  step_time_s: 2.0 -> 2.2 (+0.1 relative)']
    errors = [] if (lines, failing) == (expected, True) else [f'estimate summary: {lines}']
    near = json.dumps({'step_time_s': 2.0 * (1 + 1e-12)})
    lines, failing = compare('estimate-x.json', json.dumps({'step_time_s': 2.0}), near, 1e-9)
    if failing or 'within tolerance' not in lines[1]:
        errors.append(f'a move inside the tolerance failed: {lines}')
    if not compare('estimate-x.json', json.dumps({'step_time_s': 2.0}), near, 0.0)[1]:
        errors.append('a move with tolerance 0 passed')
    front = 'column index <u8\ncolumn tp <i8\ncolumn step_time_s <f8\ncolumn sharding |S32\n'
    want = front + '1\t8\t2.0\tfsdp\n5\t4\t3.0\tzero1\n9\t2\t4.0\tnone\n'
    got = front + '1\t8\t2.5\tfsdp\n5\t4\t3.0\tzero2\n12\t1\t5.0\tnone\n'
    lines, failing = compare('front-x.txt', want, got, 0.0)
    expected = ['front-x.txt: differs', '  1 rows left the front (index 9)', '  1 rows joined the front (index 12)',
                '  step_time_s: 1 of 2 rows changed, largest move 0.5 absolute, 0.25 relative',
                '  sharding: 1 of 2 rows changed, e.g. zero1 -> zero2']
    if (lines, failing) != (expected, True):
        errors.append(f'front summary: {lines}')
    if compare('front-x.txt', want, want, 0.0) != ([], False):
        errors.append('identical fronts reported as different')
    exported = '== megatron (exit 0)\n--bf16\n-- stderr\n== deepspeed (exit 2)\n-- stderr\nrefused\n'
    lines, failing = compare('export-x.txt', exported, exported.replace('--bf16', '--fp16'), 0.5)
    if (lines, failing) != (['export-x.txt: differs', '  megatron: 2 lines differ'], True):
        errors.append(f'export summary: {lines}')
    for e in errors:
        print('self-test failed:', e)
    if not errors:
        print('self-test passed: planted moves are summarised per field and judged by the tolerance')
    return 1 if errors else 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    binary, source, work = sys.argv[1:4]
    update = '--update' in sys.argv[4:]
    tolerance = float(sys.argv[sys.argv.index('--tolerance') + 1]) if '--tolerance' in sys.argv else 0.0
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
            outputs[f'export-{name}.txt'] = export_text(binary, h5)
    if update:
        os.makedirs(expected_dir, exist_ok=True)
        for old in os.listdir(expected_dir):
            os.remove(os.path.join(expected_dir, old))
        for name, text in outputs.items():
            with open(os.path.join(expected_dir, name), 'w', encoding='utf-8') as f:
                f.write(text)
        print(f'wrote {len(outputs)} files to {expected_dir}')
        return 0
    print('tolerance: ' + ('0 (byte for byte)' if tolerance == 0 else f'{tolerance:g} relative on numbers'))
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
        summary, failing = compare(name, want, text, tolerance)
        if summary:
            print('\n'.join(summary))
        if failing:
            failed += 1
            diff = list(difflib.unified_diff(want.splitlines(), text.splitlines(), 'expected/' + name, 'now', n=0,
                                             lineterm=''))
            print('\n'.join(diff[:12]))
    print(f'{len(outputs)} outputs compared, {failed} differ')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
