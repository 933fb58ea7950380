#!/usr/bin/python3
"""Loads a report in headless Chromium (Debian's /usr/bin/chromium), takes a screenshot and checks it is a real
picture: a PNG of the requested size with many colours, not a blank page.

Usage: screenshot_report.py REPORT.html OUT.png
Exit status: 0 ok, 1 failed, 1 also when Chromium is missing (`make deps` installs Debian's chromium).
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

CHROMIUM = "/usr/bin/chromium"
WIDTH, HEIGHT = 1280, 1400

if not os.access(CHROMIUM, os.X_OK):
    print(f"failed: {CHROMIUM} is not installed; run `make deps`")
    sys.exit(1)

report, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
if os.path.exists(out):
    os.remove(out)
with tempfile.TemporaryDirectory() as profile:
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={out}",
               "file://" + report]
    run = subprocess.run(command, capture_output=True, text=True, timeout=180)
if not os.path.exists(out):
    print(f"no screenshot; chromium exited {run.returncode}:\n{run.stderr[-2000:]}")
    sys.exit(1)

data = open(out, "rb").read()
failures = []
if data[:8] != b"\x89PNG\r\n\x1a\n":
    failures.append("not a PNG file")
width, height, depth, colour_type = struct.unpack(">IIBB", data[16:26])
if (width, height) != (WIDTH, HEIGHT):
    failures.append(f"{width}x{height} pixels, expected {WIDTH}x{HEIGHT}")
# Concatenate the IDAT chunks and inflate: the raw scanlines.
pos, idat = 8, b""
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + length]
    pos += 12 + length
raw = zlib.decompress(idat)
distinct = len(set(raw[i:i + 3] for i in range(0, min(len(raw), 4_000_000), 3)))
if len(data) < 30_000 or distinct < 50:
    failures.append(f"the picture looks blank: {len(data)} bytes, {distinct} distinct byte triples")
if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"ok: {out}, {width}x{height}, {len(data)} bytes")
