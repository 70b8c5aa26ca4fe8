#!/usr/bin/env bash
# Run AL, call 2 (an H100): the two new GEMV variants of docs/runs/AL-manifest.patch checked, four one-warp
# variants timed on b3 and the performance shapes, and the peeled 2-warp variant beside the 2-row one-warp one
# on docs/runs/AK-wave.ini, each twice in turn.
export KHOST_SUITE_PATH=$PWD/suites
bash tools/gemv-variants.sh check stage/build gemv_m1_k2048_w1_top gemv_m2_k1024_w1_top
for _ in 1 2; do bash tools/gemv-variants.sh time stage/build 'bench_m7168_k2048*' gemv_m4_k1024_w1_top gemv_m2_k2048_w1_top gemv_m1_k2048_w1_top gemv_m2_k1024_w1_top; done
for _ in 1 2; do SUITE=docs/runs/AK-wave.ini bash docs/runs/AH-rule.sh stage/build gemv_m4_k2048_w2_peel gemv_m2_k2048_w1_top; done
