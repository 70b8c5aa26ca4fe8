#!/usr/bin/env bash
# khost's median against Nsight Compute's gpu__time_duration for the same
# kernels on the same case (GPU machine; builds nothing). ncu flushes caches
# before each profiled launch (--cache-control all), as khost's cold samples
# do, and leaves clocks alone (--clock-control none), as khost does.
# Usage: tools/ncu-compare.sh BUILD_DIR SUITE CASE BACKENDS   (output: a small table)
set -euo pipefail
if [ $# -ne 4 ]; then
  echo "usage: $0 BUILD_DIR SUITE CASE BACKENDS" >&2
  exit 2
fi
build=$1 suite=$2 case=$3 backends=$4
work=${NCU_COMPARE_DIR:-/tmp/ncu-compare}
mkdir -p "$work"
export KHOST_SUITE_PATH="$PWD/suites"
"$build/khost" --suite "$suite" --case "$case" --backends "$backends" --json "$work/khost.json" >/dev/null \
  || khost_rc=$?
# Exit 1 is a row that failed: its backend has no median below, so say so; anything else is no report.
if [ "${khost_rc:-0}" -gt 1 ]; then
  echo "ncu-compare: khost exited $khost_rc" >&2
  exit 1
elif [ "${khost_rc:-0}" -eq 1 ]; then
  echo "ncu-compare: a row did not pass (khost exit 1); see $work/khost.json" >&2
fi
# One process, no blocking kernel (ncu serialises launches), a few launches per kernel.
ncu --clock-control none --cache-control all --target-processes all --metrics gpu__time_duration.sum \
  --launch-skip 3 --launch-count 60 --csv \
  "$build/khost" --suite "$suite" --case "$case" --backends "$backends" --no-isolate --no-blocking-kernel \
  --warmup 0 --min-samples 5 --max-time 0.05 >"$work/ncu.csv" 2>"$work/ncu.err" || ncu_rc=$?
# khost exits 1 when a row fails, which ncu passes on; anything else means ncu itself failed.
if [ "${ncu_rc:-0}" -gt 1 ] || ! grep -q gpu__time_duration "$work/ncu.csv"; then
  echo "ncu-compare: ncu failed (exit ${ncu_rc:-0}); its messages:" >&2
  tail -20 "$work/ncu.err" >&2
  exit 1
fi
python3 - "$work/khost.json" "$work/ncu.csv" <<'PY'
import csv, json, statistics, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r["device"] == "cuda" and r["time"]["median_s"]]
lines = [l for l in open(sys.argv[2]) if l.startswith('"')]
by_kernel = {}
for rec in csv.DictReader(lines):
    if rec.get("Metric Name") != "gpu__time_duration.sum":
        continue
    scale = {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3,
             "s": 1.0, "second": 1.0}[rec["Metric Unit"]]
    by_kernel.setdefault(rec["Kernel Name"], []).append(float(rec["Metric Value"].replace(",", "")) * scale)
print("khost (cold, median):")
for r in rows:
    print(f"  {r['backend']:12} {r['time']['median_s']*1e6:9.2f} us  ({r['time']['samples']} samples)")
print("ncu gpu__time_duration (median over profiled launches):")
for name, v in sorted(by_kernel.items(), key=lambda kv: -len(kv[1])):
    print(f"  {statistics.median(v)*1e6:9.2f} us  n={len(v):3d}  {name[:110]}")
PY
