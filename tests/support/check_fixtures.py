#!/usr/bin/env python3
"""Fails when a fixture of tests/support/ is defined a second time anywhere under tests/.

Usage: check_fixtures.py TESTS_DIR, or check_fixtures.py --self-test (a planted second definition must be found).

tests/support/ holds the only hand-built specs (test::h100_sxm(), test::a100_80gb(), ...). Two inline definitions
of one name with different bodies are an ODR violation: the linker keeps one of them, so in an unoptimised build one
set of tests silently runs with the other set's numbers. A file-local copy is not an ODR violation but has the same
effect on the reader (two sets of figures under one name), so it is refused too. A definition is a line at
namespace scope (column 0) that declares a function and opens its body: `[inline] TYPE NAME(...) {`.
"""
import os
import re
import sys

DEFINITION = re.compile(r'^(?:inline\s+|static\s+|constexpr\s+)*[A-Za-z_][\w:<>,]*[\s&*]+([A-Za-z_]\w*)\s*\(([^;]*)$')


def definitions(path):
    """(name, line number) of each function defined at column 0 in a C++ file."""
    found = []
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    for number, line in enumerate(lines, 1):
        m = DEFINITION.match(line)
        if not m or line.startswith(('return', 'using', 'namespace', 'TEST_CASE', 'else')):
            continue
        # The body opens on this line or on the next non-blank one (a signature split over lines).
        tail = line
        k = number
        while '{' not in tail and ';' not in tail and k < len(lines) and k < number + 4:
            tail += lines[k]
            k += 1
        if '{' in tail and tail.find('{') < (tail.find(';') if ';' in tail else len(tail)):
            found.append((m.group(1), number))
    return found


def check(tests_dir):
    support = os.path.join(tests_dir, 'support')
    where = {}
    for dirpath, dirnames, names in os.walk(tests_dir):
        dirnames.sort()
        for name in sorted(names):
            if name.endswith(('.hpp', '.cpp', '.h')):
                path = os.path.join(dirpath, name)
                for fn, number in definitions(path):
                    where.setdefault(fn, []).append(f'{os.path.relpath(path, tests_dir)}:{number}')
    for places in where.values():
        places.sort()
    fixtures = set()
    for name in sorted(os.listdir(support)):
        if name.endswith('.hpp'):
            fixtures.update(fn for fn, _ in definitions(os.path.join(support, name)))
    problems = []
    for fn in sorted(fixtures):
        if len(where[fn]) > 1:
            problems.append(f'fixture {fn}() is defined {len(where[fn])} times: {", ".join(where[fn])} '
                            f'(tests/support/ holds the only definition; include it instead)')
    return fixtures, problems


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        files = {
            'support/specs.hpp': 'namespace t {\ninline GpuSpec h100_sxm() {\n  return {};\n}\n'
                                 'inline model::Scenario base(int gpus,\n                            int tp) {\n}\n}\n',
            'search_support.hpp': 'inline m::GpuSpec h100_sxm() {\n  return {};\n}\n',
            'test_a.cpp': 'namespace {\nmodel::Scenario base(int gpus, int tp)\n{\n}\n}\n'
                          'double use() { return h100_sxm().peak; }\nGpuSpec h100_sxm();\n',
            'test_b.cpp': 'static GpuSpec other() {\n  return h100_sxm();\n}\n',
        }
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), 'w', encoding='utf-8') as f:
                f.write(text)
        fixtures, problems = check(root)
        expected = [
            'fixture base() is defined 2 times: support/specs.hpp:5, test_a.cpp:2 (tests/support/ holds the only '
            'definition; include it instead)',
            'fixture h100_sxm() is defined 2 times: search_support.hpp:1, support/specs.hpp:2 (tests/support/ holds '
            'the only definition; include it instead)']
        if fixtures != {'h100_sxm', 'base'} or problems != expected:
            print('self-test failed:', sorted(fixtures), problems)
            return 1
    print('self-test passed: a planted second definition of a fixture is reported')
    return 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    fixtures, problems = check(sys.argv[1])
    for p in problems:
        print(p)
    print(f'{len(fixtures)} fixtures in tests/support/, {len(problems)} defined more than once')
    return 1 if problems or not fixtures else 0


if __name__ == '__main__':
    sys.exit(main())
