#!/usr/bin/env bash
# Run AM: a plugin named NAME holding only cute's nvfp4_gemv, built from GEMV_SOURCE (a variant of
# plugins/cute/nvfp4_gemv.cu) into OUTDIR, small enough that several travel with the tree. Needs a
# configured build/ (its cute objects and common library). Usage: AM-gemv-plugin.sh NAME GEMV_SOURCE OUTDIR
set -euo pipefail
name=$1 src=$2 out=$3
cd "$(dirname "$0")/../.."
inc=$(python3 -c 'import importlib.util as u; s=u.find_spec("cutlass_library"); print(s.submodule_search_locations[0])')/source/include
flags="-std=c++17 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -O3 -lineinfo
  -Xcompiler=-fPIC,-fvisibility=hidden -isystem $inc -I core/include -I plugins/cute -I plugins/common"
tmp=/tmp/am-plugin/$name
mkdir -p "$out" "$tmp"
# The descriptor with the plugin's name changed and the GEMV its one kernel.
sed -e "0,/^  \"cute\",$/s//  \"$name\",/" -e '/&khost__cute_copy_transpose,/d' -e '/&khost__cute_reduce_sum,/d' \
  -e '/&khost__cute_softmax_online,/d' plugins/cute/plugin.cu >"$tmp/plugin.cu"
[ "$(grep -c "&khost__cute_\|\"$name\"" "$tmp/plugin.cu")" = 2 ]
cp "$src" "$tmp/nvfp4_gemv.cu"
# shellcheck disable=SC2086
nvcc $flags -c "$tmp/plugin.cu" -o "$tmp/plugin.o" &
# shellcheck disable=SC2086
nvcc $flags -c "$tmp/nvfp4_gemv.cu" -o "$tmp/nvfp4_gemv.o"
wait
b=build/plugins/cute
nvcc -shared -cudart static -gencode=arch=compute_90a,code=sm_90a -Xlinker --version-script=plugins/cute/exports.map \
  -Xlinker --no-undefined "$tmp/plugin.o" $b/cuda_error.o $b/name.o "$tmp/nvfp4_gemv.o" \
  -Xlinker build/plugins/common/libkhost_plugin_common.a -o "$out/$name.so"
strip "$out/$name.so"
ls -la "$out/$name.so"
