/* The validation every plugin's fp8_block_gemm shares: params m, n, k, qm, qn, qk,
 * the six inputs (both layouts of the scales) and the output, against the shapes
 * the params imply (khost/ops/fp8_block_gemm.h). */
#ifndef KHOST_PLUGIN_FP8_BLOCK_GEMM_H
#define KHOST_PLUGIN_FP8_BLOCK_GEMM_H

#include <stdint.h>

#include "khost/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A validated fp8_block_gemm call. The pointers are the call's tensors (on its
 * device), owned by the host and valid for the call. */
typedef struct khost__fp8_gemm {
  int64_t m, n, k, qm, qn, qk;
  const uint8_t *a, *b;     /* e4m3fn [m, k], [n, k] */
  const float *sa, *sb;     /* [ceil(m/qm), k/qk], [ceil(n/qn), k/qk] */
  const float *sa_t, *sb_t; /* the same, transposed */
  uint16_t *out;            /* bf16 [m, n] */
} khost__fp8_gemm;

/* Validates a call whose tensors live on device_type and fills *gemm.
 * INVALID_ARGUMENT for a missing param, one outside [1, 2^31 - 1] (m, n, k) or
 * [1, 2^16] (qm, qn, qk: the oracle's block sums are exact up to 2^17 terms), k
 * not a multiple of qk, or a malformed tensor (khost__input_tensor's rules). */
int khost__fp8_gemm_open(const khost_input *in, int32_t device_type, khost__fp8_gemm *gemm);

#ifdef __cplusplus
}
#endif

#endif
