#!/usr/bin/env python3
"""Fails when a ctest test has none of the suite's labels (tests/README.md), so `ctest -L unit` and the others
select every test between them.

Usage: check_labels.py CTEST BUILD_DIR
"""
import re
import subprocess
import sys

LABELS = ('unit', 'e2e', 'slow', 'mpi', 'browser')


def main():
    ctest, build = sys.argv[1:3]
    run = subprocess.run([ctest, '-N', '-LE', '^(' + '|'.join(LABELS) + ')$'], cwd=build, capture_output=True,
                         text=True)
    total = re.search(r'Total Tests: (\d+)', run.stdout)
    if run.returncode != 0 or total is None:
        print('ctest -N failed:', run.stdout[-2000:], run.stderr[-2000:])
        return 1
    unlabelled = re.findall(r'Test\s+#\d+: (.+)', run.stdout)
    for name in unlabelled:
        print(f'{name}: no label of {", ".join(LABELS)} (tests/CMakeLists.txt)')
    everything = subprocess.run([ctest, '-N'], cwd=build, capture_output=True, text=True).stdout
    all_total = re.search(r'Total Tests: (\d+)', everything)
    print(f'{all_total.group(1) if all_total else "?"} tests, {total.group(1)} without a label')
    return 1 if int(total.group(1)) else 0


if __name__ == '__main__':
    sys.exit(main())
