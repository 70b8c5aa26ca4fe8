#!/bin/bash
# Run AC: cute.so variants of the GEMV from 4dce792's nvfp4_gemv.cu with
# docs/runs/AC-gemv-variants.patch applied (extra nvcc defines per variant), linked
# with the build's other cute objects into stage/exp4/cute_<tag>.so.
set -e
cd "$(dirname "$0")/../../build"
CI=$(python3 -c "import cutlass_library, os; print(os.path.dirname(cutlass_library.__file__))")/source/include
mkdir -p /tmp/exp ../stage/exp4
build_one() {
  tag=$1; shift
  /usr/local/cuda/bin/nvcc -std=c++17 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -O3 -lineinfo \
    -Xcompiler=-fPIC,-fvisibility=hidden,-Wall,-Wextra -isystem "$CI" -I ../core/include -I ../plugins/cute \
    -I ../plugins/common "$@" -c ../plugins/cute/nvfp4_gemv.cu -o /tmp/exp/gemv_$tag.o
  /usr/local/cuda/bin/nvcc -shared -cudart static -gencode=arch=compute_90a,code=sm_90a \
    -Xlinker --version-script=../plugins/cute/exports.map -Xlinker --no-undefined plugins/cute/plugin.o \
    plugins/cute/cuda_error.o plugins/cute/name.o /tmp/exp/gemv_$tag.o plugins/cute/copy_transpose.o \
    plugins/cute/reduce_sum.o plugins/cute/softmax_online.o -Xlinker plugins/common/libkhost_plugin_common.a \
    -o ../stage/exp4/cute_$tag.so
  echo "built $tag"
}
build_one w4 -DKHOST_EXP_FORCE_W4
build_one pf5 -DKHOST_EXP_PREFETCH -DKHOST_EXP_MIN_BLOCKS=5
build_one pf5w2 -DKHOST_EXP_PREFETCH -DKHOST_EXP_MIN_BLOCKS=5 -DKHOST_EXP_RESIDENT_PER_SM=8
