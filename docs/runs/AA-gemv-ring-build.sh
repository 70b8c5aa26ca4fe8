#!/bin/bash
# temporary: cute.so variants of the GEMV (extra nvcc defines per variant)
set -e
cd /work/main/build
CI=/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/cutlass_library/source/include
build_one() {
  tag=$1; shift
  /usr/local/cuda/bin/nvcc -std=c++17 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -O3 -lineinfo -Xcompiler=-fPIC,-fvisibility=hidden,-Wall,-Wextra -isystem $CI -I /work/main/core/include -I /work/main/plugins/cute -I /work/main/plugins/common "$@" -c ../plugins/cute/nvfp4_gemv.cu -o /tmp/exp/gemv_$tag.o
  /usr/local/cuda/bin/nvcc -shared -cudart static -gencode=arch=compute_90a,code=sm_90a -Xlinker --version-script=/work/main/plugins/cute/exports.map -Xlinker --no-undefined plugins/cute/plugin.o plugins/cute/cuda_error.o plugins/cute/name.o /tmp/exp/gemv_$tag.o plugins/cute/copy_transpose.o plugins/cute/reduce_sum.o plugins/cute/softmax_online.o -Xlinker /work/main/build/plugins/common/libkhost_plugin_common.a -o /work/main/stage/exp/cute_$tag.so
  echo built $tag
}
build_one ring2 -DKHOST_EXP_RING=2 &
build_one ring3 -DKHOST_EXP_RING=3 &
wait
