#!/usr/bin/env python3
"""Checks a JUnit report against the JSON report of the same khost run, with a
real XML parser (the standard library's): docs/REPORTS.md's JUnit section.

usage: junit_check.py JUNIT JSON finished|unfinished|killed
finished: a run that ran every case; unfinished: one that stopped early (the
rows, then the error that says so); killed: the document written when the run
started, which holds that error alone (the JSON may hold rows by then).
Exit status 0 when the JUnit file is well-formed and says what the JSON says,
else 1 with the first difference on stderr."""
import json
import os
import sys
import xml.etree.ElementTree as ET

OUTCOME = {"FAIL": "failure", "ERROR": "error", "CRASH": "error", "TIMEOUT": "error", "SKIP": "skipped"}


class Mismatch(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Mismatch(what)


def count_attributes(element):
    return {k: int(element.get(k)) for k in ("tests", "failures", "errors", "skipped")}


def check_row(case, row):
    where = f"{row['case']}/{row['backend']}:{row['device']}"
    expect(case.get("classname") == f"{row['op']}/{row['case']}", f"{where}: classname {case.get('classname')}")
    expect(case.get("name") == f"{row['backend']}:{row['device']}", f"{where}: name {case.get('name')}")
    children = list(case)
    if row["status"] == "PASS":
        expect(children == [], f"{where}: a PASS test case has no child, got {[c.tag for c in children]}")
        return
    expect(len(children) == 1, f"{where}: one child expected, got {[c.tag for c in children]}")
    outcome = children[0]
    expect(outcome.tag == OUTCOME[row["status"]], f"{where}: {row['status']} as <{outcome.tag}>")
    message = row["message"]
    expect(message != "", f"{where}: a {row['status']} row without a message proves nothing")
    expect(outcome.get("message") == message.split("\n")[0], f"{where}: message {outcome.get('message')!r}")
    if outcome.tag == "skipped":
        return
    expect(outcome.get("type") == row["status"], f"{where}: type {outcome.get('type')}")
    expect(outcome.text == message, f"{where}: text {outcome.text!r}, the row's message {message!r}")


def check(junit_path, json_path, mode):
    root = ET.parse(junit_path).getroot()
    with open(json_path, encoding="utf-8") as f:
        report = json.load(f)
    expect(root.tag == "testsuites", f"root <{root.tag}>")
    suites = list(root)
    expect(len(suites) == 1 and suites[0].tag == "testsuite", "one <testsuite> expected")
    suite, run = suites[0], report["run"]
    expect(suite.get("name") == os.path.basename(run["suite"]).removesuffix(".ini"), f"suite {suite.get('name')}")
    expect(suite.get("timestamp") == run["date"].removesuffix("Z"), f"timestamp {suite.get('timestamp')}")
    expect(suite.get("hostname") == run["host"], f"hostname {suite.get('hostname')}")
    properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
    # The GPU is known once the first case has run: after a kill, the file may predate it.
    for key in ("suite", "khost_version", "command", "date") + (() if mode == "killed" else ("device",)):
        expect(properties.get(key) == run[key], f"property {key} {properties.get(key)!r}, the JSON {run[key]!r}")
    cases = suite.findall("testcase")
    rows = [] if mode == "killed" else report["rows"]
    expect(len(cases) == len(rows) + (mode != "finished"), f"{len(cases)} test cases for {len(rows)} rows")
    for case, row in zip(cases, rows):
        check_row(case, row)
    if mode != "finished":
        last = cases[-1]
        expect((last.get("classname"), last.get("name")) == ("khost", "run"), "no khost/run test case")
        expect(last.find("error").get("type") == "UNFINISHED", "khost/run is not an UNFINISHED error")
    counts = {"tests": len(cases), "failures": 0, "errors": 0, "skipped": 0}
    for case in cases:
        for child in case:
            counts[{"failure": "failures", "error": "errors", "skipped": "skipped"}[child.tag]] += 1
    expect(count_attributes(suite) == counts, f"<testsuite> counts {count_attributes(suite)}, test cases {counts}")
    expect(count_attributes(root) == counts, f"<testsuites> counts {count_attributes(root)}, test cases {counts}")


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ("finished", "unfinished", "killed"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        check(sys.argv[1], sys.argv[2], sys.argv[3])
    except (Mismatch, ET.ParseError) as e:
        print(f"junit_check: {sys.argv[1]}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
