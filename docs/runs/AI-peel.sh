#!/usr/bin/env bash
# Run AI, call 1: triton_aot's load-ahead GEMV variants against the same loop with its last
# dot peeled after the loop (no reload pass), each forced, in turn, on the bench shapes.
set -u
b=stage/build
export KHOST_SUITE_PATH=$PWD/suites
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
bash tools/gemv-variants.sh check $b gemv_m4_k2048_w2_peel gemv_m4_k4096_w4_peel
for i in 1 2; do
  bash tools/gemv-variants.sh time $b 'bench_*' gemv_m4_k2048_w2 gemv_m4_k2048_w2_peel 2>&1 | grep -v '^NVIDIA'
done
