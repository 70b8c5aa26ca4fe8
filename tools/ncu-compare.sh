#!/usr/bin/env bash
# khost's median against Nsight Compute's gpu__time_duration for the same
# kernels on the same case (GPU machine; builds nothing). ncu profiles only the
# kernels a backend's timed calls launch: khost names each call with nested NVTX
# ranges khost/<case>/<backend>/<phase> (docs/METHODOLOGY.md), and ncu includes
# those of phase "timing" alone, so khost's own kernels (L2 flush, blocker,
# clock stamps, the empty and speed-of-light kernels) are never counted. ncu
# flushes caches before each profiled launch (--cache-control all), as khost's
# cold samples do, and leaves clocks alone (--clock-control none), as khost does.
# Usage: tools/ncu-compare.sh BUILD_DIR SUITE CASE BACKENDS [KHOST_FLAGS...]
#   (BACKENDS comma-separated; KHOST_FLAGS go to the timed run, e.g. --timer cupti)
# Exits 1, naming the backend, when ncu profiled no kernel of a backend.
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 BUILD_DIR SUITE CASE BACKENDS [KHOST_FLAGS...]" >&2
  exit 2
fi
build=$1 suite=$2 case=$3 backends=$4
shift 4
work=${NCU_COMPARE_DIR:-/tmp/ncu-compare}
mkdir -p "$work"
export KHOST_SUITE_PATH="$PWD/suites"
"$build/khost" --suite "$suite" --case "$case" --backends "$backends" --json "$work/khost.json" "$@" >/dev/null \
  || khost_rc=$?
# Exit 1 is a row that failed: its backend has no median below, so say so; anything else is no report.
if [ "${khost_rc:-0}" -gt 1 ]; then
  echo "ncu-compare: khost exited $khost_rc" >&2
  exit 1
elif [ "${khost_rc:-0}" -eq 1 ]; then
  echo "ncu-compare: a row did not pass (khost exit 1); see $work/khost.json" >&2
fi
# One ncu run per backend, so that every profiled kernel is that backend's.
# One process, no blocking kernel (ncu serialises launches), 20 timed calls: a profiled
# launch takes far longer than --max-time's default allows for more than one.
IFS=, read -r -a names <<<"$backends"
for b in "${names[@]}"; do
  ncu --clock-control none --cache-control all --target-processes all --metrics gpu__time_duration.sum \
    --nvtx --nvtx-include "khost/$case/$b/timing/" --launch-count 20 --csv \
    "$build/khost" --suite "$suite" --case "$case" --backends "$b" --no-isolate --no-blocking-kernel \
    --warmup 0 --min-samples 20 --min-time 0 --max-time 60 >"$work/ncu.$b.csv" 2>"$work/ncu.$b.err" || ncu_rc=$?
  # khost exits 1 when a row fails, which ncu passes on; anything else means ncu itself failed.
  if [ "${ncu_rc:-0}" -gt 1 ]; then
    echo "ncu-compare: ncu failed on $b (exit $ncu_rc); its messages:" >&2
    tail -20 "$work/ncu.$b.err" >&2
    exit 1
  fi
  if ! grep -q gpu__time_duration "$work/ncu.$b.csv"; then
    echo "ncu-compare: ncu profiled no kernel of $b (no launch inside NVTX range khost/$case/$b/timing/:" \
      "does $b have a CUDA kernel for $case, and did it pass?)" >&2
    exit 1
  fi
done
python3 - "$work" "$backends" <<'PY'
import csv, json, statistics, sys
work, backends = sys.argv[1], sys.argv[2].split(",")
rows = [r for r in json.load(open(f"{work}/khost.json"))["rows"] if r["device"] == "cuda" and r["time"]["median_s"]]
timer = json.load(open(f"{work}/khost.json"))["run"].get("timer") or "events"
scale = {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3, "s": 1.0, "second": 1.0}
print(f"{'backend':12} {'khost (' + timer + ')':>16} {'ncu':>12} {'diff':>8}  kernels (ncu median per launch)")
for b in backends:
    lines = [l for l in open(f"{work}/ncu.{b}.csv") if l.startswith('"')]
    by_kernel = {}
    for rec in csv.DictReader(lines):
        if rec.get("Metric Name") == "gpu__time_duration.sum":
            v = float(rec["Metric Value"].replace(",", "")) * scale[rec["Metric Unit"]]
            by_kernel.setdefault(rec["Kernel Name"], []).append(v)
    # A call of several kernels takes their medians' sum.
    ncu = sum(statistics.median(v) for v in by_kernel.values())
    mine = [r["time"]["median_s"] for r in rows if r["backend"] == b]
    names = "; ".join(f"{k[:60]} n={len(v)}" for k, v in by_kernel.items())
    if not mine:
        print(f"{b:12} {'-':>16} {ncu*1e6:9.2f} us {'-':>8}  {names}")
        continue
    print(f"{b:12} {mine[0]*1e6:13.2f} us {ncu*1e6:9.2f} us {100*(mine[0]/ncu-1):+7.1f}%  {names}")
PY
