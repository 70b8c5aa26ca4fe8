#!/usr/bin/env python3
"""Prints a khost JSON report as a markdown table (for docs/RESULTS.md).

Usage: tools/perf-table.py REPORT.json [--device cuda|cpu]
Exit status 2 when the report cannot be read or is not a khost report.
"""
import argparse
import sys

from khost_report import ReportError, read_report

ROW_KEYS = ("case", "params", "backend", "device", "status", "time")
# FLOPs per byte above which a row's op is worth comparing with a compute peak (a GEMV moves about 4).
COMPUTE_INTENSITY = 16


def is_report(doc):
    return (isinstance(doc, dict) and isinstance(doc.get("run"), dict) and isinstance(doc.get("rows"), list)
            and all(isinstance(r, dict) and all(k in r for k in ROW_KEYS) and isinstance(r["time"], dict)
                    for r in doc["rows"]))


def load_report(path):
    return read_report(path, is_report, f"run, and rows each with {', '.join(ROW_KEYS)}")


def duration(seconds):
    if not seconds:
        return "-"
    return f"{seconds * 1e6:.2f} us" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("report")
    p.add_argument("--device", help="only rows of this device")
    a = p.parse_args()
    try:
        doc = load_report(a.report)
    except ReportError as e:
        print(f"perf-table.py: {e}", file=sys.stderr)
        return 2
    run = doc["run"]
    empty = f", empty kernel {duration(run['empty_call_s'])}" if run.get("empty_call_s") else ""
    print(f"device: {run.get('device')}, {run.get('sm_count')} SMs, L2 {run.get('l2_bytes')} B, measured copy "
          f"{run.get('peak_gbps') or 0:.0f} GB/s{empty}; suite {run.get('suite')}; {run.get('date')}\n")
    rows = [r for r in doc["rows"] if not a.device or r["device"] == a.device]
    # TFLOP/s only where a row's arithmetic intensity makes FLOPs worth comparing with a compute peak: the
    # memory-bound ops' tables keep the columns they were published with.
    flops = any((r.get("flops") or 0) >= COMPUTE_INTENSITY * (r.get("bytes") or float("inf")) for r in rows)
    print("| case | params | backend | device | status | median | noise | SM MHz | GB/s | % of copy |"
          + (" TFLOP/s |" if flops else "") + " speedup | variant |")
    print("|---|---|---|---|---|---:|---:|---:|---:|---:|" + ("---:|" if flops else "") + "---:|---|")
    for r in rows:
        t = r["time"]
        cells = [r["case"], r["params"], r["backend"], r["device"], r["status"], duration(t.get("median_s")),
                 f"{t['noise_pct']:.2f}%" if t.get("noise_pct") is not None else "-",
                 # Reports from before khost measured each sample's SM clock have none.
                 f"{t['sm_mhz']:.0f}" if t.get("sm_mhz") else "-",
                 f"{r['gbps']:.0f}" if r.get("gbps") else "-",
                 f"{100 * r['peak_fraction']:.1f}%" if r.get("peak_fraction") else "-"]
        if flops:
            cells.append(f"{r['tflops']:.1f}" if r.get("tflops") else "-")
        cells += [f"{r['speedup']:.2f}x" if r.get("speedup") else "-",
                 # Reports before ABI 1.1 have no variant.
                 f"`{r['variant']}`" if r.get("variant") else "-"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
