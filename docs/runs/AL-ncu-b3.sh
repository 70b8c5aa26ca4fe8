#!/usr/bin/env bash
# Run AL: Nsight Compute on bench_m7168_k2048_l4's GEMV kernels: cute's gemv_rows<32,1,1> and triton_aot's
# nvfp4_gemv as its rule picks it (gemv_m4_k1024_w1_top) and forced to gemv_m2_k2048_w1_top. One flushed launch
# each (the 4th), ncu's own clocks. Usage: docs/runs/AL-ncu-b3.sh BUILD   (reports under $OUT)
set -u
build=$1
export KHOST_SUITE_PATH=$PWD/suites
nvidia-smi --query-gpu=name --format=csv,noheader
profile() { # NAME BACKEND KERNEL_REGEX
  local args="$build/khost --suite gpumode_nvfp4 --case bench_m7168_k2048_l4 --backends $2 --no-isolate"
  args="$args --no-blocking-kernel --warmup 0 --min-samples 5 --max-time 0.05"
  ncu --clock-control none --cache-control all --target-processes all --kernel-name-base mangled -k "regex:$3" \
    --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section SchedulerStats --section WarpStateStats --section MemoryWorkloadAnalysis \
    --section ComputeWorkloadAnalysis --section InstructionStats --section MemoryWorkloadAnalysis_Tables \
    --page raw $args >"$OUT/ncu-b3-$1.txt" 2>&1
  echo "$1 exit $?"
}
profile cute cute 'gemv_rowsILi32ELi1ELi1E'
profile triton-m4 triton_aot '^nvfp4_gemv'
export KHOST_TRITON_VARIANT=gemv_m2_k2048_w1_top
profile triton-m2 triton_aot '^nvfp4_gemv'
unset KHOST_TRITON_VARIANT
