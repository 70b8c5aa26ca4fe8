/* fp8_block_gemm, params m, n, k and the scale block shape qm, qn, qk (k % qk == 0):
 *   out[i][j] = bf16(sum_k (a[i][k] * sa[i/qm][k/qk]) * (b[j][k] * sb[j/qn][k/qk]))
 * a and b are e4m3fn, both K-contiguous; their scales are fp32, one per block of
 * qm x qk elements of a and qn x qk elements of b, the last block row partial when
 * qm (qn) does not divide m (n). DeepSeek-V3's scaling is qm = 1, qn = qk = 128.
 * The transposed scale tensors hold the same scales, block column major. */
#ifndef KHOST_OPS_FP8_BLOCK_GEMM_H
#define KHOST_OPS_FP8_BLOCK_GEMM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum khost_fp8_block_gemm_inputs {
  KHOST_FP8_BLOCK_GEMM_A = 0,    /* e4m3fn [m, k] */
  KHOST_FP8_BLOCK_GEMM_B = 1,    /* e4m3fn [n, k] */
  KHOST_FP8_BLOCK_GEMM_SA = 2,   /* fp32 [ceil(m/qm), k/qk] */
  KHOST_FP8_BLOCK_GEMM_SB = 3,   /* fp32 [ceil(n/qn), k/qk] */
  KHOST_FP8_BLOCK_GEMM_SA_T = 4, /* fp32 [k/qk, ceil(m/qm)]: sa transposed */
  KHOST_FP8_BLOCK_GEMM_SB_T = 5, /* fp32 [k/qk, ceil(n/qn)]: sb transposed */
  KHOST_FP8_BLOCK_GEMM_NINPUTS = 6
};
enum khost_fp8_block_gemm_outputs {
  KHOST_FP8_BLOCK_GEMM_OUT = 0, /* bf16 [m, n] */
  KHOST_FP8_BLOCK_GEMM_NOUTPUTS = 1
};

/* Rows of a scale tensor for `rows` rows in blocks of `q` rows: ceil(rows / q). */
static inline int64_t khost_fp8_block_gemm_scale_rows(int64_t rows, int64_t q)
{
  return (rows + q - 1) / q;
}

#ifdef __cplusplus
}
#endif

#endif /* KHOST_OPS_FP8_BLOCK_GEMM_H */
