#!/usr/bin/env python3
"""Fails when a citation of docs/model.md names a section the document does not have.

Usage: check_model_citations.py SOURCE_DIR, or check_model_citations.py --self-test (checks that planted bad
citations are found). Reads the text files of the source tree (code, scripts, Markdown, YAML, CSV; build folders
and .git skipped), finds every `docs/model.md §N` / `docs/model.md §N.M` citation (several may follow one mention:
`docs/model.md §3.2, §3.4` or `§8.1-§8.4`) and checks that docs/model.md has a heading for each. Also fails on
duplicate section headings in docs/model.md and on citations of the notes file the repository never contained.
Prints one line per problem ("model/x.cpp:12 cites docs/model.md §9.9, which has no heading") and exits 1.
"""
import os
import re
import sys
import tempfile

DOC = os.path.join('docs', 'model.md')
HEADING = re.compile(r'^#{2,4} §(\d+(?:\.\d+)?) ')
MENTION = 'docs/model.md'
SECTION = re.compile(r'§(\d+(?:\.\d+)?)')
# The text after a mention that still belongs to it: up to a closing bracket, a quote, the end of the line or
# the end of a sentence.
MENTION_TAIL = re.compile(r'[^)\]"\n]*?(?=[)\]"\n]|\. |$)')
GONE = 'MODEL_NOTES'
TEXT_SUFFIXES = ('.cpp', '.hpp', '.h', '.py', '.md', '.yaml', '.yml', '.csv', '.txt', '.cmake', '.toml')
SKIP_DIRS = ('.git',)


def headings(doc_text):
    found, problems = set(), []
    for number, line in enumerate(doc_text.splitlines(), 1):
        m = HEADING.match(line)
        if not m:
            continue
        if m.group(1) in found:
            problems.append(f'{DOC}:{number} repeats section §{m.group(1)}')
        found.add(m.group(1))
    return found, problems


def text_files(root):
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith('build'))
        for name in sorted(files):
            if name.endswith(TEXT_SUFFIXES) or name in ('CMakeLists.txt', 'Makefile'):
                yield os.path.join(folder, name)


def check(root):
    with open(os.path.join(root, DOC), encoding='utf-8') as f:
        sections, problems = headings(f.read())
    for path in text_files(root):
        rel = os.path.relpath(path, root)
        if os.path.abspath(path) == os.path.abspath(__file__):
            continue  # its own examples
        try:
            with open(path, encoding='utf-8') as f:
                lines = f.read().splitlines()
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(lines, 1):
            if GONE in line:
                problems.append(f'{rel}:{number} cites {GONE}, which is not in the repository (cite {MENTION})')
            start = line.find(MENTION)
            while start >= 0:
                tail = MENTION_TAIL.match(line, start + len(MENTION)).group(0)
                for section in SECTION.findall(tail):
                    if section not in sections:
                        problems.append(f'{rel}:{number} cites {MENTION} §{section}, which has no heading')
                start = line.find(MENTION, start + len(MENTION))
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, 'docs'))
        os.makedirs(os.path.join(root, 'model'))
        with open(os.path.join(root, DOC), 'w', encoding='utf-8') as f:
            f.write('# t\n## §1 One\n### §1.1 A\n### §1.2 B\n### §1.2 Again\n')
        with open(os.path.join(root, 'model', 'x.cpp'), 'w', encoding='utf-8') as f:
            f.write('// good (docs/model.md §1.1, §1.2)\n// bad (docs/model.md §1.1-§1.3)\n'
                    f'// gone [{GONE} §3]\n')
        problems = check(root)
    expected = [f'{DOC}:5 repeats section §1.2',
                'model/x.cpp:2 cites docs/model.md §1.3, which has no heading',
                f'model/x.cpp:3 cites {GONE}, which is not in the repository (cite {MENTION})']
    if problems != expected:
        print('self-test: expected', expected, 'got', problems)
        return 1
    return 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2])
        return 2
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
