#!/usr/bin/env bash
# Run AI, call 2: the load-ahead variants against their peeled forms on the GPU MODE test shapes
# (where the rule gives the 2- and 4-warp variants), each forced, in turn, twice.
set -u
b=stage/build
export KHOST_SUITE_PATH=$PWD/suites
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for i in 1 2; do
  bash tools/gemv-variants.sh time $b 'test_*' gemv_m4_k4096_w4 gemv_m4_k4096_w4_peel gemv_m4_k2048_w2 gemv_m4_k2048_w2_peel rule 2>&1 | grep -v '^NVIDIA'
done
