#!/usr/bin/env python3
"""Fails when a function in model/ or search/ is longer than 80 lines (docs/architecture.md, "Function length").

Usage: check_function_length.py SOURCE_DIR [--limit N], or --self-test (checks that planted functions are measured). A function's length runs from the first
line of its signature to its closing brace, comments and blank lines included. Functions are found with a small
C++ scanner: strings, character literals and comments are skipped; a `{` opens a function body when every
enclosing block is a namespace, class, struct, union or `extern "C"` block and the text before it (back to the
previous `;`, `{` or `}`) holds a parameter list and is not a namespace, class, struct, enum or union head or a
brace initialiser. Lambdas and local classes count toward the function that holds them. Prints one line per long
function ("model/x.cpp:12 evaluate_fresh: 148 lines (limit 80)") and exits 1.
"""
import os
import re
import sys

FOLDERS = ('model', 'search')
LIMIT = 80
SCOPE_HEAD = re.compile(r'^(?:template\s*<[^{]*>\s*)?(?:namespace|class|struct|union|enum)\b|^extern\s+"C"')
NAME = re.compile(r'([~\w:]+(?:operator\s*[^\s(]+)?)\s*\(')


def strip(text):
    """The text with comments, strings and character literals blanked (newlines kept, so line numbers hold)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(''.join(ch if ch == '\n' else ' ' for ch in text[i:j])); i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if m:
                end = text.find(')' + m.group(1) + '"', i)
                j = n if end < 0 else end + len(m.group(1)) + 2
                out.append(''.join(ch if ch == '\n' else ' ' for ch in text[i:j])); i = j
            else:
                out.append(c); i += 1
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            if c == "'" and j - i > 3 and text[i - 1:i].isalnum():  # digit separator 1'000
                out.append(c); i += 1; continue
            out.append(c + ' ' * (min(j, n - 1) - i - 1) + c); i = j + 1
        else:
            out.append(c); i += 1
    return ''.join(out)


def functions(text):
    """(name, first line, last line) of every function body at namespace or class scope."""
    s = strip(text)
    found, stack, head_start = [], [], 0  # stack: (kind, start line, name)
    line = 1
    for i, c in enumerate(s):
        if c == '\n':
            line += 1
        if c == ';':
            head_start = i + 1
        elif c == '{':
            head = s[head_start:i].strip()
            in_scope = all(k == 'scope' for k, _, _ in stack)
            if not in_scope:
                stack.append(('inner', 0, ''))
            elif SCOPE_HEAD.match(re.sub(r'^\s*(?:\[\[[^\]]*\]\]\s*)*', '', head)) or '(' not in head or \
                    head.endswith('='):
                stack.append(('scope' if '(' not in head or SCOPE_HEAD.match(head) else 'inner', 0, ''))
            else:
                first = line - s[head_start:i].lstrip().count('\n')  # the signature's first line
                paren = head.find('(')
                m = NAME.search(head[:paren + 1]) if paren >= 0 else None
                stack.append(('function', first, m.group(1) if m else '?'))
            head_start = i + 1
        elif c == '}':
            if stack:
                kind, first, name = stack.pop()
                if kind == 'function':
                    found.append((name, first, line))
            head_start = i + 1
    return found


def check(root, limit=LIMIT):
    long = []
    for top in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if not name.endswith(('.hpp', '.cpp')):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), root)
                with open(os.path.join(root, path), encoding='utf-8') as f:
                    text = f.read()
                for fn, first, last in functions(text):
                    if last - first + 1 > limit:
                        long.append((path, first, fn, last - first + 1))
    return sorted(long)


def self_test():
    body = '\n'.join(f'    x += {k};' for k in range(85))
    text = ('namespace a {\nstruct S {\n  int f() const {\n' + body + '\n    return x;\n  }\n};\n'
            'int g(int y) {\n  auto l = [&](int z) {\n    return z;\n  };\n  return l(y);\n}\n'
            'enum class E { A, B };\nconstexpr int t[] = {1, 2};\n'
            'int h(int y)\n{\n  if (y) {\n' + body + '\n  }\n  const char* s = "}{";\n  return y;\n}\n}\n')
    got = [(n, b - a + 1) for n, a, b in functions(text)]
    want = [('f', 88), ('g', 6), ('h', 92)]
    if got != want:
        print('self-test failed:', got)
        return 1
    print('self-test passed: long functions are measured')
    return 0


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    limit = int(argv[argv.index('--limit') + 1]) if '--limit' in argv else LIMIT
    long = check(argv[1], limit)
    for path, first, fn, n in long:
        print(f'{path}:{first} {fn}: {n} lines (limit {limit})')
    print(f'{len(long)} functions over {limit} lines in {", ".join(FOLDERS)}')
    return 1 if long else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
