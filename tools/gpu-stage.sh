#!/usr/bin/env bash
# Copies what a GPU run needs out of a build folder (the binaries, plugins (the
# python plugin's helper and backends/ modules beside python.so included),
# test programs, fixture plugins and the carried libraries) into stage/BUILD_NAME,
# leaving compiler caches and objects behind, so the copy to the GPU machine stays
# small. It also packs it as stage/BUILD_NAME.tar.xz: the carried libraries (OpenBLAS, Criterion's) make the
# folder about 90 MB, the archive about 15.
# Usage: tools/gpu-stage.sh [BUILD_DIR]   then copy either there (tar -xJf stage/BUILD_NAME.tar.xz -C stage).
set -euo pipefail
build=${1:-build}
dest=stage/$(basename "$build")
bash "$(dirname "$0")/carry-libs.sh" "$build" >/dev/null
rm -rf "$dest"
mkdir -p "$dest"
(cd "$build" && find . -type f \( -name '*.so' -o -name 'khost' -o -path './tests/test_*' -o -name '*.txt' \
  -o -path './gpu-libs/*' -o -path './plugins/python/*.py' \) ! -path '*/meson-*' ! -path '*.p/*' ! -path '*/triton-cache/*' -print0) \
  | (cd "$build" && xargs -0 cp --parents -t "$OLDPWD/$dest")
tar -cf - -C stage "$(basename "$build")" | xz -T0 -6 >"$dest.tar.xz"
du -sh "$dest" "$dest.tar.xz"
