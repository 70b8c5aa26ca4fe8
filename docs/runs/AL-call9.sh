#!/usr/bin/env bash
# Run AL, call 9 (an H100): the cute GEMV with cutlass::FastDivmod (the working tree after call 8) on the
# GEMV rows of every suite and its test program; the GPU MODE and performance GEMV rows of both plugins
# as reports. The device time left (259 s) allowed no full gpu-check.sh.
export KHOST_SUITE_PATH=$PWD/suites
nvidia-smi --query-gpu=name --format=csv,noheader
KHOST_CUTE_PLUGIN=stage/build/plugins/cute/cute.so stage/build/tests/test_cute --verbose=0 2>&1 | tail -n 2
for s in smoke correctness; do
  stage/build/khost --suite $s --op nvfp4_gemv --max-time 0.02 2>&1 | grep ^summary
done
stage/build/khost --suite gpumode_nvfp4 --json "$OUT/gpumode.json" 2>&1 | grep ^summary
stage/build/khost --suite performance --op nvfp4_gemv --json "$OUT/performance-gemv.json" 2>&1 | grep ^summary
