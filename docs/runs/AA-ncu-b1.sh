#!/bin/bash
# temporary: Nsight Compute on the b1 GEMV kernels of cute and triton_aot (whatever the rule picks here)
E=stage/exp
export KHOST_PLUGIN_PATH=""
nvidia-smi --query-gpu=name --format=csv,noheader
for b in cute triton_aot; do
  if [ $b = cute ]; then k='gemv_rowsILi32ELi2'; else k='^nvfp4_gemv'; fi
  args="$E/khost --suite $E/gemv4.ini --case bench_m7168_k16384_l1 --backends $b --no-isolate --no-blocking-kernel --warmup 0 --min-samples 5 --max-time 0.05"
  sel="--clock-control none --cache-control all --target-processes all --kernel-name-base mangled -k regex:$k --launch-skip 3 --launch-count 1"
  ncu $sel --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats \
    --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section InstructionStats \
    --section MemoryWorkloadAnalysis_Tables --page raw $args > $OUT/ncu-b1-$b.txt 2>&1
  echo "$b exit $?"
done
$E/khost --suite $E/gemv4.ini --backends cute,triton_aot --max-time 0.5 2>&1 | grep -E '^case|^  (cute|triton_aot) +cuda|copy peak'
