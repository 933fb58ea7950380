#!/usr/bin/python3
"""Figures in the prose of README.md and docs/*.md are what the binary prints, and README's commands run.

1. Each claim of tests/docs/prose_figures.txt (FILE || PROSE REGEX || COMMAND || OUTPUT REGEX) must hold: the prose
   regex matches FILE, the output regex matches what COMMAND prints, and their groups (thousands separators
   removed) are equal. A command whose output is JSON (`--json`) is reduced to the length of its top-level list
   or object first, so `^(\\d+)$` counts its entries.
2. Every `shardmeter` / `./build/shardmeter` line of README.md's ```sh blocks exits 0 as printed, run in order in a
   scratch directory that sees scenarios/ (after the search `make run` does, which writes build/default_front.h5).

Usage: check_prose.py SHARDMETER SOURCE_DIR SCRATCH_DIR
       check_prose.py --self-test SHARDMETER SOURCE_DIR SCRATCH_DIR   (a changed figure must be reported)
"""
import json
import os
import re
import shlex
import subprocess
import sys


def run(binary, scratch, cmd):
    command = re.sub(r"(^|&& |; )(\./build/)?shardmeter\b", lambda m: m.group(1) + shlex.quote(binary), cmd)
    res = subprocess.run(command, shell=True, cwd=scratch, capture_output=True, text=True, timeout=900)
    return res.returncode, res.stdout + res.stderr, res.stdout


def plain(groups):
    return [g.replace(",", "") for g in groups]


def claims(source):
    out = []
    for line in open(os.path.join(source, "tests", "docs", "prose_figures.txt"), encoding="utf-8"):
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.rstrip("\n").split(" || ")]
        if len(parts) != 4:
            raise SystemExit(f"prose_figures.txt: not FILE || PROSE || COMMAND || OUTPUT: {line.strip()}")
        out.append(parts)
    return out


def check_claims(binary, source, scratch, texts):
    failures, outputs = [], {}
    for path, prose, cmd, pattern in claims(source):
        text = texts.get(path) or open(os.path.join(source, path), encoding="utf-8").read()
        m = re.search(prose, text)
        if not m:
            failures.append(f"{path}: the prose /{prose}/ is no longer there")
            continue
        if cmd not in outputs:
            status, printed, stdout = run(binary, scratch, cmd)
            if "--json" in cmd:
                try:
                    printed = str(len(json.loads(stdout)))
                except ValueError:
                    printed = "not JSON"
            outputs[cmd] = (status, printed)
        status, printed = outputs[cmd]
        o = re.search(pattern, printed, re.M)
        if status != 0 or not o:
            failures.append(f"{path}: `{cmd}` (status {status}) prints nothing matching /{pattern}/")
            continue
        if plain(m.groups()) != plain(o.groups()):
            failures.append(f"{path}: says {', '.join(m.groups())} where `{cmd}` prints {', '.join(o.groups())}")
    return failures


def readme_commands(source):
    text = open(os.path.join(source, "README.md"), encoding="utf-8").read()
    cmds = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.split("\n"):
            line = line.split("  #")[0].strip()
            if re.match(r"(\./build/)?shardmeter\s", line):
                cmds.append(line)
    return cmds


def check_readme(binary, source, scratch):
    failures = []
    status, printed, _ = run(binary, scratch, "shardmeter search scenarios/default.yaml -o build/default_front.h5")
    if status != 0:
        failures.append(f"make run's search exits {status}: {printed[-300:]}")
    for cmd in readme_commands(source):
        status, printed, _ = run(binary, scratch, cmd)
        if status != 0:
            failures.append(f"README.md: `{cmd}` exits {status}: {printed.strip()[-300:]}")
    return failures


def prepare(source, scratch):
    os.makedirs(os.path.join(scratch, "build"), exist_ok=True)
    link = os.path.join(scratch, "scenarios")
    if not os.path.exists(link):
        os.symlink(os.path.join(source, "scenarios"), link)


def main(argv):
    if argv[1] == "--self-test":
        binary, source, scratch = argv[2:5]
        prepare(source, scratch)
        # The first claim's file with its first figure changed: the check must report it.
        path, prose = claims(source)[0][:2]
        text = open(os.path.join(source, path), encoding="utf-8").read()
        m = re.search(prose, text)
        changed = text[:m.start(1)] + "9" + text[m.start(1):]
        failures = check_claims(binary, source, scratch, {path: changed})
        if not any(path in f and "says" in f for f in failures):
            print("self-test: a changed figure was not reported")
            return 1
        print(f"self-test: the changed figure is reported ({failures[0]})")
        return 0
    binary, source, scratch = argv[1:4]
    prepare(source, scratch)
    failures = check_claims(binary, source, scratch, {}) + check_readme(binary, source, scratch)
    for f in failures:
        print(f)
    print(f"{len(claims(source))} prose figures and {len(readme_commands(source))} README commands, "
          f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
