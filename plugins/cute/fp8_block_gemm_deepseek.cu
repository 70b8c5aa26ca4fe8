/* fp8_block_gemm's variant for DeepSeek-V3's scales (qm = 1, qn = qk = 128) on
 * 128 x 128 tiles, cluster 1 (fp8_block_gemm_variants.h). */
#include "fp8_block_gemm_kernel.cuh"

KHOST__CUTE_FP8_INSTANTIATE(khost__cute_fp8_deepseek);
