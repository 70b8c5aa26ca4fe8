/* fp8_block_gemm's variant for scales per row of a and b (qm = qn = 1; qk a
 * multiple of 128) on 128 x 128 tiles (fp8_block_gemm_variants.h). */
#include "fp8_block_gemm_kernel.cuh"

KHOST__CUTE_FP8_INSTANTIATE(khost__cute_fp8_rows);
