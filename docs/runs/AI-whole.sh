#!/usr/bin/env bash
# Run AI, calls 6 and 7: triton_aot's GEMV with the first tile read unmasked when k is a whole number of
# tiles (stage/wt-triton_aot.so, swapped into a copy of stage/build) against the shipped build, in turn.
# Usage: [CASES=GLOB] [SKIP_CHECK=1] docs/runs/AI-whole.sh
set -u
export KHOST_SUITE_PATH=$PWD/suites
rm -rf /tmp/wt && cp -r stage/build /tmp/wt && cp stage/wt-triton_aot.so /tmp/wt/plugins/triton_aot/triton_aot.so
[ -n "${SKIP_CHECK:-}" ] || bash tools/gemv-variants.sh check /tmp/wt gemv_m4_k1024_w1_top gemv_m4_k4096_w4 gemv_m4_k2048_w2_peel gemv_m4_k2048_w2 | grep -v '^NVIDIA'
nvidia-smi --query-gpu=name --format=csv,noheader
for i in 1 2; do
  for b in stage/build /tmp/wt; do
    bash tools/gemv-variants.sh time $b "${CASES:-bench_*}" rule | grep -v '^NVIDIA' | sed "s|^rule|${b#/tmp/}|"
  done
done
