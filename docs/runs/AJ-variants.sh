#!/usr/bin/env bash
# Run AJ, call 1: candidate GEMV variants for bench_m7168_k2048_l4 (b3), built with
# docs/runs/AJ-manifest.patch: each checked over correctness.ini and GPU MODE's test shapes,
# then each forced, in turn, twice, on b3 and performance.ini's GEMV cases.
# Usage: docs/runs/AJ-variants.sh VARIANT...
set -u
b=stage/build
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
bash tools/gemv-variants.sh check $b "$@"
for i in 1 2; do
  bash tools/gemv-variants.sh time $b 'bench_m7168_k2048*' "$@"
done
# With RULE_VARIANTS set: those variants over docs/runs/AH-rule.ini's full grids, once each.
if [ -n "${RULE_VARIANTS:-}" ]; then
  bash docs/runs/AH-rule.sh $b $RULE_VARIANTS
fi
