#!/bin/bash
# Run AE: Nsight Compute on test_m2432_k4608_l2's GEMV kernels of cute and triton_aot (the rule's
# choice of each), to measure the cause of triton_aot's gap there (docs/PERF.md run AE).
S=${1:-stage/build}
export KHOST_PLUGIN_PATH="" KHOST_SUITE_PATH=$PWD/suites
for b in cute triton_aot; do
  if [ $b = cute ]; then k='gemv_rowsILi'; else k='^nvfp4_gemv'; fi
  args="$S/khost --suite gpumode_nvfp4 --case test_m2432_k4608_l2 --backends $b --no-isolate --no-blocking-kernel --warmup 0 --min-samples 5 --max-time 0.05"
  sel="--clock-control none --cache-control all --target-processes all --kernel-name-base mangled -k regex:$k --launch-skip 3 --launch-count 1"
  ncu $sel --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats \
    --section WarpStateStats --section InstructionStats --page details $args > $OUT/ncu-m2432-$b.txt 2>&1
  echo "$b ncu exit $?"
done
