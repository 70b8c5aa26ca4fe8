#!/usr/bin/env bash
# Run AK: triton_aot GEMV programs of 2 rows (k tile 2048) and 1 row (tile 4096) against the
# shipped 4-row one-warp program, built with docs/runs/AK-manifest.patch. The two candidates are
# checked over correctness.ini and GPU MODE's test shapes; then, twice, every variant is forced in
# turn on bench_m7168_k2048_l4 and performance.ini's GEMV cases, and over docs/runs/AK-rule.ini.
# Usage: docs/runs/AK-variants.sh   (stage/build carried)
set -u
b=stage/build
v="gemv_m4_k1024_w1_top gemv_m2_k2048_w1_top gemv_m1_k4096_w1_top gemv_m2_k2048_w2_top"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
bash tools/gemv-variants.sh check $b gemv_m2_k2048_w1_top gemv_m1_k4096_w1_top
for _ in 1 2; do
  bash tools/gemv-variants.sh time $b 'bench_m7168_k2048*' $v
  SUITE=docs/runs/AK-rule.ini bash docs/runs/AH-rule.sh $b $v
done
