#!/usr/bin/env bash
# Every fault plugin (fault.c, fault_cuda.cu) on one small case of the ops they
# implement, on a GPU machine: each must get its expected status while the good rows
# pass. Exits non-zero otherwise. tools/gpu-check.sh runs it.
# Usage: tests/plugins/fault_check.sh BUILD_DIR OUT_DIR   (OUT_DIR gets faults.json)
set -uo pipefail
build=$1 out=$2
export KHOST_SUITE_PATH="$(cd "$(dirname "$0")/../.." && pwd)/suites" KHOST_PLUGIN_PATH=""
faults=()
for f in "$build"/tests/fault_*.so; do faults+=(--plugin "$f"); done
"$build/khost" --op copy_transpose,nvfp4_gemv --case 'copy_transpose_fp32_*,tiny_single' --timeout 10 \
  --max-time 0.05 --json "$out/faults.json" "${faults[@]}"
rc=$?
[ "$rc" -eq 1 ] || { echo "khost exited $rc with failing plugins present; expected 1"; exit 1; }
python3 - "$out/faults.json" <<'PY'
import json, sys
want = {"fault_free": "PASS", "fault_segv": "CRASH", "fault_abort": "CRASH", "fault_exit0": "CRASH",
        "fault_hang": "TIMEOUT", "fault_status": "ERROR", "fault_decline": "SKIP", "fault_cached": "FAIL", "fault_cached_address": "FAIL",
        "fault_lazy": "FAIL", "fault_cuda_free": "PASS", "fault_cuda_no_write": "FAIL",
        "fault_cuda_other_stream": "ERROR", "fault_cuda_captured_once": "PASS", "fault_cuda_illegal_address": "CRASH", "fault_cuda_write_past_end": "FAIL",
        "fault_no_write": "FAIL", "fault_skip_last": "FAIL", "fault_write_past_end": "FAIL", "fault_mutate_input": "ERROR", "fault_mutate_late": "ERROR",
        "fault_describe_fails": "ERROR", "fault_supports_fails": "ERROR", "fault_mutate_status": "ERROR",
        "fault_segv_fresh": "CRASH", "fault_cuda_supports_faults": "CRASH",
        "reference": "PASS"}
rows = json.load(open(sys.argv[1]))["rows"]
bad = [(r["case"], r["backend"], r["device"], r["status"]) for r in rows
       if r["op"] == "copy_transpose" and want.get(r["backend"], r["status"]) != r["status"]]
# A fault plugin that did not load has no row: that is a failure too, not a pass.
seen = {r["backend"] for r in rows if r["op"] == "copy_transpose"}
bad += [("copy_transpose", backend, "-", "no row") for backend in sorted(want.keys() - seen)]
wrong_block = [r["status"] for r in rows if r["backend"] == "fault_wrong_block" and r["op"] == "nvfp4_gemv"]
if wrong_block != ["FAIL"]: bad.append(("tiny_single", "fault_wrong_block", "cpu", wrong_block))
print("unexpected:", bad) if bad else print("every fault caught as expected")
sys.exit(1 if bad else 0)
PY
