#!/usr/bin/python3
"""Parses a ShardMeter HTML report as XML with the standard library (xml.etree.ElementTree) and checks its content.

Usage: check_report.py REPORT.html EXPECTED   (EXPECTED: "<front rows> <baseline rows>", written by the fixture)
Exit status: 0 ok, 1 a check failed.
"""
import sys
import xml.etree.ElementTree as ET

HTML = "{http://www.w3.org/1999/xhtml}"
SVG = "{http://www.w3.org/2000/svg}"

report, expected = sys.argv[1], sys.argv[2]
front_rows, baseline_rows = (int(x) for x in open(expected).read().split())
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


root = ET.parse(report).getroot()          # raises (status 1) unless the page is well-formed XML
check(root.tag == HTML + "html", f"root element is {root.tag}")
svgs = list(root.iter(SVG + "svg"))
check(len(svgs) == 1, f"{len(svgs)} inline SVG elements")


def markers(cls):
    return [e for e in root.iter() if cls in (e.get("class") or "").split() and "marker" in e.get("class").split()]


check(len(markers("front")) == front_rows, f"{len(markers('front'))} front markers, expected {front_rows}")
check(len(markers("baseline")) == baseline_rows, f"{len(markers('baseline'))} baseline markers, expected {baseline_rows}")
ids = sorted(e.get("data-id") for e in markers("front"))
check(ids == sorted(f"front-{i}" for i in range(1, front_rows + 1)), f"front marker ids {ids} (rows from 1)")
for tag in ("script", "link", "img", "iframe", "object"):
    check(not list(root.iter(HTML + tag)), f"the page has a <{tag}>")
text = "".join(root.itertext())
for word in ("cheapest", "knee", "fastest", "Provenance", "Changes since the baseline", "<nightly> & co"):
    check(word in text, f"'{word}' is not in the page text")
tables = list(root.iter(HTML + "table"))
check(len(tables) >= 4, f"{len(tables)} tables")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"ok: {report} is well-formed XML with {front_rows} front and {baseline_rows} baseline markers")
