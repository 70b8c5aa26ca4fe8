#!/usr/bin/env python3
"""khost report's pages rendered in a real browser (Debian's headless Chromium).

Renders the page of a CPU run made here (khost on the smoke suite with --json)
and of the stored GPU run tests/fixtures/reports/gpu_run.json against
gpu_base.json. For each page: no console message at all (the page runs no
script and loads nothing, so any message is a fault: a blocked load, a parse
error), every row and chart the JSON calls for exists in the rendered DOM, the
plugin's hostile message stays text, and a screenshot is kept as the test's
artefact in the build folder (tests/report_browser/*.png).
Exit 77 (meson's skip) only when Chromium is absent.
"""
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser

KHOST = os.environ["KHOST_EXE"]
SOURCE = os.environ["KHOST_SOURCE_ROOT"]
OUT = os.path.join(os.environ["KHOST_BUILD_ROOT"], "tests", "report_browser")
FIXTURES = os.path.join(SOURCE, "tests", "fixtures", "reports")
CONSOLE = re.compile(r":CONSOLE[:(]")


class Dom(HTMLParser):
    """The rendered DOM's elements as (tag, attributes, text inside)."""

    def __init__(self):
        super().__init__()
        self.elements, self.open = [], []

    def handle_starttag(self, tag, attrs):
        element = [tag, dict(attrs), ""]
        self.elements.append(element)
        if tag not in ("meta", "link", "br", "img", "input", "line", "rect", "circle", "path"):
            self.open.append(element)

    def handle_startendtag(self, tag, attrs):
        self.elements.append([tag, dict(attrs), ""])

    def handle_endtag(self, tag):
        while self.open:
            if self.open.pop()[0] == tag:
                break

    def handle_data(self, data):
        for element in self.open:
            element[2] += data

    def find(self, tag=None, cls=None, **attrs):
        found = []
        for t, a, text in self.elements:
            if tag and t != tag:
                continue
            if cls and cls not in a.get("class", "").split():
                continue
            if all(a.get(k.replace("_", "-")) == v for k, v in attrs.items()):
                found.append((t, a, text))
        return found


def chromium(*args):
    """Chromium's run: its stdout, and its stderr, which --enable-logging fills."""
    # Chromium refuses to start as root inside its own sandbox (CI runs as root, in a
    # container that is itself the isolation): --no-sandbox is what lets it start there.
    cmd = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}:\n{p.stderr[-2000:]}")
    return p.stdout, p.stderr


def render(page, shot):
    """The page's DOM after rendering, and its console messages; the screenshot saved at shot."""
    url = "file://" + os.path.abspath(page)
    # One start of Chromium for both: a start costs seconds, most of this test's time.
    dom_text, log = chromium("--window-size=1300,2400", f"--screenshot={shot}", "--dump-dom", url)
    with open(shot, "rb") as f:
        head = f.read(8)
    check(head == b"\x89PNG\r\n\x1a\n" and os.path.getsize(shot) > 10000, f"{shot} is not a screenshot")
    dom = Dom()
    dom.feed(dom_text)
    return dom, [line for line in log.splitlines() if CONSOLE.search(line)]


FAILURES = []


def check(ok, what):
    if not ok:
        FAILURES.append(what)
        print(f"not ok: {what}")


def khost(*args, expect=0):
    p = subprocess.run([KHOST, *args], capture_output=True, text=True, timeout=300)
    if p.returncode != expect:
        sys.exit(f"FAIL: khost {' '.join(args)} exited {p.returncode}, not {expect}:\n{p.stderr}")
    return p.stdout


def console_check_sees_errors():
    """The console check can fail: a page that logs an error and one that tries to load are caught."""
    bad = os.path.join(OUT, "console_error.html")
    with open(bad, "w") as f:
        f.write("<!DOCTYPE html><html><body><script>console.error('seen');</script>"
                "<img src='https://example.invalid/x.png'></body></html>")
    _, messages = render(bad, os.path.join(OUT, "console_error.png"))
    check(any("seen" in m for m in messages), "the console check does not see console.error")


def expect_rows(dom, doc, page):
    rows = dom.find("tr", "row")
    check(len(rows) == len(doc["rows"]), f"{page}: {len(rows)} table rows for {len(doc['rows'])} JSON rows")
    shown = Counter(a["data-status"] for _, a, _ in rows)
    wanted = Counter(r["status"] for r in doc["rows"])
    check(shown == wanted, f"{page}: rows per status {dict(shown)}, the JSON has {dict(wanted)}")
    bars = 0
    for op in {r["op"] for r in doc["rows"]}:
        op_rows = [r for r in doc["rows"] if r["op"] == op]
        charts = dom.find("svg", "bars", data_op=op)
        check(len(charts) == 1, f"{page}: op {op} has {len(charts)} bar charts")
        cases = {r["case"] for r in op_rows}
        cells = [a for _, a, _ in dom.find("g", "cell") if a["data-case"] in cases]
        check(len(cells) == len(op_rows), f"{page}: op {op}: {len(cells)} chart cells for {len(op_rows)} rows")
        # The chart's value: % of the roof when a row of the op has one, else GB/s.
        key = "peak_fraction" if any(r.get("peak_fraction") is not None for r in op_rows) else "gbps"
        bars += sum(1 for r in op_rows if r["status"] == "PASS" and r.get(key) is not None)
    check(len(dom.find("rect", "bar")) == bars, f"{page}: {len(dom.find('rect', 'bar'))} bars, not {bars}")
    marks = Counter(a["class"].split()[1] for _, a, _ in dom.find("rect", "status-mark"))
    for status, n in wanted.items():
        if status != "PASS":
            check(marks[f"status-{status}"] == n, f"{page}: {marks[f'status-{status}']} {status} marks, not {n}")


