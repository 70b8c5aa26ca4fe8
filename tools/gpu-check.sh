#!/usr/bin/env bash
# Everything khost checks on a GPU machine, building nothing (build here, carry
# build/ there): the test binaries, khost on the smoke, correctness, GPU MODE,
# KV-cache and fp8_gemm correctness suites with every plugin, and the fault plugins,
# each expected to be caught. Exits non-zero on any unexpected result; prints a short
# summary last.
# Usage: tools/gpu-check.sh [BUILD_DIR]    (gpu-check.log and the JSON reports go to $OUT or
# /tmp/khost-gpu-check). Build here, then tools/gpu-stage.sh and carry stage/.
set -uo pipefail
# Without a GPU every CUDA row is SKIP and most steps would pass without testing anything.
if ! gpus=$(nvidia-smi -L 2>&1); then
  echo "gpu-check: no GPU visible (nvidia-smi -L: $gpus); run this on a GPU machine" >&2
  exit 1
fi
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-build}")
out=${OUT:-/tmp/khost-gpu-check}
mkdir -p "$out"
log="$out/gpu-check.log"
: >"$log"
export KHOST_SUITE_PATH="$root/suites" KHOST_PLUGIN_PATH=""
# The carried libraries (tools/carry-libs.sh), for khost's own runs too: the reference plugin links OpenBLAS.
export LD_LIBRARY_PATH="$build/gpu-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
summary=()
failed=0

# step NAME EXPECTED_EXIT COMMAND...: runs, logs to $out/NAME.log, records the outcome.
step() {
  local name=$1 expected=$2
  shift 2
  echo "=== $name: $*" | tee -a "$log"
  "$@" >"$out/step.log" 2>&1
  local rc=$?
  cat "$out/step.log" >>"$log"
  tail -n 25 "$out/step.log"
  rm -f "$out/step.log"
  if [ "$rc" -eq "$expected" ]; then
    summary+=("ok    $name")
  else
    summary+=("FAIL  $name (exit $rc, expected $expected; see $log)")
    failed=1
  fi
}

# run_test PROGRAM [CRITERION_ARGS...]: one test program with the build's paths.
run_test() {
  local t=$1
  shift
  LD_LIBRARY_PATH="$build/gpu-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" KHOST_SOURCE_ROOT="$root" \
    KHOST_BUILD_ROOT="$build" KHOST_FIXTURE_DIR="$build/tests" KHOST_EXE="$build/khost" \
    KHOST_REFERENCE_PLUGIN="$build/plugins/reference/reference.so" \
    KHOST_TRITON_AOT_PLUGIN="$build/plugins/triton_aot/triton_aot.so" \
    KHOST_CUTE_PLUGIN="$build/plugins/cute/cute.so" KHOST_VENDOR_PLUGIN="$build/plugins/vendor/vendor.so" \
    KHOST_CUDA_LIBDIR=/usr/local/cuda/lib64 "$t" --verbose=0 "$@"
}

# counted_test PROGRAM [ARGS...]: run_test, adding the run to $failures when it exits non-zero. A
# program can exit 1 with every test passing (Criterion 2.4.1 does after a logged warning), so its
# own summary lines do not show which run failed; this list, printed last, does.
counted_test() {
  run_test "$@" && return 0
  local rc=$?
  failures+=("$(basename "$1")${2:+ ${*:2}}: exit $rc")
}

run_tests() {
  local ran=0
  failures=()
  for t in "$build"/tests/test_*; do
    [ -f "$t" ] && [ -x "$t" ] || continue
    ran=$((ran + 1))
    echo "--- $(basename "$t")"
    # Tests that time or clock the GPU run one at a time: parallel contexts time-slice the GPU under a
    # timed kernel. Of the end-to-end programs only test_e2e_gpu runs khost on the GPU.
    case $(basename "$t") in
    test_cuda | test_reference_cuda | test_e2e_gpu) counted_test "$t" --jobs 1 ;;
    *) counted_test "$t" ;;
    esac
  done
  # A build configured without tests (or a stage without them) must not pass as tested.
  [ "$ran" -gt 0 ] || { echo "no test programs in $build/tests"; return 1; }
  echo "test programs: $ran; runs that exited non-zero: ${#failures[@]}"
  [ ${#failures[@]} -eq 0 ] || printf '  %s\n' "${failures[@]}"
  [ ${#failures[@]} -eq 0 ]
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv 2>&1 | tee -a "$log"
step tests 0 run_tests
step list 0 "$build/khost" --list
step smoke 0 "$build/khost" --suite smoke --json "$out/smoke.json"
# Correctness needs no precise timing: a short budget per row keeps the whole suite quick. Three
# fresh input sets (--trials) after timing, as a kernel wrong on some inputs only may pass one.
step correctness 0 "$build/khost" --suite correctness --max-time 0.1 --trials 3 --json "$out/correctness.json"
step gpumode 0 "$build/khost" --suite gpumode_nvfp4 --trials 3 --json "$out/gpumode.json"
# The KV-cache conversions with every plugin: the reference's CPU and CUDA kernels, cute and
# triton_aot; vendor's operational rows (cudaMemcpyBatchAsync, not capturable: checked and timed without a
# CUDA graph, docs/VENDOR.md); its universal rows are declined SKIPs.
step kv_correctness 0 "$build/khost" --suite kv_correctness --max-time 0.1 --trials 3 \
  --json "$out/kv_correctness.json"
# fp8_block_gemm's block shapes and edge sizes, for every plugin that has the op (triton_aot's split
# variants and their reduction included: the rule splits the small cases).
step fp8_correctness 0 "$build/khost" --suite fp8_gemm_correctness --max-time 0.1 --trials 3 \
  --json "$out/fp8_correctness.json"
# The vendor libraries as the yardstick (cuBLASLt, CUB): every vendor row must pass, or the
# speedups would be relative to nothing.
step vendor_baseline 0 "$build/khost" --strict --suite correctness --op reduce_sum --max-time 0.1 \
  --backends vendor --baseline vendor --json "$out/vendor_baseline.json"
step faults 0 "$root/tests/plugins/fault_check.sh" "$build" "$out"

echo
echo "gpu-check summary ($(date -u +%FT%TZ)):"
printf '  %s\n' "${summary[@]}"
exit $failed
