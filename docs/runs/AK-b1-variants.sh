#!/usr/bin/env bash
# Run AK, call 5: triton_aot GEMV programs with more warps an SM for bench_m7168_k16384_l1 (b1),
# built with docs/runs/AK-manifest2.patch: the new variants checked over correctness.ini and GPU
# MODE's test shapes, then, twice, every variant forced in turn on b1 and performance.ini's GEMV cases.
# Usage: docs/runs/AK-b1-variants.sh   (stage/build carried)
set -u
b=stage/build
new="gemv_m2_k2048_w2_top gemv_m2_k4096_w2_top gemv_m2_k4096_w4_top gemv_m4_k4096_w4_top"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
bash tools/gemv-variants.sh check $b $new
for _ in 1 2; do
  bash tools/gemv-variants.sh time $b 'bench_m7168_k16384*' gemv_m4_k2048_w2_peel $new gemv_m4_k4096_w4
done
