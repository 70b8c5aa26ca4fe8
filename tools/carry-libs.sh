#!/usr/bin/env bash
# Copies the shared libraries the test binaries and the plugins need (Criterion,
# OpenBLAS for the reference plugin, and their dependencies) into BUILD/gpu-libs,
# so tests and khost can run on the GPU machine, which has no Debian -dev packages
# (put BUILD/gpu-libs on LD_LIBRARY_PATH there). glibc itself is left to the target machine.
set -euo pipefail
build=${1:-build}
[ -x "$build/khost" ] || { echo "carry-libs: $build is not a khost build folder (no $build/khost)" >&2; exit 2; }
mkdir -p "$build/gpu-libs"
for exe in "$build"/tests/test_* "$build"/plugins/*/*.so; do
  [ -f "$exe" ] || continue
  ldd "$exe" | awk '/=> \//{print $3}'
done | sort -u | grep -vE '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*)\.so' \
  | while read -r lib; do cp -L "$lib" "$build/gpu-libs/"; done
du -sh "$build/gpu-libs"
