#!/usr/bin/python3
"""Loads a ShardMeter report in Debian's headless Chromium and checks what a reader would see:

- the page makes no request but its own file (every request the browser's network layer announces is recorded
  through the DevTools protocol, and the page holds no script, image, frame, link or object element);
- the inline SVG rendered: the DOM after load (`chromium --dump-dom`) holds the SVG with one plot marker per front
  row, and in the live page each marker has a size on screen;
- a screenshot of the plot area (clipped to the SVG's box on screen) is not blank: many colours, a real share of
  non-white pixels.

Chromium is driven over --remote-debugging-pipe (JSON messages separated by NUL bytes on file descriptors 3 and 4):
no extra package, no network port.

Usage: browser_check_report.py REPORT.html EXPECTED OUT.png   (EXPECTED: "<front rows> <baseline rows>")
       browser_check_report.py --self-test REPORT.html EXPECTED OUT.png
         plants an image from http://127.0.0.1:9 into a copy of the report and requires the check to fail on it.
Exit status: 0 ok, 1 failed, 1 also when Chromium is missing (`make deps` installs Debian's chromium).
"""
import base64
import fcntl
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
import zlib

CHROMIUM = "/usr/bin/chromium"
WIDTH, HEIGHT = 1280, 1400


class Browser:
    def __init__(self, profile):
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        # The child reads commands on fd 3 and writes replies on fd 4: move the child's ends above them first, so
        # the dup2 calls in the child neither clobber each other nor keep close-on-exec.
        child_r, child_w = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD_CLOEXEC, 10), \
            fcntl.fcntl(from_browser_w, fcntl.F_DUPFD_CLOEXEC, 10)
        self.process = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--remote-debugging-pipe",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-default-apps", "--no-default-browser-check", f"--user-data-dir={profile}",
             f"--window-size={WIDTH},{HEIGHT}", "about:blank"],
            close_fds=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=lambda: (os.dup2(child_r, 3), os.dup2(child_w, 4)))
        for fd in (to_browser_r, from_browser_w, child_r, child_w):
            os.close(fd)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        return self.wait(lambda m: m.get("id") == self.next_id)

    def wait(self, predicate, timeout=60):
        deadline = time.time() + timeout
        while True:
            for i, m in enumerate(self.events):
                if predicate(m):
                    return self.events.pop(i)
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                message = json.loads(raw)
                if predicate(message):
                    return message
                self.events.append(message)
            if time.time() > deadline:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the pipe: " + self.process.stderr.read().decode()[-2000:])
            self.buffer += chunk

    def close(self):
        try:
            os.write(self.to_browser, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
            self.process.wait(timeout=30)
        except Exception:
            self.process.kill()


def png_pixels(data):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    assert depth == 8 and colour in (2, 6), f"unexpected PNG format {depth}/{colour}"
    channels = 3 if colour == 2 else 4
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):   # undo the PNG filter of this line
            a = line[x - channels] if x >= channels else 0
            b = previous[x]
            c = previous[x - channels] if x >= channels else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def check(report, expected, out):
    """(failures, summary) of the report loaded in Chromium."""
    front_rows = int(open(expected).read().split()[0])
    url = "file://" + os.path.abspath(report)
    failures = []
    with tempfile.TemporaryDirectory() as profile:
        browser = Browser(profile)
        try:
            targets = browser.send("Target.getTargets")["result"]["targetInfos"]
            page = next(t for t in targets if t["type"] == "page")
            session = browser.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})[
                "result"]["sessionId"]
            browser.send("Network.enable", session=session)
            browser.send("Page.enable", session=session)
            browser.send("Page.navigate", {"url": url}, session=session)
            browser.wait(lambda m: m.get("method") == "Page.loadEventFired")
            probe = ("JSON.stringify((() => { const s = document.querySelector('svg'); const r = s ? "
                     "s.getBoundingClientRect() : null; return {svg: !!s, x: r && r.x + scrollX, y: r && r.y + scrollY, "
                     "w: r && r.width, h: r && r.height, markers: document.querySelectorAll('.marker.front').length, "
                     "drawn: [...document.querySelectorAll('.marker.front')].filter(e => e.getBoundingClientRect()"
                     ".width > 0).length, external: document.querySelectorAll('script,img,iframe,link,object,embed,"
                     "video,audio,source').length, dom: document.documentElement.outerHTML.length}; })())")
            result = browser.send("Runtime.evaluate", {"expression": probe, "returnByValue": True}, session=session)
            page_facts = json.loads(result["result"]["result"]["value"])
            requests = [m["params"]["request"]["url"] for m in browser.events
                        if m.get("method") == "Network.requestWillBeSent"]
            if page_facts["svg"] and page_facts["w"] > 0:
                shot = browser.send("Page.captureScreenshot", {
                    "format": "png", "captureBeyondViewport": True,
                    "clip": {"x": page_facts["x"], "y": page_facts["y"], "width": page_facts["w"],
                             "height": page_facts["h"], "scale": 1}}, session=session)
                with open(out, "wb") as f:
                    f.write(base64.b64decode(shot["result"]["data"]))
        finally:
            browser.close()

    with tempfile.TemporaryDirectory() as profile:
        dump = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                               f"--user-data-dir={profile}", "--dump-dom", url],
                              capture_output=True, text=True, timeout=180)
    dom_markers = dump.stdout.count('class="marker front"')
    if "<svg" not in dump.stdout or dom_markers != front_rows:
        failures.append(f"--dump-dom: {'an' if '<svg' in dump.stdout else 'no'} SVG, {dom_markers} front markers, "
                        f"expected {front_rows}")
    leaving = [u for u in requests if u != url]
    if leaving:
        failures.append(f"the page requested {leaving}: a report must load nothing but itself")
    if page_facts["external"]:
        failures.append(f"{page_facts['external']} script/img/frame/link/object elements in the page")
    if not page_facts["svg"] or not page_facts["w"] or not page_facts["h"]:
        failures.append(f"the SVG did not render: {page_facts}")
    if page_facts["markers"] != front_rows or page_facts["drawn"] != front_rows:
        failures.append(f"{page_facts['drawn']} of {page_facts['markers']} front markers drawn, expected {front_rows}")
    if os.path.exists(out):
        width, height, channels, rows = png_pixels(open(out, "rb").read())
        colours, ink = set(), 0
        for line in rows:
            for x in range(0, width * channels, channels):
                rgb = line[x:x + 3]
                colours.add(rgb)
                ink += rgb != b"\xff\xff\xff"
        share = ink / (width * height)
        if len(colours) < 20 or share < 0.01:
            failures.append(f"the plot area looks blank: {len(colours)} colours, {share:.1%} non-white pixels")
    else:
        failures.append("no screenshot of the plot area")
        return failures, ""
    return failures, (f"{url} loaded nothing else ({len(requests)} request), {page_facts['drawn']} markers drawn, "
                      f"plot area {page_facts['w']:.0f}x{page_facts['h']:.0f} px with {len(colours)} colours, "
                      f"{share:.1%} ink")


def main(args):
    if not os.access(CHROMIUM, os.X_OK):
        print(f"failed: {CHROMIUM} is not installed; run `make deps`")
        return 1
    if len(args) == 4 and args[0] == "--self-test":
        report, expected, out = args[1:]
        with tempfile.TemporaryDirectory() as d:
            planted = os.path.join(d, "planted.html")
            with open(report) as f:
                html = f.read()
            with open(planted, "w") as f:
                f.write(html.replace("<body>", '<body><img src="http://127.0.0.1:9/leak.png" alt=""/>', 1))
            failures, _ = check(planted, expected, out)
        if not any("requested" in f for f in failures) or not any("elements in the page" in f for f in failures):
            print(f"the check missed a planted external image: {failures}")
            return 1
        print("ok: a planted external image fails the check")
        return 0
    if len(args) != 3:
        print(__doc__)
        return 2
    failures, summary = check(*args)
    if failures:
        print("\n".join(failures))
        return 1
    print("ok: " + summary)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
