#!/usr/bin/python3
"""The sample outputs of README.md and docs/*.md are what the binary prints (the brief: docs true at every commit).

A sample is a fenced block whose lines follow either a `$ shardmeter ...` line inside the block (until the next `$ `
line or the fence) or, for a block without a prompt, an HTML comment `<!-- sample: COMMAND -->` on the line before
its fence. COMMAND runs with the built binary in a scratch directory that sees the source tree's `scenarios/`
(outputs written under it stay there). Every non-empty line of the sample must be a line of the command's output,
except `...` (an abridgement: alone on a line it stands for lines, inside one for part of it) and run-time figures (elapsed time, candidates per second, "decided in"). For a
`--json` command the sample may show selected fields reformatted: each `"key": value` in it must be a field of the
output whose value, rounded as shown, is the same.

Usage: check_samples.py SHARDMETER SOURCE_DIR SCRATCH_DIR
       check_samples.py --self-test SHARDMETER SOURCE_DIR SCRATCH_DIR   (a planted wrong line must be reported)
"""
import json
import os
import re
import shlex
import subprocess
import sys

TIMING = re.compile(r"Elapsed|decided in|candidates/s|candidates per second| ms, | s, [0-9.]+ M")
PAIR = re.compile(r'"([A-Za-z0-9_]+)": (-?[0-9][0-9.eE+-]*|"[^"]*"|true|false)')


def samples(path):
    """(line number, command, sample lines, is_json) for every sample of one markdown file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, in_block, i = [], False, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            if not in_block:
                m = re.match(r"<!-- sample: (.*) -->$", lines[i - 1]) if i > 0 else None
                if m:
                    j = i + 1
                    body = []
                    while j < len(lines) and not lines[j].startswith("```"):
                        body.append(lines[j])
                        j += 1
                    out.append((i, m.group(1), body, "--json" in m.group(1)))
                    i = j + 1
                    continue
            in_block = not in_block
            i += 1
            continue
        if in_block and line.startswith("$ ") and "shardmeter" in line:
            cmd = line[2:].split("  #")[0].strip()
            j = i + 1
            body = []
            while j < len(lines) and not lines[j].startswith("```") and not lines[j].startswith("$ "):
                body.append(lines[j])
                j += 1
            out.append((i + 1, cmd, body, "--json" in cmd))
            i = j
            continue
        i += 1
    return out


def leaves(value, into):
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, (dict, list)):
                leaves(v, into)
            else:
                into.setdefault(k, []).append(v)
    elif isinstance(value, list):
        for v in value:
            leaves(v, into)
    return into


def same_shown(shown, actual):
    if shown.startswith('"'):
        return isinstance(actual, str) and shown == json.dumps(actual)
    if shown in ("true", "false"):
        return actual is (shown == "true")
    if isinstance(actual, bool) or not isinstance(actual, (int, float)):
        return False
    decimals = len(shown.split(".")[1]) if "." in shown and "e" not in shown.lower() else 0
    return abs(round(actual, decimals) - float(shown)) <= 0.5 * 10 ** -decimals + 1e-12


def check(binary, source, scratch, planted=None):
    os.makedirs(os.path.join(scratch, "build"), exist_ok=True)
    link = os.path.join(scratch, "scenarios")
    if not os.path.exists(link):
        os.symlink(os.path.join(source, "scenarios"), link)
    files = [os.path.join(source, "README.md")] + sorted(
        os.path.join(source, "docs", f) for f in os.listdir(os.path.join(source, "docs")) if f.endswith(".md"))
    failures, count = [], 0
    for path in files:
        for line_no, cmd, body, is_json in samples(path):
            if planted is not None:
                body = body + [planted]
            count += 1
            run = re.sub(r"(^|&& |; )(\./build/)?shardmeter\b", lambda m: m.group(1) + shlex.quote(binary), cmd)
            res = subprocess.run(run, shell=True, cwd=scratch, capture_output=True, text=True, timeout=600)
            text = res.stdout + res.stderr
            where = f"{os.path.relpath(path, source)}:{line_no}: `{cmd}`"
            if is_json:
                try:
                    fields = leaves(json.loads(res.stdout), {})
                except ValueError:
                    failures.append(f"{where}: the output is not JSON")
                    continue
                for l in body:
                    for key, shown in PAIR.findall(l):
                        if not any(same_shown(shown, v) for v in fields.get(key, [])):
                            failures.append(f"{where}: \"{key}\": {shown} is not in the output ({fields.get(key)})")
                continue
            printed_lines = [x.rstrip() for x in text.split("\n")]
            printed = set(printed_lines)
            for l in body:
                if not l.strip() or l.strip() == "..." or TIMING.search(l):
                    continue
                if l.rstrip() in printed:
                    continue
                # `...` inside a line abridges part of it: the rest must match, in order.
                if "..." in l:
                    pattern = re.compile(".*".join(re.escape(part) for part in l.rstrip().split("...")) + "$")
                    if any(pattern.match(x) for x in printed_lines):
                        continue
                failures.append(f"{where}: not printed: {l.rstrip()}")
    return count, failures


def main(argv):
    if argv[1] == "--self-test":
        _, failures = check(argv[2], argv[3], argv[4], planted="this line is printed by no command")
        if not failures:
            print("self-test: the planted line was not reported")
            return 1
        print(f"self-test: the planted line is reported ({len(failures)} samples)")
        return 0
    count, failures = check(argv[1], argv[2], argv[3])
    for f in failures:
        print(f)
    print(f"{count} samples, {len(failures)} lines that the binary does not print")
    return 1 if failures or count < 10 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
