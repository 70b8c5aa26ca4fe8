/* nvfp4_gemv, params m, k, l (m % 128 == 0, k % 64 == 0, l >= 1):
 *   c[b][i] = fp16(sum_j e2m1(a[b][i][j]) * e4m3(sfa[b][i][j/16]) * e2m1(v[b][j]) * e4m3(sfv[b][j/16]))
 * The swizzled scale tensors hold the same scales in the tensor-core layout
 * (docs/FORMATS.md): per batch, off(i, j) = ((i/128)*ceil(K16/4) + j/4)*512 + (i%32)*16
 * + ((i%128)/32)*4 + j%4 with K16 = k/16; the vector's scales use row 0 of a
 * 128-row tile. Padding is zero. */
#ifndef KHOST_OPS_NVFP4_GEMV_H
#define KHOST_OPS_NVFP4_GEMV_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum khost_nvfp4_gemv_inputs {
  KHOST_NVFP4_GEMV_A = 0,       /* e2m1 [l, m, k], packed [l][m][k/2] bytes */
  KHOST_NVFP4_GEMV_V = 1,       /* e2m1 [l, k], packed [l][k/2] bytes */
  KHOST_NVFP4_GEMV_SFA = 2,     /* e4m3 [l, m, k/16] */
  KHOST_NVFP4_GEMV_SFV = 3,     /* e4m3 [l, k/16] */
  KHOST_NVFP4_GEMV_SFA_SWZ = 4, /* e4m3 [l, ceil(m/128) * ceil(k/64) * 512] */
  KHOST_NVFP4_GEMV_SFV_SWZ = 5, /* e4m3 [l, ceil(k/64) * 512] */
  KHOST_NVFP4_GEMV_NINPUTS = 6
};
enum khost_nvfp4_gemv_outputs {
  KHOST_NVFP4_GEMV_C = 0, /* fp16 [l, m] */
  KHOST_NVFP4_GEMV_NOUTPUTS = 1
};

/* Bytes of one batch of swizzled scales for `rows` rows of k elements: whole
 * tiles of 128 rows x 4 scales (512 bytes), padding included. rows = m for
 * sfa_swizzled, 1 for sfv_swizzled. */
static inline int64_t khost_nvfp4_swizzled_bytes(int64_t rows, int64_t k)
{
  return (rows + 127) / 128 * ((k / 16 + 3) / 4) * 512;
}

#ifdef __cplusplus
}
#endif

#endif /* KHOST_OPS_NVFP4_GEMV_H */
