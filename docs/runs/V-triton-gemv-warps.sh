#!/usr/bin/env bash
# EXPERIMENT run V call 1 (H100): triton_aot GEMV programs of 4 rows whose warps share k (64 registers), forced by
# KHOST_TRITON_VARIANT, with the variants appended to manifest.py for the call. Written as a loop of the same khost
# commands; tools/gemv-variants.sh now holds them (the log's "shipped" is the tool's "rule").
tools/gemv-variants.sh check stage/build gemv_m4_k2048_w2 gemv_m4_k4096_w4 gemv_split2_m4_k2048_w2 gemv_m8_k4096_w4
tools/gemv-variants.sh time stage/build 'bench_*' rule gemv_m4_k2048_w2 gemv_m4_k4096_w4 gemv_split2_m4_k2048_w2 \
  gemv_m8_k4096_w4 gemv_split2_m8_k2048_w2 gemv_m4_k1024_w1 rule
# Call 2 (H200): every GPU MODE shape, test shapes too.
tools/gemv-variants.sh time stage/build '*' rule gemv_m4_k2048_w2 gemv_split2_m8_k2048_w2 gemv_m4_k1024_w1 \
  gemv_m8_k4096_w4 rule