def expect_header(dom, doc, page):
    run = doc["run"]
    device = dom.find("tr", data_key="device")
    check(device and run["device"] in device[0][2], f"{page}: the header lacks the device")
    for key in ("suite", "date", "command", "khost_version"):
        found = dom.find("tr", data_key=key)
        check(found and run[key] in found[0][2], f"{page}: the header lacks {key} {run[key]!r}")
    if run.get("peak_gbps"):
        found = dom.find("tr", data_key="peak_gbps")
        check(found and f"{run['peak_gbps']:.1f} GB/s" in found[0][2], f"{page}: the header lacks the copy bandwidth")


def report_page(name, reports):
    """The rendered page of khost report on reports, checked for what every page holds; its DOM and
    the run's JSON."""
    page = os.path.join(OUT, name + ".html")
    khost("report", *reports, "-o", page)
    dom, messages = render(page, os.path.join(OUT, name + ".png"))
    check(not messages, f"{name}: console messages {messages}")
    with open(reports[0]) as f:
        doc = json.load(f)
    expect_rows(dom, doc, name)
    expect_header(dom, doc, name)
    return dom, doc


def cpu_page():
    cpu_json = os.path.join(OUT, "cpu_run.json")
    khost("--suite", "smoke", "--max-time", "0.005", "--warmup", "0", "--json", cpu_json)
    dom, _ = report_page("cpu_run", [cpu_json])
    check(not dom.find("p", "banner"), "cpu page: a finished run has a banner")
    # The terminal table's columns: every row has a device ordinal, shown only for a run over several devices.
    check("ordinal" not in [text for _, _, text in dom.find("th")], "cpu page: an ordinal column for one device")


def gpu_page():
    run, base = os.path.join(FIXTURES, "gpu_run.json"), os.path.join(FIXTURES, "gpu_base.json")
    dom, doc = report_page("gpu_run", [run, base])
    # The hostile message reached the page as text: no element it spells exists.
    check(not dom.find("script") and not dom.find("img"), "gpu page: a message became markup")
    check(any('<script>document.title="pwned"</script>' in text for _, _, text in dom.find("pre")),
          "gpu page: the hostile message is not shown as text")
    check(dom.find("p", "banner") and "gpu_base.json" in dom.find("p", "banner")[0][2],
          "gpu page: no banner for the unfinished base run")
    roof = dom.find("svg", "roofline", data_op="fp8_block_gemm")
    check(len(roof) == 1, "gpu page: no roofline for fp8_block_gemm")
    check(len(dom.find("line", "memory")) >= 1 and len(dom.find("line", "compute")) >= 2,
          "gpu page: the roofline lacks its memory roof or its two compute roofs")
    timed = [r for r in doc["rows"] if r["status"] == "PASS" and r["flops"] > 0 and r["tflops"]]
    check(len(dom.find("circle", "point")) == len(timed), f"gpu page: {len(dom.find('circle', 'point'))} points "
          f"on the rooflines for {len(timed)} timed rows with FLOPs")
    # The comparison is khost compare's, row for row.
    printed = khost("compare", run, base, expect=1).splitlines()[1:-1]
    verdicts = [line.split()[6] for line in printed if "LOST:" not in line]
    shown = [a["data-verdict"] for _, a, _ in dom.find("tr", "compared")]
    check(shown == verdicts, f"gpu page: verdicts {shown}, khost compare printed {verdicts}")
    check(len(dom.find("g", "ratio")) == len(verdicts), "gpu page: the ratio chart lacks rows")
    lost = sum("LOST:" in line for line in printed)
    check(len(dom.find("tr", "lost")) == lost, f"gpu page: {len(dom.find('tr', 'lost'))} lost rows, not {lost}")


def main():
    global BROWSER
    BROWSER = shutil.which(os.environ.get("KHOST_CHROMIUM", "chromium"))
    if not BROWSER:
        print("SKIP: chromium not found on PATH (tools/bootstrap.sh installs Debian's chromium)")
        return 77
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    console_check_sees_errors()
    cpu_page()
    gpu_page()
    print(f"screenshots in {OUT}")
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed")
        return 1
    print("ok: both pages rendered without console messages, with every row and chart")
    return 0


if __name__ == "__main__":
    sys.exit(main())
