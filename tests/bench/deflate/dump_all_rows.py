#!/usr/bin/env python3
"""Writes the /all rows of a `shardmeter search --all` file as raw bytes, for compare_deflate.cpp.

Usage: dump_all_rows.py FILE.h5 OUT.rows  (prints the row size in bytes)
"""
import sys

import h5py

with h5py.File(sys.argv[1], 'r') as f:
    rows = f['all'][()]
with open(sys.argv[2], 'wb') as out:
    out.write(rows.tobytes())
print(rows.dtype.itemsize)
