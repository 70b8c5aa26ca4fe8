#!/bin/bash
# build.sh NAME GEMV_SOURCE OUTDIR: a cute plugin named NAME with the given GEMV source.
set -e
name=$1 src=$2 out=$3
cd /work/main
inc=$(python3 -c 'import importlib.util as u; s=u.find_spec("cutlass_library"); print(s.submodule_search_locations[0])')/source/include
flags="-std=c++17 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -O3 -lineinfo -Xcompiler=-fPIC,-fvisibility=hidden -isystem $inc -I core/include -I plugins/cute -I plugins/common"
mkdir -p $out /tmp/oc/$name
sed "s/^  \"cute\",$/  \"$name\",/" plugins/cute/plugin.cu > /tmp/oc/$name/plugin.cu
grep -c "\"$name\"" /tmp/oc/$name/plugin.cu
cp $src /tmp/oc/$name/nvfp4_gemv.cu
nvcc $flags -c /tmp/oc/$name/plugin.cu -o /tmp/oc/$name/plugin.o &
nvcc $flags -c /tmp/oc/$name/nvfp4_gemv.cu -o /tmp/oc/$name/nvfp4_gemv.o
wait
b=build/plugins/cute
nvcc -shared -cudart static -gencode=arch=compute_90a,code=sm_90a -Xlinker --version-script=plugins/cute/exports.map -Xlinker --no-undefined /tmp/oc/$name/plugin.o $b/cuda_error.o $b/name.o /tmp/oc/$name/nvfp4_gemv.o $b/copy_transpose.o $b/reduce_sum.o $b/softmax_online.o -Xlinker build/plugins/common/libkhost_plugin_common.a -o $out/$name.so
ls -la $out/$name.so
