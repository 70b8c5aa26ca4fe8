#!/usr/bin/env python3
"""Compares two khost JSON reports row by row (case, backend, device).

Prints each timed row's medians, their relative difference, and a label:
SAME when the difference is within both runs' noise (or --tolerance), else FAST or SLOW; a row
whose kernel named a different implementation in each run (khost's variant) says which, and one
whose median SM clock moved by more than 1% says so (its time moved with the clock, not the code),
and one timed by another timer in each run (events or cupti: khost's --timer) says which. Each row
also shows its %sol in each run: the case's speed of light over the row's median.
Usage: tools/compare.py BEFORE.json AFTER.json [--min-us 20] [--tolerance 1.0]
Rows that passed before and did not after (another status, or missing) are listed as LOST.
Exit status 1 when any compared row differs by more than --tolerance percent, or a row was lost;
2 when a report cannot be read or is not a khost report.
"""
import argparse
import sys

from khost_report import ReportError, read_report


def is_row(r):
    return (isinstance(r, dict) and all(k in r for k in ("case", "backend", "device"))
            and isinstance(r.get("time") or {}, dict))


def is_report(doc):
    return isinstance(doc, dict) and isinstance(doc.get("rows"), list) and all(is_row(r) for r in doc["rows"])


def load_rows(path):
    """(case, backend, device) -> row, for every row of a report."""
    doc = read_report(path, is_report, "rows, each with case, backend, device and, if any, a time object")
    return {(r["case"], r["backend"], r["device"]): r for r in doc["rows"]}


def timed_rows(rows):
    timed = {}
    for key, r in rows.items():
        t = r.get("time") or {}
        if r.get("status") == "PASS" and t.get("median_s"):
            # Reports before plugin ABI 1.1 have no variant.
            # Reports before the speed of light (and its timer column) have neither: None.
            timed[key] = dict(t, variant=r.get("variant"), sol_fraction=r.get("sol_fraction"))
    return timed


def lost_rows(before, after):
    """Rows that passed before and, after, did not pass or were not there."""
    lost = []
    for key, r in sorted(before.items()):
        now = after.get(key)
        if r.get("status") == "PASS" and (now is None or now.get("status") != "PASS"):
            lost.append((key, now.get("status") if now else "missing", (now or {}).get("message", "")))
    return lost


def percent(fraction):
    return "-" if fraction is None else f"{100 * fraction:.1f}%"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--min-us", type=float, default=0.0, help="compare only rows at least this long (median)")
    p.add_argument("--tolerance", type=float, default=1.0, help="percent difference that counts as a change")
    a = p.parse_args()
    try:
        all_before, all_after = load_rows(a.before), load_rows(a.after)
    except ReportError as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 2
    before, after = timed_rows(all_before), timed_rows(all_after)
    worst, differ, compared = 0.0, 0, 0
    print(f"{'case':36} {'backend':12} {'dev':4} {'before':>10} {'after':>10} {'diff %':>8} {'%sol':>15}  label")
    for key in sorted(before.keys() & after.keys()):
        b, c = before[key]["median_s"], after[key]["median_s"]
        if min(b, c) * 1e6 < a.min_us:
            continue
        compared += 1
        diff = 100.0 * (c - b) / b
        noise = max(before[key].get("noise_pct") or 0, after[key].get("noise_pct") or 0)
        limit = max(a.tolerance, 2 * noise)
        label = "SAME" if abs(diff) <= limit else ("SLOW" if diff > 0 else "FAST")
        differ += abs(diff) > a.tolerance
        worst = max(worst, abs(diff))
        was, now = before[key]["variant"], after[key]["variant"]
        if was and now and was != now:
            label += f" (variant {was} -> {now})"
        # Reports from before khost measured each sample's SM clock have none.
        clocks = before[key].get("sm_mhz"), after[key].get("sm_mhz")
        if all(clocks) and abs(clocks[1] - clocks[0]) > 0.01 * clocks[0]:
            label += f" (SM clock {clocks[0]:.0f} -> {clocks[1]:.0f} MHz)"
        timers = before[key].get("timer"), after[key].get("timer")
        if all(timers) and timers[0] != timers[1]:
            label += f" (timer {timers[0]} -> {timers[1]})"
        sol = " -> ".join(percent(x[key]["sol_fraction"]) for x in (before, after))
        print(f"{key[0]:36} {key[1]:12} {key[2]:4} {b*1e6:9.2f}u {c*1e6:9.2f}u {diff:+8.2f} {sol:>15}  {label}")
    lost = lost_rows(all_before, all_after)
    for key, status, message in lost:
        print(f"{key[0]:36} {key[1]:12} {key[2]:4} LOST: PASS -> {status} {message[:80]}")
    print(f"rows compared: {compared}, largest difference {worst:.2f}%, "
          f"beyond {a.tolerance}%: {differ}, lost: {len(lost)}")
    return 1 if differ or lost else 0


if __name__ == "__main__":
    sys.exit(main())
