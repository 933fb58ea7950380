#!/usr/bin/env python3
"""Exporters and reports read plans as typed values (results/front/row_decoder.hpp), never as enum spellings.

Usage: check_enum_strings.py SOURCE_DIR      fails (exit 1) on any violation, naming file and line
       check_enum_strings.py --self-test     checks that planted violations are found and clean lines are not

A violation, in results/export/, results/report/, results/front/plan_labels.* and the CLI's export and report
commands (comments skipped):
  - a string literal compared (== / !=) with an expression, where the literal is a spelling of a model enum
    (every name of model/spec/enum_names.hpp): `sharding == "zero3"`, `"fsdp" != s`;
  - any string literal compared with a field named like an enum-valued plan column (`sharding == "`, `.sync != "`);
  - a row's enum column read as text: `text(row, "sharding")`.
A new enum value then reaches every exporter as an enum, and a `switch` without it warns (-Wswitch).
"""
import os
import re
import sys

SCANNED = ['results/export', 'results/report', 'results/front/plan_labels.cpp', 'results/front/plan_labels.hpp',
           'src/cli/command_export.cpp', 'src/cli/command_report.cpp']

ENUM_FIELDS = ['sharding', 'recompute', 'sync', 'precision', 'attention', 'stack', 'ep_dispatcher', 'moe_recompute',
               'pipeline_schedule', 'ffn_type', 'norm', 'position_embedding', 'router', 'bottleneck', 'reject_reason',
               'optimizer', 'batch_split', 'fast_islands', 'fp8_recipe']


def spellings(source):
    with open(os.path.join(source, 'model/spec/enum_names.hpp'), encoding='utf-8') as f:
        text = f.read()
    return set(re.findall(r'\{"([^"]+)",\s*\w+::\w+\}', text))


def patterns(names):
    alternation = '|'.join(sorted((re.escape(n) for n in names), key=len, reverse=True))
    fields = '|'.join(ENUM_FIELDS)
    return [
        (re.compile(r'(==|!=)\s*"(' + alternation + r')"'), 'compares with the enum spelling'),
        (re.compile(r'"(' + alternation + r')"\s*(==|!=)'), 'compares with the enum spelling'),
        (re.compile(r'\b(' + fields + r')\b\s*(\(\))?\s*(==|!=)\s*"'), 'compares an enum-valued field with a string'),
        (re.compile(r'\btext\(\s*\w+\s*,\s*"(' + fields + r')"'), 'reads an enum column as text'),
    ]


def code_of(line):
    """The line without its // comment (string literals holding // are rare enough here to ignore)."""
    at = line.find('//')
    return line if at < 0 else line[:at]


def scan_text(text, checks):
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        code = code_of(line)
        for pattern, what in checks:
            if pattern.search(code):
                found.append((number, what, line.strip()))
                break
    return found


def files(source):
    for entry in SCANNED:
        path = os.path.join(source, entry)
        if os.path.isdir(path):
            for name in sorted(os.listdir(path)):
                if name.endswith(('.cpp', '.hpp')):
                    yield os.path.join(path, name)
        elif os.path.exists(path):
            yield path


def self_test():
    checks = patterns({'zero3', 'fsdp', 'diloco', 'full', 'fp8'})
    bad = ['if (p.sharding == "zero3") x();', 'return "fsdp" != s;', 'if (plan.sync != "whatever") y();',
           'const auto& s = text(row, "recompute");', 'bool f = p.precision() == "fp8";']
    good = ['if (p.plan().sharding == model::Sharding::fsdp) x();', '// sharding == "zero3" in a comment',
            'if (ac.option == "op") t += "x";', 'throw ExportError(f, "sharding zero1 (optimizer-state-only)");',
            'if (gpu == "b200") z();']
    ok = True
    for line in bad:
        if not scan_text(line, checks):
            print(f'self-test: missed a violation: {line}')
            ok = False
    for line in good:
        if scan_text(line, checks):
            print(f'self-test: flagged a clean line: {line}')
            ok = False
    print('self-test ' + ('passed' if ok else 'FAILED'))
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    source = sys.argv[1]
    names = spellings(source)
    if len(names) < 20:
        print(f'found only {len(names)} enum spellings in model/spec/enum_names.hpp: the pattern is out of date')
        return 1
    checks = patterns(names)
    violations = 0
    scanned = 0
    for path in files(source):
        scanned += 1
        with open(path, encoding='utf-8') as f:
            for number, what, line in scan_text(f.read(), checks):
                print(f'{os.path.relpath(path, source)}:{number}: {what}: {line}')
                violations += 1
    print(f'{scanned} files scanned against {len(names)} enum spellings: {violations} violation(s)')
    return 1 if violations else 0


if __name__ == '__main__':
    sys.exit(main())
