#!/usr/bin/env bash
# Run AK, call 2: the shipped 4-row one-warp GEMV program against the 2-row one (k tile 2048) on
# the GPU at hand, built with docs/runs/AK-manifest.patch: twice, each forced in turn on
# bench_m7168_k2048_l4 and performance.ini's GEMV cases, and over docs/runs/AK-rule.ini.
# Usage: docs/runs/AK-variants2.sh   (stage/build carried)
set -u
b=stage/build
v="gemv_m4_k1024_w1_top gemv_m2_k2048_w1_top"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for _ in 1 2; do
  bash tools/gemv-variants.sh time $b 'bench_m7168_k2048*' $v
  SUITE=docs/runs/AK-rule.ini bash docs/runs/AH-rule.sh $b $v
done
