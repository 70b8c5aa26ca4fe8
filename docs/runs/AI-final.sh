#!/usr/bin/env bash
# Run AI, call 8: the build with whole first tiles (stage/build) against the one before it
# (stage/old-triton_aot.so swapped into a copy), in turn, twice; then gpu-check.sh and the GEMV tables.
# Usage: docs/runs/AI-final.sh LABEL
set -u
export KHOST_SUITE_PATH=$PWD/suites
rm -rf /tmp/old && cp -r stage/build /tmp/old && cp stage/old-triton_aot.so /tmp/old/plugins/triton_aot/triton_aot.so
nvidia-smi --query-gpu=name --format=csv,noheader
for i in 1 2; do
  for b in /tmp/old stage/build; do
    bash tools/gemv-variants.sh time $b 'bench_*' rule | grep -v '^NVIDIA' | sed "s|^rule|${b#/tmp/}|"
  done
done
OUT=/tmp/ai-check bash tools/gpu-check.sh stage/build >/tmp/ai-check.txt 2>&1
echo "gpu-check exit $?"
tail -n 9 /tmp/ai-check.txt
cp /tmp/ai-check/gpu-check.log "$OUT/AI-$1-gpu-check.log"
stage/build/khost --suite gpumode_nvfp4 --json "$OUT/AI-$1-gpumode.json" >/dev/null 2>&1; echo "gpumode exit $?"
stage/build/khost --suite performance --op nvfp4_gemv --json "$OUT/AI-$1-performance-gemv.json" >/dev/null 2>&1; echo "performance exit $?"
