/* fp8_block_gemm's variant for blocks of multiples of 128 (qm, qn, qk) on 128 x 128 tiles
 * (fp8_block_gemm_variants.h). */
#include "fp8_block_gemm_kernel.cuh"

KHOST__CUTE_FP8_INSTANTIATE(khost__cute_fp8_blocks);
