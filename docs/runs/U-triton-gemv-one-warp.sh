#!/usr/bin/env bash
# EXPERIMENT run U: one-warp triton_aot GEMV variants (4 rows a program, 64 registers), forced by KHOST_TRITON_VARIANT.
# Rewritten in run V as calls of tools/gemv-variants.sh, which runs the same khost commands
# (the log's "shipped" is the tool's "rule").
tools/gemv-variants.sh check stage/build gemv_m4_k1024_w1 gemv_split2_m4_k1024_w1 gemv_split4_m4_k1024_w1 \
  gemv_split2_m4_k512_w1
tools/gemv-variants.sh time stage/build 'bench_*' rule gemv_m4_k1024_w1 gemv_split2_m4_k1024_w1 \
  gemv_split4_m4_k1024_w1 gemv_split2_m4_k512_w1 gemv_m16_k1024_w4 gemv_split2_m8_k2048_w2 rule
