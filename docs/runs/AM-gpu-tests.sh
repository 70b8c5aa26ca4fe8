#!/usr/bin/env bash
# test_khost's GPU suites alone, with gpu-check.sh's environment.
build=$(realpath stage/build); root=$PWD
LD_LIBRARY_PATH="$build/gpu-libs" KHOST_SOURCE_ROOT="$root" KHOST_SUITE_PATH="$root/suites" KHOST_PLUGIN_PATH="" \
  KHOST_BUILD_ROOT="$build" KHOST_FIXTURE_DIR="$build/tests" KHOST_EXE="$build/khost" \
  KHOST_REFERENCE_PLUGIN="$build/plugins/reference/reference.so" \
  KHOST_TRITON_AOT_PLUGIN="$build/plugins/triton_aot/triton_aot.so" KHOST_CUTE_PLUGIN="$build/plugins/cute/cute.so" \
  "$build/tests/test_khost" --verbose=1 --filter 'gpu_*/*' --jobs 1
