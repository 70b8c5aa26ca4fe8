/* The validation the float row ops share in every plugin: params m and n, one
 * input [m, n] of fp16, bf16 or fp32, one output of the same dtype shaped by the
 * op (khost/ops/rowwise.h). */
#ifndef KHOST_PLUGIN_ROW_INPUTS_H
#define KHOST_PLUGIN_ROW_INPUTS_H

#include <stdint.h>

#include "khost/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a row-wise op's output shape follows its input [m, n]. */
typedef enum khost__rows_out {
  KHOST__ROWS_OUT_SAME,       /* [m, n] */
  KHOST__ROWS_OUT_TRANSPOSED, /* [n, m] */
  KHOST__ROWS_OUT_REDUCED     /* [m] */
} khost__rows_out;

/* The element types the row-wise ops handle. */
typedef enum khost__rows_type { KHOST__ROWS_FP16, KHOST__ROWS_BF16, KHOST__ROWS_FP32 } khost__rows_type;

/* A validated row-wise call. in and out point into the call's tensors (on its
 * device), owned by the host and valid for the call. */
typedef struct khost__rows {
  int64_t m, n;
  khost__rows_type type;
  khost_dtype dtype;
  int element_bytes;
  const void *in;
  void *out;
} khost__rows;

/* Validates a row-wise call whose tensors live on device_type and fills *rows.
 * UNSUPPORTED for an input dtype other than fp16, bf16 or fp32, or for m or n
 * above max_dim (a kernel's index width); INVALID_ARGUMENT for anything else
 * malformed (khost__input_tensor's rules). */
int khost__rows_open(const khost_input *in, int32_t device_type, khost__rows_out out_shape, int64_t max_dim,
                     khost__rows *rows);

#ifdef __cplusplus
}
#endif

#endif
