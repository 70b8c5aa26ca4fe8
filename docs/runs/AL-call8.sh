#!/usr/bin/env bash
# Run AL, call 8 (an H200): cute's GEMV with the batch index by cutlass::FastDivmod (plugin cute_fdm in xplug/)
# checked over correctness.ini's GEMV cases and GPU MODE's shapes, then timed beside the shipped cute.
export KHOST_SUITE_PATH=$PWD/suites
for s in correctness gpumode_nvfp4; do
  stage/build/khost --suite $s --op nvfp4_gemv --backends cute_fdm --plugin-dir xplug --max-time 0.02 2>&1 | grep ^summary
done
bash docs/runs/AL-b32.sh stage/build xplug cute_fdm
