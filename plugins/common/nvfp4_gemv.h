/* The validation every plugin's nvfp4_gemv shares: params m, k, l, the six
 * inputs (the plain and the swizzled scales) and the output, against the shapes
 * the params imply (khost/ops/nvfp4_gemv.h). */
#ifndef KHOST_PLUGIN_NVFP4_GEMV_H
#define KHOST_PLUGIN_NVFP4_GEMV_H

#include <stdint.h>

#include "khost/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Elements per scale block: one e4m3 scale per 16 e2m1 values. */
#define KHOST__GEMV_BLOCK 16

/* A validated nvfp4_gemv call. The pointers are the call's tensors (on its
 * device), owned by the host and valid for the call. */
typedef struct khost__gemv {
  int64_t m, k, l;
  const void *a, *v, *sfa, *sfv; /* e2m1 packed, e2m1 packed, e4m3 plain, e4m3 plain */
  void *c;                       /* fp16 */
} khost__gemv;

/* Validates a call whose tensors live on device_type and fills *gemv.
 * INVALID_ARGUMENT for a missing param, one outside [1 (16 for k), max_param]
 * (max_param capped at 2^31 - 1),
 * k not a multiple of 16, or a malformed tensor (khost__input_tensor's rules). */
int khost__gemv_open(const khost_input *in, int32_t device_type, int64_t max_param, khost__gemv *gemv);

#ifdef __cplusplus
}
#endif

#endif
