#!/usr/bin/env bash
# Run AJ, call 5: gpu-check.sh's test step, but with each test program's exit status printed (call 4's
# step exited 1 while every Criterion synthesis in its log read 0 failing, 0 crashing). Call 5 ran it
# with build=stage/build, relative, as KHOST_FIXTURE_DIR too: test_loader's twin-folder links then
# pointed nowhere (3 failures there, not in gpu-check.sh, which passes absolute paths). Since then
# the path is absolute here and test_loader links to the fixtures' real paths.
set -u
build=$PWD/stage/build root=$PWD
export KHOST_SUITE_PATH=$PWD/suites
run_test() {
  local t=$1
  shift
  LD_LIBRARY_PATH="$build/gpu-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" KHOST_SOURCE_ROOT="$root" \
    KHOST_BUILD_ROOT="$build" KHOST_FIXTURE_DIR="$build/tests" KHOST_EXE="$build/khost" \
    KHOST_REFERENCE_PLUGIN="$build/plugins/reference/reference.so" \
    KHOST_TRITON_AOT_PLUGIN="$build/plugins/triton_aot/triton_aot.so" \
    KHOST_CUTE_PLUGIN="$build/plugins/cute/cute.so" "$t" --verbose=0 "$@" >"$OUT/t.txt" 2>&1
  local rc=$?
  echo "$(basename "$t") $* exit $rc: $(grep Synthesis "$OUT/t.txt")"
  [ $rc -eq 0 ] || { cp "$OUT/t.txt" "$OUT/AJ-call5-$(basename "$t")-$rc.txt"; tail -n 5 "$OUT/t.txt"; }
}
for t in "$build"/tests/test_*; do
  [ -f "$t" ] && [ -x "$t" ] || continue
  case $(basename "$t") in
  test_cuda | test_reference_cuda) run_test "$t" --jobs 1 ;;
  test_khost) run_test "$t" --filter 'gpu_*/*' --jobs 1; run_test "$t" --filter '!(gpu_*)/*' ;;
  *) run_test "$t" ;;
  esac
done
rm -f "$OUT/t.txt"
