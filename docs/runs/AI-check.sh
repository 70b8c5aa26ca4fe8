#!/usr/bin/env bash
# Run AI, calls 3 and 4: the 2-warp GEMV forms over docs/runs/AI-peel.ini, each forced, in turn,
# twice; then gpu-check.sh and the GEMV tables of the build. Usage: docs/runs/AI-check.sh LABEL
set -u
b=stage/build
export KHOST_SUITE_PATH=$PWD/suites
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for i in 1 2; do
  SUITE=docs/runs/AI-peel.ini bash docs/runs/AH-rule.sh $b gemv_m4_k2048_w2 gemv_m4_k2048_w2_peel
done
OUT=/tmp/ai-check bash tools/gpu-check.sh $b >/tmp/ai-check.txt 2>&1
echo "gpu-check exit $?"
tail -n 14 /tmp/ai-check.txt
cp /tmp/ai-check/gpu-check.log "$OUT/AI-$1-gpu-check.log"
$b/khost --suite gpumode_nvfp4 --json "$OUT/AI-$1-gpumode.json" >/dev/null 2>&1; echo "gpumode exit $?"
$b/khost --suite performance --op nvfp4_gemv --json "$OUT/AI-$1-performance-gemv.json" >/dev/null 2>&1; echo "performance exit $?"
